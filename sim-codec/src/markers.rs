//! `visualization_msgs/msg/MarkerArray`: shapes for a viewer's 3D scene.

use super::catalog as t;
use super::write::{quaternion, time, vector3};
use super::{CdrWriter, RosType};
use sim_plugin_api::{Pose, SimTime, Vec3};

/// What a marker draws (`visualization_msgs/Marker`'s `type`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkerShape {
    /// `CUBE`: a box of edge lengths `scale`.
    Cube = 1,
    /// `SPHERE`: an ellipsoid of diameters `scale`.
    Sphere = 2,
    /// `CYLINDER`: diameters `scale.x`, `scale.y`, height `scale.z`, along Z.
    Cylinder = 3,
    /// `MESH_RESOURCE`: the mesh file of `mesh_resource`, scaled by `scale`.
    MeshResource = 10,
    /// `TRIANGLE_LIST`: `points` taken three at a time, scaled by `scale`.
    TriangleList = 11,
}

/// What a marker message does (`visualization_msgs/Marker`'s `action`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkerAction {
    /// `ADD`: creates or replaces the marker `ns`/`id`.
    Add = 0,
    /// `DELETEALL`: removes every marker shown so far.
    DeleteAll = 3,
}

/// One `visualization_msgs/Marker` (the fields simcore fills; the others are empty).
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    /// `header.stamp`.
    pub stamp: SimTime,
    /// `header.frame_id`: the frame `pose` is in.
    pub frame_id: String,
    /// Namespace; with `id` it names the marker.
    pub ns: String,
    /// Id within the namespace.
    pub id: i32,
    /// What it draws.
    pub shape: MarkerShape,
    /// What the message does.
    pub action: MarkerAction,
    /// Pose in `frame_id`.
    pub pose: Pose,
    /// Size (see [`MarkerShape`]).
    pub scale: Vec3,
    /// RGBA in [0, 1].
    pub color: [f32; 4],
    /// Whether the marker follows its frame as the frame moves.
    pub frame_locked: bool,
    /// Vertices of a [`MarkerShape::TriangleList`].
    pub points: Vec<Vec3>,
    /// The mesh of a [`MarkerShape::MeshResource`] (a `file://` or `package://` URI).
    pub mesh_resource: String,
}

impl Marker {
    /// A `DELETEALL` marker: what precedes a scene that replaces the previous one.
    pub fn delete_all(stamp: SimTime) -> Marker {
        Marker {
            stamp,
            frame_id: String::new(),
            ns: String::new(),
            id: 0,
            shape: MarkerShape::Cube,
            action: MarkerAction::DeleteAll,
            pose: Pose::IDENTITY,
            scale: Vec3::new(1.0, 1.0, 1.0),
            color: [0.0; 4],
            frame_locked: false,
            points: Vec::new(),
            mesh_resource: String::new(),
        }
    }
}

/// Encodes a `visualization_msgs/msg/MarkerArray` of `markers` (CDR, encapsulation header
/// included) at the end of `out`.
pub fn encode_markers(markers: &[Marker], out: &mut Vec<u8>) -> &'static RosType {
    let mut w = CdrWriter::new(out);
    w.sequence_len(markers.len());
    for m in markers {
        marker(&mut w, m);
    }
    &t::MARKER_ARRAY
}

fn marker(w: &mut CdrWriter<'_>, m: &Marker) {
    time(w, m.stamp); // std_msgs/Header
    w.string(&m.frame_id);
    w.string(&m.ns);
    w.i32(m.id);
    w.i32(m.shape as i32);
    w.i32(m.action as i32);
    vector3(w, &m.pose.position);
    quaternion(w, &m.pose.orientation);
    vector3(w, &m.scale);
    for c in m.color {
        w.f32(c);
    }
    w.i32(0); // lifetime: forever
    w.u32(0);
    w.bool(m.frame_locked);
    w.sequence_len(m.points.len());
    for p in &m.points {
        vector3(w, p);
    }
    w.sequence_len(0); // colors: `color` for every vertex
    w.string(""); // texture_resource
    time(w, SimTime::ZERO); // texture: sensor_msgs/CompressedImage, empty
    w.string("");
    w.string("");
    w.bytes(&[]);
    w.sequence_len(0); // uv_coordinates
    w.string(""); // text
    w.string(&m.mesh_resource);
    w.string(""); // mesh_file: visualization_msgs/MeshFile, empty
    w.bytes(&[]);
    w.bool(false); // mesh_use_embedded_materials: `color` applies
}
