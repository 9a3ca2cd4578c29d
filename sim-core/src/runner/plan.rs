//! The plan of a world, or of a model created at run time: every sensor and system plugin it
//! asks for, in load order, with what the engine settled about each (topics, frame ids,
//! seeds, entities), and the problems found before any plugin is looked for. Loading is then
//! a loop over the plan: resolve each entry's factory, then create the plugins.

use crate::physics::Physics;
use crate::plugins::{PluginProblem, Registry, Resolved, sensor_subject, system_subject};
use crate::sensors::{SensorManager, SensorSetup, model_sensors, scoped};
use crate::systems::{SystemManager, SystemSetup};
use crate::transport::{Bus, sanitize_topic_part};
use crate::world::{Model, PluginSpec, World};
use sim_plugin_api::EntityId;

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
    /// The plan of `world` as built in `physics`, its seeds derived from `run_seed`.
    pub fn world(world: &World, physics: &Physics, run_seed: u64) -> Plan {
        let mut walk = Walk::new(world, physics, run_seed);
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
    pub fn model(world: &World, physics: &Physics, model: &Model, run_seed: u64) -> Plan {
        let mut walk = Walk::new(world, physics, run_seed);
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

    /// Chooses the factory of every entry in `registry`; the problems (the plan's own and
    /// the unresolved entries) keep the plan's order.
    pub(crate) fn resolve(self, registry: &Registry) -> Resolution<'_> {
        let mut r = Resolution {
            sensors: Vec::new(),
            systems: Vec::new(),
            problems: Vec::new(),
        };
        for item in self.items {
            match item {
                Planned::Sensor(s) => match registry.resolve_sensor(&s) {
                    Ok(f) => r.sensors.push((s, f)),
                    Err(p) => r.problems.push(p),
                },
                Planned::System(s) => match registry.resolve_system(&s) {
                    Ok(f) => r.systems.push((s, f)),
                    Err(p) => r.problems.push(p),
                },
                Planned::Problem(p) => r.problems.push(p),
            }
        }
        r
    }
}

/// A [`Plan`] with its factories chosen.
pub(crate) struct Resolution<'r> {
    sensors: Vec<(SensorSetup, Resolved<'r>)>,
    systems: Vec<(SystemSetup, Resolved<'r>)>,
    /// What could not be resolved, in plan order.
    pub problems: Vec<PluginProblem>,
}

impl Resolution<'_> {
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
                Ok(plugin) => sensors.add(setup, plugin, r.library.file_name.clone(), bus),
                Err(p) => problems.push(p),
            }
        }
        for (setup, r) in self.systems {
            let created = r.create_system(&setup, world_name, physics);
            let (span, subject) = (setup.span.clone(), system_subject(&setup));
            match created {
                Ok(plugin) => {
                    if let Err(e) = systems.add(setup, plugin, r.library.file_name.clone(), bus) {
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
    items: Vec<Planned>,
}

impl<'a> Walk<'a> {
    fn new(world: &'a World, physics: &'a Physics, run_seed: u64) -> Self {
        Walk {
            world,
            physics,
            run_seed,
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
        for site in model_sensors(&self.world.name, &path, model, &id) {
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
