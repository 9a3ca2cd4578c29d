//! Tests of the sensor through its public API: against `StaticWorld` (every ray misses) and
//! against a `StaticWorld` of one wall whose hits are known exactly.

use crate::{LidarConfig, LidarSensor, POINT_STEP, ScanAxis, lidar};
use sim_plugin_api::{
    EntityId, ErrorCode, KinematicState, LaserScan, Payload, PointCloudPacked, PointFieldType,
    Pose, Quat, RayHit, RayTarget, SurfaceInfo, Vec3,
    noise::NoiseKind,
    sdf::{Origin, SdfDocument},
    testing::{StaticWorld, run_update, sensor_config},
};
use simcore_plugin_common::SdfSensor;
use simcore_plugin_common::testing::sensor_error;
use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};

const NAME: &str = "robot::base::lidar";
const LINK: EntityId = EntityId(3);

fn sdf(lidar: &str) -> String {
    format!(r#"<sensor name="lidar" type="lidar">{lidar}</sensor>"#)
}

/// The configuration read from the `<sensor>` element `sensor`.
fn read(sensor: &str) -> Result<LidarConfig, sim_plugin_api::PluginError> {
    let doc = SdfDocument::parse(sensor, Origin::new(NAME))?;
    LidarConfig::read(&doc.root())
}

/// The configuration of a lidar sensor holding `lidar`.
fn parse(lidar: &str) -> Result<LidarConfig, sim_plugin_api::PluginError> {
    read(&sdf(lidar))
}

/// The vertical resolution ignored of a lidar sensor holding `lidar`.
fn ignored_vertical_resolution(lidar: &str) -> Option<f64> {
    let text = sdf(lidar);
    let doc = SdfDocument::parse(&text, Origin::new(NAME)).unwrap();
    crate::config::ignored_vertical_resolution(&doc.root())
}

fn error(lidar: &str) -> String {
    let e = parse(lidar).expect_err("expected a configuration error");
    assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
    assert!(e.message.starts_with(NAME), "{e}");
    e.message.to_string()
}

const BASIC: &str = "<lidar><scan><horizontal><samples>5</samples><min_angle>-1</min_angle>\
    <max_angle>1</max_angle></horizontal></scan><range><min>0.2</min><max>10</max></range></lidar>";

// ----- configuration ---------------------------------------------------------------------

#[test]
fn full_configuration() {
    let c = parse(
        r#"<lidar>
             <scan>
               <horizontal><samples>640</samples><resolution>1</resolution>
                 <min_angle>-2.2</min_angle><max_angle>2.2</max_angle></horizontal>
               <vertical><samples>16</samples><min_angle>-0.26</min_angle><max_angle>0.26</max_angle></vertical>
             </scan>
             <range><min>0.08</min><max>30</max><resolution>0.01</resolution></range>
             <noise type="gaussian"><mean>0</mean><stddev>0.01</stddev></noise>
           </lidar>"#,
    )
    .unwrap();
    assert_eq!(
        c.horizontal,
        ScanAxis {
            samples: 640,
            min_angle: -2.2,
            max_angle: 2.2
        }
    );
    assert_eq!(c.vertical.samples, 16);
    assert_eq!((c.vertical.min_angle, c.vertical.max_angle), (-0.26, 0.26));
    assert_eq!(
        (c.range_min, c.range_max, c.range_resolution),
        (0.08, 30.0, 0.01)
    );
    assert_eq!(c.noise.kind, NoiseKind::Gaussian);
    assert_eq!(c.noise.stddev, 0.01);
    assert_eq!(c.target, RayTarget::COLLISION);
    assert_eq!(c.ray_count(), 640 * 16);
}

#[test]
fn defaults_and_legacy_ray() {
    let c = parse(
        "<ray><scan><horizontal><samples>3</samples></horizontal></scan><range><max>5</max></range></ray>",
    )
    .unwrap();
    assert_eq!(c, LidarConfig::planar(3, 0.0, 0.0, 0.0, 5.0));
    // A vertical element without samples: one row.
    let c = parse(
        "<lidar><scan><horizontal><samples>3</samples></horizontal><vertical><min_angle>0.1</min_angle></vertical></scan><range><max>5</max></range></lidar>",
    )
    .unwrap();
    assert_eq!(c.vertical.samples, 1);
    assert_eq!(c.vertical.min_angle, 0.1);
    // <lidar> wins over <ray>.
    let c = parse(&format!(
        "{BASIC}<ray><scan><horizontal><samples>9</samples></horizontal></scan><range><max>1</max></range></ray>"
    ))
    .unwrap();
    assert_eq!(c.horizontal.samples, 5);
}

#[test]
fn visibility_option() {
    let with = |v: &str| {
        format!(
            "<lidar><scan><horizontal><samples>1</samples></horizontal></scan><range><max>5</max></range>{v}</lidar>"
        )
    };
    // As the engine hands it over: a declared prefix, or an undeclared one repaired to a dot.
    let declared = format!(
        r#"<sensor name="lidar" type="lidar" xmlns:simcore="https://simcore.dev">{}</sensor>"#,
        with("<simcore:visibility>visual</simcore:visibility>")
    );
    let c = read(&declared).unwrap();
    assert_eq!(c.target, RayTarget::VISUAL);
    let c = parse(&with("<simcore.visibility> Visual </simcore.visibility>")).unwrap();
    assert_eq!(c.target, RayTarget::VISUAL);
    let c = parse(&with("<simcore.visibility>collision</simcore.visibility>")).unwrap();
    assert_eq!(c.target, RayTarget::COLLISION);
    let m = error(&with("<simcore.visibility>both</simcore.visibility>"));
    assert_eq!(
        m,
        format!("{NAME}: <lidar><simcore:visibility> must be collision or visual, found \"both\"")
    );
    let declared = declared.replace(">visual<", ">both<");
    assert_eq!(
        read(&declared).unwrap_err().message.as_str(),
        format!("{NAME}: <lidar><simcore:visibility> must be collision or visual, found \"both\"")
    );
}

#[test]
fn the_visibility_mask_applies_to_visuals_only() {
    let with = |v: &str| {
        sdf(&format!(
            "<lidar><scan><horizontal><samples>1</samples></horizontal></scan><range><max>5</max></range>{v}</lidar>"
        ))
    };
    let mask = "<visibility_mask>3</visibility_mask>";
    assert_eq!(read(&with("")).unwrap().visibility_mask, u32::MAX);
    assert_eq!(read(&with(mask)).unwrap().visibility_mask, 3);
    let hex = "<visibility_mask>0x3</visibility_mask>";
    assert_eq!(read(&with(hex)).unwrap().visibility_mask, 3);
    let e = read(&with("<visibility_mask>0x1g</visibility_mask>")).unwrap_err();
    assert_eq!(
        e.message.as_str(),
        format!(
            "{NAME}: <lidar><visibility_mask> must be an unsigned 32-bit number (0 to \
             4294967295), found \"0x1g\""
        )
    );
    // A lidar seeing collisions says that its mask changes nothing; one seeing visuals does
    // not, and neither does one with the default mask.
    let warnings = |text: &str| {
        let world = StaticWorld::default();
        let config = sensor_config(NAME, "lidar", LINK, text);
        world.with(|w| LidarSensor::create(&config, &w).unwrap());
        let logs = world.logs.lock().unwrap();
        logs.iter()
            .filter(|(_, m)| m.contains("<visibility_mask>"))
            .count()
    };
    assert_eq!(warnings(&with(mask)), 1);
    assert_eq!(
        warnings(&with(&format!(
            "{mask}<simcore.visibility>visual</simcore.visibility>"
        ))),
        0
    );
    assert_eq!(warnings(&with("")), 0);
}

#[test]
fn errors_name_sensor_element_and_text() {
    let m = error("");
    assert_eq!(
        m,
        format!(
            "{NAME}: <lidar> (or <ray>) is required (with <scan><horizontal><samples> and \
             <range><max>)"
        )
    );
    let e = read("").unwrap_err();
    assert!(e.message.contains("<lidar> (or <ray>)"));
    let m = error("<lidar><range><max>5</max></range></lidar>");
    assert_eq!(
        m,
        format!("{NAME}: <lidar><scan><horizontal> is required (with <samples>)")
    );
    let m = error("<lidar><scan><horizontal/></scan><range><max>5</max></range></lidar>");
    assert_eq!(
        m,
        format!(
            "{NAME}: <lidar><scan><horizontal><samples> is required (a whole number of at least 1)"
        )
    );
    for bad in ["0", "-3", "2.5", "many"] {
        let m = error(&format!(
            "<ray><scan><horizontal><samples>{bad}</samples></horizontal></scan><range><max>5</max></range></ray>"
        ));
        assert_eq!(
            m,
            format!(
                "{NAME}: <ray><scan><horizontal><samples> must be a whole number of at least 1, found \"{bad}\""
            )
        );
    }
    let m = error(
        "<lidar><scan><horizontal><samples>4</samples><resolution>2</resolution></horizontal></scan><range><max>5</max></range></lidar>",
    );
    assert_eq!(
        m,
        format!(
            "{NAME}: <lidar><scan><horizontal><resolution> must be 1 (interpolated resolutions are not supported yet), found \"2\""
        )
    );
    // The vertical resolution is ignored, as gz-sim's CPU lidar does: `samples` rows.
    let c = parse("<lidar><scan><horizontal><samples>4</samples></horizontal><vertical><samples>2</samples><resolution>0.5</resolution></vertical></scan><range><max>5</max></range></lidar>")
    .expect("a vertical resolution other than 1 is accepted");
    assert_eq!(c.ray_count(), 8);
    assert_eq!(
        ignored_vertical_resolution(
            "<lidar><scan><vertical><resolution>0.5</resolution></vertical></scan></lidar>"
        ),
        Some(0.5)
    );
    assert_eq!(ignored_vertical_resolution(BASIC), None);
    assert_eq!(
        ignored_vertical_resolution(
            "<ray><scan><vertical><resolution>2</resolution></vertical></scan></ray>"
        ),
        Some(2.0)
    );
    let m = error(
        "<lidar><scan><horizontal><samples>4</samples></horizontal><vertical><samples>2</samples><resolution>0</resolution></vertical></scan><range><max>5</max></range></lidar>",
    );
    assert!(
        m.contains("<lidar><scan><vertical><resolution> must be a positive number"),
        "{m}"
    );
    let m = error(
        "<lidar><scan><horizontal><samples>4</samples><min_angle>left</min_angle></horizontal></scan><range><max>5</max></range></lidar>",
    );
    assert_eq!(
        m,
        format!(
            "{NAME}: <lidar><scan><horizontal><min_angle> must be a finite number, found \"left\""
        )
    );
    let m = error("<lidar><scan><horizontal><samples>4</samples></horizontal></scan></lidar>");
    assert_eq!(
        m,
        format!("{NAME}: <lidar><range><max> is required (a finite number)")
    );
    let m = error(
        "<lidar><scan><horizontal><samples>4</samples></horizontal></scan><range><min>2</min><max>2</max></range></lidar>",
    );
    assert_eq!(
        m,
        format!("{NAME}: <lidar><range><max> must be greater than <range><min> (2), found \"2\"")
    );
    let m = error(
        "<lidar><scan><horizontal><samples>4</samples></horizontal></scan><range><min>-1</min><max>2</max></range></lidar>",
    );
    assert!(
        m.contains("<lidar><range><min> must be zero or positive, found \"-1\""),
        "{m}"
    );
    let m = error(
        "<lidar><scan><horizontal><samples>4</samples></horizontal></scan><range><max>2</max><resolution>-0.1</resolution></range></lidar>",
    );
    assert!(
        m.contains("<lidar><range><resolution> must be zero or positive"),
        "{m}"
    );
    let m = error(
        "<lidar><scan><horizontal><samples>4</samples></horizontal></scan><range><max>2</max></range><noise type=\"gaussian\"><stddev>x</stddev></noise></lidar>",
    );
    assert_eq!(
        m,
        format!("{NAME}: <lidar><noise><stddev> must be a finite number, found \"x\"")
    );
    // Through the factory.
    let config = sensor_config(NAME, "lidar", LINK, "<sensor><lidar></sensor>");
    let e = StaticWorld::default()
        .with(|w| LidarSensor::create(&config, &w).map(|_| ()))
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
    // With the place of the element in the world file.
    let text = "<sensor name=\"lidar\" type=\"lidar\">\n  <lidar>\n    <scan><horizontal><samples>4</samples></horizontal></scan>\n    <range>\n      <max>-2</max>\n    </range>\n  </lidar>\n</sensor>";
    let e = sensor_error::<LidarSensor>(NAME, "lidar", LINK, text, 60);
    assert_eq!(
        e.message.as_str(),
        format!(
            "{NAME}: <lidar><range><max> must be greater than <range><min> (0), found \"-2\" at \
             world.sdf:64"
        )
    );
    let text = "<sensor>\n  <lidar>\n  </lidar>\n</sensor>";
    let e = sensor_error::<LidarSensor>(NAME, "lidar", LINK, text, 60);
    assert_eq!(
        e.message.as_str(),
        format!("{NAME}: <lidar><scan><horizontal> is required (with <samples>) at world.sdf:61")
    );
}

// ----- geometry and range rules ----------------------------------------------------------

#[test]
fn angles_and_directions() {
    let c = parse(BASIC).unwrap();
    assert_eq!(c.horizontal.step(), 0.5);
    assert_eq!(c.horizontal.angle(0), -1.0);
    assert_eq!(c.horizontal.angle(4), 1.0);
    assert_eq!(ScanAxis::SINGLE.step(), 0.0);
    let one = ScanAxis {
        samples: 1,
        min_angle: 0.3,
        max_angle: 0.9,
    };
    assert_eq!((one.step(), one.angle(0)), (0.0, 0.3));

    let mut c = LidarConfig::planar(4, -PI, PI, 0.0, 1.0);
    c.vertical = ScanAxis {
        samples: 3,
        min_angle: -FRAC_PI_4,
        max_angle: FRAC_PI_4,
    };
    let d = lidar::ray_directions(&c);
    assert_eq!(d.len(), 12);
    for (k, dir) in d.iter().enumerate() {
        let (h, v) = (
            -PI + (k % 4) as f64 * (2.0 * PI / 3.0),
            -FRAC_PI_4 + (k / 4) as f64 * FRAC_PI_4,
        );
        let expected = Vec3::new(v.cos() * h.cos(), v.cos() * h.sin(), v.sin());
        assert!(
            (*dir - expected).length() < 1e-12,
            "{k}: {dir:?} vs {expected:?}"
        );
        assert!((dir.length() - 1.0).abs() < 1e-12);
    }
    // Row 0 is the lowest, and within a row the angle grows from min.
    assert!(d[0].z < 0.0 && d[8].z > 0.0 && d[4].z.abs() < 1e-12);
    assert!((d[4] - Vec3::new(-1.0, 0.0, 0.0)).length() < 1e-12);
}

#[test]
fn the_scan_views_rays_are_the_rays_the_sensor_casts() {
    let mut c = LidarConfig::planar(7, -2.9, 3.1, 0.15, 30.0);
    c.vertical = ScanAxis {
        samples: 5,
        min_angle: -0.4,
        max_angle: 0.3,
    };
    let dirs = lidar::ray_directions(&c);
    let options = sim_plugin_api::RayCastOptions {
        max_distance: 29.85,
        target: RayTarget::COLLISION,
        exclude_model: EntityId::NONE,
    };
    for pose in [
        Pose::IDENTITY,
        Pose::new(Vec3::new(1.5, -2.0, 0.7), Quat::from_rpy(0.3, -0.2, 2.1)),
    ] {
        let view = lidar::scan_view(&c, pose, options, 5);
        let m = pose.orientation.to_matrix();
        let turn = simcore_plugin_common::Rotation::new(pose.orientation);
        for (k, d) in dirs.iter().enumerate() {
            let (row, col) = ((k / 7) as u32, (k % 7) as u32);
            let ray = view.ray(&m, view.local_direction(row, col));
            // As the sensor builds its rays without the extension, bit for bit.
            let direction = turn.apply(*d);
            let expected = sim_plugin_api::Ray {
                origin: pose.position + direction.scale(c.range_min),
                direction,
            };
            assert_eq!(ray, expected, "ray {k}");
        }
    }
}

#[test]
fn rep117_and_quantisation() {
    use lidar::{finish_range, raw_range};
    assert_eq!(raw_range(f64::INFINITY, 0.5), f64::INFINITY);
    assert_eq!(raw_range(0.3, 0.5), f64::NEG_INFINITY);
    assert_eq!(raw_range(0.5, 0.5), 0.5);
    assert_eq!(raw_range(3.0, 0.5), 3.0);
    // Clamping applies to finite values only; infinities pass through.
    assert_eq!(finish_range(f64::INFINITY, 0.5, 10.0, 0.0), f64::INFINITY);
    assert_eq!(
        finish_range(f64::NEG_INFINITY, 0.5, 10.0, 0.1),
        f64::NEG_INFINITY
    );
    assert_eq!(finish_range(10.2, 0.5, 10.0, 0.0), 10.0);
    assert_eq!(finish_range(0.4, 0.5, 10.0, 0.0), 0.5);
    assert_eq!(finish_range(2.61803, 0.5, 10.0, 0.0), 2.61803);
    // Quantised to the nearest multiple of the resolution, within the limits.
    assert!((finish_range(2.61803, 0.5, 10.0, 0.01) - 2.62).abs() < 1e-12);
    assert!((finish_range(3.146, 0.5, 10.0, 0.01) - 3.15).abs() < 1e-12);
    assert!((finish_range(2.0, 0.0, 10.0, 0.3) - 2.1).abs() < 1e-12);
    assert_eq!(finish_range(10.1, 0.0, 10.1, 0.3), 10.1);
    assert_eq!(finish_range(0.04, 0.05, 10.0, 0.3), 0.05);
}

// ----- scans -----------------------------------------------------------------------------

fn scan_of(out: &[sim_plugin_api::Message]) -> (LaserScan, PointCloudPacked) {
    assert_eq!(out.len(), 2);
    assert_eq!(out[0].topic.as_str(), "");
    assert_eq!(out[1].topic.as_str(), "points");
    let scan = match out[0].payload.as_enum() {
        Ok(Payload::LaserScan(s)) => (**s).clone(),
        other => panic!("not a LaserScan: {other:?}"),
    };
    let cloud = match out[1].payload.as_enum() {
        Ok(Payload::PointCloud(c)) => (**c).clone(),
        other => panic!("not a point cloud: {other:?}"),
    };
    (scan, cloud)
}

/// (x, y, z, intensity, ring) of every point.
fn points(c: &PointCloudPacked) -> Vec<([f32; 4], u16)> {
    assert!(!c.is_bigendian);
    assert_eq!(c.point_step, POINT_STEP);
    assert_eq!(c.row_step, POINT_STEP * c.width);
    assert_eq!(c.data.len(), (c.row_step * c.height) as usize);
    let names: Vec<_> = c
        .fields
        .iter()
        .map(|f| (f.name.to_string(), f.offset, f.datatype))
        .collect();
    assert_eq!(
        names,
        [
            ("x".to_string(), 0, PointFieldType::FLOAT32),
            ("y".to_string(), 4, PointFieldType::FLOAT32),
            ("z".to_string(), 8, PointFieldType::FLOAT32),
            ("intensity".to_string(), 12, PointFieldType::FLOAT32),
            ("ring".to_string(), 16, PointFieldType::UINT16),
        ]
    );
    c.data
        .chunks(POINT_STEP as usize)
        .map(|p| {
            let f = |o: usize| f32::from_le_bytes(p[o..o + 4].try_into().unwrap());
            (
                [f(0), f(4), f(8), f(12)],
                u16::from_le_bytes([p[16], p[17]]),
            )
        })
        .collect()
}

#[test]
fn nothing_in_range_reads_plus_infinity() {
    let mut world = StaticWorld::default();
    let pose = Pose::new(
        Vec3::new(1.0, 2.0, 3.0),
        Quat::from_rpy(0.0, 0.0, FRAC_PI_2),
    );
    world.set_kinematics(
        LINK,
        KinematicState {
            pose,
            ..Default::default()
        },
    );
    let text = sdf(
        "<lidar><scan><horizontal><samples>4</samples><min_angle>-1</min_angle><max_angle>0.5</max_angle></horizontal>\
         <vertical><samples>2</samples><min_angle>-0.2</min_angle><max_angle>0.2</max_angle></vertical></scan>\
         <range><min>0.1</min><max>20</max></range><noise type=\"gaussian\"><stddev>0.5</stddev></noise></lidar>",
    );
    let config = sensor_config(NAME, "gpu_lidar", LINK, &text);
    let out = world.with(|w| {
        let mut s = LidarSensor::create(&config, &w).unwrap();
        run_update(&mut s, &w)
    });
    let (scan, cloud) = scan_of(&out);
    assert_eq!(scan.frame.as_str(), NAME);
    assert_eq!(scan.world_pose, pose);
    assert_eq!(
        (scan.angle_min, scan.angle_max, scan.angle_step),
        (-1.0, 0.5, 0.5)
    );
    assert_eq!((scan.range_min, scan.range_max, scan.count), (0.1, 20.0, 4));
    assert_eq!(
        (
            scan.vertical_angle_min,
            scan.vertical_angle_max,
            scan.vertical_count
        ),
        (-0.2, 0.2, 2)
    );
    assert!((scan.vertical_angle_step - 0.4).abs() < 1e-15);
    // Noise is not applied to infinities.
    assert!(scan.ranges.iter().all(|&r| r == f64::INFINITY));
    assert!(scan.intensities.iter().all(|&i| i == 0.0));
    assert_eq!((cloud.width, cloud.height, cloud.is_dense), (4, 2, false));
    let pts = points(&cloud);
    assert_eq!(pts.len(), 8);
    for (k, (p, ring)) in pts.iter().enumerate() {
        assert_eq!(*ring as usize, k / 4);
        assert!(p[..3].iter().all(|c| !c.is_finite()), "{p:?}");
        assert_eq!(p[3], 0.0);
    }
}

/// A world with a wall `x = wall` (entity 50 of model 5, laser_retro 7) in front of a link at
/// the origin: rays going +x hit it at `wall / dir.x`. It records the `surfaces` calls.
fn wall_world(wall: f64) -> StaticWorld {
    let mut w = StaticWorld::default();
    w.gravity = Vec3::ZERO;
    w.magnetic_field = Vec3::ZERO;
    w.set_kinematics(LINK, KinematicState::default());
    w.set_surface(
        WALL,
        SurfaceInfo {
            laser_retro: 7.0,
            ..SurfaceInfo::default()
        },
    );
    w.set_ray_caster(move |r, options| {
        let t = (wall - r.origin.x) / r.direction.x;
        if options.exclude_model != WALL_MODEL
            && r.direction.x > 1e-9
            && (0.0..=options.max_distance).contains(&t)
        {
            RayHit {
                distance: t,
                normal: Vec3::new(-1.0, 0.0, 0.0),
                entity: WALL,
                model: WALL_MODEL,
            }
        } else {
            RayHit::MISS
        }
    });
    w
}

const WALL: EntityId = EntityId(50);
const WALL_MODEL: EntityId = EntityId(5);

fn wall_sensor(lidar: &str, seed: u64, model: EntityId) -> LidarSensor {
    let text = sdf(lidar);
    let mut config = sensor_config(NAME, "lidar", LINK, &text);
    config.seed = seed;
    config.model = model;
    StaticWorld::default().with(|w| LidarSensor::create(&config, &w).unwrap())
}

/// Five rays at -pi/2, -pi/4, 0, pi/4, pi/2 (the first and last are parallel to the wall),
/// plus one backwards ray.
const FAN: &str = "<lidar><scan><horizontal><samples>5</samples><min_angle>-1.5707963267948966</min_angle>\
    <max_angle>1.5707963267948966</max_angle></horizontal></scan><range><min>0.5</min><max>3</max></range>";

#[test]
fn hits_misses_and_intensities() {
    let world = wall_world(2.0);
    let mut s = wall_sensor(&format!("{FAN}</lidar>"), 0, EntityId(9));
    let out = world.with(|w| run_update(&mut s, &w));
    let (scan, cloud) = scan_of(&out);
    let d = 2.0 / FRAC_PI_4.cos();
    let expected = [f64::INFINITY, d, 2.0, d, f64::INFINITY];
    for (r, e) in scan.ranges.iter().zip(expected) {
        assert!(r == &e || (r - e).abs() < 1e-12, "{:?}", scan.ranges);
    }
    assert_eq!(scan.intensities.as_slice(), &[0.0, 7.0, 7.0, 7.0, 0.0]);
    // The point cloud agrees with the ranges and angles.
    assert!(!cloud.is_dense);
    let pts = points(&cloud);
    for (k, (p, ring)) in pts.iter().enumerate() {
        assert_eq!(*ring, 0);
        let (r, h) = (scan.ranges[k], scan.angle_min + k as f64 * scan.angle_step);
        assert_eq!(p[3] as f64, scan.intensities[k]);
        if r.is_finite() {
            assert!(
                (p[0] as f64 - r * h.cos()).abs() < 1e-5
                    && (p[1] as f64 - r * h.sin()).abs() < 1e-5
            );
            assert_eq!(p[2], 0.0);
        } else {
            assert!(p[1].is_infinite(), "{p:?}");
        }
    }
    // One surfaces call for the wall, then the cache answers.
    world.with(|w| run_update(&mut s, &w));
    assert_eq!(world.queries().surfaces, vec![vec![WALL]]);

    // Beyond the maximum: +inf; nearer than the minimum: seen through (the rays start at the
    // minimum range, as gz-sim's lidars), so +inf with nothing behind.
    let far = wall_world(3.5);
    let (scan, _) = scan_of(&far.with(|w| run_update(&mut s, &w)));
    assert!(
        scan.ranges.iter().all(|&r| r == f64::INFINITY),
        "{:?}",
        scan.ranges
    );
    let near = wall_world(0.3);
    let (scan, cloud) = scan_of(&near.with(|w| run_update(&mut s, &w)));
    assert_eq!(scan.ranges[1..4], [f64::INFINITY; 3]);
    assert!(points(&cloud)[2].0[0] == f32::INFINITY);

    // Its own model is excluded.
    let mut own = wall_sensor(&format!("{FAN}</lidar>"), 0, WALL_MODEL);
    let (scan, _) = scan_of(&world.with(|w| run_update(&mut own, &w)));
    assert!(scan.ranges.iter().all(|&r| r == f64::INFINITY));
}

#[test]
fn sensor_pose_and_visibility_reach_the_cast() {
    // The link at (0.5, 0, 0) is yawed a quarter turn; the sensor, 0.5 m along the link's -y
    // (world +x), is yawed a quarter turn back, so it faces world +x from (1, 0, 0).
    let mut world = wall_world(2.0);
    world.set_kinematics(
        LINK,
        KinematicState {
            pose: Pose::new(
                Vec3::new(0.5, 0.0, 0.0),
                Quat::from_rpy(0.0, 0.0, FRAC_PI_2),
            ),
            ..Default::default()
        },
    );
    let text = sdf(&format!(
        "{FAN}<simcore.visibility>visual</simcore.visibility></lidar>"
    ));
    let mut config = sensor_config(NAME, "lidar", LINK, &text);
    config.pose = Pose::new(
        Vec3::new(0.0, -0.5, 0.0),
        Quat::from_rpy(0.0, 0.0, -FRAC_PI_2),
    );
    let mut s = StaticWorld::default().with(|w| LidarSensor::create(&config, &w).unwrap());
    assert_eq!(s.config().target, RayTarget::VISUAL);
    let (scan, _) = scan_of(&world.with(|w| run_update(&mut s, &w)));
    // Sensor origin at world (1, 0, 0), facing +x: the wall is 1 m ahead.
    assert!((scan.ranges[2] - 1.0).abs() < 1e-12, "{:?}", scan.ranges);
    assert!((scan.world_pose.position - Vec3::new(1.0, 0.0, 0.0)).length() < 1e-12);
}

#[test]
fn noise_only_on_finite_ranges_and_deterministic_by_seed() {
    let noisy = format!(
        "{FAN}<noise type=\"gaussian\"><mean>0.1</mean><stddev>0.2</stddev></noise></lidar>"
    );
    let world = wall_world(2.0);
    let run = |seed: u64, scans: usize| {
        let mut s = wall_sensor(&noisy, seed, EntityId(9));
        (0..scans)
            .map(|_| {
                scan_of(&world.with(|w| run_update(&mut s, &w)))
                    .0
                    .ranges
                    .to_vec()
            })
            .collect::<Vec<_>>()
    };
    let a = run(11, 400);
    assert_eq!(a, run(11, 400));
    assert_ne!(a[0], run(12, 1)[0]);
    // The rays parallel to the wall stay +inf; the middle one is 2 m plus N(0.1, 0.2),
    // clamped to [0.5, 3].
    let mid: Vec<f64> = a.iter().map(|r| r[2]).collect();
    for r in &a {
        assert_eq!((r[0], r[4]), (f64::INFINITY, f64::INFINITY));
        assert!(r[1..4].iter().all(|&x| (0.5..=3.0).contains(&x)));
    }
    let mean = mid.iter().sum::<f64>() / mid.len() as f64;
    let sd = (mid.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (mid.len() - 1) as f64).sqrt();
    assert!((mean - 2.1).abs() < 0.04, "mean {mean}");
    assert!((sd - 0.2).abs() < 0.03, "stddev {sd}");
    // Near the maximum, noise is clamped.
    let near_max = wall_world(2.95);
    let mut s = wall_sensor(&noisy, 3, EntityId(9));
    for _ in 0..50 {
        let (scan, _) = scan_of(&near_max.with(|w| run_update(&mut s, &w)));
        assert!(scan.ranges[2] <= 3.0);
    }
}

#[test]
fn quantised_ranges() {
    let world = wall_world(2.0);
    let mut s = wall_sensor(
        "<lidar><scan><horizontal><samples>3</samples><min_angle>-0.3</min_angle><max_angle>0.3</max_angle></horizontal></scan>\
         <range><max>5</max><resolution>0.25</resolution></range></lidar>",
        0,
        EntityId::NONE,
    );
    let (scan, _) = scan_of(&world.with(|w| run_update(&mut s, &w)));
    // 2 / cos(0.3) = 2.0937 -> 2.0; 2 -> 2.
    assert_eq!(scan.ranges.as_slice(), &[2.0, 2.0, 2.0]);
    let world = wall_world(2.1);
    let (scan, _) = scan_of(&world.with(|w| run_update(&mut s, &w)));
    // 2.1 -> 2.0; 2.1 / cos(0.3) = 2.198 -> 2.25.
    assert_eq!(scan.ranges.as_slice(), &[2.25, 2.0, 2.25]);
}

/// A scan of more rays than one chunk, with entities first seen in different chunks and
/// with noise or without, is the same whether its chunks run on one thread or on three.
#[test]
fn a_scan_is_the_same_on_one_thread_and_on_three() {
    let scan = |threads: usize, noise: &str| {
        let mut world = wall_world(2.0);
        world.set_sensor_threads(threads);
        // Walls x = 2 in front, y = +-3 at the sides: one entity per side, by direction.
        for (id, retro) in [(51, 3.0), (52, 5.0)] {
            world.set_surface(
                EntityId(id),
                SurfaceInfo {
                    laser_retro: retro,
                    ..SurfaceInfo::default()
                },
            );
        }
        world.set_ray_caster(|r, o| {
            let (front, side) = (2.0 / r.direction.x, 3.0 / r.direction.y.abs());
            let (t, e) = match (r.direction.x > 1e-9, r.direction.y.abs() > 1e-9) {
                (true, true) if front < side => (front, WALL),
                (_, true) => (side, EntityId(if r.direction.y > 0.0 { 51 } else { 52 })),
                (true, false) => (front, WALL),
                _ => return RayHit::MISS,
            };
            if t > o.max_distance {
                return RayHit::MISS;
            }
            RayHit {
                distance: t,
                normal: Vec3::ZERO,
                entity: e,
                model: WALL_MODEL,
            }
        });
        let mut s = wall_sensor(
            &format!(
                "<lidar><scan><horizontal><samples>1500</samples><min_angle>-3.1</min_angle>\
                 <max_angle>3.1</max_angle></horizontal><vertical><samples>3</samples>\
                 <min_angle>-0.2</min_angle><max_angle>0.2</max_angle></vertical></scan>\
                 <range><min>0.2</min><max>4</max></range>{noise}</lidar>"
            ),
            7,
            EntityId(9),
        );
        (0..3)
            .map(|_| scan_of(&world.with(|w| run_update(&mut s, &w))))
            .collect::<Vec<_>>()
    };
    for noise in [
        "",
        "<noise type=\"gaussian\"><mean>0</mean><stddev>0.05</stddev></noise>",
    ] {
        let (one, three) = (scan(0, noise), scan(3, noise));
        for ((a, ca), (b, cb)) in one.iter().zip(&three) {
            assert_eq!(a.ranges, b.ranges, "{noise}");
            assert_eq!(a.intensities, b.intensities);
            assert_eq!(ca.data, cb.data);
            assert_eq!(ca.is_dense, cb.is_dense);
        }
        let i = &one[0].0.intensities;
        for v in [3.0, 5.0, 7.0] {
            assert!(i.contains(&v), "every wall is seen: {i:?}");
        }
    }
}
