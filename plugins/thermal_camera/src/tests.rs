//! Unit tests: parameters, counts, a frame from a static world (whose engine offers no
//! visual temperatures: everything at SDF's default ambient temperature).

use crate::params::{DEFAULT_RESOLUTION, EIGHT_BIT_RESOLUTION, ThermalParams};
use crate::thermal::ThermalCameraSensor;
use sim_plugin_api::sdf::{Origin, SdfDocument};
use sim_plugin_api::{
    DEFAULT_AMBIENT_TEMPERATURE, EntityId, ErrorCode, PixelFormat, RayHit, Vec3,
    testing::{StaticWorld, sensor_config},
};
use simcore_plugin_camera_common::ImageFormat;
use simcore_plugin_common::SdfSensor;
use simcore_plugin_common::testing::SystemSetup;

const NAME: &str = "m::l::t";

fn sensor_sdf(format: &str, plugin: &str) -> String {
    format!(
        r#"<sensor name="t" type="thermal"><camera><image><width>4</width><height>2</height>{format}</image></camera>{plugin}</sensor>"#
    )
}

fn thermal_sensor(body: &str) -> String {
    format!(
        r#"<plugin filename="gz-sim-thermal-sensor-system" name="gz::sim::systems::ThermalSensor">{body}</plugin>"#
    )
}

fn params(format: ImageFormat, plugin: &str) -> Result<ThermalParams, sim_plugin_api::PluginError> {
    let sdf = sensor_sdf("", plugin);
    let doc = SdfDocument::parse(&sdf, Origin::new(NAME))?;
    ThermalParams::read(&doc.root(), format)
}

#[test]
fn parameters_default_as_gazebo_and_read_the_thermal_sensor_plugin() {
    let p = params(ImageFormat::Rgb8, "").unwrap();
    assert_eq!(
        (p.range, p.resolution, p.eight_bit),
        (None, DEFAULT_RESOLUTION, false)
    );
    let p = params(
        ImageFormat::L16,
        &thermal_sensor(
            "<min_temp>250</min_temp><max_temp>400</max_temp><resolution>0.5</resolution>",
        ),
    )
    .unwrap();
    assert_eq!((p.range, p.resolution), (Some((250.0, 400.0)), 0.5));
    assert!(p.warnings.is_empty());
    // One end given: the other is 0 K or unlimited.
    let p = params(
        ImageFormat::L16,
        &thermal_sensor("<max_temp>300</max_temp>"),
    )
    .unwrap();
    assert_eq!(p.range, Some((0.0, 300.0)));
    // 8-bit: a resolution under 1 K becomes 3 K, with a warning.
    let p = params(ImageFormat::L8, "").unwrap();
    assert_eq!((p.eight_bit, p.resolution), (true, EIGHT_BIT_RESOLUTION));
    assert_eq!(p.warnings.len(), 1);
    // The inverted range and zero resolution of gz-sim's thermal_invalid world: ignored.
    let p = params(
        ImageFormat::L8,
        &thermal_sensor(
            "<min_temp>999</min_temp><max_temp>-590</max_temp><resolution>0.0</resolution>",
        ),
    )
    .unwrap();
    assert_eq!((p.range, p.resolution), (None, EIGHT_BIT_RESOLUTION));
    assert!(
        p.warnings[0].contains("<min_temp> 999 exceeds <max_temp> -590"),
        "{:?}",
        p.warnings
    );
    assert!(
        p.warnings[1].contains("<resolution> must be positive"),
        "{:?}",
        p.warnings
    );
}

#[test]
fn bad_numbers_are_refused_with_the_element() {
    for (body, element) in [
        ("<min_temp>cold</min_temp>", "<min_temp>"),
        ("<max_temp>inf</max_temp>", "<max_temp>"),
        ("<resolution>fine</resolution>", "<resolution>"),
    ] {
        let e = params(ImageFormat::L16, &thermal_sensor(body)).expect_err(body);
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG, "{body}");
        assert!(e.message.starts_with(NAME), "{}", e.message);
        assert!(e.message.contains(element), "{}", e.message);
    }
}

#[test]
fn errors_name_the_place_in_the_world_file() {
    let sdf = format!(
        "<sensor name=\"t\" type=\"thermal\">\n  {}\n</sensor>",
        thermal_sensor("\n    <max_temp>hot</max_temp>\n  ")
    );
    let config = sensor_config(NAME, "thermal", EntityId(2), &sdf).with_source("world.sdf", 30);
    let e = StaticWorld::default()
        .with(|v| ThermalCameraSensor::create(&config, &v).map(|_| ()))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
    assert_eq!(
        e.message.as_str(),
        format!(
            "{NAME}: <plugin><max_temp> must be a finite number in kelvin, found \"hot\" at world.sdf:32"
        )
    );
    // The system inside the sensor names the sensor and itself.
    let plugin = thermal_sensor("\n  <resolution>fine</resolution>\n");
    let e = SystemSetup::on_model("gz::sim::systems::ThermalSensor", NAME)
        .at_line(31)
        .create_error::<crate::ThermalSensorSystem>(&plugin);
    assert_eq!(
        e.message.as_str(),
        format!(
            "{NAME}: ThermalSensor: <resolution> must be a finite number in kelvin, found \"fine\" at world.sdf:32"
        )
    );
}

#[test]
fn counts_clamp_divide_round_and_saturate() {
    let mut p = params(ImageFormat::L16, "").unwrap();
    assert_eq!(p.count(300.0), 30000);
    assert_eq!(p.count(300.004), 30000);
    assert_eq!(p.count(300.006), 30001);
    assert_eq!(p.count(1000.0), 65535, "saturates at 16 bits");
    assert_eq!(p.count(-5.0), 0);
    assert_eq!(p.count(f64::NAN), 0);
    p.range = Some((280.0, 320.0));
    assert_eq!((p.count(250.0), p.count(350.0)), (28000, 32000));
    let p = params(ImageFormat::L8, "").unwrap();
    assert_eq!(p.count(300.0), 100);
    assert_eq!(p.count(1000.0), 255, "saturates at 8 bits");
}

#[test]
fn a_frame_reads_the_temperature_of_what_each_pixel_sees() {
    let mut w = StaticWorld::default();
    w.set_kinematics(EntityId(2), Default::default());
    // Rays to the left (+y) hit visual 10 (no temperature in the static world: ambient), to
    // the right nothing.
    w.set_ray_caster(|r, _| {
        if r.direction.y > 0.0 {
            RayHit {
                distance: 3.0,
                normal: Vec3::new(-1.0, 0.0, 0.0),
                entity: EntityId(10),
                model: EntityId(20),
            }
        } else {
            RayHit::MISS
        }
    });
    for (format, bytes) in [("", 2), ("<format>L8</format>", 1)] {
        let sdf = sensor_sdf(format, "");
        let config = sensor_config(NAME, "thermal", EntityId(2), &sdf);
        let image = w.with(|v| {
            let mut s = ThermalCameraSensor::create(&config, &v).unwrap();
            assert_eq!(s.ambient(), DEFAULT_AMBIENT_TEMPERATURE);
            s.render(&v).unwrap()
        });
        assert_eq!((image.width, image.height, image.step), (4, 2, 4 * bytes));
        if bytes == 2 {
            assert_eq!(image.pixel_format, PixelFormat::L_INT16);
            assert!(
                image
                    .data
                    .chunks(2)
                    .all(|c| u16::from_le_bytes([c[0], c[1]]) == 28815)
            );
        } else {
            assert_eq!(image.pixel_format, PixelFormat::L_INT8);
            // 288.15 K / 3 K per count.
            assert!(image.data.iter().all(|&c| c == 96));
        }
    }
}

#[test]
fn saves_each_image_as_a_16_bit_png() {
    let mut w = StaticWorld::default();
    w.set_kinematics(EntityId(2), Default::default());
    // A world saves inside the working directory only: a directory of this test's own
    // there, removed at the end.
    let dir = tempfile::tempdir_in(".").unwrap();
    let rel = std::path::PathBuf::from(dir.path().file_name().unwrap());
    let sdf = format!(
        r#"<sensor name="t" type="thermal_camera"><camera>
        <image><width>4</width><height>2</height></image>
        <save enabled="true"><path>{}</path></save></camera></sensor>"#,
        rel.join("frames").display()
    );
    let config = sensor_config(NAME, "thermal_camera", EntityId(2), &sdf);
    let out = w.with(|v| {
        let mut s = ThermalCameraSensor::create(&config, &v).unwrap();
        sim_plugin_api::testing::run_update(&mut s, &v)
    });
    let topics: Vec<&str> = out.iter().map(|m| m.topic.as_str()).collect();
    assert_eq!(topics.len(), 2);
    assert_eq!(topics[0], "", "the image on the sensor's topic");
    assert!(topics[1].ends_with("camera_info"), "{topics:?}");
    let f = dir.path().join("frames/m_l_t_000000.png");
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&f).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (4, 2));
    assert_eq!(info.bit_depth, png::BitDepth::Sixteen);
    // Nothing hit, no visual temperatures: 288.15 K / 0.01 K per count, big-endian in PNG.
    assert_eq!(u16::from_be_bytes([buf[0], buf[1]]), 28815);
}
