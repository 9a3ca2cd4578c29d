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
