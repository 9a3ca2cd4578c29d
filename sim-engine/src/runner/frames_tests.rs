//! `/tf`'s frames: what [`MovedFrames`] gives step by step, and its bytes.

use super::*;
use sim_codec::{WORLD_FRAME, encode_tf};
use sim_physics::Physics;
use sim_plugin_api::Payload;

const WORLD: &str = r#"<sdf version="1.9"><world name="w">
    <model name="ground"><static>true</static><link name="l">
      <collision name="c"><geometry><plane><normal>0 0 1</normal></plane></geometry></collision>
    </link></model>
    <model name="box"><pose>0 0 2 0 0 0</pose><link name="body">
      <inertial><mass>2</mass></inertial>
      <collision name="c"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision>
    </link></model>
    </world></sdf>"#;

fn physics() -> Physics {
    Physics::build(&sim_sdf::parse_str(WORLD, None).expect("valid world")).unwrap()
}

fn names(m: &Moved) -> Vec<&str> {
    m.frames().map(|(n, _)| n).collect()
}

#[test]
fn every_frame_first_then_those_that_moved() {
    let mut p = physics();
    let mut frames = MovedFrames::default();
    let first = frames.moved(&p, SimTime::ZERO);
    assert_eq!(names(&first), ["ground", "ground::l", "box", "box::body"]);
    assert!(
        frames.moved(&p, SimTime::ZERO).is_empty(),
        "nothing stepped"
    );
    p.step();
    let t = SimTime::from_nanos(1_000_000);
    let moved = frames.moved(&p, t);
    assert_eq!(
        names(&moved),
        ["box", "box::body"],
        "the static ground stays"
    );
    assert_eq!(moved.stamp(), t);
    let (_, pose) = moved.frames().next().unwrap();
    assert!(pose.position.z < 2.0, "the box falls: {pose:?}");
    frames.clear();
    assert_eq!(frames.moved(&p, t).len(), 4, "every frame after clear");
}

#[test]
fn a_new_model_revision_gives_every_frame_again() {
    let mut p = physics();
    let mut frames = MovedFrames::default();
    frames.moved(&p, SimTime::ZERO);
    let ground = p.entity_id("ground").unwrap();
    p.remove_model(ground).unwrap();
    assert_eq!(
        names(&frames.moved(&p, SimTime::ZERO)),
        ["box", "box::body"]
    );
    assert!(frames.moved(&p, SimTime::ZERO).is_empty());
}

#[test]
fn moved_encodes_as_its_transforms() {
    let mut p = physics();
    let mut frames = MovedFrames::default();
    frames.moved(&p, SimTime::ZERO);
    p.step();
    let moved = frames.moved(&p, SimTime::from_nanos(1_000_000));
    let transforms = moved.transforms();
    assert!(transforms.iter().all(|t| t.parent == WORLD_FRAME));
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let ty = moved.encode(&mut a);
    assert_eq!(ty.name, encode_tf(&transforms, &mut b).name);
    assert_eq!(a, b);
    let Payload::PoseList(list) = sim_codec::decode(ty.name, &a).unwrap() else {
        panic!("a TFMessage decodes to a pose list");
    };
    let decoded: Vec<(&str, Pose)> = list.iter().map(|p| (p.name.as_str(), p.pose)).collect();
    let expected: Vec<(&str, Pose)> = moved.frames().map(|(n, p)| (n, *p)).collect();
    assert_eq!(decoded, expected);
}

#[test]
fn several_steps_encode_as_one_message_of_their_transforms_in_order() {
    let mut p = physics();
    let mut frames = MovedFrames::default();
    let mut steps = vec![frames.moved(&p, SimTime::ZERO)];
    for i in 1..=3 {
        p.step();
        steps.push(frames.moved(&p, SimTime::from_nanos(i * 1_000_000)));
    }
    assert_eq!(
        steps.iter().map(Moved::len).collect::<Vec<_>>(),
        [4, 2, 2, 2]
    );
    let transforms: Vec<FrameTransform> = steps.iter().flat_map(Moved::transforms).collect();
    let stamps: Vec<i64> = transforms.iter().map(|t| t.stamp.nanos).collect();
    assert_eq!(
        stamps,
        [
            0, 0, 0, 0, 1_000_000, 1_000_000, 2_000_000, 2_000_000, 3_000_000, 3_000_000
        ],
        "each transform keeps its own step's stamp"
    );
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let ty = Moved::encode_steps(&steps, &mut a);
    assert_eq!(ty.name, encode_tf(&transforms, &mut b).name);
    assert_eq!(a, b);
    let (mut one, mut alone) = (Vec::new(), Vec::new());
    Moved::encode_steps(&steps[1..2], &mut one);
    steps[1].encode(&mut alone);
    assert_eq!(one, alone, "one step: the bytes of its own message");
}
