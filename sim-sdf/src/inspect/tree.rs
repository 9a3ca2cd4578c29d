//! The readable tree of a document.

use std::fmt::Write as _;

use super::json::{num, rpy};
use crate::Document;
use sim_world::{Frame, Geometry, Joint, Model, PluginSpec, Pose, World};

/// A readable tree of the document: models, links with their world poses, joints with the
/// links they join, frames, sensors and plugins.
pub fn to_tree(doc: &Document) -> String {
    let mut out = String::new();
    match doc {
        Document::World(w) => world(&mut out, w),
        Document::Worlds(ws) => {
            for w in ws {
                world(&mut out, w);
            }
        }
        Document::Model(m) => model(&mut out, m, Pose::IDENTITY, 0),
    }
    out
}

/// A pose as the tree prints it: `[x y z | roll pitch yaw]`.
fn pose_text(p: Pose) -> String {
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
}

/// The lines of world `w`.
fn world(out: &mut String, w: &World) {
    let _ = writeln!(out, "world {} (SDF {})", w.name, w.sdf_version);
    frames(out, "  ", &w.frames, Pose::IDENTITY);
    plugins(out, "  ", &w.plugins);
    for m in &w.models {
        model(out, m, Pose::IDENTITY, 1);
    }
    joints(out, "  ", &w.joints);
}

/// The lines of model `m`, whose pose is relative to a frame at `x_wp` in the world, indented
/// `depth` levels.
fn model(out: &mut String, m: &Model, x_wp: Pose, depth: usize) {
    let pad = "  ".repeat(depth);
    let x_wm = x_wp.compose(m.pose);
    let _ = writeln!(
        out,
        "{pad}model {}{} at {} (canonical link {})",
        m.name,
        if m.is_static { " (static)" } else { "" },
        pose_text(x_wm),
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
            pose_text(x_wl),
            num(l.inertial.mass)
        );
        let shapes = l
            .collisions
            .iter()
            .map(|c| ("collision", &c.name, &c.geometry));
        let shapes = shapes.chain(l.visuals.iter().map(|v| ("visual", &v.name, &v.geometry)));
        for (kind, name, geometry) in shapes {
            let _ = writeln!(out, "{pad}    {kind} {name} {}", geometry_name(geometry));
        }
        for s in &l.sensors {
            let _ = writeln!(
                out,
                "{pad}    sensor {} ({}) at {}",
                s.name,
                s.sensor_type,
                pose_text(x_wl.compose(s.pose))
            );
        }
        plugins(out, &format!("{pad}    "), &l.plugins);
    }
    let inner = format!("{pad}  ");
    joints(out, &inner, &m.joints);
    frames(out, &inner, &m.frames, x_wm);
    plugins(out, &inner, &m.plugins);
    for n in &m.models {
        model(out, n, x_wm, depth + 1);
    }
}

/// A line for each of `joints` (after `pad`): the links each joins.
fn joints(out: &mut String, pad: &str, joints: &[Joint]) {
    for j in joints {
        let _ = writeln!(
            out,
            "{pad}joint {} ({}) {} -> {}",
            j.name,
            j.kind.name(),
            j.parent_link,
            j.child_link
        );
    }
}

/// A line for each of `frames` (after `pad`), whose poses are relative to a frame at `x_w`
/// in the world.
fn frames(out: &mut String, pad: &str, frames: &[Frame], x_w: Pose) {
    for f in frames {
        let _ = writeln!(
            out,
            "{pad}frame {} attached to {} at {}",
            f.name,
            f.attached_to_body,
            pose_text(x_w.compose(f.pose))
        );
    }
}

/// A line for each of `plugins` (after `pad`).
fn plugins(out: &mut String, pad: &str, plugins: &[PluginSpec]) {
    for pl in plugins {
        let _ = writeln!(out, "{pad}plugin {} ({})", pl.name, pl.filename);
    }
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
