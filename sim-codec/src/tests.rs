use super::*;
use sim_plugin_api::{Header, LaserScan, Message, Payload, SimTime};

#[test]
fn type_names_map_to_dds_names() {
    assert_eq!(
        catalog::LASER_SCAN.dds_name(),
        "sensor_msgs::msg::dds_::LaserScan_"
    );
    assert_eq!(
        RosType::by_name("tf2_msgs/msg/TFMessage"),
        Some(&catalog::TF_MESSAGE)
    );
}

/// The hashes of the reference's table (computed with rosbags and matched against values
/// published by independent projects).
#[test]
fn hashes_match_independently_computed_values() {
    for (t, h) in [
        (
            &catalog::LASER_SCAN,
            "RIHS01_64c191398013af96509d518dac71d5164f9382553fce5c1f8cca5be7924bd828",
        ),
        (
            &catalog::IMU,
            "RIHS01_7d9a00ff131080897a5ec7e26e315954b8eae3353c3f995c55faf71574000b5b",
        ),
        (
            &catalog::CLOCK,
            "RIHS01_692f7a66e93a3c83e71765d033b60349ba68023a8c689a79e48078bcb5c58564",
        ),
        (
            &catalog::TWIST,
            "RIHS01_9c45bf16fe0983d80e3cfe750d6835843d265a9a6c46bd2e609fcddde6fb8d2a",
        ),
        (
            &catalog::TF_MESSAGE,
            "RIHS01_e369d0f05a23ae52508854b66f6aa0437f3449d652e8cbf22d5abe85d020f087",
        ),
        (
            &catalog::STRING,
            "RIHS01_df668c740482bbd48fb39d76a70dfd4bd59db1288021743503259e948f6b1a18",
        ),
    ] {
        assert_eq!(t.hash, h, "{}", t.name);
    }
}

/// The 4-range scan rosbags encodes into 96 bytes.
#[test]
fn laser_scan_layout() {
    let scan = LaserScan {
        angle_min: -1.0,
        angle_max: 1.0,
        angle_step: 0.5,
        range_min: 0.1,
        range_max: 10.0,
        count: 4,
        vertical_count: 1,
        ranges: vec![1.0, 2.5, f64::INFINITY, 3.5].into(),
        intensities: vec![0.0; 4].into(),
        ..Default::default()
    };
    let mut m = Message::new(
        "/scan",
        Payload::LaserScan(abi_stable::std_types::RBox::new(scan)),
    );
    m.header = Header {
        stamp: SimTime::from_nanos(12_500_000_000),
        frame_id: "lidar_link".into(),
        seq: 0,
    };
    let mut out = Vec::new();
    assert_eq!(encode(&m, &mut out), Some(&catalog::LASER_SCAN));
    assert_eq!(&out[..4], &[0, 1, 0, 0]);
    // header (8 + 4 + 11 = 23, padded to 24) + 7 floats + 2 * (count + 4 floats)
    assert_eq!(out.len(), 4 + 24 + 28 + 20 + 20);
}

proptest::proptest! {
    /// Arbitrary bytes, with either encapsulation header, never make a decoder panic.
    #[test]
    fn garbage_never_panics(
        big_endian in proptest::bool::ANY,
        body in proptest::collection::vec(proptest::num::u8::ANY, 0..256),
        which in 0usize..64,
    ) {
        let mut bytes = vec![0, u8::from(!big_endian), 0, 0];
        bytes.extend_from_slice(&body);
        let ty = catalog::ALL[which % catalog::ALL.len()].name;
        let _ = decode(ty, &bytes);
        let _ = decode(ty, &body);
    }

    /// Every golden message cut short or with a byte changed decodes or fails, never
    /// panics; cut short it always fails (unless only trailing padding is lost).
    #[test]
    fn damaged_golden_messages_never_panic(
        which in 0usize..1000,
        cut in 0usize..10_000,
        flip in 0usize..10_000,
        value in proptest::num::u8::ANY,
    ) {
        let lines = golden_tests::golden();
        let (ty, _, bytes) = &lines[which % lines.len()];
        let mut changed = bytes.clone();
        let i = flip % changed.len();
        changed[i] = value;
        let _ = decode(ty, &changed);
        let n = cut % bytes.len();
        let short = decode(ty, &bytes[..n]);
        if n + 8 <= bytes.len() {
            proptest::prop_assert!(short.is_err(), "{} cut to {} bytes decoded", ty, n);
        }
    }
}

#[test]
fn decode_errors_name_the_problem() {
    let err = |ty: &str, b: &[u8]| decode(ty, b).unwrap_err().to_string();
    assert!(err("std_msgs/msg/Bool", &[0, 1]).contains("4-byte encapsulation"));
    assert!(err("std_msgs/msg/Bool", &[0, 3, 0, 0, 1]).contains("not plain CDR"));
    assert!(err("std_msgs/msg/Bool", &[0, 1, 0, 0, 2]).contains("`data` is a bool"));
    assert!(err("std_msgs/msg/Float64", &[0, 1, 0, 0, 1, 2]).contains("ends inside `data`"));
    assert!(
        err("std_msgs/msg/String", &[0, 1, 0, 0, 255, 255, 255, 255, 0])
            .contains("claims 4294967295")
    );
    assert!(err("std_msgs/msg/String", &[0, 1, 0, 0, 2, 0, 0, 0, b'a', b'b']).contains("NUL"));
    assert!(err("std_msgs/msg/String", &[0, 1, 0, 0, 2, 0, 0, 0, 0xff, 0]).contains("UTF-8"));
    assert!(
        err(
            "std_msgs/msg/Bool",
            &[0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0]
        )
        .contains("follow")
    );
    assert!(err("sensor_msgs/msg/Range", &[0, 1, 0, 0]).contains("cannot be decoded"));
    assert!(err("simcore_msgs/msg/NamedPose", &[0, 1, 0, 0]).contains("cannot be decoded"));
    assert!(err("nonsense", &[0, 1, 0, 0]).contains("cannot be decoded"));
}

#[test]
fn type_names_in_every_spelling_decode() {
    let bytes = [0, 1, 0, 0, 1];
    for ty in [
        "std_msgs/msg/Bool",
        "std_msgs/Bool",
        "std_msgs::msg::dds_::Bool_",
    ] {
        assert!(
            matches!(decode(ty, &bytes), Ok(Payload::Boolean(true))),
            "{ty}"
        );
    }
}

mod round_trip {
    use super::*;
    use proptest::prelude::*;
    use sim_plugin_api::abi_stable::std_types::{RBox, RVec};
    use sim_plugin_api::{
        ContactPoint, EntityId, Fiducial, Imu, NamedPose, Pose, Quat, Twist, Vec3,
    };

    fn any_f64() -> impl Strategy<Value = f64> {
        proptest::num::f64::ANY
    }
    fn vec3() -> impl Strategy<Value = Vec3> {
        (any_f64(), any_f64(), any_f64()).prop_map(|(x, y, z)| Vec3::new(x, y, z))
    }
    fn rotation() -> impl Strategy<Value = Quat> {
        (-3.0..3.0f64, -1.5..1.5f64, -3.0..3.0f64).prop_map(|(r, p, y)| Quat::from_rpy(r, p, y))
    }
    fn pose() -> impl Strategy<Value = Pose> {
        (vec3(), rotation()).prop_map(|(p, q)| Pose::new(p, q))
    }
    fn name() -> impl Strategy<Value = String> {
        "[^\u{0}]{0,12}"
    }
    fn named() -> impl Strategy<Value = NamedPose> {
        (name(), pose()).prop_map(|(n, pose)| NamedPose {
            name: n.into(),
            pose,
        })
    }

    fn payload() -> impl Strategy<Value = Payload> {
        prop_oneof![
            Just(Payload::Empty),
            any::<bool>().prop_map(Payload::Boolean),
            any_f64().prop_map(Payload::Double),
            any::<i64>().prop_map(Payload::Int64),
            name().prop_map(|s| Payload::Text(s.into())),
            vec3().prop_map(Payload::Vector3),
            (vec3(), vec3())
                .prop_map(|(linear, angular)| Payload::Twist(Twist { linear, angular })),
            named().prop_map(|p| Payload::Pose(RBox::new(p))),
            proptest::collection::vec(named(), 0..4)
                .prop_map(|v| Payload::PoseList(RBox::new(RVec::from(v)))),
            (vec3(), vec3(), any::<[f64; 9]>()).prop_map(|(a, l, c)| {
                Payload::Imu(RBox::new(Imu {
                    has_orientation: true,
                    orientation: Quat::new(0.0, 0.0, 0.0, 1.0),
                    orientation_covariance: [c[0].abs(), 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                    angular_velocity: a,
                    angular_velocity_covariance: c,
                    linear_acceleration: l,
                    ..Default::default()
                }))
            }),
            proptest::collection::vec((any::<u64>(), any::<u64>(), vec3(), any_f64()), 0..4)
                .prop_map(|v| Payload::Contacts(RBox::new(
                    v.into_iter()
                        .map(|(a, b, p, d)| ContactPoint {
                            collision1: EntityId(a),
                            collision2: EntityId(b),
                            position: p,
                            normal: p,
                            depth: d,
                            force: p,
                        })
                        .collect()
                ))),
            proptest::collection::vec((any::<i64>(), name(), any_f64(), pose()), 0..4).prop_map(
                |v| Payload::Fiducials(RBox::new(
                    v.into_iter()
                        .map(|(id, n, r, pose)| Fiducial {
                            id,
                            name: n.into(),
                            range: r,
                            bearing: -r,
                            elevation: r,
                            pose,
                        })
                        .collect()
                ))
            ),
        ]
    }

    proptest! {
        /// decode(encode(m)) is m, header included (both byte for byte: NaN stays NaN).
        #[test]
        fn encode_then_decode_gives_the_message_back(
            p in payload(),
            stamp in 0i64..i64::from(i32::MAX) * 1_000_000_000,
            frame in "[a-z_]{1,9}",
        ) {
            let mut m = Message::new("", p);
            m.header.stamp = sim_plugin_api::SimTime::from_nanos(stamp);
            m.header.frame_id = frame.as_str().into();
            let mut out = Vec::new();
            let ty = encode(&m, &mut out).expect("a ROS form");
            let back = decode_message(ty.name, &out).map_err(|e| TestCaseError::fail(e.to_string()))?;
            let stamped = !matches!(
                m.payload.as_enum(),
                Ok(Payload::Empty
                    | Payload::Boolean(_)
                    | Payload::Double(_)
                    | Payload::Int64(_)
                    | Payload::Text(_)
                    | Payload::Twist(_))
            ) && !matches!(m.payload.as_enum(), Ok(Payload::PoseList(v)) if v.is_empty());
            if stamped {
                prop_assert_eq!(&back.header, &m.header);
            }
            prop_assert_eq!(format!("{:?}", back.payload), format!("{:?}", m.payload));
            // Re-encoding what was decoded gives the same bytes.
            let mut again = Vec::new();
            encode(&back, &mut again);
            prop_assert_eq!(again, out);
        }
    }
}
