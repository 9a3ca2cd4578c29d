//! The engine's step beside a bare rapier program stepping the same 1,000 boxes.

use super::*;

pub(super) fn boxes_world() -> String {
    let mut s = String::from(
        r#"<sdf version="1.9"><world name="boxes"><physics type="ode"><max_step_size>0.001</max_step_size></physics>
        <model name="ground"><static>true</static><link name="l"><collision name="c"><geometry><plane><normal>0 0 1</normal></plane></geometry></collision></link></model>"#,
    );
    for i in 0..10 {
        for j in 0..10 {
            for k in 0..10 {
                s.push_str(&format!(
                    r#"<model name="b{i}_{j}_{k}"><pose>{} {} {} 0 0 0</pose><link name="l"><inertial><mass>1</mass><inertia><ixx>0.0417</ixx><iyy>0.0417</iyy><izz>0.0417</izz></inertia></inertial><collision name="c"><geometry><box><size>0.5 0.5 0.5</size></box></geometry></collision></link></model>"#,
                    i as f64 * 0.75,
                    j as f64 * 0.75,
                    0.5 + k as f64 * 0.75
                ));
            }
        }
    }
    s.push_str("</world></sdf>");
    s
}

/// A bare rapier world configured as simcore configures one at a 1 ms step, with a
/// half-space ground of friction 1 (SDF's default).
pub(super) fn raw_ground() -> PhysicsWorld {
    let mut w = PhysicsWorld {
        gravity: Vector::new(0.0, 0.0, -9.8),
        ..Default::default()
    };
    w.integration_parameters.dt = 0.001;
    w.integration_parameters.length_unit = 1.0;
    w.integration_parameters.normalized_max_linear_velocity = Real::MAX;
    // simcore's contact stiffness at a 1 ms step (docs/physics.md, *Contacts*).
    w.integration_parameters.contact_softness.natural_frequency = 250.0;
    w.integration_parameters
        .static_contact_softness
        .natural_frequency = 500.0;
    let ground = w.insert_body(RigidBodyBuilder::fixed());
    w.insert_collider(
        ColliderBuilder::new(SharedShape::halfspace(Vector::Z))
            .density(0.0)
            .friction(1.0),
        Some(ground),
    );
    w
}

/// The same scene in a bare rapier program, configured as simcore configures it.
pub(super) fn raw_rapier() -> PhysicsWorld {
    let mut w = raw_ground();
    for i in 0..10 {
        for j in 0..10 {
            for k in 0..10 {
                let b = RigidBodyBuilder::dynamic()
                    .translation(Vector::new(
                        i as f32 * 0.75,
                        j as f32 * 0.75,
                        0.5 + k as f32 * 0.75,
                    ))
                    .additional_mass_properties(MassProperties::new(
                        Vector::ZERO,
                        1.0,
                        Vector::splat(0.0417),
                    ))
                    .allow_fast_rotation(true);
                let h = w.insert_body(b);
                w.insert_collider(
                    ColliderBuilder::cuboid(0.25, 0.25, 0.25)
                        .density(0.0)
                        .friction(1.0),
                    Some(h),
                );
            }
        }
    }
    w
}

/// The two engines step twin scenes in lockstep, alternating, so that both see the same phase
/// of the scene (falling, piling up, resting) and the same machine load; their step times are
/// summed apart.
pub(super) fn engine_step(c: &mut Criterion) {
    let world = sim_core::sdf::parse_str(&boxes_world(), None).expect("bench world");
    let mut g = c.benchmark_group("engine_step");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function("1000_boxes_raw_and_simcore_in_lockstep", |b| {
        b.iter_custom(|iters| {
            let mut raw = raw_rapier();
            let reg = Registry::discover(SearchPath::new(&[], None, &[], None));
            let mut sim = Simulation::new(
                world.clone(),
                reg,
                &SimOptions {
                    seed: 0,
                    threads: 1,
                },
            )
            .expect("loads");
            lockstep(
                iters,
                || raw.step(),
                || {
                    sim.step();
                },
                &ENGINE_STEP,
            )
        })
    });
    g.finish();
}

/// Steps a bare rapier scene (`raw`) and simcore's twin (`sim`) `iters` times, alternating,
/// timing each apart; records both in `paired` and gives their mean.
pub(super) fn lockstep(
    iters: u64,
    mut raw: impl FnMut(),
    mut sim: impl FnMut(),
    paired: &Paired,
) -> Duration {
    let (mut t_raw, mut t_sim) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..iters {
        let t = Instant::now();
        raw();
        t_raw += t.elapsed();
        let t = Instant::now();
        sim();
        t_sim += t.elapsed();
    }
    record(paired, t_raw, t_sim, iters);
    (t_raw + t_sim) / 2
}
