//! `simcore render`: pictures of the example worlds taken by the real binary with the real
//! camera plugin, read back as PNG and compared with where the world's geometry projects.

use crate::common;

use common::*;
use std::path::Path;

/// The libraries `worlds/sensors_demo.sdf` uses (its camera plugin takes the pictures).
const DEMO_LIBS: &[&str] = &[
    "simcore_plugin_lidar",
    "simcore_plugin_camera",
    "simcore_plugin_depth_camera",
];

/// A decoded 8-bit RGB PNG file.
struct Png {
    width: u32,
    height: u32,
    rgb: Vec<u8>,
}

impl Png {
    fn read(path: &Path) -> Png {
        let file = std::fs::File::open(path).expect("the picture exists");
        let mut reader = png::Decoder::new(std::io::BufReader::new(file))
            .read_info()
            .expect("a PNG file");
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).expect("one frame");
        assert_eq!(info.color_type, png::ColorType::Rgb);
        assert_eq!(info.bit_depth, png::BitDepth::Eight);
        buf.truncate(info.buffer_size());
        Png {
            width: info.width,
            height: info.height,
            rgb: buf,
        }
    }

    fn at(&self, x: u32, y: u32) -> [u8; 3] {
        let i = 3 * (y * self.width + x) as usize;
        [self.rgb[i], self.rgb[i + 1], self.rgb[i + 2]]
    }

    /// The pixels within one pixel of `(x, y)`.
    fn around(&self, (x, y): (u32, u32)) -> Vec<[u8; 3]> {
        let mut v = Vec::new();
        for yy in y.saturating_sub(1)..=(y + 1).min(self.height - 1) {
            for xx in x.saturating_sub(1)..=(x + 1).min(self.width - 1) {
                v.push(self.at(xx, yy));
            }
        }
        v
    }
}

type V = [f64; 3];

fn sub(a: V, b: V) -> V {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn dot(a: V, b: V) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: V, b: V) -> V {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}
fn unit(a: V) -> V {
    let l = dot(a, a).sqrt();
    [a[0] / l, a[1] / l, a[2] / l]
}

/// The pixel a world point appears in, for a camera at `from` looking at `at` without roll
/// with the documented 60° horizontal field of view and square pixels.
fn pixel_of(p: V, from: V, at: V, (w, h): (u32, u32)) -> (u32, u32) {
    let f = unit(sub(at, from));
    let left = unit(cross([0.0, 0.0, 1.0], f));
    let up = cross(f, left);
    let d = sub(p, from);
    let (x, y, z) = (dot(d, f), dot(d, left), dot(d, up));
    assert!(x > 0.0, "in front");
    let focal = f64::from(w) / (2.0 * (std::f64::consts::PI / 6.0).tan());
    let u = f64::from(w) / 2.0 - focal * y / x;
    let v = f64::from(h) / 2.0 - focal * z / x;
    assert!(
        u >= 0.0 && v >= 0.0 && u < f64::from(w) && v < f64::from(h),
        "{u} {v}"
    );
    (u as u32, v as u32)
}

/// Runs `simcore render` in `dir` (the demo's camera saves its frames relative to the
/// working directory) with the libraries of `libs`, the world paths relative to the
/// workspace; returns the output and the picture's path inside `dir`.
fn render(
    dir: &Path,
    libs: &Path,
    name: &str,
    args: &[&str],
) -> (std::process::Output, std::path::PathBuf) {
    let out = dir.join(name);
    let mut a = vec![
        "render",
        "--plugin-path",
        libs.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ];
    let worlds: Vec<String> = args
        .iter()
        .map(|x| match x.strip_prefix("worlds/") {
            Some(_) => workspace().join(x).to_string_lossy().into_owned(),
            None => x.to_string(),
        })
        .collect();
    a.extend(worlds.iter().map(String::as_str));
    (simcore_in(dir, &a), out)
}

/// Lit ground of the demo: its diffuse (0.6, 0.6, 0.55) by ambient 0.35 plus the sun
/// (0.8 · cos of its 45.8° from the zenith).
fn is_lit_ground(c: [u8; 3]) -> bool {
    let lit = 0.35 + 0.8 * 0.7 / (0.5f64 * 0.5 + 0.6 * 0.6 + 0.7 * 0.7).sqrt();
    let expect = [0.6 * lit, 0.6 * lit, 0.55 * lit].map(|v| (v * 255.0).round());
    c.iter()
        .zip(expect)
        .all(|(&g, e)| (f64::from(g) - e).abs() <= 2.0)
}

/// Ground, lit or in shadow: grey with a little less blue.
fn is_ground(c: [u8; 3]) -> bool {
    let [r, g, b] = c.map(i32::from);
    (r - g).abs() <= 2 && b <= r && b * 10 >= r * 8
}

const FROM: V = [0.0, -6.0, 3.0];
const AT: V = [4.0, 1.2, 0.5];
const SIZE: (u32, u32) = (320, 240);

#[test]
fn the_picture_shows_the_ground_and_the_red_box_where_they_project() {
    let libs = stage(DEMO_LIBS);
    let dir = tempfile::tempdir().unwrap();
    let (o, path) = render(
        dir.path(),
        libs.path(),
        "view.png",
        &[
            "worlds/sensors_demo.sdf",
            "--from",
            "0,-6,3",
            "--look-at",
            "4,1.2,0.5",
            "--size",
            "320x240",
        ],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("320x240"), "{}", stderr(&o));
    let png = Png::read(&path);
    assert_eq!((png.width, png.height), SIZE);
    // The red box (centre 4, 1.2, 0.5, a 1 m cube) at its centre's pixel and at its top face.
    for p in [[4.0, 1.2, 0.5], [4.0, 1.2, 0.95]] {
        let (x, y) = pixel_of(p, FROM, AT, SIZE);
        let [r, g, b] = png.at(x, y);
        assert!(
            r > 70 && r / 2 > g && r / 2 > b,
            "red at {p:?}: {r} {g} {b}"
        );
    }
    // Open ground in the sun, in front of the camera and away from every shadow.
    for p in [[1.0, -1.0, 0.0], [2.0, -2.0, 0.0]] {
        let (x, y) = pixel_of(p, FROM, AT, SIZE);
        assert!(
            is_lit_ground(png.at(x, y)),
            "ground at {p:?}: {:?}",
            png.at(x, y)
        );
    }
    // Sky above the horizon: the scene's background colour (0.55, 0.7, 0.9).
    let sky = png.at(160, 0);
    let close = sky
        .iter()
        .zip([0.55, 0.7, 0.9])
        .all(|(&c, e)| (f64::from(c) - e * 255.0).abs() <= 1.0);
    assert!(close, "background at the top: {sky:?}");
}

#[test]
fn rays_and_frusta_are_drawn_where_they_project_and_pictures_are_deterministic() {
    let libs = stage(DEMO_LIBS);
    let dir = tempfile::tempdir().unwrap();
    let (from, at) = ([-6.0, -6.0, 5.0], [0.0, 0.0, 0.5]);
    let common = [
        "worlds/sensors_demo.sdf",
        "--from",
        "-6,-6,5",
        "--look-at",
        "0,0,0.5",
        "--size",
        "320x240",
    ];
    let (o, plain) = render(dir.path(), libs.path(), "plain.png", &common);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut with = common.to_vec();
    with.extend(["--rays", "--frusta", "--time", "0.25"]);
    let (o, over) = render(dir.path(), libs.path(), "over.png", &with);
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("t = 0.250 s") && err.contains("2 camera frusta"),
        "{err}"
    );
    let (plain, over_png) = (Png::read(&plain), Png::read(&over));
    assert_ne!(plain.rgb, over_png.rgb);

    // The lidar on the mast head (0, 0, 1.5): its lowest row (-0.2618 rad) hits the ground
    // 1.5 / sin(0.2618) m along the ray; the ray nearest +y is number 539 of 720 over
    // [-3.14159, 3.14159]. A hit dot lies where that point projects.
    let v = -0.2618f64;
    // The world file's angle limits, as written (not quite pi).
    let limit: f64 = "3.14159".parse().unwrap();
    let h = -limit + 539.0 * (2.0 * limit / 719.0);
    let r = 1.5 / -v.sin();
    let hit = [
        r * v.cos() * h.cos(),
        r * v.cos() * h.sin(),
        1.5 + r * v.sin(),
    ];
    let px = pixel_of(hit, from, at, SIZE);
    assert!(
        over_png.around(px).contains(&[0, 255, 160]),
        "a hit dot at {px:?}: {:?}",
        over_png.around(px)
    );
    assert!(!plain.around(px).contains(&[0, 255, 160]));

    // The camera on the mast head, pitched 0.2 rad down, 1.2 rad wide, 4:3: a point 0.4 m
    // deep on the edge through its top-left corner lies on the frustum's magenta line.
    let (p, t) = (0.2f64, (1.2f64 / 2.0).tan());
    let d = [1.0, t, 0.75 * t];
    let dw = [
        d[0] * p.cos() + d[2] * p.sin(),
        d[1],
        -d[0] * p.sin() + d[2] * p.cos(),
    ];
    let edge = [0.4 * dw[0], 0.4 * dw[1], 1.5 + 0.4 * dw[2]];
    let px = pixel_of(edge, from, at, SIZE);
    assert!(
        over_png.around(px).contains(&[255, 0, 255]),
        "the frustum at {px:?}: {:?}",
        over_png.around(px)
    );

    // The same command gives the same bytes.
    let (o, again) = render(dir.path(), libs.path(), "again.png", &with);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(&over).unwrap(),
        std::fs::read(&again).unwrap(),
        "deterministic"
    );
}

#[test]
fn the_default_view_frames_the_whole_world() {
    let libs = stage(DEMO_LIBS);
    let dir = tempfile::tempdir().unwrap();
    let (o, path) = render(
        dir.path(),
        libs.path(),
        "default.png",
        &["worlds/sensors_demo.sdf", "--size", "320x180"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let png = Png::read(&path);
    assert_eq!((png.width, png.height), (320, 180));
    // Every object is in the picture ...
    let count = |f: &dyn Fn([i32; 3]) -> bool| {
        png.rgb
            .chunks(3)
            .filter(|c| f([c[0], c[1], c[2]].map(i32::from)))
            .count()
    };
    let red = count(&|[r, g, b]| r > 60 && r > 3 * g && r > 3 * b);
    let blue = count(&|[r, g, b]| b > 60 && b > 2 * r && b > 2 * g);
    let green = count(&|[r, g, b]| g > 60 && g > 2 * r && g > 2 * b);
    let yellow = count(&|[r, g, b]| r > 80 && g > 70 && b * 3 < g);
    let magenta = count(&|[r, g, b]| r > 60 && b > 60 && g * 2 < r && g * 2 < b);
    for (n, what) in [
        (red, "red box"),
        (blue, "blue box"),
        (green, "green cylinder"),
        (yellow, "yellow sphere"),
        (magenta, "magenta torus"),
    ] {
        assert!(n > 20, "the {what} is in the picture ({n} pixels)");
    }
    // ... and none touches its edge: the border is ground all round, looking down on it.
    for x in 0..png.width {
        for y in [0, png.height - 1] {
            assert!(
                is_ground(png.at(x, y)),
                "ground at ({x}, {y}): {:?}",
                png.at(x, y)
            );
        }
    }
    for y in 0..png.height {
        for x in [0, png.width - 1] {
            assert!(
                is_ground(png.at(x, y)),
                "ground at ({x}, {y}): {:?}",
                png.at(x, y)
            );
        }
    }
}

#[test]
fn bad_arguments_are_clear_errors_with_status_2() {
    let libs = stage(&["simcore_plugin_lidar"]);
    let dir = tempfile::tempdir().unwrap();
    let world = "worlds/sensors_demo.sdf";
    for (args, says) in [
        (vec![world, "--size", "0x10"], "from 1 to 16384"),
        (vec![world, "--size", "640"], "WIDTHxHEIGHT"),
        (vec![world, "--size", "4000x4000"], "camera limit"),
        (
            vec![world, "--from", "1,1,1", "--look-at", "1,1,1"],
            "must differ",
        ),
        (vec![world, "--from", "1,1"], "X,Y,Z"),
        (vec![world, "--from", "1,2,3"], "--look-at"),
        (vec![world, "--time", "-1"], "--time"),
        (vec![world, "--time", "NaN"], "--time"),
        (vec![world, "--time", "1e9"], "--time"),
        (vec!["worlds/no_such_world.sdf"], "no_such_world"),
        (vec![world, "--pub", "/x=not json"], "not valid JSON"),
    ] {
        let (o, path) = render(dir.path(), libs.path(), "bad.png", &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(says),
            "{args:?} says {says}: {}",
            stderr(&o)
        );
        assert!(!path.exists(), "{args:?} writes nothing");
    }
    // An unwritable output is one clear error too.
    let libs = stage(DEMO_LIBS);
    let world = workspace().join(world);
    let o = simcore_in(
        dir.path(),
        &[
            "render",
            world.to_str().unwrap(),
            "--size",
            "16x16",
            "--plugin-path",
            libs.path().to_str().unwrap(),
            "-o",
            dir.path().join("no/such/dir/x.png").to_str().unwrap(),
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot write"), "{}", stderr(&o));
}

#[test]
fn without_a_library_serving_cameras_no_picture_is_taken_and_the_error_says_why() {
    let libs = stage(&["simcore_plugin_lidar"]);
    let mut sim = sim_from(&world(""), libs.path(), 0, 1);
    sim.step();
    let view = sim_core::render::View::looking_at(
        sim_plugin_api::Vec3::new(-3.0, 0.0, 2.0),
        sim_plugin_api::Vec3::ZERO,
        16,
        16,
    )
    .unwrap();
    let e = sim_core::render::Viewer::new(&sim, view, 100.0).unwrap_err();
    let m = e.to_string();
    assert!(
        m.contains("camera plugin") && m.contains("no plugin library serves sensor type `camera`"),
        "{m}"
    );
    // With the camera plugin the same world gives a picture of the requested size.
    let libs = stage(&["simcore_plugin_camera"]);
    let sim = sim_from(&world(""), libs.path(), 0, 1);
    let mut viewer = sim_core::render::Viewer::new(&sim, view, 100.0).unwrap();
    let picture = viewer.take(&sim).unwrap();
    assert_eq!(
        (picture.width, picture.height, picture.rgb.len()),
        (16, 16, 16 * 16 * 3)
    );
}

/// `--pub` drives the world while it is stepped to the picture's time: the pioneer driven
/// for 3 s is drawn where it went (another picture than the one standing still), and the
/// same messages give the same picture.
#[test]
fn messages_published_on_the_way_move_the_robot_in_the_picture() {
    let mut libs: Vec<&str> = PIONEER_LIBS.to_vec();
    libs.push("simcore_plugin_camera");
    let libs = stage(&libs);
    let dir = tempfile::tempdir().unwrap();
    let drive =
        r#"/model/pioneer/cmd_vel={"type":"Twist","linear":{"x":0.5},"angular":{"z":0.4}}@0"#;
    let view = [
        "worlds/pioneer.sdf",
        "--time",
        "3",
        "--size",
        "160x90",
        "--from",
        "-3,-4,4",
        "--look-at",
        "1,0,0",
    ];
    let with = |name: &str, extra: &[&str]| {
        let args: Vec<&str> = view.iter().copied().chain(extra.iter().copied()).collect();
        let (o, path) = render(dir.path(), libs.path(), name, &args);
        assert!(o.status.success(), "{}", stderr(&o));
        std::fs::read(path).unwrap()
    };
    let still = with("still.png", &[]);
    let driven = with("driven.png", &["--pub", drive]);
    let again = with("again.png", &["--pub", drive]);
    assert_ne!(still, driven, "the robot moved");
    assert_eq!(driven, again, "same messages, same picture");
}
