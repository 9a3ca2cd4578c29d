//! Resolving the `<uri>` of a mesh or heightmap to a file.
//!
//! Forms, as Gazebo reads them: `model://NAME/path` (a model directory on the resource path),
//! `file://path`, an absolute path, or a path relative to the SDF file (then to each resource
//! directory). The resource path is `SIMCORE_RESOURCE_PATH`, `GZ_SIM_RESOURCE_PATH` and
//! `SDF_PATH` (each a `:`-separated list), then every `models/` directory at or above the SDF
//! file. Web (Fuel) URIs are never fetched.

use std::path::{Path, PathBuf};

/// The environment variables holding resource directories, in search order.
pub(crate) const RESOURCE_PATH_VARS: [&str; 3] =
    ["SIMCORE_RESOURCE_PATH", "GZ_SIM_RESOURCE_PATH", "SDF_PATH"];

/// The resource directories searched for `model://` URIs and relative paths, in order.
pub(crate) fn resource_dirs(sdf_file: Option<&Path>) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for var in RESOURCE_PATH_VARS {
        if let Some(value) = std::env::var_os(var) {
            dirs.extend(std::env::split_paths(&value).filter(|p| !p.as_os_str().is_empty()));
        }
    }
    if let Some(mut dir) = sdf_file.and_then(Path::parent) {
        loop {
            let models = dir.join("models");
            if models.is_dir() {
                dirs.push(models);
            }
            match dir.parent() {
                Some(up) => dir = up,
                None => break,
            }
        }
    }
    dirs
}

/// The file `uri` names, or why there is none (listing where it was looked for).
pub(crate) fn resolve(uri: &str, sdf_file: Option<&Path>) -> Result<PathBuf, String> {
    let base = sdf_file.and_then(Path::parent).unwrap_or(Path::new(""));
    if uri.starts_with("http://") || uri.starts_with("https://") {
        return Err(format!(
            "\"{uri}\" is a web (Fuel) address, and files are never downloaded while loading a \
             world: download it (e.g. `gz fuel download -u {uri}`) into a directory on \
             SIMCORE_RESOURCE_PATH and refer to it with model://"
        ));
    }
    let searched = |tried: &[PathBuf]| {
        let list: Vec<String> = tried.iter().map(|p| p.display().to_string()).collect();
        format!(
            "\"{uri}\" was not found; looked for {}. Add the directory holding it to \
             SIMCORE_RESOURCE_PATH (or GZ_SIM_RESOURCE_PATH / SDF_PATH)",
            if list.is_empty() {
                "it nowhere: no resource directory is set".to_string()
            } else {
                list.join(", ")
            }
        )
    };
    let mut tried = Vec::new();
    if let Some(rest) = uri.strip_prefix("model://") {
        for dir in resource_dirs(sdf_file) {
            let candidate = dir.join(rest);
            if candidate.is_file() {
                return Ok(candidate);
            }
            tried.push(candidate);
        }
        return Err(searched(&tried));
    }
    let path = Path::new(uri.strip_prefix("file://").unwrap_or(uri));
    if path.is_absolute() {
        return if path.is_file() {
            Ok(path.to_path_buf())
        } else {
            Err(searched(&[path.to_path_buf()]))
        };
    }
    let local = base.join(path);
    if local.is_file() {
        return Ok(local);
    }
    tried.push(local);
    for dir in resource_dirs(sdf_file) {
        let candidate = dir.join(path);
        if candidate.is_file() {
            return Ok(candidate);
        }
        tried.push(candidate);
    }
    Err(searched(&tried))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_file_and_model_uris_resolve_next_to_the_sdf_file() {
        let dir = tempfile::tempdir().unwrap();
        let world = dir.path().join("worlds/w.sdf");
        std::fs::create_dir_all(world.parent().unwrap()).unwrap();
        std::fs::create_dir_all(dir.path().join("worlds/meshes")).unwrap();
        std::fs::create_dir_all(dir.path().join("models/robot/meshes")).unwrap();
        std::fs::write(dir.path().join("worlds/meshes/a.stl"), "x").unwrap();
        std::fs::write(dir.path().join("models/robot/meshes/b.dae"), "x").unwrap();

        let a = resolve("meshes/a.stl", Some(&world)).unwrap();
        assert!(a.ends_with("worlds/meshes/a.stl"), "{a:?}");
        let abs = dir.path().join("worlds/meshes/a.stl");
        let uri = format!("file://{}", abs.display());
        assert_eq!(resolve(&uri, Some(&world)).unwrap(), abs);
        // `models/` above the file is on the resource path.
        let b = resolve("model://robot/meshes/b.dae", Some(&world)).unwrap();
        assert!(b.ends_with("models/robot/meshes/b.dae"), "{b:?}");

        let missing = resolve("model://robot/meshes/none.dae", Some(&world)).unwrap_err();
        assert!(
            missing.contains("none.dae") && missing.contains("SIMCORE_RESOURCE_PATH"),
            "{missing}"
        );
        let web = resolve("https://fuel.gazebosim.org/1.0/x/models/y", Some(&world)).unwrap_err();
        assert!(web.contains("download"), "{web}");
    }
}
