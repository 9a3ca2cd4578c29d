//! The `gz.msgs.Model` message gz-sim's JointStatePublisher publishes, as JSON.

use serde_json::{Value, json};
use sim_plugin_api::{JointState, Payload, Pose, SimTime};
use simcore_plugin_common::gz::json_message;

/// The schema of the message: gz-msgs' `Model`, encoded as JSON with its field names.
pub const JOINT_STATE_SCHEMA: &str = "gz.msgs.Model";

/// One joint of the message.
#[derive(Clone, Debug, PartialEq)]
pub struct JointEntry {
    /// The joint's own name.
    pub name: String,
    /// Its entity id.
    pub id: u64,
    /// Its state after the step.
    pub state: JointState,
}

/// A number as JSON (non-finite numbers, which JSON lacks, as `null`).
fn num(x: f64) -> Value {
    if x.is_finite() { json!(x) } else { Value::Null }
}

/// The `axis1` / `axis2` of a joint: position, velocity and force of axis `k`.
fn axis(s: &JointState, k: usize) -> Value {
    json!({
        "position": num(s.position[k]),
        "velocity": num(s.velocity[k]),
        "force": num(s.effort[k]),
    })
}

/// The message for model `name` (entity `id`) at world pose `pose` at sim time `now`, with
/// `joints` in order: each joint with `axis1` when it has an axis and `axis2` when it has two
/// (fixed and ball joints carry neither, as in gz-sim).
pub fn model_message(
    name: &str,
    id: u64,
    pose: Pose,
    now: SimTime,
    joints: &[JointEntry],
) -> Payload {
    let ns = now.nanos;
    let joint: Vec<Value> = joints
        .iter()
        .map(|j| {
            let mut v = json!({"name": j.name, "id": j.id});
            if j.state.dof >= 1 {
                v["axis1"] = axis(&j.state, 0);
            }
            if j.state.dof >= 2 {
                v["axis2"] = axis(&j.state, 1);
            }
            v
        })
        .collect();
    let (p, q) = (pose.position, pose.orientation);
    let doc = json!({
        "header": {"stamp": {"sec": ns.div_euclid(1_000_000_000), "nsec": ns.rem_euclid(1_000_000_000)}},
        "name": name,
        "id": id,
        "pose": {
            "position": {"x": num(p.x), "y": num(p.y), "z": num(p.z)},
            "orientation": {"x": num(q.x), "y": num(q.y), "z": num(q.z), "w": num(q.w)},
        },
        "joint": joint,
    });
    json_message(JOINT_STATE_SCHEMA, doc.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_by_degrees_of_freedom() {
        let hinge = JointEntry {
            name: "hinge".into(),
            id: 4,
            state: JointState {
                dof: 1,
                position: [0.5, 0.0],
                velocity: [-1.0, 0.0],
                effort: [2.0, 0.0],
            },
        };
        let fixed = JointEntry {
            name: "weld".into(),
            id: 5,
            state: JointState::default(),
        };
        let m = model_message(
            "arm",
            2,
            Pose::default(),
            SimTime::from_nanos(1_500_000_000),
            &[hinge, fixed],
        );
        let Payload::Custom(c) = m else { panic!() };
        assert_eq!(c.schema.as_str(), JOINT_STATE_SCHEMA);
        let v: Value = serde_json::from_slice(&c.data).unwrap();
        assert_eq!(v["name"], "arm");
        assert_eq!(v["header"]["stamp"], json!({"sec": 1, "nsec": 500_000_000}));
        assert_eq!(
            v["joint"][0]["axis1"],
            json!({"position": 0.5, "velocity": -1.0, "force": 2.0})
        );
        assert!(v["joint"][0].get("axis2").is_none());
        assert_eq!(v["joint"][1], json!({"name": "weld", "id": 5}));
    }
}
