//! The plan of real SDF worlds: load order, topics, frame ids, seeds and entities.

use super::*;
use crate::sensors::derive_seed;
use sim_plugin_api::Pose;

const WORLD: &str = r#"<?xml version="1.0"?>
<sdf version="1.9">
  <world name="w 1">
    <plugin filename="world_lib" name="my::World"/>
    <model name="robot">
      <link name="base">
        <inertial><mass>1</mass></inertial>
        <sensor name="imu" type="imu"><update_rate>100</update_rate>
          <plugin filename="sensor_lib" name="my::OnImu"/>
        </sensor>
        <sensor name="cam" type="camera">
          <topic>custom/cam</topic><frame_id>cam_frame</frame_id>
          <trigger_topic>go</trigger_topic><triggered>true</triggered>
        </sensor>
        <plugin filename="link_lib" name="my::OnLink"/>
      </link>
      <link name="arm">
        <pose>0 0 1 0 0 0</pose>
        <inertial><mass>1</mass></inertial>
      </link>
      <joint name="elbow" type="revolute">
        <parent>base</parent><child>arm</child>
        <pose>0 0 0.5 0 0 0</pose>
        <axis><xyz>0 1 0</xyz></axis>
        <sensor name="ft" type="force_torque"><pose>0 0 0.1 0 0 0</pose></sensor>
      </joint>
      <plugin filename="model_lib" name="my::OnModel"/>
      <model name="hand">
        <link name="palm">
          <inertial><mass>1</mass></inertial>
          <sensor name="touch" type="contact"/>
        </link>
      </model>
    </model>
  </world>
</sdf>"#;

/// Gazebo's topic suffixes, as for libraries that declare none.
fn gazebo(sensor_type: &str) -> String {
    sim_transport::sensor_topic_suffix(sensor_type).to_string()
}

fn plan_of(text: &str, seed: u64) -> (Plan, Physics) {
    let world = sim_sdf::parse_str(text, None).expect("the world reads");
    let physics = Physics::build(&world).expect("the world builds");
    (Plan::world(&world, &physics, seed, &gazebo), physics)
}

#[test]
fn sensors_are_planned_in_load_order_with_their_topics() {
    let (plan, _) = plan_of(WORLD, 7);
    let names: Vec<&str> = plan.sensors().map(|s| s.scoped_name.as_str()).collect();
    assert_eq!(
        names,
        [
            "robot::base::imu",
            "robot::base::cam",
            "robot::elbow::ft",
            "robot::hand::palm::touch"
        ]
    );
    let topics: Vec<&str> = plan.sensors().map(|s| s.topic.as_str()).collect();
    assert_eq!(
        topics,
        [
            "/world/w_1/model/robot/link/base/sensor/imu/imu",
            "/custom/cam",
            "/world/w_1/model/robot/joint/elbow/sensor/ft/forcetorque",
            "/world/w_1/model/robot/model/hand/link/palm/sensor/touch/contact",
        ]
    );
    let s: Vec<&SensorSetup> = plan.sensors().collect();
    assert_eq!(
        s[0].trigger_topic,
        "/world/w_1/model/robot/link/base/sensor/imu/imu/trigger"
    );
    assert_eq!(s[1].trigger_topic, "/go");
    assert!(s[1].triggered && !s[0].triggered);
    assert_eq!(s[0].update_rate, 100.0);
}

#[test]
fn frame_ids_default_to_the_scoped_name() {
    let (plan, _) = plan_of(WORLD, 0);
    let frames: Vec<&str> = plan.sensors().map(|s| s.frame_id.as_str()).collect();
    assert_eq!(
        frames,
        [
            "robot::base::imu",
            "cam_frame",
            "robot::elbow::ft",
            "robot::hand::palm::touch"
        ]
    );
}

#[test]
fn seeds_derive_from_the_run_seed_and_the_scoped_name() {
    let (a, _) = plan_of(WORLD, 7);
    let (b, _) = plan_of(WORLD, 8);
    for (x, y) in a.sensors().zip(b.sensors()) {
        assert_eq!(x.seed, derive_seed(7, &x.scoped_name));
        assert_eq!(y.seed, derive_seed(8, &y.scoped_name));
        assert_ne!(x.seed, y.seed);
    }
    for s in a.systems() {
        assert_eq!(
            s.seed,
            derive_seed(7, &format!("{}::plugin::{}", s.entity_name, s.name))
        );
    }
}

#[test]
fn entities_are_those_of_the_physics_build() {
    let (plan, physics) = plan_of(WORLD, 0);
    let id = |n: &str| physics.entity_id(n).expect(n);
    let s: Vec<&SensorSetup> = plan.sensors().collect();
    assert_eq!(s[0].entity, id("robot::base::imu"));
    assert_eq!(s[0].link, id("robot::base"));
    assert_eq!(s[0].model, id("robot"));
    // A joint's sensor sits on the joint's child link, posed in it through the joint frame.
    assert_eq!(s[2].entity, id("robot::elbow::ft"));
    assert_eq!(s[2].link, id("robot::arm"));
    let z = s[2].pose.position.z;
    assert!((z - 0.6).abs() < 1e-12, "{z}");
    // A nested model's sensor belongs to the nested model.
    assert_eq!(s[3].model, id("robot::hand"));
    assert_eq!(s[3].link, id("robot::hand::palm"));
    assert_eq!(s[0].pose, Pose::IDENTITY);
}

#[test]
fn system_plugins_are_planned_with_their_entity_and_namespace() {
    let (plan, physics) = plan_of(WORLD, 0);
    let id = |n: &str| physics.entity_id(n).expect(n);
    let systems: Vec<(&str, EntityId, &str, &str)> = plan
        .systems()
        .map(|s| {
            (
                s.name.as_str(),
                s.entity,
                s.entity_name.as_str(),
                s.namespace.as_str(),
            )
        })
        .collect();
    assert_eq!(
        systems,
        [
            ("my::World", EntityId::WORLD, "w 1", "/world/w_1"),
            (
                "my::OnLink",
                id("robot::base"),
                "robot::base",
                "/model/robot"
            ),
            (
                "my::OnImu",
                id("robot::base::imu"),
                "robot::base::imu",
                "/model/robot"
            ),
            ("my::OnModel", id("robot"), "robot", "/model/robot"),
        ]
    );
}

#[test]
fn an_invalid_topic_is_a_problem_and_its_sensor_is_not_loaded() {
    let text = WORLD.replace("<topic>custom/cam</topic>", "<topic>bad topic</topic>");
    let text = text.replace(
        r#"<sensor name="imu" type="imu"><update_rate>100</update_rate>"#,
        r#"<sensor name="imu" type="imu"><update_rate>100</update_rate><trigger_topic>a//b</trigger_topic>"#,
    );
    let (plan, _) = plan_of(&text, 0);
    let problems: Vec<&PluginProblem> = plan
        .items
        .iter()
        .filter_map(|i| match i {
            Planned::Problem(p) => Some(p),
            _ => None,
        })
        .collect();
    assert_eq!(problems.len(), 2);
    assert_eq!(
        problems[0].subject,
        "sensor `robot::base::imu` (type `imu`)"
    );
    assert_eq!(
        problems[0].message,
        "invalid topic name `a//b`: it contains an empty segment (`//`); fix <trigger_topic>"
    );
    assert_eq!(
        problems[1].subject,
        "sensor `robot::base::cam` (type `camera`)"
    );
    assert_eq!(
        problems[1].message,
        "invalid topic name `bad topic`: it contains whitespace; fix <topic> or remove it to \
         use the default name"
    );
    // Neither sensor, nor the imu's own plugin, is planned.
    assert_eq!(plan.sensors().count(), 2);
    assert!(plan.systems().all(|s| s.name != "my::OnImu"));
}

#[test]
fn a_model_not_yet_built_is_planned_without_entities() {
    let world = sim_sdf::parse_str(WORLD, None).unwrap();
    let physics = Physics::build(&world).unwrap();
    let mut model = world.models[0].clone();
    model.name = "copy".into();
    let plan = Plan::model(&world, &physics, &model, 3, &gazebo);
    let s: Vec<&SensorSetup> = plan.sensors().collect();
    assert_eq!(s[0].scoped_name, "copy::base::imu");
    assert_eq!(s[0].topic, "/world/w_1/model/copy/link/base/sensor/imu/imu");
    assert!(
        s.iter()
            .all(|s| s.entity == EntityId::NONE && s.model == EntityId::NONE)
    );
    assert!(
        plan.systems()
            .all(|s| s.namespace.starts_with("/model/copy"))
    );
}

#[test]
fn unresolved_entries_keep_the_plan_order() {
    let (plan, _) = plan_of(WORLD, 0);
    let planned = plan.items.len();
    let registry = Registry::default();
    let r = plan.resolve(&registry);
    assert_eq!(
        r.problems.len(),
        planned,
        "nothing is served by an empty registry"
    );
    let subjects: Vec<&str> = r.problems.iter().map(|p| p.subject.as_str()).collect();
    assert_eq!(
        subjects,
        [
            "plugin `my::World` (filename `world_lib`)",
            "plugin `my::OnLink` (filename `link_lib`)",
            "sensor `robot::base::imu` (type `imu`)",
            "plugin `my::OnImu` (filename `sensor_lib`)",
            "sensor `robot::base::cam` (type `camera`)",
            "sensor `robot::elbow::ft` (type `force_torque`)",
            "plugin `my::OnModel` (filename `model_lib`)",
            "sensor `robot::hand::palm::touch` (type `contact`)",
        ]
    );
    assert!(
        r.problems[2]
            .message
            .starts_with("no plugin library serves sensor type `imu`; types served: none")
    );
}

const GAZEBO_WORLD: &str = r#"<?xml version="1.0"?>
<sdf version="1.9">
  <world name="g">
    <plugin filename="gz-sim-physics-system" name="gz::sim::systems::Physics">
      <engine><filename>gz-physics-bullet-featherstone-plugin</filename></engine>
    </plugin>
    <plugin filename="libignition-gazebo6-user-commands-system.so" name="ignition::gazebo::systems::UserCommands"/>
    <plugin filename="dummy" name="gz::sim"/>
    <plugin filename="gz-sim-lift-drag-system" name="gz::sim::systems::LiftDrag"/>
    <model name="box">
      <link name="body">
        <inertial><mass>1</mass></inertial>
        <sensor name="s" type="sonar"/>
      </link>
    </model>
  </world>
</sdf>"#;

#[test]
fn gazebo_policy_skips_what_nothing_serves_and_strict_refuses_it() {
    let registry = Registry::default();
    let (plan, _) = plan_of(GAZEBO_WORLD, 0);
    let r = plan.clone().resolve_with(&registry, PluginPolicy::Gazebo);
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    let skipped: Vec<&str> = r.skipped.iter().map(|p| p.subject.as_str()).collect();
    assert_eq!(
        skipped,
        [
            "plugin `gz::sim::systems::LiftDrag` (filename `gz-sim-lift-drag-system`)",
            "sensor `box::body::s` (type `sonar`)",
        ]
    );
    assert!(
        r.skipped[0].message.contains("gz-sim's `LiftDrag` system"),
        "{}",
        r.skipped[0].message
    );
    // Physics's engine does not apply; the ignition spelling is deprecated; without the
    // factory and truth plugins the UserCommands services are not offered.
    let notices: Vec<&str> = r.notices.iter().map(|p| p.message.as_str()).collect();
    assert_eq!(notices.len(), 4, "{notices:?}");
    assert!(notices[0].contains("`<engine>` is not applicable"));
    assert!(
        notices[1].contains("deprecated") && notices[1].contains("gz::sim::systems::UserCommands")
    );
    assert!(notices[2].contains("create and remove services are not offered"));
    assert!(notices[3].contains("set_pose services are not offered"));

    let r = plan.resolve_with(&registry, PluginPolicy::Strict);
    assert!(r.skipped.is_empty());
    assert_eq!(r.problems.len(), 2);
}

#[test]
fn a_world_without_systems_gets_the_server_config_defaults() {
    let world = sim_sdf::parse_str(
        "<sdf version='1.9'><world name='w'><model name='m'><link name='l'/></model></world></sdf>",
        None,
    )
    .unwrap();
    let physics = Physics::build(&world).unwrap();
    let mut plan = Plan::world(&world, &physics, 0, &gazebo);
    plan.add_default_systems(&world);
    let names: Vec<&str> = plan.systems().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "gz::sim::systems::Physics",
            "gz::sim::systems::UserCommands",
            "gz::sim::systems::SceneBroadcaster",
        ]
    );
    let registry = Registry::default();
    let r = plan.resolve_with(&registry, PluginPolicy::Strict);
    assert!(r.problems.is_empty() && r.skipped.is_empty());
    // A world that names a system keeps only its own.
    let (mut plan, _) = plan_of(GAZEBO_WORLD, 0);
    let before = plan.items.len();
    let world = sim_sdf::parse_str(GAZEBO_WORLD, None).unwrap();
    plan.add_default_systems(&world);
    assert_eq!(plan.items.len(), before);
}
