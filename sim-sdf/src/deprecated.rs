//! Warnings for deprecated forms the reader accepts or ignores, where libsdformat warns about
//! them too (each a warning, not an error: the file still loads):
//!
//! - `<pose frame="...">` in SDF 1.7 and newer: 1.7 renamed the attribute `relative_to` (older
//!   files are converted silently); libsdformat ignores `frame` there with an "attribute not
//!   defined" warning, and so does this reader.
//! - `<use_parent_model_frame>` in a joint axis in SDF 1.7 and newer: 1.7 replaced it by
//!   `<xyz expressed_in="__model__">`; ignored with a warning, as libsdformat does.
//! - `<thread_pitch>` of a screw joint: deprecated since SDF 1.10 for `<screw_thread_pitch>`
//!   (libsdformat 13+ warns "SDF Element[thread_pitch] is deprecated"); still read when there
//!   is no `<screw_thread_pitch>`.
//! - `<initial_position>` in a joint axis: deprecated in SDF 1.8 and gone from 1.9 on, which
//!   every file is read as by libsdformat 12+ (an "element not defined" warning); ignored.

use roxmltree::Node;

use super::error::ErrorKind;
use super::reader::{Reader, tag};
use super::version::Version;

impl Reader<'_> {
    /// Warns (through the loader) when `node` is written in a deprecated form.
    pub(super) fn warn_deprecated(&self, node: Node) {
        let parent = node.parent_element().map(tag).unwrap_or("");
        let in_axis = matches!(parent, "axis" | "axis2");
        match tag(node) {
            "pose" if self.version >= Version::new(1, 7) => {
                let Some(frame) = node.attribute("frame") else {
                    return;
                };
                let hint = match node.attribute("relative_to") {
                    Some(r) => format!(
                        "remove `frame`: relative_to=\"{}\" gives the frame the pose is in",
                        r.trim()
                    ),
                    None => format!("write relative_to=\"{}\" instead", frame.trim()),
                };
                self.loader.warn(self.attr_error(
                    node,
                    "frame",
                    ErrorKind::Invalid,
                    format!(
                        "`frame` is not an attribute of <pose> since SDF 1.7 (it was renamed \
                         `relative_to`); this file declares {}, so it is ignored",
                        self.version
                    ),
                    hint,
                ));
            }
            "use_parent_model_frame" if in_axis && self.version >= Version::new(1, 7) => {
                let on = self.child_bool(node.parent_element().unwrap_or(node), tag(node), false);
                let hint = if matches!(on, Ok(true)) {
                    format!(
                        "to express the axis in the model frame, write <xyz \
                         expressed_in=\"__model__\"> in the <{parent}> instead"
                    )
                } else {
                    "remove it: the axis is expressed in the joint frame unless <xyz \
                     expressed_in> names another frame"
                        .to_string()
                };
                self.loader.warn(self.error(
                    node,
                    ErrorKind::Invalid,
                    format!(
                        "<use_parent_model_frame> was replaced in SDF 1.7 by <xyz expressed_in>; \
                         this file declares {}, so it is ignored",
                        self.version
                    ),
                    hint,
                ));
            }
            "thread_pitch" if parent == "joint" => {
                let screw = node
                    .parent_element()
                    .and_then(|j| self.child(j, "screw_thread_pitch"))
                    .is_some();
                let value = self.f64_of(Some(node)).ok().flatten();
                let (message, hint) = if screw {
                    (
                        "<thread_pitch> is deprecated since SDF 1.10 and is ignored beside \
                         <screw_thread_pitch>"
                            .to_string(),
                        "remove <thread_pitch>".to_string(),
                    )
                } else {
                    (
                        "<thread_pitch> (radians per metre, left-handed) is deprecated since SDF \
                         1.10 for <screw_thread_pitch> (metres per turn, right-handed)"
                            .to_string(),
                        match value.filter(|v| *v != 0.0 && v.is_finite()) {
                            Some(v) => format!(
                                "write <screw_thread_pitch>{}</screw_thread_pitch> instead (the \
                                 same thread: -2π / thread_pitch)",
                                short(-std::f64::consts::TAU / v)
                            ),
                            None => "write <screw_thread_pitch> (metres the child moves per \
                                     turn) instead"
                                .to_string(),
                        },
                    )
                };
                self.loader
                    .warn(self.error(node, ErrorKind::Invalid, message, hint));
            }
            "initial_position" if in_axis => {
                self.loader.warn(self.error(
                    node,
                    ErrorKind::Invalid,
                    "<initial_position> was deprecated in SDF 1.8 and removed in 1.9; it is \
                     ignored (the joint starts at position 0)",
                    "remove it; to start a joint elsewhere, pose the child link there (the \
                     joint's position is measured from where the links are placed)",
                ));
            }
            _ => {}
        }
    }
}

/// `v` with at most 9 significant digits, without trailing zeros.
fn short(v: f64) -> String {
    let r = format!("{v:.9e}").parse::<f64>().unwrap_or(v);
    format!("{r}")
}
