//! Standard simulation control: the ROS 2 `simulation_interfaces` services simcore serves
//! (play, pause, step, query), their requests and their CDR replies.

use crate::ros::{CdrReader, CdrWriter, RosType, catalog};

/// `simulation_interfaces/msg/Result` values.
pub mod result {
    /// The simulator does not support the feature.
    pub const FEATURE_UNSUPPORTED: u8 = 0;
    /// Done.
    pub const OK: u8 = 1;
    /// The simulator is in a state where the call makes no sense.
    pub const INCORRECT_STATE: u8 = 3;
    /// The call could not be completed.
    pub const OPERATION_FAILED: u8 = 4;
    /// SetSimulationState: already in that state.
    pub const ALREADY_IN_TARGET_STATE: u8 = 101;
    /// SetSimulationState: that transition is not possible.
    pub const INCORRECT_TRANSITION: u8 = 103;
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

/// The `simulation_interfaces/msg/SimulatorFeatures` simcore announces:
/// SIMULATION_STATE_GETTING, SIMULATION_STATE_SETTING, SIMULATION_STATE_PAUSE,
/// STEP_SIMULATION_SINGLE, STEP_SIMULATION_MULTIPLE.
pub const FEATURES: &[u16] = &[24, 25, 26, 31, 32];

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
}

impl Service {
    /// Every service, in the order they are declared.
    pub const ALL: [Service; 4] = [
        Service::Features,
        Service::GetState,
        Service::SetState,
        Service::Step,
    ];

    /// Its type.
    pub fn ros_type(self) -> &'static RosType {
        match self {
            Service::Features => &catalog::GET_SIMULATOR_FEATURES,
            Service::GetState => &catalog::GET_SIMULATION_STATE,
            Service::SetState => &catalog::SET_SIMULATION_STATE,
            Service::Step => &catalog::STEP_SIMULATION,
        }
    }

    /// Its name under the node, `/<node>/<snake_case>` (as ROS's `~/...`).
    pub fn ros_name(self, node: &str) -> String {
        let name = match self {
            Service::Features => "get_simulator_features",
            Service::GetState => "get_simulation_state",
            Service::SetState => "set_simulation_state",
            Service::Step => "step_simulation",
        };
        format!("/{node}/{name}")
    }

    /// The DDS name of its type: `pkg::srv::dds_::Type_`.
    pub fn dds_name(self) -> String {
        let t = self.ros_type();
        format!("{}::srv::dds_::{}_", t.package(), t.short_name())
    }

    /// Reads a request of this service.
    pub fn decode(self, bytes: &[u8]) -> Result<Control, String> {
        let mut r = CdrReader::new(bytes).map_err(|e| e.to_string())?;
        let mut u8_field = |f| r.read::<u8>(f).map_err(|e| e.to_string());
        Ok(match self {
            Service::Features => Control::Features,
            Service::GetState => Control::GetState,
            Service::SetState => Control::SetState(u8_field("state")?),
            Service::Step => Control::Step(r.read::<u64>("steps").map_err(|e| e.to_string())?),
        })
    }
}

/// A control request, as the simulation thread serves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Control {
    /// What simcore supports.
    Features,
    /// Playing or paused.
    GetState,
    /// Play, pause or quit (a `SimulationState` value).
    SetState(u8),
    /// Advance this many steps while paused, then reply.
    Step(u64),
}

/// The reply to a control request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// The simulation state (GetSimulationState).
    pub state: u8,
    /// A `result` value.
    pub result: u8,
    /// Why, when not OK.
    pub message: String,
}

impl Reply {
    /// A successful reply.
    pub fn ok(state: u8) -> Reply {
        Reply {
            state,
            result: result::OK,
            message: String::new(),
        }
    }

    /// A failed reply.
    pub fn error(state: u8, result: u8, message: impl Into<String>) -> Reply {
        Reply {
            state,
            result,
            message: message.into(),
        }
    }

    /// The CDR response of `service`.
    pub fn encode(&self, service: Service) -> Vec<u8> {
        let mut out = Vec::with_capacity(64);
        let mut w = CdrWriter::new(&mut out);
        match service {
            Service::Features => {
                w.sequence_len(FEATURES.len());
                for f in FEATURES {
                    w.u16(*f);
                }
                w.sequence_len(0); // spawn_formats
                w.string("simcore: play, pause and step; see docs/transport.md");
            }
            Service::GetState => {
                w.u8(self.state);
                self.result(&mut w);
            }
            Service::SetState | Service::Step => self.result(&mut w),
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
        assert_eq!(
            Service::Step.ros_name("simcore"),
            "/simcore/step_simulation"
        );
    }
}
