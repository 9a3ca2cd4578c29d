//! The golden cases: the messages of `tools/ros_golden.py`, in its order, and what each
//! checks.

use crate::EncodeOptions;
use sim_plugin_api::abi_stable::std_types::{RBox, RVec};
use sim_plugin_api::*;
use std::f64::consts::PI;

const STAMP: i64 = 12_500_000_000;
const FRAME: &str = "odd_5";
const INF: f64 = f64::INFINITY;

/// What a case checks.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Check {
    /// `encode` writes the bytes and `decode` reads the message back.
    Both,
    /// Only `encode` (the ROS form decodes to another payload).
    Encode,
    /// Only `decode` (a type clients send in).
    Decode,
    /// `decode` refuses the bytes.
    Refused,
}

pub(crate) struct Case {
    pub ty: &'static str,
    pub name: &'static str,
    pub message: Message,
    pub options: EncodeOptions<'static>,
    pub check: Check,
}

impl Case {
    /// The name of its payload's kind (`Unknown` for a payload this build does not know).
    pub fn kind_name(&self) -> &'static str {
        self.message
            .payload
            .as_enum()
            .map_or("Unknown", |p| p.type_name())
    }
}

fn m(stamp: i64, frame: &str, payload: Payload) -> Message {
    let mut m = Message::new("", payload);
    m.header.stamp = SimTime::from_nanos(stamp);
    m.header.frame_id = frame.into();
    m
}

fn pose(p: [f64; 3], q: [f64; 4]) -> Pose {
    Pose::new(
        Vec3::new(p[0], p[1], p[2]),
        Quat::new(q[0], q[1], q[2], q[3]),
    )
}

fn f32s(v: &[f64]) -> RVec<f64> {
    v.iter().map(|&x| f64::from(x as f32)).collect()
}

fn case(ty: &'static str, name: &'static str, message: Message, check: Check) -> Case {
    Case {
        ty,
        name,
        message,
        options: EncodeOptions::default(),
        check,
    }
}

const SCAN_RANGES: [f64; 6] = [1.0, 2.5, INF, -INF, f64::NAN, 0.5];
const SCAN_INTENSITIES: [f64; 6] = [10.0, 20.0, 0.0, 0.0, 0.0, 5.0];

/// The cases of `tools/ros_golden.py`, in its order.
pub(crate) fn cases() -> Vec<Case> {
    use Check::*;
    let q = [0.0, 0.0, 0.6, 0.8];
    let id = [0.0, 0.0, 0.0, 1.0];
    let mut c = vec![
        case(
            "std_msgs/msg/Empty",
            "empty",
            m(0, "", Payload::Empty),
            Both,
        ),
        case(
            "std_msgs/msg/Bool",
            "true",
            m(0, "", Payload::Boolean(true)),
            Both,
        ),
        case(
            "std_msgs/msg/Float64",
            "pi",
            m(0, "", Payload::Double(PI)),
            Both,
        ),
        case(
            "std_msgs/msg/Float64",
            "nan",
            m(0, "", Payload::Double(f64::NAN)),
            Both,
        ),
        case(
            "std_msgs/msg/Float64",
            "neg_inf",
            m(0, "", Payload::Double(-INF)),
            Both,
        ),
        case(
            "std_msgs/msg/Int64",
            "min",
            m(0, "", Payload::Int64(i64::MIN)),
            Both,
        ),
        case(
            "std_msgs/msg/String",
            "empty",
            m(0, "", Payload::Text("".into())),
            Both,
        ),
        case(
            "std_msgs/msg/String",
            "odd",
            m(0, "", Payload::Text("héllo".into())),
            Both,
        ),
        case(
            "geometry_msgs/msg/Vector3Stamped",
            "basic",
            m(STAMP, FRAME, Payload::Vector3(Vec3::new(1.0, -2.0, INF))),
            Both,
        ),
        case(
            "geometry_msgs/msg/Twist",
            "basic",
            m(
                0,
                "",
                Payload::Twist(Twist {
                    linear: Vec3::new(0.5, 0.0, 0.0),
                    angular: Vec3::new(0.0, 0.0, -0.25),
                }),
            ),
            Both,
        ),
        case(
            "geometry_msgs/msg/TwistStamped",
            "basic",
            m(
                STAMP,
                "base_link",
                Payload::Twist(Twist {
                    linear: Vec3::new(0.5, 0.1, 0.0),
                    angular: Vec3::new(0.0, 0.0, 0.3),
                }),
            ),
            Decode,
        ),
        case(
            "geometry_msgs/msg/PoseStamped",
            "basic",
            m(
                STAMP,
                "map",
                Payload::Pose(RBox::new(NamedPose {
                    name: "".into(),
                    pose: pose([1.0, 2.0, 3.0], q),
                })),
            ),
            Decode,
        ),
        case(
            "geometry_msgs/msg/PoseStamped",
            "unnormalised",
            m(
                0,
                "",
                Payload::Pose(RBox::new(NamedPose {
                    name: "".into(),
                    pose: Pose::IDENTITY,
                })),
            ),
            Decode,
        ),
        case(
            "geometry_msgs/msg/PoseStamped",
            "zero_rotation",
            m(0, "", Payload::Empty),
            Refused,
        ),
        case(
            "geometry_msgs/msg/TransformStamped",
            "basic",
            m(
                STAMP,
                FRAME,
                Payload::Pose(RBox::new(NamedPose {
                    name: "robot::base".into(),
                    pose: pose([1.0, 2.0, 3.0], q),
                })),
            ),
            Both,
        ),
        case(
            "geometry_msgs/msg/WrenchStamped",
            "basic",
            m(
                STAMP,
                FRAME,
                Payload::Wrench(RBox::new(Wrench {
                    force: Vec3::new(1.0, 2.0, 3.0),
                    torque: Vec3::new(-1.0, 0.0, f64::NAN),
                })),
            ),
            Both,
        ),
        case(
            "tf2_msgs/msg/TFMessage",
            "two",
            m(
                STAMP,
                "world",
                Payload::PoseList(RBox::new(RVec::from(vec![
                    NamedPose {
                        name: "a".into(),
                        pose: pose([1.0, 0.0, 0.0], id),
                    },
                    NamedPose {
                        name: "bb::c".into(),
                        pose: pose([0.0, 1.0, 0.0], q),
                    },
                ]))),
            ),
            Both,
        ),
        case(
            "tf2_msgs/msg/TFMessage",
            "empty",
            m(0, "", Payload::PoseList(RBox::new(RVec::new()))),
            Both,
        ),
    ];
    let cov: [f64; 9] = std::array::from_fn(|i| i as f64);
    c.push(case(
        "sensor_msgs/msg/Imu",
        "oriented",
        m(
            STAMP,
            FRAME,
            Payload::Imu(RBox::new(Imu {
                has_orientation: true,
                orientation: Quat::new(0.0, 0.0, 0.6, 0.8),
                orientation_covariance: cov,
                angular_velocity: Vec3::new(0.1, 0.2, 0.3),
                angular_velocity_covariance: [0.01; 9],
                linear_acceleration: Vec3::new(0.0, 0.0, 9.8),
                ..Default::default()
            })),
        ),
        Both,
    ));
    let mut no_orientation = [0.0; 9];
    no_orientation[0] = -1.0;
    c.push(case(
        "sensor_msgs/msg/Imu",
        "no_orientation",
        m(
            STAMP,
            "imu",
            Payload::Imu(RBox::new(Imu {
                has_orientation: false,
                orientation_covariance: no_orientation,
                linear_acceleration: Vec3::new(0.0, 0.0, 9.8),
                ..Default::default()
            })),
        ),
        Both,
    ));
    c.push(case(
        "sensor_msgs/msg/LaserScan",
        "one_row",
        m(
            STAMP,
            FRAME,
            Payload::LaserScan(RBox::new(LaserScan {
                frame: FRAME.into(),
                angle_min: -1.0,
                angle_max: 1.5,
                angle_step: 0.5,
                range_min: f64::from(0.1f32),
                range_max: 10.0,
                count: 6,
                vertical_count: 1,
                ranges: f32s(&SCAN_RANGES),
                intensities: f32s(&SCAN_INTENSITIES),
                ..Default::default()
            })),
        ),
        Both,
    ));
    let mut empty_scan = case(
        "sensor_msgs/msg/LaserScan",
        "empty",
        m(
            0,
            "",
            Payload::LaserScan(RBox::new(LaserScan {
                vertical_count: 1,
                ..Default::default()
            })),
        ),
        Both,
    );
    empty_scan.options.scan_time = 0.1;
    c.push(empty_scan);
    c.push(case(
        "sensor_msgs/msg/PointCloud2",
        "scan_rows",
        m(
            STAMP,
            FRAME,
            Payload::LaserScan(RBox::new(LaserScan {
                angle_min: -1.0,
                angle_max: 0.0,
                angle_step: 0.5,
                range_max: 10.0,
                count: 3,
                vertical_angle_min: -0.2,
                vertical_angle_max: 0.3,
                vertical_angle_step: 0.5,
                vertical_count: 2,
                ranges: SCAN_RANGES.to_vec().into(),
                intensities: SCAN_INTENSITIES.to_vec().into(),
                ..Default::default()
            })),
        ),
        Encode,
    ));
    let field = |name: &str, offset| PointField {
        name: name.into(),
        offset,
        datatype: PointFieldType::FLOAT32,
        count: 1,
    };
    c.push(case(
        "sensor_msgs/msg/PointCloud2",
        "packed",
        m(
            STAMP,
            "cam",
            Payload::PointCloud(RBox::new(PointCloudPacked {
                width: 2,
                height: 1,
                fields: vec![field("x", 0), field("y", 4), field("z", 8)].into(),
                is_bigendian: false,
                point_step: 12,
                row_step: 24,
                data: (0..24u8).collect(),
                is_dense: true,
            })),
        ),
        Both,
    ));
    c.push(case(
        "sensor_msgs/msg/Image",
        "rgb8",
        m(
            STAMP,
            FRAME,
            Payload::Image(RBox::new(Image {
                width: 1,
                height: 2,
                step: 3,
                pixel_format: PixelFormat::RGB_INT8,
                data: vec![1, 2, 3, 4, 5, 6].into(),
            })),
        ),
        Both,
    ));
    c.push(case(
        "sensor_msgs/msg/Image",
        "depth",
        m(
            STAMP,
            "cam",
            Payload::Image(RBox::new(Image {
                width: 1,
                height: 1,
                step: 4,
                pixel_format: PixelFormat::R_FLOAT32,
                data: f32::INFINITY.to_le_bytes().to_vec().into(),
            })),
        ),
        Both,
    ));
    let eye = [1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0];
    c.push(case(
        "sensor_msgs/msg/CameraInfo",
        "plumb_bob",
        m(
            STAMP,
            FRAME,
            Payload::CameraInfo(RBox::new(CameraInfo {
                width: 320,
                height: 240,
                distortion_model: "plumb_bob".into(),
                distortion: vec![0.1, -0.2, 0.0, 0.0, 0.05].into(),
                intrinsics: [277.0, 0.0, 160.0, 0.0, 277.0, 120.0, 0.0, 0.0, 1.0],
                rectification: eye,
                projection: [
                    277.0, 0.0, 160.0, 0.0, 0.0, 277.0, 120.0, 0.0, 0.0, 0.0, 1.0, 0.0,
                ],
            })),
        ),
        Both,
    ));
    c.push(case(
        "sensor_msgs/msg/CameraInfo",
        "no_distortion",
        m(
            0,
            "c",
            Payload::CameraInfo(RBox::new(CameraInfo {
                width: 1,
                height: 1,
                ..Default::default()
            })),
        ),
        Both,
    ));
    c.push(case(
        "sensor_msgs/msg/NavSatFix",
        "fix",
        m(
            STAMP,
            FRAME,
            Payload::NavSat(RBox::new(NavSat {
                latitude_deg: 47.3667,
                longitude_deg: 8.55,
                altitude: 408.25,
                frame_id: FRAME.into(),
                ..Default::default()
            })),
        ),
        Both,
    ));
    c.push(case(
        "sensor_msgs/msg/MagneticField",
        "basic",
        m(
            STAMP,
            FRAME,
            Payload::Magnetometer(Vec3::new(2e-5, 0.0, -4e-5)),
        ),
        Both,
    ));
    c.push(case(
        "sensor_msgs/msg/FluidPressure",
        "basic",
        m(
            STAMP,
            FRAME,
            Payload::FluidPressure {
                pressure: 101325.0,
                variance: 0.25,
            },
        ),
        Both,
    ));
    c.push(case(
        "sensor_msgs/msg/BatteryState",
        "discharging",
        m(
            STAMP,
            FRAME,
            Payload::BatteryState(RBox::new(BatteryState {
                voltage: 12.5,
                current: -1.25,
                charge: 1.5,
                capacity: 2.0,
                percentage: 0.75,
                power_supply_status: 2,
            })),
        ),
        Both,
    ));
    let odometry = || {
        m(
            STAMP,
            "odom",
            Payload::Odometry(RBox::new(Odometry {
                pose: pose([1.0, 2.0, 0.0], q),
                twist: Twist {
                    linear: Vec3::new(0.5, 0.0, 0.0),
                    angular: Vec3::new(0.0, 0.0, 0.1),
                },
            })),
        )
    };
    c.push(case("nav_msgs/msg/Odometry", "basic", odometry(), Both));
    let mut child = case("nav_msgs/msg/Odometry", "child_frame", odometry(), Both);
    child.options.child_frame_id = "base_link";
    c.push(child);
    c.push(case(
        "simcore_msgs/msg/Altimeter",
        "basic",
        m(
            STAMP,
            FRAME,
            Payload::Altimeter(RBox::new(Altimeter {
                vertical_position: 1.5,
                vertical_velocity: -0.5,
                vertical_reference: 100.0,
            })),
        ),
        Both,
    ));
    c.push(case(
        "simcore_msgs/msg/LogicalCameraFrustum",
        "basic",
        m(
            STAMP,
            FRAME,
            Payload::LogicalCameraFrustum(RBox::new(LogicalCameraFrustum {
                near_clip: 0.55,
                far_clip: 5.0,
                horizontal_fov: 1.25,
                aspect_ratio: 1.778,
            })),
        ),
        Both,
    ));
    c.push(case(
        "simcore_msgs/msg/LogicalCameraImage",
        "two_models",
        m(
            STAMP,
            FRAME,
            Payload::LogicalCameraImage(RBox::new(LogicalCameraImage {
                pose: pose([0.0, 0.0, 1.0], id),
                models: vec![
                    NamedPose {
                        name: "box".into(),
                        pose: pose([2.0, 0.0, 0.0], id),
                    },
                    NamedPose {
                        name: "cyl_1".into(),
                        pose: pose([3.0, -1.0, 0.0], q),
                    },
                ]
                .into(),
            })),
        ),
        Both,
    ));
    c.push(case(
        "simcore_msgs/msg/FiducialArray",
        "one",
        m(
            STAMP,
            FRAME,
            Payload::Fiducials(RBox::new(RVec::from(vec![Fiducial {
                id: -7,
                name: "tag".into(),
                range: 2.0,
                bearing: 0.25,
                elevation: -0.125,
                pose: pose([1.5, 0.5, -0.25], id),
            }]))),
        ),
        Both,
    ));
    c.push(case(
        "simcore_msgs/msg/FiducialArray",
        "none",
        m(0, "", Payload::Fiducials(RBox::new(RVec::new()))),
        Both,
    ));
    c.push(case(
        "simcore_msgs/msg/Contacts",
        "one",
        m(
            STAMP,
            FRAME,
            Payload::Contacts(RBox::new(RVec::from(vec![ContactPoint {
                collision1: EntityId(17),
                collision2: EntityId(u64::MAX),
                position: Vec3::new(1.0, 2.0, 0.0),
                normal: Vec3::new(0.0, 0.0, 1.0),
                depth: 0.001,
                force: Vec3::new(0.0, 0.0, 9.81),
            }]))),
        ),
        Both,
    ));
    c.push(case(
        "simcore_msgs/msg/SensorMetrics",
        "basic",
        m(
            STAMP,
            FRAME,
            Payload::SensorMetrics(RBox::new(SensorMetrics {
                name: "lidar".into(),
                real_update_rate: 9.5,
                sim_update_rate: 10.0,
                nominal_update_rate: 10.0,
            })),
        ),
        Both,
    ));
    c.push(case(
        "simcore_msgs/msg/EntityFactory",
        "basic",
        m(
            0,
            "",
            Payload::EntityFactory(RBox::new(EntityFactory {
                sdf: "<sdf version='1.9'/>".into(),
                name: "box_2".into(),
                pose: pose([1.0, 2.0, 0.5], id),
                allow_renaming: true,
                ..Default::default()
            })),
        ),
        Both,
    ));
    c
}
