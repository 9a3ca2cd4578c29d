//! `simcore check` and `simcore inspect`: reading SDF files without running them.

use super::settings::file_options;
use super::{CheckArgs, Failure, InspectArgs, Outcome};
use std::io::Write;

/// `simcore inspect FILE [--json]`: succeeds when the file reads, fails (with the error on
/// stderr, and the oracle's `"ok": false` object on stdout with `--json`) when it does not.
pub fn inspect(args: &InspectArgs) -> Result<Outcome, Failure> {
    let options = file_options(&args.resources, args.manifest.as_deref())?;
    match sim_core::sdf::load_document_with(&args.file, &options) {
        Ok(doc) => {
            let text = if args.json {
                sim_core::inspect::to_json(&doc)
            } else {
                sim_core::inspect::to_tree(&doc)
            };
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
            Ok(Outcome::Success)
        }
        Err(e) => {
            note_text!("{}", e.render(None));
            if args.json {
                say_text!("{}", sim_core::inspect::error_json(&e));
            }
            Err(Failure::Reported)
        }
    }
}

/// `simcore check`: loads each file (includes too) and builds it in the physics engine; prints
/// `FILE: OK` on stdout or every problem with its source line on stderr (warnings too, which
/// do not make a file invalid).
pub fn check(args: CheckArgs) -> Result<Outcome, Failure> {
    let options = file_options(&args.resources, args.manifest.as_deref())?;
    let mut bad = 0;
    for file in &args.files {
        let (loaded, warnings) = sim_core::sdf::load_document_with_warnings(file, &options);
        // Warnings are printed, as libsdformat's, and do not make the file invalid.
        for w in &warnings {
            note_text!("{}", w.render_warning());
        }
        let problem = match loaded {
            Err(e) => Some(e.render(None)),
            // Every world of the file is built (`run` simulates only the first).
            Ok(doc) => match doc.into_worlds() {
                Err(e) => Some(e.render(None)),
                Ok(worlds) => {
                    let several = worlds.len() > 1;
                    let reports: String = worlds
                        .iter()
                        .filter_map(|world| {
                            // A plugin file name `run` refuses is refused here too.
                            let refused = sim_core::plugins::refused_file_names(world);
                            if !refused.is_empty() {
                                return Some(super::report::plugin_problems(file, &refused));
                            }
                            let e = sim_core::physics::Physics::build(world).err()?;
                            let which = if several {
                                format!("world \"{}\"", world.name)
                            } else {
                                "the world".to_string()
                            };
                            Some(format!(
                                "error: {which} cannot be built: {}\n  --> {}\n",
                                e.message, e.span
                            ))
                        })
                        .collect();
                    (!reports.is_empty()).then_some(reports)
                }
            },
        };
        match problem {
            None => say!("{}: OK", file.display()),
            Some(report) => {
                bad += 1;
                note_text!("{report}");
                note!("{}: invalid", file.display());
            }
        }
    }
    if args.files.len() > 1 {
        note!(
            "checked {} files: {} valid, {} invalid",
            args.files.len(),
            args.files.len() - bad,
            bad
        );
    }
    if bad == 0 {
        Ok(Outcome::Success)
    } else {
        Err(Failure::Reported)
    }
}
