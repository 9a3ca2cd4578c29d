//! Run-time commands: teleports and spawned models.

use super::*;

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
    cast_into(&p.view("t"), &[down(5.0, 0.0, 10.0)], &opts, &mut hit);
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
fn spawned_models_are_seen_at_once_and_simulate() {
    let mut p = Physics::build(&world("")).unwrap();
    for _ in 0..10 {
        p.step();
    }
    let model = sim_sdf::parse_model_str(BOX, None).unwrap();
    let id = p.spawn_model(&model).unwrap();
    let opts = RayCastOptions {
        max_distance: 100.0,
        target: RayTarget::COLLISION,
        exclude_model: EntityId::NONE,
    };
    let mut hit = [RayHit::MISS];
    cast_into(&p.view("t"), &[down(0.0, 0.0, 10.0)], &opts, &mut hit);
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
