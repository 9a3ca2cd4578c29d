//! The published boxes: gz-msgs' `AnnotatedAxisAligned2DBox_V`, which simcore's payloads lack,
//! as a `Payload::Custom` of schema [`BOXES_2D_SCHEMA`] whose JSON text has gz-msgs' field
//! names:
//!
//! ```json
//! {"header": {"stamp": {"sec": 1, "nsec": 0},
//!             "data": [{"key": "frame_id", "value": ["cam"]}, {"key": "seq", "value": ["0"]}]},
//!  "annotated_box": [{"box": {"min_corner": {"x": 10.0, "y": 4.0},
//!                             "max_corner": {"x": 20.0, "y": 9.0}}, "label": 3}]}
//! ```
//!
//! Corners are pixel columns (`x`) and rows (`y`): for visible boxes the first and last of
//! the box's pixels, for full boxes the edges of the projection ([`crate::full`]).
//!
//! The `3d` boxes are gz-msgs' `AnnotatedOriented3DBox_V` ([`BOXES_3D_SCHEMA`]), in the camera
//! frame of [`crate::full`]:
//!
//! ```json
//! {"header": {...},
//!  "annotated_box": [{"box": {"center": {"x": 0.1, "y": 0.0, "z": -4.0},
//!                             "orientation": {"x": 0.0, "y": 0.0, "z": 0.0, "w": 1.0},
//!                             "boxSize": {"x": 0.6, "y": 0.5, "z": 0.4}}, "label": 3}]}
//! ```

use crate::full::{Box2d, Box3d};
use serde_json::{Value, json};
use sim_plugin_api::{Payload, SimTime};
use simcore_plugin_common::gz::json_message;

/// The schema of the 2D boxes message.
pub const BOXES_2D_SCHEMA: &str = "gz.msgs.AnnotatedAxisAligned2DBox_V";

/// The schema of the 3D boxes message.
pub const BOXES_3D_SCHEMA: &str = "gz.msgs.AnnotatedOriented3DBox_V";

/// The header of the `seq`-th message of the sensor `frame`, taken at `now`.
fn header(now: SimTime, frame: &str, seq: u64) -> Value {
    let (sec, nsec) = now.to_sec_nsec();
    json!({
        "stamp": {"sec": sec, "nsec": nsec},
        "data": [
            {"key": "frame_id", "value": [frame]},
            {"key": "seq", "value": [seq.to_string()]},
        ],
    })
}

/// The message of one frame's 3D `boxes` (as [`boxes_message`] for the header).
pub fn boxes_3d_message(now: SimTime, frame: &str, seq: u64, boxes: &[Box3d]) -> Payload {
    let v = |p: sim_plugin_api::Vec3| json!({"x": p.x, "y": p.y, "z": p.z});
    let annotated: Vec<Value> = boxes
        .iter()
        .map(|b| {
            let q = b.orientation;
            json!({
                "box": {
                    "center": v(b.center),
                    "orientation": {"x": q.x, "y": q.y, "z": q.z, "w": q.w},
                    "boxSize": v(b.size),
                },
                "label": b.label,
            })
        })
        .collect();
    let doc = json!({"header": header(now, frame, seq), "annotated_box": annotated});
    json_message(BOXES_3D_SCHEMA, doc.to_string())
}

/// The message of one frame's `boxes`, taken at sim time `now` by the sensor named `frame`
/// (gz-sensors' frame id: the sensor's own name), the `seq`-th message of the sensor.
pub fn boxes_message(now: SimTime, frame: &str, seq: u64, boxes: &[Box2d]) -> Payload {
    let corner = |c: [f64; 2]| json!({"x": c[0], "y": c[1]});
    let annotated: Vec<Value> = boxes
        .iter()
        .map(|b| {
            json!({
                "box": {"min_corner": corner(b.min), "max_corner": corner(b.max)},
                "label": b.label,
            })
        })
        .collect();
    let doc = json!({"header": header(now, frame, seq), "annotated_box": annotated});
    json_message(BOXES_2D_SCHEMA, doc.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::boxes::VisibleBox;
    use sim_plugin_api::EntityId;

    #[test]
    fn fields_as_gz_msgs_names_them() {
        let b = VisibleBox {
            label: 3,
            model: EntityId(9),
            min: [10, 4],
            max: [20, 9],
        };
        let Payload::Custom(c) = boxes_message(SimTime::from_secs_f64(1.5), "cam", 2, &[b.into()])
        else {
            panic!("not a Custom payload")
        };
        assert_eq!(c.schema.as_str(), BOXES_2D_SCHEMA);
        assert_eq!(c.encoding.as_str(), "json");
        let v: Value = serde_json::from_slice(&c.data).unwrap();
        assert_eq!(v["header"]["stamp"], json!({"sec": 1, "nsec": 500_000_000}));
        assert_eq!(
            v["header"]["data"][0],
            json!({"key": "frame_id", "value": ["cam"]})
        );
        assert_eq!(
            v["header"]["data"][1],
            json!({"key": "seq", "value": ["2"]})
        );
        assert_eq!(
            v["annotated_box"],
            json!([{"box": {"min_corner": {"x": 10.0, "y": 4.0},
                            "max_corner": {"x": 20.0, "y": 9.0}}, "label": 3}])
        );
    }
}
