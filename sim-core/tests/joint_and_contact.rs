//! Sensors inside joints, and the force-torque and contact plugins loaded from their real
//! libraries into a real rapier world: a weight hanging from a fixed joint reads m g in the
//! child, parent and sensor frames; a box resting on the ground has contact forces that add
//! up to m g; a falling box touches nothing.

use crate::common;

use common::*;
use sim_core::runner::{SimOptions, Simulation};
use sim_plugin_api::{ContactPoint, EntityKind, Payload, Vec3, WorldView, Wrench};

const LIBS: &[&str] = &["simcore_plugin_force_torque", "simcore_plugin_contact"];

fn wrench(p: &Payload) -> Wrench {
    match p {
        Payload::Wrench(w) => **w,
        other => panic!("not a Wrench message: {other:?}"),
    }
}

fn contacts(p: &Payload) -> Vec<ContactPoint> {
    match p {
        Payload::Contacts(c) => c.iter().copied().collect(),
        other => panic!("not a Contacts message: {other:?}"),
    }
}

fn near(a: Vec3, b: Vec3, tol: f64) -> bool {
    (a - b).length() <= tol
}

/// A rig: a base link pitched +90° (its x axis points down), held to the world by a fixed
/// joint, and a 2 kg weight rolled +90° (its y axis points up) hanging from the base by the
/// fixed joint `wrist`, which carries the given sensors.
fn rig(sensors: &str) -> String {
    format!(
        r#"<model name="rig">
      <link name="base">
        <pose>0 0 2 0 1.5707963267948966 0</pose>
        <inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial>
      </link>
      <link name="weight">
        <pose>0 0 1 1.5707963267948966 0 0</pose>
        <inertial><mass>2</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial>
      </link>
      <joint name="anchor" type="fixed"><parent>world</parent><child>base</child></joint>
      <joint name="wrist" type="fixed"><parent>base</parent><child>weight</child>{sensors}</joint>
    </model>"#
    )
}

fn ft(name: &str, body: &str) -> String {
    format!(
        r#"<sensor name="{name}" type="force_torque"><update_rate>0</update_rate>{body}</sensor>"#
    )
}

fn options() -> SimOptions {
    SimOptions {
        seed: 0,
        threads: 1,
    }
}

#[test]
fn a_joint_sensor_is_on_the_child_link_under_its_joint() {
    let dir = stage(LIBS);
    let sensors = [ft("ft", ""), ft("off", "<pose>0.5 0 0 0 0 0</pose>")].concat();
    let sim = sim_from(&world(&rig(&sensors)), dir.path(), 0, 1);
    let physics = sim.physics();
    let view = physics.view("test");
    let joint = physics.entity_id("rig::wrist").expect("the joint");
    let weight = physics.entity_id("rig::weight").expect("the child link");
    let base = physics.entity_id("rig::base").expect("the parent link");
    let sensor = physics
        .entity_id("rig::wrist::ft")
        .expect("the joint's sensor");
    let info = view.entity_info(sensor).into_option().unwrap();
    assert_eq!(info.kind, EntityKind::SENSOR);
    assert_eq!(info.parent, joint);
    assert_eq!(info.name.as_str(), "ft");
    assert_eq!(physics.entity_id("rig::wrist::__parent__"), Some(base));
    assert_eq!(physics.entity_id("rig::wrist::__child__"), Some(weight));
    assert_eq!(
        physics.entity_id("rig::anchor::__parent__"),
        Some(sim_plugin_api::EntityId::WORLD)
    );
    // At the joint pose (the child origin) composed with the sensor pose, in the child.
    let on = |name: &str| {
        physics
            .kinematics_of(physics.entity_id(name).unwrap())
            .unwrap()
            .pose
            .position
    };
    assert!(near(on("rig::wrist::ft"), Vec3::new(0.0, 0.0, 1.0), 1e-6));
    assert!(near(on("rig::wrist::off"), Vec3::new(0.5, 0.0, 1.0), 1e-6));
    let topics = sim.topics();
    for t in [
        "/world/test/model/rig/joint/wrist/sensor/ft/forcetorque",
        "/world/test/model/rig/joint/wrist/sensor/off/forcetorque",
    ] {
        assert!(topics.iter().any(|x| x == t), "{t} not in {topics:?}");
    }
}

#[test]
fn a_hanging_weight_reads_m_g_in_each_frame() {
    let dir = stage(LIBS);
    let sensors = [
        ft("child", ""),
        ft(
            "parent",
            "<force_torque><frame>parent</frame></force_torque>",
        ),
        ft(
            "sensor",
            "<pose>0 0 0 0 0 1.5707963267948966</pose><force_torque><frame>sensor</frame>\
             <measure_direction>parent_to_child</measure_direction></force_torque>",
        ),
        ft("off", "<pose>0.5 0 0 0 0 0</pose>"),
    ]
    .concat();
    let mut sim = sim_from(&world(&rig(&sensors)), dir.path(), 0, 1);
    let topic = |s: &str| format!("/world/test/model/rig/joint/wrist/sensor/{s}/forcetorque");
    let subs: Vec<_> = ["child", "parent", "sensor", "off"]
        .iter()
        .map(|s| sim.bus_mut().subscribe(&topic(s), 10_000))
        .collect();
    for _ in 0..500 {
        sim.step();
    }
    assert!(sim.failures().is_empty(), "{:?}", sim.failures());
    let series: Vec<_> = subs.iter().map(collect).collect();
    for s in &series {
        assert_eq!(s.len(), 500);
    }
    let last = |i: usize| wrench(&series[i].last().unwrap().2);
    let mg = 2.0 * 9.8;
    let tol = 0.01 * mg;
    // Child to parent: the weight pulls the base down, (0, 0, -m g) in the world. The weight
    // is rolled +90° about x, so the world's -z is its -y.
    let c = last(0);
    assert!(near(c.force, Vec3::new(0.0, -mg, 0.0), tol), "{c:?}");
    assert!(c.torque.length() < 0.05, "{c:?}");
    // The base is pitched +90° about y: the world's -z is its +x.
    let p = last(1);
    assert!(near(p.force, Vec3::new(mg, 0.0, 0.0), tol), "{p:?}");
    // Parent to child in the sensor frame (the child's frame yawed +90°, so that the sensor's
    // x axis is the child's y axis): +m g along the child's +y, the sensor's +x.
    let s = last(2);
    assert!(near(s.force, Vec3::new(mg, 0.0, 0.0), tol), "{s:?}");
    // 0.5 m along +x from the joint, the downward pull at the joint turns about the world's
    // -y: (O - S) × f = (-0.5, 0, 0) × (0, 0, -m g) = (0, -m g / 2, 0), the child's +z.
    let o = last(3);
    assert!(near(o.force, c.force, 1e-9), "{o:?}");
    assert!(near(o.torque, Vec3::new(0.0, 0.0, mg / 2.0), 0.05), "{o:?}");
}

#[test]
fn force_torque_configuration_errors() {
    let dir = stage(LIBS);
    let load = |sdf: String| load_error(&sdf, dir.path());
    let e = load(world(&rig(&ft(
        "ft",
        "<force_torque><frame>world</frame></force_torque>",
    ))));
    assert!(
        e.contains("rig::wrist::ft: <force_torque><frame> must be child, parent or sensor"),
        "{e}"
    );
}

/// A force-torque sensor on a link rather than a joint loads (as in gz-sim) and never
/// publishes.
#[test]
fn a_force_torque_sensor_outside_a_joint_does_not_update() {
    let dir = stage(LIBS);
    let mut sim = sim_from(
        &world(&box_model("b", 1.0, &ft("ft", ""))),
        dir.path(),
        0,
        1,
    );
    let sub = sim
        .bus_mut()
        .subscribe("/world/test/model/b/link/body/sensor/ft/forcetorque", 64);
    for _ in 0..20 {
        sim.step();
    }
    assert!(sub.drain().is_empty());
    assert!(sim.failures().is_empty());
}

fn contact(collisions: &str) -> String {
    format!(
        r#"<sensor name="touch" type="contact"><update_rate>0</update_rate><contact>{collisions}</contact></sensor>"#
    )
}

#[test]
fn a_resting_box_has_contact_forces_adding_up_to_m_g() {
    let dir = stage(LIBS);
    let mut sim = sim_from(
        &world(&box_model(
            "rest",
            0.1,
            &contact("<collision>c</collision>"),
        )),
        dir.path(),
        0,
        1,
    );
    let sub = sim.bus_mut().subscribe(
        "/world/test/model/rest/link/body/sensor/touch/contact",
        10_000,
    );
    for _ in 0..1000 {
        sim.step();
    }
    assert!(sim.failures().is_empty(), "{:?}", sim.failures());
    let msgs = collect(&sub);
    assert_eq!(msgs.len(), 1000);
    let physics = sim.physics();
    let view = physics.view("test");
    let own = physics.entity_id("rest::body::c").unwrap();
    let ground = physics.entity_id("ground::link::c").unwrap();
    let points = contacts(&msgs.last().unwrap().2);
    assert!(!points.is_empty());
    let mut total = Vec3::ZERO;
    for p in &points {
        assert_eq!(p.collision1, own);
        assert_eq!(p.collision2, ground);
        let other = view.entity_info(p.collision2).into_option().unwrap();
        assert_eq!(other.scoped_name.as_str(), "ground::link::c");
        assert_eq!(other.kind, EntityKind::COLLISION);
        assert!(
            p.normal.z < -0.99,
            "normal from the box towards the ground: {p:?}"
        );
        assert!(p.position.z.abs() < 1e-2, "{p:?}");
        total = total + p.force;
    }
    assert!(near(total, Vec3::new(0.0, 0.0, 9.8), 0.098), "{total:?}");
}

#[test]
fn a_falling_box_touches_nothing_and_unknown_collisions_are_refused() {
    let dir = stage(LIBS);
    let mut sim = sim_from(
        &world(&box_model(
            "drop",
            5.0,
            &contact("<collision>c</collision>"),
        )),
        dir.path(),
        0,
        1,
    );
    let sub = sim.bus_mut().subscribe(
        "/world/test/model/drop/link/body/sensor/touch/contact",
        10_000,
    );
    for _ in 0..100 {
        sim.step();
    }
    assert!(sim.failures().is_empty(), "{:?}", sim.failures());
    let msgs = collect(&sub);
    assert_eq!(msgs.len(), 100, "an empty list every update");
    assert!(msgs.iter().all(|m| contacts(&m.2).is_empty()));

    let parsed = sim_core::sdf::parse_str(
        &world(&box_model(
            "b",
            1.0,
            &contact("<collision>c</collision><collision>bumper</collision>"),
        )),
        None,
    )
    .unwrap();
    let e = match Simulation::new(parsed, registry_in(dir.path()), &options()) {
        Ok(_) => panic!("loaded"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains(
            "b::body::touch: <contact><collision> must be the name of a collision of link \
             `b::body`, found \"bumper\""
        ),
        "{e}"
    );
}

/// As gz-sim's Contact system, a contact sensor publishes on `<contact><topic>`; the
/// sensor-level `<topic>` is not used (the load warns about it), so without `<contact><topic>`
/// the sensor keeps its default topic.
#[test]
fn a_contact_sensor_publishes_on_its_contact_topic() {
    let dir = stage(LIBS);
    let sensors = r#"
        <sensor name="inner" type="contact"><topic>/ignored</topic>
          <contact><collision>c</collision><topic>/bumper</topic></contact></sensor>
        <sensor name="outer" type="contact"><topic>/also_ignored</topic>
          <contact><collision>c</collision></contact></sensor>"#;
    let sdf = world(&box_model("rest", 0.1, sensors));
    let sim = sim_from(&sdf, dir.path(), 0, 1);
    let topics = sim.topics();
    for t in [
        "/bumper",
        "/world/test/model/rest/link/body/sensor/outer/contact",
    ] {
        assert!(topics.iter().any(|x| x == t), "{t} not in {topics:?}");
    }
    for t in ["/ignored", "/also_ignored"] {
        assert!(!topics.iter().any(|x| x == t), "{t} in {topics:?}");
    }

    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), &sdf).unwrap();
    let (_, warnings) =
        sim_core::sdf::load_document_with_warnings(file.path(), &Default::default());
    let about_topic: Vec<_> = warnings
        .iter()
        .filter(|w| {
            w.message
                .contains("<topic> of a contact sensor is not used")
        })
        .collect();
    assert_eq!(about_topic.len(), 2, "{warnings:?}");
}
