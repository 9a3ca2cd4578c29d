//! The published message: gz-msgs' `AirSpeedSensor`, which simcore's payloads lack, as a
//! [`Payload::Custom`] of schema [`AIR_SPEED_SCHEMA`] whose JSON text has gz-msgs' field names:
//!
//! ```json
//! {"header": {"stamp": {"sec": 1, "nsec": 0}, "data": [{"key": "frame_id", "value": ["body"]}]},
//!  "diff_pressure": 61.25, "temperature": 288.15,
//!  "pressure_noise": {"type": "GAUSSIAN", "mean": 0.0, "stddev": 0.01, ...}}
//! ```
//!
//! `pressure_noise` is there only when the pressure noise is of type `gaussian` (as Gazebo,
//! which sets it whenever the type is not `none`).

use serde_json::{Value, json};
use sim_plugin_api::{Payload, SimTime, noise::NoiseParams};
use simcore_plugin_common::gz::json_message;

/// The schema of the message: gz-msgs' `AirSpeedSensor`, encoded as JSON.
pub const AIR_SPEED_SCHEMA: &str = "gz.msgs.AirSpeedSensor";

/// A finite number as JSON, `null` otherwise (JSON has no NaN).
fn num(x: f64) -> Value {
    serde_json::Number::from_f64(x).map_or(Value::Null, Value::Number)
}

/// The message of one reading: `diff_pressure` (Pa) and `temperature` (K) at sim time `now`
/// in frame `frame`, with the pressure noise's parameters when there is `noise`.
pub fn air_speed_message(
    now: SimTime,
    frame: &str,
    diff_pressure: f64,
    temperature: f64,
    noise: Option<&NoiseParams>,
) -> Payload {
    let (sec, nsec) = now.to_sec_nsec();
    let mut doc = json!({
        "header": {
            "stamp": {"sec": sec, "nsec": nsec},
            "data": [{"key": "frame_id", "value": [frame]}],
        },
        "diff_pressure": num(diff_pressure),
        "temperature": num(temperature),
    });
    if let Some(n) = noise {
        doc["pressure_noise"] = json!({
            "type": "GAUSSIAN",
            "mean": num(n.mean),
            "stddev": num(n.stddev),
            "bias_mean": num(n.bias_mean),
            "bias_stddev": num(n.bias_stddev),
            "precision": num(n.precision),
            "dynamic_bias_stddev": num(n.dynamic_bias_stddev),
            "dynamic_bias_correlation_time": num(n.dynamic_bias_correlation_time),
        });
    }
    json_message(AIR_SPEED_SCHEMA, doc.to_string())
}
