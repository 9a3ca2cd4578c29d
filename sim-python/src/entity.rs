//! Models by name: their state, creating and deleting them, through the engine's entity API
//! (`Simulation::entity_state`, `set_entity_state`, `spawn_entity`, `delete_entity`), its
//! typed errors mapped onto the package's exceptions.

use crate::errors::{EntityError, entity_not_found};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use sim_engine::runner::{self, EntityState, EntityUpdate, Simulation};
use sim_plugin_api::{EntityFactory, Pose, Quat, Vec3};

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

/// The region `models()` looks in: within `radius` of the point `near`, or `between` two
/// corners (in either order); none without them. A ValueError names what is wrong.
pub fn region(
    near: Option<[f64; 3]>,
    radius: Option<f64>,
    between: Option<([f64; 3], [f64; 3])>,
) -> PyResult<Option<runner::Region>> {
    use pyo3::exceptions::PyValueError;
    let finite = |v: &[f64; 3]| v.iter().all(|x| x.is_finite());
    match (near, radius, between) {
        (None, None, None) => Ok(None),
        (Some(c), Some(r), None) => {
            if !finite(&c) {
                return Err(PyValueError::new_err("near must be three finite numbers"));
            }
            if !(r.is_finite() && r >= 0.0) {
                return Err(PyValueError::new_err(format!(
                    "radius must be a finite number, 0 or more, got {r}"
                )));
            }
            Ok(Some(runner::Region::Sphere {
                centre: v3(c),
                radius: r,
            }))
        }
        (None, None, Some((a, b))) => {
            if !(finite(&a) && finite(&b)) {
                return Err(PyValueError::new_err(
                    "between must be two corners of three finite numbers each",
                ));
            }
            Ok(Some(runner::Region::Box(v3(a), v3(b))))
        }
        (_, _, Some(_)) => Err(PyValueError::new_err(
            "give near and radius, or between, not both",
        )),
        _ => Err(PyValueError::new_err(
            "near and radius go together: models(near=(x, y, z), radius=r)",
        )),
    }
}

/// The exception of an entity request the engine refused (by the error's variant).
fn error(sim: &Simulation, e: runner::EntityError) -> PyErr {
    match e {
        runner::EntityError::NotFound(name) => {
            let models = sim.models();
            entity_not_found(format!(
                "no model `{name}` (models: {})",
                if models.is_empty() {
                    "none".to_string()
                } else {
                    models.join(", ")
                }
            ))
        }
        // An invalid or out-of-range value, a velocity for a static model, a change the
        // engine refused.
        e => EntityError::new_err(e.to_string()),
    }
}

/// A model's or a link's state.
pub fn state(sim: &Simulation, name: &str) -> PyResult<EntityState> {
    sim.entity_state(name).map_err(|e| match e {
        runner::EntityError::NotFound(name) => entity_not_found(format!(
            "no model or link `{name}` (a link is named `model::link`; models: {})",
            match sim.models() {
                m if m.is_empty() => "none".to_string(),
                m => m.join(", "),
            }
        )),
        e => error(sim, e),
    })
}

/// A state as the dict `get_state` returns.
pub fn state_dict<'py>(py: Python<'py>, s: &EntityState) -> PyResult<Bound<'py, PyDict>> {
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
    d.set_item("time", s.time.as_secs_f64())?;
    Ok(d)
}

/// Applies `u` to the model `name`: a position or orientation alone keeps the other part of
/// the pose, a velocity alone the other velocity.
pub fn set_state(sim: &mut Simulation, name: &str, u: &Update) -> PyResult<()> {
    let now = state(sim, name)?;
    let mut update = EntityUpdate::default();
    if u.position.is_some() || u.orientation.is_some() {
        let mut pose = now.pose;
        if let Some(p) = u.position {
            pose.position = v3(p);
        }
        if let Some(q) = u.orientation {
            pose.orientation = Quat::new(q[0], q[1], q[2], q[3]);
        }
        update.pose = Some(pose);
    }
    if u.linear_velocity.is_some() || u.angular_velocity.is_some() {
        update.twist = Some((
            u.linear_velocity.map_or(now.linear_velocity, v3),
            u.angular_velocity.map_or(now.angular_velocity, v3),
        ));
    }
    sim.set_entity_state(name, &update)
        .map_err(|e| error(sim, e))
}

/// Creates a model from SDF text or a model file; returns its name, or the diagnostic.
pub fn spawn(
    sim: &mut Simulation,
    sdf: &str,
    name: Option<&str>,
    position: Option<[f64; 3]>,
    orientation: Option<[f64; 4]>,
    allow_renaming: bool,
) -> PyResult<String> {
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
    sim.spawn_entity(&request)
        .map_err(|e| crate::errors::SpawnError::new_err(e.to_string()))
}

/// Deletes a model (with its nested models, sensors and plugins).
pub fn delete(sim: &mut Simulation, name: &str) -> PyResult<()> {
    sim.delete_entity(name).map_err(|e| error(sim, e))
}
