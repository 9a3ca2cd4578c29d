//! Tests of the physics adapter.

use super::convert::pose_from_rapier;
use super::entities::EntityData;
use super::state::origin_velocity;
use super::*;
use crate::world::World;
use sim_plugin_api::{
    Aabb, EntityId, EntityKind, KinematicState, NO_LABEL, Pose, Ray as ApiRay, RayCastOptions,
    RayHit, RayTarget, SurfaceInfo, Vec3, WorldView,
    abi_stable::{
        RRef,
        sabi_trait::TD_Opaque,
        std_types::{RSlice, RSliceMut, RVec},
    },
};

fn world(models: &str) -> World {
    crate::sdf::parse_str(
        &format!(
            r#"<sdf version="1.9"><world name="w">
            <model name="ground"><static>true</static><link name="l">
              <collision name="c"><geometry><plane><normal>0 0 1</normal></plane></geometry></collision>
              <visual name="v"><geometry><plane><normal>0 0 1</normal></plane></geometry><material><diffuse>0 1 0 1</diffuse></material></visual>
            </link></model>{models}</world></sdf>"#
        ),
        None,
    )
    .expect("valid world")
}

const BOX: &str = r#"<model name="box"><pose>0 0 2 0 0 0</pose><link name="body">
    <inertial><mass>2</mass></inertial>
    <collision name="c"><laser_retro>7</laser_retro><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision>
    <visual name="v"><geometry><sphere><radius>0.5</radius></sphere></geometry><material><diffuse>1 0 0 1</diffuse></material></visual>
    <sensor name="s" type="imu"><pose>0.1 0 0 0 0 0</pose></sensor>
    </link></model>"#;

fn down(x: f64, y: f64, z: f64) -> ApiRay {
    ApiRay {
        origin: Vec3::new(x, y, z),
        direction: Vec3::new(0.0, 0.0, -1.0),
    }
}

#[test]
fn bodies_fall_under_gravity_and_accelerations_are_finite_differences() {
    let mut p = Physics::build(&world(BOX)).unwrap();
    let id = p.entity_id("box::body").unwrap();
    for _ in 0..100 {
        p.step();
    }
    let k = p.kinematics_of(id).unwrap();
    // v = g t, z = 2 - g t^2 / 2 (semi-implicit Euler: within a step's worth).
    assert!(
        (k.linear_velocity.z + 0.98).abs() < 1e-3,
        "{:?}",
        k.linear_velocity
    );
    assert!(
        (k.pose.position.z - (2.0 - 0.5 * 9.8 * 0.01)).abs() < 1e-3,
        "{:?}",
        k.pose.position
    );
    assert!(
        (k.linear_acceleration.z + 9.8).abs() < 1e-3,
        "{:?}",
        k.linear_acceleration
    );
    assert_eq!(p.time(), SimTime::from_nanos(100_000_000));
    // The sensor frame follows the link with its offset.
    let s = p
        .kinematics_of(p.entity_id("box::body::s").unwrap())
        .unwrap();
    assert!((s.pose.position.x - 0.1).abs() < 1e-6);
    assert!((s.linear_acceleration.z + 9.8).abs() < 1e-3);
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
    assert_eq!(
        view.cast_rays(
            RSlice::from_slice(&rays),
            &opts,
            RSliceMut::from_mut_slice(&mut hits)
        ),
        3
    );
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
    view.cast_rays(
        RSlice::from_slice(&rays),
        &opts,
        RSliceMut::from_mut_slice(&mut hits),
    );
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
    view.cast_rays(
        RSlice::from_slice(&rays),
        &opts,
        RSliceMut::from_mut_slice(&mut hits),
    );
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
        view.cast_rays(
            RSlice::from_slice(&rays),
            &opts,
            RSliceMut::from_mut_slice(&mut batch),
        );
    });
    for (r, b) in rays.iter().zip(&batch) {
        let mut one = [RayHit::MISS];
        view.cast_rays(
            RSlice::from_slice(std::slice::from_ref(r)),
            &opts,
            RSliceMut::from_mut_slice(&mut one),
        );
        assert_eq!(one[0], *b);
    }
}

/// A lidar-like scan and camera-like rows from one origin, cast as packets, hit exactly
/// what each ray cast alone (through the query pipeline's own search) hits, among boxes,
/// spheres and cylinders placed at random (some tilted, some touching the origin's model,
/// which is excluded), for collisions and visuals, serially and on a worker pool.
#[test]
fn packets_from_one_origin_match_single_rays() {
    let mut state: u64 = 7;
    let mut next = || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut models = String::from(
        r#"<model name="scanner"><static>true</static><pose>0 0 0.6 0 0 0</pose><link name="l">
        <collision name="c"><geometry><cylinder><radius>0.2</radius><length>0.3</length></cylinder></geometry></collision>
        <visual name="v"><geometry><box><size>0.3 0.3 0.3</size></box></geometry></visual></link></model>"#,
    );
    for i in 0..150 {
        let (x, y, z) = (next() * 30.0 - 15.0, next() * 30.0 - 15.0, next() * 3.0);
        let (r, p, w) = (next() * 3.0, next() * 3.0, next() * 3.0);
        let size = 0.2 + next() * 1.5;
        let geometry = match i % 3 {
            0 => format!(
                "<box><size>{size} {} {}</size></box>",
                size * 0.5,
                size * 2.0
            ),
            1 => format!("<sphere><radius>{}</radius></sphere>", size * 0.5),
            _ => format!(
                "<cylinder><radius>{}</radius><length>{size}</length></cylinder>",
                size * 0.3
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
    let mut rays = Vec::new();
    // A 360 x 16 scan, row by row.
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
        let mut serial = vec![RayHit::MISS; rays.len()];
        view.cast_rays(
            RSlice::from_slice(&rays),
            &opts,
            RSliceMut::from_mut_slice(&mut serial),
        );
        let mut parallel = vec![RayHit::MISS; rays.len()];
        pool.install(|| {
            view.cast_rays(
                RSlice::from_slice(&rays),
                &opts,
                RSliceMut::from_mut_slice(&mut parallel),
            )
        });
        assert_eq!(serial, parallel);
        for (k, (r, b)) in rays.iter().zip(&serial).enumerate() {
            let mut one = [RayHit::MISS];
            view.cast_rays(
                RSlice::from_slice(std::slice::from_ref(r)),
                &opts,
                RSliceMut::from_mut_slice(&mut one),
            );
            assert_eq!(
                one[0], *b,
                "ray {k} ({target:?}, excluding {exclude_model:?})"
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

#[test]
fn teleport_is_seen_by_rays_at_once_and_the_body_still_simulates() {
    let mut p = Physics::build(&world(BOX)).unwrap();
    p.step();
    let model = p.entity_id("box").unwrap();
    p.apply(&PhysicsCommand::SetPose(
        model,
        Pose::from_xyz_rpy(5.0, 0.0, 3.0, 0.0, 0.0, 0.0),
    ))
    .unwrap();
    let opts = RayCastOptions {
        max_distance: 100.0,
        target: RayTarget::COLLISION,
        exclude_model: EntityId::NONE,
    };
    let mut hit = [RayHit::MISS];
    p.view("t").cast_rays(
        RSlice::from_slice(&[down(5.0, 0.0, 10.0)]),
        &opts,
        RSliceMut::from_mut_slice(&mut hit),
    );
    assert!((hit[0].distance - 6.9).abs() < 1e-4, "{:?}", hit[0]);
    let z0 = p.kinematics_of(model).unwrap().pose.position.z;
    for _ in 0..10 {
        p.step();
    }
    assert!(
        p.kinematics_of(model).unwrap().pose.position.z < z0,
        "the teleported body keeps falling"
    );
}

#[test]
fn link_states_after_a_step_are_their_bodies_and_a_teleport_shows_at_once() {
    let mut p = Physics::build(&world(BOX)).unwrap();
    let model = p.entity_id("box").unwrap();
    let link = p.entity_id("box::body").unwrap();
    let read = |p: &Physics| {
        let mut k = KinematicState::default();
        assert!(p.kinematics_into(link, &mut k));
        k
    };
    let live = |p: &Physics| {
        let EntityData::Link { body, .. } = p.entities.get(link).unwrap().data else {
            panic!("not a link");
        };
        let b = p.pw.bodies.get(body).unwrap();
        (pose_from_rapier(b.position()), origin_velocity(b))
    };
    for _ in 0..20 {
        p.step();
    }
    assert!(p.motion_fresh, "the record is read after a step");
    let (k, (pose, (v, w))) = (read(&p), live(&p));
    assert_eq!(
        (k.pose, k.linear_velocity, k.angular_velocity),
        (pose, v, w)
    );
    assert!(
        k.linear_velocity.z < -0.1,
        "falling: {:?}",
        k.linear_velocity
    );
    p.apply(&PhysicsCommand::SetPose(
        model,
        Pose::from_xyz_rpy(5.0, 0.0, 3.0, 0.0, 0.0, 0.0),
    ))
    .unwrap();
    let k = read(&p);
    assert_eq!(
        k.pose,
        live(&p).0,
        "a teleport is read from the body at once"
    );
    assert!((k.pose.position.x - 5.0).abs() < 1e-6, "{:?}", k.pose);
    p.step();
    assert_eq!(read(&p).pose, live(&p).0);
}

#[test]
fn models_report_collision_aabbs() {
    let p = Physics::build(&world(BOX)).unwrap();
    let mut out = RVec::new();
    p.view("t").models(&mut out);
    assert_eq!(out.len(), 2);
    let b = out
        .iter()
        .find(|m| Some(m.id) == p.entity_id("box"))
        .unwrap();
    assert!(b.has_collision && !b.is_static);
    assert!(
        (b.aabb.min.z - 1.9).abs() < 1e-4 && (b.aabb.max.z - 2.1).abs() < 1e-4,
        "{:?}",
        b.aabb
    );
}

#[test]
fn broad_phase_model_query() {
    let p = Physics::build(&world(BOX)).unwrap();
    let view = p.view("t");
    let query = |min: Vec3, max: Vec3| {
        let mut out = RVec::new();
        view.models_in_aabb(Aabb { min, max }, &mut out);
        out.iter()
            .map(|m| p.scoped_name(m.id).unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        query(Vec3::new(-0.5, -0.5, 1.5), Vec3::new(0.5, 0.5, 2.5)),
        vec!["box"]
    );
    assert!(query(Vec3::new(5.0, 5.0, 1.0), Vec3::new(6.0, 6.0, 3.0)).is_empty());
    // The ground plane's box is the half-space below z = 0: found only where it reaches.
    assert_eq!(
        query(Vec3::new(50.0, 50.0, -1.0), Vec3::new(51.0, 51.0, 0.5)),
        vec!["ground"]
    );
    assert!(query(Vec3::new(50.0, 50.0, 0.5), Vec3::new(51.0, 51.0, 1.0)).is_empty());
}

fn joint_world(joint: &str) -> World {
    crate::sdf::parse_str(
        &format!(
            r#"<sdf version="1.9"><world name="w"><model name="arm"><pose>0 0 2 0 0 0</pose>
            <link name="base"><inertial><mass>1</mass></inertial></link>
            <link name="bob"><pose>1 0 0 0 0 0</pose><inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial>
              <collision name="c"><geometry><sphere><radius>0.05</radius></sphere></geometry></collision></link>
            <joint name="fix" type="fixed"><parent>world</parent><child>base</child></joint>
            {joint}
            </model></world></sdf>"#
        ),
        None,
    )
    .expect("valid world")
}

#[test]
fn a_pendulum_swings_about_its_revolute_axis() {
    // Pivot at the base origin (the joint pose is in the bob's frame), axis y.
    let w = joint_world(
        r#"<joint name="hinge" type="revolute"><parent>base</parent><child>bob</child><pose>-1 0 0 0 0 0</pose><axis><xyz>0 1 0</xyz></axis></joint>"#,
    );
    let mut p = Physics::build(&w).unwrap();
    let bob = p.entity_id("arm::bob").unwrap();
    let hinge = p.entity_id("arm::hinge").unwrap();
    assert_swings_about_y(&mut p, bob, hinge);
}

/// Steps a 1 m pendulum hinged at (0, 0, 2) about +y for 1.3 s from the horizontal: the
/// bob stays on its circle in the x-z plane, the joint's position agrees with the geometry
/// (rotation about +y takes +x down: angle > 0), and it swings down and through.
#[track_caller]
fn assert_swings_about_y(p: &mut Physics, bob: EntityId, hinge: EntityId) {
    let mut max_angle: f64 = 0.0;
    for _ in 0..1300 {
        p.step();
        let pos = p.kinematics_of(bob).unwrap().pose.position;
        let r = (pos - Vec3::new(0.0, 0.0, 2.0)).length();
        assert!(
            (r - 1.0).abs() < 2e-3,
            "the bob stays 1 m from the pivot: {r}"
        );
        assert!(pos.y.abs() < 1e-3, "it swings in the x-z plane: {pos:?}");
        let s = p.joint_state(hinge).unwrap();
        // Position agrees with the geometry (rotation about +y takes +x down: angle > 0).
        let geometric = (-(pos.z - 2.0)).atan2(pos.x);
        assert!(
            (s.position[0] - geometric).abs() < 2e-3,
            "{} vs {geometric}",
            s.position[0]
        );
        max_angle = max_angle.max(s.position[0]);
    }
    assert!(max_angle > 3.0, "it swings down and through: {max_angle}");
}

#[test]
fn a_pendulum_in_a_nested_model_swings_about_the_resolved_axis() {
    // The bob is a link of a nested model turned a quarter about z; the joint of the
    // outer model names it `pend::bob`, is posed relative to the outer model frame and
    // has its axis expressed in the nested model's frame (its x = the world's y). The
    // base is held by a world-level joint (SDF 1.10).
    let w = crate::sdf::parse_str(
        r#"<sdf version="1.10"><world name="w">
        <model name="arm"><pose>0 0 2 0 0 0</pose>
          <link name="base"><inertial><mass>1</mass></inertial></link>
          <model name="pend"><pose>1 0 0 0 0 1.5707963267948966</pose>
            <link name="bob"><inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial>
              <collision name="c"><geometry><sphere><radius>0.05</radius></sphere></geometry></collision></link>
          </model>
          <joint name="hinge" type="revolute"><parent>base</parent><child>pend::bob</child>
            <pose relative_to="__model__">0 0 0 0 0 0</pose>
            <axis><xyz expressed_in="pend">1 0 0</xyz></axis></joint>
        </model>
        <joint name="fix" type="fixed"><parent>world</parent><child>arm::base</child></joint>
        </world></sdf>"#,
        None,
    )
    .expect("valid world");
    let mut p = Physics::build(&w).unwrap();
    let bob = p.entity_id("arm::pend::bob").unwrap();
    let base = p.entity_id("arm::base").unwrap();
    let hinge = p.entity_id("arm::hinge").unwrap();
    assert!(p.entity_id("fix").is_some(), "the world joint is an entity");
    let start = p.kinematics_of(bob).unwrap().pose.position;
    assert!(
        (start - Vec3::new(1.0, 0.0, 2.0)).length() < 1e-6,
        "{start:?}"
    );
    assert_swings_about_y(&mut p, bob, hinge);
    let held = p.kinematics_of(base).unwrap().pose.position;
    assert!(
        (held - Vec3::new(0.0, 0.0, 2.0)).length() < 1e-3,
        "{held:?}"
    );
}

#[test]
fn limits_stop_a_revolute_joint() {
    let w = joint_world(
        r#"<joint name="hinge" type="revolute"><parent>base</parent><child>bob</child><pose>-1 0 0 0 0 0</pose><axis><xyz>0 1 0</xyz><limit><lower>-0.2</lower><upper>0.3</upper></limit></axis></joint>"#,
    );
    let mut p = Physics::build(&w).unwrap();
    let hinge = p.entity_id("arm::hinge").unwrap();
    for _ in 0..1000 {
        p.step();
    }
    let s = p.joint_state(hinge).unwrap();
    assert!(
        (s.position[0] - 0.3).abs() < 0.02,
        "resting on the upper limit: {}",
        s.position[0]
    );
    assert!(
        s.effort[0].abs() > 1.0,
        "the limit pushes back: {}",
        s.effort[0]
    );
}

#[test]
fn prismatic_joints_slide_along_their_axis_only() {
    let w = joint_world(
        r#"<joint name="slide" type="prismatic"><parent>base</parent><child>bob</child><axis><xyz>1 0 -1</xyz></axis></joint>"#,
    );
    let mut p = Physics::build(&w).unwrap();
    let bob = p.entity_id("arm::bob").unwrap();
    let slide = p.entity_id("arm::slide").unwrap();
    for _ in 0..300 {
        p.step();
    }
    let pos = p.kinematics_of(bob).unwrap().pose.position;
    let d = pos - Vec3::new(1.0, 0.0, 2.0);
    assert!(
        d.x > 0.1 && (d.x + d.z).abs() < 1e-3 && d.y.abs() < 1e-6,
        "slides down the 45 degree axis: {d:?}"
    );
    let s = p.joint_state(slide).unwrap();
    assert!(
        (s.position[0] - d.length()).abs() < 1e-3,
        "{} vs {}",
        s.position[0],
        d.length()
    );
    // Along the incline: a = g sin 45.
    let t = 0.3;
    let expected = 0.5 * 9.8 * std::f64::consts::FRAC_1_SQRT_2 * t * t;
    assert!(
        (s.position[0] - expected).abs() < 0.01,
        "{} vs {expected}",
        s.position[0]
    );
}

#[test]
fn velocity_commands_drive_a_continuous_joint_past_a_turn() {
    let w = crate::sdf::parse_str(
        r#"<sdf version="1.9"><world name="w"><gravity>0 0 0</gravity><model name="m">
            <link name="base"/><link name="wheel"><inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>
            <joint name="fix" type="fixed"><parent>world</parent><child>base</child></joint>
            <joint name="axle" type="continuous"><parent>base</parent><child>wheel</child><axis><xyz>0 0 1</xyz></axis></joint>
            </model></world></sdf>"#,
        None,
    )
    .unwrap();
    let mut p = Physics::build(&w).unwrap();
    let axle = p.entity_id("m::axle").unwrap();
    let cmd = sim_plugin_api::JointCommand {
        joint: axle,
        axis: 0,
        mode: sim_plugin_api::JointCommandMode::VELOCITY,
        target: 10.0,
        max_force: 100.0,
        stiffness: 0.0,
        damping: 0.0,
    };
    p.joint_command(&cmd).unwrap();
    for _ in 0..1000 {
        p.step();
    }
    let s = p.joint_state(axle).unwrap();
    assert!((s.velocity[0] - 10.0).abs() < 0.05, "{}", s.velocity[0]);
    assert!(
        s.position[0] > 9.0 && s.position[0] < 10.1,
        "unwrapped past several turns: {}",
        s.position[0]
    );
    let bad = sim_plugin_api::JointCommand { axis: 1, ..cmd };
    assert!(p.joint_command(&bad).unwrap_err().contains("no axis 1"));
    let fix = p.entity_id("m::fix").unwrap();
    assert!(
        p.joint_command(&sim_plugin_api::JointCommand { joint: fix, ..cmd })
            .is_err()
    );
}

#[test]
fn spawned_models_are_seen_at_once_and_simulate() {
    let mut p = Physics::build(&world("")).unwrap();
    for _ in 0..10 {
        p.step();
    }
    let model = crate::sdf::parse_model_str(BOX, None).unwrap();
    let id = p.spawn_model(&model).unwrap();
    let opts = RayCastOptions {
        max_distance: 100.0,
        target: RayTarget::COLLISION,
        exclude_model: EntityId::NONE,
    };
    let mut hit = [RayHit::MISS];
    p.view("t").cast_rays(
        RSlice::from_slice(&[down(0.0, 0.0, 10.0)]),
        &opts,
        RSliceMut::from_mut_slice(&mut hit),
    );
    assert!((hit[0].distance - 7.9).abs() < 1e-4, "{:?}", hit[0]);
    for _ in 0..100 {
        p.step();
    }
    assert!(
        p.kinematics_of(id).unwrap().pose.position.z < 1.99,
        "it falls"
    );
    assert!(
        p.spawn_model(&model).is_ok(),
        "building twice is the caller's naming problem, not a crash"
    );
}

#[test]
fn a_fixed_joint_holding_a_mass_reads_m_g() {
    let w = crate::sdf::parse_str(
        r#"<sdf version="1.9"><world name="w"><model name="m"><pose>0 0 1 0 0 0</pose>
            <link name="weight"><inertial><mass>2</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial></link>
            <joint name="hook" type="fixed"><parent>world</parent><child>weight</child></joint>
            </model></world></sdf>"#,
        None,
    )
    .unwrap();
    let mut p = Physics::build(&w).unwrap();
    for _ in 0..200 {
        p.step();
    }
    let hook = p.entity_id("m::hook").unwrap();
    let wrench = p.joint_wrench(hook).unwrap();
    assert!(
        (wrench.force.z - 2.0 * 9.8).abs() < 1e-3,
        "holds the weight up: {wrench:?}"
    );
    assert!(
        wrench.force.x.abs() < 1e-6 && wrench.force.y.abs() < 1e-6 && wrench.torque.length() < 1e-3,
        "{wrench:?}"
    );
    let mut out = [sim_plugin_api::Wrench::default(); 2];
    let known = p.view("t").joint_wrenches(
        RSlice::from_slice(&[hook, p.entity_id("m::weight").unwrap()]),
        RSliceMut::from_mut_slice(&mut out),
    );
    assert_eq!(known, 1);
    assert_eq!(out[0], wrench);
}

#[test]
fn contact_forces_of_a_resting_box_add_up_to_m_g() {
    let mut p = Physics::build(&world(
        r#"<model name="box"><pose>0 0 0.1 0 0 0</pose><link name="body"><inertial><mass>3</mass></inertial>
           <collision name="c"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision></link></model>"#,
    ))
    .unwrap();
    for _ in 0..500 {
        p.step();
    }
    let view = p.view("t");
    let boxc = p.entity_id("box::body::c").unwrap();
    let ground = p.entity_id("ground::l::c").unwrap();
    let mut out = RVec::new();
    view.contacts(RSlice::from_slice(&[boxc]), &mut out);
    assert!(out.len() >= 3, "a face resting on the plane: {out:?}");
    let total = out.iter().fold(Vec3::ZERO, |a, c| a + c.force);
    assert!(
        (total.z - 3.0 * 9.8).abs() < 0.05,
        "the ground holds the box: {total:?}"
    );
    assert!(
        out.iter()
            .all(|c| c.collision1 == boxc && c.collision2 == ground && c.normal.z < -0.99)
    );
    assert!(out.iter().all(|c| c.position.z.abs() < 0.01));
    view.contacts(RSlice::from_slice(&[ground]), &mut out);
    let total = out.iter().fold(Vec3::ZERO, |a, c| a + c.force);
    assert!(
        (total.z + 3.0 * 9.8).abs() < 0.05,
        "and the box presses on the ground: {total:?}"
    );
}

#[test]
fn the_scene_extension_reports_scene_lights_and_labels() {
    let w = crate::sdf::parse_str(
        r#"<sdf version="1.12"><world name="w">
        <scene><ambient>0.1 0.2 0.3 1</ambient></scene>
        <light name="sun" type="directional"><pose>0 0 10 0 0 1.5707963267948966</pose>
          <direction>1 0 -1</direction><cast_shadows>true</cast_shadows></light>
        <model name="outer">
          <plugin filename="gz-sim-label-system" name="gz::sim::systems::Label"><label>7</label></plugin>
          <link name="l">
            <visual name="v"><geometry><sphere><radius>1</radius></sphere></geometry></visual>
            <visual name="own"><geometry><sphere><radius>1</radius></sphere></geometry>
              <plugin filename="gz-sim-label-system" name="gz::sim::systems::Label"><label>9</label></plugin></visual>
          </link>
          <model name="inner"><link name="l">
            <visual name="v"><geometry><sphere><radius>1</radius></sphere></geometry></visual>
          </link></model>
        </model>
        <model name="plain"><link name="l">
          <visual name="v"><geometry><sphere><radius>1</radius></sphere></geometry></visual>
        </link></model>
        </world></sdf>"#,
        None,
    )
    .unwrap();
    let p = Physics::build(&w).unwrap();
    let view = p.view("test");
    let world = sim_plugin_api::WorldView_TO::from_ptr(RRef::new(&view), TD_Opaque);
    let scene = world.scene().expect("the engine offers simcore.scene.v1");
    assert_eq!(scene.scene().ambient, [0.1, 0.2, 0.3, 1.0]);
    assert_eq!(scene.scene().background, [0.7, 0.7, 0.7, 1.0]);
    let mut lights = RVec::new();
    scene.lights(&mut lights);
    assert_eq!(lights.len(), 1);
    // (1, 0, -1) in the light frame, yawed +90°: (0, 1, -1) in the world, normalised.
    let s = std::f64::consts::FRAC_1_SQRT_2;
    assert!((lights[0].direction - Vec3::new(0.0, s, -s)).length() < 1e-9);
    assert!(lights[0].cast_shadows);
    assert_eq!(lights[0].pose.position, Vec3::new(0.0, 0.0, 10.0));
    let ids: Vec<EntityId> = [
        "outer::l::v",
        "outer::l::own",
        "outer::inner::l::v",
        "plain::l::v",
        "plain::l",
    ]
    .iter()
    .map(|n| p.entity_id(n).unwrap())
    .collect();
    let mut labels = [0u32; 5];
    let known = scene.labels(
        RSlice::from_slice(&ids),
        RSliceMut::from_mut_slice(&mut labels),
    );
    assert_eq!(known, 4, "the link is not a visual");
    assert_eq!(labels, [7, 9, 7, NO_LABEL, NO_LABEL]);
    assert!(world.extension("simcore.other".into()).is_none());
}
