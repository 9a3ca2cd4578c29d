//! The scan extension against the same rays cast one by one: bit for bit the same hits
//! (entity, distance, normal) on worlds of every kind of shape, collision and visual, for
//! grids that wrap around, stand steep or tilted, start inside shapes, and for bands of any
//! height.

use super::*;
use sim_plugin_api::{ALL_VISIBLE, Quat, ScanAngles, ScanView, VisibilityRays};

/// The hits of `view`'s rays cast one by one, as a lidar without the extension casts them.
fn cast_grid(p: &Physics, view: &ScanView) -> Vec<RayHit> {
    cast_rows(p, view, 0, view.vertical.samples)
}

/// The hits of `view` scanned in bands of `band` rows.
fn scan_grid(p: &Physics, view: &ScanView, band: usize) -> Vec<RayHit> {
    let w = view.horizontal.samples as usize;
    let mut hits = vec![RayHit::MISS; w * view.vertical.samples as usize];
    for (k, rows) in hits.chunks_mut(band * w).enumerate() {
        let seen = p.scan_rows(view, (k * band) as u32, rows);
        let hit = rows.iter().filter(|h| h.distance.is_finite()).count();
        assert_eq!(seen as usize, hit, "the hits a band counts");
    }
    hits
}

/// Every kind of shape, as collisions and as visuals (some of them flagged), on the ground
/// plane, one of them around the sensor.
const SHAPES: &str = r#"
<model name="boxes"><static>true</static><link name="l">
  <collision name="a"><pose>4 0 0.5 0 0 0</pose><geometry><box><size>1 1 1</size></box></geometry></collision>
  <visual name="a"><pose>4 0 0.5 0 0 0</pose><geometry><box><size>1 1 1</size></box></geometry></visual>
  <collision name="b"><pose>-6 -1.5 0.7 0.3 0.2 0.7</pose><geometry><box><size>0.8 1.2 1.4</size></box></geometry></collision>
  <visual name="b"><pose>-6 -1.5 0.7 0.3 0.2 0.7</pose><geometry><box><size>0.8 1.2 1.4</size></box></geometry><visibility_flags>2</visibility_flags></visual>
  <collision name="c"><pose>1 9 1 0.5 -0.4 1.2</pose><geometry><box><size>2 0.5 1</size></box></geometry></collision>
  <visual name="c"><pose>1 9 1 0.5 -0.4 1.2</pose><geometry><box><size>2 0.5 1</size></box></geometry></visual>
</link></model>
<model name="round"><static>true</static><link name="l">
  <collision name="s"><pose>5 1.6 0.6 0 0 0</pose><geometry><sphere><radius>0.6</radius></sphere></geometry></collision>
  <visual name="s"><pose>5 1.6 0.6 0 0 0</pose><geometry><sphere><radius>0.6</radius></sphere></geometry></visual>
  <collision name="y"><pose>-3 -4 0.5 0.4 0 0</pose><geometry><cylinder><radius>0.4</radius><length>1</length></cylinder></geometry></collision>
  <visual name="y"><pose>-3 -4 0.5 0.4 0 0</pose><geometry><cylinder><radius>0.4</radius><length>1</length></cylinder></geometry></visual>
  <collision name="k"><pose>0.5 -3 0.8 0 1.2 0</pose><geometry><capsule><radius>0.3</radius><length>0.8</length></capsule></geometry></collision>
  <visual name="k"><pose>0.5 -3 0.8 0 1.2 0</pose><geometry><capsule><radius>0.3</radius><length>0.8</length></capsule></geometry></visual>
  <collision name="e"><pose>11 -1 1 0 0 0.5</pose><geometry><ellipsoid><radii>1 0.5 0.7</radii></ellipsoid></geometry></collision>
  <visual name="e"><pose>11 -1 1 0 0 0.5</pose><geometry><ellipsoid><radii>1 0.5 0.7</radii></ellipsoid></geometry></visual>
</link></model>
<model name="mesh"><static>true</static><link name="l">
  <collision name="m"><pose>-2 3.5 0 0 0 0.3</pose><geometry><polyline><point>-0.5 -0.5</point><point>0.5 -0.4</point><point>0.2 0.6</point><height>1.5</height></polyline></geometry></collision>
  <visual name="m"><pose>-2 3.5 0 0 0 0.3</pose><geometry><polyline><point>-0.5 -0.5</point><point>0.5 -0.4</point><point>0.2 0.6</point><height>1.5</height></polyline></geometry></visual>
</link></model>
<model name="around"><static>true</static><link name="l">
  <collision name="r"><pose>0 0 1 0 0 0</pose><geometry><box><size>0.3 0.3 0.3</size></box></geometry></collision>
  <visual name="r"><pose>0 0 1 0 0 0</pose><geometry><box><size>0.3 0.3 0.3</size></box></geometry></visual>
</link></model>
<model name="falling"><pose>2 -2 3 0.2 0.3 0.4</pose><link name="l"><inertial><mass>1</mass></inertial>
  <collision name="c"><geometry><box><size>0.5 0.5 0.5</size></box></geometry></collision>
  <visual name="v"><geometry><box><size>0.5 0.5 0.5</size></box></geometry></visual>
</link></model>"#;

/// 150 boxes yawed, pitched and rolled at random around the origin.
fn scattered() -> String {
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut s = String::from(r#"<model name="scattered"><static>true</static><link name="l">"#);
    for k in 0..150 {
        let (x, y) = (-25.0 + 50.0 * next(), -25.0 + 50.0 * next());
        let (r, p, yaw) = (next(), next(), 6.3 * next());
        let size = 0.2 + 1.5 * next();
        s += &format!(
            r#"<collision name="c{k}"><pose>{x} {y} {} {r} {p} {yaw}</pose><geometry><box><size>{size} {} 1</size></box></geometry></collision>"#,
            0.3 + next(),
            0.2 + next()
        );
    }
    s + "</link></model>"
}

fn angles(min: f64, max: f64, samples: u32) -> ScanAngles {
    ScanAngles {
        min,
        step: if samples > 1 {
            (max - min) / f64::from(samples - 1)
        } else {
            0.0
        },
        samples,
    }
}

fn scan_view(pose: Pose, h: ScanAngles, v: ScanAngles, start: f64, target: RayTarget) -> ScanView {
    ScanView {
        pose,
        horizontal: h,
        vertical: v,
        start,
        options: RayCastOptions {
            max_distance: 60.0,
            target,
            exclude_model: EntityId::NONE,
        },
        mask: ALL_VISIBLE,
    }
}

/// The views of the comparisons: level and tilted lidars, full turns, a partial one, a grid
/// that wraps around more than once, a single column, rows up to the vertical, one inside a
/// box, a long minimum range.
fn views(target: RayTarget) -> Vec<(ScanView, &'static str)> {
    let level = Pose::new(Vec3::new(0.0, 0.0, 0.5), Quat::IDENTITY);
    let tilted = Pose::new(Vec3::new(0.3, -0.2, 0.8), Quat::from_rpy(0.3, -0.2, 1.1));
    let inside = Pose::new(Vec3::new(0.0, 0.0, 1.0), Quat::from_rpy(0.0, 0.0, 0.4));
    let pi = std::f64::consts::PI;
    let v = |s| scan_view(s, angles(-pi, pi, 720), angles(-0.26, 0.26, 8), 0.1, target);
    // (pose, horizontal and vertical angles: first, last, count; minimum range; case)
    let grids = [
        (
            level,
            (-1.0, 2.2, 301),
            (-0.4, 0.1, 5),
            0.0,
            "partial, from the origin",
        ),
        (
            tilted,
            (-7.0, 7.5, 999),
            (-0.3, 0.3, 4),
            0.1,
            "wrapping around twice",
        ),
        (level, (0.3, 0.3, 1), (-1.5, 1.5, 31), 0.1, "one column"),
        (
            tilted,
            (-pi, pi, 360),
            (-pi / 2.0, pi / 2.0, 13),
            0.1,
            "rows up to the vertical",
        ),
        (inside, (-pi, pi, 360), (-0.5, 0.5, 6), 0.05, "inside a box"),
        (
            tilted,
            (-pi, pi, 500),
            (-0.2, 0.2, 3),
            6.0,
            "a long minimum range",
        ),
        (
            level,
            (-pi, pi, 90),
            (-2.0, 0.5, 9),
            0.1,
            "beyond the vertical (cast ray by ray)",
        ),
        (
            level,
            (-pi, pi, 200),
            (-0.3, 0.3, 5),
            -6.0,
            "starting behind the origin (cast ray by ray)",
        ),
    ];
    let mut views = vec![(v(level), "level"), (v(tilted), "tilted")];
    for (pose, (h0, h1, hn), (v0, v1, vn), start, case) in grids {
        let grid = (angles(h0, h1, hn), angles(v0, v1, vn));
        views.push((scan_view(pose, grid.0, grid.1, start, target), case));
    }
    views
}

/// The scan and the cast, compared pixel by pixel.
fn assert_same(p: &Physics, view: &ScanView, case: &str) {
    let rays = cast_grid(p, view);
    let seen = rays.iter().filter(|h| h.distance.is_finite()).count();
    assert!(seen > 0, "{case}: nothing seen");
    for band in [1, 3, view.vertical.samples as usize] {
        assert_equal(
            &rays,
            &scan_grid(p, view, band),
            &format!("{case}, bands of {band}"),
        );
    }
}

/// The first ray whose hits differ, if any.
fn assert_equal(rays: &[RayHit], scan: &[RayHit], case: &str) {
    assert_eq!(rays.len(), scan.len(), "{case}");
    if let Some(k) = (0..rays.len()).find(|&k| rays[k] != scan[k]) {
        panic!("{case}: ray {k}: cast {:?}, scanned {:?}", rays[k], scan[k]);
    }
}

#[test]
fn scanned_hits_are_those_of_the_rays_bit_for_bit() {
    let mut p = Physics::build(&world(SHAPES)).unwrap();
    p.step();
    for target in [RayTarget::COLLISION, RayTarget::VISUAL] {
        for normals in [true, false] {
            let target = if normals {
                target
            } else {
                target.without_normals()
            };
            for (view, case) in views(target) {
                assert_same(&p, &view, case);
            }
        }
    }
    let p = Physics::build(&world(&scattered())).unwrap();
    for (view, case) in views(RayTarget::COLLISION.without_normals()) {
        assert_same(&p, &view, case);
    }
}

#[test]
fn masks_exclusions_and_the_range_are_those_of_the_rays() {
    let p = Physics::build(&world(SHAPES)).unwrap();
    let around = p.entity_id("around").expect("the model around the sensor");
    for (mut view, case) in views(RayTarget::VISUAL) {
        for (mask, exclude, max) in [
            (1, EntityId::NONE, 60.0),
            (2, around, 5.0),
            (ALL_VISIBLE, around, 0.5),
        ] {
            view.mask = mask;
            view.options.exclude_model = exclude;
            view.options.max_distance = max;
            assert_equal(
                &cast_grid(&p, &view),
                &scan_grid(&p, &view, 2),
                &format!("{case}, mask {mask}, range {max}"),
            );
        }
    }
}

#[test]
fn a_scan_after_a_step_sees_the_world_as_it_is_now() {
    let mut p = Physics::build(&world(SHAPES)).unwrap();
    let view = &views(RayTarget::COLLISION)[0].0;
    let before = scan_grid(&p, view, 8);
    for _ in 0..1500 {
        p.step();
    }
    let after = scan_grid(&p, view, 8);
    assert!(before != after, "the falling box is seen where it landed");
    assert_equal(&cast_grid(&p, view), &after, "after the fall");
}

#[test]
fn views_a_plugin_gets_wrong_are_answered_without_a_panic() {
    let p = Physics::build(&world(SHAPES)).unwrap();
    let good = views(RayTarget::COLLISION)[0].0;
    let mut nan = good;
    nan.horizontal.step = f64::NAN;
    let mut pose = good;
    pose.pose.position.x = f64::INFINITY;
    let mut empty = good;
    empty.horizontal.samples = 0;
    let mut huge = good;
    huge.vertical.samples = u32::MAX;
    huge.horizontal.samples = 4;
    // Within the vertical, but more rays than are kept: cast band by band.
    let mut dense = huge;
    dense.vertical.step = 1e-12;
    for v in [nan, pose, empty, huge, dense] {
        let mut hits = vec![RayHit::MISS; 64];
        let n = p.scan_rows(&v, 0, &mut hits) as usize;
        assert!(n <= hits.len());
        p.scan_rows(&v, u32::MAX, &mut hits);
        p.scan_rows(&v, 3, &mut hits[..3]);
    }
    let mut hits = vec![RayHit::MISS; 64];
    assert_eq!(
        p.scan_rows(&dense, 7, &mut hits),
        cast_rows(&p, &dense, 7, 16)
            .iter()
            .filter(|h| h.distance.is_finite())
            .count() as u32
    );
}

/// The hits of `rows` rows of `view` from `first`, cast one by one.
fn cast_rows(p: &Physics, view: &ScanView, first: u32, rows: u32) -> Vec<RayHit> {
    let m = view.pose.orientation.to_matrix();
    let rays: Vec<ApiRay> = (first..first + rows)
        .flat_map(|r| (0..view.horizontal.samples).map(move |c| (r, c)))
        .map(|(r, c)| view.ray(&m, view.local_direction(r, c)))
        .collect();
    let mut hits = vec![RayHit::MISS; rays.len()];
    p.cast_rays_masked(
        RSlice::from_slice(&rays),
        &view.options,
        view.mask,
        RSliceMut::from_mut_slice(&mut hits),
    );
    hits
}
