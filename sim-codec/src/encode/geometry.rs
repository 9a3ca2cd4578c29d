//! `geometry_msgs`, `tf2_msgs` and `nav_msgs` forms.

use super::{EncodeOptions, header, pose, t, vector3};
use crate::{CdrWriter, RosType};
use sim_plugin_api::{Header, NamedPose, Odometry, Twist, Vec3, Wrench};

/// The parent frame of a transform: the header's, `world` when it has none (world poses).
fn parent_frame(h: &Header) -> &str {
    if h.frame_id.is_empty() {
        "world"
    } else {
        h.frame_id.as_str()
    }
}

pub(super) fn vector3_stamped(h: &Header, v: &Vec3, w: &mut CdrWriter<'_>) -> &'static RosType {
    header(w, h);
    vector3(w, v);
    &t::VECTOR3_STAMPED
}

fn twist_fields(m: &Twist, w: &mut CdrWriter<'_>) {
    vector3(w, &m.linear);
    vector3(w, &m.angular);
}

pub(super) fn twist(m: &Twist, w: &mut CdrWriter<'_>) -> &'static RosType {
    twist_fields(m, w);
    &t::TWIST
}

fn transform(h: &Header, p: &NamedPose, w: &mut CdrWriter<'_>) {
    super::time(w, h.stamp);
    w.string(parent_frame(h));
    w.string(p.name.as_str());
    pose(w, &p.pose);
}

pub(super) fn transform_stamped(
    h: &Header,
    p: &NamedPose,
    w: &mut CdrWriter<'_>,
) -> &'static RosType {
    transform(h, p, w);
    &t::TRANSFORM_STAMPED
}

pub(super) fn tf_message(h: &Header, v: &[NamedPose], w: &mut CdrWriter<'_>) -> &'static RosType {
    w.sequence_len(v.len());
    for p in v {
        transform(h, p, w);
    }
    &t::TF_MESSAGE
}

pub(super) fn wrench_stamped(h: &Header, m: &Wrench, w: &mut CdrWriter<'_>) -> &'static RosType {
    header(w, h);
    vector3(w, &m.force);
    vector3(w, &m.torque);
    &t::WRENCH_STAMPED
}

pub(super) fn odometry(
    h: &Header,
    m: &Odometry,
    options: &EncodeOptions<'_>,
    w: &mut CdrWriter<'_>,
) -> &'static RosType {
    header(w, h);
    w.string(options.child_frame_id);
    pose(w, &m.pose);
    w.f64_array(&[0.0; 36]);
    twist_fields(&m.twist, w);
    w.f64_array(&[0.0; 36]);
    &t::ODOMETRY
}
