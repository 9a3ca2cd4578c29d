//! The simulation_interfaces requests and replies of both forms of SpawnEntity and
//! SetEntityState against the bytes rosbags wrote for them (`control_golden.tsv`, by
//! `tools/ros_golden.py`).

use super::control::{Control, Reply, Service, Spawn, StateParts, result, state};
use super::entity::EntityState;
use sim_plugin_api::{Pose, Quat, SimTime, Vec3};

const GOLDEN: &str = include_str!("control_golden.tsv");
const SDF: &str = "<sdf version='1.9'><model name='m'/></sdf>";

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn spawn(uri: &str, text: &str) -> Control {
    Control::Spawn(Box::new(Spawn {
        name: "crate".into(),
        allow_renaming: true,
        uri: uri.into(),
        resource_string: text.into(),
        namespace: String::new(),
        frame: "world".into(),
        pose: Pose::new(Vec3::new(1.0, 2.0, 3.0), Quat::new(0.0, 0.0, 0.6, 0.8)),
    }))
}

fn set_state(parts: StateParts) -> Control {
    let s = EntityState {
        stamp: SimTime::from_nanos(0),
        frame: String::new(),
        pose: Pose::new(Vec3::new(-1.0, 3.0, 0.25), Quat::new(0.0, 0.0, 0.6, 0.8)),
        linear_velocity: Vec3::new(0.5, 0.0, 0.0),
        angular_velocity: Vec3::new(0.0, 0.0, -0.25),
        linear_acceleration: Vec3::new(0.0, 0.0, 9.5),
        angular_acceleration: Vec3::ZERO,
    };
    Control::SetEntityState("pioneer".into(), Box::new(s), parts)
}

/// What a line's request decodes to, with the service of its form.
fn request(ty: &str, case: &str) -> (Service, Control) {
    let v2 = case.starts_with("v2-");
    let parts = |pose, motion| StateParts {
        pose,
        twist: motion,
        acceleration: motion,
    };
    match (ty, &case[3..]) {
        ("SpawnEntity_Request", form) => {
            let service = if v2 { Service::SpawnV2 } else { Service::Spawn };
            match form {
                "text" => (service, spawn("", SDF)),
                "uri" => (service, spawn("model://crate", "")),
                _ => panic!("no case {case}"),
            }
        }
        ("SetEntityState_Request", "all") => (Service::SetEntityState, set_state(StateParts::ALL)),
        ("SetEntityState_Request", "pose") => {
            (Service::SetEntityStateV2, set_state(parts(true, false)))
        }
        ("SetEntityState_Request", "motion") => {
            (Service::SetEntityStateV2, set_state(parts(false, true)))
        }
        _ => panic!("no case {ty} {case}"),
    }
}

#[test]
fn both_forms_read_and_write_what_rosbags_does() {
    let mut checked = 0;
    for line in GOLDEN.lines().filter(|l| !l.starts_with('#')) {
        let mut cols = line.split('\t');
        let (ty, case, bytes) = (
            cols.next().unwrap(),
            cols.next().unwrap(),
            hex(cols.next().unwrap()),
        );
        let ty = ty.strip_prefix("simulation_interfaces/srv/").unwrap();
        let v2 = case.starts_with("v2-");
        match ty {
            "SpawnEntity_Response" => {
                let service = if v2 { Service::SpawnV2 } else { Service::Spawn };
                let mut r = Reply::ok(state::PAUSED);
                r.entity_name = "crate_1".into();
                assert_eq!(r.encode(service), bytes, "{ty} {case}");
            }
            "SetEntityState_Response" => {
                let service = if v2 {
                    Service::SetEntityStateV2
                } else {
                    Service::SetEntityState
                };
                let r = Reply::error(state::PAUSED, result::INVALID_POSE, "no rotation");
                assert_eq!(r.encode(service), bytes, "{ty} {case}");
            }
            _ => {
                let (service, control) = request(ty, case);
                assert_eq!(service.decode(&bytes), Ok(control), "{ty} {case}");
            }
        }
        checked += 1;
    }
    assert_eq!(checked, 11, "every case of the file");
}

#[test]
fn a_form_refuses_the_other_forms_set_entity_state() {
    let row = |case: &str| {
        let line = GOLDEN
            .lines()
            .find(|l| {
                l.starts_with("simulation_interfaces/srv/SetEntityState_Request")
                    && l.contains(case)
            })
            .unwrap();
        hex(line.rsplit('\t').next().unwrap())
    };
    let (v1, v2) = (row("\tv1-all\t"), row("\tv2-pose\t"));
    assert!(
        Service::SetEntityStateV2.decode(&v1).is_err(),
        "1.x bytes lack the flags"
    );
    assert!(
        Service::SetEntityStateV2
            .decode(&v2[..v2.len() - 1])
            .is_err(),
        "cut short"
    );
    assert_eq!(
        Service::SetEntityStateV2.ros_name(),
        Service::SetEntityState.ros_name()
    );
    assert_ne!(
        Service::SetEntityStateV2.ros_type().hash,
        Service::SetEntityState.ros_type().hash
    );
    assert_eq!(Service::SpawnV2.dds_name(), Service::Spawn.dds_name());
    assert_ne!(
        Service::SpawnV2.ros_type().hash,
        Service::Spawn.ros_type().hash
    );
}
