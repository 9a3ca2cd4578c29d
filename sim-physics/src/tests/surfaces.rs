//! SDF surfaces, collision filtering and velocity decay, against their analytic motion:
//! slides and sticks on inclines, bounces, links of one model passing through each other or
//! not, bitmasks, damping.

use super::*;

const G: f64 = 9.8;

/// `<surface>` with friction `mu` / `mu2`, and `more` inside it.
fn surface(mu: f64, mu2: f64, more: &str) -> String {
    format!(
        "<surface><friction><ode><mu>{mu}</mu><mu2>{mu2}</mu2></ode></friction>{more}</surface>"
    )
}

/// A world of `models` (no ground) with gravity `gravity`.
fn bare_world(gravity: &str, models: &str) -> Physics {
    let text = format!(
        r#"<sdf version="1.9"><world name="w"><gravity>{gravity}</gravity>{models}</world></sdf>"#
    );
    Physics::build(&sim_sdf::parse_str(&text, None).expect("valid world")).unwrap()
}

/// A 20 m slope pitched `theta` about Y (its top through the origin), with surface
/// `slope_surface`, and a flat box of 1 kg (0.4 m by 0.4 m, 0.1 m thick, so that it does not
/// tip over below 76°) resting on it with `box_surface`. The box slides, if it does, along
/// the slope's fall line (cos θ, 0, -sin θ).
fn incline(theta: f64, slope_surface: &str, box_surface: &str) -> Physics {
    incline_of(
        theta,
        slope_surface,
        "<box><size>0.4 0.4 0.1</size></box>",
        box_surface,
    )
}

/// [`incline`] with a body of `shape` (0.1 m thick) in place of the box.
fn incline_of(theta: f64, slope_surface: &str, shape: &str, box_surface: &str) -> Physics {
    let (s, c) = theta.sin_cos();
    // The box's centre: 0.05 m (and a hair) above the slope's top, along its normal.
    let h = 0.0505;
    let models = format!(
        r#"<model name="slope"><static>true</static><pose>{} 0 {} 0 {theta} 0</pose><link name="l">
          <collision name="c"><geometry><box><size>20 4 1</size></box></geometry>{slope_surface}</collision></link></model>
        <model name="box"><pose>{} 0 {} 0 {theta} 0</pose><link name="l">
          <inertial><mass>1</mass><inertia><ixx>0.01417</ixx><iyy>0.01417</iyy><izz>0.02667</izz></inertia></inertial>
          <collision name="c"><geometry>{shape}</geometry>{box_surface}</collision></link></model>"#,
        -0.5 * s,
        -0.5 * c,
        h * s,
        h * c
    );
    bare_world("0 0 -9.8", &models)
}

/// Steps `p` for `seconds`.
fn run(p: &mut Physics, seconds: f64) {
    for _ in 0..(seconds / 0.001).round() as usize {
        p.step();
    }
}

/// The velocity of `link` along the fall line of a slope pitched `theta`.
fn downhill_speed(p: &Physics, link: &str, theta: f64) -> f64 {
    let k = p.kinematics_of(p.entity_id(link).unwrap()).unwrap();
    let v = k.linear_velocity;
    v.x * theta.cos() - v.z * theta.sin()
}

/// The box's acceleration down the slope, measured between 0.3 s and 1.3 s (after it has
/// settled on the slope).
fn slide_acceleration(p: &mut Physics, theta: f64) -> f64 {
    run(p, 0.3);
    let v0 = downhill_speed(p, "box::l", theta);
    run(p, 1.0);
    let v1 = downhill_speed(p, "box::l", theta);
    v1 - v0
}

/// How far the box moved in `seconds`.
fn travel(p: &mut Physics, seconds: f64) -> f64 {
    let id = p.entity_id("box::l").unwrap();
    let start = p.kinematics_of(id).unwrap().pose.position;
    run(p, seconds);
    let end = p.kinematics_of(id).unwrap().pose.position;
    (end - start).length()
}

#[track_caller]
fn assert_slides(p: &mut Physics, theta: f64, mu: f64) -> f64 {
    let expected = G * (theta.sin() - mu * theta.cos());
    let a = slide_acceleration(p, theta);
    eprintln!(
        "slide θ {:.0}°, mu {mu}: measured {a:.4} m/s², analytic {expected:.4}",
        theta.to_degrees()
    );
    assert!(
        ((a - expected) / expected).abs() < 0.02,
        "θ {:.0}°, mu {mu}: a {a:.4} m/s², expected {expected:.4}",
        theta.to_degrees()
    );
    a
}

#[test]
fn a_box_slides_down_an_incline_at_g_sin_minus_mu_cos() {
    for (degrees, mu) in [(30.0f64, 0.3), (20.0, 0.1), (45.0, 0.5), (10.0, 0.0)] {
        let theta = degrees.to_radians();
        let s = surface(mu, mu, "");
        let mut p = incline(theta, &s, &s);
        assert_slides(&mut p, theta, mu);
    }
}

#[test]
fn a_box_sticks_on_an_incline_whose_tangent_is_below_mu() {
    // (angle, mu): tan 30° = 0.58 < 0.7; tan 60° = 1.73 < 5; the default mu 1 holds at 40°.
    for (degrees, surf) in [
        (30.0f64, surface(0.7, 0.7, "")),
        (60.0, surface(5.0, 5.0, "")),
        (40.0, String::new()),
    ] {
        let theta = degrees.to_radians();
        let mut p = incline(theta, &surf, &surf);
        run(&mut p, 0.3);
        let moved = travel(&mut p, 2.0);
        eprintln!("stick θ {degrees}°: moved {moved:.2e} m in 2 s");
        assert!(moved < 1e-3, "θ {degrees}°: moved {moved} m in 2 s");
    }
}

#[test]
fn two_surfaces_combine_by_the_smaller_friction() {
    let theta = 30f64.to_radians();
    let (slippery, sticky) = (surface(0.2, 0.2, ""), surface(0.9, 0.9, ""));
    let mut p = incline(theta, &slippery, &sticky);
    assert_slides(&mut p, theta, 0.2);
    let mut p = incline(theta, &sticky, &slippery);
    assert_slides(&mut p, theta, 0.2);
}

#[test]
fn anisotropic_friction_follows_fdir1_and_defaults_to_the_fall_line() {
    let theta = 30f64.to_radians();
    let slope = surface(1.0, 1.0, "");
    // fdir1 along the box's X, which is the fall line: mu (0.1) resists the slide.
    let along = "<surface><friction><ode><mu>0.1</mu><mu2>1</mu2><fdir1>1 0 0</fdir1></ode></friction></surface>";
    let mut p = incline(theta, &slope, along);
    assert_slides(&mut p, theta, 0.1);
    // No fdir1: DART's first direction is the world's Z projected on the slope, the fall
    // line again.
    let default = surface(0.1, 1.0, "");
    let mut p = incline(theta, &slope, &default);
    assert_slides(&mut p, theta, 0.1);
    // fdir1 across the slope: the slide meets mu2 (1), which holds the box at 30°.
    let across = "<surface><friction><ode><mu>0.1</mu><mu2>1</mu2><fdir1>0 1 0</fdir1></ode></friction></surface>";
    let mut p = incline(theta, &slope, across);
    run(&mut p, 0.3);
    let moved = travel(&mut p, 2.0);
    assert!(moved < 1e-3, "moved {moved} m");
    // And the other way round: mu2 0.1 across a box whose fdir1 is across the slope.
    let across_slippery = "<surface><friction><ode><mu>1</mu><mu2>0.1</mu2><fdir1>0 1 0</fdir1></ode></friction></surface>";
    let mut p = incline(theta, &slope, across_slippery);
    assert_slides(&mut p, theta, 0.1);
    // The same on a disc: fdir1 is in the collision frame, whatever the rapier shape's axes.
    let disc = "<cylinder><radius>0.2</radius><length>0.1</length></cylinder>";
    let mut p = incline_of(theta, &slope, disc, across_slippery);
    assert_slides(&mut p, theta, 0.1);
    // fdir1 at 45° to the fall line: the elliptic cone's sqrt((0.1² + 0.5²) / 2) = 0.36.
    let diagonal = "<surface><friction><ode><mu>0.1</mu><mu2>0.5</mu2><fdir1>1 1 0</fdir1></ode></friction></surface>";
    let mut p = incline(theta, &slope, diagonal);
    assert_slides(&mut p, theta, ((0.01f64 + 0.25) / 2.0).sqrt());
}

/// A ground plane with `ground_surface`, and a 0.1 m ball of 1 kg with `ball_surface` whose
/// bottom is `drop` above it.
fn bounce_world(drop: f64, ground_surface: &str, ball_surface: &str) -> Physics {
    let models = format!(
        r#"<model name="ground"><static>true</static><link name="l">
          <collision name="c"><geometry><plane><normal>0 0 1</normal></plane></geometry>{ground_surface}</collision></link></model>
        <model name="ball"><pose>0 0 {} 0 0 0</pose><link name="l">
          <inertial><mass>1</mass><inertia><ixx>0.004</ixx><iyy>0.004</iyy><izz>0.004</izz></inertia></inertial>
          <collision name="c"><geometry><sphere><radius>0.1</radius></sphere></geometry>{ball_surface}</collision></link></model>"#,
        drop + 0.1
    );
    bare_world("0 0 -9.8", &models)
}

/// The highest the ball's bottom rises after its first impact, within `seconds`.
fn rebound_height(p: &mut Physics, seconds: f64) -> f64 {
    let id = p.entity_id("ball::l").unwrap();
    let mut hit = false;
    let mut top = 0.0f64;
    for _ in 0..(seconds / 0.001) as usize {
        p.step();
        let k = p.kinematics_of(id).unwrap();
        if !hit {
            hit = k.linear_velocity.z > 0.0;
        } else {
            top = top.max(k.pose.position.z - 0.1);
            if k.linear_velocity.z < 0.0 && top > 0.0 {
                break;
            }
        }
    }
    top
}

fn bounce(e: f64, more: &str) -> String {
    format!(
        "<surface><bounce><restitution_coefficient>{e}</restitution_coefficient>{more}</bounce></surface>"
    )
}

#[test]
fn a_ball_rebounds_to_e_squared_of_its_drop_with_e_the_product_of_the_surfaces() {
    for (ground, ball) in [(0.9, 0.8), (1.0, 0.5), (0.7, 0.7)] {
        let mut p = bounce_world(1.0, &bounce(ground, ""), &bounce(ball, ""));
        let ratio = rebound_height(&mut p, 3.0);
        let e: f64 = ground * ball;
        eprintln!(
            "bounce e {ground} x {ball}: ratio {ratio:.4}, e² {:.4}",
            e * e
        );
        assert!(
            ((ratio - e * e) / (e * e)).abs() < 0.05,
            "e {ground} x {ball}: rebound ratio {ratio:.4}, expected {:.4}",
            e * e
        );
    }
    // Restitution 0 on either side: no bounce.
    let mut p = bounce_world(1.0, "", &bounce(0.9, ""));
    let ratio = rebound_height(&mut p, 1.0);
    assert!(ratio < 1e-3, "rebound {ratio}");
}

#[test]
fn no_bounce_below_the_threshold() {
    // A 1 m drop hits at 4.4 m/s: under a 5 m/s threshold, no bounce; over 3 m/s, a bounce.
    let mut p = bounce_world(
        1.0,
        &bounce(1.0, ""),
        &bounce(0.8, "<threshold>5</threshold>"),
    );
    let h = rebound_height(&mut p, 1.0);
    assert!(h < 1e-3, "rebound {h}");
    let mut p = bounce_world(
        1.0,
        &bounce(1.0, ""),
        &bounce(0.8, "<threshold>3</threshold>"),
    );
    let h = rebound_height(&mut p, 3.0);
    assert!((h - 0.64).abs() < 0.05 * 0.64, "rebound {h}");
    // With no threshold written, DART's: a rebound under 0.1 m/s is none (a 5 mm drop hits
    // at 0.31 m/s; with e 0.25 it would leave at 0.08 m/s).
    let mut p = bounce_world(0.005, &bounce(1.0, ""), &bounce(0.25, ""));
    let h = rebound_height(&mut p, 0.5);
    assert!(h < 2e-4, "rebound {h}");
}

/// A model of two 0.2 m boxes, one above the other (no joint), falling on the ground, with
/// `model_extra` in the model and `upper_extra` in the upper link; the upper box's height
/// once they have landed.
fn stacked_links(model_extra: &str, upper_extra: &str) -> f64 {
    let link = |name: &str, z: f64, extra: &str| {
        format!(
            r#"<link name="{name}"><pose>0 0 {z} 0 0 0</pose>{extra}
            <inertial><mass>1</mass><inertia><ixx>0.00667</ixx><iyy>0.00667</iyy><izz>0.00667</izz></inertia></inertial>
            <collision name="c"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision></link>"#
        )
    };
    let models = format!(
        r#"<model name="pair">{model_extra}{}{}</model>"#,
        link("lower", 0.2, ""),
        link("upper", 0.6, upper_extra)
    );
    let mut p = Physics::build(&world(&models)).unwrap();
    run(&mut p, 1.5);
    let id = p.entity_id("pair::upper").unwrap();
    p.kinematics_of(id).unwrap().pose.position.z
}

#[test]
fn links_of_one_model_touch_only_when_one_of_them_self_collides() {
    // Default: no self-collision, the upper box falls through the lower to the ground.
    let z = stacked_links("", "");
    assert!((z - 0.1).abs() < 0.01, "upper at {z}");
    // The model self-collides: the upper box rests on the lower.
    let z = stacked_links("<self_collide>true</self_collide>", "");
    assert!((z - 0.3).abs() < 0.01, "upper at {z}");
    // One link self-collides: enough (link1 OR link2).
    let z = stacked_links("", "<self_collide>true</self_collide>");
    assert!((z - 0.3).abs() < 0.01, "upper at {z}");
    // A link's own false overrides its model's true, but the other link still self-collides.
    let z = stacked_links(
        "<self_collide>true</self_collide>",
        "<self_collide>false</self_collide>",
    );
    assert!((z - 0.3).abs() < 0.01, "upper at {z}");
}

#[test]
fn separate_models_always_touch() {
    let boxed = |name: &str, z: f64| {
        format!(
            r#"<model name="{name}"><pose>0 0 {z} 0 0 0</pose><link name="l">
            <inertial><mass>1</mass><inertia><ixx>0.00667</ixx><iyy>0.00667</iyy><izz>0.00667</izz></inertia></inertial>
            <collision name="c"><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision></link></model>"#
        )
    };
    let mut p = Physics::build(&world(&(boxed("a", 0.2) + &boxed("b", 0.6)))).unwrap();
    run(&mut p, 1.5);
    let z = p
        .kinematics_of(p.entity_id("b::l").unwrap())
        .unwrap()
        .pose
        .position
        .z;
    assert!((z - 0.3).abs() < 0.01, "upper at {z}");
}

/// A ground whose collision has `ground_contact` in `<surface><contact>`, and a 0.2 m box
/// with `box_contact`, dropped from 0.5 m: its height after 1 s.
fn bitmask_drop(ground_contact: &str, box_contact: &str) -> f64 {
    let models = format!(
        r#"<model name="ground"><static>true</static><link name="l">
          <collision name="c"><geometry><box><size>10 10 1</size></box></geometry><pose>0 0 -0.5 0 0 0</pose>
          <surface><contact>{ground_contact}</contact></surface></collision></link></model>
        <model name="box"><pose>0 0 0.5 0 0 0</pose><link name="l">
          <inertial><mass>1</mass><inertia><ixx>0.00667</ixx><iyy>0.00667</iyy><izz>0.00667</izz></inertia></inertial>
          <collision name="c"><geometry><box><size>0.2 0.2 0.2</size></box></geometry>
          <surface><contact>{box_contact}</contact></surface></collision></link></model>"#
    );
    let mut p = bare_world("0 0 -9.8", &models);
    run(&mut p, 1.0);
    p.kinematics_of(p.entity_id("box::l").unwrap())
        .unwrap()
        .pose
        .position
        .z
}

#[test]
fn bitmasks_let_collisions_touch_when_a_category_meets_a_collide_mask() {
    let ground = "<collide_bitmask>0x01</collide_bitmask>";
    // (1 & 2) | (2 & 1) = 0: the box falls through the ground.
    let z = bitmask_drop(ground, "<collide_bitmask>0x02</collide_bitmask>");
    assert!(z < -1.0, "box at {z}");
    // Sharing bit 0: it rests on it.
    let z = bitmask_drop(ground, "<collide_bitmask>3</collide_bitmask>");
    assert!((z - 0.1).abs() < 0.01, "box at {z}");
    // Category 1 of the box meets the ground's collide mask 1 (one side is enough).
    let z = bitmask_drop(
        ground,
        "<collide_bitmask>0x02</collide_bitmask><category_bitmask>0x01</category_bitmask>",
    );
    assert!((z - 0.1).abs() < 0.01, "box at {z}");
    // Defaults (0xffff) touch anything with a bit set.
    let z = bitmask_drop("", "<collide_bitmask>0x8000</collide_bitmask>");
    assert!((z - 0.1).abs() < 0.01, "box at {z}");
}

#[test]
fn velocity_decay_damps_a_body_as_exponential_decay() {
    // Falling with linear decay c: v(t) = (g / c)(1 - e^(-ct)).
    let c = 2.0;
    let models = format!(
        r#"<model name="m"><pose>0 0 100 0 0 0</pose><link name="l"><velocity_decay><linear>{c}</linear><angular>3</angular></velocity_decay>
          <inertial><mass>1</mass></inertial></link></model>"#
    );
    let mut p = bare_world("0 0 -9.8", &models);
    let id = p.entity_id("m::l").unwrap();
    run(&mut p, 1.0);
    let v = -p.kinematics_of(id).unwrap().linear_velocity.z;
    let expected = G / c * (1.0 - (-c).exp());
    eprintln!("decay: v {v:.5}, expected {expected:.5}");
    assert!(
        ((v - expected) / expected).abs() < 0.01,
        "v {v}, expected {expected}"
    );
    // Spinning at 2 rad/s with angular decay 3: ω(t) = 2 e^(-3t).
    p.apply(&PhysicsCommand::SetVelocity(
        id,
        Vec3::ZERO,
        Vec3::new(0.0, 0.0, 2.0),
    ))
    .unwrap();
    run(&mut p, 0.5);
    let w = p.kinematics_of(id).unwrap().angular_velocity.z;
    let expected = 2.0 * (-1.5f64).exp();
    eprintln!("decay: ω {w:.5}, expected {expected:.5}");
    assert!(
        ((w - expected) / expected).abs() < 0.01,
        "ω {w}, expected {expected}"
    );
}

#[test]
fn solver_iterations_come_from_the_physics_element() {
    let text = |physics: &str| {
        format!(
            r#"<sdf version="1.9"><world name="w"><physics type="dart">{physics}</physics></world></sdf>"#
        )
    };
    let iterations = |physics: &str| {
        let w = sim_sdf::parse_str(&text(physics), None).expect("valid world");
        Physics::build(&w)
            .unwrap()
            .pw
            .integration_parameters
            .num_solver_iterations
    };
    let default = rapier3d::prelude::IntegrationParameters::default().num_solver_iterations;
    assert_eq!(iterations(""), default);
    assert_eq!(
        iterations("<ode><solver><iters>7</iters></solver></ode>"),
        7
    );
    assert_eq!(
        iterations(
            "<ode><solver><iters>7</iters></solver></ode><dart><solver><iters>9</iters></solver></dart>"
        ),
        9
    );
}

#[test]
fn plain_surfaces_turn_no_hooks_on() {
    // One-link models, and a model whose two links a joint joins (they never touch anyway).
    let arm = r#"<model name="arm"><link name="a"><collision name="c"><geometry><box><size>0.1 0.1 0.1</size></box></geometry></collision></link>
        <link name="b"><pose>0 0 0.2 0 0 0</pose><collision name="c"><geometry><box><size>0.1 0.1 0.1</size></box></geometry></collision></link>
        <joint name="j" type="revolute"><parent>a</parent><child>b</child><axis><xyz>0 0 1</xyz></axis></joint></model>"#;
    let mut p = Physics::build(&world(&format!("{BOX}{arm}"))).unwrap();
    run(&mut p, 0.01);
    assert!(
        p.pw.colliders
            .iter()
            .all(|(_, c)| c.active_hooks().is_empty()),
        "plain surfaces, one-link models and joined links use no hooks"
    );
}
