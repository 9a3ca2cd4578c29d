//! What the plugins' tests share (feature `testing`, for dev-dependencies): assertions on the
//! errors every sensor reports the same way, the error of creating a sensor
//! ([`sensor_error`]), and the world a system is created in ([`SystemSetup`]).

use crate::idle::{GzSystem, OrIdle, create};
use crate::sensor::SdfSensor;
use sim_plugin_api::testing::{StaticWorld, sensor_config, system_config};
use sim_plugin_api::{EntityId, EntityKind, ErrorCode, PluginError, SystemConfig};

/// Asserts that `e` is the configuration error of the sensor `name` about the element at
/// `path` (e.g. `<navsat><position_sensing>`) quoting the text `found` there.
#[track_caller]
pub fn assert_config_error(e: &PluginError, name: &str, path: &str, found: &str) {
    assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
    assert!(
        e.message.starts_with(name)
            && e.message.contains(path)
            && e.message.contains(&format!("\"{found}\"")),
        "{e}"
    );
}

/// Asserts that `e` is a run-time error of the sensor `name` (its message starts with the
/// name), e.g. an update whose link is gone.
#[track_caller]
pub fn assert_runtime_error(e: &PluginError, name: &str) {
    assert_eq!(e.code, ErrorCode::RUNTIME);
    assert!(e.message.starts_with(name), "{e}");
}

/// The error of creating the sensor `S` (`scoped_name`, of SDF type `kind`, on `link`) from
/// its `<sensor>` element `sdf`, written at line `line` of `world.sdf`, in an empty world, as
/// the engine creates it ([`SdfSensor::create`]); panics when it is created.
#[track_caller]
pub fn sensor_error<S: SdfSensor>(
    scoped_name: &str,
    kind: &str,
    link: EntityId,
    sdf: &str,
    line: u32,
) -> PluginError {
    let config = sensor_config(scoped_name, kind, link, sdf).with_source("world.sdf", line);
    match StaticWorld::default().with(|world| S::create(&config, &world)) {
        Ok(_) => panic!("{scoped_name}: created from {sdf:?}, an error was expected"),
        Err(e) => e,
    }
}

/// A world to create a system in, for tests: a [`StaticWorld`] where entity 1 is the model
/// (or world) the system `plugin` is attached to, whose `<plugin>` element is written at a
/// line of `world.sdf` (40 unless [`at_line`](SystemSetup::at_line) says otherwise), so that
/// its messages name the place.
#[derive(Debug)]
pub struct SystemSetup<'n> {
    /// The world (its `logs` hold the warnings logged).
    pub world: StaticWorld,
    plugin: &'n str,
    name: &'n str,
    line: u32,
}

/// The entity a [`SystemSetup`]'s system is attached to (the id the engine gives the world).
pub const ATTACHED: EntityId = EntityId::WORLD;

impl<'n> SystemSetup<'n> {
    /// The system `plugin` on the model `model` (scoped name).
    pub fn on_model(plugin: &'n str, model: &'n str) -> Self {
        Self::attached(plugin, model, EntityKind::MODEL)
    }

    /// The system `plugin` on the world `world`.
    pub fn on_world(plugin: &'n str, world: &'n str) -> Self {
        Self::attached(plugin, world, EntityKind::WORLD)
    }

    fn attached(plugin: &'n str, name: &'n str, kind: EntityKind) -> Self {
        let mut world = StaticWorld::default();
        world.set_entity(ATTACHED, kind, EntityId::NONE, name);
        SystemSetup {
            world,
            plugin,
            name,
            line: 40,
        }
    }

    /// The element written at line `line` of `world.sdf` instead.
    pub fn at_line(mut self, line: u32) -> Self {
        self.line = line;
        self
    }

    /// With the entity `id` of kind `kind` below the model, `own` being its name in it
    /// (`<model>::<own>`).
    pub fn with(mut self, id: u64, kind: EntityKind, own: &str) -> Self {
        let scoped = format!("{}::{own}", self.name);
        self.world.set_entity(EntityId(id), kind, ATTACHED, &scoped);
        self
    }

    /// The configuration of the system from its `<plugin>` element `sdf`.
    pub fn config<'a>(&'a self, sdf: &'a str) -> SystemConfig<'a> {
        system_config(self.plugin, ATTACHED, self.name, sdf).with_source("world.sdf", self.line)
    }

    /// The system `S` created from `sdf` as the engine creates it ([`create`]).
    pub fn create<S: GzSystem>(&self, sdf: &str) -> Result<OrIdle<S>, PluginError> {
        let config = self.config(sdf);
        self.world.with(|world| create::<S>(&config, &world))
    }

    /// The error of creating the system `S` from `sdf`; panics when it is created.
    #[track_caller]
    pub fn create_error<S: GzSystem>(&self, sdf: &str) -> PluginError {
        match self.create::<S>(sdf) {
            Ok(_) => panic!(
                "{}: created from {sdf:?}, an error was expected",
                self.plugin
            ),
            Err(e) => e,
        }
    }

    /// The last warning (or other message) logged in the world; panics when there is none.
    #[track_caller]
    pub fn last_log(&self) -> String {
        let logs = self.world.logs.lock().unwrap_or_else(|e| e.into_inner());
        match logs.last() {
            Some((_, message)) => message.clone(),
            None => panic!("nothing was logged"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::WorldRef;

    /// A system needing the joint `wheel` of its model, and a `<gain>`.
    struct Needy;

    impl GzSystem for Needy {
        fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
            let doc = crate::plugin_document(config, "rover: Needy")?;
            doc.root().require::<f64>("gain")?;
            crate::gz::entity(
                world,
                config.entity_name.as_str(),
                "wheel",
                EntityKind::JOINT,
                "joint_name",
                "rover: Needy",
            )?;
            Ok(Needy)
        }
    }

    #[test]
    fn systems_created_on_a_model_at_a_line() {
        let setup = SystemSetup::on_model("x::Needy", "rover").at_line(7);
        let config = setup.config("<plugin/>");
        assert_eq!(config.entity, ATTACHED);
        assert_eq!(
            (config.name.as_str(), config.entity_name.as_str()),
            ("x::Needy", "rover")
        );
        let e = setup.create_error::<Needy>("<plugin>\n<gain>x</gain></plugin>");
        assert_eq!(
            e.message.as_str(),
            "rover: Needy: <gain> must be a finite number, found \"x\" at world.sdf:8"
        );
        assert!(
            setup
                .create::<Needy>("<plugin><gain>1</gain></plugin>")
                .unwrap()
                .is_idle()
        );
        assert_eq!(
            setup.last_log(),
            "rover: Needy: <joint_name> `wheel`: no such joint in the model; the system does \
             nothing (as in gz-sim)"
        );
        let setup = SystemSetup::on_model("x::Needy", "rover").with(2, EntityKind::JOINT, "wheel");
        assert!(
            !setup
                .create::<Needy>("<plugin><gain>1</gain></plugin>")
                .unwrap()
                .is_idle()
        );
        assert_eq!(setup.config("").source.line, 40);
        let world = SystemSetup::on_world("x::Needy", "w");
        let info = world
            .world
            .with(|w| w.entity_info(ATTACHED).into_option().map(|i| i.kind));
        assert_eq!(info, Some(EntityKind::WORLD));
    }
}
