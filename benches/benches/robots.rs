//! The engine's step of jointed robots beside a bare rapier program stepping the same robots.
//!
//! Ten free-floating wheeled robots shaped like `worlds/pioneer.sdf`'s (a chassis on two
//! driven wheels and a ball-jointed caster, with a pan-tilt head on revolute joints with
//! limits), driving in circles on a plane. simcore builds them from SDF as it builds any
//! world; the bare program builds the same bodies, colliders and joints in rapier directly,
//! with simcore's contact stiffness and velocity motors. It guards the cost of the joints
//! path (a tree built in reduced coordinates made such robots step three times slower).

use super::*;
use sim_plugin_api::{JointCommand, JointCommandMode};

const ROBOTS: usize = 10;
/// Wheel speeds, rad/s (left, right): each robot drives a circle.
const SPEEDS: [f32; 2] = [5.0, 4.0];

/// A part of the robot: name, position in the robot's frame, mass, the inertia diagonal and
/// its collision shape.
struct Part {
    name: &'static str,
    at: [f32; 3],
    mass: f32,
    inertia: [f32; 3],
    shape: Shape,
}

enum Shape {
    /// Full sizes.
    Box([f32; 3]),
    /// Radius and length, its axis along Y.
    Wheel(f32, f32),
    Ball(f32),
}

/// A joint: name, kind, parent and child part, and its axis (robot frame) with its limits.
struct Hinge {
    name: &'static str,
    parent: usize,
    child: usize,
    axis: Option<([f32; 3], Option<f32>)>,
}

fn box_inertia(m: f32, [a, b, c]: [f32; 3]) -> [f32; 3] {
    [
        m * (b * b + c * c) / 12.0,
        m * (a * a + c * c) / 12.0,
        m * (a * a + b * b) / 12.0,
    ]
}

fn robot() -> (Vec<Part>, Vec<Hinge>) {
    let wheel = |name, y: f32| Part {
        name,
        at: [0.1, y, 0.1],
        mass: 1.0,
        inertia: [
            (3.0 * 0.01 + 0.0025) / 12.0,
            0.01 / 2.0,
            (3.0 * 0.01 + 0.0025) / 12.0,
        ],
        shape: Shape::Wheel(0.1, 0.05),
    };
    let parts = vec![
        Part {
            name: "chassis",
            at: [0.0, 0.0, 0.16],
            mass: 10.0,
            inertia: box_inertia(10.0, [0.5, 0.4, 0.15]),
            shape: Shape::Box([0.5, 0.4, 0.15]),
        },
        wheel("left_wheel", 0.25),
        wheel("right_wheel", -0.25),
        Part {
            name: "caster",
            at: [-0.2, 0.0, 0.05],
            mass: 0.5,
            inertia: [0.0005; 3],
            shape: Shape::Ball(0.05),
        },
        Part {
            name: "pan",
            at: [0.0, 0.0, 0.285],
            mass: 0.5,
            inertia: box_inertia(0.5, [0.1; 3]),
            shape: Shape::Box([0.1; 3]),
        },
        Part {
            name: "tilt",
            at: [0.0, 0.0, 0.385],
            mass: 0.3,
            inertia: box_inertia(0.3, [0.1; 3]),
            shape: Shape::Box([0.1; 3]),
        },
    ];
    let joints = vec![
        Hinge {
            name: "left_wheel_joint",
            parent: 0,
            child: 1,
            axis: Some(([0.0, 1.0, 0.0], None)),
        },
        Hinge {
            name: "right_wheel_joint",
            parent: 0,
            child: 2,
            axis: Some(([0.0, 1.0, 0.0], None)),
        },
        Hinge {
            name: "caster_joint",
            parent: 0,
            child: 3,
            axis: None,
        },
        Hinge {
            name: "pan_joint",
            parent: 0,
            child: 4,
            axis: Some(([0.0, 0.0, 1.0], Some(3.0))),
        },
        Hinge {
            name: "tilt_joint",
            parent: 4,
            child: 5,
            axis: Some(([0.0, 1.0, 0.0], Some(1.0))),
        },
    ];
    (parts, joints)
}

/// Where robot `k` stands.
fn origin(k: usize) -> [f32; 3] {
    [(k % 5) as f32 * 3.0, (k / 5) as f32 * 3.0, 0.0]
}

/// The robots as an SDF world.
pub(super) fn robots_world() -> String {
    let (parts, joints) = robot();
    let mut s = String::from(
        r#"<sdf version="1.9"><world name="robots"><physics type="ode"><max_step_size>0.001</max_step_size></physics>
        <model name="ground"><static>true</static><link name="l"><collision name="c"><geometry><plane><normal>0 0 1</normal></plane></geometry></collision></link></model>"#,
    );
    for k in 0..ROBOTS {
        let o = origin(k);
        s.push_str(&format!(
            r#"<model name="robot{k}"><pose>{} {} {} 0 0 0</pose>"#,
            o[0], o[1], o[2]
        ));
        for p in &parts {
            let geometry = match p.shape {
                Shape::Box([a, b, c]) => format!("<box><size>{a} {b} {c}</size></box>"),
                Shape::Wheel(r, l) => {
                    format!("<cylinder><radius>{r}</radius><length>{l}</length></cylinder>")
                }
                Shape::Ball(r) => format!("<sphere><radius>{r}</radius></sphere>"),
            };
            // The cylinder's axis is Z in SDF: the collision turns it onto Y.
            let turn = match p.shape {
                Shape::Wheel(..) => "1.5707963267948966 0 0",
                _ => "0 0 0",
            };
            let [ixx, iyy, izz] = p.inertia;
            s.push_str(&format!(
                r#"<link name="{}"><pose>{} {} {} 0 0 0</pose>
                <inertial><mass>{}</mass><inertia><ixx>{ixx}</ixx><iyy>{iyy}</iyy><izz>{izz}</izz></inertia></inertial>
                <collision name="c"><pose>0 0 0 {turn}</pose><geometry>{geometry}</geometry></collision></link>"#,
                p.name, p.at[0], p.at[1], p.at[2], p.mass
            ));
        }
        for j in &joints {
            let (kind, axis) = match j.axis {
                None => ("ball", String::new()),
                Some(([x, y, z], limit)) => {
                    let limit = limit.map_or(String::new(), |l| {
                        format!("<limit><lower>{}</lower><upper>{l}</upper></limit>", -l)
                    });
                    let kind = if limit.is_empty() {
                        "continuous"
                    } else {
                        "revolute"
                    };
                    (kind, format!("<axis><xyz>{x} {y} {z}</xyz>{limit}</axis>"))
                }
            };
            s.push_str(&format!(
                r#"<joint name="{}" type="{kind}"><parent>{}</parent><child>{}</child>{axis}</joint>"#,
                j.name, parts[j.parent].name, parts[j.child].name
            ));
        }
        s.push_str("</model>");
    }
    s.push_str("</world></sdf>");
    s
}

/// The same robots in a bare rapier program, configured as simcore configures it, their
/// wheels driven as simcore drives a velocity command; and the first robot's chassis.
pub(super) fn raw_robots() -> (PhysicsWorld, RigidBodyHandle) {
    let (parts, joints) = robot();
    let mut w = raw_ground();
    let mut first = None;
    for k in 0..ROBOTS {
        let o = Vector::from(origin(k));
        let bodies: Vec<_> = parts
            .iter()
            .map(|p| {
                let b = w.insert_body(
                    RigidBodyBuilder::dynamic()
                        .translation(o + Vector::from(p.at))
                        .additional_mass_properties(MassProperties::new(
                            Vector::ZERO,
                            p.mass,
                            Vector::from(p.inertia),
                        ))
                        .allow_fast_rotation(true),
                );
                let collider = match p.shape {
                    Shape::Box([a, b, c]) => ColliderBuilder::cuboid(a / 2.0, b / 2.0, c / 2.0),
                    // rapier's cylinder has its axis along Y.
                    Shape::Wheel(r, l) => ColliderBuilder::cylinder(l / 2.0, r),
                    Shape::Ball(r) => ColliderBuilder::ball(r),
                };
                w.insert_collider(collider.density(0.0).friction(1.0), Some(b));
                b
            })
            .collect();
        first = first.or(Some(bodies[0]));
        for j in &joints {
            let at = |i: usize| Vector::from(parts[j.child].at) - Vector::from(parts[i].at);
            let (locked, turn) = match j.axis {
                None => (JointAxesMask::LOCKED_SPHERICAL_AXES, Rotation::IDENTITY),
                Some((a, _)) => (
                    JointAxesMask::LOCKED_REVOLUTE_AXES,
                    Rotation::from_rotation_arc(Vector::X, Vector::from(a)),
                ),
            };
            let mut joint = GenericJointBuilder::new(locked)
                .local_frame1(rapier3d::math::Pose::from_parts(at(j.parent), turn))
                .local_frame2(rapier3d::math::Pose::from_parts(at(j.child), turn))
                .contacts_enabled(false);
            match j.axis {
                Some((_, Some(l))) => joint = joint.limits(JointAxis::AngX, [-l, l]),
                Some((_, None)) => {
                    joint = joint
                        .motor_model(JointAxis::AngX, MotorModel::AccelerationBased)
                        .motor_velocity(JointAxis::AngX, SPEEDS[j.child - 1], 100_000.0)
                        .motor_max_force(JointAxis::AngX, Real::MAX)
                }
                None => {}
            }
            w.insert_impulse_joint(bodies[j.parent], bodies[j.child], joint);
        }
    }
    (w, first.expect("robots"))
}

/// The robots built by simcore from [`robots_world`], their wheels commanded as a plugin's
/// velocity command does.
fn simcore_robots() -> Physics {
    let world = sim_core::sdf::parse_str(&robots_world(), None).expect("bench world");
    let mut p = Physics::build(&world).expect("builds");
    for k in 0..ROBOTS {
        for (wheel, speed) in ["left_wheel_joint", "right_wheel_joint"]
            .into_iter()
            .zip(SPEEDS)
        {
            let joint = p
                .entity_id(&format!("robot{k}::{wheel}"))
                .expect("wheel joint");
            p.joint_command(&JointCommand {
                joint,
                axis: 0,
                mode: JointCommandMode::VELOCITY,
                target: speed as f64,
                max_force: 0.0,
                stiffness: 0.0,
                damping: 0.0,
            })
            .expect("drives");
        }
    }
    p
}

/// The two engines step twin scenes in lockstep, alternating. Before
/// timing, both drive for 2 s and the first robot's chassis must be where the other
/// engine's is (within 1 cm): the twin is the same scene.
pub(super) fn robots_step(c: &mut Criterion) {
    let (mut raw, chassis) = raw_robots();
    let mut sim = simcore_robots();
    for _ in 0..2000 {
        raw.step();
        sim.step();
    }
    let at = sim
        .kinematics_of(sim.entity_id("robot0::chassis").expect("chassis"))
        .expect("moves")
        .pose
        .position;
    let raw_at = raw.bodies[chassis].translation();
    let gap = ((at.x - raw_at.x as f64).powi(2) + (at.y - raw_at.y as f64).powi(2)).sqrt();
    println!(
        "robots: after 2 s the first chassis is at ({:.3}, {:.3}) in simcore, ({:.3}, {:.3}) in rapier",
        at.x, at.y, raw_at.x, raw_at.y
    );
    assert!(
        gap < 0.01 && at.x.hypot(at.y) > 0.5,
        "the twin scenes differ by {gap} m"
    );
    let mut g = c.benchmark_group("robots_step");
    g.sample_size(10).measurement_time(Duration::from_secs(15));
    g.bench_function("10_wheeled_robots_raw_and_simcore_in_lockstep", |b| {
        b.iter_custom(|iters| {
            let (mut raw, _) = raw_robots();
            let mut sim = simcore_robots();
            lockstep(iters, || raw.step(), || sim.step(), &ROBOTS_STEP)
        })
    });
    g.finish();
}
