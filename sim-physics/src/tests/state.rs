//! Stepping: finite-difference accelerations and the motion record of links.

use super::*;
use sim_plugin_api::SimTime;

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
    assert!(p.links.fresh, "the record is read after a step");
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

/// A link whose centre of mass is off its origin: the record keeps the velocity of the
/// origin (not of the centre of mass), and its finite-difference acceleration is that of
/// the origin, which turns about the centre of mass (free fall plus the centripetal part).
#[test]
fn a_link_spinning_about_a_centre_of_mass_off_its_origin_records_its_origins_motion() {
    let text = r#"<model name="arm"><pose>0 0 50 0 0 0</pose><link name="l">
        <inertial><pose>0.5 0 0 0 0 0</pose><mass>1</mass><inertia><ixx>0.1</ixx><iyy>0.1</iyy><izz>0.1</izz></inertia></inertial>
        <collision name="c"><geometry><sphere><radius>0.1</radius></sphere></geometry></collision>
        </link></model>"#;
    let mut p = Physics::build(&world(text)).unwrap();
    let link = p.entity_id("arm::l").unwrap();
    // Spinning at 2 rad/s about z through the centre of mass: the origin, 0.5 m from it,
    // moves at 1 m/s along -y.
    p.apply(&PhysicsCommand::SetVelocity(
        link,
        Vec3::new(0.0, -1.0, 0.0),
        Vec3::new(0.0, 0.0, 2.0),
    ))
    .unwrap();
    let EntityData::Link { body, .. } = p.entities.get(link).unwrap().data else {
        panic!("not a link");
    };
    for _ in 0..100 {
        p.step();
    }
    assert!(p.links.fresh);
    let k = p.kinematics_of(link).unwrap();
    let live = origin_velocity(p.pw.bodies.get(body).unwrap());
    assert_eq!((k.linear_velocity, k.angular_velocity), live);
    // The origin circles the centre of mass at 1 m/s (horizontally) while both fall.
    let horizontal = (k.linear_velocity.x.powi(2) + k.linear_velocity.y.powi(2)).sqrt();
    assert!((horizontal - 1.0).abs() < 1e-3, "{:?}", k.linear_velocity);
    // Its acceleration: gravity, and 2^2 x 0.5 = 2 m/s^2 towards the centre of mass.
    let a = k.linear_acceleration;
    let centre = p
        .kinematics_of(link)
        .unwrap()
        .pose
        .orientation
        .rotate(Vec3::new(0.5, 0.0, 0.0));
    let towards = (a.x * centre.x + a.y * centre.y) / 0.5;
    assert!((towards - 2.0).abs() < 0.02, "{a:?} towards {centre:?}");
    assert!((a.z + 9.8).abs() < 1e-2, "{a:?}");
}

#[test]
fn links_spawned_and_spawned_into_removed_links_slots_record_their_motion() {
    // Boxes spawned into a running world are recorded from the next step, a static model's
    // link is at rest, and a box spawned after one was removed takes the removed link's slot
    // and is recorded as its own body.
    let mut p = Physics::build(&world(BOX)).unwrap();
    for _ in 0..10 {
        p.step();
    }
    let ball = |name: &str, x: f64| {
        sim_sdf::parse_model_str(
            &format!(
                r#"<model name="{name}"><pose>{x} 0 20 0 0 0</pose><link name="l">
                <inertial><mass>1</mass></inertial>
                <collision name="c"><geometry><sphere><radius>0.1</radius></sphere></geometry></collision>
                </link></model>"#
            ),
            None,
        )
        .unwrap()
    };
    let post = r#"<model name="post"><static>true</static><pose>-5 0 1 0 0 0</pose><link name="l">
        <collision name="c"><geometry><box><size>0.2 0.2 2</size></box></geometry></collision>
        </link></model>"#;
    let post = p
        .spawn_model(&sim_sdf::parse_model_str(post, None).unwrap())
        .unwrap();
    let first = p.spawn_model(&ball("first", 5.0)).unwrap();
    let falling = |p: &Physics, id| {
        let k = p.kinematics_of(id).unwrap();
        assert!(
            (k.linear_velocity.z + 0.98).abs() < 1e-3
                && (k.linear_acceleration.z + 9.8).abs() < 1e-3,
            "{k:?}"
        );
    };
    for _ in 0..100 {
        p.step();
    }
    falling(&p, first);
    let k = p.kinematics_of(post).unwrap();
    assert_eq!(
        (k.linear_velocity, k.linear_acceleration, k.pose.position),
        (Vec3::ZERO, Vec3::ZERO, Vec3::new(-5.0, 0.0, 1.0))
    );
    p.remove_model(first).unwrap();
    let second = p.spawn_model(&ball("second", 8.0)).unwrap();
    for _ in 0..100 {
        p.step();
    }
    falling(&p, second);
}
