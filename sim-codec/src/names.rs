//! ROS 2 names of simcore topics.
//!
//! ROS 2 topic names (rcl's rules) are `/`-separated tokens of `[A-Za-z0-9_]`, no token
//! starting with a digit, no `__`, no empty token and no trailing `/`. simcore topics also
//! allow `-`, `.` and `~` and tokens starting with digits, so [`ros_name`] maps them by a
//! fixed rule:
//!
//! 1. the name is made absolute, and empty tokens are dropped;
//! 2. in each token, every character other than `[A-Za-z0-9_]` becomes `_`;
//! 3. runs of `_` become one `_`;
//! 4. a token starting with a digit gets a leading `_`.
//!
//! `/world/w/model/m-1/link/l.2/sensor/s/scan` becomes
//! `/world/w/model/m_1/link/l_2/sensor/s/scan`, and `/model/2wd/cmd_vel` becomes
//! `/model/_2wd/cmd_vel`. Different topics can map to one name (`/a-b` and `/a.b`): a
//! [`NameTable`] built from the topics reports that, and takes explicit remaps
//! (`simcore topic → ROS name`, as `ros_gz_bridge` users write them:
//! `/world/w/model/r/link/base/sensor/lidar/scan → /scan`).

use std::collections::BTreeMap;

/// Why a name table cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    /// A remap's target is not a valid ROS 2 topic name.
    #[error("remap `{from}` -> `{to}`: `{to}` is not a ROS 2 topic name: {reason}")]
    InvalidTarget {
        /// The simcore topic.
        from: String,
        /// The target as given.
        to: String,
        /// Which rule it breaks.
        reason: &'static str,
    },
    /// A remap's source is not a simcore topic name.
    #[error("remap `{from}` -> `{to}`: `{from}` is not a topic name")]
    InvalidSource {
        /// The source as given.
        from: String,
        /// The target as given.
        to: String,
    },
    /// One simcore topic remapped twice.
    #[error("`{from}` is remapped twice (to `{first}` and to `{second}`)")]
    RemappedTwice {
        /// The simcore topic.
        from: String,
        /// The first target.
        first: String,
        /// The second target.
        second: String,
    },
    /// Several simcore topics get one ROS name.
    #[error("`{ros_name}` is the ROS name of several topics ({}); remap all but one", topics.join(", "))]
    Collision {
        /// The shared ROS name.
        ros_name: String,
        /// The simcore topics, sorted.
        topics: Vec<String>,
    },
}

/// Every problem of a name table, one per line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
pub struct NameErrors(pub Vec<NameError>);

/// The ROS 2 name of simcore topic `topic` by the rule of the [module docs](self); `None`
/// for a topic with no token (`""`, `"/"`).
pub fn ros_name(topic: &str) -> Option<String> {
    let mut out = String::with_capacity(topic.len() + 1);
    for token in topic.split('/').filter(|t| !t.is_empty()) {
        out.push('/');
        if token.starts_with(|c: char| c.is_ascii_digit()) {
            out.push('_');
        }
        for c in token.chars() {
            let c = if c.is_ascii_alphanumeric() { c } else { '_' };
            if !(c == '_' && out.ends_with('_')) {
                out.push(c);
            }
        }
    }
    (!out.is_empty()).then_some(out)
}

/// Checks a ROS 2 topic name (absolute, or relative to the root namespace, which simcore's
/// node is in) and returns it in absolute form; the error names the rule broken.
pub fn validate_ros_name(name: &str) -> Result<String, &'static str> {
    let abs = if name.starts_with('/') {
        name.to_string()
    } else {
        format!("/{name}")
    };
    if abs == "/" {
        return Err("it is empty");
    }
    if abs.ends_with('/') {
        return Err("it ends with `/`");
    }
    if abs.contains("//") {
        return Err("it contains an empty token (`//`)");
    }
    if abs.contains(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '/')) {
        return Err("only letters, digits, `_` and `/` are allowed");
    }
    if abs.contains("__") {
        return Err("it contains `__`");
    }
    if abs
        .split('/')
        .any(|t| t.starts_with(|c: char| c.is_ascii_digit()))
    {
        return Err("a token starts with a digit");
    }
    Ok(abs)
}

/// The remaps that are valid (source made a simcore topic, target an absolute ROS name),
/// and a problem for each one that is not or that remaps a topic a second time.
fn checked_remaps(remaps: &[(String, String)]) -> (BTreeMap<String, String>, Vec<NameError>) {
    let mut errors = Vec::new();
    let mut remapped: BTreeMap<String, String> = BTreeMap::new();
    for (from, to) in remaps {
        let Ok(source) = sim_transport::validate_topic(from) else {
            errors.push(NameError::InvalidSource {
                from: from.clone(),
                to: to.clone(),
            });
            continue;
        };
        let target = match validate_ros_name(to) {
            Ok(t) => t,
            Err(reason) => {
                errors.push(NameError::InvalidTarget {
                    from: from.clone(),
                    to: to.clone(),
                    reason,
                });
                continue;
            }
        };
        if let Some(first) = remapped.get(&source) {
            errors.push(NameError::RemappedTwice {
                from: source,
                first: first.clone(),
                second: target,
            });
            continue;
        }
        remapped.insert(source, target);
    }
    (remapped, errors)
}

/// The ROS 2 name every simcore topic has outside the process: its remap (the run
/// manifest's `[[ros.remap]]`), else the rule of the [module docs](self). The Zenoh
/// transport, recordings and the live view name topics through one `RosNames`, so a
/// recording plays back under the names a live client saw.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RosNames {
    remaps: BTreeMap<String, String>,
}

impl RosNames {
    /// The names with `remaps` (simcore topic, ROS name), checked as [`NameTable::new`]
    /// checks them: every invalid remap, every topic remapped twice and every two topics
    /// remapped to one name is reported.
    pub fn new(remaps: &[(String, String)]) -> Result<RosNames, NameErrors> {
        let sources = remaps.iter().map(|(from, _)| from.as_str());
        let table = NameTable::new(sources, remaps)?;
        Ok(RosNames {
            remaps: table
                .iter()
                .map(|(t, n)| (t.to_string(), n.to_string()))
                .collect(),
        })
    }

    /// The ROS name of simcore topic `topic`: its remap, else [`ros_name`]'s.
    pub fn ros_name(&self, topic: &str) -> Option<String> {
        match self.remaps.get(topic) {
            Some(name) => Some(name.clone()),
            None => ros_name(topic),
        }
    }

    /// Whether some topic is remapped to ROS name `name`.
    pub fn is_remapped_to(&self, name: &str) -> bool {
        self.remaps.values().any(|n| n == name)
    }

    /// Every remap, (simcore topic, ROS name), sorted by topic.
    pub fn remaps(&self) -> impl Iterator<Item = (&str, &str)> {
        self.remaps.iter().map(|(t, n)| (t.as_str(), n.as_str()))
    }
}

/// The ROS 2 names of a set of simcore topics, both ways, with no two topics sharing a name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NameTable {
    to_ros: BTreeMap<String, String>,
    from_ros: BTreeMap<String, String>,
}

impl NameTable {
    /// The table of `topics` (simcore names) and the sources of `remaps`, each named by its
    /// remap or else by [`ros_name`]. Every invalid remap and every collision is reported.
    pub fn new<'a>(
        topics: impl IntoIterator<Item = &'a str>,
        remaps: &[(String, String)],
    ) -> Result<NameTable, NameErrors> {
        let (remapped, mut errors) = checked_remaps(remaps);
        let mut to_ros = BTreeMap::new();
        for topic in topics {
            let topic = sim_transport::validate_topic(topic).unwrap_or(topic.to_string());
            if remapped.contains_key(&topic) {
                continue;
            }
            if let Some(name) = ros_name(&topic) {
                to_ros.insert(topic, name);
            }
        }
        to_ros.extend(remapped);
        let mut by_name: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        for (topic, name) in &to_ros {
            by_name.entry(name).or_default().push(topic);
        }
        for (name, topics) in &by_name {
            if topics.len() > 1 {
                errors.push(NameError::Collision {
                    ros_name: name.to_string(),
                    topics: topics.iter().map(ToString::to_string).collect(),
                });
            }
        }
        if !errors.is_empty() {
            return Err(NameErrors(errors));
        }
        let from_ros = to_ros.iter().map(|(t, n)| (n.clone(), t.clone())).collect();
        Ok(NameTable { to_ros, from_ros })
    }

    /// The ROS name of simcore topic `topic`, if the table has it.
    pub fn ros_name(&self, topic: &str) -> Option<&str> {
        self.to_ros.get(topic).map(String::as_str)
    }

    /// The simcore topic of ROS name `name`, if the table has it.
    pub fn topic(&self, name: &str) -> Option<&str> {
        self.from_ros.get(name).map(String::as_str)
    }

    /// Every `(simcore topic, ROS name)`, sorted by topic.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.to_ros.iter().map(|(t, n)| (t.as_str(), n.as_str()))
    }

    /// How many topics the table names.
    pub fn len(&self) -> usize {
        self.to_ros.len()
    }

    /// Whether it names no topic.
    pub fn is_empty(&self) -> bool {
        self.to_ros.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rule_gives_valid_ros_names() {
        for (topic, want) in [
            (
                "/world/w/model/m-1/link/l.2/sensor/s/scan",
                "/world/w/model/m_1/link/l_2/sensor/s/scan",
            ),
            ("/model/2wd/cmd_vel", "/model/_2wd/cmd_vel"),
            ("scan", "/scan"),
            ("/a__b/c", "/a_b/c"),
            ("/a-_.b", "/a_b"),
            ("/_x_/-", "/_x_/_"),
            ("/~/tilde~", "/_/tilde_"),
            ("/9", "/_9"),
            ("/-9", "/_9"),
            ("/ünï/x", "/_n_/x"),
        ] {
            let got = ros_name(topic).unwrap();
            assert_eq!(got, want, "{topic}");
            assert_eq!(validate_ros_name(&got), Ok(got.clone()), "{topic}");
        }
        assert_eq!(ros_name(""), None);
        assert_eq!(ros_name("/"), None);
    }

    proptest::proptest! {
        /// Whatever simcore accepts maps to a name rcl accepts.
        #[test]
        fn every_simcore_topic_maps_to_a_valid_name(topic in "/?([A-Za-z0-9_.~-]{1,6}/){0,4}[A-Za-z0-9_.~-]{1,6}") {
            if let Ok(t) = sim_transport::validate_topic(&topic) {
                let name = ros_name(&t).unwrap();
                proptest::prop_assert_eq!(validate_ros_name(&name), Ok(name.clone()));
            }
        }
    }

    #[test]
    fn ros_names_are_checked_by_rcl_rules() {
        assert_eq!(validate_ros_name("scan"), Ok("/scan".into()));
        assert_eq!(validate_ros_name("/a/b_c/D9"), Ok("/a/b_c/D9".into()));
        for (bad, why) in [
            ("", "empty"),
            ("/", "empty"),
            ("/a/", "ends with"),
            ("/a//b", "empty token"),
            ("/a-b", "only letters"),
            ("~/a", "only letters"),
            ("/{node}/a", "only letters"),
            ("/a__b", "`__`"),
            ("/a/9b", "digit"),
        ] {
            let e = validate_ros_name(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn a_table_names_topics_both_ways() {
        let remaps = [(
            "/world/w/model/r/link/base/sensor/lidar/scan".to_string(),
            "scan".to_string(),
        )];
        let t = NameTable::new(
            [
                "/world/w/model/r/link/base/sensor/lidar/scan",
                "/model/r-1/cmd_vel",
                "clock_like",
            ],
            &remaps,
        )
        .unwrap();
        assert_eq!(
            t.ros_name("/world/w/model/r/link/base/sensor/lidar/scan"),
            Some("/scan")
        );
        assert_eq!(
            t.topic("/scan"),
            Some("/world/w/model/r/link/base/sensor/lidar/scan")
        );
        assert_eq!(t.ros_name("/model/r-1/cmd_vel"), Some("/model/r_1/cmd_vel"));
        assert_eq!(t.topic("/model/r_1/cmd_vel"), Some("/model/r-1/cmd_vel"));
        assert_eq!(t.ros_name("/clock_like"), Some("/clock_like"));
        assert_eq!(t.len(), 3);
        // A remap source that is not among the topics is named too (a topic to come).
        let t = NameTable::new([], &[("/cmd".into(), "/robot/cmd_vel".into())]).unwrap();
        assert_eq!(t.iter().collect::<Vec<_>>(), [("/cmd", "/robot/cmd_vel")]);
    }

    #[test]
    fn collisions_and_bad_remaps_are_all_reported() {
        let err = NameTable::new(["/a-b", "/a.b", "/a_b", "/c"], &[]).unwrap_err();
        assert_eq!(
            err.0,
            [NameError::Collision {
                ros_name: "/a_b".into(),
                topics: vec!["/a-b".into(), "/a.b".into(), "/a_b".into()],
            }]
        );
        assert!(err.to_string().contains("remap all but one"));
        // Remapping all but one resolves it.
        let remaps = [
            ("/a-b".to_string(), "/a_dash_b".to_string()),
            ("/a.b".to_string(), "/a_dot_b".to_string()),
        ];
        assert!(NameTable::new(["/a-b", "/a.b", "/a_b"], &remaps).is_ok());
        // A remap onto another topic's name collides.
        let err = NameTable::new(["/x", "/y"], &[("/x".into(), "/y".into())]).unwrap_err();
        assert!(matches!(&err.0[..], [NameError::Collision { ros_name, .. }] if ros_name == "/y"));

        let remaps = [
            ("/s".to_string(), "/bad-name".to_string()),
            ("/s2".to_string(), "/ok".to_string()),
            ("/s2".to_string(), "/ok2".to_string()),
            ("/a b".to_string(), "/fine".to_string()),
            ("/t".to_string(), "/9lives".to_string()),
        ];
        let err = NameTable::new(["/s"], &remaps).unwrap_err();
        let text = err.to_string();
        assert_eq!(err.0.len(), 4, "{text}");
        assert!(
            text.contains("`/bad-name` is not a ROS 2 topic name"),
            "{text}"
        );
        assert!(text.contains("`/s2` is remapped twice"), "{text}");
        assert!(text.contains("`/a b` is not a topic name"), "{text}");
        assert!(text.contains("a token starts with a digit"), "{text}");
    }

    #[test]
    fn ros_names_are_the_remap_else_the_rule() {
        let names = RosNames::new(&[
            (
                "/world/w/model/r/link/l/sensor/lidar/scan".into(),
                "scan".into(),
            ),
            ("/model/rover-1/odometry".into(), "/odom".into()),
        ])
        .unwrap();
        assert_eq!(
            names
                .ros_name("/world/w/model/r/link/l/sensor/lidar/scan")
                .as_deref(),
            Some("/scan")
        );
        assert_eq!(
            names.ros_name("/model/rover-1/odometry").as_deref(),
            Some("/odom")
        );
        assert_eq!(
            names.ros_name("/model/rover-2/odometry").as_deref(),
            Some("/model/rover_2/odometry")
        );
        assert!(names.is_remapped_to("/odom") && !names.is_remapped_to("/tf"));
        let twice = RosNames::new(&[("/a".into(), "/x".into()), ("/b".into(), "/x".into())]);
        assert!(
            twice
                .unwrap_err()
                .to_string()
                .contains("`/x` is the ROS name of several topics")
        );
        assert_eq!(RosNames::default().ros_name("/").as_deref(), None);
    }
}
