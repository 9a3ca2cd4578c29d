//! `simcore_msgs` forms (the package under `ros/simcore_msgs`).

use super::{header, pose, t, vector3};
use crate::{CdrWriter, RosType};
use sim_plugin_api::{
    Altimeter, ContactPoint, EntityFactory, Fiducial, Header, LogicalCameraFrustum,
    LogicalCameraImage, SensorMetrics,
};

pub(super) fn altimeter(h: &Header, m: &Altimeter, w: &mut CdrWriter<'_>) -> &'static RosType {
    header(w, h);
    w.f64(m.vertical_position);
    w.f64(m.vertical_velocity);
    w.f64(m.vertical_reference);
    &t::ALTIMETER
}

pub(super) fn logical_camera_image(
    h: &Header,
    m: &LogicalCameraImage,
    w: &mut CdrWriter<'_>,
) -> &'static RosType {
    header(w, h);
    pose(w, &m.pose);
    w.sequence_len(m.models.len());
    for model in &m.models {
        w.string(model.name.as_str());
        pose(w, &model.pose);
    }
    &t::LOGICAL_CAMERA_IMAGE
}

pub(super) fn frustum(
    h: &Header,
    m: &LogicalCameraFrustum,
    w: &mut CdrWriter<'_>,
) -> &'static RosType {
    header(w, h);
    w.f64(m.near_clip);
    w.f64(m.far_clip);
    w.f64(m.horizontal_fov);
    w.f64(m.aspect_ratio);
    &t::LOGICAL_CAMERA_FRUSTUM
}

pub(super) fn fiducials(h: &Header, v: &[Fiducial], w: &mut CdrWriter<'_>) -> &'static RosType {
    header(w, h);
    w.sequence_len(v.len());
    for f in v {
        w.i64(f.id);
        w.string(f.name.as_str());
        w.f64(f.range);
        w.f64(f.bearing);
        w.f64(f.elevation);
        pose(w, &f.pose);
    }
    &t::FIDUCIAL_ARRAY
}

pub(super) fn contacts(h: &Header, v: &[ContactPoint], w: &mut CdrWriter<'_>) -> &'static RosType {
    header(w, h);
    w.sequence_len(v.len());
    for c in v {
        w.u64(c.collision1.0);
        w.u64(c.collision2.0);
        vector3(w, &c.position);
        vector3(w, &c.normal);
        w.f64(c.depth);
        vector3(w, &c.force);
    }
    &t::CONTACTS
}

pub(super) fn sensor_metrics(
    h: &Header,
    m: &SensorMetrics,
    w: &mut CdrWriter<'_>,
) -> &'static RosType {
    header(w, h);
    w.string(m.name.as_str());
    w.f64(m.real_update_rate);
    w.f64(m.sim_update_rate);
    w.f64(m.nominal_update_rate);
    &t::SENSOR_METRICS
}

pub(super) fn entity_factory(m: &EntityFactory, w: &mut CdrWriter<'_>) -> &'static RosType {
    w.string(m.sdf.as_str());
    w.string(m.sdf_filename.as_str());
    w.string(m.name.as_str());
    pose(w, &m.pose);
    w.string(m.relative_to.as_str());
    w.bool(m.allow_renaming);
    &t::ENTITY_FACTORY
}
