//! Entity state, creation and removal on the engine's simulation.

use crate::errors::{SimError, entity_not_found};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sim_core::physics::PhysicsCommand;
use sim_core::runner::Simulation;
use sim_plugin_api::{EntityFactory, EntityKind, KinematicState, Pose, Quat, Vec3};

/// What `set_state` changes (None: left as it is).
pub struct Update {
    /// The new position (x, y, z).
    pub position: Option<[f64; 3]>,
    /// The new orientation (x, y, z, w).
    pub orientation: Option<[f64; 4]>,
    /// The new linear velocity, world frame.
    pub linear_velocity: Option<[f64; 3]>,
    /// The new angular velocity, world frame.
    pub angular_velocity: Option<[f64; 3]>,
}

fn v3(v: [f64; 3]) -> Vec3 {
    Vec3::new(v[0], v[1], v[2])
}

fn not_found(sim: &Simulation, name: &str) -> PyErr {
    let models = models(sim);
    entity_not_found(format!(
        "no entity `{name}` (models: {})",
        if models.is_empty() {
            "none".to_string()
        } else {
            models.join(", ")
        }
    ))
}

/// The motion of a model or link.
pub fn state(sim: &Simulation, name: &str) -> PyResult<KinematicState> {
    let id = sim
        .physics()
        .entity_id(name)
        .ok_or_else(|| not_found(sim, name))?;
    sim.physics()
        .kinematics_of(id)
        .ok_or_else(|| not_found(sim, name))
}

/// A state as the dict `get_state` returns.
pub fn state_dict<'py>(py: Python<'py>, s: &KinematicState) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let p = s.pose.position;
    let q = s.pose.orientation;
    let t = |v: Vec3| (v.x, v.y, v.z);
    d.set_item("pose", (p.x, p.y, p.z))?;
    d.set_item("orientation", (q.x, q.y, q.z, q.w))?;
    d.set_item("linear_velocity", t(s.linear_velocity))?;
    d.set_item("angular_velocity", t(s.angular_velocity))?;
    d.set_item("linear_acceleration", t(s.linear_acceleration))?;
    d.set_item("angular_acceleration", t(s.angular_acceleration))?;
    Ok(d)
}

/// Applies `u` to the model or link `name`.
pub fn set_state(sim: &mut Simulation, name: &str, u: &Update) -> PyResult<()> {
    let now = state(sim, name)?;
    let id = sim
        .physics()
        .entity_id(name)
        .ok_or_else(|| not_found(sim, name))?;
    let fail = |e: sim_core::physics::CommandError| SimError::new_err(format!("`{name}`: {e}"));
    if u.position.is_some() || u.orientation.is_some() {
        let mut pose = now.pose;
        if let Some(p) = u.position {
            pose.position = v3(p);
        }
        if let Some(q) = u.orientation {
            let q = Quat::new(q[0], q[1], q[2], q[3]);
            let n = (q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w).sqrt();
            if !(n.is_finite() && n > 1e-9) {
                return Err(pyo3::exceptions::PyValueError::new_err(
                    "orientation is a quaternion (x, y, z, w) of non-zero length",
                ));
            }
            pose.orientation = q.normalized();
        }
        sim.apply_physics(&PhysicsCommand::SetPose(id, pose))
            .map_err(fail)?;
    }
    if u.linear_velocity.is_some() || u.angular_velocity.is_some() {
        let lin = u.linear_velocity.map_or(now.linear_velocity, v3);
        let ang = u.angular_velocity.map_or(now.angular_velocity, v3);
        sim.apply_physics(&PhysicsCommand::SetVelocity(id, lin, ang))
            .map_err(fail)?;
    }
    Ok(())
}

/// Creates a model; returns its name, or the diagnostic.
pub fn spawn(
    sim: &mut Simulation,
    sdf: &str,
    name: Option<&str>,
    position: Option<[f64; 3]>,
    orientation: Option<[f64; 4]>,
    allow_renaming: bool,
) -> Result<String, String> {
    let text = sdf.trim_start().starts_with('<');
    let mut pose = Pose::IDENTITY;
    if let Some(p) = position {
        pose.position = v3(p);
    }
    if let Some(q) = orientation {
        pose.orientation = Quat::new(q[0], q[1], q[2], q[3]);
    }
    let request = EntityFactory {
        sdf: if text { sdf.into() } else { "".into() },
        sdf_filename: if text { "".into() } else { sdf.into() },
        name: name.unwrap_or_default().into(),
        pose,
        relative_to: "".into(),
        allow_renaming,
    };
    let id = sim.spawn(&request).map_err(|e| e.to_string())?;
    Ok(sim
        .physics()
        .scoped_name(id)
        .unwrap_or_default()
        .to_string())
}

/// Removes a model.
pub fn delete(sim: &mut Simulation, name: &str) -> PyResult<()> {
    let _ = sim;
    Err(SimError::new_err(format!(
        "cannot delete `{name}`: not available in this engine version"
    )))
}

/// The top-level models.
pub fn models(sim: &Simulation) -> Vec<String> {
    sim.physics()
        .frames()
        .filter(|f| f.kind == EntityKind::MODEL && !f.scoped_name.contains("::"))
        .map(|f| f.scoped_name.to_string())
        .collect()
}
