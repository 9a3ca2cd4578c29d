//! `simcore new-plugin NAME --sensor|--system`: writes a plugin crate of its own (outside any
//! workspace) that builds, has unit tests against `sim_plugin_api::testing::StaticWorld`, a
//! world that runs it and a README.
//!
//! The crate depends on the plugin API this simcore was built with: the `sim-plugin-api`
//! directory of the checkout it was built from when that is still there with the same
//! version (so the crate builds offline, with no other source), else that version from the
//! registry; `--api-path` names another checkout. Its README runs the simcore that wrote it.

use super::{Failure, NewPluginArgs, Outcome};
use abi_stable::sabi_types::VersionNumber;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The longest crate name accepted.
const MAX_NAME: usize = 64;

/// Where the plugin API comes from until it is published on crates.io.
const API_GIT: &str = "https://github.com/simcore-sim/simcore";

/// The `sim-plugin-api` directory of the checkout this simcore was built from (it may have
/// moved or gone since).
const API_CHECKOUT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../sim-plugin-api");

/// Writes the crate `DIR/NAME` and says what to do next.
pub fn new_plugin(args: NewPluginArgs) -> Result<Outcome, Failure> {
    let Rendered { files, note } = render(&args)?;
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
    if let Some(note) = note {
        note!("warning: {note}");
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
        "next: cd {} && cargo test && cargo build --release, then run it with this simcore \
         as its README.md says",
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

/// The version of the `sim-plugin-api` package whose directory is `dir`, read from its
/// `Cargo.toml`, or why it is not one.
fn api_version_in(dir: &Path) -> Result<String, String> {
    let manifest = dir.join("Cargo.toml");
    let text =
        std::fs::read_to_string(&manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
    let table: toml::Table = text
        .parse()
        .map_err(|e| format!("{}: {e}", manifest.display()))?;
    let package = table.get("package").and_then(toml::Value::as_table);
    let field = |key: &str| {
        package
            .and_then(|p| p.get(key))
            .and_then(toml::Value::as_str)
    };
    match (field("name"), field("version")) {
        (Some("sim-plugin-api"), Some(version)) => Ok(version.to_string()),
        _ => Err(format!(
            "{}: not the manifest of the sim-plugin-api package",
            manifest.display()
        )),
    }
}

/// `sim-plugin-api = { path = "..." }` for the directory `abs`, with a comment saying where
/// else the same API comes from.
fn path_dependency(abs: &Path, what: &str, engine: VersionNumber) -> String {
    // A TOML string, escaped as TOML wants it.
    let text = toml::Value::String(abs.to_string_lossy().into_owned());
    format!(
        "# {what}.\n\
         # Elsewhere, the same API:\n\
         # sim-plugin-api = \"~{major}.{minor}\" (from crates.io once it is published; the newest \
         {major}.{minor}.x)\n\
         # sim-plugin-api = {{ git = \"{API_GIT}\" }}\n\
         sim-plugin-api = {{ path = {text} }}",
        major = engine.major,
        minor = engine.minor,
    )
}

/// The `sim-plugin-api` dependency (with a comment saying where it comes from), and a note
/// for stderr when it may not be what the user wants.
///
/// By default it is the API this simcore was built with (see [`default_dependency`]);
/// `--api-path` names the `sim-plugin-api` directory of a checkout.
fn dependency(api_path: Option<&Path>) -> Result<(String, Option<String>), Failure> {
    let engine = sim_core::plugins::epoch::engine_version();
    let Some(p) = api_path else {
        return Ok(default_dependency(Path::new(API_CHECKOUT), engine));
    };
    let refuse = |e: String| {
        Failure::Error(format!(
            "--api-path {}: {e} (name the sim-plugin-api directory of a simcore checkout)",
            p.display()
        ))
    };
    let abs = std::fs::canonicalize(p).map_err(|e| refuse(e.to_string()))?;
    let version = api_version_in(&abs).map_err(refuse)?;
    // A plugin built against a newer minor version than this simcore's is refused by it.
    let note = parse_version(&version)
        .and_then(|v| sim_core::plugins::epoch::newer_than_engine(v, engine))
        .map(|why| format!("--api-path {}: the plugin will be {why}", p.display()));
    let what = format!("sim-plugin-api {version}, from the checkout given to new-plugin");
    Ok((path_dependency(&abs, &what, engine), note))
}

/// The dependency on the API this simcore was built with (`engine`): the directory
/// `checkout` (the checkout it was built from, [`API_CHECKOUT`]) when it still holds that
/// version, so that the crate builds offline; else that minor version from the registry,
/// `~1.8` (a later minor version would build a plugin this simcore refuses), with a note
/// saying why the checkout was not used.
fn default_dependency(checkout: &Path, engine: VersionNumber) -> (String, Option<String>) {
    let usable = std::fs::canonicalize(checkout)
        .map_err(|e| format!("{}: {e}", checkout.display()))
        .and_then(|abs| {
            let version = api_version_in(&abs)?;
            if version == engine.to_string() {
                Ok(abs)
            } else {
                Err(format!(
                    "{} holds sim-plugin-api {version}, not the {engine} this simcore was \
                     built with",
                    abs.display()
                ))
            }
        });
    match usable {
        Ok(abs) => {
            let what = format!(
                "sim-plugin-api {engine}, the plugin API of the simcore checkout that wrote this \
                 crate"
            );
            (path_dependency(&abs, &what, engine), None)
        }
        Err(why) => (
            format!(
                "# sim-plugin-api {major}.{minor} (the newest {major}.{minor}.x), the plugin API \
                 of the simcore that wrote this crate:\n\
                 # a later minor version would build a plugin that simcore refuses. Until the \
                 crate is on crates.io:\n\
                 # sim-plugin-api = {{ git = \"{API_GIT}\" }}\n\
                 # sim-plugin-api = {{ path = \"<simcore checkout>/sim-plugin-api\" }}\n\
                 sim-plugin-api = \"~{major}.{minor}\"",
                major = engine.major,
                minor = engine.minor,
            ),
            Some(format!(
                "the simcore checkout this simcore was built from cannot be used ({why}): the \
                 crate depends on sim-plugin-api ~{}.{} from crates.io; to build it from a \
                 checkout instead, give --api-path DIR (its sim-plugin-api directory)",
                engine.major, engine.minor
            )),
        ),
    }
}

/// `1.6.0` (a pre-release or build suffix of the patch ignored), or `None`.
fn parse_version(text: &str) -> Option<VersionNumber> {
    let mut parts = text.splitn(3, '.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let patch = parts.next()?;
    let digits = patch
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(patch.len());
    let patch = patch[..digits].parse().ok()?;
    Some(VersionNumber {
        major,
        minor,
        patch,
    })
}

/// `path` as one word for a POSIX shell: as it is when that is safe, else in single quotes.
fn shell_word(path: &str) -> String {
    let plain = !path.is_empty()
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,".contains(c));
    if plain {
        path.to_string()
    } else {
        format!("'{}'", path.replace('\'', r"'\''"))
    }
}

/// The command that runs this simcore in the README: its absolute path, as a shell word
/// (`simcore`, found on the PATH, when it is not known or not UTF-8).
fn this_simcore() -> String {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.to_str().map(shell_word))
        .unwrap_or_else(|| "simcore".to_string())
}

/// `template` with each `{{key}}` of `values` replaced by its value, in one pass (a value is
/// never searched for keys); other `{{...}}` are left as they are.
fn substitute(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let value = after.find("}}").and_then(|end| {
            values
                .iter()
                .find(|(k, _)| *k == &after[..end])
                .map(|(_, v)| (*v, end))
        });
        match value {
            Some((v, end)) => {
                out.push_str(v);
                rest = &after[end + 2..];
            }
            None => {
                out.push_str("{{");
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// What [`render`] writes.
struct Rendered {
    /// The files of the crate (path relative to its root, text), in the order they are
    /// written.
    files: Vec<(String, String)>,
    /// A warning for stderr about its dependency (see [`dependency`]).
    note: Option<String>,
}

/// The files of the crate and what to say about them.
fn render(args: &NewPluginArgs) -> Result<Rendered, Failure> {
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
    let (dependency, note) = dependency(args.api_path.as_deref())?;
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
    let simcore = this_simcore();
    let engine = sim_core::plugins::epoch::engine_version().to_string();
    let values = [
        ("crate", krate),
        ("lib", lib.as_str()),
        ("type", ty.as_str()),
        ("name", name.as_str()),
        ("dependency", dependency.as_str()),
        ("kind", kind(args)),
        ("summary", summary.as_str()),
        ("run_args", run_args.as_str()),
        ("usage", usage.as_str()),
        ("simcore", simcore.as_str()),
        ("api_version", engine.as_str()),
    ];
    let fill = |t: &str| substitute(t, &values);
    let files = vec![
        (
            "Cargo.toml".into(),
            fill(include_str!("templates/Cargo.toml.tmpl")),
        ),
        ("src/lib.rs".into(), fill(code)),
        (format!("worlds/{lib}.sdf"), fill(world)),
        (
            "README.md".into(),
            fill(include_str!("templates/README.md.tmpl")),
        ),
        (".gitignore".into(), "/target\n".into()),
    ];
    Ok(Rendered { files, note })
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

    fn file<'a>(files: &'a [(String, String)], name: &str) -> &'a str {
        &files.iter().find(|f| f.0 == name).unwrap().1
    }

    fn v(major: u32, minor: u32, patch: u32) -> VersionNumber {
        VersionNumber {
            major,
            minor,
            patch,
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
        let Rendered { files, note } = render(&args("acme-lift", true)).unwrap();
        let code = file(&files, "src/lib.rs");
        assert!(
            code.contains(r#"serves: ["acme_lift::AcmeLift"]"#),
            "{code}"
        );
        assert!(code.contains("pub struct AcmeLift"));
        let world = file(&files, "worlds/acme_lift.sdf");
        assert!(
            world.contains(r#"<plugin filename="acme_lift" name="acme_lift::AcmeLift">"#),
            "{world}"
        );
        for (path, text) in &files {
            assert!(!text.contains("{{"), "{path} keeps a placeholder:\n{text}");
        }
        // Built in a checkout: the default is that checkout's API, by path.
        assert_eq!(note, None);
        let api = std::fs::canonicalize(API_CHECKOUT).unwrap();
        let manifest = file(&files, "Cargo.toml");
        assert!(
            manifest.contains(&format!(
                "\nsim-plugin-api = {{ path = \"{}\" }}\n",
                api.display()
            )),
            "{manifest}"
        );
        let parsed: toml::Table = manifest.parse().expect("the manifest is TOML");
        assert!(parsed["dependencies"]["sim-plugin-api"]["path"].is_str());
    }

    #[test]
    fn the_readme_runs_the_simcore_that_wrote_it() {
        let files = render(&args("acme-sonar", false)).unwrap().files;
        let readme = file(&files, "README.md");
        let exe = std::env::current_exe().unwrap();
        let line = format!("SIMCORE={}\n", shell_word(exe.to_str().unwrap()));
        assert!(readme.contains(&line), "{readme}");
        assert!(
            readme.contains("\"$SIMCORE\" run worlds/acme_sonar.sdf --plugin-path target/release"),
            "{readme}"
        );
        let api = sim_core::plugins::epoch::engine_version().to_string();
        assert!(readme.contains(&format!("written for sim-plugin-api {api}")));
    }

    #[test]
    fn without_the_checkout_the_default_is_the_same_minor_version_from_the_registry() {
        let engine = v(1, 6, 0);
        let dir = tempfile::tempdir().unwrap();
        let (line, note) = default_dependency(&dir.path().join("gone"), engine);
        assert!(line.ends_with("\nsim-plugin-api = \"~1.6\""), "{line}");
        let note = note.expect("said why");
        assert!(
            note.contains("gone") && note.contains("--api-path"),
            "{note}"
        );
        let parsed: toml::Table = format!("[dependencies]\n{line}").parse().unwrap();
        assert_eq!(
            parsed["dependencies"]["sim-plugin-api"].as_str(),
            Some("~1.6")
        );

        // A checkout of another version is not the API this simcore was built with.
        let other = dir.path().join("sim-plugin-api");
        std::fs::create_dir(&other).unwrap();
        std::fs::write(
            other.join("Cargo.toml"),
            "[package]\nname = \"sim-plugin-api\"\nversion = \"1.7.0\"\n",
        )
        .unwrap();
        let (line, note) = default_dependency(&other, engine);
        assert!(line.ends_with("sim-plugin-api = \"~1.6\""), "{line}");
        assert!(
            note.unwrap()
                .contains("holds sim-plugin-api 1.7.0, not the 1.6.0")
        );
        let (line, note) = default_dependency(&other, v(1, 7, 0));
        assert!(line.contains("sim-plugin-api = { path = "), "{line}");
        assert_eq!(note, None);
    }

    #[test]
    fn api_path_must_name_a_sim_plugin_api_directory() {
        let dir = tempfile::tempdir().unwrap();
        let Err(Failure::Error(e)) = dependency(Some(dir.path())) else {
            panic!("a directory without a manifest was taken");
        };
        assert!(
            e.contains("Cargo.toml") && e.contains("sim-plugin-api directory"),
            "{e}"
        );
        std::fs::write(
            dir.path().join("Cargo.toml"),
            "[package]\nname = \"acme\"\nversion = \"1.0.0\"\n",
        )
        .unwrap();
        let Err(Failure::Error(e)) = dependency(Some(dir.path())) else {
            panic!("another package was taken");
        };
        assert!(
            e.contains("not the manifest of the sim-plugin-api package"),
            "{e}"
        );
        std::fs::write(
            dir.path().join("Cargo.toml"),
            "[package]\nname = \"sim-plugin-api\"\nversion = \"1.99.0\"\n",
        )
        .unwrap();
        let (_, note) = dependency(Some(dir.path())).unwrap();
        assert!(
            note.unwrap()
                .contains("built against sim-plugin-api 1.99.0, newer")
        );
    }

    #[test]
    fn a_path_is_written_as_a_toml_string() {
        let odd = Path::new("/opt/a \"b\" \\c\n/sim-plugin-api");
        let line = path_dependency(odd, "x", v(1, 6, 0));
        let parsed: toml::Table = format!("[dependencies]\n{line}").parse().expect("TOML");
        assert_eq!(
            parsed["dependencies"]["sim-plugin-api"]["path"].as_str(),
            odd.to_str()
        );
    }

    #[test]
    fn templates_are_filled_in_one_pass() {
        let values = [("a", "{{b}}"), ("b", "x")];
        assert_eq!(
            substitute("{{a}}-{{b}}-{{c}}-{{", &values),
            "{{b}}-x-{{c}}-{{"
        );
        assert_eq!(
            shell_word("/opt/simcore/bin/simcore"),
            "/opt/simcore/bin/simcore"
        );
        assert_eq!(shell_word("/my dir/it's"), r"'/my dir/it'\''s'");
        assert_eq!(
            parse_version("1.6.0-rc.1").map(|v| v.to_string()),
            Some("1.6.0".into())
        );
        assert_eq!(parse_version("1.x"), None);
    }

    #[test]
    fn a_sensor_serves_its_sensor_type() {
        let files = render(&args("acme-sonar", false)).unwrap().files;
        let code = file(&files, "src/lib.rs");
        assert!(code.contains(r#"sensor "acme_sonar""#) && code.contains("pub struct AcmeSonar"));
        assert_eq!(type_name("a__b_c1"), "ABC1");
    }
}
