//! Messages: what sensors publish and systems exchange.
//!
//! A [`Message`] is a topic, a [`Header`] and a [`Payload_NE`]: a non-exhaustive enum of the
//! built-in message types (fields as in gz-msgs) plus [`CustomMessage`] for third-party types.
//! Its variants are fixed for all of 1.x (see the crate docs, "Message types"): new message
//! types are versioned [`CustomMessage`] schemas. Code matching on [`Payload`] keeps a
//! fallback arm: [`Payload_NE::as_enum`] returns an error for a variant this build does not
//! know.

use crate::{Pose, Quat, SimTime, Vec3};
use abi_stable::{
    StableAbi,
    std_types::{RArc, RBox, ROption, RString, RVec},
};

/// An immutable, cheaply cloned string (reference-counted), for names that repeat in every
/// message: frame ids, entity names, topics. The empty string allocates nothing.
///
/// Build one once (`SharedStr::from("base_link")`) and clone it per message: a clone is a
/// reference-count increment, where an `RString` would be an allocation.
#[repr(transparent)]
#[derive(StableAbi, Clone, Default)]
pub struct SharedStr(ROption<RArc<RString>>);

impl SharedStr {
    /// The empty string.
    pub const EMPTY: SharedStr = SharedStr(ROption::RNone);

    /// A shared copy of `s`.
    pub fn new(s: &str) -> Self {
        if s.is_empty() {
            SharedStr::EMPTY
        } else {
            SharedStr(ROption::RSome(RArc::new(RString::from(s))))
        }
    }
    /// The text.
    pub fn as_str(&self) -> &str {
        match &self.0 {
            ROption::RSome(s) => s.as_str(),
            ROption::RNone => "",
        }
    }
    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.as_str().is_empty()
    }
    /// Whether both are the same shared string (or both empty): a pointer comparison, for
    /// skipping a reassignment that would only swap reference counts.
    pub fn same_as(&self, other: &SharedStr) -> bool {
        match (&self.0, &other.0) {
            (ROption::RSome(a), ROption::RSome(b)) => std::ptr::eq::<RString>(&**a, &**b),
            (ROption::RNone, ROption::RNone) => true,
            _ => false,
        }
    }
}

impl core::ops::Deref for SharedStr {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl From<&str> for SharedStr {
    fn from(s: &str) -> Self {
        SharedStr::new(s)
    }
}

impl From<String> for SharedStr {
    fn from(s: String) -> Self {
        SharedStr::new(&s)
    }
}

impl From<&SharedStr> for SharedStr {
    fn from(s: &SharedStr) -> Self {
        s.clone()
    }
}

impl From<&String> for SharedStr {
    fn from(s: &String) -> Self {
        SharedStr::new(s)
    }
}

impl PartialEq for SharedStr {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (ROption::RSome(a), ROption::RSome(b)) if core::ptr::eq(&**a, &**b) => true,
            (ROption::RNone, ROption::RNone) => true,
            _ => self.as_str() == other.as_str(),
        }
    }
}

impl Eq for SharedStr {}

impl PartialEq<str> for SharedStr {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for SharedStr {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl core::fmt::Debug for SharedStr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        core::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl core::fmt::Display for SharedStr {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The header every message carries.
///
/// For sensor outputs the engine fills it: `stamp` is the sim time of the update, `frame_id`
/// the sensor's frame (unless the plugin set one), and `seq` a counter per sensor and topic
/// starting at 0.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct Header {
    /// Simulation time the data refers to.
    pub stamp: SimTime,
    /// The coordinate frame of the data.
    pub frame_id: SharedStr,
    /// Sequence number, per publisher and topic, from 0.
    pub seq: u64,
}

/// A message on a topic.
#[repr(C)]
#[derive(StableAbi, Clone, Debug)]
pub struct Message {
    /// Topic. A name with a leading `/` is absolute. For a sensor's outputs, empty means the
    /// sensor's own topic and a name without a leading `/` is appended to it (`points` ->
    /// `<topic>/points`); for a system's, a name without a leading `/` is below the plugin's
    /// namespace (`/model/<model>` or `/world/<world>`) and an empty one is an error that
    /// disables the plugin (see [`Outputs::publish`](crate::Outputs::publish)).
    pub topic: SharedStr,
    /// Stamp, frame and sequence number.
    pub header: Header,
    /// The content.
    pub payload: Payload_NE,
}

impl Message {
    /// A message with an empty header (the engine stamps sensor outputs).
    pub fn new(topic: impl Into<SharedStr>, payload: Payload) -> Self {
        Message {
            topic: topic.into(),
            header: Header::default(),
            payload: Payload_NE::new(payload),
        }
    }
}

/// Pixel formats of [`Image`] (values as gz-msgs `PixelFormatType`).
#[repr(transparent)]
#[derive(StableAbi, Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct PixelFormat(pub u32);

impl PixelFormat {
    /// Unknown.
    pub const UNKNOWN: PixelFormat = PixelFormat(0);
    /// 8-bit grey.
    pub const L_INT8: PixelFormat = PixelFormat(1);
    /// 16-bit grey.
    pub const L_INT16: PixelFormat = PixelFormat(2);
    /// 8-bit RGB.
    pub const RGB_INT8: PixelFormat = PixelFormat(3);
    /// 8-bit RGBA.
    pub const RGBA_INT8: PixelFormat = PixelFormat(4);
    /// 8-bit BGRA.
    pub const BGRA_INT8: PixelFormat = PixelFormat(5);
    /// 8-bit BGR.
    pub const BGR_INT8: PixelFormat = PixelFormat(8);
    /// 32-bit float, one channel (depth).
    pub const R_FLOAT32: PixelFormat = PixelFormat(13);
    /// 32-bit float RGB.
    pub const RGB_FLOAT32: PixelFormat = PixelFormat(14);
}

/// Data types of [`PointField`] (values as gz-msgs `PointCloudPacked.Field.DataType`).
#[repr(transparent)]
#[derive(StableAbi, Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct PointFieldType(pub u32);

impl PointFieldType {
    /// i8
    pub const INT8: PointFieldType = PointFieldType(1);
    /// u8
    pub const UINT8: PointFieldType = PointFieldType(2);
    /// i16
    pub const INT16: PointFieldType = PointFieldType(3);
    /// u16
    pub const UINT16: PointFieldType = PointFieldType(4);
    /// i32
    pub const INT32: PointFieldType = PointFieldType(5);
    /// u32
    pub const UINT32: PointFieldType = PointFieldType(6);
    /// f32
    pub const FLOAT32: PointFieldType = PointFieldType(7);
    /// f64
    pub const FLOAT64: PointFieldType = PointFieldType(8);
}

/// IMU reading (gz-msgs `IMU`). Vectors are in the sensor frame.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct Imu {
    /// Scoped name of the sensor's link.
    pub entity_name: SharedStr,
    /// Whether `orientation` is meaningful (`<enable_orientation>`).
    pub has_orientation: bool,
    /// Orientation relative to the reference frame.
    pub orientation: Quat,
    /// Row-major 3x3 covariance of the orientation.
    pub orientation_covariance: [f64; 9],
    /// Angular velocity, rad/s.
    pub angular_velocity: Vec3,
    /// Row-major 3x3 covariance of the angular velocity.
    pub angular_velocity_covariance: [f64; 9],
    /// Proper linear acceleration (reads +g upwards at rest), m/s^2.
    pub linear_acceleration: Vec3,
    /// Row-major 3x3 covariance of the linear acceleration.
    pub linear_acceleration_covariance: [f64; 9],
}

/// Laser scan (gz-msgs `LaserScan`); `ranges` and `intensities` are row-major
/// (index = vertical row * count + horizontal sample).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct LaserScan {
    /// Frame name.
    pub frame: SharedStr,
    /// World pose of the sensor.
    pub world_pose: Pose,
    /// First horizontal angle, rad.
    pub angle_min: f64,
    /// Last horizontal angle, rad.
    pub angle_max: f64,
    /// Horizontal step, rad.
    pub angle_step: f64,
    /// Minimum range, m.
    pub range_min: f64,
    /// Maximum range, m.
    pub range_max: f64,
    /// Horizontal sample count.
    pub count: u32,
    /// First vertical angle, rad.
    pub vertical_angle_min: f64,
    /// Last vertical angle, rad.
    pub vertical_angle_max: f64,
    /// Vertical step, rad.
    pub vertical_angle_step: f64,
    /// Vertical sample count.
    pub vertical_count: u32,
    /// Ranges, m (REP-117: +inf no hit, -inf nearer than the minimum).
    pub ranges: RVec<f64>,
    /// Intensities.
    pub intensities: RVec<f64>,
}

/// One field of a [`PointCloudPacked`].
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct PointField {
    /// Field name (`x`, `y`, `z`, `intensity`, `ring`, `rgb`, ...).
    pub name: SharedStr,
    /// Byte offset within a point.
    pub offset: u32,
    /// Element type.
    pub datatype: PointFieldType,
    /// Number of elements.
    pub count: u32,
}

/// Packed point cloud (gz-msgs `PointCloudPacked`).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct PointCloudPacked {
    /// Points per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Layout of one point.
    pub fields: RVec<PointField>,
    /// Byte order of `data`.
    pub is_bigendian: bool,
    /// Bytes per point.
    pub point_step: u32,
    /// Bytes per row.
    pub row_step: u32,
    /// The points.
    pub data: RVec<u8>,
    /// False if some points are invalid (non-finite).
    pub is_dense: bool,
}

/// Image (gz-msgs `Image`).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// Bytes per row.
    pub step: u32,
    /// Pixel format.
    pub pixel_format: PixelFormat,
    /// Pixel data, row-major from the top-left.
    pub data: RVec<u8>,
}

impl Default for PixelFormat {
    fn default() -> Self {
        PixelFormat::UNKNOWN
    }
}

/// Camera calibration (gz-msgs `CameraInfo`, ROS conventions).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct CameraInfo {
    /// Image width.
    pub width: u32,
    /// Image height.
    pub height: u32,
    /// Distortion model name (`plumb_bob`).
    pub distortion_model: SharedStr,
    /// Distortion coefficients (k1, k2, p1, p2, k3 for plumb_bob).
    pub distortion: RVec<f64>,
    /// Intrinsic matrix K, row-major 3x3.
    pub intrinsics: [f64; 9],
    /// Rectification matrix R, row-major 3x3.
    pub rectification: [f64; 9],
    /// Projection matrix P, row-major 3x4.
    pub projection: [f64; 12],
}

/// Satellite navigation fix (gz-msgs `NavSat`).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct NavSat {
    /// Latitude, degrees.
    pub latitude_deg: f64,
    /// Longitude, degrees.
    pub longitude_deg: f64,
    /// Altitude above the ellipsoid, m.
    pub altitude: f64,
    /// East velocity, m/s.
    pub velocity_east: f64,
    /// North velocity, m/s.
    pub velocity_north: f64,
    /// Up velocity, m/s.
    pub velocity_up: f64,
    /// Frame id.
    pub frame_id: SharedStr,
}

/// A named pose (gz-msgs `Pose` with its name).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct NamedPose {
    /// Scoped name of the entity.
    pub name: SharedStr,
    /// Its pose.
    pub pose: Pose,
}

/// What a logical camera sees (gz-msgs `LogicalCameraImage`).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct LogicalCameraImage {
    /// World pose of the camera.
    pub pose: Pose,
    /// Models seen, with poses relative to the camera.
    pub models: RVec<NamedPose>,
}

/// Frustum of a logical camera (gz-msgs `LogicalCameraSensor`).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct LogicalCameraFrustum {
    /// Near clip, m.
    pub near_clip: f64,
    /// Far clip, m.
    pub far_clip: f64,
    /// Horizontal field of view, rad.
    pub horizontal_fov: f64,
    /// Width / height.
    pub aspect_ratio: f64,
}

/// Altimeter reading (gz-msgs `Altimeter`).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct Altimeter {
    /// Height above the reference, m.
    pub vertical_position: f64,
    /// Vertical velocity, m/s.
    pub vertical_velocity: f64,
    /// The reference height, m.
    pub vertical_reference: f64,
}

/// Linear and angular velocity (gz-msgs `Twist`).
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, Default, PartialEq)]
pub struct Twist {
    /// Linear velocity, m/s.
    pub linear: Vec3,
    /// Angular velocity, rad/s.
    pub angular: Vec3,
}

/// Odometry (gz-msgs `Odometry`).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct Odometry {
    /// Estimated pose.
    pub pose: Pose,
    /// Estimated velocity in the body frame.
    pub twist: Twist,
}

/// Battery state (gz-msgs `BatteryState`).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct BatteryState {
    /// Voltage, V.
    pub voltage: f64,
    /// Current, A (negative when discharging).
    pub current: f64,
    /// Charge, Ah.
    pub charge: f64,
    /// Capacity, Ah.
    pub capacity: f64,
    /// Charge as a fraction in [0, 1].
    pub percentage: f64,
    /// 0 unknown, 1 charging, 2 discharging, 3 not charging, 4 full.
    pub power_supply_status: u32,
}

/// Request to create a model (gz-msgs `EntityFactory`).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct EntityFactory {
    /// SDF text of a `<model>` (or a whole `<sdf>` document).
    pub sdf: RString,
    /// Or a file name to read it from.
    pub sdf_filename: RString,
    /// Name of the new model (empty: the name in the SDF).
    pub name: RString,
    /// Pose of the new model.
    pub pose: Pose,
    /// Frame the pose is relative to (empty: world).
    pub relative_to: RString,
    /// Rename on a name clash instead of failing.
    pub allow_renaming: bool,
}

/// One fiducial (a marked model) seen by a fiducial sensor.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct Fiducial {
    /// The fiducial id.
    pub id: i64,
    /// Scoped name of the marked model.
    pub name: SharedStr,
    /// Distance from the sensor to the fiducial, m.
    pub range: f64,
    /// Horizontal angle of the fiducial in the sensor frame, rad (`atan2(y, x)`; positive to
    /// the left).
    pub bearing: f64,
    /// Vertical angle of the fiducial above the sensor's x-y plane, rad.
    pub elevation: f64,
    /// Pose of the fiducial in the sensor frame (position and orientation).
    pub pose: Pose,
}

/// Performance metrics of a sensor (gz-msgs `PerformanceSensorMetrics`).
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct SensorMetrics {
    /// Sensor name.
    pub name: SharedStr,
    /// Updates per second of wall time, from the last two updates.
    pub real_update_rate: f64,
    /// Updates per second of sim time, from the last two updates.
    pub sim_update_rate: f64,
    /// The configured update rate.
    pub nominal_update_rate: f64,
}

/// A message of a type the engine does not know, encoded by its publisher.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct CustomMessage {
    /// Schema name, e.g. `acme.msgs.Sonar`.
    pub schema: SharedStr,
    /// Encoding of `data`: `json`, `protobuf`, `cbor`, ... (MCAP message encodings).
    pub encoding: SharedStr,
    /// The encoded message.
    pub data: RVec<u8>,
}

/// The content of a [`Message`]. Large types are boxed so the enum stays small.
///
/// Non-exhaustive across the ABI: wrap it with [`Payload_NE::new`]; read it back with
/// [`Payload_NE::as_enum`].
#[repr(u8)]
#[derive(StableAbi, Clone, Debug)]
#[sabi(kind(WithNonExhaustive(size = [usize; 8], align = u64, traits(Debug, Clone))))]
#[non_exhaustive]
pub enum Payload {
    /// No content (a trigger, a ping).
    Empty,
    /// A boolean (gz-msgs `Boolean`).
    Boolean(bool),
    /// A double (gz-msgs `Double`).
    Double(f64),
    /// A signed integer (gz-msgs `Int64`).
    Int64(i64),
    /// A string (gz-msgs `StringMsg`).
    Text(RString),
    /// A vector (gz-msgs `Vector3d`).
    Vector3(Vec3),
    /// Velocity command or state.
    Twist(Twist),
    /// A named pose.
    Pose(RBox<NamedPose>),
    /// Many named poses (gz-msgs `Pose_V`).
    PoseList(RBox<RVec<NamedPose>>),
    /// IMU reading.
    Imu(RBox<Imu>),
    /// Laser scan.
    LaserScan(RBox<LaserScan>),
    /// Point cloud.
    PointCloud(RBox<PointCloudPacked>),
    /// Image.
    Image(RBox<Image>),
    /// Camera calibration.
    CameraInfo(RBox<CameraInfo>),
    /// Navigation satellite fix.
    NavSat(RBox<NavSat>),
    /// Logical camera output.
    LogicalCameraImage(RBox<LogicalCameraImage>),
    /// Logical camera frustum.
    LogicalCameraFrustum(RBox<LogicalCameraFrustum>),
    /// Altimeter reading.
    Altimeter(RBox<Altimeter>),
    /// Magnetic field in the sensor frame, tesla (gz-msgs `Magnetometer`).
    Magnetometer(Vec3),
    /// Fluid pressure, Pa, and its variance (gz-msgs `FluidPressure`).
    FluidPressure {
        /// Pressure, Pa.
        pressure: f64,
        /// Variance, Pa^2.
        variance: f64,
    },
    /// Odometry.
    Odometry(RBox<Odometry>),
    /// Battery state.
    BatteryState(RBox<BatteryState>),
    /// Request to create a model.
    EntityFactory(RBox<EntityFactory>),
    /// Sensor performance metrics.
    SensorMetrics(RBox<SensorMetrics>),
    /// A type the engine does not know.
    Custom(RBox<CustomMessage>),
    /// Force and torque (gz-msgs `Wrench`), in the frame the publisher documents.
    Wrench(RBox<crate::Wrench>),
    /// Contact points (gz-msgs `Contacts`).
    Contacts(RBox<RVec<crate::ContactPoint>>),
    /// Fiducials seen by a fiducial sensor.
    Fiducials(RBox<RVec<Fiducial>>),
}

impl Payload {
    /// The name of this payload's type, as used in echo output and schemas.
    pub fn type_name(&self) -> &'static str {
        match self {
            Payload::Empty => "Empty",
            Payload::Boolean(_) => "Boolean",
            Payload::Double(_) => "Double",
            Payload::Int64(_) => "Int64",
            Payload::Text(_) => "StringMsg",
            Payload::Vector3(_) => "Vector3d",
            Payload::Twist(_) => "Twist",
            Payload::Pose(_) => "Pose",
            Payload::PoseList(_) => "Pose_V",
            Payload::Imu(_) => "IMU",
            Payload::LaserScan(_) => "LaserScan",
            Payload::PointCloud(_) => "PointCloudPacked",
            Payload::Image(_) => "Image",
            Payload::CameraInfo(_) => "CameraInfo",
            Payload::NavSat(_) => "NavSat",
            Payload::LogicalCameraImage(_) => "LogicalCameraImage",
            Payload::LogicalCameraFrustum(_) => "LogicalCameraSensor",
            Payload::Altimeter(_) => "Altimeter",
            Payload::Magnetometer(_) => "Magnetometer",
            Payload::FluidPressure { .. } => "FluidPressure",
            Payload::Odometry(_) => "Odometry",
            Payload::BatteryState(_) => "BatteryState",
            Payload::EntityFactory(_) => "EntityFactory",
            Payload::SensorMetrics(_) => "PerformanceSensorMetrics",
            Payload::Custom(_) => "Custom",
            Payload::Wrench(_) => "Wrench",
            Payload::Contacts(_) => "Contacts",
            Payload::Fiducials(_) => "Fiducials",
        }
    }
}

#[cfg(test)]
mod tests {
    use abi_stable::{
        StableAbi, abi_stability::abi_checking::check_layout_compatibility,
        nonexhaustive_enum::GetEnumInfo,
    };

    /// The variants of `Payload` in 1.2.0, the first release of the 1.x ABI epoch.
    const EPOCH_VARIANTS: &str = "Empty;Boolean;Double;Int64;Text;Vector3;Twist;Pose;PoseList;\
        Imu;LaserScan;PointCloud;Image;CameraInfo;NavSat;LogicalCameraImage;\
        LogicalCameraFrustum;Altimeter;Magnetometer;FluidPressure;Odometry;BatteryState;\
        EntityFactory;SensorMetrics;Custom;Wrench;Contacts;Fiducials;";

    /// `Payload` keeps the variants of 1.2.0 for all of 1.x: an engine whose copy has one more
    /// variant refuses every plugin built before it (see `abi_stable_refuses_a_loader_...`).
    /// New message types go in as `Payload::Custom` schemas (see the crate docs).
    #[test]
    fn payload_keeps_the_variants_of_the_epoch() {
        assert_eq!(
            <super::Payload as GetEnumInfo>::ENUM_INFO.variant_names(),
            EPOCH_VARIANTS
        );
    }

    #[allow(dead_code, reason = "only the layouts are compared")]
    mod fewer {
        #[repr(u8)]
        #[derive(abi_stable::StableAbi, Clone, Debug)]
        #[sabi(kind(WithNonExhaustive(size = [usize; 2], traits(Debug, Clone))))]
        #[non_exhaustive]
        pub enum Probe {
            A,
            B(u32),
        }
    }

    #[allow(dead_code, reason = "only the layouts are compared")]
    mod more {
        #[repr(u8)]
        #[derive(abi_stable::StableAbi, Clone, Debug)]
        #[sabi(kind(WithNonExhaustive(size = [usize; 2], traits(Debug, Clone))))]
        #[non_exhaustive]
        pub enum Probe {
            A,
            B(u32),
            C(u64),
        }
    }

    /// What abi_stable checks of a non-exhaustive enum: the loader's copy (the interface, the
    /// engine when a plugin loads) may have fewer variants than the library's, never more.
    /// So a variant added to the engine refuses every older plugin, and a plugin newer than
    /// the engine passes (its unknown variants reach the engine, where `as_enum` answers an
    /// error).
    #[test]
    fn abi_stable_refuses_a_loader_with_more_variants_than_the_library() {
        let fewer = <fewer::Probe_NE as StableAbi>::LAYOUT;
        let more = <more::Probe_NE as StableAbi>::LAYOUT;
        let refused = check_layout_compatibility(more, fewer).unwrap_err();
        assert!(
            refused.to_string().contains("too many variants"),
            "{refused}"
        );
        assert!(check_layout_compatibility(fewer, more).is_ok());
    }
}
