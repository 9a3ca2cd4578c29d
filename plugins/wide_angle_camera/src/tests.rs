//! Unit tests of the lens mapping and its SDF reading.

use crate::{AngleFunction, Lens, WideAngleCameraSensor};
use sim_plugin_api::{
    EntityId,
    testing::{StaticWorld, sensor_config},
};
use simcore_plugin_camera_common::{CameraModel, Distortion, Intrinsics};
use simcore_plugin_common::SdfSensor;
use std::f64::consts::PI;

const NAMED: [&str; 5] = [
    "gnomonical",
    "stereographic",
    "equidistant",
    "equisolid_angle",
    "orthographic",
];

fn lens_of(camera: &str) -> Result<Lens, String> {
    let text =
        format!(r#"<sensor name="w" type="wideanglecamera"><camera>{camera}</camera></sensor>"#);
    let config = sensor_config("m::l::w", "wideanglecamera", EntityId(2), &text);
    let doc = config.parse_sdf().map_err(|e| e.to_string())?;
    Lens::read(&doc.root()).map_err(|e| e.to_string())
}

#[test]
fn scaled_to_the_field_of_view_the_width_ends_at_half_of_it() {
    for name in NAMED {
        let lens = Lens::named(name).unwrap();
        let f = lens.focal_length(2.0).unwrap();
        assert!((lens.radius(1.0, f) - 1.0).abs() < 1e-12, "{name}");
        for theta in [0.0, 0.3, 0.9, 1.2] {
            let back = lens.angle(lens.radius(theta, f), f).unwrap();
            assert!((back - theta).abs() < 1e-9, "{name}: {theta} -> {back}");
        }
    }
    let orthographic = Lens::named("orthographic").unwrap();
    assert_eq!(orthographic.radius(PI / 2.0, 1.0), 1.0);
    // A gnomonical lens maps no half space, an orthographic one no more than it.
    assert!(Lens::named("gnomonical").unwrap().focal_length(PI).is_err());
    assert!(orthographic.focal_length(3.5).is_err());
}

#[test]
fn equidistant_angles_grow_linearly_across_the_image() {
    let lens = Lens {
        cutoff_angle: 2.5,
        ..Lens::named("equidistant").unwrap()
    };
    let hfov = 1.5 * PI;
    let f = lens.focal_length(hfov).unwrap();
    let (w, h) = (9u32, 5u32);
    let dirs = lens.pixel_directions(w, h, f);
    // The middle row: θ = |u| · hfov / 2, towards -y on the right.
    for i in 0..w {
        let u = 2.0 * (f64::from(i) + 0.5) / f64::from(w) - 1.0;
        let d = dirs[(2 * w + i) as usize].unwrap();
        let theta = u.abs() * hfov / 2.0;
        assert!((d.x - theta.cos()).abs() < 1e-12, "{i}");
        assert!((d.y + u.signum() * theta.sin()).abs() < 1e-12, "{i}");
        assert!(d.z.abs() < 1e-12);
        assert!((d.length() - 1.0).abs() < 1e-12);
    }
    // The top row looks up.
    assert!(dirs[(w / 2) as usize].unwrap().z > 0.0);
}

#[test]
fn a_gnomonical_lens_is_the_pinhole_of_its_field_of_view() {
    let (w, h, hfov) = (16u32, 10u32, 1.2);
    let lens = Lens::named("gnomonical").unwrap();
    let wide = lens.pixel_directions(w, h, lens.focal_length(hfov).unwrap());
    let pinhole = CameraModel {
        width: w,
        height: h,
        intrinsics: Intrinsics::from_hfov(w, h, hfov),
        distortion: Distortion::NONE,
    }
    .pixel_directions();
    for (a, b) in wide.iter().zip(&pinhole) {
        let a = a.unwrap();
        assert!((a - *b).length() < 1e-12, "{a:?} {b:?}");
    }
}

#[test]
fn pixels_beyond_the_cutoff_angle_have_no_ray() {
    let lens = Lens {
        cutoff_angle: 0.5,
        ..Lens::named("equidistant").unwrap()
    };
    // hfov 2: the width's edge at θ = 1, so |r| ≤ 0.5 is seen.
    let f = lens.focal_length(2.0).unwrap();
    let dirs = lens.pixel_directions(20, 1, f);
    let seen: Vec<bool> = dirs.iter().map(Option::is_some).collect();
    let expected: Vec<bool> = (0..20)
        .map(|i| (2.0 * (f64::from(i) + 0.5) / 20.0 - 1.0f64).abs() <= 0.5)
        .collect();
    assert_eq!(seen, expected);
}

#[test]
fn lens_elements_are_read_with_sdf_defaults() {
    assert_eq!(lens_of("").unwrap(), Lens::named("stereographic").unwrap());
    assert_eq!(
        lens_of("<lens/>").unwrap(),
        Lens::named("stereographic").unwrap()
    );
    let l = lens_of(
        "<lens><type>custom</type><custom_function><c1>1.05</c1><c2>4</c2><f>1.5</f>\
         <fun>sin</fun></custom_function><scale_to_hfov>false</scale_to_hfov>\
         <cutoff_angle>3.1</cutoff_angle><env_texture_size>512</env_texture_size></lens>",
    )
    .unwrap();
    assert_eq!((l.c1, l.c2, l.c3, l.f), (1.05, 4.0, 0.0, 1.5));
    assert_eq!(l.fun, AngleFunction::Sin);
    assert!(!l.scale_to_hfov);
    assert_eq!(l.cutoff_angle, 3.1);
    assert_eq!(l.focal_length(1.0), Ok(1.5));
    let gnomonic = lens_of("<lens><type>gnomonic</type></lens>").unwrap();
    assert_eq!(gnomonic, Lens::named("gnomonical").unwrap());
}

#[test]
fn bad_lenses_are_refused_with_the_element_and_text() {
    for (camera, element, found) in [
        (
            "<lens><type>fisheye</type></lens>",
            "<lens><type>",
            "fisheye",
        ),
        (
            "<lens><type>custom</type><custom_function><fun>cos</fun></custom_function></lens>",
            "<fun>",
            "cos",
        ),
        (
            "<lens><type>custom</type><custom_function><c2>0</c2></custom_function></lens>",
            "<c2>",
            "0",
        ),
        (
            "<lens><type>custom</type><custom_function><f>-1</f></custom_function></lens>",
            "<f>",
            "-1",
        ),
        (
            "<lens><cutoff_angle>-1</cutoff_angle></lens>",
            "<cutoff_angle>",
            "-1",
        ),
        (
            "<lens><scale_to_hfov>maybe</scale_to_hfov></lens>",
            "<scale_to_hfov>",
            "maybe",
        ),
    ] {
        let e = lens_of(camera).unwrap_err();
        assert!(
            e.contains("m::l::w") && e.contains(element) && e.contains(found),
            "{camera}: {e}"
        );
    }
}

#[test]
fn a_field_of_view_the_lens_cannot_map_is_refused() {
    let w = StaticWorld::default();
    let create = |camera: &str| {
        let text = format!(
            r#"<sensor name="w" type="wideanglecamera"><camera>{camera}</camera></sensor>"#
        );
        let config = sensor_config("m::l::w", "wideanglecamera", EntityId(2), &text);
        w.with(|v| WideAngleCameraSensor::create(&config, &v).map(|_| ()))
            .map_err(|e| e.message.to_string())
    };
    let e = create("<horizontal_fov>3.5</horizontal_fov><lens><type>gnomonical</type></lens>")
        .unwrap_err();
    assert!(
        e.contains("m::l::w: <camera><lens>") && e.contains("cannot map"),
        "{e}"
    );
    let e = create("<horizontal_fov>7</horizontal_fov>").unwrap_err();
    assert!(
        e.contains("<camera><horizontal_fov>") && e.contains("2π"),
        "{e}"
    );
    // A fish-eye's field of view beyond π is a wide-angle camera's to have.
    create("<horizontal_fov>4</horizontal_fov><lens><type>equidistant</type></lens>").unwrap();
}

#[test]
fn errors_name_the_place_in_the_world_file() {
    let text = "<sensor name=\"w\" type=\"wideanglecamera\">\n  <camera>\n    <lens>\n      <type>fisheye</type>\n    </lens>\n  </camera>\n</sensor>";
    let config =
        sensor_config("m::l::w", "wideanglecamera", EntityId(2), text).with_source("world.sdf", 12);
    let e = StaticWorld::default()
        .with(|v| WideAngleCameraSensor::create(&config, &v).map(|_| ()))
        .unwrap_err();
    assert_eq!(
        e.message.as_str(),
        "m::l::w: <camera><lens><type> must be gnomonical, stereographic, equidistant, \
         equisolid_angle, orthographic or custom, found \"fisheye\" at world.sdf:15"
    );
}
