//! The thermal camera plugin loaded from its real library into real worlds read from world
//! files: pixels where a known box is seen read that box's Thermal temperature (clamped and
//! divided by the ThermalSensor resolution), other geometry and the background the world's
//! ambient temperature, in 16 and 8 bits; `camera_info` is published beside the image; bad
//! temperatures are refused when the world loads, with a message naming the element and its
//! place. Temperatures come
//! from the engine, so models included from other files (nested includes too) and models
//! created through the factory while the world runs show theirs.

use crate::common;

use common::images::{first_step, image, info};
use common::*;
use sim_core::runner::{SimOptions, Simulation};
use sim_plugin_api::{
    CameraInfo, EntityFactory, Image, Message, Payload, PixelFormat, Pose, Vec3,
    abi_stable::std_types::RBox,
};

const LIBS: &[&str] = &["simcore_plugin_thermal_camera"];

fn thermal(t: &str) -> String {
    format!(
        r#"<plugin filename="gz-sim-thermal-system" name="gz::sim::systems::Thermal"><temperature>{t}</temperature></plugin>"#
    )
}

/// A static box 0.6 m wide centred at (4, `y`, 1) whose visual carries `plugin`.
fn hot_box(name: &str, y: f64, plugin: &str) -> String {
    format!(
        r#"<model name="{name}"><static>true</static><pose>4 {y} 1 0 0 0</pose><link name="l">
        <visual name="v"><geometry><box><size>0.6 0.6 0.6</size></box></geometry>{plugin}</visual></link></model>"#
    )
}

/// A world `test` at ambient `ambient` K: a rig at (0, 0, 1) looking along +x with the
/// sensors `sensors`, a box at 600 K (left), one at `warm` K (centre), one without a
/// temperature (right).
fn world(ambient: f64, warm: &str, sensors: &str) -> String {
    format!(
        r#"<?xml version="1.0"?>
<sdf version="1.9">
  <world name="test">
    <physics type="ode"><max_step_size>0.001</max_step_size><real_time_factor>0</real_time_factor></physics>
    <atmosphere type="adiabatic"><temperature>{ambient}</temperature></atmosphere>
    <model name="rig"><static>true</static><pose>0 0 1 0 0 0</pose>
      <link name="head">
        <visual name="housing"><geometry><box><size>0.3 0.3 0.3</size></box></geometry>{hot}</visual>
        {sensors}
      </link>
    </model>
    {left}
    {centre}
    {right}
  </world>
</sdf>"#,
        hot = thermal("900"),
        left = hot_box("hot", 1.0, &thermal("600")),
        centre = hot_box("warm", 0.0, &thermal(warm)),
        right = hot_box("plain", -1.0, ""),
    )
}

fn sensor(name: &str, kind: &str, format: &str, plugin: &str) -> String {
    format!(
        r#"<sensor name="{name}" type="{kind}"><update_rate>0</update_rate><camera>
          <horizontal_fov>1.2</horizontal_fov><image><width>64</width><height>48</height>{format}</image>
        </camera>{plugin}</sensor>"#
    )
}

fn thermal_sensor(body: &str) -> String {
    format!(
        r#"<plugin filename="gz-sim-thermal-sensor-system" name="gz::sim::systems::ThermalSensor">{body}</plugin>"#
    )
}

/// Writes `text` as `world.sdf` in `dir` and loads it as the engine loads a file.
fn load(text: &str, dir: &std::path::Path, libs: &std::path::Path) -> Result<Simulation, String> {
    let file = dir.join("world.sdf");
    std::fs::write(&file, text).unwrap();
    let world = sim_core::sdf::parse_str(text, Some(&file)).map_err(|e| e.render(None))?;
    Simulation::new(world, registry_in(libs), &SimOptions::default()).map_err(|e| e.to_string())
}

/// Why `text` does not load; `why` says why it must not.
fn refusal(text: &str, dir: &std::path::Path, libs: &std::path::Path, why: &str) -> String {
    match load(text, dir, libs) {
        Ok(_) => panic!("{why}"),
        Err(e) => e,
    }
}

fn topic(sensor: &str, suffix: &str) -> String {
    format!("/world/test/model/rig/link/head/sensor/{sensor}/{suffix}")
}

/// The pixel (column, row) where the world point `p` appears in a camera at (0, 0, 1)
/// looking along +x (no distortion).
fn pixel(ci: &CameraInfo, p: Vec3) -> (u32, u32) {
    let (x, y, z) = (p.x, p.y, p.z - 1.0);
    let k = &ci.intrinsics;
    let u = k[0] * (-y / x) + k[2];
    let v = k[4] * (-z / x) + k[5];
    (u.floor() as u32, v.floor() as u32)
}

fn count(img: &Image, (i, j): (u32, u32)) -> u16 {
    match img.pixel_format {
        PixelFormat::L_INT16 => {
            let k = (j * img.step + i * 2) as usize;
            u16::from_le_bytes([img.data[k], img.data[k + 1]])
        }
        PixelFormat::L_INT8 => u16::from(img.data[(j * img.step + i) as usize]),
        other => panic!("not a thermal image format: {other:?}"),
    }
}

#[test]
fn pixels_read_the_temperature_of_the_box_they_see() {
    let libs = stage(LIBS);
    let dir = tempfile::tempdir().unwrap();
    let sensors = [
        sensor(
            "t16",
            "thermal_camera",
            "",
            &thermal_sensor(
                "<min_temp>250</min_temp><max_temp>500</max_temp><resolution>0.1</resolution>",
            ),
        ),
        sensor("t8", "thermal", "<format>L8</format>", ""),
    ]
    .concat();
    let mut sim = load(&world(300.0, "310", &sensors), dir.path(), libs.path()).unwrap();
    let topics = [
        topic("t16", "image"),
        topic("t16", "camera_info"),
        topic("t8", "image"),
        topic("t8", "camera_info"),
    ];
    let m = first_step(&mut sim, &topics);
    let (t16, t8) = (image(&m[0]), image(&m[2]));
    let ci = info(&m[1]);
    assert_eq!(info(&m[3]).intrinsics, ci.intrinsics);
    assert_eq!((t16.width, t16.height, t16.step), (64, 48, 128));
    assert_eq!(t16.pixel_format, PixelFormat::L_INT16);
    assert_eq!((t8.step, t8.pixel_format), (64, PixelFormat::L_INT8));
    // The centres of the boxes' front faces (x = 3.7).
    let left = pixel(&ci, Vec3::new(3.7, 1.0, 1.0));
    let centre = pixel(&ci, Vec3::new(3.7, 0.0, 1.0));
    let right = pixel(&ci, Vec3::new(3.7, -1.0, 1.0));
    let corner = (0, 0);
    // 16 bits, 0.1 K per count, clamped to [250, 500] K: 600 K reads 500 K.
    assert_eq!(count(&t16, left), 5000);
    assert_eq!(count(&t16, centre), 3100);
    assert_eq!(count(&t16, right), 3000, "no temperature: ambient");
    assert_eq!(count(&t16, corner), 3000, "background: ambient");
    // 8 bits, 3 K per count (the default below 1 K), unclamped: 600 / 3, 310 / 3, 300 / 3.
    assert_eq!(count(&t8, left), 200);
    assert_eq!(count(&t8, centre), 103);
    assert_eq!(count(&t8, right), 100);
    assert_eq!(count(&t8, corner), 100);
    // The rig's own 900 K housing is never seen: no pixel reads it.
    let hottest = (0..48)
        .flat_map(|j| (0..64).map(move |i| (i, j)))
        .map(|p| count(&t16, p))
        .max();
    assert_eq!(hottest, Some(5000));
}

/// A thermal camera's `<visibility_mask>` hides the visuals whose `<visibility_flags>` share
/// no bit with it, as the other cameras' does: its pixels then see what lies behind.
#[test]
fn the_mask_hides_the_visuals_it_does_not_select() {
    let libs = stage(LIBS);
    let dir = tempfile::tempdir().unwrap();
    let range = thermal_sensor(
        "<min_temp>250</min_temp><max_temp>700</max_temp><resolution>0.1</resolution>",
    );
    let masked = sensor("masked", "thermal_camera", "", &range)
        .replace("</image>", "</image><visibility_mask>1</visibility_mask>");
    let sensors = [sensor("all", "thermal_camera", "", &range), masked].concat();
    // The 600 K box (left) carries flags 2; the others every bit.
    let text = world(300.0, "310", &sensors).replacen(
        r#"<visual name="v">"#,
        r#"<visual name="v"><visibility_flags>2</visibility_flags>"#,
        1,
    );
    assert!(text.contains("<visibility_flags>2</visibility_flags><geometry><box><size>0.6"));
    let mut sim = load(&text, dir.path(), libs.path()).unwrap();
    let topics = [
        topic("all", "image"),
        topic("all", "camera_info"),
        topic("masked", "image"),
    ];
    let m = first_step(&mut sim, &topics);
    let (all, ci, masked) = (image(&m[0]), info(&m[1]), image(&m[2]));
    let left = pixel(&ci, Vec3::new(3.7, 1.0, 1.0));
    let centre = pixel(&ci, Vec3::new(3.7, 0.0, 1.0));
    assert_eq!(count(&all, left), 6000, "600 K seen without a mask");
    assert_eq!(
        count(&masked, left),
        3000,
        "hidden: the ambient background behind it"
    );
    assert_eq!(
        count(&masked, centre),
        3100,
        "the 310 K box, every bit, still seen"
    );
}

#[test]
fn bad_temperatures_are_refused_with_a_message() {
    let libs = stage(LIBS);
    let dir = tempfile::tempdir().unwrap();
    let sensors = sensor("t", "thermal", "", "");
    let e = refusal(
        &world(300.0, "hot", &sensors),
        dir.path(),
        libs.path(),
        "a temperature that is no number must be refused",
    );
    assert!(
        e.contains("gz::sim::systems::Thermal")
            && e.contains("<temperature>")
            && e.contains("\"hot\""),
        "{e}"
    );
    assert!(e.contains("world.sdf:"), "names the place: {e}");
    let bad_sensor = sensor(
        "t",
        "thermal",
        "",
        &thermal_sensor("<resolution>fine</resolution>"),
    );
    let e = refusal(
        &world(300.0, "310", &bad_sensor),
        dir.path(),
        libs.path(),
        "a resolution that is no number must be refused",
    );
    assert!(e.contains("<resolution>") && e.contains("\"fine\""), "{e}");
}

/// `model` (a `<model>` element) as an SDF file.
fn model_file(model: &str) -> String {
    format!("<?xml version=\"1.0\"?>\n<sdf version=\"1.9\">{model}</sdf>")
}

/// The latest image on `sub`, and the `camera_info` on `info`.
fn frame(
    sim: &mut Simulation,
    sub: &sim_core::transport::Subscription,
    info: &sim_core::transport::Subscription,
) -> (Image, CameraInfo) {
    sim.step();
    assert!(sim.failures().is_empty(), "{:?}", sim.failures());
    let image = match collect(sub).pop().map(|m| m.2) {
        Some(Payload::Image(i)) => (*i).clone(),
        other => panic!("not an Image: {other:?}"),
    };
    let info = match collect(info).pop().map(|m| m.2) {
        Some(Payload::CameraInfo(i)) => (*i).clone(),
        other => panic!("not a CameraInfo: {other:?}"),
    };
    (image, info)
}

#[test]
fn included_and_created_models_show_their_temperatures() {
    let libs = stage(&["simcore_plugin_thermal_camera", "simcore_plugin_factory"]);
    let dir = tempfile::tempdir().unwrap();
    // The world includes `hot.sdf` (600 K, left), which includes `warm.sdf` (310 K, centre).
    let nested = r#"<include><uri>warm.sdf</uri><pose>0 -1 0 0 0 0</pose></include>"#;
    let hot = hot_box("hot", 0.0, &thermal("600"))
        .replace("</link></model>", &format!("</link>{nested}</model>"));
    std::fs::write(dir.path().join("hot.sdf"), model_file(&hot)).unwrap();
    let warm = hot_box("warm", 0.0, &thermal("310")).replace("<pose>4 0 1 0 0 0</pose>", "");
    std::fs::write(dir.path().join("warm.sdf"), model_file(&warm)).unwrap();
    let text = format!(
        r#"<?xml version="1.0"?>
<sdf version="1.9">
  <world name="test">
    <physics type="ode"><max_step_size>0.001</max_step_size><real_time_factor>0</real_time_factor></physics>
    <atmosphere type="adiabatic"><temperature>300</temperature></atmosphere>
    <plugin filename="simcore_plugin_factory" name="simcore::Factory"/>
    <model name="rig"><static>true</static><pose>0 0 1 0 0 0</pose>
      <link name="head">{sensor}</link>
      {thermal}
    </model>
    <include><uri>hot.sdf</uri><pose>4 1 1 0 0 0</pose></include>
  </world>
</sdf>"#,
        sensor = sensor("t", "thermal_camera", "", ""),
        thermal = thermal("500"),
    );
    let mut sim = load(&text, dir.path(), libs.path()).unwrap();
    // Thermal on a model is gz-sim's own system, built in: nothing skipped.
    assert!(sim.skipped().is_empty(), "{:?}", sim.skipped());
    let sub = sim.bus_mut().subscribe(&topic("t", "image"), 10);
    let info = sim.bus_mut().subscribe(&topic("t", "camera_info"), 10);
    let (before, ci) = frame(&mut sim, &sub, &info);
    let left = pixel(&ci, Vec3::new(3.7, 1.0, 1.0));
    let centre = pixel(&ci, Vec3::new(3.7, 0.0, 1.0));
    let right = pixel(&ci, Vec3::new(3.7, -1.0, 1.0));
    // 0.01 K per count, unclamped.
    assert_eq!(count(&before, left), 60000, "the included model");
    assert_eq!(count(&before, centre), 31000, "the model it includes");
    assert_eq!(count(&before, right), 30000, "nothing there yet: ambient");

    let request = EntityFactory {
        sdf: model_file(&hot_box("cool", 0.0, &thermal("330.5"))).into(),
        pose: Pose::from_xyz_rpy(4.0, -1.0, 1.0, 0.0, 0.0, 0.0),
        ..Default::default()
    };
    let reply = sim.call_service(
        "/world/test/create",
        &Message::new("", Payload::EntityFactory(RBox::new(request))),
    );
    assert!(reply.is_ok(), "{:?}", reply.err());
    let (after, _) = frame(&mut sim, &sub, &info);
    assert_eq!(count(&after, right), 33050, "the created model");
    assert_eq!(count(&after, left), 60000);
    assert_eq!(count(&after, (0, 0)), 30000, "background: ambient");
}
