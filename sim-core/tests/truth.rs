//! The truth widget (pose publisher) system, loaded as a real library: pose lists at the
//! configured rate, and the set_pose service seen by a ray in the same step.

use crate::common;

use common::*;
use sim_core::runner::Simulation;
use sim_plugin_api::{
    EntityId, Message, NamedPose, Payload, Pose, Ray, RayCastOptions, RayHit, RayTarget, Vec3,
    WorldView, abi_stable::std_types::RBox,
};

fn truth_world(world_plugin: &str, model_plugin: &str) -> (Simulation, tempfile::TempDir) {
    let dir = stage(&["simcore_plugin_truth"]);
    let models = format!(
        r#"{world_plugin}
        {}
        {}
        <model name="outer">
          <pose>-2 0 0.5 0 0 0</pose>
          <static>true</static>
          <link name="base"><collision name="c"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision></link>
          <model name="inner">
            <pose>0 1 0 0 0 0</pose>
            <link name="part"><collision name="c"><geometry><sphere><radius>0.1</radius></sphere></geometry></collision></link>
          </model>
          {model_plugin}
        </model>"#,
        box_model("a", 0.1, ""),
        box_model("b", 3.0, ""),
    );
    let sim = sim_from(&world(&models), dir.path(), 0, 1);
    (sim, dir)
}

fn pose_lists(sub: &sim_core::transport::Subscription) -> Vec<(i64, Vec<NamedPose>)> {
    collect(sub)
        .into_iter()
        .map(|(stamp, _, p)| match p {
            Payload::PoseList(l) => (stamp, l.iter().cloned().collect()),
            other => panic!("not a pose list: {other:?}"),
        })
        .collect()
}

fn names(l: &[NamedPose]) -> Vec<&str> {
    l.iter().map(|p| p.name.as_str()).collect()
}

fn close(a: Pose, b: Pose) -> bool {
    (a.position - b.position).length() < 1e-9
        && (a.orientation.w - b.orientation.w).abs() < 1e-9
        && (a.orientation.z - b.orientation.z).abs() < 1e-9
}

#[test]
fn world_pose_list_at_the_configured_rate() {
    let (mut sim, _dir) = truth_world(
        r#"<plugin filename="simcore_plugin_truth" name="gz::sim::systems::PosePublisher">
             <update_frequency>20</update_frequency>
           </plugin>"#,
        "",
    );
    let sub = sim.bus_mut().subscribe("/world/test/pose/info", 100);
    for _ in 0..1000 {
        assert!(sim.step().is_empty());
    }
    let lists = pose_lists(&sub);
    // 20 Hz over 1 s with a 1 ms step: at 1 ms, 51 ms, ..., 951 ms.
    assert_eq!(lists.len(), 20);
    for w in lists.windows(2) {
        assert_eq!(w[1].0 - w[0].0, 50_000_000);
    }
    let (_, last) = lists.last().unwrap();
    assert_eq!(names(last), ["ground", "a", "b", "outer"]);
    let b_before = last.iter().find(|p| p.name.as_str() == "b").unwrap().pose;
    // Step until the next list: it holds the poses of the state just stepped to.
    let list = loop {
        sim.step();
        if let Some((_, l)) = pose_lists(&sub).pop() {
            break l;
        }
    };
    for p in &list {
        let id = sim.physics().entity_id(p.name.as_str()).unwrap();
        let truth = sim.physics().kinematics_of(id).unwrap().pose;
        assert!(
            close(p.pose, truth),
            "{}: {:?} vs {truth:?}",
            p.name,
            p.pose
        );
    }
    // Box b is falling: its height in the list changed.
    let b_after = list.iter().find(|p| p.name.as_str() == "b").unwrap().pose;
    assert!(b_after.position.z < b_before.position.z);
}

#[test]
fn links_and_nested_models_on_request_and_a_model_plugin() {
    let (mut sim, _dir) = truth_world(
        r#"<plugin filename="simcore_plugin_truth" name="simcore::TruthWidget">
             <update_frequency>0</update_frequency>
             <publish_link_pose>true</publish_link_pose>
             <publish_nested_model_pose>true</publish_nested_model_pose>
           </plugin>"#,
        r#"<plugin filename="simcore_plugin_truth" name="simcore::TruthWidget">
             <update_frequency>100</update_frequency>
             <publish_link_pose>true</publish_link_pose>
           </plugin>"#,
    );
    let world = sim.bus_mut().subscribe("/world/test/pose/info", 100);
    let model = sim.bus_mut().subscribe("/model/outer/pose", 100);
    for _ in 0..20 {
        sim.step();
    }
    let lists = pose_lists(&world);
    assert_eq!(lists.len(), 20, "every step");
    assert_eq!(
        names(&lists[0].1),
        [
            "ground",
            "a",
            "b",
            "outer",
            "outer::inner",
            "ground::link",
            "a::body",
            "b::body",
            "outer::base",
            "outer::inner::part"
        ]
    );
    let part = lists[0].1.last().unwrap().pose;
    assert!(
        (part.position - Vec3::new(-2.0, 1.0, 0.5)).length() < 1e-9,
        "{part:?}"
    );
    let lists = pose_lists(&model);
    assert_eq!(lists.len(), 2, "100 Hz");
    assert_eq!(names(&lists[0].1), ["outer", "outer::base"]);
}

fn set_pose(name: &str, pose: Pose) -> Message {
    Message::new(
        "",
        Payload::Pose(RBox::new(NamedPose {
            name: name.into(),
            pose,
        })),
    )
}

#[test]
fn set_pose_teleports_and_a_ray_sees_it_at_once() {
    let (mut sim, _dir) = truth_world(
        r#"<plugin filename="simcore_plugin_truth" name="gz::sim::systems::PosePublisher"/>"#,
        "",
    );
    assert!(sim.services().contains(&"/world/test/set_pose".to_string()));
    sim.step();
    // A ray looking down at (5, 5) from 10 m sees the ground.
    let cast = |sim: &Simulation| {
        let view = sim.physics().view("test");
        let mut hits = vec![RayHit::MISS];
        let ray = Ray {
            origin: Vec3::new(5.0, 5.0, 10.0),
            direction: Vec3::new(0.0, 0.0, -1.0),
        };
        view.cast_rays(
            [ray].as_slice().into(),
            &RayCastOptions {
                max_distance: 100.0,
                target: RayTarget::COLLISION,
                exclude_model: EntityId::NONE,
            },
            hits.as_mut_slice().into(),
        );
        hits[0]
    };
    let a = sim.physics().entity_id("a").unwrap();
    let ground = sim.physics().entity_id("ground").unwrap();
    assert_eq!(cast(&sim).model, ground);

    let reply = sim
        .call_service(
            "/world/test/set_pose",
            &set_pose("a", Pose::from_xyz_rpy(5.0, 5.0, 2.0, 0.0, 0.0, 0.5)),
        )
        .unwrap();
    assert!(matches!(
        reply.payload.as_enum(),
        Ok(Payload::Boolean(true))
    ));
    // Same step: the model is there and the ray sees its top face (2 + 0.1 m).
    let hit = cast(&sim);
    assert_eq!(hit.model, a);
    assert!((hit.distance - 7.9).abs() < 1e-4, "{hit:?}");
    let pose = sim.physics().kinematics_of(a).unwrap().pose;
    assert!((pose.position - Vec3::new(5.0, 5.0, 2.0)).length() < 1e-9);

    // Bad requests get errors and the run goes on.
    let e = sim
        .call_service("/world/test/set_pose", &set_pose("nobody", Pose::IDENTITY))
        .unwrap_err()
        .to_string();
    assert!(e.contains("no model `nobody`"), "{e}");
    let e = sim
        .call_service(
            "/world/test/set_pose",
            &set_pose("outer::inner::part::c", Pose::IDENTITY),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("is a collision"), "{e}");
    let e = sim
        .call_service(
            "/world/test/set_pose",
            &Message::new("", Payload::Text("a".into())),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("takes a Pose"), "{e}");
    let mut nan = Pose::IDENTITY;
    nan.position.x = f64::NAN;
    assert!(
        sim.call_service("/world/test/set_pose", &set_pose("a", nan))
            .is_err()
    );
    for _ in 0..100 {
        assert!(sim.step().is_empty());
    }
    assert!(sim.failures().is_empty());
    // The plugin is still serving and a falls from where it was put.
    let z = sim.physics().kinematics_of(a).unwrap().pose.position.z;
    assert!(z < 2.0 && z > 1.0, "{z}");
    assert!(
        sim.call_service(
            "/world/test/set_pose",
            &set_pose("a", Pose::from_xyz_rpy(0.0, 0.0, 1.0, 0.0, 0.0, 0.0))
        )
        .is_ok()
    );
}

#[test]
fn the_truth_widget_the_engine_adds_builds_pose_lists_only_while_someone_listens() {
    // No world plugin: the default systems, and the truth widget for the world's set_pose
    // service (UserCommands).
    let dir = stage(&["simcore_plugin_truth"]);
    let mut sim = sim_from(&world(&box_model("a", 1.0, "")), dir.path(), 0, 1);
    let topic = "/world/test/pose/info";
    assert!(sim.services().contains(&"/world/test/set_pose".to_string()));
    // Listed from the start, so that a transport can subscribe to it.
    assert!(
        sim.topics().iter().any(|t| t == topic),
        "{:?}",
        sim.topics()
    );
    for _ in 0..100 {
        assert!(sim.step().is_empty());
    }
    assert_eq!(sim.bus().stats(topic).published, 0, "nobody listened");
    let sub = sim.bus_mut().subscribe(topic, 100);
    for _ in 0..100 {
        assert!(sim.step().is_empty());
    }
    // 50 Hz from the first step with a listener: at 101, 121, ..., 181 ms.
    let lists = pose_lists(&sub);
    let stamps: Vec<i64> = lists.iter().map(|(t, _)| t / 1_000_000).collect();
    assert_eq!(stamps, [101, 121, 141, 161, 181]);
    let (_, last) = lists.last().unwrap();
    assert_eq!(names(last), ["ground", "a"]);
    // The poses are the engine's.
    let a = sim.physics().entity_id("a").unwrap();
    let truth = sim.physics().kinematics_of(a).unwrap().pose;
    let listed = last.iter().find(|p| p.name.as_str() == "a").unwrap().pose;
    assert!(
        listed.position.z > truth.position.z,
        "a falls: the last list is older"
    );
    // Unsubscribed: the bus forgets the subscription at the next list, and nothing more is
    // built.
    drop(sub);
    let published = sim.bus().stats(topic).published;
    for _ in 0..100 {
        assert!(sim.step().is_empty());
    }
    assert!(sim.bus().stats(topic).published <= published + 1);
}
