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
