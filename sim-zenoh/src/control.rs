//! Standard simulation control: the ROS 2 `simulation_interfaces` services simcore serves
//! (play, pause, step, reset, query, spawn, delete, entity states), their requests and their
//! CDR replies.

use super::entity::{EntityFilters, EntityState};
use sim_codec::{CdrReader, CdrWriter, DecodeError, RosType, catalog};
use sim_plugin_api::{Pose, Quat, Vec3};

/// `simulation_interfaces/msg/Result` values.
pub mod result {
    /// The simulator does not support the feature.
    pub const FEATURE_UNSUPPORTED: u8 = 0;
    /// Done.
    pub const OK: u8 = 1;
    /// No such entity.
    pub const NOT_FOUND: u8 = 2;
    /// The simulator is in a state where the call makes no sense.
    pub const INCORRECT_STATE: u8 = 3;
    /// The call could not be completed.
    pub const OPERATION_FAILED: u8 = 4;
    /// SetSimulationState: already in that state.
    pub const ALREADY_IN_TARGET_STATE: u8 = 101;
    /// SetSimulationState: that transition is not possible.
    pub const INCORRECT_TRANSITION: u8 = 103;
    /// SetEntityState: the pose is not one (a rotation that is none, a position out of the
    /// world's extent, a number that is not finite).
    pub const INVALID_POSE: u8 = 101;
}

/// `simulation_interfaces/srv/ResetSimulation` scopes (a bit field).
pub mod scope {
    /// The same as [`ALL`].
    pub const DEFAULT: u8 = 0;
    /// Sim time back to the start.
    pub const TIME: u8 = 1;
    /// Poses and velocities back to the start.
    pub const STATE: u8 = 2;
    /// Models spawned at run time removed.
    pub const SPAWNED: u8 = 4;
    /// Everything, as if the simulation were launched again.
    pub const ALL: u8 = 255;
}

/// `simulation_interfaces/msg/SimulationState` values.
pub mod state {
    /// Stopped (paused and reset).
    pub const STOPPED: u8 = 0;
    /// Running.
    pub const PLAYING: u8 = 1;
    /// Paused.
    pub const PAUSED: u8 = 2;
    /// The simulator is closing.
    pub const QUITTING: u8 = 3;
}

/// The `simulation_interfaces/msg/SimulatorFeatures` simcore announces: SPAWNING, DELETING,
/// ENTITY_BOUNDS_BOX (GetEntities' box filter; the sphere is always there),
/// SPAWNING_RESOURCE_STRING, ENTITY_STATE_GETTING, ENTITY_STATE_SETTING, SIMULATION_RESET,
/// SIMULATION_RESET_SPAWNED, SIMULATION_STATE_GETTING, SIMULATION_STATE_SETTING,
/// SIMULATION_STATE_PAUSE, STEP_SIMULATION_SINGLE, STEP_SIMULATION_MULTIPLE. The engine
/// spawns and deletes by itself: every world offers them, with or without a factory plugin.
pub const FEATURES: &[u16] = &[0, 1, 6, 9, 10, 11, 20, 23, 24, 25, 26, 31, 32];

/// SimulatorFeatures' SPAWNING.
const SPAWNING: u16 = 0;

/// A service simcore serves: its type and its name (in the node's namespace).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Service {
    /// `GetSimulatorFeatures`.
    Features,
    /// `GetSimulationState`.
    GetState,
    /// `SetSimulationState`.
    SetState,
    /// `StepSimulation`.
    Step,
    /// `SpawnEntity` as Jazzy and Kilted have it (simulation_interfaces 1.x: `uri` and
    /// `resource_string` fields).
    Spawn,
    /// `DeleteEntity`.
    Delete,
    /// `GetEntities`.
    Entities,
    /// `GetEntityState`.
    GetEntityState,
    /// `SetEntityState` as Jazzy and Kilted have it (1.x: pose and twist always set).
    SetEntityState,
    /// `ResetSimulation`.
    Reset,
    /// `SpawnEntity` as simulation_interfaces 2.x (Rolling) has it: a `Resource` with the
    /// same two fields, the same bytes under another type hash.
    SpawnV2,
    /// `SetEntityState` as simulation_interfaces 2.x (Rolling) has it: `set_pose`,
    /// `set_twist` and `set_acceleration` flags after the state.
    SetEntityStateV2,
}

impl Service {
    /// Every service, in the order they are declared.
    pub const ALL: [Service; 12] = [
        Service::Features,
        Service::GetState,
        Service::SetState,
        Service::Step,
        Service::Spawn,
        Service::Delete,
        Service::Entities,
        Service::GetEntityState,
        Service::SetEntityState,
        Service::Reset,
        Service::SpawnV2,
        Service::SetEntityStateV2,
    ];

    /// Its type.
    pub fn ros_type(self) -> &'static RosType {
        match self {
            Service::Features => &catalog::GET_SIMULATOR_FEATURES,
            Service::GetState => &catalog::GET_SIMULATION_STATE,
            Service::SetState => &catalog::SET_SIMULATION_STATE,
            Service::Step => &catalog::STEP_SIMULATION,
            Service::Spawn => &catalog::SPAWN_ENTITY,
            Service::Delete => &catalog::DELETE_ENTITY,
            Service::Entities => &catalog::GET_ENTITIES,
            Service::GetEntityState => &catalog::GET_ENTITY_STATE,
            Service::SetEntityState => &catalog::SET_ENTITY_STATE,
            Service::Reset => &catalog::RESET_SIMULATION,
            Service::SpawnV2 => &catalog::SPAWN_ENTITY_V2,
            Service::SetEntityStateV2 => &catalog::SET_ENTITY_STATE_V2,
        }
    }

    /// Its name: the type's in snake case, in the root namespace (as other simulators
    /// serve them), e.g. `/step_simulation`; both forms of a type share it.
    pub fn ros_name(self) -> &'static str {
        match self {
            Service::Features => "/get_simulator_features",
            Service::GetState => "/get_simulation_state",
            Service::SetState => "/set_simulation_state",
            Service::Step => "/step_simulation",
            Service::Spawn | Service::SpawnV2 => "/spawn_entity",
            Service::Delete => "/delete_entity",
            Service::Entities => "/get_entities",
            Service::GetEntityState => "/get_entity_state",
            Service::SetEntityState | Service::SetEntityStateV2 => "/set_entity_state",
            Service::Reset => "/reset_simulation",
        }
    }

    /// The DDS name of its type: `pkg::srv::dds_::Type_`.
    pub fn dds_name(self) -> String {
        let t = self.ros_type();
        format!("{}::srv::dds_::{}_", t.package(), t.short_name())
    }

    /// Reads a request of this service.
    pub fn decode(self, bytes: &[u8]) -> Result<Control, String> {
        self.read(bytes).map_err(|e| e.to_string())
    }

    fn read(self, bytes: &[u8]) -> Result<Control, DecodeError> {
        let mut r = CdrReader::new(bytes)?;
        Ok(match self {
            Service::Features => Control::Features,
            Service::GetState => Control::GetState,
            Service::SetState => Control::SetState(r.read::<u8>("state")?),
            Service::Step => Control::Step(r.read::<u64>("steps")?),
            // 2.x's `entity_resource` (a Resource) holds 1.x's two strings, in order.
            Service::Spawn | Service::SpawnV2 => {
                let name = r.string("name")?.to_string();
                let allow_renaming = r.bool("allow_renaming")?;
                let uri = r.string("uri")?.to_string();
                let resource_string = r.string("resource_string")?.to_string();
                let namespace = r.string("entity_namespace")?.to_string();
                r.read::<i32>("initial_pose.header.stamp.sec")?;
                r.read::<u32>("initial_pose.header.stamp.nanosec")?;
                let frame = r.string("initial_pose.header.frame_id")?.to_string();
                let mut f = |n| r.f64(n);
                let position = Vec3 {
                    x: f("position.x")?,
                    y: f("position.y")?,
                    z: f("position.z")?,
                };
                let orientation = Quat {
                    x: f("orientation.x")?,
                    y: f("orientation.y")?,
                    z: f("orientation.z")?,
                    w: f("orientation.w")?,
                };
                Control::Spawn(Box::new(Spawn {
                    name,
                    allow_renaming,
                    uri,
                    resource_string,
                    namespace,
                    frame,
                    pose: Pose {
                        position,
                        orientation,
                    },
                }))
            }
            Service::Delete => Control::Delete(r.string("entity")?.to_string()),
            Service::Entities => Control::Entities(Box::new(EntityFilters::read(&mut r)?)),
            Service::GetEntityState => Control::GetEntityState(r.string("entity")?.to_string()),
            Service::SetEntityState | Service::SetEntityStateV2 => {
                let entity = r.string("entity")?.to_string();
                let state = Box::new(EntityState::read(&mut r)?);
                let parts = if self == Service::SetEntityStateV2 {
                    StateParts {
                        pose: r.bool("set_pose")?,
                        twist: r.bool("set_twist")?,
                        acceleration: r.bool("set_acceleration")?,
                    }
                } else {
                    StateParts::ALL
                };
                Control::SetEntityState(entity, state, parts)
            }
            Service::Reset => Control::Reset(r.read::<u8>("scope")?),
        })
    }
}

/// A SpawnEntity request.
#[derive(Clone, Debug, PartialEq)]
pub struct Spawn {
    /// The new model's name (empty: the one in its SDF).
    pub name: String,
    /// Rename on a name clash instead of failing.
    pub allow_renaming: bool,
    /// Where its SDF is (a file, `model://`).
    pub uri: String,
    /// Or its SDF text.
    pub resource_string: String,
    /// The entity namespace (simcore has none: must be empty).
    pub namespace: String,
    /// The frame of `pose` (empty or `world`: the world).
    pub frame: String,
    /// Its initial pose.
    pub pose: Pose,
}

/// Which parts of an entity's state a SetEntityState call sets (2.x's `set_pose`,
/// `set_twist`, `set_acceleration`; 1.x sets them all). A part not set is left as it is and
/// its fields are not looked at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateParts {
    /// The pose.
    pub pose: bool,
    /// The twist.
    pub twist: bool,
    /// The acceleration (checked, then ignored: the engine's follows from the forces).
    pub acceleration: bool,
}

impl StateParts {
    /// Every part (a 1.x call).
    pub const ALL: StateParts = StateParts {
        pose: true,
        twist: true,
        acceleration: true,
    };
}

/// A control request, as the simulation thread serves it.
#[derive(Clone, Debug, PartialEq)]
pub enum Control {
    /// What simcore supports.
    Features,
    /// Playing or paused.
    GetState,
    /// Play, pause or quit (a `SimulationState` value).
    SetState(u8),
    /// Advance this many steps while paused, then reply.
    Step(u64),
    /// Create a model through the world's factory.
    Spawn(Box<Spawn>),
    /// Remove a model by name.
    Delete(String),
    /// The names of the models the filters select.
    Entities(Box<EntityFilters>),
    /// A model's state.
    GetEntityState(String),
    /// Set a model's pose and velocity (the parts named).
    SetEntityState(String, Box<EntityState>, StateParts),
    /// Reset the simulation (a [`scope`] bit field).
    Reset(u8),
}

/// The reply to a control request.
#[derive(Clone, Debug, PartialEq)]
pub struct Reply {
    /// The simulation state (GetSimulationState).
    pub state: u8,
    /// A `result` value.
    pub result: u8,
    /// Why, when not OK.
    pub message: String,
    /// The features (GetSimulatorFeatures).
    pub features: Vec<u16>,
    /// The created entity's name (SpawnEntity).
    pub entity_name: String,
    /// The entities found (GetEntities).
    pub entities: Vec<String>,
    /// The entity's state (GetEntityState; the default when not OK).
    pub entity_state: EntityState,
}

impl Reply {
    /// A successful reply.
    pub fn ok(state: u8) -> Reply {
        Reply::error(state, result::OK, "")
    }

    /// A failed reply.
    pub fn error(state: u8, result: u8, message: impl Into<String>) -> Reply {
        Reply {
            state,
            result,
            message: message.into(),
            features: Vec::new(),
            entity_name: String::new(),
            entities: Vec::new(),
            entity_state: EntityState::default(),
        }
    }

    /// The CDR response of `service`.
    pub fn encode(&self, service: Service) -> Vec<u8> {
        let mut out = Vec::with_capacity(64);
        let mut w = CdrWriter::new(&mut out);
        match service {
            Service::Features => {
                w.sequence_len(self.features.len());
                for f in &self.features {
                    w.u16(*f);
                }
                let spawns = self.features.contains(&SPAWNING);
                w.sequence_len(usize::from(spawns)); // spawn_formats
                if spawns {
                    w.string("sdf");
                }
                w.string("simcore; see docs/transport.md");
            }
            Service::GetState => {
                w.u8(self.state);
                self.result(&mut w);
            }
            Service::Spawn | Service::SpawnV2 => {
                self.result(&mut w);
                w.string(&self.entity_name);
            }
            Service::Entities => {
                self.result(&mut w);
                w.sequence_len(self.entities.len());
                for e in &self.entities {
                    w.string(e);
                }
            }
            Service::GetEntityState => {
                self.result(&mut w);
                self.entity_state.write(&mut w);
            }
            Service::SetState
            | Service::Step
            | Service::Delete
            | Service::SetEntityState
            | Service::SetEntityStateV2
            | Service::Reset => self.result(&mut w),
        }
        out
    }

    fn result(&self, w: &mut CdrWriter<'_>) {
        w.u8(self.result);
        w.string(&self.message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_read_and_bad_ones_refused() {
        let mut b = Vec::new();
        CdrWriter::new(&mut b).u64(7);
        assert_eq!(Service::Step.decode(&b), Ok(Control::Step(7)));
        let mut b = Vec::new();
        CdrWriter::new(&mut b).u8(state::PAUSED);
        assert_eq!(Service::SetState.decode(&b), Ok(Control::SetState(2)));
        assert!(Service::Step.decode(&b).is_err(), "too short for a uint64");
        assert!(Service::Step.decode(b"garbage").is_err());
    }

    #[test]
    fn a_spawn_request_is_read_whole() {
        let mut b = Vec::new();
        let mut w = CdrWriter::new(&mut b);
        w.string("box");
        w.bool(true);
        w.string("");
        w.string("<sdf/>");
        w.string("");
        w.i32(1);
        w.u32(2);
        w.string("world");
        for v in [1.0, 2.0, 3.0, 0.0, 0.0, 0.0, 1.0] {
            w.f64(v);
        }
        let Ok(Control::Spawn(s)) = Service::Spawn.decode(&b) else {
            panic!("not read");
        };
        assert_eq!((s.name.as_str(), s.allow_renaming), ("box", true));
        assert_eq!(
            (s.resource_string.as_str(), s.frame.as_str()),
            ("<sdf/>", "world")
        );
        assert_eq!((s.pose.position.z, s.pose.orientation.w), (3.0, 1.0));
        assert!(
            Service::Spawn.decode(&b[..b.len() - 8]).is_err(),
            "cut short"
        );
    }

    #[test]
    fn replies_are_cdr() {
        let r = Reply::error(state::PLAYING, result::OPERATION_FAILED, "no");
        // header, result at 0, string length 3 at 4 (aligned), "no\0".
        assert_eq!(
            r.encode(Service::Step),
            [0, 1, 0, 0, 4, 0, 0, 0, 3, 0, 0, 0, b'n', b'o', 0]
        );
        assert_eq!(r.encode(Service::GetState)[4..6], [1, 4]);
        assert_eq!(
            Service::Step.dds_name(),
            "simulation_interfaces::srv::dds_::StepSimulation_"
        );
        assert_eq!(Service::Step.ros_name(), "/step_simulation");
    }
}
