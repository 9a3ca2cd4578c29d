//! The quality of service simcore offers on what it publishes: one table, read by the live
//! transport for its endpoint tokens and by the recorder for its channels' metadata, so that
//! `ros2 bag play` of a recording offers what the live run offered.

/// A QoS profile simcore offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Qos {
    /// Sensor data, as ROS sensor drivers publish it: best effort, volatile, keep last 5.
    SensorData,
    /// Reliable, volatile, keep last 10 (ROS's default for topics and services).
    Reliable,
    /// Latched: reliable, transient local, keep last 1 (`/tf_static`).
    Latched,
}

impl Qos {
    /// What simcore offers on the ROS topic `name`: latched on `/tf_static` (and a recording's
    /// `/scene`), reliable on `/clock` and `/tf`, sensor data on every sensor's and plugin's
    /// output.
    pub fn offered_on(name: &str) -> Qos {
        match name {
            "/tf_static" | "/scene" => Qos::Latched,
            "/clock" | "/tf" => Qos::Reliable,
            _ => Qos::SensorData,
        }
    }

    /// Whether delivery is reliable (else best effort).
    pub fn reliable(self) -> bool {
        self != Qos::SensorData
    }

    /// Whether late joiners get the last messages (transient local; else volatile).
    pub fn transient_local(self) -> bool {
        self == Qos::Latched
    }

    /// How many messages the history keeps (keep last N).
    pub fn depth(self) -> u32 {
        match self {
            Qos::SensorData => 5,
            Qos::Reliable => 10,
            Qos::Latched => 1,
        }
    }

    /// rosbag2's `offered_qos_profiles` (the YAML of one publisher's profile, enums as
    /// numbers: history 1 = keep last; reliability 1 = reliable, 2 = best effort; durability
    /// 1 = transient local, 2 = volatile; liveliness 1 = automatic; zero durations for the
    /// defaults).
    pub fn rosbag2_profile(self) -> String {
        format!(
            "- history: 1\n  depth: {}\n  reliability: {}\n  durability: {}\n  deadline:\n    \
             sec: 0\n    nsec: 0\n  lifespan:\n    sec: 0\n    nsec: 0\n  liveliness: 1\n  \
             liveliness_lease_duration:\n    sec: 0\n    nsec: 0\n  \
             avoid_ros_namespace_conventions: false\n",
            self.depth(),
            if self.reliable() { 1 } else { 2 },
            if self.transient_local() { 1 } else { 2 },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::Qos;

    #[test]
    fn each_topic_has_one_profile_and_its_rosbag2_form_says_it() {
        assert_eq!(Qos::offered_on("/tf_static"), Qos::Latched);
        assert_eq!(Qos::offered_on("/clock"), Qos::Reliable);
        assert_eq!(Qos::offered_on("/model/rover_1/odometry"), Qos::SensorData);
        let sensor = Qos::SensorData.rosbag2_profile();
        assert!(sensor.contains("depth: 5\n"), "{sensor}");
        assert!(sensor.contains("reliability: 2\n"), "{sensor}");
        assert!(sensor.contains("durability: 2\n"), "{sensor}");
        let latched = Qos::Latched.rosbag2_profile();
        assert!(latched.contains("depth: 1\n"), "{latched}");
        assert!(latched.contains("reliability: 1\n"), "{latched}");
        assert!(latched.contains("durability: 1\n"), "{latched}");
        assert!(Qos::Reliable.rosbag2_profile().contains("depth: 10\n"));
    }
}
