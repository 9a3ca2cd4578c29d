//! `simcore inspect`: the resolved contents of an SDF document, as a readable tree or as JSON
//! in the schema of the libsdformat oracle (`shared/tools/sdf-oracle`, README "JSON schema"),
//! so that the two readings of a file can be diffed.
//!
//! The JSON has the oracle's keys in the oracle's order, with these differences, all because
//! this reader does not keep the information:
//!
//! * `sdf_version` is the version the file declares (the oracle prints the version
//!   libsdformat converted it to);
//! * world-level joints (SDF 1.10, which libsdformat 12 drops) are listed under the world's
//!   `joints` key, present only when there are some;
//! * `resolve_errors` and `console` are always empty: a pose or frame that cannot be
//!   resolved is an error that stops loading (then `ok` is false), and warnings go to the log.
//!
//! Where this reader follows a newer SDFormat than the oracle's (1.9), values differ as the
//! newer libsdformat's would: a screw joint's `thread_pitch` is `-2*pi / screw_thread_pitch`
//! (libsdformat's `ThreadPitch()`, so a file's `<thread_pitch>` is printed as written, but
//! `<screw_thread_pitch>` and its 1 m/rev default count), and a link's `mass` under
//! `<inertial auto="true">` is the computed one.
//!
//! Numbers are printed as the oracle prints them (`%.12g`, `0` below 1e-12, non-finite values
//! as the strings `"inf"`, `"-inf"`, `"nan"`); poses are `[x, y, z, roll, pitch, yaw]` with
//! extrinsic X-Y-Z angles.

use std::fmt::Write as _;
use std::path::Path;

use crate::sdf::{Document, SdfError};
use crate::world::{
    Frame, Geometry, Joint, JointAxis, JointKind, LightKind, Link, Model, Pose, SensorSpec, Vec3,
    World,
};

/// A JSON value that keeps its keys in insertion order.
#[derive(Clone, Debug)]
enum J {
    Null,
    Bool(bool),
    Num(f64),
    Int(i64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(&'static str, J)>),
}

impl J {
    fn s(v: impl Into<String>) -> J {
        J::Str(v.into())
    }
    fn nums(v: &[f64]) -> J {
        J::Arr(v.iter().map(|x| J::Num(*x)).collect())
    }
    fn vec3(v: Vec3) -> J {
        J::nums(&v.to_array())
    }
    fn pose(p: Pose) -> J {
        let (r, pi, y) = rpy(p);
        J::nums(&[p.position.x, p.position.y, p.position.z, r, pi, y])
    }
}

/// Extrinsic X-Y-Z angles (R = Rz(yaw) Ry(pitch) Rx(roll)) of a pose's rotation, from its
/// matrix; at (or within 1e-7 rad of) pitch = ±pi/2, where only roll ∓ yaw is defined, yaw
/// is 0 (as ignition-math does).
fn rpy(p: Pose) -> (f64, f64, f64) {
    let m = p.orientation.normalized().to_matrix();
    let cp = m[0][0].hypot(m[1][0]);
    let pitch = (-m[2][0]).atan2(cp);
    if cp > 1e-7 {
        (m[2][1].atan2(m[2][2]), pitch, m[1][0].atan2(m[0][0]))
    } else if m[2][0] < 0.0 {
        // pitch = +pi/2: m01 = sin(roll - yaw), m11 = cos(roll - yaw).
        (m[0][1].atan2(m[1][1]), pitch, 0.0)
    } else {
        // pitch = -pi/2: m01 = -sin(roll + yaw), m11 = cos(roll + yaw).
        ((-m[0][1]).atan2(m[1][1]), pitch, 0.0)
    }
}

/// `%.12g` as C prints it; values below 1e-12 in magnitude are `0`.
fn num(v: f64) -> String {
    if v.is_nan() {
        return "\"nan\"".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "\"inf\"" } else { "\"-inf\"" }.into();
    }
    if v.abs() < 1e-12 {
        return "0".into();
    }
    let sci = format!("{:.11e}", v);
    let (mantissa, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let trim = |s: &str| -> String {
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s.to_string()
        }
    };
    if (-5..12).contains(&exp) {
        let decimals = (11 - exp).max(0) as usize;
        trim(&format!("{v:.decimals$}"))
    } else {
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", trim(mantissa), exp.abs())
    }
}

fn write(out: &mut String, v: &J, indent: usize) {
    let pad = "  ".repeat(indent + 1);
    let end = "  ".repeat(indent);
    match v {
        J::Null => out.push_str("null"),
        J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        J::Num(x) => out.push_str(&num(*x)),
        J::Int(i) => {
            let _ = write!(out, "{i}");
        }
        J::Str(s) => out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())),
        J::Arr(a) if a.is_empty() => out.push_str("[]"),
        J::Arr(a) if a.iter().all(|x| matches!(x, J::Num(_) | J::Int(_))) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write(out, x, indent);
            }
            out.push(']');
        }
        J::Arr(a) => {
            out.push_str("[\n");
            for (i, x) in a.iter().enumerate() {
                out.push_str(&pad);
                write(out, x, indent + 1);
                out.push_str(if i + 1 < a.len() { ",\n" } else { "\n" });
            }
            out.push_str(&end);
            out.push(']');
        }
        J::Obj(o) if o.is_empty() => out.push_str("{}"),
        J::Obj(o) => {
            out.push_str("{\n");
            for (i, (k, x)) in o.iter().enumerate() {
                let _ = write!(out, "{pad}\"{k}\": ");
                write(out, x, indent + 1);
                out.push_str(if i + 1 < o.len() { ",\n" } else { "\n" });
            }
            out.push_str(&end);
            out.push('}');
        }
    }
}

/// `scope::name`, or `name` at the top.
fn scoped(scope: &str, name: &str) -> String {
    if scope.is_empty() {
        name.to_string()
    } else {
        format!("{scope}::{name}")
    }
}

/// The oracle JSON of a document that was read.
pub fn to_json(doc: &Document) -> String {
    let (version, root_type, worlds, model) = match doc {
        Document::World(w) => (w.sdf_version.clone(), "world", vec![world_json(w)], None),
        Document::Worlds(ws) => (
            ws.first()
                .map(|w| w.sdf_version.clone())
                .unwrap_or_default(),
            "world",
            ws.iter().map(world_json).collect(),
            None,
        ),
        Document::Model(m) => (
            String::new(),
            "model",
            Vec::new(),
            Some(model_json(m, Pose::IDENTITY, "")),
        ),
    };
    let mut o = vec![
        ("ok", J::Bool(true)),
        ("sdf_version", J::s(version.clone())),
        ("original_version", J::s(version)),
        ("root_type", J::s(root_type)),
        ("worlds", J::Arr(worlds)),
    ];
    if let Some(m) = model {
        o.push(("model", m));
    }
    o.push(("resolve_errors", J::Arr(Vec::new())));
    o.push(("console", J::Arr(Vec::new())));
    let mut out = String::new();
    write(&mut out, &J::Obj(o), 0);
    out.push('\n');
    out
}

/// The oracle JSON of a document that could not be read (`"ok": false`), with every error of
/// the load in `errors` ([`SdfError::all`]). `code` is the error's [`crate::sdf::ErrorKind`];
/// there is no numeric code (`code_num` is null).
pub fn error_json(e: &SdfError) -> String {
    let errors = e.all().map(one_error_json).collect();
    let mut out = String::new();
    write(
        &mut out,
        &J::Obj(vec![
            ("ok", J::Bool(false)),
            ("errors", J::Arr(errors)),
            ("console", J::Arr(Vec::new())),
        ]),
        0,
    );
    out.push('\n');
    out
}

/// One entry of `errors`.
fn one_error_json(e: &SdfError) -> J {
    let file = e
        .file
        .as_deref()
        .and_then(Path::file_name)
        .map(|f| J::s(f.to_string_lossy()))
        .unwrap_or(J::Null);
    J::Obj(vec![
        ("code", J::s(format!("{:?}", e.kind))),
        ("code_num", J::Null),
        ("message", J::s(e.message.clone())),
        (
            "line",
            if e.line > 0 {
                J::Int(e.line.into())
            } else {
                J::Null
            },
        ),
        ("xml_path", J::Null),
        ("file", file),
    ])
}

fn plugins_json(plugins: &[crate::world::PluginSpec]) -> J {
    J::Arr(
        plugins
            .iter()
            .map(|p| {
                J::Obj(vec![
                    ("name", J::s(p.name.clone())),
                    ("filename", J::s(p.filename.clone())),
                ])
            })
            .collect(),
    )
}

fn world_json(w: &World) -> J {
    let mut o = vec![
        ("name", J::s(w.name.clone())),
        ("gravity", J::vec3(w.gravity)),
        ("magnetic_field", J::vec3(w.magnetic_field)),
    ];
    if let Some(s) = &w.spherical_coordinates {
        o.push((
            "spherical_coordinates",
            J::Obj(vec![
                ("surface_model", J::s(s.surface_model.clone())),
                ("world_frame_orientation", J::s("ENU")),
                ("latitude_deg", J::Num(s.latitude_deg)),
                ("longitude_deg", J::Num(s.longitude_deg)),
                ("elevation", J::Num(s.elevation)),
                ("heading_deg", J::Num(s.heading_deg)),
            ]),
        ));
    }
    o.push((
        "frames",
        J::Arr(
            w.frames
                .iter()
                .map(|f| frame_json(f, Pose::IDENTITY, ""))
                .collect(),
        ),
    ));
    o.push((
        "lights",
        J::Arr(
            w.lights
                .iter()
                .map(|l| {
                    J::Obj(vec![
                        ("name", J::s(l.name.clone())),
                        (
                            "type",
                            J::s(match l.kind {
                                LightKind::Directional => "directional",
                                LightKind::Point => "point",
                                LightKind::Spot => "spot",
                            }),
                        ),
                        ("raw_pose", J::pose(l.raw_pose.pose)),
                        ("relative_to", J::s(l.raw_pose.relative_to.clone())),
                        ("pose_in_world", J::pose(l.pose)),
                    ])
                })
                .collect(),
        ),
    ));
    o.push((
        "actors",
        J::Arr(w.actors.iter().map(|a| J::s(a.clone())).collect()),
    ));
    o.push(("plugins", plugins_json(&w.plugins)));
    o.push((
        "models",
        J::Arr(
            w.models
                .iter()
                .map(|m| model_json(m, Pose::IDENTITY, ""))
                .collect(),
        ),
    ));
    if !w.joints.is_empty() {
        o.push((
            "joints",
            J::Arr(
                w.joints
                    .iter()
                    .map(|j| joint_json(j, Pose::IDENTITY, "", &world_links(w)))
                    .collect(),
            ),
        ));
    }
    J::Obj(o)
}

/// World poses of every link of the world, by scoped name.
fn world_links(w: &World) -> Vec<(String, Pose)> {
    let mut out = Vec::new();
    fn rec(m: &Model, x_wp: Pose, scope: &str, out: &mut Vec<(String, Pose)>) {
        let x_wm = x_wp.compose(m.pose);
        let s = scoped(scope, &m.name);
        for l in &m.links {
            out.push((scoped(&s, &l.name), x_wm.compose(l.pose)));
        }
        for n in &m.models {
            rec(n, x_wm, &s, out);
        }
    }
    for m in &w.models {
        rec(m, Pose::IDENTITY, "", &mut out);
    }
    out
}

/// Poses in the model frame of every link of `m`, by name relative to it.
fn model_links(m: &Model) -> Vec<(String, Pose)> {
    let mut out: Vec<(String, Pose)> = m.links.iter().map(|l| (l.name.clone(), l.pose)).collect();
    for n in &m.models {
        for (k, p) in model_links(n) {
            out.push((format!("{}::{k}", n.name), n.pose.compose(p)));
        }
    }
    out
}

/// A `relative_to` as the oracle shows it: a frame's empty relative_to is its attached_to.
fn frame_json(f: &Frame, x_ws: Pose, scope: &str) -> J {
    let relative_to = if f.raw_pose.relative_to.is_empty() {
        f.attached_to.clone()
    } else {
        f.raw_pose.relative_to.clone()
    };
    J::Obj(vec![
        ("name", J::s(f.name.clone())),
        ("scoped_name", J::s(scoped(scope, &f.name))),
        ("attached_to", J::s(f.attached_to.clone())),
        ("attached_to_body", J::s(f.attached_to_body.clone())),
        ("raw_pose", J::pose(f.raw_pose.pose)),
        ("relative_to", J::s(relative_to)),
        ("pose_in_world", J::pose(x_ws.compose(f.pose))),
    ])
}

/// `x_wp`: the world pose of the frame `m.pose` is relative to.
fn model_json(m: &Model, x_wp: Pose, parent_scope: &str) -> J {
    let s = scoped(parent_scope, &m.name);
    let x_wm = x_wp.compose(m.pose);
    let links = model_links(m);
    J::Obj(vec![
        ("name", J::s(m.name.clone())),
        ("scoped_name", J::s(s.clone())),
        ("static", J::Bool(m.is_static)),
        ("canonical_link", J::s(m.canonical_link.clone())),
        ("placement_frame", J::s(m.placement_frame.clone())),
        ("raw_pose", J::pose(m.raw_pose.pose)),
        ("relative_to", J::s(m.raw_pose.relative_to.clone())),
        ("pose_in_world", J::pose(x_wm)),
        (
            "links",
            J::Arr(m.links.iter().map(|l| link_json(l, x_wm, &s)).collect()),
        ),
        (
            "joints",
            J::Arr(
                m.joints
                    .iter()
                    .map(|j| joint_json(j, x_wm, &s, &links))
                    .collect(),
            ),
        ),
        (
            "frames",
            J::Arr(m.frames.iter().map(|f| frame_json(f, x_wm, &s)).collect()),
        ),
        ("plugins", plugins_json(&m.plugins)),
        (
            "models",
            J::Arr(m.models.iter().map(|n| model_json(n, x_wm, &s)).collect()),
        ),
    ])
}

fn shape_json(name: &str, raw: &crate::world::RawPose, pose: Pose, x_wl: Pose, g: &Geometry) -> J {
    J::Obj(vec![
        ("name", J::s(name)),
        ("raw_pose", J::pose(raw.pose)),
        ("relative_to", J::s(raw.relative_to.clone())),
        ("pose_in_world", J::pose(x_wl.compose(pose))),
        ("geometry", geometry_json(g)),
    ])
}

fn geometry_json(g: &Geometry) -> J {
    let mut o = Vec::new();
    match g {
        Geometry::Box { size } => {
            o.push(("type", J::s("box")));
            o.push(("size", J::vec3(*size)));
        }
        Geometry::Sphere { radius } => {
            o.push(("type", J::s("sphere")));
            o.push(("radius", J::Num(*radius)));
        }
        Geometry::Cylinder { radius, length } => {
            o.push(("type", J::s("cylinder")));
            o.push(("radius", J::Num(*radius)));
            o.push(("length", J::Num(*length)));
        }
        Geometry::Capsule { radius, length } => {
            o.push(("type", J::s("capsule")));
            o.push(("radius", J::Num(*radius)));
            o.push(("length", J::Num(*length)));
        }
        Geometry::Ellipsoid { radii } => {
            o.push(("type", J::s("ellipsoid")));
            o.push(("radii", J::vec3(*radii)));
        }
        Geometry::Plane { normal, size } => {
            o.push(("type", J::s("plane")));
            o.push(("normal", J::vec3(*normal)));
            o.push(("size", J::nums(size)));
        }
        Geometry::Cone { radius, length } => {
            o.push(("type", J::s("cone")));
            o.push(("radius", J::Num(*radius)));
            o.push(("length", J::Num(*length)));
        }
        Geometry::Mesh(m) => {
            o.push(("type", J::s("mesh")));
            o.push(("uri", J::s(m.resource.uri.clone())));
            o.push(("scale", J::vec3(m.scale)));
            o.push(("submesh", J::s(m.submesh.clone().unwrap_or_default())));
            o.push(("center_submesh", J::Bool(m.center_submesh)));
        }
        Geometry::Heightmap(h) => {
            o.push(("type", J::s("heightmap")));
            o.push(("uri", J::s(h.resource.uri.clone())));
            o.push(("size", J::vec3(h.size)));
            o.push(("pos", J::vec3(h.pos)));
        }
        Geometry::Polyline(lines) => {
            o.push(("type", J::s("polyline")));
            o.push((
                "polylines",
                J::Arr(
                    lines
                        .iter()
                        .map(|l| {
                            J::Obj(vec![
                                (
                                    "points",
                                    J::Arr(l.points.iter().map(|p| J::nums(p)).collect()),
                                ),
                                ("height", J::Num(l.height)),
                            ])
                        })
                        .collect(),
                ),
            ));
        }
        Geometry::Empty => o.push(("type", J::s("empty"))),
    }
    J::Obj(o)
}

fn link_json(l: &Link, x_wm: Pose, scope: &str) -> J {
    let s = scoped(scope, &l.name);
    let x_wl = x_wm.compose(l.pose);
    J::Obj(vec![
        ("name", J::s(l.name.clone())),
        ("scoped_name", J::s(s.clone())),
        ("raw_pose", J::pose(l.raw_pose.pose)),
        ("relative_to", J::s(l.raw_pose.relative_to.clone())),
        ("pose_in_world", J::pose(x_wl)),
        ("mass", J::Num(l.inertial.mass)),
        (
            "collisions",
            J::Arr(
                l.collisions
                    .iter()
                    .map(|c| shape_json(&c.name, &c.raw_pose, c.pose, x_wl, &c.geometry))
                    .collect(),
            ),
        ),
        (
            "visuals",
            J::Arr(
                l.visuals
                    .iter()
                    .map(|v| shape_json(&v.name, &v.raw_pose, v.pose, x_wl, &v.geometry))
                    .collect(),
            ),
        ),
        (
            "sensors",
            J::Arr(l.sensors.iter().map(|x| sensor_json(x, x_wl)).collect()),
        ),
    ])
}

/// `links`: the poses of the links the joint may name, in the frame whose world pose is
/// `x_wm` (the model's, or the world's for world joints).
fn joint_json(j: &Joint, x_wm: Pose, scope: &str, links: &[(String, Pose)]) -> J {
    let x_mc = links
        .iter()
        .find(|(n, _)| *n == j.child_link)
        .map_or(Pose::IDENTITY, |(_, p)| *p);
    let x_mj = x_mc.compose(j.pose);
    let x_wj = x_wm.compose(x_mj);
    let axis = |a: &Option<JointAxis>| match a {
        None => J::Null,
        Some(a) => {
            let in_model = x_mj.orientation.rotate(a.xyz_in_joint);
            J::Obj(vec![
                ("xyz", J::vec3(a.xyz)),
                ("expressed_in", J::s(a.expressed_in.clone())),
                ("xyz_in_joint", J::vec3(a.xyz_in_joint)),
                ("xyz_in_model", J::vec3(in_model)),
                ("xyz_in_world", J::vec3(x_wm.orientation.rotate(in_model))),
                ("lower", J::Num(a.lower)),
                ("upper", J::Num(a.upper)),
                ("effort", J::Num(a.effort)),
                ("velocity", J::Num(a.velocity)),
                ("damping", J::Num(a.damping)),
                ("friction", J::Num(a.friction)),
            ])
        }
    };
    let s = scoped(scope, &j.name);
    let mut fields = vec![
        ("name", J::s(j.name.clone())),
        ("scoped_name", J::s(s)),
        ("type", J::s(j.kind.name())),
        ("parent", J::s(j.parent.clone())),
        ("child", J::s(j.child.clone())),
        ("parent_link", J::s(j.parent_link.clone())),
        ("child_link", J::s(j.child_link.clone())),
        ("raw_pose", J::pose(j.raw_pose.pose)),
        ("relative_to", J::s(j.raw_pose.relative_to.clone())),
        ("pose_in_world", J::pose(x_wj)),
    ];
    if j.kind == JointKind::Screw {
        // libsdformat's `ThreadPitch()`: the Gazebo-classic value, rad/m of a left-handed
        // thread.
        fields.push((
            "thread_pitch",
            J::Num(-std::f64::consts::TAU / j.screw_thread_pitch),
        ));
    }
    fields.extend([
        ("axis", axis(&j.axis)),
        ("axis2", axis(&j.axis2)),
        (
            "sensors",
            J::Arr(j.sensors.iter().map(|x| sensor_json(x, x_wj)).collect()),
        ),
    ]);
    J::Obj(fields)
}

/// libsdformat's canonical name of a sensor type (aliases such as `ray` and `gps` mapped).
pub fn canonical_sensor_type(t: &str) -> &str {
    match t {
        "ray" | "lidar" => "lidar",
        "gpu_ray" | "gpu_lidar" => "gpu_lidar",
        "depth" | "depth_camera" => "depth_camera",
        "rgbd" | "rgbd_camera" => "rgbd_camera",
        "thermal" | "thermal_camera" => "thermal_camera",
        "segmentation" | "segmentation_camera" => "segmentation_camera",
        "boundingbox" | "boundingbox_camera" => "boundingbox_camera",
        "wideanglecamera" | "wide_angle_camera" => "wide_angle_camera",
        "gps" | "navsat" => "navsat",
        "forcetorque" | "force_torque" => "force_torque",
        other => other,
    }
}

/// A pixel format as libsdformat names it.
fn pixel_format(f: &str) -> String {
    match f {
        "L8" | "L_INT8" => "L_INT8",
        "L16" | "L_INT16" => "L_INT16",
        "R8G8B8" | "RGB_INT8" => "RGB_INT8",
        "B8G8R8" | "BGR_INT8" => "BGR_INT8",
        "R16G16B16" | "RGB_INT16" => "RGB_INT16",
        "R_FLOAT16" => "R_FLOAT16",
        "R_FLOAT32" => "R_FLOAT32",
        "RGB_FLOAT32" => "RGB_FLOAT32",
        "BAYER_RGGB8" => "BAYER_RGGB8",
        "BAYER_BGGR8" => "BAYER_BGGR8",
        "BAYER_GBRG8" => "BAYER_GBRG8",
        "BAYER_GRBG8" => "BAYER_GRBG8",
        other => other,
    }
    .to_string()
}

/// The child element `path` (`a/b/c`) of `node`, SDF elements only.
fn find<'a>(node: roxmltree::Node<'a, 'a>, path: &str) -> Option<roxmltree::Node<'a, 'a>> {
    path.split('/').try_fold(node, |n, name| {
        n.children().find(|c| {
            c.is_element() && c.tag_name().name() == name && c.tag_name().namespace().is_none()
        })
    })
}

fn f64_at(node: Option<roxmltree::Node>, path: &str, default: f64) -> f64 {
    node.and_then(|n| find(n, path))
        .and_then(|n| n.text())
        .and_then(|t| t.trim().parse().ok())
        .unwrap_or(default)
}

fn sensor_json(x: &SensorSpec, x_wp: Pose) -> J {
    let ty = canonical_sensor_type(&x.sensor_type);
    let mut o = vec![
        ("name", J::s(x.name.clone())),
        ("type", J::s(ty)),
        ("type_attr", J::s(x.sensor_type.clone())),
        ("update_rate", J::Num(x.update_rate)),
        ("topic", J::s(x.topic.clone().unwrap_or_default())),
        ("raw_pose", J::pose(x.raw_pose.pose)),
        ("relative_to", J::s(x.raw_pose.relative_to.clone())),
        ("pose_in_world", J::pose(x_wp.compose(x.pose))),
    ];
    let doc = roxmltree::Document::parse(&x.sdf).ok();
    let root = doc.as_ref().map(|d| d.root_element());
    let camera_like = matches!(
        ty,
        "camera"
            | "depth_camera"
            | "rgbd_camera"
            | "thermal_camera"
            | "segmentation_camera"
            | "boundingbox_camera"
            | "wide_angle_camera"
    );
    if camera_like {
        let cam = root.and_then(|r| find(r, "camera"));
        let format = cam
            .and_then(|c| find(c, "image/format"))
            .and_then(|n| n.text())
            .map(str::trim)
            .unwrap_or("R8G8B8");
        o.push((
            "camera",
            J::Obj(vec![
                (
                    "horizontal_fov",
                    J::Num(f64_at(cam, "horizontal_fov", 1.047)),
                ),
                ("width", J::Int(f64_at(cam, "image/width", 320.0) as i64)),
                ("height", J::Int(f64_at(cam, "image/height", 240.0) as i64)),
                ("format", J::s(pixel_format(format))),
                ("near", J::Num(f64_at(cam, "clip/near", 0.1))),
                ("far", J::Num(f64_at(cam, "clip/far", 100.0))),
            ]),
        ));
    }
    if ty == "lidar" || ty == "gpu_lidar" {
        let l = root.and_then(|r| find(r, "lidar").or_else(|| find(r, "ray")));
        o.push((
            "lidar",
            J::Obj(vec![
                (
                    "horizontal_samples",
                    J::Int(f64_at(l, "scan/horizontal/samples", 640.0) as i64),
                ),
                (
                    "horizontal_min_angle",
                    J::Num(f64_at(l, "scan/horizontal/min_angle", 0.0)),
                ),
                (
                    "horizontal_max_angle",
                    J::Num(f64_at(l, "scan/horizontal/max_angle", 0.0)),
                ),
                (
                    "vertical_samples",
                    J::Int(f64_at(l, "scan/vertical/samples", 1.0) as i64),
                ),
                (
                    "vertical_min_angle",
                    J::Num(f64_at(l, "scan/vertical/min_angle", 0.0)),
                ),
                (
                    "vertical_max_angle",
                    J::Num(f64_at(l, "scan/vertical/max_angle", 0.0)),
                ),
                ("range_min", J::Num(f64_at(l, "range/min", 0.0))),
                ("range_max", J::Num(f64_at(l, "range/max", 0.0))),
            ]),
        ));
    }
    o.push(("plugins", plugins_json(&x.plugins)));
    J::Obj(o)
}

/// A readable tree of the document: models, links with their world poses, joints with the
/// links they join, frames, sensors and plugins.
pub fn to_tree(doc: &Document) -> String {
    let mut out = String::new();
    let p = |p: Pose| {
        let (r, pi, y) = rpy(p);
        format!(
            "[{} {} {} | {} {} {}]",
            num(p.position.x),
            num(p.position.y),
            num(p.position.z),
            num(r),
            num(pi),
            num(y)
        )
    };
    fn model(out: &mut String, m: &Model, x_wp: Pose, depth: usize, p: &dyn Fn(Pose) -> String) {
        let pad = "  ".repeat(depth);
        let x_wm = x_wp.compose(m.pose);
        let _ = writeln!(
            out,
            "{pad}model {}{} at {} (canonical link {})",
            m.name,
            if m.is_static { " (static)" } else { "" },
            p(x_wm),
            if m.canonical_link.is_empty() {
                "none"
            } else {
                &m.canonical_link
            }
        );
        for l in &m.links {
            let x_wl = x_wm.compose(l.pose);
            let _ = writeln!(
                out,
                "{pad}  link {} at {} mass {}",
                l.name,
                p(x_wl),
                num(l.inertial.mass)
            );
            for c in &l.collisions {
                let _ = writeln!(
                    out,
                    "{pad}    collision {} {}",
                    c.name,
                    geometry_name(&c.geometry)
                );
            }
            for v in &l.visuals {
                let _ = writeln!(
                    out,
                    "{pad}    visual {} {}",
                    v.name,
                    geometry_name(&v.geometry)
                );
            }
            for s in &l.sensors {
                let _ = writeln!(
                    out,
                    "{pad}    sensor {} ({}) at {}",
                    s.name,
                    s.sensor_type,
                    p(x_wl.compose(s.pose))
                );
            }
            for pl in &l.plugins {
                let _ = writeln!(out, "{pad}    plugin {} ({})", pl.name, pl.filename);
            }
        }
        for j in &m.joints {
            let _ = writeln!(
                out,
                "{pad}  joint {} ({}) {} -> {}",
                j.name,
                j.kind.name(),
                j.parent_link,
                j.child_link
            );
        }
        for f in &m.frames {
            let _ = writeln!(
                out,
                "{pad}  frame {} attached to {} at {}",
                f.name,
                f.attached_to_body,
                p(x_wm.compose(f.pose))
            );
        }
        for pl in &m.plugins {
            let _ = writeln!(out, "{pad}  plugin {} ({})", pl.name, pl.filename);
        }
        for n in &m.models {
            model(out, n, x_wm, depth + 1, p);
        }
    }
    let world = |out: &mut String, w: &crate::world::World| {
        let _ = writeln!(out, "world {} (SDF {})", w.name, w.sdf_version);
        for f in &w.frames {
            let _ = writeln!(
                out,
                "  frame {} attached to {} at {}",
                f.name,
                f.attached_to_body,
                p(f.pose)
            );
        }
        for pl in &w.plugins {
            let _ = writeln!(out, "  plugin {} ({})", pl.name, pl.filename);
        }
        for m in &w.models {
            model(out, m, Pose::IDENTITY, 1, &p);
        }
        for j in &w.joints {
            let _ = writeln!(
                out,
                "  joint {} ({}) {} -> {}",
                j.name,
                j.kind.name(),
                j.parent_link,
                j.child_link
            );
        }
    };
    match doc {
        Document::World(w) => world(&mut out, w),
        Document::Worlds(ws) => {
            for w in ws {
                world(&mut out, w);
            }
        }
        Document::Model(m) => model(&mut out, m, Pose::IDENTITY, 0, &p),
    }
    out
}

fn geometry_name(g: &Geometry) -> &'static str {
    match g {
        Geometry::Box { .. } => "box",
        Geometry::Sphere { .. } => "sphere",
        Geometry::Cylinder { .. } => "cylinder",
        Geometry::Capsule { .. } => "capsule",
        Geometry::Ellipsoid { .. } => "ellipsoid",
        Geometry::Plane { .. } => "plane",
        Geometry::Cone { .. } => "cone",
        Geometry::Mesh(_) => "mesh",
        Geometry::Heightmap(_) => "heightmap",
        Geometry::Polyline(_) => "polyline",
        Geometry::Empty => "empty",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_print_as_printf_g12() {
        for (v, s) in [
            (0.0, "0"),
            (1e-13, "0"),
            (1.0, "1"),
            (-9.8, "-9.8"),
            (0.1 + 0.2, "0.3"),
            (6e-06, "6e-06"),
            (std::f64::consts::FRAC_PI_2, "1.57079632679"),
            (1e16, "1e+16"),
            (123456789012.0, "123456789012"),
            (1234567890123.0, "1.23456789012e+12"),
            (f64::INFINITY, "\"inf\""),
        ] {
            assert_eq!(num(v), s, "{v}");
        }
    }

    #[test]
    fn angles_survive_gimbal_lock() {
        use crate::world::Quat;
        for (r, pi, y) in [
            (0.0, std::f64::consts::FRAC_PI_2, -0.349),
            (0.3, -std::f64::consts::FRAC_PI_2, 0.2),
            (0.1, 0.2, 0.3),
            (3.0, -1.2, -2.5),
        ] {
            let q = Quat::from_rpy(r, pi, y);
            let (a, b, c) = rpy(Pose::new(Vec3::ZERO, q));
            let (m, n) = (q.to_matrix(), Quat::from_rpy(a, b, c).to_matrix());
            for i in 0..3 {
                for j in 0..3 {
                    assert!(
                        (m[i][j] - n[i][j]).abs() < 1e-9,
                        "{r} {pi} {y} -> {a} {b} {c}"
                    );
                }
            }
        }
    }
}
