//! The control services that act on the world, translated to the engine's entity requests
//! on the simulation thread: spawn and delete, the models' names (GetEntities with its
//! filters) and their ground-truth state (GetEntityState, SetEntityState through the truth
//! path).

use super::control::{Reply, Spawn, StateParts, result};
use super::entity::{EntityFilters, EntityState, bounds};
use sim_engine::runner::{EntityError, EntityUpdate, Region, Simulation, StatePart};
use sim_plugin_api::EntityFactory;

/// The largest compiled GetEntities filter (bytes of the regex engine's program).
const MAX_FILTER_PROGRAM: usize = 1 << 20;

/// SpawnEntity: the engine creates the model ([`Simulation::spawn_entity`]); its diagnostic
/// is the reply's message on failure.
pub(super) fn spawn(sim: &mut Simulation, s: &Spawn, now: u8) -> Reply {
    if !s.namespace.is_empty() {
        return Reply::error(
            now,
            result::OPERATION_FAILED,
            "simcore has no entity namespaces: leave entity_namespace empty",
        );
    }
    let relative_to = if s.frame == "world" {
        ""
    } else {
        s.frame.as_str()
    };
    let request = EntityFactory {
        sdf: s.resource_string.as_str().into(),
        sdf_filename: s.uri.as_str().into(),
        name: s.name.as_str().into(),
        pose: s.pose,
        relative_to: relative_to.into(),
        allow_renaming: s.allow_renaming,
    };
    match sim.spawn_entity(&request) {
        Ok(name) => {
            let mut r = Reply::ok(now);
            r.entity_name = name;
            r
        }
        Err(e) => Reply::error(
            now,
            result::OPERATION_FAILED,
            format!("the model was not created:\n{e}"),
        ),
    }
}

/// DeleteEntity ([`Simulation::delete_entity`]).
pub(super) fn delete(sim: &mut Simulation, name: &str, now: u8) -> Reply {
    match sim.delete_entity(name) {
        Ok(()) => Reply::ok(now),
        Err(e) => refused(now, &e),
    }
}

/// The reply refusing an entity request, with the package's code for its error.
fn refused(now: u8, e: &EntityError) -> Reply {
    let code = match e {
        EntityError::NotFound(_) => result::NOT_FOUND,
        EntityError::Invalid {
            part: StatePart::Pose,
            ..
        } => result::INVALID_POSE,
        EntityError::Invalid { .. } | EntityError::Static(_) | EntityError::Command(_) => {
            result::OPERATION_FAILED
        }
    };
    let message = match e {
        EntityError::Invalid { .. } => format!("state.{e}"),
        _ => e.to_string(),
    };
    Reply::error(now, code, message)
}

/// GetEntities: the scoped names of the models (nested ones included) whose name matches
/// the filter's regular expression anywhere in it and whose collision box overlaps the
/// bounds (a sphere or a box; a model without collisions is its origin). Categories and
/// tags are not simcore's: a filter on them is FEATURE_UNSUPPORTED.
pub(super) fn entities(sim: &Simulation, f: &EntityFilters, now: u8) -> Reply {
    let fail = |code, m: String| Reply::error(now, code, m);
    if !f.categories.is_empty() {
        return fail(
            result::FEATURE_UNSUPPORTED,
            "simcore has no entity categories: leave filters.categories empty".into(),
        );
    }
    if !f.tags.is_empty() {
        return fail(
            result::FEATURE_UNSUPPORTED,
            "simcore has no entity tags: leave filters.tags.tags empty".into(),
        );
    }
    let region = match region(f) {
        Ok(r) => r,
        Err((code, m)) => return fail(code, m),
    };
    let re = if f.filter.is_empty() {
        None
    } else {
        match regex::RegexBuilder::new(&f.filter)
            .size_limit(MAX_FILTER_PROGRAM)
            .build()
        {
            Ok(re) => Some(re),
            Err(e) => {
                return fail(
                    result::OPERATION_FAILED,
                    format!("filters.filter is not a regular expression simcore reads: {e}"),
                );
            }
        }
    };
    let mut r = Reply::ok(now);
    let named = |name: &str| re.as_ref().is_none_or(|re| re.is_match(name));
    r.entities = sim.models_where(named, region.as_ref());
    r
}

/// The overlap region of `filters.bounds`, or the result code and message refusing it.
fn region(f: &EntityFilters) -> Result<Option<Region>, (u8, String)> {
    let p = &f.bounds_points;
    let bad = |m: &str| Err((result::OPERATION_FAILED, format!("filters.bounds: {m}")));
    if p.iter()
        .any(|v| !(v.x.is_finite() && v.y.is_finite() && v.z.is_finite()))
    {
        return bad("a point is not finite");
    }
    match f.bounds_type {
        bounds::EMPTY if p.is_empty() => Ok(None),
        bounds::EMPTY => bad("TYPE_EMPTY takes no points"),
        bounds::SPHERE if p.len() == 2 && p[1].x >= 0.0 => Ok(Some(Region::Sphere {
            centre: p[0],
            radius: p[1].x,
        })),
        bounds::SPHERE => {
            bad("TYPE_SPHERE takes its centre and a point whose x is the radius (not negative)")
        }
        bounds::BOX if p.len() == 2 => Ok(Some(Region::Box(p[0], p[1]))),
        bounds::BOX => bad("TYPE_BOX takes two corners"),
        bounds::CONVEX_HULL => Err((
            result::FEATURE_UNSUPPORTED,
            "filters.bounds: simcore filters by TYPE_SPHERE and TYPE_BOX, not TYPE_CONVEX_HULL"
                .into(),
        )),
        t => bad(&format!("unknown type {t}")),
    }
}

/// GetEntityState: a model's ground truth in the world frame, stamped with sim time (the
/// acceleration is the engine's finite difference over the last step).
pub(super) fn entity_state(sim: &Simulation, name: &str, now: u8) -> Reply {
    let k = match sim.entity_state(name) {
        Ok(k) => k,
        Err(e) => return refused(now, &e),
    };
    let mut r = Reply::ok(now);
    r.entity_state = EntityState {
        stamp: k.time,
        frame: "world".into(),
        pose: k.pose,
        linear_velocity: k.linear_velocity,
        angular_velocity: k.angular_velocity,
        linear_acceleration: k.linear_acceleration,
        angular_acceleration: k.angular_acceleration,
    };
    r
}

/// SetEntityState: the parts asked for, in the world frame, through the engine's
/// [`Simulation::set_entity_state`] (which checks them). A frame other than the world is
/// OPERATION_FAILED; a pose that is none INVALID_POSE.
pub(super) fn set_entity_state(
    sim: &mut Simulation,
    name: &str,
    s: &EntityState,
    parts: StateParts,
    now: u8,
) -> Reply {
    if !(s.frame.is_empty() || s.frame == "world") {
        return Reply::error(
            now,
            result::OPERATION_FAILED,
            format!(
                "state.header.frame_id `{}`: simcore sets states in the world frame (empty or `world`)",
                s.frame
            ),
        );
    }
    let update = EntityUpdate {
        pose: parts.pose.then_some(s.pose),
        twist: parts
            .twist
            .then_some((s.linear_velocity, s.angular_velocity)),
        acceleration: parts
            .acceleration
            .then_some((s.linear_acceleration, s.angular_acceleration)),
    };
    match sim.set_entity_state(name, &update) {
        Ok(()) => Reply::ok(now),
        Err(e) => refused(now, &e),
    }
}
