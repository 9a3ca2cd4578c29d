//! The factory system, loaded as a real library: models created from SDF text and files while
//! the world runs (with nested models, sensors and plugins), checked at call time, and removed.

use crate::common;

use common::*;
use sim_core::runner::{SimOptions, Simulation};
use sim_plugin_api::{
    EntityFactory, Message, Payload, Pose, Vec3,
    abi_stable::std_types::{RBox, RString},
};

const FACTORY: &str = r#"<plugin filename="simcore_plugin_factory" name="simcore::Factory"/>"#;
const CREATE: &str = "/world/test/create";
const REMOVE: &str = "/world/test/remove";

fn libs() -> tempfile::TempDir {
    stage(&[
        "simcore_plugin_factory",
        "simcore_plugin_imu",
        "simcore_fixture_testkit",
    ])
}

fn request(edit: impl FnOnce(&mut EntityFactory)) -> Message {
    let mut r = EntityFactory::default();
    edit(&mut r);
    Message::new("", Payload::EntityFactory(RBox::new(r)))
}

/// A crate model holding a nested model; the crate's body carries a 100 Hz IMU and the
/// nested model is pushed by the testkit's Pusher plugin.
fn crate_sdf(name: &str) -> String {
    format!(
        r#"<?xml version="1.0"?>
<sdf version="1.9">
  <model name="{name}">
    <pose>0 0 2 0 0 0</pose>
    <link name="body">
      <inertial><mass>1</mass><inertia><ixx>0.01</ixx><iyy>0.01</iyy><izz>0.01</izz></inertia></inertial>
      <collision name="c"><geometry><box><size>0.3 0.3 0.3</size></box></geometry></collision>
      <sensor name="imu" type="imu"><update_rate>100</update_rate></sensor>
    </link>
    <model name="lid">
      <pose>0 0 0.5 0 0 0</pose>
      <link name="plate">
        <inertial><mass>0.2</mass><inertia><ixx>0.001</ixx><iyy>0.001</iyy><izz>0.001</izz></inertia></inertial>
        <collision name="c"><geometry><box><size>0.3 0.3 0.05</size></box></geometry></collision>
      </link>
      <plugin filename="simcore_fixture_testkit" name="simcore::fixtures::Pusher"/>
    </model>
  </model>
</sdf>"#
    )
}

fn created(reply: Result<Message, sim_core::runner::ServiceError>) -> (String, Pose) {
    match reply {
        Ok(m) => match m.payload.as_enum() {
            Ok(Payload::Pose(p)) => (p.name.as_str().to_string(), p.pose),
            other => panic!("the reply is not a Pose: {other:?}"),
        },
        Err(e) => panic!("create failed: {e}"),
    }
}

fn steps(sim: &mut Simulation, n: usize) {
    for _ in 0..n {
        let f = sim.step();
        assert!(f.is_empty(), "{f:?}");
    }
}

#[test]
fn creates_from_text_with_a_nested_model_a_sensor_and_a_plugin() {
    let dir = libs();
    let mut sim = sim_from(&world(FACTORY), dir.path(), 0, 1);
    assert_eq!(sim.services(), vec![CREATE.to_string(), REMOVE.to_string()]);
    let imu_topic = "/world/test/model/crate/link/body/sensor/imu/imu";
    let imu = sim.bus_mut().subscribe(imu_topic, 1000);
    let lid_pose = sim.bus_mut().subscribe("/model/crate/model/lid/pose", 1000);
    steps(&mut sim, 50);

    let reply = sim.call_service(
        CREATE,
        &request(|r| {
            r.sdf = crate_sdf("crate").into();
            r.pose = Pose::from_xyz_rpy(3.0, -1.0, 1.0, 0.0, 0.0, 0.0);
        }),
    );
    let (name, pose) = created(reply);
    assert_eq!(name, "crate");
    assert_eq!(
        pose.position,
        Vec3::new(3.0, -1.0, 1.0),
        "the request's pose"
    );
    // The model exists at once (ray casts see it) and its world pose is the requested one.
    let id = sim.physics().entity_id("crate").expect("created");
    let p = sim.physics().kinematics_of(id).unwrap().pose;
    assert!(
        (p.position - Vec3::new(3.0, -1.0, 1.0)).length() < 1e-9,
        "{p:?}"
    );
    assert!(sim.physics().entity_id("crate::lid::plate").is_some());

    steps(&mut sim, 100);
    let got = collect(&imu);
    assert_eq!(
        got.len(),
        11,
        "the new IMU publishes at 100 Hz: at the first step, then every 10 ms"
    );
    assert_eq!(got[0].1, 0, "its sequence starts at 0");
    assert!(
        !collect(&lid_pose).is_empty(),
        "the nested model's plugin runs"
    );
    assert!(sim.failures().is_empty());
}

#[test]
fn creates_from_a_file_beside_the_world_and_relative_to_a_model() {
    let dir = libs();
    let files = tempfile::tempdir().unwrap();
    std::fs::create_dir(files.path().join("models")).unwrap();
    std::fs::write(files.path().join("models/crate.sdf"), crate_sdf("crate")).unwrap();
    let world_file = files.path().join("w.sdf");
    std::fs::write(
        &world_file,
        world(&format!("{FACTORY}\n{}", box_model("anchor", 0.5, ""))),
    )
    .unwrap();
    let w = sim_core::sdf::load(&world_file).unwrap();
    let mut sim = Simulation::new(
        w,
        registry_in(dir.path()),
        &SimOptions {
            seed: 0,
            threads: 1,
        },
    )
    .unwrap();
    let anchor = sim.physics().entity_id("anchor").unwrap();
    let anchor_pose = sim.physics().kinematics_of(anchor).unwrap().pose;

    // Relative to the world file, placed 2 m in front of `anchor`, under a new name.
    let (name, pose) = created(sim.call_service(
        CREATE,
        &request(|r| {
            r.sdf_filename = "models/crate.sdf".into();
            r.name = "from_file".into();
            r.pose = Pose::from_xyz_rpy(2.0, 0.0, 0.0, 0.0, 0.0, 0.0);
            r.relative_to = "anchor".into();
        }),
    ));
    assert_eq!(name, "from_file");
    let expected = anchor_pose.compose(Pose::from_xyz_rpy(2.0, 0.0, 0.0, 0.0, 0.0, 0.0));
    assert!(
        (pose.position - expected.position).length() < 1e-9,
        "{pose:?} vs {expected:?}"
    );
    let id = sim.physics().entity_id("from_file").expect("created");
    assert!(
        (sim.physics().kinematics_of(id).unwrap().pose.position - expected.position).length()
            < 1e-9
    );
    assert!(
        sim.physics().entity_id("from_file::body::imu").is_some(),
        "with its sensor"
    );

    // Without a name the file's name is used; the clash is renamed only when allowed.
    let e = sim
        .call_service(
            CREATE,
            &request(|r| {
                r.sdf_filename = "models/crate.sdf".into();
                r.name = "from_file".into();
            }),
        )
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`from_file` already exists") && e.contains("allow renaming"),
        "{e}"
    );
    let (a, _) = created(sim.call_service(
        CREATE,
        &request(|r| {
            r.sdf_filename = "models/crate.sdf".into();
            r.name = "from_file".into();
            r.allow_renaming = true;
        }),
    ));
    assert_eq!(a, "from_file_1");
    let (b, _) = created(sim.call_service(
        CREATE,
        &request(|r| {
            r.sdf_filename = "models/crate.sdf".into();
            r.name = "from_file".into();
            r.allow_renaming = true;
        }),
    ));
    assert_eq!(b, "from_file_2");
    // Bad file names and frames.
    let e = sim
        .call_service(
            CREATE,
            &request(|r| r.sdf_filename = "models/none.sdf".into()),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("no model file `models/none.sdf`"), "{e}");
    let e = sim
        .call_service(
            CREATE,
            &request(|r| {
                r.sdf_filename = "models/crate.sdf".into();
                r.name = "x".into();
                r.relative_to = "nowhere".into();
            }),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("relative_to names no entity: `nowhere`"), "{e}");
    assert_eq!(sim.physics().entity_id("x"), None);

    // A model directory on the resource path (the `models/` beside the world file), named
    // as an <include> would name it.
    let pallet = files.path().join("models/pallet");
    std::fs::create_dir(&pallet).unwrap();
    std::fs::write(
        pallet.join("model.config"),
        "<model><name>pallet</name><sdf version=\"1.9\">pallet.sdf</sdf></model>",
    )
    .unwrap();
    std::fs::write(pallet.join("pallet.sdf"), crate_sdf("pallet")).unwrap();
    for uri in ["model://pallet", "pallet"] {
        let (name, _) = created(sim.call_service(
            CREATE,
            &request(|r| {
                r.sdf_filename = uri.into();
                r.allow_renaming = true;
            }),
        ));
        assert!(name.starts_with("pallet"), "{uri}: {name}");
    }
    let e = sim
        .call_service(
            CREATE,
            &request(|r| r.sdf_filename = "model://nothing_here".into()),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("model://nothing_here"), "{e}");
    steps(&mut sim, 10);
    assert!(sim.physics().entity_id("pallet").is_some());
}

#[test]
fn bad_requests_get_the_diagnostic_and_the_run_goes_on() {
    let dir = libs();
    let mut sim = sim_from(&world(FACTORY), dir.path(), 0, 1);
    steps(&mut sim, 10);
    let models_before = {
        let mut v = sim_plugin_api::abi_stable::std_types::RVec::new();
        use sim_plugin_api::WorldView;
        sim.physics().view("t").models(&mut v);
        v.len()
    };
    // Invalid SDF: the reader's rendered error, with the line and the source text.
    let bad = "<sdf version='1.9'>\n<model name='m'>\n  <link name='l'>\n    <inertial><mass>-2</mass></inertial>\n  </link>\n</model></sdf>";
    let e = sim
        .call_service(CREATE, &request(|r| r.sdf = bad.into()))
        .unwrap_err()
        .to_string();
    println!("{e}");
    assert!(e.contains("the model was not created"), "{e}");
    assert!(e.contains("mass"), "{e}");
    assert!(
        e.contains("4 |") && e.contains("<mass>-2</mass>"),
        "quotes the line: {e}"
    );
    // Malformed XML.
    let e = sim
        .call_service(
            CREATE,
            &request(|r| r.sdf = "<sdf version='1.9'><model name='m'>".into()),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("line 1") || e.contains("1:"), "{e}");
    // Over 1 MiB.
    let big = format!(
        "<sdf version='1.9'><model name='big'><!--{}--></model></sdf>",
        "x".repeat(1 << 20)
    );
    let e = sim
        .call_service(CREATE, &request(|r| r.sdf = RString::from(big)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("limited to 1048576 bytes"), "{e}");
    // A sensor type no library serves.
    let e = sim
        .call_service(
            CREATE,
            &request(|r| {
                r.sdf = format!(
                    "<sdf version='1.9'>{}</sdf>",
                    box_model("sonar_box", 1.0, "<sensor name='s' type='sonar_x'/>")
                )
                .into()
            }),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("sonar_x"), "{e}");
    // Neither text nor file; a reserved name; a request of the wrong type.
    let e = sim
        .call_service(CREATE, &request(|_| {}))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("neither `sdf` text nor an `sdf_filename`"),
        "{e}"
    );
    let e = sim
        .call_service(
            CREATE,
            &request(|r| {
                r.sdf = crate_sdf("c").into();
                r.name = "a::b".into();
            }),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("`a::b` is not allowed"), "{e}");
    let e = sim
        .call_service(CREATE, &Message::new("", Payload::Boolean(true)))
        .unwrap_err()
        .to_string();
    assert!(e.contains("takes an EntityFactory"), "{e}");

    steps(&mut sim, 10);
    let mut v = sim_plugin_api::abi_stable::std_types::RVec::new();
    use sim_plugin_api::WorldView;
    sim.physics().view("t").models(&mut v);
    assert_eq!(v.len(), models_before, "nothing was added");
    assert!(sim.failures().is_empty(), "the factory is still enabled");
    // ... and still answers.
    let (name, _) = created(sim.call_service(CREATE, &request(|r| r.sdf = crate_sdf("ok").into())));
    assert_eq!(name, "ok");
}

#[test]
fn removes_models_with_their_sensors_by_name_and_by_id() {
    let dir = libs();
    let models = format!(
        "{FACTORY}\n{}\n{}",
        box_model("a", 0.5, &imu("imu", 100.0, "")),
        box_model("b", 0.5, &imu("imu", 100.0, ""))
    );
    let mut sim = sim_from(&world(&models), dir.path(), 0, 1);
    let a = sim
        .bus_mut()
        .subscribe("/world/test/model/a/link/body/sensor/imu/imu", 1000);
    let b = sim
        .bus_mut()
        .subscribe("/world/test/model/b/link/body/sensor/imu/imu", 1000);
    steps(&mut sim, 20);
    let reply = sim
        .call_service(REMOVE, &Message::new("", Payload::Text("a".into())))
        .unwrap();
    assert!(matches!(
        reply.payload.as_enum(),
        Ok(Payload::Boolean(true))
    ));
    assert_eq!(sim.physics().entity_id("a"), None, "removed at once");
    let b_id = sim.physics().entity_id("b").unwrap();
    sim.call_service(REMOVE, &Message::new("", Payload::Int64(b_id.0 as i64)))
        .unwrap();
    assert_eq!(sim.physics().entity_id("b"), None);
    let (na, nb) = (collect(&a).len(), collect(&b).len());
    // At 1 ms (the first step), 10 and 20 ms.
    assert_eq!((na, nb), (3, 3), "each published until removed");
    steps(&mut sim, 100);
    assert!(
        collect(&a).is_empty() && collect(&b).is_empty(),
        "their sensors are gone"
    );
    let left = sim.sensors().reports(sim.bus());
    assert!(left.is_empty(), "their sensors left with them: {left:?}");

    let e = sim
        .call_service(REMOVE, &Message::new("", Payload::Text("a".into())))
        .unwrap_err()
        .to_string();
    assert!(e.contains("no model `a`"), "{e}");
    let e = sim
        .call_service(
            REMOVE,
            &Message::new("", Payload::Text("ground::link".into())),
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("is a link, not a model"), "{e}");
    let e = sim
        .call_service(REMOVE, &Message::new("", Payload::Double(1.0)))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("scoped name (StringMsg) or its id (Int64)"),
        "{e}"
    );
    assert!(sim.failures().is_empty());
}

#[test]
fn the_factory_belongs_on_the_world() {
    let dir = libs();
    let w = sim_core::sdf::parse_str(
        &world(&box_model("m", 0.5, "").replace("</model>", &format!("{FACTORY}</model>"))),
        None,
    )
    .unwrap();
    let e = Simulation::new(w, registry_in(dir.path()), &SimOptions::default())
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(e.contains("must be attached to the world"), "{e}");
}

#[test]
fn a_plugin_creates_checked_models_from_its_pre_step() {
    let dir = libs();
    let remover =
        r#"<plugin filename="simcore_fixture_testkit" name="simcore::fixtures::Remover"/>"#;
    let mut sim = sim_from(&world(remover), dir.path(), 0, 1);
    let verdicts = sim.bus_mut().subscribe("/fixture/created", 100);
    let create = sim.bus_mut().intern("/fixture/create");
    // Three requests in the same step: the second claims the name the first just took.
    for (name, sdf) in [
        ("twin", crate_sdf("c")),
        ("twin", crate_sdf("c")),
        ("bad", "<sdf version='1.9'><model name='x'>".to_string()),
    ] {
        let r = request(|r| {
            r.sdf = sdf.as_str().into();
            r.name = name.into();
            r.allow_renaming = true;
        });
        sim.bus_mut().publish(create, r);
    }
    steps(&mut sim, 2);
    let got: Vec<String> = collect(&verdicts)
        .into_iter()
        .map(|(_, _, p)| match p {
            Payload::Text(t) => t.to_string(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[0], "twin");
    assert_eq!(
        got[1], "twin_1",
        "a name claimed earlier in the step counts as taken"
    );
    assert!(
        got[2].starts_with("error: ") && got[2].contains("<inline>"),
        "{}",
        got[2]
    );
    for name in ["twin", "twin_1", "twin::body::imu", "twin_1::lid::plate"] {
        assert!(sim.physics().entity_id(name).is_some(), "{name} exists");
    }
    assert!(sim.failures().is_empty());
}
