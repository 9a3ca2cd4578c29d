//! Unit tests of the camera against a fixed world: the ground seen below the horizon, lit
//! by the world's sun, the sky above it; seeded noise.

use crate::CameraSensor;
use sim_plugin_api::{
    EntityId, Light, Payload, RayHit, SceneInfo, SurfaceInfo, Vec3,
    testing::{StaticWorld, run_update, sensor_config},
};
use simcore_plugin_common::SdfSensor;

const GROUND: EntityId = EntityId(5);

/// A world whose ground (z = 0, diffuse 0.4 0.8 0.2) is hit by every ray going down from
/// the camera at the origin's height `h`, lit by a sun straight above.
fn world(h: f64) -> StaticWorld {
    let mut w = StaticWorld::default();
    w.set_kinematics(
        EntityId(2),
        sim_plugin_api::KinematicState {
            pose: sim_plugin_api::Pose::new(Vec3::new(0.0, 0.0, h), Default::default()),
            ..Default::default()
        },
    );
    w.scene = SceneInfo {
        ambient: [0.25, 0.25, 0.25, 1.0],
        background: [0.0, 0.0, 1.0, 1.0],
        shadows: true,
    };
    w.lights.push(Light::sun(Vec3::new(0.0, 0.0, -1.0)));
    w.set_surface(
        GROUND,
        SurfaceInfo {
            diffuse: [0.4, 0.8, 0.2, 1.0],
            laser_retro: 0.0,
        },
    );
    w.set_ray_caster(|r, o| {
        if r.direction.z < 0.0 {
            let t = -r.origin.z / r.direction.z;
            if t <= o.max_distance {
                return RayHit {
                    distance: t,
                    normal: Vec3::new(0.0, 0.0, 1.0),
                    entity: GROUND,
                    model: EntityId(4),
                };
            }
        }
        RayHit::MISS
    });
    w
}

fn camera(extra: &str) -> String {
    format!(
        r#"<sensor name="cam" type="camera"><camera><horizontal_fov>1</horizontal_fov>
           <image><width>20</width><height>10</height></image>{extra}</camera></sensor>"#
    )
}

#[test]
fn ground_below_the_horizon_sky_above() {
    let w = world(1.0);
    let sdf = camera("");
    let config = sensor_config("m::l::cam", "camera", EntityId(2), &sdf);
    let out = w.with(|v| {
        let mut cam = CameraSensor::create(&config, &v).unwrap();
        run_update(&mut cam, &v)
    });
    assert_eq!(out.len(), 2);
    assert_eq!(out[1].topic.as_str(), "/camera_info");
    let Ok(Payload::Image(img)) = out[0].payload.as_enum() else {
        panic!("not an image");
    };
    assert_eq!((img.width, img.height), (20, 10));
    // Rows 0..5 look up (sky), rows 5..10 down (ground, lit from straight above: 0.25 + 1).
    let px = |i: u32, j: u32| {
        let k = (j * img.step + 3 * i) as usize;
        [img.data[k], img.data[k + 1], img.data[k + 2]]
    };
    for i in 0..20 {
        assert_eq!(px(i, 4), [0, 0, 255]);
        assert_eq!(px(i, 5), [128, 255, 64], "1.25 x diffuse, clamped");
    }
}

#[test]
fn a_bad_value_is_refused_with_its_place() {
    let sdf = "<sensor name=\"cam\" type=\"camera\">\n  <camera>\n    <clip><near>0.5</near><far>0.2</far></clip>\n  </camera>\n</sensor>";
    let config = sensor_config("m::l::cam", "camera", EntityId(2), sdf).with_source("world.sdf", 7);
    let e = world(1.0)
        .with(|v| CameraSensor::create(&config, &v).map(|_| ()))
        .unwrap_err();
    assert_eq!(e.code, sim_plugin_api::ErrorCode::INVALID_CONFIG);
    assert_eq!(
        e.message.as_str(),
        "m::l::cam: <camera><clip><far> must be greater than <near> (0.5), found \"0.2\" at world.sdf:9"
    );
}

#[test]
fn the_same_seed_gives_the_same_noise() {
    let w = world(1.0);
    let sdf = camera(r#"<noise type="gaussian"><stddev>0.1</stddev></noise>"#);
    let run = |seed: u64| {
        let mut config = sensor_config("m::l::cam", "camera", EntityId(2), &sdf);
        config.seed = seed;
        w.with(|v| {
            let mut cam = CameraSensor::create(&config, &v).unwrap();
            let a = run_update(&mut cam, &v);
            let b = run_update(&mut cam, &v);
            let data = |m: &sim_plugin_api::Message| match m.payload.as_enum() {
                Ok(Payload::Image(i)) => i.data.to_vec(),
                _ => panic!("not an image"),
            };
            (data(&a[0]), data(&b[0]))
        })
    };
    let (a1, a2) = run(3);
    let (b1, b2) = run(3);
    assert_eq!((&a1, &a2), (&b1, &b2));
    assert_ne!(a1, a2, "each frame draws new noise");
    assert_ne!(run(4).0, a1);
}
