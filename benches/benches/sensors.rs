//! Sensor throughput: the plugin call overhead and 1,000 IMUs or navsat sensors through the
//! sensor manager, each beside direct rlib updates.

use super::*;

pub(super) fn imu_world(models: usize, sensors_per_model: usize) -> String {
    sensor_world("", "imu", "imu", models, sensors_per_model)
}

/// `models` static models with `sensors_per_model` navsat sensors each (rate 0), in a world
/// with spherical coordinates.
pub(super) fn navsat_world(models: usize, sensors_per_model: usize) -> String {
    sensor_world(
        r#"
        <spherical_coordinates><surface_model>EARTH_WGS84</surface_model><world_frame_orientation>ENU</world_frame_orientation>
        <latitude_deg>37.5</latitude_deg><longitude_deg>-122.3</longitude_deg><elevation>10</elevation><heading_deg>0</heading_deg>
        </spherical_coordinates>"#,
        "navsat",
        "gps",
        models,
        sensors_per_model,
    )
}

/// `models` static models 0.5 m apart, each with `sensors_per_model` sensors of
/// `sensor_type` (named `prefix0`, `prefix1`, ..., rate 0), after the world settings `extra`.
fn sensor_world(
    extra: &str,
    sensor_type: &str,
    prefix: &str,
    models: usize,
    sensors_per_model: usize,
) -> String {
    let mut s = String::from(
        r#"<sdf version="1.9"><world name="bench"><physics type="ode"><max_step_size>0.001</max_step_size></physics>"#,
    );
    s.push_str(extra);
    for m in 0..models {
        s.push_str(&format!(
            r#"<model name="m{m}"><static>true</static><pose>{} 0 1 0 0 0</pose><link name="l">"#,
            m as f64 * 0.5
        ));
        for k in 0..sensors_per_model {
            s.push_str(&format!(
                r#"<sensor name="{prefix}{k}" type="{sensor_type}"><update_rate>0</update_rate></sensor>"#
            ));
        }
        s.push_str("</link></model>");
    }
    s.push_str("</world></sdf>");
    s
}

pub(super) fn plugin_call(c: &mut Criterion) {
    let world = sim_core::sdf::parse_str(&imu_world(1, 1), None).expect("bench world");
    let physics = Physics::build(&world).expect("builds");
    let link = physics.entity_id("m0::l").expect("link");
    let sdf = r#"<sensor name="imu0" type="imu"/>"#;
    let config = SensorConfig {
        name: RStr::from_str("imu0"),
        scoped_name: RStr::from_str("m0::l::imu0"),
        sensor_type: RStr::from_str("imu"),
        topic: RStr::from_str("/imu"),
        frame_id: RStr::from_str("m0::l::imu0"),
        world_name: RStr::from_str("bench"),
        sensor: EntityId::NONE,
        link,
        model: EntityId::NONE,
        pose: Pose::IDENTITY,
        update_rate: 0.0,
        seed: 1,
        sdf: RStr::from_str(sdf),
        source: SourceLocation {
            file: RStr::from_str(""),
            line: 0,
            column: 0,
        },
    };
    let view = physics.view("bench");
    let path = lib_path("simcore_plugin_imu");
    let lib = load_library(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run `cargo xtask bench`)", path.display()));
    let mut through_abi = (lib.module.create_sensor())(
        RStr::from_str("imu"),
        &config,
        WorldView_TO::from_ptr(&view, TD_Opaque),
    )
    .into_result()
    .expect("created through the ABI");
    let wref = WorldView_TO::from_ptr(&view, TD_Opaque);
    let mut direct = ImuSensor::create(&config, &wref).expect("created directly");
    let ctx = UpdateContext {
        now: SimTime::ZERO,
        dt: SimTime::from_nanos(1_000_000),
        step: SimTime::from_nanos(1_000_000),
        update_count: 1,
        forced: false,
    };
    let mut out = RVec::with_capacity(4);
    let mut g = c.benchmark_group("plugin_call");
    // Blocks of 256 updates, alternating direct and through-the-library, timed apart.
    g.bench_function("imu_update_direct_and_through_cdylib", |b| {
        b.iter_custom(|iters| {
            let (mut t_direct, mut t_abi) = (Duration::ZERO, Duration::ZERO);
            let blocks = iters.div_ceil(256);
            for _ in 0..blocks {
                let t = Instant::now();
                for _ in 0..256 {
                    out.clear();
                    direct
                        .update(&ctx, &wref, &mut Outputs::new(&mut out))
                        .expect("update");
                    black_box(&out);
                }
                t_direct += t.elapsed();
                let t = Instant::now();
                for _ in 0..256 {
                    out.clear();
                    through_abi
                        .update(&ctx, WorldView_TO::from_ptr(&view, TD_Opaque), &mut out)
                        .into_result()
                        .expect("update");
                    black_box(&out);
                }
                t_abi += t.elapsed();
            }
            record(&PLUGIN_CALL, t_direct, t_abi, blocks * 256);
            (t_direct + t_abi) / 2
        })
    });
    g.finish();
}

/// 1,000 sensors updated through the sensor manager on one core, paired with a bare loop of
/// the same sensors' updates called directly through the plugin's rlib (alternating passes).
pub(super) fn manager_vs_direct<S: Sensor>(
    c: &mut Criterion,
    (group, name): (&str, &str),
    world_sdf: &str,
    create: fn(&SensorConfig<'_>, &WorldRef<'_>) -> Result<S, PluginError>,
    paired: &Paired,
) {
    let world = sim_core::sdf::parse_str(world_sdf, None).expect("bench world");
    let reg = Registry::discover(SearchPath::new(&[plugin_dir()], None, &[], None));
    let mut sim = Simulation::new(
        world.clone(),
        reg,
        &SimOptions {
            seed: 1,
            threads: 1,
        },
    )
    .expect("loads");
    assert_eq!(sim.sensors().len(), 1000);
    // Sensors run after a step: both sides read the world as a step leaves it.
    sim.step();
    // Baseline: the same 1,000 sensors updated directly through the rlib.
    let mut physics = Physics::build(&world).expect("builds");
    physics.step();
    let view = physics.view("bench");
    let wref = WorldView_TO::from_ptr(&view, TD_Opaque);
    let mut direct: Vec<S> = sim
        .sensors()
        .setups()
        .map(|s| create(&s.config("bench"), &wref).expect("created"))
        .collect();
    let ctx = UpdateContext {
        now: SimTime::ZERO,
        dt: SimTime::from_nanos(1_000_000),
        step: SimTime::from_nanos(1_000_000),
        update_count: 1,
        forced: false,
    };
    let mut g = c.benchmark_group(group);
    g.bench_function(name, |b| {
        let mut out = RVec::with_capacity(4);
        b.iter_custom(|iters| {
            let (mut t_direct, mut t_mgr) = (Duration::ZERO, Duration::ZERO);
            for _ in 0..iters {
                let t = Instant::now();
                for s in direct.iter_mut() {
                    out.clear();
                    s.update(&ctx, &wref, &mut Outputs::new(&mut out))
                        .expect("update");
                    black_box(&out);
                }
                t_direct += t.elapsed();
                let t = Instant::now();
                assert!(sim.update_sensors().is_empty());
                t_mgr += t.elapsed();
            }
            record(paired, t_direct, t_mgr, iters * 1000);
            (t_direct + t_mgr) / 2
        })
    });
    g.finish();
}

pub(super) fn sensor_manager(c: &mut Criterion) {
    let group = ("sensor_manager", "1000_imus_direct_and_manager_one_core");
    manager_vs_direct(
        c,
        group,
        &imu_world(100, 10),
        ImuSensor::create,
        &SENSOR_MANAGER,
    );
}

pub(super) fn navsat_manager(c: &mut Criterion) {
    let group = ("navsat_manager", "1000_navsats_direct_and_manager_one_core");
    manager_vs_direct(
        c,
        group,
        &navsat_world(100, 10),
        NavSatSensor::create,
        &NAVSAT_MANAGER,
    );
}
