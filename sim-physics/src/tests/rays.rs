//! Ray casts: collisions or visuals, exclusions, parallel batches and packets.

use super::*;
use crate::convert::{vec_from_rapier, vec_to_rapier};
use crate::query::unpack_model;

/// What rapier's own shape casts find for one ray, without the ray trees: against collisions
/// rapier's query pipeline (its broad phase, the ground plane in it), against visuals (which
/// are in no broad phase) every visual tried: the reference the ray trees are checked against.
fn reference(p: &Physics, r: &ApiRay, opts: &RayCastOptions) -> RayHit {
    let target = if opts.target.geometry() == RayTarget::VISUAL {
        GROUP_VISUAL
    } else {
        GROUP_COLLISION
    };
    let groups = InteractionGroups::new(GROUP_QUERY, target, InteractionTestMode::And);
    let not_excluded = |_h: ColliderHandle, c: &Collider| {
        !p.entities
            .is_within(unpack_model(c.user_data), opts.exclude_model)
    };
    let mut filter = QueryFilter::default().groups(groups);
    if !opts.exclude_model.is_none() {
        filter = filter.predicate(&not_excluded);
    }
    let ray = rapier3d::prelude::Ray::new(
        vec_to_rapier(r.origin),
        vec_to_rapier(r.direction.normalized()),
    );
    let max = opts.max_distance as f32;
    let found = if target == GROUP_VISUAL {
        // Visuals are in no broad phase (disabled colliders): every one is tried.
        p.pw.colliders
            .iter()
            .filter(|(h, c)| filter.test(&p.pw.bodies, *h, c))
            .filter_map(|(h, c)| Some((h, c.shape().cast_ray(c.position(), &ray, max, true)?)))
            .fold(
                None,
                |best: Option<(ColliderHandle, f32)>, (h, toi)| match best {
                    Some((_, t)) if t <= toi => best,
                    _ => Some((h, toi)),
                },
            )
    } else {
        let qp = p.pw.broad_phase.as_query_pipeline(
            p.pw.narrow_phase.query_dispatcher(),
            &p.pw.bodies,
            &p.pw.colliders,
            filter,
        );
        qp.cast_ray(&ray, max, true)
    };
    let Some((ch, toi)) = found else {
        return RayHit::MISS;
    };
    let c = &p.pw.colliders[ch];
    let normal = if opts.target.wants_normals() {
        c.shape()
            .cast_ray_and_get_normal(c.position(), &ray, toi * 1.0001 + 1e-5, true)
            .map_or(Vec3::ZERO, |i| vec_from_rapier(i.normal))
    } else {
        Vec3::ZERO
    };
    RayHit {
        distance: toi as f64,
        normal,
        entity: EntityId(c.user_data as u64),
        model: unpack_model(c.user_data),
    }
}

#[test]
fn rays_see_collisions_or_visuals_before_the_first_step() {
    let p = Physics::build(&world(BOX)).unwrap();
    let view = p.view("test");
    let mut hits = [RayHit::MISS; 3];
    let rays = [
        down(0.0, 0.0, 5.0),
        down(3.0, 0.0, 5.0),
        down(0.0, 0.0, -1.0),
    ];
    let opts = RayCastOptions {
        max_distance: 100.0,
        target: RayTarget::COLLISION,
        exclude_model: EntityId::NONE,
    };
    assert_eq!(cast_into(&view, &rays, &opts, &mut hits), 3);
    assert!(
        (hits[0].distance - 2.9).abs() < 1e-5,
        "top of the 0.2 m box at z=2.1: {:?}",
        hits[0]
    );
    assert_eq!(p.scoped_name(hits[0].entity), Some("box::body::c"));
    assert_eq!(p.scoped_name(hits[0].model), Some("box"));
    assert!(
        (hits[0].normal - Vec3::new(0.0, 0.0, 1.0)).length() < 1e-5,
        "{:?}",
        hits[0].normal
    );
    assert!(
        (hits[1].normal - Vec3::new(0.0, 0.0, 1.0)).length() < 1e-5,
        "{:?}",
        hits[1].normal
    );
    assert!(
        (hits[1].distance - 5.0).abs() < 1e-5,
        "the ground: {:?}",
        hits[1]
    );
    assert_eq!(hits[2].distance, 0.0, "inside the solid ground half-space");

    let opts = RayCastOptions {
        target: RayTarget::VISUAL,
        ..opts
    };
    cast_into(&view, &rays, &opts, &mut hits);
    assert!(
        (hits[0].distance - 2.5).abs() < 1e-5,
        "top of the 0.5 m visual sphere: {:?}",
        hits[0]
    );
    assert_eq!(p.scoped_name(hits[0].entity), Some("box::body::v"));
    let mut surf = [SurfaceInfo::default(); 2];
    view.surfaces(
        RSlice::from_slice(&[hits[0].entity, hits[1].entity]),
        RSliceMut::from_mut_slice(&mut surf),
    );
    assert_eq!(surf[0].diffuse, [1.0, 0.0, 0.0, 1.0]);
    assert_eq!(surf[1].diffuse, [0.0, 1.0, 0.0, 1.0]);

    let opts = RayCastOptions {
        exclude_model: p.entity_id("box").unwrap(),
        target: RayTarget::COLLISION,
        ..opts
    };
    cast_into(&view, &rays, &opts, &mut hits);
    assert!(
        (hits[0].distance - 5.0).abs() < 1e-5,
        "own model excluded: {:?}",
        hits[0]
    );
}

#[test]
fn parallel_batches_match_serial_casts() {
    let p = Physics::build(&world(BOX)).unwrap();
    let view = p.view("test");
    let rays: Vec<ApiRay> = (0..2000)
        .map(|i| down(-1.0 + i as f64 * 0.001, 0.0, 5.0))
        .collect();
    let opts = RayCastOptions {
        max_distance: 100.0,
        target: RayTarget::COLLISION,
        exclude_model: EntityId::NONE,
    };
    let mut batch = vec![RayHit::MISS; rays.len()];
    // On a worker pool (as with --threads 2) the batch is split across threads.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        assert!(rayon::current_thread_index().is_some());
        cast_into(&view, &rays, &opts, &mut batch);
    });
    for (r, b) in rays.iter().zip(&batch) {
        let mut one = [RayHit::MISS];
        cast_into(&view, std::slice::from_ref(r), &opts, &mut one);
        assert_eq!(one[0], *b);
    }
}

/// A 360 x 16 lidar scan from `origin`, row by row (rows from -30 to +30 degrees).
/// Numbers uniform in [0, 1) from a 64-bit LCG seeded with `seed`.
fn uniform(seed: u64) -> impl FnMut() -> f64 {
    let mut state = seed;
    move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The hits of `rays` cast on this thread, the same as those cast on `pool`.
fn serial_and_parallel(
    view: &PhysicsView<'_>,
    rays: &[ApiRay],
    opts: &RayCastOptions,
    pool: &rayon::ThreadPool,
) -> Vec<RayHit> {
    let mut serial = vec![RayHit::MISS; rays.len()];
    cast_into(view, rays, opts, &mut serial);
    let mut parallel = vec![RayHit::MISS; rays.len()];
    pool.install(|| cast_into(view, rays, opts, &mut parallel));
    assert_eq!(serial, parallel);
    serial
}

fn scan(origin: Vec3) -> Vec<ApiRay> {
    let mut rays = Vec::new();
    for j in 0..16 {
        let v = (-30.0 + j as f64 * 4.0f64).to_radians();
        for i in 0..360 {
            let h = (i as f64).to_radians();
            rays.push(ApiRay {
                origin,
                direction: Vec3::new(v.cos() * h.cos(), v.cos() * h.sin(), v.sin()),
            });
        }
    }
    rays
}

/// A lidar-like scan and camera-like rows from one origin, cast as packets, hit exactly
/// what each ray cast alone (through the query pipeline's own search) hits, among boxes,
/// spheres, cylinders, capsules and ellipsoids (convex hulls) placed at random (most tilted,
/// some touching the origin's model, which is excluded), for collisions and visuals,
/// serially and on a worker pool.
#[test]
fn packets_from_one_origin_match_single_rays() {
    let mut next = uniform(7);
    let mut models = String::from(
        r#"<model name="scanner"><static>true</static><pose>0 0 0.6 0 0 0</pose><link name="l">
        <collision name="c"><geometry><cylinder><radius>0.2</radius><length>0.3</length></cylinder></geometry></collision>
        <visual name="v"><geometry><box><size>0.3 0.3 0.3</size></box></geometry></visual></link></model>"#,
    );
    for i in 0..150 {
        let (x, y, z) = (next() * 30.0 - 15.0, next() * 30.0 - 15.0, next() * 3.0);
        let (r, p, w) = (next() * 3.0, next() * 3.0, next() * 3.0);
        // Every fourth model unrotated (the identity, which packets cast without rotating).
        let (r, p, w) = if i % 4 == 0 {
            (0.0, 0.0, 0.0)
        } else {
            (r, p, w)
        };
        let size = 0.2 + next() * 1.5;
        let geometry = match i % 5 {
            0 => format!(
                "<box><size>{size} {} {}</size></box>",
                size * 0.5,
                size * 2.0
            ),
            1 => format!("<sphere><radius>{}</radius></sphere>", size * 0.5),
            2 => format!(
                "<cylinder><radius>{}</radius><length>{size}</length></cylinder>",
                size * 0.3
            ),
            3 => format!(
                "<capsule><radius>{}</radius><length>{size}</length></capsule>",
                size * 0.25
            ),
            // A convex hull: cast through the shape's dynamic interface.
            _ => format!(
                "<ellipsoid><radii>{} {} {}</radii></ellipsoid>",
                size * 0.5,
                size * 0.3,
                size * 0.4
            ),
        };
        models.push_str(&format!(
            r#"<model name="m{i}"><static>true</static><pose>{x} {y} {z} {r} {p} {w}</pose><link name="l">
            <collision name="c"><geometry>{geometry}</geometry></collision>
            <visual name="v"><geometry>{geometry}</geometry></visual></link></model>"#
        ));
    }
    let p = Physics::build(&world(&models)).unwrap();
    let view = p.view("test");
    let scanner = p.entity_id("scanner").unwrap();
    let origin = Vec3::new(0.0, 0.0, 0.6);
    let mut rays = scan(origin);
    // Camera rows looking along +x, and rays in random directions (wide packets).
    for j in 0..20 {
        for i in 0..64 {
            let (u, w) = (i as f64 / 32.0 - 1.0, j as f64 / 10.0 - 1.0);
            rays.push(ApiRay {
                origin,
                direction: Vec3::new(1.0, u, w * 0.5).normalized(),
            });
        }
    }
    // Camera rows starting on a near plane 0.3 m ahead (one apex behind their starts).
    for j in 0..10 {
        for i in 0..64 {
            let (u, w) = (i as f64 / 32.0 - 1.0, j as f64 / 5.0 - 1.0);
            let d = Vec3::new(-1.0, u, w * 0.5).normalized();
            rays.push(ApiRay {
                origin: origin + d.scale(0.3 / -d.x),
                direction: d,
            });
        }
    }
    for _ in 0..256 {
        let d = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5);
        rays.push(ApiRay {
            origin,
            direction: d.normalized(),
        });
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let mut hits_seen = 0;
    for (target, exclude_model) in [
        (RayTarget::COLLISION, EntityId::NONE),
        (RayTarget::COLLISION, scanner),
        (RayTarget::VISUAL, scanner),
    ] {
        let opts = RayCastOptions {
            max_distance: 12.0,
            target,
            exclude_model,
        };
        let serial = serial_and_parallel(&view, &rays, &opts, &pool);
        for (k, (r, b)) in rays.iter().zip(&serial).enumerate() {
            let mut one = [RayHit::MISS];
            cast_into(&view, std::slice::from_ref(r), &opts, &mut one);
            assert_eq!(
                one[0], *b,
                "ray {k} ({target:?}, excluding {exclude_model:?})"
            );
            assert_eq!(
                reference(&p, r, &opts),
                *b,
                "ray {k} ({target:?}, excluding {exclude_model:?}) vs the reference cast"
            );
            if b.distance.is_finite() {
                hits_seen += 1;
                let model = p.entities.get(b.model).unwrap();
                assert_ne!(
                    (exclude_model == scanner, b.model),
                    (true, scanner),
                    "the excluded model is never hit"
                );
                assert!(model.kind == EntityKind::MODEL);
            }
        }
    }
    // The scene is dense enough that most rays hit something, and the scanner's own
    // collision is hit when it is not excluded.
    assert!(hits_seen > rays.len(), "{hits_seen} hits");
}

/// Packets keep hitting what single rays hit as the world changes under the ray trees:
/// dynamic boxes falling on the ground plane (the tree of moving colliders after each step),
/// a static model teleported (the tree of fixed ones), a tilted plane (unbounded, never in a
/// tree) and a model spawned at run time.
#[test]
fn packets_follow_moving_teleported_and_spawned_colliders() {
    let mut models = String::from(
        r#"<model name="slope"><static>true</static><pose>0 0 -3 0 0.3 0</pose><link name="l">
        <collision name="c"><geometry><plane><normal>0 0 1</normal></plane></geometry></collision></link></model>
        <model name="post"><static>true</static><pose>3 0 1 0 0 0.4</pose><link name="l">
        <collision name="c"><geometry><box><size>0.5 0.5 2</size></box></geometry></collision></link></model>"#,
    );
    for i in 0..12 {
        let (x, y) = ((i % 4) as f64 * 1.5 - 2.0, (i / 4) as f64 * 1.5 - 1.5);
        models.push_str(&format!(
            r#"<model name="d{i}"><pose>{x} {y} {} 0.2 0.1 0</pose><link name="l"><inertial><mass>1</mass></inertial>
            <collision name="c"><geometry><box><size>0.6 0.6 0.6</size></box></geometry></collision></link></model>"#,
            0.5 + i as f64 * 0.05
        ));
    }
    let mut p = Physics::build(&world(&models)).unwrap();
    let origin = Vec3::new(0.0, 0.0, 1.5);
    let mut rays = Vec::new();
    for j in 0..8 {
        let v = (-40.0 + j as f64 * 8.0f64).to_radians();
        for i in 0..256 {
            let h = (i as f64 * 360.0 / 256.0).to_radians();
            rays.push(ApiRay {
                origin,
                direction: Vec3::new(v.cos() * h.cos(), v.cos() * h.sin(), v.sin()),
            });
        }
    }
    let opts = RayCastOptions {
        max_distance: 30.0,
        target: RayTarget::COLLISION,
        exclude_model: EntityId::NONE,
    };
    let check = |p: &Physics, when: &str| -> Vec<RayHit> {
        let view = p.view("test");
        let mut packed = vec![RayHit::MISS; rays.len()];
        cast_into(&view, &rays, &opts, &mut packed);
        for (k, (r, b)) in rays.iter().zip(&packed).enumerate() {
            let mut one = [RayHit::MISS];
            cast_into(&view, std::slice::from_ref(r), &opts, &mut one);
            assert_eq!(one[0], *b, "ray {k} {when}");
            assert_eq!(
                reference(p, r, &opts),
                *b,
                "ray {k} {when} vs the broad phase"
            );
        }
        packed
    };
    let before = check(&p, "before the first step");
    for _ in 0..200 {
        p.step();
    }
    let fallen = check(&p, "after the boxes fell");
    assert_ne!(before, fallen, "the falling boxes are seen where they are");
    let post = p.entity_id("post").unwrap();
    p.apply(&PhysicsCommand::SetPose(
        post,
        Pose::from_xyz_rpy(-3.0, 0.5, 1.0, 0.0, 0.0, 0.0),
    ))
    .unwrap();
    let moved = check(&p, "after the post moved");
    assert_ne!(fallen, moved, "the teleported post is seen where it is");
    let spawned = sim_sdf::parse_model_str(
        r#"<model name="new"><static>true</static><pose>0 3 1.5 0 0 0</pose><link name="l">
        <collision name="c"><geometry><sphere><radius>0.5</radius></sphere></geometry></collision></link></model>"#,
        None,
    )
    .unwrap();
    let new = p.spawn_model(&spawned).unwrap();
    let seen = check(&p, "after a model was spawned");
    assert!(
        seen.iter().any(|h| h.model == new),
        "the spawned model is seen"
    );
    // The tilted plane is hit by the rays looking down its slope.
    assert!(
        moved
            .iter()
            .any(|h| p.scoped_name(h.model) == Some("slope"))
    );
}

#[test]
fn hits_without_normals_are_the_same_hits_with_a_zero_normal() {
    let p = Physics::build(&world(BOX)).unwrap();
    let view = p.view("test");
    let world = sim_plugin_api::WorldView_TO::from_ptr(RRef::new(&view), TD_Opaque);
    let rays = [down(0.0, 0.0, 5.0), down(3.0, 0.0, 5.0)];
    let with = RayCastOptions {
        max_distance: 100.0,
        target: RayTarget::COLLISION,
        exclude_model: EntityId::NONE,
    };
    // The engine serves the flags extension, so the flag is set; the geometry is unchanged.
    let without = with.without_normals_in(&world);
    assert!(!without.target.wants_normals());
    assert_eq!(without.target.geometry(), RayTarget::COLLISION);
    let mut a = [RayHit::MISS; 2];
    let mut b = [RayHit::MISS; 2];
    cast_into(&view, &rays, &with, &mut a);
    cast_into(&view, &rays, &without, &mut b);
    for (a, b) in a.iter().zip(&b) {
        assert_eq!(
            (a.distance, a.entity, a.model),
            (b.distance, b.entity, b.model)
        );
        assert_eq!(b.normal, Vec3::ZERO);
    }
    assert!((a[0].normal - Vec3::new(0.0, 0.0, 1.0)).length() < 1e-5);
    // A world that does not serve the extension (an older engine) gets the options unchanged.
    let fixed = sim_plugin_api::testing::StaticWorld::default();
    let old = sim_plugin_api::WorldView_TO::from_ptr(RRef::new(&fixed), TD_Opaque);
    assert_eq!(with.without_normals_in(&old), with);
}

/// Packets look for bounded shapes only as far as a ray is inside the box of the trees'
/// colliders: rays that leave a small cluster of shapes (upwards, away, or from outside it),
/// rays that never meet it, and a world whose only shape is the unbounded ground plane
/// (no box at all) hit exactly what rapier's own search hits.
#[test]
fn packets_end_where_rays_leave_the_trees_box() {
    let cluster = r#"<model name="a"><static>true</static><pose>3 0 0.5 0 0 0</pose><link name="l">
        <collision name="c"><geometry><box><size>1 1 1</size></box></geometry></collision></link></model>
        <model name="b"><static>true</static><pose>3.6 0.7 0.4 0.3 0 0.5</pose><link name="l">
        <collision name="c"><geometry><capsule><radius>0.2</radius><length>0.6</length></capsule></geometry></collision></link></model>
        <model name="c"><pose>2.5 -0.8 0.3 0 0 0</pose><link name="l"><inertial><mass>1</mass></inertial>
        <collision name="c"><geometry><sphere><radius>0.3</radius></sphere></geometry></collision></link></model>"#;
    let opts = RayCastOptions {
        max_distance: 60.0,
        target: RayTarget::COLLISION,
        exclude_model: EntityId::NONE,
    };
    for (models, expect_box_hits) in [(cluster, true), ("", false)] {
        let p = Physics::build(&world(models)).unwrap();
        let view = p.view("test");
        let mut hits = [0usize; 2];
        // Inside the cluster's box, beside it, and far outside it above the ground.
        for origin in [
            Vec3::new(3.0, 0.0, 1.5),
            Vec3::new(0.0, 0.0, 0.5),
            Vec3::new(-12.0, 9.0, 4.0),
        ] {
            let rays = scan(origin);
            let mut packed = vec![RayHit::MISS; rays.len()];
            cast_into(&view, &rays, &opts, &mut packed);
            for (k, (r, b)) in rays.iter().zip(&packed).enumerate() {
                assert_eq!(reference(&p, r, &opts), *b, "ray {k} from {origin:?}");
                if b.distance.is_finite() {
                    hits[usize::from(p.scoped_name(b.model) != Some("ground"))] += 1;
                }
            }
        }
        assert!(hits[0] > 1000, "the ground is hit: {hits:?}");
        assert_eq!(hits[1] > 0, expect_box_hits, "{hits:?}");
    }
}

/// Packets whose rays reach the farther distance bands (a wide, sparse field of boxes, rays
/// almost level, out to 100 m) gather the later bands' candidates from the subtrees the
/// earlier walks left, and hit exactly what rapier's own search hits, serially and on a
/// worker pool, with the scanner's model (the rays start inside it) excluded or not.
#[test]
fn packets_through_every_distance_band_match_single_rays() {
    let mut next = uniform(11);
    let mut models = String::from(
        r#"<model name="scanner"><static>true</static><pose>0 0 0.5 0 0 0</pose><link name="l">
        <collision name="c"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision></link></model>"#,
    );
    for i in 0..1500 {
        let (x, y) = (next() * 300.0 - 150.0, next() * 300.0 - 150.0);
        if x.hypot(y) < 2.0 {
            continue;
        }
        let (z, yaw) = (0.5 + next() * 0.6, next() * 3.0);
        models.push_str(&format!(
            r#"<model name="m{i}"><static>true</static><pose>{x} {y} {z} 0 0 {yaw}</pose><link name="l">
            <collision name="c"><geometry><box><size>1 1 1</size></box></geometry></collision></link></model>"#
        ));
    }
    let p = Physics::build(&world(&models)).unwrap();
    let view = p.view("test");
    let scanner = p.entity_id("scanner").unwrap();
    let origin = Vec3::new(0.0, 0.0, 0.5);
    let mut rays = Vec::new();
    for j in 0..6 {
        let v = (-1.0 + j as f64 * 0.4f64).to_radians();
        for i in 0..900 {
            let h = (i as f64 * 0.4).to_radians();
            rays.push(ApiRay {
                origin,
                direction: Vec3::new(v.cos() * h.cos(), v.cos() * h.sin(), v.sin()),
            });
        }
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for exclude_model in [EntityId::NONE, scanner] {
        let opts = RayCastOptions {
            max_distance: 100.0,
            target: RayTarget::COLLISION,
            exclude_model,
        };
        let serial = serial_and_parallel(&view, &rays, &opts, &pool);
        // Hits per band: within 5 m, 15 m, 45 m and beyond.
        let mut bands = [0usize; 4];
        for (k, (r, b)) in rays.iter().zip(&serial).enumerate() {
            assert_eq!(
                reference(&p, r, &opts),
                *b,
                "ray {k}, excluding {exclude_model:?}"
            );
            if b.distance.is_finite() && p.scoped_name(b.model) != Some("ground") {
                bands[[5.0, 15.0, 45.0]
                    .iter()
                    .filter(|&&d| b.distance >= d)
                    .count()] += 1;
            }
        }
        if exclude_model == scanner {
            assert!(
                bands.iter().all(|&n| n > 20),
                "box hits per band: {bands:?}"
            );
        } else {
            // The rays start inside the scanner's own box.
            assert!(
                serial
                    .iter()
                    .all(|h| h.distance == 0.0 && h.model == scanner)
            );
        }
    }
}

/// Packets among boxes touching face to face, overlapping with a face in common (the same
/// distance to two boxes: the tie goes to the collider created first), turned by right angles,
/// from inside a box, from a face's plane and from outside, along the axes (direction
/// components exactly zero) and across them, hit exactly what single rays hit, and at exactly
/// the distances rapier's own search finds.
#[test]
fn packets_among_touching_boxes_match_single_rays() {
    let mut models = String::new();
    let mut model = |name: &str, pose: &str, size: &str| {
        models.push_str(&format!(
            r#"<model name="{name}"><static>true</static><pose>{pose}</pose><link name="l">
            <collision name="c"><geometry><box><size>{size}</size></box></geometry></collision></link></model>"#
        ));
    };
    // A row of unit boxes face to face along x, from x = 1.5 on.
    for i in 0..6 {
        model(
            &format!("row{i}"),
            &format!("{} 0 0.5 0 0 0", 2.0 + i as f64),
            "1 1 1",
        );
    }
    // Two overlapping boxes with their near face at x = -2.5 in common.
    model("tie_a", "-3 0 0.5 0 0 0", "1 1 1");
    model("tie_b", "-3.5 0.25 0.75 0 0 0", "2 1.5 1.5");
    // A box turned by right angles about each axis, and one tilted.
    model(
        "turned",
        "0 3 0.5 1.5707963267948966 0 1.5707963267948966",
        "1 2 0.5",
    );
    model("tilted", "0 -3 1 0.3 0.2 0.1", "1 1 1");
    let p = Physics::build(&world(&models)).unwrap();
    let view = p.view("test");
    let opts = RayCastOptions {
        max_distance: 30.0,
        target: RayTarget::COLLISION,
        exclude_model: EntityId::NONE,
    };
    let mut rays = Vec::new();
    for origin in [
        Vec3::new(0.0, 0.0, 0.5),
        // Inside a box of the row, and on the plane of the row's side faces.
        Vec3::new(3.2, 0.1, 0.4),
        Vec3::new(0.0, 0.5, 0.5),
        Vec3::new(0.0, -0.5, 1.0),
    ] {
        let (x, y, z) = (
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, 0.0, 1.0),
        );
        for (a, b, c) in [
            (x, y, z),
            (x.scale(-1.0), y, z),
            (y, x, z),
            (y.scale(-1.0), x, z),
        ] {
            // Camera-like rows of 64 rays about axis `a`; the middle row and column are
            // along the axes.
            for j in 0..9 {
                for i in 0..64 {
                    let (u, w) = ((i as f64 - 32.0) / 40.0, (j as f64 - 4.0) / 8.0);
                    rays.push(ApiRay {
                        origin,
                        direction: a + b.scale(u) + c.scale(w),
                    });
                }
            }
        }
    }
    let mut packed = vec![RayHit::MISS; rays.len()];
    cast_into(&view, &rays, &opts, &mut packed);
    let mut seen = std::collections::BTreeSet::new();
    let mut ties = 0;
    for (k, (r, b)) in rays.iter().zip(&packed).enumerate() {
        let mut one = [RayHit::MISS];
        cast_into(&view, std::slice::from_ref(r), &opts, &mut one);
        assert_eq!(one[0], *b, "ray {k}: {r:?}");
        let theirs = reference(&p, r, &opts);
        assert_eq!(
            theirs.distance.to_bits(),
            b.distance.to_bits(),
            "ray {k}: {r:?}"
        );
        if theirs.entity != b.entity {
            // A tie, which goes to the collider created first whatever order the search
            // met them in (rapier's goes by its tree's order).
            ties += 1;
            assert_eq!(p.scoped_name(b.model), Some("tie_a"), "ray {k}: {r:?}");
            assert_eq!(p.scoped_name(theirs.model), Some("tie_b"), "ray {k}: {r:?}");
        } else {
            assert_eq!(theirs, *b, "ray {k}: {r:?}");
        }
        if b.distance.is_finite() {
            seen.insert(p.scoped_name(b.model).unwrap_or_default().to_string());
        }
    }
    assert!(ties > 0, "some rays meet both boxes of the tie at once");
    for name in ["row0", "row1", "tie_a", "turned", "tilted", "ground"] {
        assert!(seen.contains(name), "{name} is hit: {seen:?}");
    }
}

#[test]
fn a_packet_starting_far_from_its_apex_sees_as_far_as_its_rays_reach() {
    // Rays of one lidar row starting 6 m out, reaching 5 m: a box 9.5 m from the lidar is
    // within every ray's reach, beyond the reach counted from the lidar.
    let p = Physics::build(&world(
        r#"<model name="far"><static>true</static><pose>9.5 0 0.5 0 0 0</pose><link name="l">
        <collision name="c"><geometry><box><size>1 4 1</size></box></geometry></collision></link></model>"#,
    ))
    .unwrap();
    let rays: Vec<ApiRay> = (0..32)
        .map(|k| {
            let a = (f64::from(k) - 15.5) * 0.005;
            let d = Vec3::new(a.cos(), a.sin(), 0.0);
            ApiRay {
                origin: Vec3::new(0.0, 0.0, 0.5) + d.scale(6.0),
                direction: d,
            }
        })
        .collect();
    let opts = RayCastOptions {
        max_distance: 5.0,
        target: RayTarget::COLLISION,
        exclude_model: EntityId::NONE,
    };
    let mut hits = vec![RayHit::MISS; rays.len()];
    let view = p.view("test");
    assert_eq!(cast_into(&view, &rays, &opts, &mut hits), 32);
    for h in &hits {
        assert!((h.distance - 3.0).abs() < 0.05, "{h:?}");
    }
}
