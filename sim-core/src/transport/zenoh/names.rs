//! simcore topic names as ROS names.

/// The ROS name of a simcore topic: each name token keeps `[A-Za-z0-9_]` and has any other
/// character replaced by `_`, runs of `_` collapsed to one, and a `_` put before a token that
/// starts with a digit (ROS tokens may not); `/world/w-1/model/2d.bot/scan` becomes
/// `/world/w_1/model/_2d_bot/scan`.
pub fn ros_name(topic: &str) -> String {
    let mut out = String::with_capacity(topic.len() + 2);
    for token in topic.split('/').filter(|t| !t.is_empty()) {
        out.push('/');
        let start = out.len();
        for c in token.chars() {
            let c = if c.is_ascii_alphanumeric() { c } else { '_' };
            if c == '_' && out.ends_with('_') && out.len() > start {
                continue;
            }
            if out.len() == start && c.is_ascii_digit() {
                out.push('_');
            }
            out.push(c);
        }
    }
    if out.is_empty() { "/".into() } else { out }
}

#[cfg(test)]
mod tests {
    use super::ros_name;

    #[test]
    fn names_become_valid_ros_names() {
        assert_eq!(ros_name("/model/pioneer/cmd_vel"), "/model/pioneer/cmd_vel");
        assert_eq!(
            ros_name("/world/w-1/model/2d.bot/scan"),
            "/world/w_1/model/_2d_bot/scan"
        );
        assert_eq!(ros_name("/a__b/~x"), "/a_b/_x");
        assert_eq!(ros_name("/a-_-b"), "/a_b");
    }
}
