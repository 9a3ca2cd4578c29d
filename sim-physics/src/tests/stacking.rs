//! Stiff contacts: a tower of boxes stands still and a resting box barely sinks.

use super::*;

/// `n` unit boxes of 1 kg stacked on the ground plane, bottom face at z = 0.
fn tower(n: usize) -> Physics {
    let boxes: String = (0..n)
        .map(|i| {
            format!(
                r#"<model name="b{i}"><pose>0 0 {z} 0 0 0</pose><link name="l">
                <inertial><mass>1</mass><inertia><ixx>0.1667</ixx><iyy>0.1667</iyy><izz>0.1667</izz></inertia></inertial>
                <collision name="c"><geometry><box><size>1 1 1</size></box></geometry></collision>
                </link></model>"#,
                z = i as f64 + 0.5
            )
        })
        .collect();
    Physics::build(&world(&boxes)).unwrap()
}

/// The pose of box `i` of a tower.
fn pose_of(p: &Physics, i: usize) -> Pose {
    p.pose_of(p.entity_id(&format!("b{i}::l")).unwrap())
        .unwrap()
}

#[test]
fn a_tower_of_ten_boxes_stands_still_for_ten_seconds() {
    let mut p = tower(10);
    let steps = (10.0 / p.step_size().as_secs_f64()).round() as usize;
    let mut worst: f64 = 0.0;
    for _ in 0..steps {
        p.step();
    }
    for i in 0..10 {
        let q = pose_of(&p, i);
        let drift = (q.position - Vec3::new(0.0, 0.0, i as f64 + 0.5)).length();
        worst = worst.max(drift);
    }
    assert!(worst < 1e-3, "drift {worst:e} m");
}

#[test]
fn a_resting_box_penetrates_the_ground_less_than_a_tenth_of_a_millimetre() {
    let mut p = tower(1);
    for _ in 0..2000 {
        p.step();
    }
    let z = pose_of(&p, 0).position.z;
    assert!((0.5 - z) < 1e-4 && z < 0.5 + 1e-4, "centre at {z} m");
}
