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

/// A model of `links` dynamic links, each a sphere at the world origin.
fn heap_model(name: &str, links: usize) -> String {
    let links: String = (0..links)
        .map(|k| {
            format!(
                "<link name=\"l{k}\"><inertial><mass>1</mass></inertial><collision name=\"c\">\
                 <geometry><sphere><radius>0.5</radius></sphere></geometry></collision></link>"
            )
        })
        .collect();
    format!("<sdf version=\"1.9\"><model name=\"{name}\">{links}</model></sdf>")
}

#[test]
fn a_model_overlapping_the_world_past_the_pair_limit_is_not_created() {
    // 100 spheres at one point: 4,950 pairs, within a limit of 6,000.
    let mut w = sim_sdf::parse_str(
        &format!(
            "<sdf version=\"1.9\"><world name=\"w\">{}</world></sdf>",
            heap_model("heap", 100)
                .trim_start_matches("<sdf version=\"1.9\">")
                .trim_end_matches("</sdf>")
        ),
        None,
    )
    .unwrap();
    w.limits.max_overlapping_pairs = 6_000;
    let mut p = Physics::build(&w).unwrap();
    p.step();
    let before = p.retained();
    // 20 more there make 120: 7,140 pairs. Refused, and nothing of it is kept.
    let more = sim_sdf::parse_model_str(&heap_model("more", 20), None).unwrap();
    let e = p.spawn_model(&more).unwrap_err();
    assert!(
        e.message
            .contains("the world with this model overlap one another in more than 6000")
            && e.message.contains("--max-overlapping-pairs"),
        "{}",
        e.message
    );
    // (The motion slots its links took are free for the next links.)
    let after = p.retained();
    assert_eq!(
        Retained {
            link_slots: before.link_slots,
            ..after
        },
        before
    );
    assert!(p.entity_id("more").is_none());
    // 5 more make 105: 5,460 pairs, created, in slots the refused model freed.
    let few = sim_sdf::parse_model_str(&heap_model("few", 5), None).unwrap();
    p.spawn_model(&few).unwrap();
    assert_eq!(p.retained().link_slots, after.link_slots);
    assert_eq!(p.retained().bodies, before.bodies + 5);
    p.step();
}
