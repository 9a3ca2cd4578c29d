//! Fixed shapes first in their contact pairs (see `leading`): which colliders lead, when they
//! stop, and that bodies move on a leading ground as on the plain shape.

use super::super::leading::Leading;
use super::*;

/// A 1 kg unit box model `name` at `(x, y, z)`, rotated by `rpy`.
fn unit_box(name: &str, x: f64, y: f64, z: f64, rpy: &str, mu: f64) -> String {
    format!(
        r#"<model name="{name}"><pose>{x} {y} {z} {rpy}</pose><link name="l">
        <inertial><mass>1</mass><inertia><ixx>0.1667</ixx><iyy>0.1667</iyy><izz>0.1667</izz></inertia></inertial>
        <collision name="c"><surface><friction><ode><mu>{mu}</mu><mu2>{mu}</mu2></ode></friction></surface><geometry><box><size>1 1 1</size></box></geometry></collision>
        </link></model>"#
    )
}

/// A static 500 x 500 x 1 m box ground with its top at z = 0, named `name`.
fn ground(name: &str) -> String {
    format!(
        r#"<model name="{name}"><static>true</static><pose>0 0 -0.5 0 0 0</pose><link name="l">
        <collision name="c"><geometry><box><size>500 500 1</size></box></geometry></collision>
        <visual name="v"><geometry><box><size>500 500 1</size></box></geometry></visual>
        </link></model>"#
    )
}

fn build(models: &[String]) -> Physics {
    let w = sim_sdf::parse_str(
        &format!(
            r#"<sdf version="1.9"><world name="w">{}</world></sdf>"#,
            models.concat()
        ),
        None,
    )
    .expect("valid world");
    Physics::build(&w).unwrap()
}

fn leads(p: &Physics, c: ColliderHandle) -> bool {
    p.pw.colliders[c].shape().as_shape::<Leading>().is_some()
}

#[test]
fn a_fixed_shape_before_every_moving_one_leads() {
    let p = build(&[
        ground("ground"),
        unit_box("a", 0.0, 0.0, 0.5, "0 0 0", 1.0),
        ground("late"),
    ]);
    let g = collider(&p, "ground::l::c");
    assert!(leads(&p, g), "the ground comes first");
    assert_eq!(
        Leading::unwrap(p.pw.colliders[g].shape()).shape_type(),
        ShapeType::Cuboid
    );
    assert!(
        !leads(&p, collider(&p, "a::l::c")),
        "a moving box never leads"
    );
    assert!(
        !leads(&p, collider(&p, "late::l::c")),
        "a static model after a moving one"
    );
    // The ground's box is its cuboid's; only the box rapier measures its reach by is a point.
    let c = &p.pw.colliders[g];
    let aabb = c.compute_aabb();
    assert_eq!((aabb.mins.x, aabb.maxs.x), (-250.0, 250.0));
    assert_eq!((aabb.mins.z, aabb.maxs.z), (-1.0, 0.0));
    assert_eq!(c.shape().compute_local_aabb().extents(), Vector::ZERO);
    // Rays see the cuboid.
    let ray = rapier3d::prelude::Ray::new(Vector::new(100.0, 0.0, 2.0), -Vector::Z);
    let toi = c.shape().cast_ray(c.position(), &ray, 10.0, true);
    assert_eq!(toi, Some(2.0));
}

#[test]
fn a_moving_collider_given_an_earlier_place_ends_the_lead() {
    // A box first, the ground, then a box: remove the first box, lead the ground by hand as
    // if it came first, then spawn a box, which takes the freed place before the ground's.
    let mut p = build(&[
        unit_box("first", 3.0, 0.0, 0.5, "0 0 0", 1.0),
        ground("ground"),
        unit_box("last", 0.0, 0.0, 0.5, "0 0 0", 1.0),
    ]);
    let g = collider(&p, "ground::l::c");
    assert!(!leads(&p, g), "a moving box comes before it");
    p.remove_model(p.entity_id("first").unwrap()).unwrap();
    p.step();
    p.make_first(g);
    assert!(leads(&p, g));
    let w = sim_sdf::parse_str(
        &format!(
            r#"<sdf version="1.9"><world name="w">{}</world></sdf>"#,
            unit_box("again", 6.0, 0.0, 0.5, "0 0 0", 1.0)
        ),
        None,
    )
    .unwrap();
    p.spawn_model(&w.models[0]).unwrap();
    let again = collider(&p, "again::l::c");
    assert!(again.into_raw_parts().0 < g.into_raw_parts().0);
    assert!(!leads(&p, g));
    assert!(p.leads.first.is_empty());
    assert_eq!(
        p.pw.colliders[g].shape().shape_type(),
        ShapeType::Cuboid,
        "its own shape back"
    );
    // A fixed model spawned later does not end it, nor lead itself.
    let mut p = build(&[ground("ground"), unit_box("b", 0.0, 0.0, 0.5, "0 0 0", 1.0)]);
    let w = sim_sdf::parse_str(
        &format!(
            r#"<sdf version="1.9"><world name="w">{}</world></sdf>"#,
            ground("shelf")
        ),
        None,
    )
    .unwrap();
    p.spawn_model(&w.models[0]).unwrap();
    assert!(leads(&p, collider(&p, "ground::l::c")));
    assert!(!leads(&p, collider(&p, "shelf::l::c")));
}

#[test]
fn bodies_move_on_a_leading_ground_as_on_the_plain_box() {
    // A box thrown along the ground (mu 0.3), spinning or not, and one dropped tilted on its
    // edge, and a stack of three resting: their paths on the leading ground against those on
    // the same ground given its plain cuboid back, over 2 s.
    let models = || {
        vec![
            ground("ground"),
            unit_box("thrown", 0.0, 0.0, 0.5, "0 0 0", 0.3),
            unit_box("tilted", 5.0, 0.0, 1.5, "0.3 0.2 0", 1.0),
            unit_box("s1", -5.0, 0.0, 0.5, "0 0 0", 1.0),
            unit_box("s2", -5.0, 0.0, 1.5, "0 0 0.1", 1.0),
            unit_box("s3", -5.0, 0.0, 2.5, "0 0 0.2", 1.0),
        ]
    };
    for spin in [0.0, 4.0] {
        let mut leading = build(&models());
        let mut plain = build(&models());
        let g = collider(&plain, "ground::l::c");
        assert!(leads(&leading, g));
        plain.lead(g, false);
        plain.leads.first.clear();
        assert!(!leads(&plain, g));
        let case = format!("spin {spin} rad/s");
        slide_and_tumble(&mut leading, &mut plain, spin, &case);
        for (k, name) in ["s1", "s2", "s3"].into_iter().enumerate() {
            let z = at(&leading, name).position.z;
            assert!(
                (z - (0.5 + k as f64)).abs() < 2e-3,
                "{case}: {name} rests at {z} m"
            );
            let d = (at(&leading, name).position - at(&plain, name).position).length();
            assert!(d < 1e-3, "{case}: {name} {d:e} m apart");
        }
    }
}
