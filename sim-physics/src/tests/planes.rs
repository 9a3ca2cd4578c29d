//! SDF planes: a half-space with an exact box for the broad phase (see `plane`). Contacts
//! are the half-space's, wherever the bodies are; the broad phase pairs the plane only with
//! what comes near it; an ordered plane's contacts are reused as rapier reuses others'.

use super::super::plane::{MIN_REACH, Plane};
use super::*;

/// A 1 kg unit box model `name` at `(x, y, z)`.
fn unit_box(name: &str, x: f64, y: f64, z: f64) -> String {
    format!(
        r#"<model name="{name}"><pose>{x} {y} {z} 0 0 0</pose><link name="l">
        <inertial><mass>1</mass><inertia><ixx>0.1667</ixx><iyy>0.1667</iyy><izz>0.1667</izz></inertia></inertial>
        <collision name="c"><geometry><box><size>1 1 1</size></box></geometry></collision>
        </link></model>"#
    )
}

/// The SDF world of `models`, with the ground plane (normal `normal`, at `pose`) before
/// them (`first`) or after them.
fn world_with_plane(models: &str, normal: &str, pose: &str, first: bool) -> World {
    let ground = format!(
        r#"<model name="ground"><static>true</static><pose>{pose}</pose><link name="l">
        <collision name="c"><geometry><plane><normal>{normal}</normal></plane></geometry></collision>
        <visual name="v"><geometry><plane><normal>{normal}</normal></plane></geometry></visual>
        </link></model>"#
    );
    let (a, b) = if first {
        (ground.as_str(), models)
    } else {
        (models, ground.as_str())
    };
    sim_sdf::parse_str(
        &format!(r#"<sdf version="1.9"><world name="w">{a}{b}</world></sdf>"#),
        None,
    )
    .expect("valid world")
}

/// The plane of the collider `c`.
fn plane_of(p: &Physics, c: ColliderHandle) -> Plane {
    *p.pw.colliders[c]
        .shape()
        .as_shape::<Plane>()
        .expect("a plane")
}

#[test]
fn a_plane_stops_boxes_dropped_at_any_distance_from_the_origin() {
    // Bottom faces 0.5 m above the ground.
    let spots = [
        (0.0, 0.0, 1.0),
        (1e4, 0.0, 1.0),
        (-1e4, 0.0, 1.0),
        (0.0, 1e4, 1.0),
        (1e5, 0.0, 1.0),
        (-1e5, 0.0, 1.0),
        (0.0, -1e5, 1.0),
        (1e5, 1e5, 1.0),
        (1e6, -1e6, 1.0),
    ];
    let models: String = spots
        .iter()
        .enumerate()
        .map(|(i, &(x, y, z))| unit_box(&format!("b{i}"), x, y, z))
        .collect();
    for first in [true, false] {
        let mut p =
            Physics::build(&world_with_plane(&models, "0 0 1", "0 0 0 0 0 0", first)).unwrap();
        for _ in 0..2000 {
            p.step();
        }
        for (i, &(x, y, _)) in spots.iter().enumerate() {
            let q = at(&p, &format!("b{i}"));
            // At 10^6 m a single-precision coordinate is 6 cm from the next.
            let ulp = (x.abs().max(y.abs()) as f32).max(1.0);
            let ulp = 2.0 * (f32::from_bits(ulp.to_bits() + 1) - ulp) as f64;
            // Landing flat, a box shifts by a fraction of a millimetre.
            let slid = ulp.max(1e-3);
            assert!(
                (q.position.z - 0.5).abs() < 1e-3,
                "box {i} at ({x}, {y}), ground {}: resting at z = {} m",
                if first { "first" } else { "last" },
                q.position.z
            );
            assert!(
                (q.position.x - x).abs() <= slid && (q.position.y - y).abs() <= slid,
                "box {i} slid to {:?}",
                q.position
            );
        }
    }
}

#[test]
fn a_plane_away_from_the_origin_and_a_tilted_plane_hold_boxes_too() {
    // A ground 10 km away and 3 m up, the box on it 10 km further on.
    let mut p = Physics::build(&world_with_plane(
        &unit_box("b", 2e4, 0.0, 4.0),
        "0 0 1",
        "1e4 0 3 0 0 0",
        true,
    ))
    .unwrap();
    for _ in 0..3000 {
        p.step();
    }
    assert!((at(&p, "b").position.z - 3.5).abs() < 1e-3);

    // A 20-degree slope (friction 1 holds the box), through the origin: the box starts
    // 0.1 m above it at (0, 50 m along the slope).
    let (s, c) = 20f64.to_radians().sin_cos();
    let along = 50.0;
    let (y, z) = (along * c - 0.6 * s, along * s + 0.6 * c);
    let tilted = format!("0 {} {}", -s, c);
    let mut p = Physics::build(&world_with_plane(
        &format!(
            r#"<model name="b"><pose>0 {y} {z} {} 0 0</pose><link name="l">
            <inertial><mass>1</mass><inertia><ixx>0.1667</ixx><iyy>0.1667</iyy><izz>0.1667</izz></inertia></inertial>
            <collision name="c"><geometry><box><size>1 1 1</size></box></geometry></collision>
            </link></model>"#,
            20f64.to_radians()
        ),
        &tilted,
        "0 0 0 0 0 0",
        true,
    ))
    .unwrap();
    for _ in 0..3000 {
        p.step();
    }
    let q = at(&p, "b").position;
    // Its centre 0.5 m above the slope.
    let height = -s * q.y + c * q.z;
    assert!((height - 0.5).abs() < 1e-3, "{height} m above the slope");
}

#[test]
fn a_level_plane_is_paired_only_with_what_comes_near_it() {
    let mut p = Physics::build(&world_with_plane(
        &(unit_box("low", 0.0, 0.0, 0.52) + &unit_box("high", 3.0, 0.0, 3.0)),
        "0 0 1",
        "0 0 0 0 0 0",
        true,
    ))
    .unwrap();
    let ground = collider(&p, "ground::l::c");
    let (low, high) = (collider(&p, "low::l::c"), collider(&p, "high::l::c"));
    p.step();
    let paired = |p: &Physics, c| p.pw.narrow_phase.contact_pair(ground, c).is_some();
    assert!(paired(&p, low), "the box 2 cm above the ground");
    assert!(!paired(&p, high), "the box 2.5 m above it");
    // The plane's box: the solid side, reaching the world's reach (the least, 1 km: the
    // boxes are within metres of the origin) along the plane.
    let aabb = p.pw.colliders[ground].compute_aabb();
    assert_eq!(aabb.maxs.z, 0.0);
    assert_eq!(aabb.mins.z, -MIN_REACH);
    assert_eq!((aabb.mins.x, aabb.maxs.x), (-MIN_REACH, MIN_REACH));
    // Falling, the high box meets it.
    for _ in 0..1500 {
        p.step();
    }
    assert!(paired(&p, high));
    let z = at(&p, "high").position.z;
    assert!((z - 0.5).abs() < 1e-3, "resting at {z} m");
}

#[test]
fn a_tilted_planes_box_holds_the_solid_side() {
    // Normal (0.6, 0, 0.8) through (0, 0, 1): solid where 0.6 x + 0.8 z <= 0.8.
    let plane = Plane::new(Vector::new(0.6, 0.0, 0.8));
    let pose = rapier3d::math::Pose::from_parts(Vector::new(0.0, 0.0, 1.0), Default::default());
    let aabb = plane.aabb_at(&pose);
    // Within the reach, z reaches (0.8 + 0.6 R) / 0.8 at x = -R, and x reaches
    // (0.8 + 0.8 R) / 0.6 > R.
    let r = plane.reach;
    assert_eq!(r, MIN_REACH);
    assert!(aabb.maxs.z >= (0.8 + 0.6 * r) / 0.8);
    assert_eq!((aabb.mins.x, aabb.maxs.x), (-r, r));
    assert_eq!((aabb.mins.z, aabb.mins.y, aabb.maxs.y), (-r, -r, r));
    // A level plane facing down (a ceiling at z = 2): solid above.
    let ceiling = Plane::new(-Vector::Z);
    let pose = rapier3d::math::Pose::from_parts(Vector::new(5.0, 0.0, 2.0), Default::default());
    let aabb = ceiling.aabb_at(&pose);
    assert_eq!((aabb.mins.z, aabb.maxs.z), (2.0, r));
}

#[test]
fn a_plane_built_first_is_ordered_until_a_collider_takes_an_earlier_place() {
    let models = unit_box("a", 0.0, 0.0, 0.5) + &unit_box("b", 2.0, 0.0, 0.5);
    // Built after the boxes: never the first of its pairs, never ordered.
    let p = Physics::build(&world_with_plane(&models, "0 0 1", "0 0 0 0 0 0", false)).unwrap();
    assert!(!plane_of(&p, collider(&p, "ground::l::c")).ordered);
    // Built first: ordered (its visual's plane, which touches nothing, is not).
    let mut p = Physics::build(&world_with_plane(&models, "0 0 1", "0 0 0 0 0 0", true)).unwrap();
    let ground = collider(&p, "ground::l::c");
    assert!(plane_of(&p, ground).ordered);
    assert_eq!(
        p.pw.colliders[ground].shape().compute_local_aabb(),
        rapier3d::parry::bounding_volume::Aabb::new(Vector::ZERO, Vector::ZERO)
    );
    // A model removed and another spawned, which takes the place freed after the plane's:
    // the plane stays ordered while every collider that can touch it comes after it.
    for _ in 0..10 {
        p.step();
    }
    let a = p.entity_id("a").unwrap();
    p.remove_model(a).unwrap();
    let w = sim_sdf::parse_str(
        &format!(
            r#"<sdf version="1.9"><world name="w">{}</world></sdf>"#,
            unit_box("c", 4.0, 0.0, 0.5)
        ),
        None,
    )
    .unwrap();
    p.spawn_model(&w.models[0]).unwrap();
    let c = collider(&p, "c::l::c");
    let before = c.into_raw_parts().0 < ground.into_raw_parts().0;
    assert_eq!(plane_of(&p, ground).ordered, !before);
    for _ in 0..500 {
        p.step();
    }
    assert!((at(&p, "c").position.z - 0.5).abs() < 1e-3);
}

#[test]
fn a_colliders_earlier_place_unorders_the_plane() {
    // A box first, the ground, then a box: remove the first box and spawn one, which takes
    // the freed place before the plane's.
    let w = sim_sdf::parse_str(
        &format!(
            r#"<sdf version="1.9"><world name="w">{}
            <model name="ground"><static>true</static><link name="l">
            <collision name="c"><geometry><plane><normal>0 0 1</normal></plane></geometry></collision>
            </link></model>{}</world></sdf>"#,
            unit_box("first", 0.0, 0.0, 0.5),
            unit_box("last", 2.0, 0.0, 0.5)
        ),
        None,
    )
    .unwrap();
    let mut p = Physics::build(&w).unwrap();
    let ground = collider(&p, "ground::l::c");
    assert!(!plane_of(&p, ground).ordered, "a box comes before it");
    // Order the plane by hand as if it came first, then let a collider take an earlier place.
    p.remove_model(p.entity_id("first").unwrap()).unwrap();
    p.step();
    p.make_first(ground);
    assert!(plane_of(&p, ground).ordered);
    let spawned = sim_sdf::parse_str(
        &format!(
            r#"<sdf version="1.9"><world name="w">{}</world></sdf>"#,
            unit_box("again", 4.0, 0.0, 0.5)
        ),
        None,
    )
    .unwrap();
    p.spawn_model(&spawned.models[0]).unwrap();
    let again = collider(&p, "again::l::c");
    assert!(again.into_raw_parts().0 < ground.into_raw_parts().0);
    assert!(!plane_of(&p, ground).ordered);
    assert!(p.leads.first.is_empty());
}

/// The world of `models` on a level ground (first), with the ground's shape replaced by
/// rapier's own half-space when `half_space`.
fn on_ground(models: &str, half_space: bool) -> Physics {
    let mut p = Physics::build(&world_with_plane(models, "0 0 1", "0 0 0 0 0 0", true)).unwrap();
    if half_space {
        let ground = collider(&p, "ground::l::c");
        p.pw.colliders[ground].set_shape(SharedShape::halfspace(Vector::Z));
        p.leads.first.clear();
    }
    p
}

#[test]
fn a_plane_moves_boxes_as_the_half_space_does() {
    // A box thrown along the ground (mu 0.3), spinning or not, and one dropped tilted on its
    // edge: their paths on the plane, ordered or not, against those on rapier's half-space.
    let models = r#"<model name="thrown"><pose>0 0 0.52 0 0 0</pose><link name="l">
        <inertial><mass>1</mass><inertia><ixx>0.1667</ixx><iyy>0.1667</iyy><izz>0.1667</izz></inertia></inertial>
        <collision name="c"><surface><friction><ode><mu>0.3</mu><mu2>0.3</mu2></ode></friction></surface><geometry><box><size>1 1 1</size></box></geometry></collision>
        </link></model>
        <model name="tilted"><pose>5 0 1.5 0.3 0.2 0</pose><link name="l">
        <inertial><mass>1</mass><inertia><ixx>0.1667</ixx><iyy>0.1667</iyy><izz>0.1667</izz></inertia></inertial>
        <collision name="c"><geometry><box><size>1 1 1</size></box></geometry></collision>
        </link></model>"#;
    for (spin, ordered) in [(0.0, true), (4.0, true), (0.0, false), (4.0, false)] {
        let mut plane = on_ground(models, false);
        let ground = collider(&plane, "ground::l::c");
        assert!(plane_of(&plane, ground).ordered);
        if !ordered {
            let shape = Plane {
                ordered: false,
                ..plane_of(&plane, ground)
            };
            plane.pw.colliders[ground].set_shape(SharedShape::new(shape));
        }
        let mut half_space = on_ground(models, true);
        let case = format!("spin {spin} rad/s, ordered {ordered}");
        slide_and_tumble(&mut plane, &mut half_space, spin, &case);
    }
}

#[test]
fn a_box_falling_fast_never_passes_the_plane() {
    // Dropped from 100 m it lands at 44 m/s (4.4 cm a step, more than the broad phase's
    // margin): it bounces and tumbles, as on rapier's half-space, and never sinks into it.
    let mut p = on_ground(&unit_box("b", 3.0, 0.0, 100.5), false);
    let mut lowest = f64::INFINITY;
    for _ in 0..6000 {
        p.step();
        lowest = lowest.min(at(&p, "b").position.z);
    }
    // The centre of a unit box on a face is 0.5 m up, on an edge 0.71 m.
    assert!(lowest > 0.45, "it sank to {lowest} m");
    assert!(at(&p, "b").position.z < 0.75);
}

#[test]
fn a_planes_reach_grows_with_a_body_sliding_away_from_the_origin() {
    // A box on a frictionless ground, pushed along x by a sideways gravity of 500 m/s²:
    // 4,000 m away after 4 s, far beyond the least reach (1 km), and still on the plane.
    let world = sim_sdf::parse_str(
        &format!(
            r#"<sdf version="1.9"><world name="w"><gravity>500 0 -9.81</gravity>
            <model name="ground"><static>true</static><link name="l">
            <collision name="c"><surface><friction><ode><mu>0</mu><mu2>0</mu2></ode></friction></surface>
            <geometry><plane><normal>0 0 1</normal></plane></geometry></collision></link></model>
            {}</world></sdf>"#,
            unit_box("b", 0.0, 0.0, 0.5)
        ),
        None,
    )
    .expect("valid world");
    let mut p = Physics::build(&world).unwrap();
    let ground = collider(&p, "ground::l::c");
    assert_eq!(plane_of(&p, ground).reach, MIN_REACH);
    let (mut low, mut high) = (f64::INFINITY, f64::NEG_INFINITY);
    for _ in 0..4000 {
        p.step();
        let z = at(&p, "b").position.z;
        (low, high) = (low.min(z), high.max(z));
    }
    let x = at(&p, "b").position.x;
    assert!(x > 3900.0, "it slid to x = {x} m");
    assert!(
        low > 0.49 && high < 0.51,
        "it rode between {low} and {high} m"
    );
    // The reach grew in powers of two, to at least twice the box's distance.
    let reach = plane_of(&p, ground).reach;
    assert!(
        reach >= 2.0 * x as f32 && reach <= 8.0 * x as f32,
        "reach {reach} m"
    );
    assert_eq!(reach.log2().fract(), 0.0);
    let aabb = p.pw.colliders[ground].compute_aabb();
    assert_eq!(
        (aabb.mins.x, aabb.maxs.x, aabb.maxs.z),
        (-reach, reach, 0.0)
    );
}

#[test]
fn a_body_placed_into_a_plane_far_away_is_pushed_out_at_the_next_step() {
    // Placed 20 cm into the ground far beyond the reach, by a teleport or a spawn, a box is
    // paired with the plane in the very next step, which pushes it up.
    for how in ["teleport", "spawn"] {
        let mut p = on_ground(&unit_box("b", 0.0, 0.0, 0.5), false);
        for _ in 0..10 {
            p.step();
        }
        let (x, y, z) = (-3.0e5, 2.0e5, 0.3);
        let id = if how == "teleport" {
            let id = p.entity_id("b").unwrap();
            p.apply(&PhysicsCommand::SetPose(
                id,
                Pose::from_xyz_rpy(x, y, z, 0.0, 0.0, 0.0),
            ))
            .unwrap();
            id
        } else {
            let model = sim_sdf::parse_model_str(&unit_box("far", x, y, z), None).unwrap();
            p.spawn_model(&model).unwrap()
        };
        p.step();
        let k = p.kinematics_of(id).unwrap();
        assert!(
            k.linear_velocity.z > 0.1,
            "{how}: after one step the box moves at {:?} m/s",
            k.linear_velocity
        );
        assert!(plane_of(&p, collider(&p, "ground::l::c")).reach >= 4.0 * 3.0e5);
    }
}

#[test]
fn a_static_model_far_away_leaves_the_reach_and_a_box_beside_it_still_rests() {
    // A static box 100 km out touches no plane (rapier pairs no two fixed bodies), so the
    // planes' boxes stay at the least reach; a box dropped beside it grows the reach and
    // rests on the plane.
    let far = 1.0e5;
    let static_box = format!(
        r#"<model name="landmark"><static>true</static><pose>{far} 0 0.5 0 0 0</pose><link name="l">
        <collision name="c"><geometry><box><size>1 1 1</size></box></geometry></collision>
        </link></model>"#
    );
    let mut p = on_ground(&static_box, false);
    let ground = collider(&p, "ground::l::c");
    for _ in 0..10 {
        p.step();
    }
    assert_eq!(plane_of(&p, ground).reach, MIN_REACH);
    let landmark = p
        .kinematics_of(p.entity_id("landmark::l").unwrap())
        .unwrap();
    assert_eq!(landmark.pose.position, Vec3::new(far, 0.0, 0.5));
    assert_eq!(
        (landmark.linear_velocity, landmark.linear_acceleration),
        (Vec3::ZERO, Vec3::ZERO)
    );
    let model = sim_sdf::parse_model_str(&unit_box("b", far + 3.0, 0.0, 1.0), None).unwrap();
    let b = p.spawn_model(&model).unwrap();
    for _ in 0..1500 {
        p.step();
    }
    assert!(plane_of(&p, ground).reach >= 2.0 * far as f32);
    let z = p.kinematics_of(b).unwrap().pose.position.z;
    assert!((z - 0.5).abs() < 1e-3, "the box rests at z = {z}");
}
