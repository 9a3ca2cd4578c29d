//! Tests of the physics adapter, one file per behaviour, and the worlds they share.

mod commands;
mod joint_dynamics;
mod joint_kinds;
mod joint_limits;
mod joints;
mod leading;
mod mechanics;
mod planes;
mod raster;
mod rays;
mod reduced;
mod scan;
mod shapes;
mod stacking;
mod state;
mod surfaces;
mod view;

use super::convert::pose_from_rapier;
use super::entities::EntityData;
use super::state::origin_velocity;
use super::*;
use sim_plugin_api::{
    Aabb, EntityId, EntityKind, KinematicState, NO_LABEL, Pose, Ray as ApiRay, RayCastOptions,
    RayHit, RayTarget, SurfaceInfo, Vec3, WorldView,
    abi_stable::{
        RRef,
        sabi_trait::TD_Opaque,
        std_types::{RSlice, RSliceMut, RVec},
    },
};
use sim_world::World;

/// The world pose of model `name`'s link `l`.
fn at(p: &Physics, name: &str) -> Pose {
    p.pose_of(p.entity_id(&format!("{name}::l")).unwrap())
        .unwrap()
}

/// The collider of `scoped` (a collision).
fn collider(p: &Physics, scoped: &str) -> ColliderHandle {
    match p
        .entities
        .get(p.entity_id(scoped).unwrap())
        .map(|e| &e.data)
    {
        Some(EntityData::Collision { collider, .. }) => *collider,
        _ => panic!("{scoped} is no collision"),
    }
}

/// Two worlds that should move bodies alike on their grounds (`case` names them), each with
/// a unit box `thrown` resting on the ground (mu 0.3) and one `tilted` above it on its edge:
/// throws `thrown` along the ground at 3 m/s spinning at `spin` rad/s in both and steps both
/// 2 s. Sliding, its paths stay within a millimetre of each other and it slides as far as
/// v^2 / (2 mu g) within 1 %; tumbling from its edge, `tilted` comes to rest on a face in
/// both, within 5 cm of each other (a tumble magnifies any difference, such as the step at
/// which a pair is made).
fn slide_and_tumble(a: &mut Physics, b: &mut Physics, spin: f64, case: &str) {
    let v0 = Vec3::new(3.0, 0.5, 0.0);
    for p in [&mut *a, &mut *b] {
        let thrown = p.entity_id("thrown").unwrap();
        p.apply(&PhysicsCommand::SetVelocity(
            thrown,
            v0,
            Vec3::new(0.0, 0.0, spin),
        ))
        .unwrap();
    }
    let mut apart: f64 = 0.0;
    for _ in 0..2000 {
        a.step();
        b.step();
        apart = apart.max((at(a, "thrown").position - at(b, "thrown").position).length());
    }
    assert!(
        apart < 1e-3,
        "{case}: the sliding paths part by {apart:e} m"
    );
    let slid = at(a, "thrown").position;
    let expected = v0.length().powi(2) / (2.0 * 0.3 * 9.8);
    let slid_by = (slid.x.powi(2) + slid.y.powi(2)).sqrt();
    assert!(
        (slid_by / expected - 1.0).abs() < 0.01,
        "{case}: slid {slid_by} m, v^2 / (2 mu g) = {expected} m"
    );
    let (ta, tb) = (at(a, "tilted").position, at(b, "tilted").position);
    assert!(
        (ta.z - 0.5).abs() < 1e-3 && (tb.z - 0.5).abs() < 1e-3,
        "{case}: resting at {} and {} m",
        ta.z,
        tb.z
    );
    assert!((ta - tb).length() < 0.05, "{case}: {ta:?} vs {tb:?}");
}

fn world(models: &str) -> World {
    sim_sdf::parse_str(
        &format!(
            r#"<sdf version="1.9"><world name="w">
            <model name="ground"><static>true</static><link name="l">
              <collision name="c"><geometry><plane><normal>0 0 1</normal></plane></geometry></collision>
              <visual name="v"><geometry><plane><normal>0 0 1</normal></plane></geometry><material><diffuse>0 1 0 1</diffuse></material></visual>
            </link></model>{models}</world></sdf>"#
        ),
        None,
    )
    .expect("valid world")
}

const BOX: &str = r#"<model name="box"><pose>0 0 2 0 0 0</pose><link name="body">
    <inertial><mass>2</mass></inertial>
    <collision name="c"><laser_retro>7</laser_retro><geometry><box><size>0.2 0.2 0.2</size></box></geometry></collision>
    <visual name="v"><geometry><sphere><radius>0.5</radius></sphere></geometry><material><diffuse>1 0 0 1</diffuse></material></visual>
    <sensor name="s" type="imu"><pose>0.1 0 0 0 0 0</pose></sensor>
    </link></model>"#;

fn down(x: f64, y: f64, z: f64) -> ApiRay {
    ApiRay {
        origin: Vec3::new(x, y, z),
        direction: Vec3::new(0.0, 0.0, -1.0),
    }
}

/// Casts `rays` through `view` into `hits`; the number of hits.
fn cast_into(
    view: &PhysicsView<'_>,
    rays: &[ApiRay],
    opts: &RayCastOptions,
    hits: &mut [RayHit],
) -> u32 {
    view.cast_rays(
        RSlice::from_slice(rays),
        opts,
        RSliceMut::from_mut_slice(hits),
    )
}

/// A velocity command of `joint`'s first axis toward `target`, pushing at most `max_force`.
fn velocity_command(joint: EntityId, target: f64, max_force: f64) -> sim_plugin_api::JointCommand {
    sim_plugin_api::JointCommand {
        joint,
        axis: 0,
        mode: sim_plugin_api::JointCommandMode::VELOCITY,
        target,
        max_force,
        stiffness: 0.0,
        damping: 0.0,
    }
}

/// The world of the SDF document `text` built, and the entity named `scoped` in it.
#[track_caller]
fn with_entity(text: &str, scoped: &str) -> (Physics, EntityId) {
    let w = sim_sdf::parse_str(text, None).expect("valid world");
    let p = Physics::build(&w).unwrap();
    let id = p.entity_id(scoped).unwrap();
    (p, id)
}
