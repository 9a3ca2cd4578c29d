//! Topic names: validation and the default names of sensor topics.

/// A topic name that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid topic name `{topic}`: {reason}")]
pub struct TopicError {
    /// The name as given.
    pub topic: String,
    /// Why it is invalid.
    pub reason: &'static str,
}

fn valid_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/' | '~')
}

/// Checks a user-given topic name and returns it in absolute form (a leading `/` is added
/// when missing, as Gazebo treats relative names as absolute).
pub fn validate_topic(topic: &str) -> Result<String, TopicError> {
    let err = |reason| {
        Err(TopicError {
            topic: topic.to_string(),
            reason,
        })
    };
    let t = topic.trim();
    if t.is_empty() || t == "/" {
        return err("it is empty");
    }
    if let Some(c) = t.chars().find(|c| !valid_char(*c)) {
        return if c.is_whitespace() {
            err("it contains whitespace")
        } else {
            err("only letters, digits and `_ - . / ~` are allowed")
        };
    }
    if t.contains("//") {
        return err("it contains an empty segment (`//`)");
    }
    if t.len() > 1 && t.ends_with('/') {
        return err("it ends with `/`");
    }
    Ok(if t.starts_with('/') {
        t.to_string()
    } else {
        format!("/{t}")
    })
}

/// Replaces characters that are not allowed in topic names by `_` (used to build default
/// names from entity names, which SDF allows to contain anything).
pub fn sanitize_topic_part(part: &str) -> String {
    let s: String = part
        .chars()
        .map(|c| if valid_char(c) && c != '/' { c } else { '_' })
        .collect();
    if s.is_empty() { "_".into() } else { s }
}

/// The default topic of a sensor: `/world/<w>/model/<m>[/model/<n>...]/link/<l>/sensor/<s>`
/// plus `/<suffix>` (`/imu`, `/scan`, `/image`, ...: what the library serving its type
/// declares, else [`sensor_topic_suffix`]; nothing when empty). The suffix's parts must be
/// valid topic parts.
pub fn default_sensor_topic(
    world: &str,
    models: &[&str],
    link: &str,
    sensor: &str,
    suffix: &str,
) -> String {
    scoped_sensor_topic(world, models, ("link", link), sensor, suffix)
}

/// The default topic of a sensor inside a joint:
/// `/world/<w>/model/<m>[/model/<n>...]/joint/<j>/sensor/<s>` plus the type's suffix (Gazebo
/// builds it from the sensor's scoped name the same way).
pub fn default_joint_sensor_topic(
    world: &str,
    models: &[&str],
    joint: &str,
    sensor: &str,
    suffix: &str,
) -> String {
    scoped_sensor_topic(world, models, ("joint", joint), sensor, suffix)
}

fn scoped_sensor_topic(
    world: &str,
    models: &[&str],
    (kind, holder): (&str, &str),
    sensor: &str,
    suffix: &str,
) -> String {
    let mut t = format!("/world/{}", sanitize_topic_part(world));
    for m in models {
        t.push_str("/model/");
        t.push_str(&sanitize_topic_part(m));
    }
    t.push('/');
    t.push_str(kind);
    t.push('/');
    t.push_str(&sanitize_topic_part(holder));
    t.push_str("/sensor/");
    t.push_str(&sanitize_topic_part(sensor));
    if !suffix.is_empty() {
        t.push('/');
        t.push_str(suffix);
    }
    t
}

/// The suffix Gazebo appends to a sensor's scoped topic, by SDF type (the type's own name
/// for a type Gazebo does not have): the default topic of a sensor whose library declares
/// no suffix of its own (libraries declare theirs in `export_plugin!`; those built before
/// sim-plugin-api 1.8.0 declare none). The two lidars differ as gz-sim names them:
/// `gpu_lidar` (and its alias `gpu_ray`) `/scan` (the Sensors system's `RenderUtil`), the
/// CPU `lidar` (and `ray`) `/lidar` (`CpuLidar::AddSensor`).
pub fn sensor_topic_suffix(sensor_type: &str) -> &str {
    match sensor_type {
        "imu" => "imu",
        "gpu_lidar" | "gpu_ray" => "scan",
        "lidar" | "ray" => "lidar",
        "camera" | "thermal_camera" | "thermal" | "wide_angle_camera" | "wideanglecamera" => {
            "image"
        }
        "depth_camera" | "depth" => "depth_image",
        "rgbd_camera" | "rgbd" => "",
        "navsat" | "gps" => "navsat",
        "logical_camera" => "logical_camera",
        "altimeter" => "altimeter",
        "magnetometer" => "magnetometer",
        "air_pressure" => "air_pressure",
        "air_speed" => "air_speed",
        "force_torque" => "forcetorque",
        "contact" => "contact",
        "segmentation_camera" | "segmentation" => "segmentation",
        "boundingbox_camera" | "boundingbox" => "boundingbox",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation() {
        assert_eq!(validate_topic("/a/b").unwrap(), "/a/b");
        assert_eq!(validate_topic("a/b").unwrap(), "/a/b");
        assert!(validate_topic("").is_err());
        assert!(
            validate_topic("/a b")
                .unwrap_err()
                .reason
                .contains("whitespace")
        );
        assert!(validate_topic("/a//b").is_err());
        assert!(validate_topic("/a/").is_err());
        assert!(validate_topic("/a@b").is_err());
    }

    #[test]
    fn default_names() {
        assert_eq!(
            default_sensor_topic("w", &["box", "arm"], "link", "imu s", "imu"),
            "/world/w/model/box/model/arm/link/link/sensor/imu_s/imu"
        );
        assert_eq!(
            default_sensor_topic("w", &["m"], "l", "c", sensor_topic_suffix("rgbd")),
            "/world/w/model/m/link/l/sensor/c"
        );
        assert_eq!(sensor_topic_suffix("ray"), "lidar");
        assert_eq!(sensor_topic_suffix("lidar"), "lidar");
        assert_eq!(sensor_topic_suffix("gpu_ray"), "scan");
        assert_eq!(sensor_topic_suffix("gpu_lidar"), "scan");
        assert_eq!(sensor_topic_suffix("wideanglecamera"), "image");
        assert_eq!(sensor_topic_suffix("wide_angle_camera"), "image");
        assert_eq!(
            default_joint_sensor_topic("w", &["arm"], "wrist", "ft", "forcetorque"),
            "/world/w/model/arm/joint/wrist/sensor/ft/forcetorque"
        );
    }
}
