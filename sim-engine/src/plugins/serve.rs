//! What serves each planned sensor and `<plugin>` under Gazebo's rules: a library by the
//! manifest's route, by file name or by the plugin's name (whatever its file name says), a
//! built-in gz-sim system, a gz-sim system a library's sensors stand for, or nothing, and then whether Gazebo's policy skips it.

use super::gazebo::{GzSystem, gz_system, silently_skipped};
use super::{PluginProblem, Registry, Resolved, check_library_name, system_subject};
use crate::sensors::SensorSetup;
use crate::systems::SystemSetup;
use sim_plugin_api::PluginKind;

/// How a `<plugin>` is served.
#[derive(Clone, Debug)]
pub enum Served<'a> {
    /// By a factory of a library.
    Library(Resolved<'a>),
    /// By the engine itself (a gz-sim system of [`BUILT_IN`](super::BUILT_IN)).
    BuiltIn(GzSystem),
    /// By the sensors of a library whose file says they stand for this system (the gz-sim
    /// systems that make a sensor type update, `Imu` for `imu` sensors): nothing to load.
    /// Holds the system when it is one of gz-sim's.
    Enabling(Option<GzSystem>),
    /// Not at all, without a word (gz-sim's levels carrier, `__default__`).
    Silent,
}

/// A sensor or `<plugin>` nothing serves.
#[derive(Clone, Debug, PartialEq)]
pub struct Unserved {
    /// The problem, naming what is missing and what would serve it.
    pub problem: PluginProblem,
    /// Whether Gazebo's policy skips it with a warning (no library serves it) rather than
    /// refusing the world (a manifest entry that cannot be followed).
    pub skippable: bool,
}

impl Registry {
    /// The system factory serving `name` in any library on the search path, in search order.
    pub fn system_serving(&self, name: &str) -> Option<Resolved<'_>> {
        if name.is_empty() {
            return None;
        }
        self.first_serving(|f| {
            f.kind == PluginKind::SYSTEM && (f.serves.iter().any(|s| s == name) || f.name == name)
        })
    }

    /// What serves the planned sensor `setup`; a type no library serves is skippable.
    pub fn serve_sensor(&self, setup: &SensorSetup) -> Result<Resolved<'_>, Unserved> {
        let routed = self.sensor_routes.contains_key(&setup.sensor_type);
        self.resolve_sensor(setup).map_err(|problem| Unserved {
            problem,
            skippable: !routed,
        })
    }

    /// What serves the planned `<plugin>` `setup`: the manifest's route for its name; a
    /// built-in gz-sim system; the library named by its file name when that serves its name;
    /// else any library serving its name (or, for a gz-sim system, its gz-sim class name);
    /// else a library whose sensors stand for it (by its name or gz-sim class name). A file
    /// name that is not a bare library name is refused (not skippable).
    pub fn serve_plugin(&self, setup: &SystemSetup) -> Result<Served<'_>, Unserved> {
        if silently_skipped(&setup.filename, &setup.name) {
            return Ok(Served::Silent);
        }
        if self.plugin_routes.contains_key(&setup.name) {
            return self
                .resolve_system(setup)
                .map(Served::Library)
                .map_err(|problem| Unserved {
                    problem,
                    skippable: false,
                });
        }
        let gz = gz_system(&setup.filename, &setup.name);
        if let Some(gz) = gz.as_ref().filter(|g| g.built_in()) {
            return Ok(Served::BuiltIn(gz.clone()));
        }
        // A file name that is not a bare library name is refused, whatever serves the name.
        if !setup.filename.trim().is_empty()
            && let Err(e) = check_library_name(&setup.filename)
        {
            return Err(Unserved {
                problem: PluginProblem {
                    span: setup.span.clone(),
                    subject: system_subject(setup),
                    message: e.to_string(),
                },
                skippable: false,
            });
        }
        let by_file = self.resolve_system(setup);
        if let Ok(r) = by_file {
            return Ok(Served::Library(r));
        }
        let by_name = self
            .system_serving(&setup.name)
            .or_else(|| gz.as_ref().and_then(|g| self.system_serving(&g.class())));
        if let Some(r) = by_name {
            return Ok(Served::Library(r));
        }
        // Only then a library's sensors standing for it: a system some library serves is
        // never taken over by another library's declaration.
        let enabling = self
            .enabling_library(setup.name.trim())
            .or_else(|| gz.as_ref().and_then(|g| self.enabling_library(&g.class())));
        if enabling.is_some() {
            return Ok(Served::Enabling(gz));
        }
        let mut problem = by_file.err().unwrap_or_else(|| PluginProblem {
            span: setup.span.clone(),
            subject: system_subject(setup),
            message: String::new(),
        });
        problem.message = match &gz {
            Some(g) => format!(
                "no plugin library on the plugin search path [{}] serves gz-sim's `{}` system \
                 (`{}`){}; simcore has no plugin for it yet (see docs/gazebo.md), or add the \
                 directory of a plugin that serves it with --plugin-path or SIMCORE_PLUGIN_PATH",
                self.search_path,
                g.name,
                g.class(),
                self.refused_note(None)
            ),
            None => format!(
                "{}; no library on the search path serves the name `{}` either{}",
                problem.message,
                setup.name,
                self.refused_note(Some(&setup.filename))
            ),
        };
        Err(Unserved {
            problem,
            skippable: true,
        })
    }
}

/// The `<plugin>`s of `world` whose file name `run` refuses whatever serves them
/// ([`check_library_name`]: an absolute path, a directory, `..`), each a problem at its
/// element, so that `simcore check` refuses what `run` refuses. The gz-sim systems simcore
/// builds in are not looked up by file name, and are let pass, as at run time; a manifest's
/// route by name is not known here, so a routed plugin with such a file name is refused too.
pub fn refused_file_names(world: &sim_world::World) -> Vec<PluginProblem> {
    fn look(specs: &[sim_world::PluginSpec], out: &mut Vec<PluginProblem>) {
        for p in specs {
            if p.filename.trim().is_empty()
                || gz_system(&p.filename, &p.name).is_some_and(|g| g.built_in())
            {
                continue;
            }
            if let Err(e) = check_library_name(&p.filename) {
                out.push(PluginProblem {
                    span: p.span.clone(),
                    subject: format!("plugin `{}` (filename `{}`)", p.name, p.filename),
                    message: e.to_string(),
                });
            }
        }
    }
    let mut out = Vec::new();
    look(&world.plugins, &mut out);
    world.visit_models(|_, m| {
        look(&m.plugins, &mut out);
        for l in &m.links {
            look(&l.plugins, &mut out);
            for s in &l.sensors {
                look(&s.plugins, &mut out);
            }
        }
        for j in &m.joints {
            for s in &j.sensors {
                look(&s.plugins, &mut out);
            }
        }
    });
    out
}
