//! The plan of a world, or of a model created at run time: every sensor and system plugin it
//! asks for, in load order, with what the engine settled about each (topics, frame ids,
//! seeds, entities), and the problems found before any plugin is looked for. Loading is then
//! a loop over the plan: resolve each entry's factory, then create the plugins.

use crate::plugins::{
    DEFAULT_SYSTEMS, GzSystem, PluginProblem, Registry, Resolved, Served, Unserved, gz_system,
    not_applicable, sensor_subject, system_subject,
};
use crate::sensors::{SensorManager, SensorSetup, model_sensors, scoped};
use crate::systems::{SystemManager, SystemSetup};
use sim_physics::Physics;
use sim_plugin_api::EntityId;
use sim_transport::{Bus, sanitize_topic_part};
use sim_world::{Model, PluginSpec, World};

/// One entry of a [`Plan`].
#[derive(Clone, Debug, PartialEq)]
pub enum Planned {
    /// A sensor to create.
    Sensor(SensorSetup),
    /// A system plugin to create.
    System(SystemSetup),
    /// Something that cannot be loaded as written (an invalid topic).
    Problem(PluginProblem),
}

/// What a world or model asks the engine to create, in load order: world plugins, then per
/// model (depth first) its link plugins, its sensors (link sensors, then joint sensors), each
/// followed by its own plugins, then the model's plugins and its nested models.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Plan {
    /// The entries, in load order.
    pub items: Vec<Planned>,
}

impl Plan {
    /// The plan of `world` as built in `physics`, its seeds derived from `run_seed`, its
    /// sensors' default topics ending in `suffix(sensor type)`
    /// ([`Registry::sensor_topic_suffix`]).
    pub fn world(
        world: &World,
        physics: &Physics,
        run_seed: u64,
        suffix: &dyn Fn(&str) -> String,
    ) -> Plan {
        let mut walk = Walk::new(world, physics, run_seed, suffix);
        let world_ns = format!("/world/{}", sanitize_topic_part(&world.name));
        for p in &world.plugins {
            walk.system(p, EntityId::WORLD, &world.name, &world_ns);
        }
        for m in &world.models {
            walk.model(m, &[]);
        }
        Plan { items: walk.items }
    }

    /// The plan of `model`, a top-level model of `world` (its entities looked up in
    /// `physics`: NONE while it is not built).
    pub fn model(
        world: &World,
        physics: &Physics,
        model: &Model,
        run_seed: u64,
        suffix: &dyn Fn(&str) -> String,
    ) -> Plan {
        let mut walk = Walk::new(world, physics, run_seed, suffix);
        walk.model(model, &[]);
        Plan { items: walk.items }
    }

    /// The sensors planned, in order.
    pub fn sensors(&self) -> impl Iterator<Item = &SensorSetup> {
        self.items.iter().filter_map(|i| match i {
            Planned::Sensor(s) => Some(s),
            _ => None,
        })
    }

    /// The system plugins planned, in order.
    pub fn systems(&self) -> impl Iterator<Item = &SystemSetup> {
        self.items.iter().filter_map(|i| match i {
            Planned::System(s) => Some(s),
            _ => None,
        })
    }

    /// Adds what server.config gives a world that names no systems (Physics, UserCommands,
    /// SceneBroadcaster) when `world` has no world `<plugin>`.
    pub fn add_default_systems(&mut self, world: &World) {
        if !world.plugins.is_empty() {
            return;
        }
        let ns = format!("/world/{}", sanitize_topic_part(&world.name));
        for name in DEFAULT_SYSTEMS {
            let spec = PluginSpec {
                filename: String::new(),
                name: format!("gz::sim::systems::{name}"),
                sdf: format!("<plugin name=\"gz::sim::systems::{name}\"/>"),
                span: world.span.clone(),
            };
            self.items.push(Planned::System(SystemSetup::plan(
                &spec,
                EntityId::WORLD,
                &world.name,
                &ns,
                0,
            )));
        }
    }

    /// Chooses the factory of every entry in `registry` under [`PluginPolicy::Strict`].
    #[cfg(test)]
    pub(crate) fn resolve(self, registry: &Registry) -> Resolution<'_> {
        self.resolve_with(registry, PluginPolicy::Strict)
    }

    /// Chooses the factory of every entry in `registry`; the problems (the plan's own and
    /// the unresolved entries) keep the plan's order. Under [`PluginPolicy::Gazebo`], what no
    /// library serves is skipped instead. A world UserCommands system brings the factory and
    /// truth plugins when the world does not declare them and a library serves them.
    pub(crate) fn resolve_with(self, registry: &Registry, policy: PluginPolicy) -> Resolution<'_> {
        let mut r = Resolution {
            sensors: Vec::new(),
            systems: Vec::new(),
            problems: Vec::new(),
            skipped: Vec::new(),
            notices: Vec::new(),
        };
        let mut user_commands: Option<SystemSetup> = None;
        let unserved = |r: &mut Resolution<'_>, u: Unserved| {
            if u.skippable && policy == PluginPolicy::Gazebo {
                r.skipped.push(u.problem)
            } else {
                r.problems.push(u.problem)
            }
        };
        for item in self.items {
            match item {
                Planned::Sensor(s) => match registry.serve_sensor(&s) {
                    Ok(f) => r.sensors.push((s, f)),
                    Err(u) => unserved(&mut r, u),
                },
                Planned::System(s) => {
                    let gz = gz_system(&s.filename, &s.name);
                    match registry.serve_plugin(&s) {
                        Ok(Served::Library(f)) => {
                            r.deprecated(&s, gz.as_ref());
                            r.systems.push((s, f))
                        }
                        Ok(Served::BuiltIn(g)) => {
                            r.deprecated(&s, Some(&g));
                            for m in not_applicable(&g.name, &s.sdf) {
                                r.notice(&s, m);
                            }
                            if g.name == "UserCommands" && s.entity == EntityId::WORLD {
                                user_commands.get_or_insert(s);
                            }
                        }
                        Ok(Served::Enabling(system)) => r.deprecated(&s, system.as_ref()),
                        Ok(Served::Silent) => {}
                        Err(u) => unserved(&mut r, u),
                    }
                }
                Planned::Problem(p) => r.problems.push(p),
            }
        }
        if let Some(uc) = user_commands {
            r.user_commands(registry, &uc);
        }
        r
    }
}

/// What a sensor or plugin nothing serves does to the load.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PluginPolicy {
    /// Gazebo's: one warning each, and the world runs without it.
    #[default]
    Gazebo,
    /// Each is an error: the world does not load (`--strict`).
    Strict,
}

/// The plugins the world's UserCommands services come from, by the name they serve, with
/// the services they offer.
const USER_COMMANDS: &[(&str, &str)] = &[
    ("simcore::Factory", "create and remove"),
    ("simcore::TruthWidget", "set_pose"),
];

/// What the plugins of [`USER_COMMANDS`] publish after each step (relative to the world's
/// namespace), by the name they serve: their `post_step` does nothing else (see
/// [`SystemSetup::post_step_serves`]).
const USER_COMMANDS_PUBLISH: &[(&str, &str)] = &[("simcore::TruthWidget", "pose/info")];

/// A [`Plan`] with its factories chosen.
pub(crate) struct Resolution<'r> {
    sensors: Vec<(SensorSetup, Resolved<'r>)>,
    systems: Vec<(SystemSetup, Resolved<'r>)>,
    /// What could not be resolved, in plan order.
    pub problems: Vec<PluginProblem>,
    /// What no library serves and the world runs without, in plan order.
    pub skipped: Vec<PluginProblem>,
    /// Warnings: deprecated names, parameters of built-in systems that do not apply.
    pub notices: Vec<PluginProblem>,
}

impl<'r> Resolution<'r> {
    fn notice(&mut self, s: &SystemSetup, message: String) {
        self.notices.push(PluginProblem {
            span: s.span.clone(),
            subject: system_subject(s),
            message,
        });
    }

    fn deprecated(&mut self, s: &SystemSetup, gz: Option<&GzSystem>) {
        if let Some(g) = gz.filter(|g| g.deprecated) {
            self.notice(
                s,
                format!(
                    "`ignition` names are deprecated: use `{}` (or a `gz-sim-*-system` file name)",
                    g.class()
                ),
            );
        }
    }

    /// Adds the factory and truth plugins on the world of `uc` unless the world has them.
    fn user_commands(&mut self, registry: &'r Registry, uc: &SystemSetup) {
        for (name, services) in USER_COMMANDS {
            let present = self.systems.iter().any(|(s, f)| {
                s.entity == EntityId::WORLD && f.factory.serves.iter().any(|x| x == name)
            });
            if present {
                continue;
            }
            let Some(f) = registry.system_serving(name) else {
                self.notice(
                    uc,
                    format!(
                        "the world's {services} services are not offered: no plugin library on \
                         the plugin search path serves `{name}`"
                    ),
                );
                continue;
            };
            let spec = PluginSpec {
                filename: f.library.file_name.clone(),
                name: name.to_string(),
                sdf: format!("<plugin name=\"{name}\"/>"),
                span: uc.span.clone(),
            };
            let mut setup = SystemSetup::plan(
                &spec,
                EntityId::WORLD,
                &uc.entity_name,
                &uc.namespace,
                uc.seed,
            );
            // Added for its service: the pose list it publishes on the world (a by-product
            // nobody asked for) is built only while someone listens.
            if let Some(topic) = USER_COMMANDS_PUBLISH
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| t)
            {
                setup.post_step_serves = vec![topic.to_string()];
            }
            self.systems.push((setup, f));
        }
    }

    /// Creates the resolved plugins (sensors, then systems) and registers them; returns every
    /// problem (resolution problems first, then creation errors).
    pub(crate) fn create(
        self,
        world_name: &str,
        physics: &Physics,
        bus: &mut Bus,
        sensors: &mut SensorManager,
        systems: &mut SystemManager,
    ) -> Vec<PluginProblem> {
        let mut problems = self.problems;
        for (setup, r) in self.sensors {
            match r.create_sensor(&setup, world_name, physics) {
                Ok((plugin, outputs)) => {
                    let library = r.library.file_name.clone();
                    sensors.add_declared(setup, plugin, library, bus, outputs)
                }
                Err(p) => problems.push(p),
            }
        }
        for (setup, r) in self.systems {
            let created = r.create_system(&setup, world_name, physics);
            let (span, subject) = (setup.span.clone(), system_subject(&setup));
            match created {
                Ok((plugin, inputs, outputs)) => {
                    let library = r.library.file_name.clone();
                    let added = systems.add_declared(setup, plugin, library, bus, inputs, outputs);
                    if let Err(e) = added {
                        problems.push(PluginProblem {
                            span,
                            subject,
                            message: e.to_string(),
                        });
                    }
                }
                Err(p) => problems.push(p),
            }
        }
        problems
    }
}

/// The walk over a world's models that builds a plan.
struct Walk<'a> {
    world: &'a World,
    physics: &'a Physics,
    run_seed: u64,
    suffix: &'a dyn Fn(&str) -> String,
    items: Vec<Planned>,
}

impl<'a> Walk<'a> {
    fn new(
        world: &'a World,
        physics: &'a Physics,
        run_seed: u64,
        suffix: &'a dyn Fn(&str) -> String,
    ) -> Self {
        Walk {
            world,
            physics,
            run_seed,
            suffix,
            items: Vec::new(),
        }
    }

    fn system(&mut self, p: &PluginSpec, entity: EntityId, entity_name: &str, namespace: &str) {
        self.items.push(Planned::System(SystemSetup::plan(
            p,
            entity,
            entity_name,
            namespace,
            self.run_seed,
        )));
    }

    fn model(&mut self, model: &Model, parents: &[&str]) {
        let physics = self.physics;
        let id = move |scoped: &str| physics.entity_id(scoped).unwrap_or(EntityId::NONE);
        let mut path: Vec<&str> = parents.to_vec();
        path.push(&model.name);
        let scoped_model = path.join("::");
        let model_id = id(&scoped_model);
        let model_ns = format!(
            "/model/{}",
            path.iter()
                .map(|p| sanitize_topic_part(p))
                .collect::<Vec<_>>()
                .join("/model/")
        );
        for link in &model.links {
            let scoped_link = scoped(&scoped_model, &link.name);
            for p in &link.plugins {
                self.system(p, id(&scoped_link), &scoped_link, &model_ns);
            }
        }
        for site in model_sensors(&self.world.name, &path, model, &id, self.suffix) {
            let entity = id(&site.scoped_name);
            match site.plan(entity, model_id, self.run_seed) {
                Ok(setup) => self.items.push(Planned::Sensor(setup)),
                Err(e) => {
                    // A sensor whose topic is invalid is not loaded, nor are its plugins.
                    self.items.push(Planned::Problem(PluginProblem {
                        span: site.spec.span.clone(),
                        subject: sensor_subject(&site.scoped_name, &site.spec.sensor_type),
                        message: e.to_string(),
                    }));
                    continue;
                }
            }
            for p in &site.spec.plugins {
                self.system(p, entity, &site.scoped_name, &model_ns);
            }
        }
        for p in &model.plugins {
            self.system(p, model_id, &scoped_model, &model_ns);
        }
        for nested in &model.models {
            self.model(nested, &path);
        }
    }
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
