//! A model directory read as Gazebo reads it: the SDF file its `model.config` (or the
//! deprecated `manifest.xml`) names, with the warnings about that configuration.

use std::ffi::OsStr;
use std::fmt;
use std::path::{Path, PathBuf};

use crate::version::Version;

/// The SDF file of the model directory `dir`: the `<sdf>` entry of its `model.config` (or the
/// deprecated `manifest.xml`) with the highest version this reader supports (entries without a
/// version count only when none has one). A `model.config` that lists no usable entry falls
/// back to `model.sdf` when the directory has one.
pub fn model_file(dir: &Path) -> Result<ModelFile, ModelConfigError> {
    let mut warnings = Vec::new();
    let config = dir.join("model.config");
    let config = if config.is_file() {
        config
    } else {
        let manifest = dir.join("manifest.xml");
        if !manifest.is_file() {
            return Err(ModelConfigError::NoConfig {
                dir: dir.to_path_buf(),
                has_model_sdf: dir.join("model.sdf").is_file(),
            });
        }
        manifest
    };
    let deprecated_manifest = config.file_name() == Some(OsStr::new("manifest.xml"));
    let max = crate::input::Limits::default().max_sdf_bytes;
    let text =
        crate::input::read_regular_text(&config, max).map_err(|e| ModelConfigError::Read {
            file: config.clone(),
            reason: e.to_string(),
        })?;
    let options = roxmltree::ParsingOptions {
        allow_dtd: false,
        ..Default::default()
    };
    let doc = roxmltree::Document::parse_with_options(&text, options).map_err(|e| {
        ModelConfigError::Xml {
            file: config.clone(),
            line: e.pos().row,
            column: e.pos().col,
            message: e.to_string(),
            text: text.clone(),
        }
    })?;
    let root = doc.root_element();
    if root.tag_name().name() != "model" {
        return Err(ModelConfigError::NoModel { file: config });
    }
    let at = |pos: usize| {
        let p = doc.text_pos_at(pos);
        (p.row, p.col)
    };
    if deprecated_manifest {
        warnings.push(ConfigWarning {
            position: at(root.range().start),
            element: "<model>".to_string(),
            message: "manifest.xml is a deprecated name for a model's configuration".to_string(),
            hint: "rename it to model.config".to_string(),
        });
    }
    let mut best: Option<(Version, String)> = None;
    let mut unversioned: Option<String> = None;
    for entry in root
        .children()
        .filter(|c| c.is_element() && c.tag_name().name() == "sdf")
    {
        let file: String = entry.text().unwrap_or_default().trim().to_string();
        if file.is_empty() {
            continue;
        }
        match entry.attribute("version") {
            None => {
                unversioned.get_or_insert(file);
            }
            Some(v) => match config_version(v) {
                Some(version) if version <= Version::NEWEST => {
                    if best.as_ref().is_none_or(|(b, _)| version > *b) {
                        best = Some((version, file));
                    }
                }
                _ => warnings.push(ConfigWarning {
                    position: at(entry
                        .attribute_node("version")
                        .map_or(entry.range().start, |a| a.range_value().start)),
                    element: format!("<sdf version=\"{v}\">"),
                    message: format!(
                        "the entry `{file}` is ignored: its version {v} is not one this reader \
                         reads (SDF 1.0 to {})",
                        Version::NEWEST
                    ),
                    hint: "nothing to do if another entry names a file of a version read here \
                           (it is the one used); otherwise add an entry for an older version \
                           of the model"
                        .to_string(),
                }),
            },
        }
    }
    let chosen = match (best, unversioned) {
        (Some((_, file)), _) => file,
        (None, Some(file)) => file,
        (None, None) => {
            if dir.join("model.sdf").is_file() {
                warnings.push(ConfigWarning {
                    position: at(root.range().start),
                    element: "<model>".to_string(),
                    message: "names no SDF file this reader reads; model.sdf of the same \
                              directory is used instead"
                        .to_string(),
                    hint: "add an <sdf version=\"...\">FILE</sdf> entry naming the model's \
                           SDF file"
                        .to_string(),
                });
                "model.sdf".to_string()
            } else {
                return Err(ModelConfigError::NoSdf { file: config });
            }
        }
    };
    let path = dir.join(&chosen);
    if !path.is_file() {
        return Err(ModelConfigError::Missing {
            config,
            named: chosen,
        });
    }
    Ok(ModelFile {
        path,
        warnings: warnings.into_iter().map(|w| w.located(&config)).collect(),
        config_text: std::sync::Arc::new(text),
    })
}

/// A warning about a model directory's configuration, before its file is known.
struct ConfigWarning {
    position: (u32, u32),
    element: String,
    message: String,
    hint: String,
}

impl ConfigWarning {
    fn located(self, file: &Path) -> ModelConfigWarning {
        ModelConfigWarning {
            file: file.to_path_buf(),
            line: self.position.0,
            column: self.position.1,
            element: self.element,
            message: self.message,
            hint: self.hint,
        }
    }
}

/// Something worth a warning in a model directory's `model.config` (an entry of a version
/// this reader does not read, a deprecated `manifest.xml`, a fallback to `model.sdf`); the
/// SDF reader turns it into a warning of the load.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelConfigWarning {
    /// The configuration file.
    pub file: PathBuf,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub column: u32,
    /// The element it is about, e.g. `<sdf version="2.0">`.
    pub element: String,
    /// What is wrong.
    pub message: String,
    /// What to do about it.
    pub hint: String,
}

/// The version of a `model.config` `<sdf>` entry: `major.minor`, with any further component
/// (`1.6.0`) ignored.
fn config_version(v: &str) -> Option<Version> {
    let mut parts = v.trim().split('.');
    let major = parts.next()?.trim();
    let minor = parts.next().unwrap_or("0").trim();
    Version::parse(&format!("{major}.{minor}"))
}

/// The SDF file chosen for a model directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelFile {
    /// The file.
    pub path: PathBuf,
    /// Things worth a warning on the way (entries too new, deprecated names, fallbacks).
    pub warnings: Vec<ModelConfigWarning>,
    /// The text of the configuration file, for showing the warnings' lines.
    pub config_text: std::sync::Arc<String>,
}

/// A model directory whose SDF file cannot be determined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModelConfigError {
    /// No `model.config` (nor `manifest.xml`).
    NoConfig {
        /// The directory.
        dir: PathBuf,
        /// Whether it holds a `model.sdf`.
        has_model_sdf: bool,
    },
    /// The config file cannot be read.
    Read {
        /// The file.
        file: PathBuf,
        /// Why.
        reason: String,
    },
    /// The config file is not well-formed XML.
    Xml {
        /// The file.
        file: PathBuf,
        /// 1-based line.
        line: u32,
        /// 1-based column.
        column: u32,
        /// The parser's message.
        message: String,
        /// The file's text.
        text: String,
    },
    /// The root element is not `<model>`.
    NoModel {
        /// The file.
        file: PathBuf,
    },
    /// No `<sdf>` entry this reader can use, and no `model.sdf`.
    NoSdf {
        /// The file.
        file: PathBuf,
    },
    /// The chosen entry names a file that does not exist.
    Missing {
        /// The config file.
        config: PathBuf,
        /// The file it names.
        named: String,
    },
}

impl ModelConfigError {
    /// What to do about it.
    pub fn hint(&self) -> String {
        match self {
            ModelConfigError::NoConfig {
                has_model_sdf: true,
                ..
            } => "add a model.config naming the SDF file (<model><sdf version=\"1.12\">model.sdf</sdf></model>), \
                  or include the file itself: .../model.sdf"
                .to_string(),
            ModelConfigError::NoConfig { .. } => {
                "a model directory holds a model.config and the SDF file it names".to_string()
            }
            ModelConfigError::Read { .. } => "check that the file is readable".to_string(),
            ModelConfigError::Xml { .. } => "fix the XML syntax of the model.config".to_string(),
            ModelConfigError::NoModel { .. } => {
                "a model.config has a <model> root: <model><sdf version=\"1.12\">model.sdf</sdf></model>"
                    .to_string()
            }
            ModelConfigError::NoSdf { .. } => format!(
                "add <sdf version=\"1.12\">model.sdf</sdf> to it (versions up to {} are read)",
                Version::NEWEST
            ),
            ModelConfigError::Missing { .. } => {
                "fix the file name in the <sdf> entry, or add the file".to_string()
            }
        }
    }
}

impl fmt::Display for ModelConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ModelConfigError::NoConfig { dir, .. } => write!(
                f,
                "the model directory {} has no model.config",
                dir.display()
            ),
            ModelConfigError::Read { file, reason } => {
                write!(f, "cannot read {}: {reason}", file.display())
            }
            ModelConfigError::Xml { file, message, .. } => {
                write!(f, "{} is not well-formed XML: {message}", file.display())
            }
            ModelConfigError::NoModel { file } => {
                write!(f, "{} has no <model> root element", file.display())
            }
            ModelConfigError::NoSdf { file } => write!(
                f,
                "{} names no SDF file of a version this reader supports",
                file.display()
            ),
            ModelConfigError::Missing { config, named } => write!(
                f,
                "{} names \"{named}\", which does not exist",
                config.display()
            ),
        }
    }
}

impl std::error::Error for ModelConfigError {}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(p: &Path, text: &str) {
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    #[test]
    fn model_config_picks_the_newest_supported_version() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path();
        touch(
            &d.join("model.config"),
            "<?xml version='1.0'?><model><name>m</name>\
             <sdf version='1.4'>a.sdf</sdf><sdf version='1.9'>b.sdf</sdf>\
             <sdf version='100.0'>c.sdf</sdf><sdf version='1.6'>d.sdf</sdf></model>",
        );
        for f in ["a.sdf", "b.sdf", "c.sdf", "d.sdf"] {
            touch(&d.join(f), "");
        }
        let chosen = model_file(d).unwrap();
        assert_eq!(chosen.path, d.join("b.sdf"));
        assert!(
            chosen.warnings.iter().any(|w| w.message.contains("100.0")
                && w.element == "<sdf version=\"100.0\">"
                && w.line == 1),
            "{:?}",
            chosen.warnings
        );

        // Without versions: the first entry.
        touch(
            &d.join("model.config"),
            "<model><sdf>d.sdf</sdf><sdf>a.sdf</sdf></model>",
        );
        assert_eq!(model_file(d).unwrap().path, d.join("d.sdf"));

        // Nothing usable: model.sdf if there is one.
        touch(&d.join("model.config"), "<model><name>m</name></model>");
        assert!(matches!(model_file(d), Err(ModelConfigError::NoSdf { .. })));
        touch(&d.join("model.sdf"), "");
        assert_eq!(model_file(d).unwrap().path, d.join("model.sdf"));

        // Naming a missing file, malformed XML, no config at all.
        touch(
            &d.join("model.config"),
            "<model><sdf version='1.6'>gone.sdf</sdf></model>",
        );
        assert!(matches!(
            model_file(d),
            Err(ModelConfigError::Missing { .. })
        ));
        touch(&d.join("model.config"), "<model><sdf>");
        assert!(matches!(model_file(d), Err(ModelConfigError::Xml { .. })));
        std::fs::remove_file(d.join("model.config")).unwrap();
        let e = model_file(d).unwrap_err();
        assert!(
            matches!(
                e,
                ModelConfigError::NoConfig {
                    has_model_sdf: true,
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.hint().contains("model.sdf"), "{}", e.hint());
    }
}
