//! The raster extension against one ray cast per pixel: the same hits (entity, distance,
//! normal) on scenes of every kind of shape, at the near clip, through masks and exclusions.

use super::*;
use sim_plugin_api::{ALL_VISIBLE, PinholeView, Quat, VisibilityRays};

/// The camera's hits by one ray per pixel, as the camera plugins cast them: from the near
/// plane, distances from the camera origin, misses beyond the far clip (z-depth).
fn cast_pixels(p: &Physics, view: &PinholeView) -> Vec<RayHit> {
    let rot = view.pose.orientation.normalized().to_matrix();
    let (w, h) = (view.width as usize, view.height as usize);
    let mut dirs = Vec::with_capacity(w * h);
    for j in 0..h {
        for i in 0..w {
            let (u, v) = (i as f64 + 0.5, j as f64 + 0.5);
            let yn = (v - view.cy) / view.fy;
            let xn = (u - view.cx - view.skew * yn) / view.fx;
            dirs.push(Vec3::new(1.0, -xn, -yn).normalized());
        }
    }
    let min_cos = dirs.iter().map(|d| d.x).fold(1.0f64, f64::min);
    let rays: Vec<ApiRay> = dirs
        .iter()
        .map(|d| {
            let dw = d.by_matrix(&rot);
            ApiRay {
                origin: view.pose.position + dw.scale(view.near / d.x),
                direction: dw,
            }
        })
        .collect();
    let opts = RayCastOptions {
        max_distance: view.far / min_cos,
        target: RayTarget::VISUAL,
        exclude_model: view.exclude_model,
    };
    let mut hits = vec![RayHit::MISS; rays.len()];
    p.cast_rays_masked(
        RSlice::from_slice(&rays),
        &opts,
        view.mask,
        RSliceMut::from_mut_slice(&mut hits),
    );
    for (hit, d) in hits.iter_mut().zip(&dirs) {
        hit.distance += view.near / d.x;
        if hit.distance * d.x > view.far {
            *hit = RayHit::MISS;
        }
    }
    hits
}

/// The camera's hits rasterised, in bands of `band` rows.
fn raster_pixels(p: &Physics, view: &PinholeView, band: usize) -> Vec<RayHit> {
    let w = view.width as usize;
    let mut hits = vec![RayHit::MISS; w * view.height as usize];
    for (k, rows) in hits.chunks_mut(band * w).enumerate() {
        let seen = p.rasterize_rows(view, (k * band) as u32, rows);
        let hit = rows.iter().filter(|h| h.distance.is_finite()).count();
        assert_eq!(seen as usize, hit, "the hits a band counts");
    }
    hits
}

/// Pixels whose entity differs, and the largest distance and normal errors of the others.
fn compare(a: &[RayHit], b: &[RayHit]) -> (usize, f64, f64) {
    let (mut differ, mut dist, mut normal) = (0, 0.0f64, 0.0f64);
    for (x, y) in a.iter().zip(b) {
        if x.entity != y.entity || x.model != y.model {
            differ += 1;
            continue;
        }
        if x.distance.is_finite() {
            dist = dist.max((x.distance - y.distance).abs() / x.distance);
            normal = normal.max((x.normal - y.normal).length());
        }
    }
    (differ, dist, normal)
}

fn view(pose: Pose, width: u32, height: u32, hfov: f64) -> PinholeView {
    let f = f64::from(width) / (2.0 * (hfov / 2.0).tan());
    PinholeView {
        pose,
        width,
        height,
        fx: f,
        fy: f,
        cx: f64::from(width) / 2.0,
        cy: f64::from(height) / 2.0,
        skew: 0.0,
        near: 0.1,
        far: 40.0,
        exclude_model: EntityId::NONE,
        mask: ALL_VISIBLE,
        normals: true,
    }
}

/// A triangle mesh (a polyline prism) beside boxes, rotated boxes, a sphere, a cylinder, a
/// capsule and an ellipsoid (a convex hull) on a ground plane.
const SHAPES: &str = r#"
<model name="boxes"><static>true</static><link name="l">
  <visual name="a"><pose>4 0 0.5 0 0 0</pose><geometry><box><size>1 1 1</size></box></geometry></visual>
  <visual name="b"><pose>6 -1.5 0.7 0.3 0.2 0.7</pose><geometry><box><size>0.8 1.2 1.4</size></box></geometry></visual>
  <visual name="c"><pose>9 2 1 0.5 -0.4 1.2</pose><geometry><box><size>2 0.5 1</size></box></geometry></visual>
</link></model>
<model name="round"><static>true</static><link name="l">
  <visual name="s"><pose>5 1.6 0.6 0 0 0</pose><geometry><sphere><radius>0.6</radius></sphere></geometry></visual>
  <visual name="y"><pose>7 0.5 0.5 0.4 0 0</pose><geometry><cylinder><radius>0.4</radius><length>1</length></cylinder></geometry></visual>
  <visual name="k"><pose>8 -3 0.8 0 1.2 0</pose><geometry><capsule><radius>0.3</radius><length>0.8</length></capsule></geometry></visual>
  <visual name="e"><pose>11 -1 1 0 0 0.5</pose><geometry><ellipsoid><radii>1 0.5 0.7</radii></ellipsoid></geometry></visual>
</link></model>
<model name="mesh"><static>true</static><link name="l">
  <visual name="m"><pose>6 3.5 0 0 0 0.3</pose><geometry><polyline><point>-0.5 -0.5</point><point>0.5 -0.4</point><point>0.2 0.6</point><height>1.5</height></polyline></geometry></visual>
</link></model>"#;

#[test]
fn rasterised_hits_are_those_of_one_ray_per_pixel() {
    let p = Physics::build(&world(SHAPES)).unwrap();
    let pose = Pose::new(Vec3::new(0.0, 0.2, 1.2), Quat::from_rpy(0.05, 0.12, 0.03));
    for (w, h, band) in [(160, 120, 120), (161, 97, 7)] {
        let v = view(pose, w, h, 1.2);
        let rays = cast_pixels(&p, &v);
        let raster = raster_pixels(&p, &v, band);
        let seen = rays.iter().filter(|h| h.distance.is_finite()).count();
        let entities: std::collections::BTreeSet<_> = rays.iter().map(|h| h.entity).collect();
        // Ground, 3 boxes, 4 round shapes, the mesh, and misses (the sky).
        assert!(entities.len() >= 9, "{entities:?}");
        assert!(seen > w as usize * h as usize / 2);
        let (differ, dist, normal) = compare(&rays, &raster);
        // Pixel centres within rounding of an edge may see the other surface.
        assert!(differ <= (w * h) as usize / 1000, "{differ} pixels differ");
        assert!(dist < 1e-5, "relative distance error {dist}");
        assert!(normal < 1e-6, "normal error {normal}");
    }
}

#[test]
fn geometry_across_the_near_clip_and_the_cameras_own_model() {
    // The camera sits inside its own model's box; a box and a sphere reach across the near
    // plane, a box holds part of the near plane's rectangle (where rays start), and a box
    // beside the camera reaches from behind it into the image's edge.
    let models = r#"
<model name="me"><static>true</static><pose>0 0 1 0 0 0</pose><link name="l">
  <visual name="v"><geometry><box><size>0.3 0.3 0.3</size></box></geometry></visual></link></model>
<model name="near"><static>true</static><pose>0 0 1 0 0 0</pose><link name="l">
  <visual name="b"><pose>0.2 0.25 0 0 0 0.4</pose><geometry><box><size>0.4 0.3 0.3</size></box></geometry></visual>
  <visual name="s"><pose>0.12 -0.2 0.05 0 0 0</pose><geometry><sphere><radius>0.1</radius></sphere></geometry></visual>
  <visual name="beside"><pose>0.3 0.55 0 0 0 0</pose><geometry><box><size>1 0.4 0.4</size></box></geometry></visual>
  <visual name="far"><pose>3 0 0 0 0 0</pose><geometry><box><size>1 3 3</size></box></geometry></visual>
</link></model>"#;
    let p = Physics::build(&world(models)).unwrap();
    let me = p.entity_id("me").unwrap();
    let pose = Pose::new(Vec3::new(0.0, 0.0, 1.0), Quat::IDENTITY);
    let mut v = view(pose, 120, 90, 1.4);
    for exclude in [me, EntityId::NONE] {
        v.exclude_model = exclude;
        let rays = cast_pixels(&p, &v);
        let raster = raster_pixels(&p, &v, 16);
        // Excluded, the camera's own box is not seen; else every pixel starts inside it.
        let inside = rays.iter().filter(|h| h.model == me).count();
        if exclude == me {
            assert_eq!(inside, 0);
            // Some pixels start inside the box and the sphere across the near plane.
            let at_start = rays
                .iter()
                .filter(|h| h.distance.is_finite() && h.normal == Vec3::ZERO)
                .count();
            assert!(at_start > 10, "{at_start}");
        } else {
            assert_eq!(inside, rays.len());
        }
        let (differ, dist, normal) = compare(&rays, &raster);
        assert!(
            differ <= rays.len() / 1000,
            "{exclude:?}: {differ} pixels differ"
        );
        assert!(dist < 1e-5, "relative distance error {dist}");
        assert!(normal < 1e-6, "normal error {normal}");
    }
}

#[test]
fn the_visibility_mask_and_the_far_clip_are_those_of_the_rays() {
    let models = r#"
<model name="m"><static>true</static><link name="l">
  <visual name="a"><pose>3 0.5 1 0 0 0</pose><geometry><box><size>1 1 1</size></box></geometry><visibility_flags>2</visibility_flags></visual>
  <visual name="b"><pose>5 -0.5 1 0 0 0</pose><geometry><sphere><radius>0.7</radius></sphere></geometry><visibility_flags>4</visibility_flags></visual>
</link></model>"#;
    let p = Physics::build(&world(models)).unwrap();
    let pose = Pose::new(Vec3::new(0.0, 0.0, 1.0), Quat::from_rpy(0.0, 0.2, 0.0));
    let mut v = view(pose, 80, 60, 1.0);
    v.far = 6.0;
    for mask in [ALL_VISIBLE, 2, 4, 1] {
        v.mask = mask;
        v.normals = mask != 1;
        let mut rays = cast_pixels(&p, &v);
        if !v.normals {
            for h in &mut rays {
                h.normal = Vec3::ZERO;
            }
        }
        let raster = raster_pixels(&p, &v, 60);
        assert!(raster.iter().any(|h| !h.distance.is_finite()));
        let (differ, dist, normal) = compare(&rays, &raster);
        assert!(
            differ <= rays.len() / 1000,
            "mask {mask}: {differ} pixels differ"
        );
        assert!(dist < 1e-5 && normal < 1e-6, "mask {mask}: {dist} {normal}");
    }
}

#[test]
fn a_lens_changed_between_frames_gets_its_own_rays() {
    // The rays' lengths are kept by image size and intrinsics: a camera that zooms, or one
    // whose principal point or skew moves, is rasterised as a fresh world rasterises it.
    let pose = Pose::new(Vec3::new(0.0, 0.2, 1.2), Quat::from_rpy(0.05, 0.12, 0.03));
    let wide = view(pose, 80, 60, 1.2);
    let lenses = [
        wide,
        view(pose, 80, 60, 0.7),
        PinholeView {
            fx: wide.fx * 1.3,
            ..wide
        },
        PinholeView { cx: 30.0, ..wide },
        PinholeView { cy: 20.0, ..wide },
        PinholeView { skew: 4.0, ..wide },
        view(pose, 60, 80, 1.2),
        wide,
    ];
    let kept = Physics::build(&world(SHAPES)).unwrap();
    for (k, v) in lenses.iter().enumerate() {
        let fresh = Physics::build(&world(SHAPES)).unwrap();
        let (a, b) = (raster_pixels(&kept, v, 13), raster_pixels(&fresh, v, 60));
        assert!(a.iter().any(|h| h.distance.is_finite()), "lens {k}");
        for (i, (a, b)) in a.iter().zip(&b).enumerate() {
            assert_eq!(
                (a.distance.to_bits(), a.entity),
                (b.distance.to_bits(), b.entity),
                "lens {k}, pixel {i}"
            );
        }
    }
}

#[test]
fn depths_along_parallel_rays_are_those_of_the_rays() {
    use sim_plugin_api::OrthoView;
    let p = Physics::build(&world(SHAPES)).unwrap();
    // A sun shining down and forward, the map centred 30 m up its rays from the scene.
    let q = Quat::from_rpy(0.1, 1.1, 0.3);
    let x = q.rotate(Vec3::new(1.0, 0.0, 0.0));
    let view = OrthoView {
        pose: Pose::new(Vec3::new(6.0, 0.0, 0.5) - x.scale(30.0), q),
        width: 90,
        height: 70,
        scale: 6.0,
        depth: 60.0,
    };
    let (entities, zeros) = parallel_depths_against_rays(&p, &view);
    assert!(entities >= 8, "{entities} entities");
    assert_eq!(zeros, 0);
    // A level sun whose map's plane crosses the ground: the rays of its lower rows start
    // inside the ground's half-space, and meet it where they start (depth 0).
    let level = OrthoView {
        pose: Pose::new(Vec3::new(-20.0, 0.0, 0.3), Quat::IDENTITY),
        ..view
    };
    let (_, zeros) = parallel_depths_against_rays(&p, &level);
    assert!(zeros > 90 * 20, "{zeros} pixels inside the ground");
}

/// Compares the depths of `view` rasterised in bands with those of its parallel rays cast one
/// by one (parry's solid casts: 0 where a ray starts inside a shape). Returns how many
/// entities the rays hit and how many pixels have depth 0.
fn parallel_depths_against_rays(p: &Physics, view: &sim_plugin_api::OrthoView) -> (usize, usize) {
    let (w, h) = (view.width as usize, view.height as usize);
    let q = view.pose.orientation;
    let [x, y, z] = [
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::new(0.0, 1.0, 0.0),
        Vec3::new(0.0, 0.0, 1.0),
    ]
    .map(|a| q.rotate(a));
    let mut rays = Vec::new();
    for j in 0..h {
        for i in 0..w {
            let u = (i as f64 + 0.5 - w as f64 / 2.0) / view.scale;
            let v = (j as f64 + 0.5 - h as f64 / 2.0) / view.scale;
            rays.push(ApiRay {
                origin: view.pose.position - y.scale(u) - z.scale(v),
                direction: x,
            });
        }
    }
    let opts = RayCastOptions {
        max_distance: view.depth,
        target: RayTarget::VISUAL,
        exclude_model: EntityId::NONE,
    };
    let mut hits = vec![RayHit::MISS; rays.len()];
    cast_into(&p.view("t"), &rays, &opts, &mut hits);
    let mut depths = vec![0f32; rays.len()];
    for (k, band) in depths.chunks_mut(w * 16).enumerate() {
        p.depth_rows(view, (k * 16) as u32, band);
    }
    let entities: std::collections::BTreeSet<_> = hits.iter().map(|h| h.entity).collect();
    let mut differ = 0;
    for (h, d) in hits.iter().zip(&depths) {
        let d = f64::from(*d);
        if h.distance.is_finite() != d.is_finite() || (h.distance == 0.0) != (d == 0.0) {
            differ += 1;
        } else if h.distance.is_finite() && h.distance > 0.0 {
            let e = (h.distance - d).abs() / h.distance;
            if e > 1e-5 {
                differ += 1;
            }
        }
    }
    assert!(differ <= rays.len() / 1000, "{differ} depths differ");
    let zeros = depths.iter().filter(|d| **d == 0.0).count();
    (entities.len(), zeros)
}

#[test]
fn views_a_plugin_gets_wrong_are_answered_without_a_panic() {
    use sim_plugin_api::OrthoView;
    let p = Physics::build(&world(SHAPES)).unwrap();
    let good = view(
        Pose::new(Vec3::new(0.0, 0.0, 1.0), Quat::IDENTITY),
        16,
        12,
        1.2,
    );
    let bad = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -1.0,
        1e300,
        -1e300,
        1e-300,
    ];
    let mut cases: Vec<PinholeView> = Vec::new();
    for x in bad {
        for k in 0..9 {
            let mut v = good;
            match k {
                0 => v.fx = x,
                1 => v.fy = x,
                2 => v.cx = x,
                3 => v.cy = x,
                4 => v.skew = x,
                5 => v.near = x,
                6 => v.far = x,
                7 => v.pose.position.x = x,
                _ => v.pose.orientation = Quat::new(x, 0.0, 0.0, 0.0),
            }
            cases.push(v);
        }
    }
    // An image far larger than the buffer given: only the rows that fit are written.
    let mut huge = good;
    huge.width = u32::MAX;
    huge.height = u32::MAX;
    cases.push(huge);
    for v in &cases {
        let mut hits = vec![RayHit::MISS; 16 * 12];
        let n = p.rasterize_rows(v, 0, &mut hits) as usize;
        assert!(n <= hits.len(), "{v:?}");
        let mut hits = vec![RayHit::MISS; 16 * 12];
        p.rasterize_rows(v, u32::MAX, &mut hits);
    }
    for x in bad {
        for k in 0..3 {
            let mut v = OrthoView {
                pose: Pose::new(Vec3::new(6.0, 0.0, 30.0), Quat::from_rpy(0.0, 1.5, 0.0)),
                width: 20,
                height: 20,
                scale: 2.0,
                depth: 60.0,
            };
            match k {
                0 => v.scale = x,
                1 => v.depth = x,
                _ => v.pose.position.z = x,
            }
            let mut out = vec![0f32; 400];
            p.depth_rows(&v, 0, &mut out);
        }
    }
}

/// A wall seen square on from its middle: the diagonal between its face's two triangles
/// runs through pixel centres, which both triangles must cover (rounding had each leave them
/// to the other: a line of misses across the wall). The same with the rays' start 1 µm from
/// the origin, as the depth camera rasterises.
#[test]
fn the_triangles_of_a_face_leave_no_seam_between_them() {
    let models = r#"<model name="wall"><static>true</static><link name="l">
  <visual name="v"><pose>5.1 0 1 0 0 0</pose><geometry><box><size>0.2 40 40</size></box></geometry></visual>
</link></model>"#;
    let p = Physics::build(&world(models)).unwrap();
    let pose = Pose::new(Vec3::new(0.0, 0.0, 1.0), Quat::IDENTITY);
    for (near, w, h) in [(0.5, 40, 30), (1e-6, 40, 30), (0.1, 64, 64)] {
        let mut v = view(pose, w, h, 1.2);
        (v.near, v.far) = (near, 10.0);
        let rays = cast_pixels(&p, &v);
        let raster = raster_pixels(&p, &v, h as usize);
        let (differ, dist, _) = compare(&rays, &raster);
        let missed: Vec<usize> = (0..raster.len())
            .filter(|&k| !raster[k].distance.is_finite())
            .collect();
        assert!(missed.is_empty(), "near {near}: pixels missed {missed:?}");
        assert_eq!(differ, 0, "near {near}");
        assert!(dist < 1e-5, "near {near}: relative distance error {dist}");
    }
}

#[test]
fn a_frame_drawn_again_sees_the_world_as_it_is_now() {
    // The depth pass of a view is kept for the bands of its frame: a step, a teleport or a
    // removal between two frames of one view must be seen in the second.
    let mut p = Physics::build(&world(&format!(
        "{SHAPES}<model name=\"falling\"><pose>5 -0.5 3 0 0 0</pose><link name=\"l\">\
         <visual name=\"v\"><geometry><box><size>0.6 0.6 0.6</size></box></geometry></visual>\
         </link></model>"
    )))
    .unwrap();
    let v = view(
        Pose::new(Vec3::new(0.0, 0.0, 1.5), Quat::from_rpy(0.0, 0.1, 0.0)),
        120,
        90,
        1.2,
    );
    let check = |p: &Physics, what: &str| {
        let rays = cast_pixels(p, &v);
        // Bands of 7 rows: the pass made by the first is shared by the others.
        let raster = raster_pixels(p, &v, 7);
        let (differ, dist, _) = compare(&rays, &raster);
        assert!(differ <= 12, "{what}: {differ} pixels differ");
        assert!(dist < 1e-5, "{what}: relative distance error {dist}");
        raster
    };
    let before = check(&p, "built");
    for _ in 0..50 {
        p.step();
    }
    let stepped = check(&p, "stepped");
    assert_ne!(before, stepped, "the box fell");
    let falling = p.entity_id("falling").unwrap();
    p.apply(&PhysicsCommand::SetPose(
        falling,
        Pose::new(Vec3::new(3.0, 0.8, 1.0), Quat::IDENTITY),
    ))
    .unwrap();
    let moved = check(&p, "teleported");
    assert_ne!(stepped, moved, "the box was moved");
    p.remove_model(falling).unwrap();
    let removed = check(&p, "removed");
    let link = p.entity_id("falling::l::v");
    assert!(
        removed
            .iter()
            .all(|h| Some(h.entity) != link && h.model != falling),
        "no pixel sees the removed model"
    );
}
