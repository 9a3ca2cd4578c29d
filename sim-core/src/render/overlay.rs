//! What is drawn over the picture: each lidar's rays at the picture's time (its latest scan:
//! a dot at each hit, and a faint line from the sensor to the hits of at most 720 evenly
//! spread rays; rays that hit nothing are not drawn), and each camera's frustum (its four
//! edges and the rectangle where they end; logical cameras too).
//! Lines are drawn on top of the scene, without occlusion.

use super::picture::Picture;
use super::view::View;
use crate::runner::{Direction, Simulation};
use crate::sensors::SensorSetup;
use crate::transport::Subscription;
use sim_plugin_api::{LaserScan, Payload, Pose, Vec3};

/// Colour of lidar rays.
pub const RAY_COLOR: [u8; 3] = [0, 230, 255];
/// Colour of lidar hit points.
pub const HIT_COLOR: [u8; 3] = [0, 255, 160];
/// Colour of camera frusta.
pub const FRUSTUM_COLOR: [u8; 3] = [255, 0, 255];

/// Opacity of a ray's line.
const RAY_ALPHA: f32 = 0.3;
/// The most hits drawn of one scan (of a larger scan, every k-th).
const MAX_RAYS: usize = 100_000;
/// The most rays of one scan drawn as lines (of a larger scan, every k-th).
const MAX_LINES: usize = 720;
/// Segments are cut this far in front of the viewpoint, m.
const NEAR: f64 = 0.05;

/// The latest scan of each lidar of a simulation, kept while it steps.
#[derive(Debug)]
pub struct LidarTap {
    subs: Vec<Subscription>,
}

impl LidarTap {
    /// Listens to every lidar of `sim` (before it steps), keeping each one's latest scan: the
    /// sensors that declared a `LaserScan` on their topic, whatever their type, and those that
    /// declared nothing there (a plugin built before declarations), whose messages are
    /// looked at for scans.
    pub fn new(sim: &mut Simulation) -> LidarTap {
        let served = sim.served();
        let kind_of = |topic: &str| {
            served
                .topics
                .iter()
                .find(|t| t.topic == topic && t.direction == Direction::Out)
                .map(|t| t.kind)
        };
        let topics: Vec<String> = sim
            .sensors()
            .setups()
            .filter(|s| matches!(kind_of(&s.topic), Some(Some("LaserScan") | None)))
            .map(|s| s.topic.clone())
            .collect();
        let subs = topics
            .iter()
            .map(|t| sim.bus_mut().subscribe(t, 1))
            .collect();
        LidarTap { subs }
    }

    /// The latest scan of each lidar that has published one, in sensor order.
    pub fn scans(&self) -> Vec<LaserScan> {
        self.subs
            .iter()
            .filter_map(|s| {
                s.drain()
                    .into_iter()
                    .rev()
                    .find_map(|e| match e.message.payload.as_enum() {
                        Ok(Payload::LaserScan(scan)) => Some((**scan).clone()),
                        _ => None,
                    })
            })
            .collect()
    }
}

/// Draws the segment from `a` to `b` (world points) with `color` at opacity `alpha`: the
/// part in front of the camera, clipped to the picture.
pub fn draw_segment(pic: &mut Picture, view: &View, a: Vec3, b: Vec3, color: [u8; 3], alpha: f32) {
    let (mut ca, mut cb) = (view.to_camera(a), view.to_camera(b));
    if ca.x < NEAR && cb.x < NEAR {
        return;
    }
    // Cut at the near plane.
    if ca.x < NEAR || cb.x < NEAR {
        let t = (NEAR - ca.x) / (cb.x - ca.x);
        let cut = ca + (cb - ca).scale(t);
        if ca.x < NEAR {
            ca = cut;
        } else {
            cb = cut;
        }
    }
    let (Some(p), Some(q)) = (view.project_camera(ca), view.project_camera(cb)) else {
        return;
    };
    let (w, h) = (f64::from(pic.width), f64::from(pic.height));
    let Some((p, q)) = clip_to(p, q, (-1.0, -1.0), (w + 1.0, h + 1.0)) else {
        return;
    };
    let n = (q.0 - p.0).abs().max((q.1 - p.1).abs()).ceil().max(1.0) as usize;
    for k in 0..=n {
        let t = k as f64 / n as f64;
        let (u, v) = (p.0 + (q.0 - p.0) * t, p.1 + (q.1 - p.1) * t);
        pic.blend(u.floor() as i64, v.floor() as i64, color, alpha);
    }
}

/// The part of the 2-D segment `p`–`q` inside the box `lo`–`hi` (Liang–Barsky).
fn clip_to(
    p: (f64, f64),
    q: (f64, f64),
    lo: (f64, f64),
    hi: (f64, f64),
) -> Option<((f64, f64), (f64, f64))> {
    let (dx, dy) = (q.0 - p.0, q.1 - p.1);
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for (den, num) in [
        (-dx, p.0 - lo.0),
        (dx, hi.0 - p.0),
        (-dy, p.1 - lo.1),
        (dy, hi.1 - p.1),
    ] {
        if den == 0.0 {
            if num < 0.0 {
                return None;
            }
        } else {
            let t = num / den;
            if den < 0.0 {
                t0 = t0.max(t);
            } else {
                t1 = t1.min(t);
            }
        }
    }
    (t0 <= t1).then_some((
        (p.0 + dx * t0, p.1 + dy * t0),
        (p.0 + dx * t1, p.1 + dy * t1),
    ))
}

/// The unit direction of ray `(row, col)` of a scan, in the sensor frame.
fn ray_direction(scan: &LaserScan, row: u32, col: u32) -> Vec3 {
    let h = scan.angle_min + f64::from(col) * scan.angle_step;
    let v = if scan.vertical_count > 1 {
        scan.vertical_angle_min + f64::from(row) * scan.vertical_angle_step
    } else {
        scan.vertical_angle_min
    };
    Vec3::new(v.cos() * h.cos(), v.cos() * h.sin(), v.sin())
}

/// Draws the rays of each scan (see the module docs). Returns how many hits were drawn.
pub fn draw_rays(pic: &mut Picture, view: &View, scans: &[LaserScan]) -> usize {
    let mut hits = Vec::new();
    for scan in scans {
        let (cols, rows) = (scan.count.max(1), scan.vertical_count.max(1));
        let total = scan.ranges.len().min(cols as usize * rows as usize);
        let stride = total.div_ceil(MAX_RAYS).max(1);
        let line_stride = stride * (total / stride).div_ceil(MAX_LINES).max(1);
        let pose: Pose = scan.world_pose;
        for k in (0..total).step_by(stride) {
            let r = scan.ranges[k];
            if !(r.is_finite() && r > 0.0) {
                continue;
            }
            let (row, col) = ((k / cols as usize) as u32, (k % cols as usize) as u32);
            let d = pose.orientation.rotate(ray_direction(scan, row, col));
            let hit = pose.position + d.scale(r);
            if k % line_stride == 0 {
                draw_segment(pic, view, pose.position, hit, RAY_COLOR, RAY_ALPHA);
            }
            hits.push(hit);
        }
    }
    // The dots over every line.
    for hit in &hits {
        if let Some((u, v)) = view.project(*hit) {
            pic.blend(u.floor() as i64, v.floor() as i64, HIT_COLOR, 1.0);
        }
    }
    hits.len()
}

/// A camera's `<camera>` (or a logical camera's `<logical_camera>`): horizontal field of
/// view, image aspect (height / width) and far clip, with SDF's defaults.
fn camera_shape(sdf: &str) -> Option<(f64, f64, f64)> {
    let doc = roxmltree::Document::parse(sdf).ok()?;
    let element = |name: &str| doc.root_element().children().find(|n| n.has_tag_name(name));
    let (camera, logical) = match (element("camera"), element("logical_camera")) {
        (Some(c), _) => (c, false),
        (None, Some(l)) => (l, true),
        (None, None) => return None,
    };
    let value = |path: &[&str], default: f64| {
        let mut node = Some(camera);
        for p in path {
            node = node.and_then(|n| n.children().find(|c| c.has_tag_name(*p)));
        }
        node.and_then(|n| n.text())
            .and_then(|t| t.trim().parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v > 0.0)
            .unwrap_or(default)
    };
    let hfov = value(&["horizontal_fov"], 1.047).min(3.1);
    if logical {
        // `<aspect_ratio>` is width / height.
        let aspect = 1.0 / value(&["aspect_ratio"], 1.778);
        return Some((hfov, aspect, value(&["far"], 1.0)));
    }
    let aspect = value(&["image", "height"], 240.0) / value(&["image", "width"], 320.0);
    Some((hfov, aspect, value(&["clip", "far"], 100.0)))
}

/// Draws the frustum of each camera of `sim` (each sensor with a `<camera>` or a
/// `<logical_camera>`), as far as its far clip but at most `length` m. Returns how many were drawn.
pub fn draw_frusta(pic: &mut Picture, view: &View, sim: &Simulation, length: f64) -> usize {
    let mut drawn = 0;
    let setups: Vec<&SensorSetup> = sim.sensors().setups().collect();
    for s in setups {
        let Some((hfov, aspect, far)) = camera_shape(&s.sdf) else {
            continue;
        };
        let Some(link) = sim.physics().kinematics_of(s.link) else {
            continue;
        };
        let pose = link.pose.compose(s.pose);
        let depth = far.min(length);
        let (ty, tz) = ((hfov / 2.0).tan(), (hfov / 2.0).tan() * aspect);
        let corners: Vec<Vec3> = [(1.0, 1.0), (-1.0, 1.0), (-1.0, -1.0), (1.0, -1.0)]
            .iter()
            .map(|(sy, sz)| {
                pose.transform_point(Vec3::new(depth, sy * ty * depth, sz * tz * depth))
            })
            .collect();
        for (i, c) in corners.iter().enumerate() {
            draw_segment(pic, view, pose.position, *c, FRUSTUM_COLOR, 1.0);
            draw_segment(pic, view, *c, corners[(i + 1) % 4], FRUSTUM_COLOR, 1.0);
        }
        drawn += 1;
    }
    drawn
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_are_clipped_to_the_box_and_drawn_inside() {
        assert_eq!(
            clip_to((-10.0, 5.0), (20.0, 5.0), (0.0, 0.0), (10.0, 10.0)),
            Some(((0.0, 5.0), (10.0, 5.0)))
        );
        assert!(clip_to((-10.0, -5.0), (20.0, -5.0), (0.0, 0.0), (10.0, 10.0)).is_none());
        let view = View::looking_at(Vec3::new(-5.0, 0.0, 0.0), Vec3::ZERO, 40, 30).unwrap();
        let mut pic = Picture {
            width: 40,
            height: 30,
            rgb: vec![0; 40 * 30 * 3],
        };
        // A vertical segment through the point looked at, and one from behind the camera.
        draw_segment(
            &mut pic,
            &view,
            Vec3::new(0.0, 0.0, -1.0),
            Vec3::new(0.0, 0.0, 1.0),
            [255; 3],
            1.0,
        );
        assert_eq!(pic.pixel(20, 15), Some([255; 3]));
        assert_eq!(pic.pixel(5, 15), Some([0; 3]));
        draw_segment(
            &mut pic,
            &view,
            Vec3::new(-50.0, 0.0, 0.0),
            Vec3::new(0.0, 0.0, 0.0),
            [9; 3],
            1.0,
        );
        assert_eq!(
            pic.pixel(20, 15),
            Some([9; 3]),
            "seen end on, it ends at the centre"
        );
    }

    #[test]
    fn camera_shapes_are_read_with_sdf_defaults() {
        let (h, a, f) = camera_shape(
            "<sensor><camera><horizontal_fov>1.2</horizontal_fov><image><width>640</width>\
             <height>480</height></image><clip><far>50</far></clip></camera></sensor>",
        )
        .unwrap();
        assert_eq!((h, a, f), (1.2, 0.75, 50.0));
        assert_eq!(
            camera_shape("<sensor><camera/></sensor>"),
            Some((1.047, 0.75, 100.0))
        );
        assert_eq!(camera_shape("<sensor><lidar/></sensor>"), None);
        let (h, a, f) = camera_shape(
            "<sensor><logical_camera><far>8</far><horizontal_fov>1.05</horizontal_fov>\
             <aspect_ratio>2</aspect_ratio></logical_camera></sensor>",
        )
        .unwrap();
        assert_eq!((h, a, f), (1.05, 0.5, 8.0));
    }
}
