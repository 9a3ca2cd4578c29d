//! Identifiers, time and small plain-data types shared by the engine and plugins.

use abi_stable::{
    StableAbi,
    std_types::{RStr, RString},
};

/// Simulation time in integer nanoseconds since the start of the run.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime {
    /// Nanoseconds since the start of the simulation.
    pub nanos: i64,
}

impl SimTime {
    /// Time zero.
    pub const ZERO: SimTime = SimTime { nanos: 0 };

    /// From nanoseconds.
    pub const fn from_nanos(nanos: i64) -> Self {
        SimTime { nanos }
    }
    /// From seconds, rounded to the nearest nanosecond.
    pub fn from_secs_f64(secs: f64) -> Self {
        SimTime {
            nanos: (secs * 1e9).round() as i64,
        }
    }
    /// As seconds.
    pub fn as_secs_f64(self) -> f64 {
        self.nanos as f64 * 1e-9
    }
    /// Whole seconds and the nanoseconds within the second (for message stamps).
    pub fn to_sec_nsec(self) -> (i64, i32) {
        (
            self.nanos.div_euclid(1_000_000_000),
            self.nanos.rem_euclid(1_000_000_000) as i32,
        )
    }
}

/// The identity of a world entity (world, model, link, joint, collision, visual, sensor).
///
/// Ids are assigned by the engine when the world is built and stay valid for the run; a
/// removed entity's id is never reused. `EntityId::NONE` (0) names no entity.
#[repr(transparent)]
#[derive(StableAbi, Copy, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EntityId(pub u64);

impl EntityId {
    /// No entity.
    pub const NONE: EntityId = EntityId(0);
    /// The world itself.
    pub const WORLD: EntityId = EntityId(1);

    /// Whether this is [`EntityId::NONE`].
    pub fn is_none(self) -> bool {
        self.0 == 0
    }
}

/// What kind of entity an [`EntityId`] names. A newtype rather than an enum so that later
/// versions can add kinds without breaking the ABI.
#[repr(transparent)]
#[derive(StableAbi, Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct EntityKind(pub u32);

impl EntityKind {
    /// An id that names nothing (or a kind this plugin does not know).
    pub const UNKNOWN: EntityKind = EntityKind(0);
    /// The world.
    pub const WORLD: EntityKind = EntityKind(1);
    /// A model (possibly nested).
    pub const MODEL: EntityKind = EntityKind(2);
    /// A link.
    pub const LINK: EntityKind = EntityKind(3);
    /// A joint.
    pub const JOINT: EntityKind = EntityKind(4);
    /// A collision element.
    pub const COLLISION: EntityKind = EntityKind(5);
    /// A visual element.
    pub const VISUAL: EntityKind = EntityKind(6);
    /// A sensor.
    pub const SENSOR: EntityKind = EntityKind(7);

    /// Lower-case name of the kind (`"model"`, `"link"`, ...).
    pub fn name(self) -> &'static str {
        match self {
            EntityKind::WORLD => "world",
            EntityKind::MODEL => "model",
            EntityKind::LINK => "link",
            EntityKind::JOINT => "joint",
            EntityKind::COLLISION => "collision",
            EntityKind::VISUAL => "visual",
            EntityKind::SENSOR => "sensor",
            _ => "unknown",
        }
    }
}

/// An axis-aligned bounding box in world coordinates.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, Default, PartialEq)]
pub struct Aabb {
    /// Minimum corner.
    pub min: crate::Vec3,
    /// Maximum corner.
    pub max: crate::Vec3,
}

/// Where something came from in a source file, for diagnostics.
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug)]
pub struct SourceLocation<'a> {
    /// The file path as the user gave it (empty for inline text).
    pub file: RStr<'a>,
    /// 1-based line (0 when unknown).
    pub line: u32,
    /// 1-based column (0 when unknown).
    pub column: u32,
}

/// Severity of a log record sent through [`crate::WorldView::log`].
#[repr(transparent)]
#[derive(StableAbi, Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct LogLevel(pub u8);

impl LogLevel {
    /// An error.
    pub const ERROR: LogLevel = LogLevel(1);
    /// A warning.
    pub const WARN: LogLevel = LogLevel(2);
    /// Information.
    pub const INFO: LogLevel = LogLevel(3);
    /// Debugging detail.
    pub const DEBUG: LogLevel = LogLevel(4);
    /// Very verbose tracing.
    pub const TRACE: LogLevel = LogLevel(5);
}

/// Error codes of [`PluginError`]. A newtype so that later versions may add codes.
#[repr(transparent)]
#[derive(StableAbi, Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ErrorCode(pub u32);

impl ErrorCode {
    /// The plugin's configuration (its SDF element) is invalid.
    pub const INVALID_CONFIG: ErrorCode = ErrorCode(1);
    /// The library has no factory of the requested name.
    pub const UNKNOWN_FACTORY: ErrorCode = ErrorCode(2);
    /// Something the plugin needs was not found (entity, topic, ...).
    pub const NOT_FOUND: ErrorCode = ErrorCode(3);
    /// The request is not supported by this plugin or engine.
    pub const UNSUPPORTED: ErrorCode = ErrorCode(4);
    /// A failure while running.
    pub const RUNTIME: ErrorCode = ErrorCode(5);
    /// The plugin panicked; the panic was caught at the boundary.
    pub const PANIC: ErrorCode = ErrorCode(6);
    /// A bad request (service call, command argument).
    pub const BAD_REQUEST: ErrorCode = ErrorCode(7);
}

/// An error returned by a plugin across the boundary.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct PluginError {
    /// What class of error this is.
    pub code: ErrorCode,
    /// A message for the user: what is wrong and, where possible, what to do.
    pub message: RString,
}

impl PluginError {
    /// An error with a code and a message.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        PluginError {
            code,
            message: RString::from(message.into()),
        }
    }
    /// An [`ErrorCode::INVALID_CONFIG`] error.
    pub fn config(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::INVALID_CONFIG, message)
    }
    /// An [`ErrorCode::RUNTIME`] error.
    pub fn runtime(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::RUNTIME, message)
    }
    /// An [`ErrorCode::UNSUPPORTED`] error.
    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::UNSUPPORTED, message)
    }
}

impl core::fmt::Display for PluginError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PluginError {}
