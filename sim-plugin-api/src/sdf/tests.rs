use super::*;
use crate::math::{Pose, Vec3};
use crate::noise::{NoiseKind, NoiseParams};

const TEXT: &str = r#"<sensor name="s" type="sonar" xmlns:acme="https://acme.example/sim">
  <sonar>
    <range><min>0.1</min><max>abc</max><count>7</count></range>
    <on>TRUE</on>
    <label> left </label>
    <offset>1 2 -3.5</offset>
    <pose degrees="true">1 2 3 0 0 90</pose>
    <quat rotation_format="quat_xyzw">0 0 1 0 0 0 2</quat>
    <color>1 0 0.5</color>
    <acme:gain acme:unit="dB">3</acme:gain>
    <gain>4</gain>
  </sonar>
  <noise type="gaussian"><stddev>0.5</stddev></noise>
</sensor>"#;

fn doc(origin: Origin<'static>) -> SdfDocument<'static> {
    SdfDocument::parse(TEXT, origin).unwrap()
}

fn at_world() -> Origin<'static> {
    Origin {
        owner: "m::l::s",
        file: "world.sdf",
        line: 40,
    }
}

#[test]
fn typed_values_and_defaults() {
    let d = doc(Origin::new("m::l::s"));
    let s = d.root().child("sonar").unwrap();
    assert_eq!(s.get::<f64>("range/min").unwrap(), Some(0.1));
    assert_eq!(s.get::<f32>("range/min").unwrap(), Some(0.1f32));
    assert_eq!(s.get::<u32>("range/count").unwrap(), Some(7));
    assert_eq!(s.get::<i64>("range/count").unwrap(), Some(7));
    assert_eq!(s.get::<bool>("on").unwrap(), Some(true));
    assert_eq!(s.get::<String>("label").unwrap().as_deref(), Some("left"));
    assert_eq!(
        s.get::<Vec3>("offset").unwrap(),
        Some(Vec3::new(1.0, 2.0, -3.5))
    );
    assert_eq!(s.get::<f64>("range/absent").unwrap(), None);
    assert_eq!(s.get_or("range/absent", 2.5).unwrap(), 2.5);
    assert!(s.has("range/max") && !s.has("range/none"));
    assert_eq!(d.root().attribute("type"), Some("sonar"));
    assert_eq!(
        d.root().attr::<String>("name").unwrap().as_deref(),
        Some("s")
    );
    let names: Vec<&str> = s.children().map(|c| c.name()).collect();
    assert_eq!(names[..3], ["range", "on", "label"]);
}

#[test]
fn poses_and_colours() {
    let d = doc(Origin::new("m::l::s"));
    let s = d.root().child("sonar").unwrap();
    let p: Pose = s.require("pose").unwrap();
    assert_eq!(p.position, Vec3::new(1.0, 2.0, 3.0));
    let expected = Pose::from_xyz_rpy(1.0, 2.0, 3.0, 0.0, 0.0, std::f64::consts::FRAC_PI_2);
    assert!((p.orientation.z - expected.orientation.z).abs() < 1e-12);
    let q: Pose = s.require("quat").unwrap();
    assert!((q.orientation.w - 1.0).abs() < 1e-12, "{q:?}");
    assert_eq!(
        s.require::<Color>("color").unwrap(),
        Color {
            r: 1.0,
            g: 0.0,
            b: 0.5,
            a: 1.0
        }
    );
    // Colour components are from 0 to 1; a pose has six numbers.
    let bad = SdfDocument::parse(
        "<p><c>2 0 0</c><pose>1 2 3</pose><empty_pose/></p>",
        Origin::new("x"),
    )
    .unwrap();
    assert!(bad.root().get::<Color>("c").is_err());
    let e = bad.root().get::<Pose>("pose").unwrap_err();
    assert_eq!(
        e.to_string(),
        "x: <pose> must be six numbers (x y z roll pitch yaw), found \"1 2 3\""
    );
    assert_eq!(
        bad.root().require::<Pose>("empty_pose").unwrap(),
        Pose::IDENTITY
    );
}

#[test]
fn errors_carry_the_path_unit_and_file_line() {
    let d = doc(at_world());
    let s = d.root().child("sonar").unwrap();
    let e = s
        .param::<f64>("range/max")
        .unit("metres")
        .required()
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "m::l::s: <sonar><range><max> must be a finite number in metres, found \"abc\" at world.sdf:42"
    );
    let e = s.param::<f64>("range/min").at_least(0.5).get().unwrap_err();
    assert_eq!(
        e.to_string(),
        "m::l::s: <sonar><range><min> must be at least 0.5, found \"0.1\" at world.sdf:42"
    );
    let e = s.require::<f64>("range/step/size").unwrap_err();
    assert!(e.is_missing());
    assert_eq!(
        e.to_string(),
        "m::l::s: <sonar><range><step><size> is required (a finite number) at world.sdf:42"
    );
    let e = s.get::<bool>("label").unwrap_err();
    assert_eq!(e.expected, "true, false, 1 or 0");
    assert_eq!(e.place.as_deref(), Some("world.sdf:44"));
    let plugin: crate::PluginError = e.into();
    assert_eq!(plugin.code, crate::ErrorCode::INVALID_CONFIG);
    // Without a known place, no place is claimed.
    let d = doc(Origin::new("m::l::s"));
    let e = d.root().get::<f64>("sonar/range/max").unwrap_err();
    assert_eq!(e.place, None);
}

#[test]
fn malformed_blank_and_oversized_text() {
    let e = SdfDocument::parse("<sensor>\n<a></sensor>", at_world()).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("m::l::s: the element is not valid XML: ")
            && e.to_string().ends_with(" at world.sdf:41"),
        "{e}"
    );
    let blank = SdfDocument::parse("  \n", Origin::new("x")).unwrap();
    assert_eq!(blank.root().get::<f64>("a").unwrap(), None);
    let big = "x".repeat(super::document::MAX_TEXT + 1);
    assert!(SdfDocument::parse(&big, Origin::new("x")).is_err());
}

#[test]
fn namespaced_elements_are_read_by_prefix() {
    let d = doc(Origin::new("m::l::s"));
    let s = d.root().child("sonar").unwrap();
    let gain = s.child("acme:gain").unwrap();
    assert_eq!(gain.namespace(), Some("https://acme.example/sim"));
    assert_eq!(gain.qualified_name(), "acme:gain");
    assert_eq!(gain.attribute("acme:unit"), Some("dB"));
    assert_eq!(s.get::<f64>("acme:gain").unwrap(), Some(3.0));
    // The unprefixed name is SDF's own element, not the namespaced one.
    assert_eq!(s.get::<f64>("gain").unwrap(), Some(4.0));
    assert_eq!(s.get::<f64>("other:gain").unwrap(), None);
}

#[test]
fn noise() {
    let d = doc(at_world());
    assert_eq!(
        d.root().noise("").unwrap(),
        NoiseParams {
            kind: NoiseKind::Gaussian,
            stddev: 0.5,
            ..Default::default()
        }
    );
    assert_eq!(d.root().noise("sonar").unwrap(), NoiseParams::default());
    let bad = SdfDocument::parse(
        "<sensor>\n<imu><noise type=\"pink\"/></imu><alt><noise><stddev>-1</stddev></noise></alt></sensor>",
        at_world(),
    )
    .unwrap();
    assert_eq!(
        bad.root().noise("imu").unwrap_err().to_string(),
        "m::l::s: <imu><noise> type must be one of none, gaussian, gaussian_quantized, found \"pink\" at world.sdf:41"
    );
    assert_eq!(
        bad.root().noise("alt").unwrap_err().to_string(),
        "m::l::s: <alt><noise><stddev> must be zero or positive, found \"-1\" at world.sdf:41"
    );
    let nested = SdfDocument::parse("<noise type=\"x\"/>", Origin::new("c"))
        .unwrap()
        .nested("<camera><noise>");
    assert!(
        nested
            .root()
            .noise_params()
            .unwrap_err()
            .to_string()
            .starts_with("c: <camera><noise> type must be")
    );
}

#[test]
fn every_noise_field_and_form() {
    let read = |body: &str, path: &str| {
        let text = format!("<sensor name=\"s\" type=\"x\">{body}</sensor>");
        SdfDocument::parse(&text, Origin::new("robot::base::s"))
            .unwrap()
            .root()
            .noise(path)
    };
    let p = read(
        r#"<a><b><noise type="gaussian"><mean>0.1</mean><stddev> 2e-4 </stddev>
           <bias_mean>-7.5e-6</bias_mean><bias_stddev>8e-7</bias_stddev>
           <dynamic_bias_stddev>1e-5</dynamic_bias_stddev>
           <dynamic_bias_correlation_time>400</dynamic_bias_correlation_time>
           <precision>0.001</precision></noise></b></a>"#,
        "a/b",
    )
    .unwrap();
    assert_eq!(
        p,
        NoiseParams {
            kind: NoiseKind::Gaussian,
            mean: 0.1,
            stddev: 2e-4,
            bias_mean: -7.5e-6,
            bias_stddev: 8e-7,
            dynamic_bias_stddev: 1e-5,
            dynamic_bias_correlation_time: 400.0,
            precision: 0.001,
        }
    );
    assert_eq!(read("<a/>", "a/b").unwrap(), NoiseParams::default());
    assert_eq!(read("", "a").unwrap(), NoiseParams::default());
    let kind = |body: &str| read(body, "a").unwrap().kind;
    assert_eq!(
        kind(r#"<a><noise type="Gaussian_Quantized"><stddev>1</stddev></noise></a>"#),
        NoiseKind::Gaussian
    );
    assert_eq!(
        kind(r#"<a><noise><type>gaussian</type><stddev>1</stddev></noise></a>"#),
        NoiseKind::Gaussian
    );
    assert_eq!(
        kind(r#"<a><noise><stddev>1</stddev></noise></a>"#),
        NoiseKind::None
    );
    let error = |body: &str, path: &str| read(body, path).unwrap_err().to_string();
    assert_eq!(
        error(
            r#"<a><b><noise type="gaussian"><stddev>abc</stddev></noise></b></a>"#,
            "a/b"
        ),
        "robot::base::s: <a><b><noise><stddev> must be a finite number, found \"abc\""
    );
    for field in [
        "stddev",
        "bias_stddev",
        "dynamic_bias_stddev",
        "dynamic_bias_correlation_time",
        "precision",
    ] {
        let m = error(
            &format!(r#"<a><noise type="gaussian"><{field}>-0.5</{field}></noise></a>"#),
            "a",
        );
        assert_eq!(
            m,
            format!("robot::base::s: <a><noise><{field}> must be zero or positive, found \"-0.5\"")
        );
    }
    read(
        r#"<a><noise type="gaussian"><mean>-1</mean><bias_mean>-1</bias_mean></noise></a>"#,
        "a",
    )
    .unwrap();
}

#[test]
fn required_elements_name_what_is_missing_where() {
    let d = SdfDocument::parse(
        "<sensor>\n<lidar>\n<scan/>\n</lidar>\n</sensor>",
        at_world(),
    )
    .unwrap();
    let lidar = d.root().child("lidar").unwrap();
    assert_eq!(lidar.require_element("scan", "x").unwrap().name(), "scan");
    let e = lidar
        .require_element("scan/horizontal", "with <samples>")
        .unwrap_err();
    assert!(e.is_missing());
    assert_eq!(
        e.to_string(),
        "m::l::s: <lidar><scan><horizontal> is required (with <samples>) at world.sdf:42"
    );
    assert_eq!(
        d.root().missing("camera/save", "a directory").to_string(),
        "m::l::s: <camera><save> is required (a directory) at world.sdf:40"
    );
}
