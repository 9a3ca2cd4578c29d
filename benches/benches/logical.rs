//! The logical camera in worlds of 10 to 10,000 boxes beside a brute-force scan.

use super::*;

/// World sizes of the logical camera benchmark.
pub(super) const LOGICAL_SIZES: [usize; 4] = [10, 100, 1_000, 10_000];

/// `n` static 1 m boxes scattered over 200 m x 200 m around the origin (a fixed
/// pseudo-random layout, the same in every run), at the height of a camera on a model without
/// collision at the origin, looking along +X.
pub(super) fn logical_world(n: usize) -> String {
    let mut s = String::from(
        r#"<sdf version="1.9"><world name="bench"><physics type="ode"><max_step_size>0.001</max_step_size></physics>
        <model name="eye"><static>true</static><link name="l"/></model>"#,
    );
    // SplitMix64: a well-mixed sequence from a counter.
    let mut state = 0x5eed_u64;
    let mut next = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) as f64 / u64::MAX as f64
    };
    for i in 0..n {
        let (x, y, z) = (
            next() * 200.0 - 100.0,
            next() * 200.0 - 100.0,
            next() * 4.0 - 2.0,
        );
        s.push_str(&format!(
            r#"<model name="b{i}"><static>true</static><pose>{x:.3} {y:.3} {z:.3} 0 0 0</pose><link name="l"><collision name="c"><geometry><box><size>1 1 1</size></box></geometry></collision></link></model>"#
        ));
    }
    s.push_str("</world></sdf>");
    s
}

/// One logical camera update through the cdylib (the engine's broad phase picks the
/// candidates) vs a brute-force scan of every model's box against the same frustum, through
/// the rlib, producing the same messages; alternating blocks.
pub(super) fn logical_camera(c: &mut Criterion) {
    let path = lib_path("simcore_plugin_logical_camera");
    let lib = load_library(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run `cargo xtask bench`)", path.display()));
    let mut g = c.benchmark_group("logical_camera");
    g.sample_size(20).measurement_time(Duration::from_secs(4));
    for (k, n) in LOGICAL_SIZES.into_iter().enumerate() {
        let world = sim_core::sdf::parse_str(&logical_world(n), None).expect("bench world");
        let physics = Physics::build(&world).expect("builds");
        let sdf = r#"<sensor name="cam" type="logical_camera"><logical_camera><near>0.1</near><far>10</far><horizontal_fov>1.05</horizontal_fov><aspect_ratio>1.8</aspect_ratio></logical_camera></sensor>"#;
        let config = SensorConfig {
            name: RStr::from_str("cam"),
            scoped_name: RStr::from_str("eye::l::cam"),
            sensor_type: RStr::from_str("logical_camera"),
            topic: RStr::from_str("/cam"),
            frame_id: RStr::from_str("eye::l::cam"),
            world_name: RStr::from_str("bench"),
            sensor: EntityId::NONE,
            link: physics.entity_id("eye::l").expect("link"),
            model: physics.entity_id("eye").expect("model"),
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
        let wref = WorldView_TO::from_ptr(&view, TD_Opaque);
        let mut through_abi = (lib.module.create_sensor())(
            RStr::from_str("logical_camera"),
            &config,
            WorldView_TO::from_ptr(&view, TD_Opaque),
        )
        .into_result()
        .expect("created through the ABI");
        let mut direct = LogicalCameraSensor::create(&config, &wref).expect("created directly");
        let frustum_topic = SharedStr::from("frustum");
        let mut all = RVec::new();
        let mut brute_force = |out: &mut RVec<Message>| {
            let pose = direct.camera_pose(&wref).expect("camera pose");
            let posed = direct.frustum().posed(pose);
            wref.models(&mut all);
            let image = direct.observe(&wref, pose, &posed, &all);
            out.clear();
            out.push(Message::new(
                "",
                Payload::LogicalCameraImage(RBox::new(image)),
            ));
            out.push(Message::new(
                &frustum_topic,
                Payload::LogicalCameraFrustum(RBox::new(direct.frustum_message())),
            ));
        };
        let ctx = UpdateContext {
            now: SimTime::ZERO,
            dt: SimTime::ZERO,
            step: SimTime::from_nanos(1_000_000),
            update_count: 0,
            forced: false,
        };
        // Both ways see the same models.
        let mut out = RVec::with_capacity(4);
        let seen = |out: &RVec<Message>| match out[0].payload.as_enum() {
            Ok(Payload::LogicalCameraImage(i)) => i
                .models
                .iter()
                .map(|m| m.name.to_string())
                .collect::<Vec<_>>(),
            other => panic!("not an image: {other:?}"),
        };
        brute_force(&mut out);
        let expected = seen(&out);
        out.clear();
        through_abi
            .update(&ctx, WorldView_TO::from_ptr(&view, TD_Opaque), &mut out)
            .into_result()
            .expect("update");
        assert_eq!(
            seen(&out),
            expected,
            "{n} models: broad phase and scan disagree"
        );
        LOGICAL_SEEN.lock().unwrap_or_else(|e| e.into_inner())[k] = expected.len();
        // Blocks of updates sized so that a block of the scan stays short.
        let block = (25_600 / n as u64).clamp(4, 256);
        g.bench_function(format!("{n}_models_scan_and_cdylib"), |b| {
            b.iter_custom(|iters| {
                let (mut t_scan, mut t_abi) = (Duration::ZERO, Duration::ZERO);
                let blocks = iters.div_ceil(block);
                for _ in 0..blocks {
                    let t = Instant::now();
                    for _ in 0..block {
                        brute_force(&mut out);
                        black_box(&out);
                    }
                    t_scan += t.elapsed();
                    let t = Instant::now();
                    for _ in 0..block {
                        out.clear();
                        through_abi
                            .update(&ctx, WorldView_TO::from_ptr(&view, TD_Opaque), &mut out)
                            .into_result()
                            .expect("update");
                        black_box(&out);
                    }
                    t_abi += t.elapsed();
                }
                record(&LOGICAL_CAMERA[k], t_scan, t_abi, blocks * block);
                (t_scan + t_abi) / 2
            })
        });
    }
    g.finish();
}
