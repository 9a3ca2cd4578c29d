//! `simcore new-plugin NAME --sensor|--system`: writes a plugin crate of its own (outside any
//! workspace) that builds, has unit tests against `sim_plugin_api::testing::StaticWorld`, a
//! world that runs it and a README.

use super::{Failure, NewPluginArgs, Outcome};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The longest crate name accepted.
const MAX_NAME: usize = 64;

/// Where the plugin API comes from until it is published on crates.io.
const API_GIT: &str = "https://github.com/simcore-sim/simcore";

/// Writes the crate `DIR/NAME` and says what to do next.
pub fn new_plugin(args: NewPluginArgs) -> Result<Outcome, Failure> {
    let files = render(&args)?;
    let root = args
        .dir
        .clone()
        .unwrap_or_else(|| PathBuf::from("."))
        .join(&args.name);
    // Not `exists()`, which follows a link: a link there, even to nothing, is in the way.
    if std::fs::symlink_metadata(&root).is_ok() {
        return Err(Failure::Error(format!(
            "{} already exists; new-plugin never writes over files",
            root.display()
        )));
    }
    for (rel, text) in &files {
        // Each file new, never through a link (nor a directory on its way that is one).
        let path = root.join(rel);
        let written = path
            .parent()
            .map_or(Ok(()), sim_core::files::create_dirs)
            .and_then(|()| sim_core::files::create_new(&path))
            .and_then(|mut f| {
                f.write_all(text.as_bytes())
                    .map_err(|error| sim_core::files::WriteError::Io {
                        path: path.clone(),
                        error,
                    })
            });
        if let Err(e) = written {
            return Err(Failure::Error(format!("new-plugin: {e}")));
        }
    }
    let mut o = std::io::stdout().lock();
    let _ = writeln!(
        o,
        "wrote the {} plugin crate {}:",
        kind(&args),
        root.display()
    );
    for (rel, _) in &files {
        let _ = writeln!(o, "  {rel}");
    }
    let _ = writeln!(
        o,
        "next: cd {} && cargo test && cargo build --release (see its README.md)",
        root.display()
    );
    Ok(Outcome::Success)
}

fn kind(args: &NewPluginArgs) -> &'static str {
    if args.system { "system" } else { "sensor" }
}

/// Checks a crate name: an ASCII lowercase letter, then lowercase letters, digits, `-` or
/// `_`, at most [`MAX_NAME`] characters.
fn check_name(name: &str) -> Result<(), Failure> {
    let ok_start = name.chars().next().is_some_and(|c| c.is_ascii_lowercase());
    let ok_rest = name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_');
    if ok_start && ok_rest && name.len() <= MAX_NAME {
        Ok(())
    } else {
        Err(Failure::Error(format!(
            "`{name}` is not a plugin crate name: use a lowercase letter, then lowercase \
             letters, digits, `-` or `_` (at most {MAX_NAME} characters)"
        )))
    }
}

/// `acme-sonar` -> `AcmeSonar`.
fn type_name(lib: &str) -> String {
    lib.split('_')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The `sim-plugin-api` dependency line: a path to a checkout, or the git repository.
fn dependency(api_path: Option<&Path>) -> Result<String, Failure> {
    match api_path {
        None => Ok(format!("sim-plugin-api = {{ git = \"{API_GIT}\" }}")),
        Some(p) => {
            let abs = std::fs::canonicalize(p)
                .map_err(|e| Failure::Error(format!("--api-path {}: {e}", p.display())))?;
            if !abs.join("Cargo.toml").is_file() {
                return Err(Failure::Error(format!(
                    "--api-path {}: no Cargo.toml there (name the sim-plugin-api directory of a \
                     simcore checkout)",
                    p.display()
                )));
            }
            let text = abs
                .to_string_lossy()
                .replace('\\', "\\\\")
                .replace('"', "\\\"");
            Ok(format!("sim-plugin-api = {{ path = \"{text}\" }}"))
        }
    }
}

/// The files of the crate, relative to its root, in the order they are written.
fn render(args: &NewPluginArgs) -> Result<Vec<(String, String)>, Failure> {
    check_name(&args.name)?;
    let krate = args.name.as_str();
    let lib = krate.replace('-', "_");
    let ty = type_name(&lib);
    // A sensor serves its SDF sensor type; a system its `<plugin name>`.
    let name = if args.system {
        format!("{lib}::{ty}")
    } else {
        lib.clone()
    };
    let dependency = dependency(args.api_path.as_deref())?;
    let fill = |t: &str| {
        t.replace("{{crate}}", krate)
            .replace("{{lib}}", &lib)
            .replace("{{type}}", &ty)
            .replace("{{name}}", &name)
            .replace("{{dependency}}", &dependency)
    };
    let (code, world) = if args.system {
        (
            include_str!("templates/system.rs.tmpl"),
            include_str!("templates/system.sdf.tmpl"),
        )
    } else {
        (
            include_str!("templates/sensor.rs.tmpl"),
            include_str!("templates/sensor.sdf.tmpl"),
        )
    };
    let (summary, run_args, usage) = if args.system {
        (
            format!(
                "`<plugin name=\"{name}\">` inside a `<model>` moves the model by the last \
                 `Twist` on `/model/<model>/cmd_vel`, scaled by `<gain>` (default 1), and \
                 publishes its pose on `/model/<model>/pose`."
            ),
            "--pub '/model/ball/cmd_vel={\"type\":\"Twist\",\"linear\":{\"x\":0.5}}@0' \
             --echo /model/ball/pose"
                .to_string(),
            format!("<plugin filename=\"{lib}\" name=\"{name}\">\n  <gain>1</gain>\n</plugin>"),
        )
    } else {
        (
            format!(
                "sensor type `{name}` publishes the height of its link above the world origin \
                 plus `<offset>` (`Double`, m)."
            ),
            format!("--echo /world/{lib}/model/probe_box/link/body/sensor/probe/{name}"),
            format!(
                "<sensor name=\"probe\" type=\"{name}\">\n  <update_rate>10</update_rate>\n  \
                 <offset>0.5</offset>\n</sensor>"
            ),
        )
    };
    let readme = fill(include_str!("templates/README.md.tmpl"))
        .replace("{{kind}}", kind(args))
        .replace("{{summary}}", &summary)
        .replace("{{run_args}}", &run_args)
        .replace("{{usage}}", &usage);
    Ok(vec![
        (
            "Cargo.toml".into(),
            fill(include_str!("templates/Cargo.toml.tmpl")),
        ),
        ("src/lib.rs".into(), fill(code)),
        (format!("worlds/{lib}.sdf"), fill(world)),
        ("README.md".into(), readme),
        (".gitignore".into(), "/target\n".into()),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(name: &str, system: bool) -> NewPluginArgs {
        NewPluginArgs {
            name: name.into(),
            sensor: !system,
            system,
            dir: None,
            api_path: None,
        }
    }

    #[test]
    fn names_are_checked() {
        for bad in [
            "",
            "Acme",
            "9lives",
            "a b",
            "acme/../x",
            "é",
            &"a".repeat(65),
        ] {
            assert!(render(&args(bad, false)).is_err(), "{bad:?} accepted");
        }
        assert!(render(&args("acme-sonar_2", false)).is_ok());
    }

    #[test]
    fn a_system_serves_a_scoped_plugin_name_and_leaves_no_placeholder() {
        let files = render(&args("acme-lift", true)).unwrap();
        let code = &files.iter().find(|f| f.0 == "src/lib.rs").unwrap().1;
        assert!(
            code.contains(r#"serves: ["acme_lift::AcmeLift"]"#),
            "{code}"
        );
        assert!(code.contains("pub struct AcmeLift"));
        let world = &files
            .iter()
            .find(|f| f.0 == "worlds/acme_lift.sdf")
            .unwrap()
            .1;
        assert!(
            world.contains(r#"<plugin filename="acme_lift" name="acme_lift::AcmeLift">"#),
            "{world}"
        );
        for (path, text) in &files {
            assert!(!text.contains("{{"), "{path} keeps a placeholder:\n{text}");
        }
        let manifest = &files[0].1;
        assert!(manifest.contains(&format!("sim-plugin-api = {{ git = \"{API_GIT}\" }}")));
    }

    #[test]
    fn a_sensor_serves_its_sensor_type() {
        let files = render(&args("acme-sonar", false)).unwrap();
        let code = &files.iter().find(|f| f.0 == "src/lib.rs").unwrap().1;
        assert!(code.contains(r#"sensor "acme_sonar""#) && code.contains("pub struct AcmeSonar"));
        assert_eq!(type_name("a__b_c1"), "ABC1");
    }
}
