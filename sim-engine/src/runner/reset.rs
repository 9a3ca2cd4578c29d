//! Building a world's engine parts (physics, sensors, systems) from its description, at load
//! and again on [`Simulation::reset`]; taking models out (removal requests, and every model
//! spawned at run time on [`Simulation::remove_spawned`]).

use super::plan::{Plan, PluginPolicy};
use super::{LoadError, SimOptions, Simulation};
use crate::plugins::{PluginProblem, Registry};
use crate::sensors::SensorManager;
use crate::systems::SystemManager;
use sim_physics::{CommandError, Physics};
use sim_plugin_api::{EntityId, EntityKind};
use sim_transport::Bus;
use sim_world::World;

/// What [`build`] makes of a world.
pub(super) struct Parts {
    pub physics: Physics,
    pub sensors: SensorManager,
    pub systems: SystemManager,
    pub skipped: Vec<PluginProblem>,
    pub notices: Vec<PluginProblem>,
}

/// Builds `world` in the engine and creates its sensors and plugins on `bus`: all plugin
/// problems together, as [`Simulation::with_policy`] reports them.
pub(super) fn build(
    world: &World,
    registry: &Registry,
    options: &SimOptions,
    policy: PluginPolicy,
    bus: &mut Bus,
) -> Result<Parts, LoadError> {
    let physics = Physics::build(world)?;
    let mut sensors = SensorManager::new();
    let mut systems = SystemManager::new();
    let suffix = |t: &str| registry.sensor_topic_suffix(t);
    let mut plan = Plan::world(world, &physics, options.seed, &suffix);
    plan.add_default_systems(world);
    let mut resolution = plan.resolve_with(registry, policy);
    let skipped = std::mem::take(&mut resolution.skipped);
    let notices = std::mem::take(&mut resolution.notices);
    let problems = resolution.create(&world.name, &physics, bus, &mut sensors, &mut systems);
    if !problems.is_empty() {
        return Err(LoadError::Plugins(problems));
    }
    Ok(Parts {
        physics,
        sensors,
        systems,
        skipped,
        notices,
    })
}

impl Simulation {
    /// Starts again from the world as loaded, as if the simulation were launched again with
    /// the same seed (and the same plugin guards): the physics is rebuilt (sim time 0, every pose and velocity as loaded,
    /// the models spawned since gone) and every sensor and plugin is created anew, so the
    /// steps that follow publish what a fresh run's do. The bus, with its subscriptions, is
    /// kept: what listens from outside goes on listening. When the world cannot be built
    /// again (a plugin refuses), the simulation is left as it was and the error returned.
    pub fn reset(&mut self) -> Result<(), LoadError> {
        let parts = build(
            &self.world,
            &self.registry,
            &self.options,
            self.policy,
            &mut self.bus,
        )?;
        let guards = self.sensors.guards();
        self.before_reset = (self.sensor_reports(), self.system_reports());
        self.first_spawned = parts.physics.next_entity_id();
        self.physics = parts.physics;
        self.sensors = parts.sensors;
        self.systems = parts.systems;
        self.set_guards(guards);
        self.next_ticket = 1;
        Ok(())
    }

    /// [`Simulation::reset`] with another run seed: the steps that follow publish what a
    /// fresh run of the world with `seed` publishes (every noise stream derives from it), and
    /// later resets and spawned models keep it. When the world cannot be built again, the
    /// simulation is left as it was, its seed too, and the error returned.
    pub fn reset_with_seed(&mut self, seed: u64) -> Result<(), LoadError> {
        let previous = std::mem::replace(&mut self.options.seed, seed);
        let reset = self.reset();
        if reset.is_err() {
            self.options.seed = previous;
        }
        reset
    }

    /// The options the simulation was built with (the seed of the last
    /// [`Simulation::reset_with_seed`]).
    pub fn options(&self) -> &SimOptions {
        &self.options
    }

    /// Removes every model spawned at run time (their sensors and plugins with them);
    /// returns their names. Time and the loaded models' state are left as they are.
    pub fn remove_spawned(&mut self) -> Vec<String> {
        let spawned: Vec<(EntityId, String)> = self
            .physics
            .frames()
            .filter(|f| {
                f.kind == EntityKind::MODEL
                    && f.id.0 >= self.first_spawned.0
                    && !f.scoped_name.contains("::")
            })
            .map(|f| (f.id, f.scoped_name.to_string()))
            .collect();
        let mut removed = Vec::new();
        for (id, name) in spawned {
            match self.remove_model(id) {
                Ok(()) => removed.push(name),
                Err(e) => tracing::warn!("`{name}` not removed: {e}"),
            }
        }
        removed
    }

    /// Removes a model with its sensors and plugins.
    pub(super) fn remove_model(&mut self, id: EntityId) -> Result<(), CommandError> {
        let removed = self.physics.remove_model(id)?;
        for name in self.sensors.remove(&removed) {
            tracing::info!("sensor `{name}` removed with its model");
        }
        self.systems.remove(&removed);
        Ok(())
    }
}
