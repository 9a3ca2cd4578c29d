//! The oracle JSON of a document (see the module documentation of `inspect`).

use std::path::Path;

use super::json::{J, scoped, write};
use crate::{Document, SdfError};
use sim_world::{
    Frame, Geometry, Joint, JointAxis, JointKind, LightKind, Link, Model, Pose, SensorSpec, World,
};

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
/// the load in `errors` ([`SdfError::all`]). `code` is the error's [`crate::ErrorKind`];
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

fn plugins_json(plugins: &[sim_world::PluginSpec]) -> J {
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

fn shape_json(name: &str, raw: &sim_world::RawPose, pose: Pose, x_wl: Pose, g: &Geometry) -> J {
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
