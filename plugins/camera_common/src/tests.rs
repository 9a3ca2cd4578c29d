//! Unit tests of the shared camera code: configuration, encodings, PNG frames, zoom.

use crate::config::{CameraConfig, ImageFormat, SAVE_ANYWHERE_ENV};
use crate::core::CameraCore;
use crate::image::{
    FrameSaver, depth_image, depth_image_and_cloud, encode_image, point_fields, sibling_topic,
};
use crate::rays::RayStart;
use sim_plugin_api::sdf::{Origin, SdfDocument};
use sim_plugin_api::{
    EntityId, ErrorCode, Image, PixelFormat, PluginError, Pose, Vec3,
    noise::NoiseKind,
    testing::{StaticWorld, sensor_config},
};
use simcore_plugin_common::NoiseChannel;
use simcore_plugin_common::Passes;

const NAME: &str = "m::l::cam";

/// [`encode_image`] in a world without sensor threads.
fn encode(colors: &[[f32; 3]], w: u32, h: u32, format: ImageFormat) -> Image {
    let mut none = NoiseChannel::NONE;
    StaticWorld::default()
        .with(|world| encode_image(&Passes::new(&world), colors, w, h, format, &mut none))
}

/// The configuration read from the `<sensor>` element `sensor`.
fn read(sensor: &str) -> Result<CameraConfig, PluginError> {
    let doc = SdfDocument::parse(sensor, Origin::new(NAME))?;
    CameraConfig::read(&doc.root())
}

/// The configuration of a `camera` sensor whose `<camera>` holds `camera`.
fn parse(camera: &str) -> Result<CameraConfig, PluginError> {
    read(&format!(
        r#"<sensor name="cam" type="camera"><camera>{camera}</camera></sensor>"#
    ))
}

fn error(camera: &str) -> String {
    let e = parse(camera).expect_err("a configuration error");
    assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
    assert!(e.message.starts_with(NAME), "{}", e.message);
    e.message.to_string()
}

#[test]
fn defaults_and_a_full_element() {
    assert_eq!(parse("").unwrap(), CameraConfig::default());
    assert_eq!(
        read(r#"<sensor name="cam" type="camera"/>"#).unwrap(),
        CameraConfig::default()
    );
    let c = parse(
        r#"<horizontal_fov>1.2</horizontal_fov>
           <image><width>64</width><height>32</height><format>L16</format></image>
           <clip><near>0.2</near><far>30</far></clip>
           <depth_camera><clip><near>0.3</near><far>8</far></clip></depth_camera>
           <lens><intrinsics><fx>50</fx><fy>51</fy><cx>31</cx><cy>15</cy><s>0.5</s></intrinsics></lens>
           <distortion><k1>-0.1</k1><p2>0.01</p2><center>0.4 0.6</center></distortion>
           <noise type="gaussian"><mean>0.01</mean><stddev>0.02</stddev></noise>
           <camera_info_topic>/cam/info</camera_info_topic>
           <segmentation_type>Instance</segmentation_type>"#,
    )
    .unwrap();
    assert_eq!((c.horizontal_fov, c.width, c.height), (1.2, 64, 32));
    assert_eq!(c.format, ImageFormat::L16);
    assert_eq!((c.near, c.far), (0.2, 30.0));
    assert_eq!(c.depth_clip, Some((0.3, 8.0)));
    let k = c.effective_intrinsics();
    assert_eq!((k.fx, k.fy, k.cx, k.cy, k.s), (50.0, 51.0, 31.0, 15.0, 0.5));
    assert_eq!((c.distortion.k1, c.distortion.p2), (-0.1, 0.01));
    assert_eq!(c.distortion.center, [0.4, 0.6]);
    assert_eq!(c.noise.kind, NoiseKind::Gaussian);
    assert_eq!(c.camera_info_topic.as_deref(), Some("/cam/info"));
    assert_eq!(c.segmentation_type, "instance");
    for (name, f) in [
        ("R8G8B8", ImageFormat::Rgb8),
        ("RGB_INT8", ImageFormat::Rgb8),
        ("B8G8R8", ImageFormat::Bgr8),
        ("BGR_INT8", ImageFormat::Bgr8),
        ("L8", ImageFormat::L8),
        ("L_INT8", ImageFormat::L8),
        ("L_INT16", ImageFormat::L16),
    ] {
        let c = parse(&format!("<image><format>{name}</format></image>")).unwrap();
        assert_eq!(c.format, f, "{name}");
    }
}

#[test]
fn a_depth_cameras_format_is_not_read() {
    for t in ["depth_camera", "depth"] {
        let c = read(&format!(
            r#"<sensor name="cam" type="{t}"><camera><image><format>R_FLOAT32</format></image></camera></sensor>"#
        ))
        .unwrap_or_else(|e| panic!("{t}: {e}"));
        assert_eq!(c.format, ImageFormat::Rgb8, "{t}");
    }
}

#[test]
fn a_wide_angle_camera_keeps_its_lens_type_and_a_wider_field_of_view() {
    for t in ["wideanglecamera", "wide_angle_camera"] {
        let parse_as = |camera: &str| {
            read(&format!(
                r#"<sensor name="cam" type="{t}"><camera>{camera}</camera></sensor>"#
            ))
        };
        let c =
            parse_as("<horizontal_fov>6.2</horizontal_fov><lens><type>equidistant</type></lens>")
                .unwrap_or_else(|e| panic!("{t}: {e}"));
        assert_eq!(c.horizontal_fov, 6.2);
        let e = parse_as("<horizontal_fov>6.3</horizontal_fov>").unwrap_err();
        assert!(e.message.contains("2π"), "{t}: {e}");
    }
    assert!(crate::is_wide_angle_type("wideanglecamera"));
    assert!(!crate::is_wide_angle_type("camera"));
}

#[test]
fn bad_values_name_the_element_and_the_text() {
    let m = error("<image><format>RGBA_INT8</format></image>");
    assert!(
        m.contains("<camera><image><format>") && m.contains("\"RGBA_INT8\""),
        "{m}"
    );
    assert_eq!(
        error("<horizontal_fov>3.2</horizontal_fov>"),
        format!(
            "{NAME}: <camera><horizontal_fov> must be between 0.001 and π rad (exclusive) for a \
             pinhole camera, found \"3.2\""
        )
    );
    assert!(error("<horizontal_fov>x</horizontal_fov>").contains("finite number"));
    assert!(error("<image><width>0</width></image>").contains("<camera><image><width>"));
    assert!(error("<image><height>2.5</height></image>").contains("<camera><image><height>"));
    assert!(error("<clip><near>0</near></clip>").contains("<camera><clip><near>"));
    assert_eq!(
        error("<clip><near>2</near><far>1</far></clip>"),
        format!("{NAME}: <camera><clip><far> must be greater than <near> (2), found \"1\"")
    );
    // A near plane beyond the default far one is named itself.
    assert_eq!(
        error("<clip><near>200</near></clip>"),
        format!(
            "{NAME}: <camera><clip><near> must be less than <far> (100, the default), found \"200\""
        )
    );
    assert!(
        error("<depth_camera><clip><near>-1</near></clip></depth_camera>")
            .contains("<camera><depth_camera><clip><near> must be positive")
    );
    assert_eq!(
        error("<lens><intrinsics><fx>-3</fx></intrinsics></lens>"),
        format!(
            "{NAME}: <camera><lens><intrinsics><fx> must be greater than 0 (a focal length in \
             pixels), found \"-3\""
        )
    );
    assert!(
        error("<lens><projection><p_cy>y</p_cy></projection></lens>")
            .contains("<camera><lens><projection><p_cy> must be a finite number, found \"y\"")
    );
    assert!(error("<distortion><center>0.5</center></distortion>").contains("<center>"));
    assert_eq!(
        error(r#"<save enabled="true"></save>"#),
        format!(
            "{NAME}: <camera><save><path> is required (the directory the PNG frames are \
             written to, with enabled=\"true\")"
        )
    );
    assert!(error(r#"<save enabled="true"><path> </path></save>"#).contains("<path> is required"));
    assert_eq!(
        error(r#"<save enabled="maybe"><path>x</path></save>"#),
        format!("{NAME}: <camera><save> enabled must be true, false, 1 or 0, found \"maybe\"")
    );
    assert!(error("<lens><type>equidistant</type></lens>").contains("gnomonical"));
    assert!(error("<segmentation_type>other</segmentation_type>").contains("semantic"));
    assert!(error(r#"<noise type="gaussian"><stddev>-1</stddev></noise>"#).contains("<stddev>"));
    // A world writes inside the working directory only.
    for outside in ["/tmp/frames", "../frames", "a/../../b"] {
        let e = error(&format!(
            r#"<save enabled="true"><path>{outside}</path></save>"#
        ));
        assert!(e.contains(SAVE_ANYWHERE_ENV), "{outside}: {e}");
    }
    assert_eq!(
        error(r#"<save enabled="true"><path>/tmp/frames</path></save>"#),
        format!(
            "{NAME}: <camera><save><path> must be a directory inside the working directory \
             (this one is absolute; set {SAVE_ANYWHERE_ENV}=1 to write anywhere), found \
             \"/tmp/frames\""
        )
    );
    assert!(
        parse(r#"<save enabled="true"><path>out/frames</path></save>"#)
            .unwrap()
            .save
            .is_some()
    );
    // A disabled <save> needs no path.
    assert!(parse(r#"<save enabled="false"/>"#).unwrap().save.is_none());
}

#[test]
fn errors_name_the_place_in_the_world_file() {
    let text = "<sensor name=\"cam\" type=\"camera\">\n  <camera>\n    <image><width>0</width></image>\n  </camera>\n</sensor>";
    let config = sensor_config(NAME, "camera", EntityId(2), text).with_source("world.sdf", 40);
    let doc = config.parse_sdf().unwrap();
    let e = CameraConfig::read(&doc.root()).unwrap_err();
    assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
    assert_eq!(
        e.message.as_str(),
        format!(
            "{NAME}: <camera><image><width> must be a whole number of pixels from 1 to 16384, \
             found \"0\" at world.sdf:42"
        )
    );
    // Through the core, as the camera plugins create it.
    let e = CameraCore::new(&config, &doc.root(), RayStart::NearPlane).unwrap_err();
    assert!(e.message.ends_with(" at world.sdf:42"), "{e}");
}

#[test]
fn encodings_of_every_format() {
    let colors = [[1.0f32, 0.5, 0.0], [0.0, 0.0, 2.0]];
    let rgb = encode(&colors, 2, 1, ImageFormat::Rgb8);
    assert_eq!(rgb.data.as_slice(), &[255, 128, 0, 0, 0, 255]);
    assert_eq!((rgb.step, rgb.pixel_format), (6, PixelFormat::RGB_INT8));
    let bgr = encode(&colors, 2, 1, ImageFormat::Bgr8);
    assert_eq!(bgr.data.as_slice(), &[0, 128, 255, 255, 0, 0]);
    let l8 = encode(&colors, 2, 1, ImageFormat::L8);
    // Luma 0.299 + 0.2935 = 0.5925 -> 151; blue over 1 is clamped: 0.114 -> 29.
    assert_eq!(l8.data.as_slice(), &[151, 29]);
    let l16 = encode(&colors, 2, 1, ImageFormat::L16);
    assert_eq!(l16.step, 4);
    // 0.5925 x 65535 = 38829.5.
    let g = u16::from_le_bytes([l16.data[0], l16.data[1]]);
    assert!((38829..=38830).contains(&g), "{g}");
}

#[test]
fn png_frames_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    let mut saver = FrameSaver::new(&dir.path().join("frames"), "m::l::cam").unwrap();
    let colors = [
        [1.0f32, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
        [0.5; 3],
    ];
    for (format, color, bytes) in [
        (ImageFormat::Rgb8, png::ColorType::Rgb, 12),
        (ImageFormat::Bgr8, png::ColorType::Rgb, 12),
        (ImageFormat::L16, png::ColorType::Grayscale, 8),
    ] {
        let img = encode(&colors, 2, 2, format);
        let path = saver.save(&img).unwrap();
        let decoder =
            png::Decoder::new(std::io::BufReader::new(std::fs::File::open(&path).unwrap()));
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        assert_eq!((info.width, info.height, info.color_type), (2, 2, color));
        assert_eq!(info.buffer_size(), bytes);
        match format {
            // BGR frames are stored as RGB: red is still first.
            ImageFormat::Rgb8 | ImageFormat::Bgr8 => {
                assert_eq!(&buf[..6], &[255, 0, 0, 0, 255, 0]);
            }
            // 16-bit PNG samples are big-endian.
            _ => {
                let grey = u16::from_be_bytes([buf[6], buf[7]]);
                assert!((32767..=32768).contains(&grey), "{grey}");
            }
        }
    }
    let names: Vec<String> = std::fs::read_dir(dir.path().join("frames"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for n in 0..3 {
        assert!(names.contains(&format!("m_l_cam_{n:06}.png")), "{names:?}");
    }
}

/// A core from `config` on link 3 of model 2 at the link origin, topic `/x/image`.
fn core_of(config: CameraConfig, from: RayStart) -> CameraCore {
    let mut sensor = sensor_config(NAME, "camera", EntityId(3), "");
    sensor.model = EntityId(2);
    sensor.topic = "/x/image".into();
    CameraCore::from_config(config, &sensor, from)
}

#[test]
fn lens_projection_is_p_and_the_render_model() {
    let c = parse(
        "<image><width>100</width><height>50</height></image>\
         <lens><intrinsics><fx>60</fx><fy>61</fy><cx>50</cx><cy>25</cy><s>1</s></intrinsics>\
         <projection><p_fx>70</p_fx><p_cy>24</p_cy><tx>-7</tx></projection></lens>",
    )
    .unwrap();
    // Left-out elements take K's values; the rendering has no skew.
    let p = c.projection.unwrap();
    assert_eq!(
        (p.fx, p.fy, p.cx, p.cy, p.tx, p.ty),
        (70.0, 61.0, 50.0, 24.0, -7.0, 0.0)
    );
    let r = c.render_intrinsics();
    assert_eq!((r.fx, r.fy, r.cx, r.cy, r.s), (70.0, 61.0, 50.0, 24.0, 0.0));
    assert_eq!(
        c.projection_matrix(),
        [
            70.0, 0.0, 50.0, -7.0, 0.0, 61.0, 24.0, 0.0, 0.0, 0.0, 1.0, 0.0
        ]
    );
    let mut core = core_of(c, RayStart::NearPlane);
    assert_eq!(core.model.intrinsics, r);
    let info = core.camera_info();
    assert_eq!(
        info.intrinsics,
        [60.0, 1.0, 50.0, 0.0, 61.0, 25.0, 0.0, 0.0, 1.0]
    );
    assert_eq!(info.projection[3], -7.0);
    // A zoom scales P (and its translation) with K.
    core.set_parameter("horizontal_fov", "0.5").unwrap();
    let s = (1.047f64 / 2.0).tan() / 0.25f64.tan();
    let info = core.camera_info();
    assert!((info.projection[0] - 70.0 * s).abs() < 1e-9);
    assert!((info.projection[3] + 7.0 * s).abs() < 1e-9);
    assert!((core.model.intrinsics.fx - 70.0 * s).abs() < 1e-9);
    let e = error("<lens><projection><p_fy>0</p_fy></projection></lens>");
    assert!(
        e.contains("<camera><lens><projection><p_fy> must be greater than 0"),
        "{e}"
    );
}

#[test]
fn points_topics_and_zoom() {
    let dirs = [Vec3::new(0.8, 0.6, 0.0), Vec3::new(1.0, 0.0, 0.0)];
    let dirs = [dirs[0], dirs[1], dirs[1]];
    let c = StaticWorld::default().with(|world| {
        depth_image_and_cloud(
            &Passes::new(&world),
            &dirs,
            &[2.0, f32::INFINITY, f32::NEG_INFINITY],
            || |_| 0.0,
            3,
            1,
            &point_fields(),
        )
        .1
    });
    let f = |k: usize, o: usize| {
        f32::from_le_bytes(c.data[k * 16 + o..k * 16 + o + 4].try_into().unwrap())
    };
    assert_eq!((f(0, 0), f(0, 4), f(0, 8)), (2.0, 1.5, 0.0));
    // Out of range: ±inf in x, y and z, as Gazebo's depth shaders write them (not NaN).
    assert_eq!(
        (f(1, 0), f(1, 4), f(1, 8)),
        (f32::INFINITY, f32::INFINITY, f32::INFINITY)
    );
    let ninf = f32::NEG_INFINITY;
    assert_eq!((f(2, 0), f(2, 4), f(2, 8)), (ninf, ninf, ninf));
    assert!(!c.is_dense);

    assert_eq!(
        sibling_topic("/a/b/image", "camera_info"),
        "/a/b/camera_info"
    );
    assert_eq!(sibling_topic("/image", "camera_info"), "/camera_info");

    let mut core = core_of(
        parse("<image><width>100</width><height>50</height></image>").unwrap(),
        RayStart::NearPlane,
    );
    assert_eq!(core.camera_info_topic(), "/x/camera_info");
    core.set_parameter("horizontal_fov", " 0.8 ").unwrap();
    let fx = 50.0 / (0.4f64).tan();
    assert!((core.camera_info().intrinsics[0] - fx).abs() < 1e-9);
    // The rays follow: the edge pixel's ray is now 0.4 rad off axis, less half a pixel.
    let d = core.grid.directions()[0];
    assert!(d.y > 0.0 && (d.y.atan2(d.x) - (49.5 / fx).atan()).abs() < 1e-9);
    for (k, v) in [
        ("horizontal_fov", "0"),
        ("horizontal_fov", "pi"),
        ("near", "1"),
    ] {
        assert!(core.set_parameter(k, v).is_err(), "{k}={v}");
    }
    assert!((core.camera_info().intrinsics[0] - fx).abs() < 1e-9);
    // Explicit intrinsics scale with the zoom, keeping their principal point.
    let mut core = core_of(
        parse(
            "<horizontal_fov>1</horizontal_fov><image><width>100</width><height>50</height></image>\
             <lens><intrinsics><fx>90</fx><fy>99</fy><cx>48</cx><cy>26</cy></intrinsics></lens>",
        )
        .unwrap(),
        RayStart::Origin,
    );
    core.set_parameter("horizontal_fov", "0.5").unwrap();
    let s = (0.25f64).tan().recip() / (0.5f64).tan().recip();
    let k = core.camera_info().intrinsics;
    assert!((k[0] - 90.0 * s).abs() < 1e-9 && (k[4] - 99.0 * s).abs() < 1e-9);
    assert_eq!((k[2], k[5]), (48.0, 26.0));
}

mod shading {
    use crate::shading::Shader;
    use sim_plugin_api::{
        EntityId, Light, LightKind, Pose, Ray, RayHit, SceneInfo, SurfaceInfo, Vec3,
        testing::StaticWorld,
    };
    use simcore_plugin_common::Passes;

    const GROUND: EntityId = EntityId(9);

    /// Shades one hit on the ground (normal up) at `p`, seen from 1 m above it.
    fn shade(world: &StaticWorld, p: Vec3) -> [f32; 3] {
        let ray = Ray {
            origin: p + Vec3::new(0.0, 0.0, 1.0),
            direction: Vec3::new(0.0, 0.0, -1.0),
        };
        let hit = RayHit {
            distance: 1.0,
            normal: Vec3::new(0.0, 0.0, 1.0),
            entity: GROUND,
            model: EntityId(8),
        };
        let mut out = Vec::new();
        world.with(|w| {
            let mut s = Shader::default();
            s.prepare(&w);
            s.shade(
                &Passes::new(&w),
                &[ray, ray],
                &[hit, RayHit::MISS],
                &mut out,
            );
        });
        assert_eq!(out[1], [0.0, 0.0, 1.0], "a miss is the background");
        out[0]
    }

    fn world(lights: Vec<Light>) -> StaticWorld {
        let mut w = StaticWorld::default();
        w.scene = SceneInfo {
            ambient: [0.1, 0.1, 0.1, 1.0],
            background: [0.0, 0.0, 1.0, 1.0],
            shadows: true,
        };
        w.lights = lights;
        w.set_surface(
            GROUND,
            SurfaceInfo {
                diffuse: [0.5, 1.0, 0.5, 1.0],
                laser_retro: 0.0,
            },
        );
        w
    }

    fn close(a: [f32; 3], b: [f64; 3]) {
        for (x, y) in a.iter().zip(b) {
            assert!((f64::from(*x) - y).abs() < 1e-6, "{a:?} vs {b:?}");
        }
    }

    fn lamp(kind: LightKind, at: Vec3) -> Light {
        Light {
            kind,
            pose: Pose::new(at, Default::default()),
            direction: Vec3::new(0.0, 0.0, -1.0),
            cast_shadows: false,
            range: 5.0,
            spot_inner_angle: 0.2,
            spot_outer_angle: 0.4,
            spot_falloff: 1.0,
            ..Light::sun(Vec3::new(0.0, 0.0, -1.0))
        }
    }

    #[test]
    fn a_frame_is_the_same_on_one_thread_and_on_three() {
        use crate::{ImageFormat, image::encode_image};
        use simcore_plugin_common::NoiseChannel;
        let up = Vec3::new(0.0, 0.0, 1.0);
        let ground = RayHit {
            distance: 1.0,
            normal: up,
            entity: GROUND,
            model: EntityId(8),
        };
        // 5,000 pixels seeing the ground (every seventh a miss) from 1 m above, x from
        // -2.5 m to 2.5 m, under a sun whose shadow rays are blocked where x < 0.
        let rays: Vec<Ray> = (0..5000)
            .map(|k| Ray {
                origin: Vec3::new(f64::from(k) / 1000.0 - 2.5, 0.0, 1.0),
                direction: -up,
            })
            .collect();
        let hits: Vec<RayHit> = (0..5000)
            .map(|k| if k % 7 == 0 { RayHit::MISS } else { ground })
            .collect();
        let frame = |threads: usize| {
            let mut w = world(vec![Light {
                cast_shadows: true,
                ..Light::sun(Vec3::new(0.3, 0.1, -1.0))
            }]);
            w.set_sensor_threads(threads);
            w.set_ray_caster(move |ray, _| {
                if ray.origin.x < 0.0 {
                    RayHit {
                        distance: 0.5,
                        ..ground
                    }
                } else {
                    RayHit::MISS
                }
            });
            let mut out = Vec::new();
            let image = w.with(|w| {
                let passes = Passes::new(&w);
                assert_eq!(passes.threads(), threads.max(1));
                let mut s = Shader::default();
                s.prepare(&w);
                s.shade(&passes, &rays, &hits, &mut out);
                let mut none = NoiseChannel::NONE;
                encode_image(&passes, &out, 100, 50, ImageFormat::Rgb8, &mut none)
            });
            (out, image)
        };
        let one = frame(0);
        assert_ne!(one.0[1], one.0[4001], "a shadowed and a lit pixel");
        assert_eq!(one.0[0], [0.0, 0.0, 1.0], "a miss");
        assert!(frame(3) == one, "the same frame on three threads");
    }

    /// A world with every kind of light and a frame's rays and hits: runs of pixels on the
    /// ground and a box's faces (normals up, along x, slanted, some facing away from the
    /// rays), misses, at many distances, shadow rays blocked above the ground's left half.
    fn mixed_frame() -> (StaticWorld, Vec<Ray>, Vec<RayHit>) {
        const BOX: EntityId = EntityId(11);
        let normals = [
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.6, 0.0, 0.8),
            Vec3::new(0.0, -0.8, 0.6),
        ];
        let (mut rays, mut hits) = (Vec::new(), Vec::new());
        for run in 0..700usize {
            let hit = match run % 5 {
                0 => RayHit::MISS,
                k => RayHit {
                    distance: 0.5 + run as f64 * 0.01,
                    normal: normals[k % 4],
                    entity: if k < 3 { GROUND } else { BOX },
                    model: EntityId(8),
                },
            };
            for i in 0..1 + (run * 7) % 9 {
                let a = rays.len() as f64 * 0.01;
                rays.push(Ray {
                    origin: Vec3::new(a.sin(), a.cos(), 2.0),
                    direction: Vec3::new(0.1 * a.cos(), 0.2, -1.0).normalized(),
                });
                hits.push(RayHit {
                    distance: hit.distance + i as f64 * 1e-3,
                    ..hit
                });
            }
        }
        // A face seen from both sides by one run of pixels, its rays turning across it.
        for i in 0..20 {
            rays.push(Ray {
                origin: Vec3::new(0.5, 0.0, 2.0),
                direction: Vec3::new((f64::from(i) - 9.5) * 0.05, 0.2, -1.0).normalized(),
            });
            hits.push(RayHit {
                distance: 1.5,
                normal: normals[1],
                entity: BOX,
                model: EntityId(8),
            });
        }
        let mut w = world(vec![
            Light {
                cast_shadows: true,
                ..Light::sun(Vec3::new(0.3, 0.1, -1.0))
            },
            Light {
                cast_shadows: true,
                ..lamp(LightKind::POINT, Vec3::new(0.0, 0.5, 1.5))
            },
            lamp(LightKind::SPOT, Vec3::new(0.2, 0.0, 2.0)),
        ]);
        w.set_surface(
            BOX,
            SurfaceInfo {
                diffuse: [0.9, 0.3, 0.2, 1.0],
                laser_retro: 0.0,
            },
        );
        w.set_ray_caster(|ray, _| {
            if ray.origin.x < 0.0 {
                RayHit {
                    distance: 0.3,
                    ..RayHit::MISS
                }
            } else {
                RayHit::MISS
            }
        });
        (w, rays, hits)
    }

    #[test]
    fn a_pixel_shaded_in_its_run_is_the_pixel_shaded_alone() {
        let (w, rays, hits) = mixed_frame();
        let shade = |rays: &[Ray], hits: &[RayHit]| {
            let mut out = Vec::new();
            w.with(|w| {
                let mut s = Shader::default();
                s.prepare(&w);
                s.shade(&Passes::new(&w), rays, hits, &mut out);
            });
            out
        };
        let frame = shade(&rays, &hits);
        assert_eq!(frame.len(), rays.len());
        let mut shadowed = 0;
        for k in 0..rays.len() {
            let alone = shade(&rays[k..k + 1], &hits[k..k + 1]);
            assert_eq!(
                frame[k].map(f32::to_bits),
                alone[0].map(f32::to_bits),
                "pixel {k}"
            );
            shadowed += usize::from(hits[k].distance.is_finite() && rays[k].origin.x < 0.0);
        }
        assert!(shadowed > 100, "{shadowed}");
    }

    #[test]
    fn the_avx2_build_shades_as_the_baseline() {
        use std::sync::atomic::Ordering;
        let (w, rays, hits) = mixed_frame();
        let frame = |baseline: bool| {
            crate::shading::BASELINE.store(baseline, Ordering::Relaxed);
            let mut out = Vec::new();
            w.with(|w| {
                let mut s = Shader::default();
                s.prepare(&w);
                s.shade(&Passes::new(&w), &rays, &hits, &mut out);
            });
            crate::shading::BASELINE.store(false, Ordering::Relaxed);
            out
        };
        let (built, baseline) = (frame(false), frame(true));
        assert_eq!(built.len(), rays.len());
        for (k, (a, b)) in built.iter().zip(&baseline).enumerate() {
            assert_eq!(a.map(f32::to_bits), b.map(f32::to_bits), "pixel {k}");
        }
        let mut colours: Vec<[u32; 3]> = built.iter().map(|c| c.map(f32::to_bits)).collect();
        colours.sort_unstable();
        colours.dedup();
        assert!(colours.len() > 1000, "{}", colours.len());
    }

    #[test]
    fn point_and_spot_lights_attenuate() {
        let w = world(vec![lamp(LightKind::POINT, Vec3::new(0.0, 0.0, 2.0))]);
        // 1 / (constant 1 + linear 1 x 2 m) = 1/3, straight above.
        let l = 0.1 + 1.0 / 3.0;
        close(shade(&w, Vec3::ZERO), [0.5 * l, l, 0.5 * l]);
        // Beyond the range: ambient only.
        close(shade(&w, Vec3::new(6.0, 0.0, 0.0)), [0.05, 0.1, 0.05]);

        let w = world(vec![lamp(LightKind::SPOT, Vec3::new(0.0, 0.0, 2.0))]);
        close(shade(&w, Vec3::ZERO), [0.5 * l, l, 0.5 * l]);
        // 0.3 rad off the spot's axis: between the inner and outer angle.
        let x = 2.0 * 0.3f64.tan();
        let d = (4.0 + x * x).sqrt();
        let cone = (0.3f64.cos() - 0.4f64.cos()) / (0.2f64.cos() - 0.4f64.cos());
        let l = 0.1 + (2.0 / d) * cone / (1.0 + d);
        close(shade(&w, Vec3::new(x, 0.0, 0.0)), [0.5 * l, l, 0.5 * l]);
        // Outside the outer angle: ambient only.
        close(shade(&w, Vec3::new(2.0, 0.0, 0.0)), [0.05, 0.1, 0.05]);
    }

    #[test]
    fn shadow_rays_darken_only_shadow_casting_lights() {
        let sun = Light::sun(Vec3::new(0.0, -1.0, -1.0));
        let lit = 0.1 + std::f64::consts::FRAC_1_SQRT_2;
        let lit = [0.5 * lit, lit, 0.5 * lit];
        let mut w = world(vec![sun.clone()]);
        close(shade(&w, Vec3::ZERO), lit);
        // Something above blocks every ray going up: in shadow.
        w.set_ray_caster(|r, _| {
            if r.direction.z > 0.0 {
                RayHit {
                    distance: 3.0,
                    ..RayHit::MISS
                }
            } else {
                RayHit::MISS
            }
        });
        close(shade(&w, Vec3::ZERO), [0.05, 0.1, 0.05]);
        // The scene's <shadows>false</shadows>, or a light that casts none: lit again.
        w.scene.shadows = false;
        close(shade(&w, Vec3::ZERO), lit);
        w.scene.shadows = true;
        w.lights[0].cast_shadows = false;
        close(shade(&w, Vec3::ZERO), lit);
    }
}

#[test]
fn the_visibility_mask_is_read_and_checked() {
    assert_eq!(CameraConfig::default().visibility_mask, u32::MAX);
    let c = parse("<visibility_mask>6</visibility_mask>").unwrap();
    assert_eq!(c.visibility_mask, 6);
    let c = parse("<visibility_mask> 0x0A </visibility_mask>").unwrap();
    assert_eq!(c.visibility_mask, 10);
    assert_eq!(
        parse("<visibility_mask> </visibility_mask>")
            .unwrap()
            .visibility_mask,
        u32::MAX
    );
    for bad in ["-1", "4294967296", "0x", "0xg", "two"] {
        let m = error(&format!("<visibility_mask>{bad}</visibility_mask>"));
        assert_eq!(
            m,
            format!(
                "{NAME}: <camera><visibility_mask> must be an unsigned 32-bit number (0 to \
                 4294967295), found \"{bad}\""
            )
        );
    }
}

#[test]
fn passes_without_sensor_threads_run_one_chunk_in_order() {
    use std::sync::Mutex;
    StaticWorld::default().with(|world| {
        let p = Passes::new(&world);
        assert_eq!(p.threads(), 1);
        assert_eq!((p.chunk_len(5000), p.chunk_len(0)), (5000, 1));
        let seen = Mutex::new(Vec::new());
        p.run(vec![1, 2, 3], |i| seen.lock().unwrap().push(i));
        assert_eq!(seen.into_inner().unwrap(), [1, 2, 3]);
        let p = Passes::serial(&world);
        assert_eq!((p.threads(), p.chunk_len(7)), (1, 7));
    });
}

#[test]
fn the_depth_image_beside_the_cloud_is_the_depth_image() {
    let dirs = [
        Vec3::new(0.8, 0.6, 0.0),
        Vec3::new(1.0, 0.0, 0.0),
        Vec3::ZERO,
    ];
    let depths = [2.0, f32::NEG_INFINITY, f32::INFINITY];
    StaticWorld::default().with(|world| {
        let p = Passes::new(&world);
        let (image, cloud) =
            depth_image_and_cloud(&p, &dirs, &depths, || |k| k as f32, 3, 1, &point_fields());
        assert_eq!(image, depth_image(&p, &depths, 3, 1));
        assert_eq!(&image.data[0..4], &2.0f32.to_le_bytes());
        assert_eq!((image.step, image.width, cloud.row_step), (12, 3, 48));
        // The colours by pixel index, a pixel without a ray at +inf.
        let f = |k: usize, o: usize| {
            f32::from_le_bytes(cloud.data[k * 16 + o..k * 16 + o + 4].try_into().unwrap())
        };
        assert_eq!((f(1, 12), f(2, 12), f(2, 0)), (1.0, 2.0, f32::INFINITY));
        assert!(!cloud.is_dense);
    });
}

#[test]
fn a_cloud_packed_with_avx2_is_the_cloud_of_the_baseline_build() {
    use crate::image::ImageAndCloud;
    // Directions of every kind (ahead, sideways, behind, none) and depths of every kind
    // (finite, near and far, infinite, NaN), in chunks of 1,000 pixels with a shorter last.
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let n = 4321;
    let dirs: Vec<Vec3> = (0..n)
        .map(|k| match k % 9 {
            0 => Vec3::ZERO,
            1 => Vec3::new(-0.5, next() - 0.5, 0.5),
            _ => Vec3::new(next() + 0.05, next() - 0.5, next() - 0.5).normalized(),
        })
        .collect();
    let depths: Vec<f32> = (0..n)
        .map(|k| match k % 13 {
            0 => f32::INFINITY,
            1 => f32::NEG_INFINITY,
            2 => f32::NAN,
            _ => (next() * 50.0) as f32,
        })
        .collect();
    let pack = |avx2: bool| {
        let mut made = ImageAndCloud::new(n, n, 1000);
        for part in made.parts() {
            let first = part.first;
            let depth = |k: usize, out: &mut [f32]| {
                out.copy_from_slice(&depths[first + k..first + k + out.len()]);
            };
            let rgb = |k: usize| (first + k) as f32;
            let dirs = &dirs[first..(first + 1000).min(n)];
            if avx2 {
                part.pack(dirs, depth, rgb);
            } else {
                part.pack_in(dirs, depth, rgb);
            }
        }
        made.finish((n as u32, 1), &point_fields())
    };
    let ((image, cloud), (base_image, base_cloud)) = (pack(true), pack(false));
    assert_eq!(image.data, base_image.data);
    assert_eq!(cloud.data, base_cloud.data);
    assert_eq!(cloud.is_dense, base_cloud.is_dense);
    assert!(image.data.iter().any(|&b| b != 0));
}

#[test]
fn passes_on_sensor_threads_run_every_chunk_once() {
    use std::sync::Mutex;
    let mut w = StaticWorld::default();
    w.set_sensor_threads(3);
    w.with(|world| {
        let p = Passes::new(&world);
        assert_eq!(p.threads(), 3);
        assert_eq!(p.chunk_len(5000), crate::CHUNK_PIXELS);
        let seen = Mutex::new(Vec::new());
        p.run((0..50).collect(), |i: u32| seen.lock().unwrap().push(i));
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        assert_eq!(seen, (0..50).collect::<Vec<_>>());
    });
}

#[test]
fn a_rasterising_grid_casts_rays_on_an_engine_without_the_raster_extension() {
    use crate::model::{CameraModel, Distortion, Intrinsics};
    use crate::rays::RayGrid;
    use sim_plugin_api::{EntityId, RayHit};
    // A plane 5 m ahead along x, seen by rays.
    let mut world = StaticWorld::default();
    world.set_ray_caster(|ray, _| {
        if ray.direction.x <= 0.0 {
            return RayHit::MISS;
        }
        let t = (5.0 - ray.origin.x) / ray.direction.x;
        RayHit {
            distance: t,
            normal: Vec3::new(-1.0, 0.0, 0.0),
            entity: EntityId(7),
            model: EntityId(3),
        }
    });
    let model = CameraModel {
        width: 16,
        height: 12,
        intrinsics: Intrinsics::from_hfov(16, 12, 1.0),
        distortion: Distortion::NONE,
    };
    let pose = Pose::new(Vec3::new(0.0, 0.0, 1.0), sim_plugin_api::Quat::IDENTITY);
    let mut plain = RayGrid::new(&model, 0.1, 50.0, RayStart::NearPlane, EntityId::NONE);
    let mut raster = plain.clone();
    raster.set_raster(true);
    world.with(|world| {
        assert!(world.raster().is_none());
        assert!(!raster.rasterises_in(&world));
        plain.cast(&world, pose);
        raster.cast(&world, pose);
    });
    assert_eq!(raster.hits(), plain.hits());
    assert_eq!(raster.rays(), plain.rays());
    // Every pixel sees the plane at its z-depth of 5 m.
    for k in 0..16 * 12 {
        assert!((raster.depth(k) - 5.0).abs() < 1e-9, "{}", raster.depth(k));
        assert_eq!(raster.hits()[k].entity, EntityId(7));
    }
}

#[test]
fn primary_visibility_is_a_run_time_parameter() {
    let mut sensor = sensor_config(NAME, "camera", EntityId(1), "");
    sensor.model = EntityId(2);
    sensor.topic = "cam".into();
    let mut core = CameraCore::from_config(parse("").unwrap(), &sensor, RayStart::NearPlane);
    core.set_parameter("primary_visibility", "rays").unwrap();
    core.set_parameter("primary_visibility", " raster ")
        .unwrap();
    let e = core
        .set_parameter("primary_visibility", "both")
        .expect_err("refused");
    assert_eq!(e.code, ErrorCode::BAD_REQUEST);
    assert!(e.message.contains("raster or rays"), "{}", e.message);
    let e = core.set_parameter("zoom", "2").expect_err("refused");
    assert!(e.message.contains("primary_visibility"), "{}", e.message);
}

#[test]
fn a_core_takes_its_place_model_and_topic_from_the_sensor() {
    let mut sensor = sensor_config(NAME, "camera", EntityId(3), "");
    sensor.topic = "/x/image".into();
    sensor.pose = Pose::new(Vec3::new(0.0, 0.0, 1.0), sim_plugin_api::Quat::IDENTITY);
    let core = CameraCore::from_config(CameraConfig::default(), &sensor, RayStart::NearPlane);
    assert_eq!(core.mount, simcore_plugin_common::SensorMount::of(&sensor));
    assert_eq!(core.topic, "/x/image");
    // The rays see over <clip>.
    assert_eq!(core.grid.clip(), (core.config.near, core.config.far));
    let mut w = StaticWorld::default();
    w.set_kinematics(
        EntityId(3),
        sim_plugin_api::KinematicState {
            pose: Pose::new(Vec3::new(1.0, 0.0, 0.0), sim_plugin_api::Quat::IDENTITY),
            ..Default::default()
        },
    );
    let pose = w.with(|v| core.pose(&v)).unwrap();
    assert_eq!(pose.position, Vec3::new(1.0, 0.0, 1.0));
}

#[test]
fn camera_info_topics_beside_or_below_the_sensor_topic() {
    let plain = core_of(CameraConfig::default(), RayStart::NearPlane);
    assert_eq!(plain.camera_info_topic(), "/x/camera_info");
    assert_eq!(plain.camera_info_topic_below(), "camera_info");
    for (given, topic) in [("/cam/info", "/cam/info"), ("cam/info", "/cam/info")] {
        let config = CameraConfig {
            camera_info_topic: Some(given.to_string()),
            ..CameraConfig::default()
        };
        let core = core_of(config, RayStart::NearPlane);
        assert_eq!(core.camera_info_topic(), topic);
        assert_eq!(core.camera_info_topic_below(), topic);
    }
}

#[test]
fn the_camera_info_of_a_configuration_is_the_cores() {
    let c = parse(
        "<image><width>100</width><height>50</height></image>\
         <lens><intrinsics><fx>60</fx><fy>61</fy><cx>50</cx><cy>25</cy><s>1</s></intrinsics>\
         <projection><p_fx>70</p_fx><p_cy>24</p_cy><tx>-7</tx></projection></lens>\
         <distortion><k1>0.1</k1></distortion>",
    )
    .unwrap();
    let info = c.camera_info();
    assert_eq!((info.width, info.height), (100, 50));
    assert_eq!(
        info.intrinsics,
        [60.0, 1.0, 50.0, 0.0, 61.0, 25.0, 0.0, 0.0, 1.0]
    );
    assert_eq!(info.projection, c.projection_matrix());
    assert_eq!(info.distortion[0], 0.1);
    let mut core = core_of(c, RayStart::NearPlane);
    assert_eq!(core.camera_info(), core.config.camera_info());
    // Zoomed, the core's follows its configuration.
    core.set_parameter("horizontal_fov", "0.5").unwrap();
    assert_eq!(core.camera_info(), core.config.camera_info());
    assert_ne!(core.camera_info().intrinsics, info.intrinsics);
}

/// The messages published by `publish` on outputs of its own.
fn published(
    publish: impl FnOnce(&mut sim_plugin_api::Outputs<'_>) -> Result<(), PluginError>,
) -> (Result<(), PluginError>, Vec<sim_plugin_api::Message>) {
    let mut out = sim_plugin_api::abi_stable::std_types::RVec::new();
    let r = publish(&mut sim_plugin_api::Outputs::new(&mut out));
    (r, out.into_iter().collect())
}

#[test]
fn image_outputs_publish_the_image_and_camera_info_and_save_frames() {
    use crate::image::ImageOutputs;
    use sim_plugin_api::Payload;
    let image = encode(&[[1.0, 0.0, 0.0]; 4], 2, 2, ImageFormat::Rgb8);
    let info = CameraConfig::default().camera_info();

    // Without <save>: the image on the sensor's topic, camera_info beside it.
    let mut outputs = core_of(CameraConfig::default(), RayStart::NearPlane)
        .image_outputs()
        .unwrap();
    assert_eq!(outputs.info_topic(), "/x/camera_info");
    assert_eq!(
        outputs.outputs(),
        [
            (String::new(), "Image"),
            ("/x/camera_info".to_string(), "CameraInfo")
        ]
    );
    let (r, messages) = published(|out| outputs.publish(out, image.clone(), info.clone(), NAME));
    r.unwrap();
    let topics: Vec<&str> = messages.iter().map(|m| m.topic.as_str()).collect();
    assert_eq!(topics, ["", "/x/camera_info"]);
    assert!(matches!(messages[0].payload.as_enum(), Ok(Payload::Image(i)) if **i == image));
    assert!(matches!(messages[1].payload.as_enum(), Ok(Payload::CameraInfo(c)) if **c == info));

    // With <save>: each frame is written first.
    let dir = tempfile::tempdir().unwrap();
    let saving = CameraConfig {
        save: Some(crate::config::SaveConfig {
            path: dir.path().join("frames"),
        }),
        camera_info_topic: Some("info".to_string()),
        ..CameraConfig::default()
    };
    let mut outputs = ImageOutputs::new(&saving, "/x/image", NAME).unwrap();
    assert_eq!(outputs.info_topic(), "/info");
    let (r, messages) = published(|out| outputs.publish(out, image.clone(), info.clone(), NAME));
    r.unwrap();
    assert_eq!(messages.len(), 2);
    assert!(dir.path().join("frames/m_l_cam_000000.png").is_file());

    // A frame that cannot be written is a run-time error naming the sensor; nothing goes out.
    std::fs::create_dir(dir.path().join("frames/m_l_cam_000001.png")).unwrap();
    let (r, messages) = published(|out| outputs.publish(out, image.clone(), info.clone(), NAME));
    let e = r.unwrap_err();
    assert_eq!(e.code, ErrorCode::RUNTIME);
    assert!(e.message.starts_with(&format!("{NAME}: ")), "{e}");
    assert!(e.message.contains("m_l_cam_000001.png"), "{e}");
    assert!(messages.is_empty());
}

#[test]
fn a_failed_save_names_the_sensor() {
    let e = crate::image::save_failed(NAME, PluginError::runtime("disk full"));
    assert_eq!(e.code, ErrorCode::RUNTIME);
    assert_eq!(e.message.as_str(), format!("{NAME}: disk full"));
    // Whatever the write's code, the camera's is a run-time error.
    let e = crate::image::save_failed("s", PluginError::config("no such directory"));
    assert_eq!(
        (e.code, e.message.as_str()),
        (ErrorCode::RUNTIME, "s: no such directory")
    );
}
