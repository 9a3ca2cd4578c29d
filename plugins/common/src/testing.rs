//! Assertions the plugins' tests share (feature `testing`, for dev-dependencies): the errors
//! every sensor reports the same way.

use sim_plugin_api::{ErrorCode, PluginError};

/// Asserts that `e` is the configuration error of the sensor `name` about the element at
/// `path` (e.g. `<navsat><position_sensing>`) quoting the text `found` there.
#[track_caller]
pub fn assert_config_error(e: &PluginError, name: &str, path: &str, found: &str) {
    assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
    assert!(
        e.message.starts_with(name)
            && e.message.contains(path)
            && e.message.contains(&format!("\"{found}\"")),
        "{e}"
    );
}

/// Asserts that `e` is a run-time error of the sensor `name` (its message starts with the
/// name), e.g. an update whose link is gone.
#[track_caller]
pub fn assert_runtime_error(e: &PluginError, name: &str) {
    assert_eq!(e.code, ErrorCode::RUNTIME);
    assert!(e.message.starts_with(name), "{e}");
}
