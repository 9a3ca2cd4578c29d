//! What the encoders need beyond a message: the fields a payload does not carry
//! ([`EncodeOptions`]) and, per topic, the sensor's period ([`TopicOptions`]).

use std::collections::HashMap;

/// What a payload does not carry but some ROS types want (see
/// [`encode_with`](crate::encode_with)).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct EncodeOptions<'a> {
    /// `child_frame_id` of `nav_msgs/Odometry`: the body frame its twist is in (the diff
    /// drive's `<child_frame_id>`); empty by default.
    pub child_frame_id: &'a str,
    /// `scan_time` of `sensor_msgs/LaserScan`, s: the sensor's update period; 0 (unknown)
    /// by default.
    pub scan_time: f32,
}

/// What the encoders need to know of each topic beyond its messages: the update period of
/// the sensor publishing on it (a LaserScan's `scan_time`). The live transport and the
/// recorder build it once from the simulation, so both write the same bytes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TopicOptions {
    periods: HashMap<String, f32>,
}

impl TopicOptions {
    /// Options knowing the update period in seconds of the sensor publishing on each topic
    /// (as the engine lists them: bus topic, period).
    pub fn with_periods(periods: impl IntoIterator<Item = (String, f64)>) -> TopicOptions {
        TopicOptions {
            periods: periods
                .into_iter()
                .map(|(topic, period)| (topic, period as f32))
                .collect(),
        }
    }

    /// The options to encode the messages of bus topic `topic` with.
    pub fn of(&self, topic: &str) -> EncodeOptions<'static> {
        EncodeOptions {
            scan_time: self.periods.get(topic).copied().unwrap_or(0.0),
            ..EncodeOptions::default()
        }
    }
}
