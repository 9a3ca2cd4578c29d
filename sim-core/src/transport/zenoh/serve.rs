//! The control services that act on the world, served on the simulation thread: spawn and
//! delete through the world's factory, the models' names (GetEntities with its filters) and
//! their ground-truth state (GetEntityState, SetEntityState through the truth path).

use super::control::{Reply, Spawn, StateParts, result};
use super::entity::{EntityFilters, EntityState, bounds};
use crate::physics::{MAX_COMMAND_MAGNITUDE, MAX_COMMAND_POSITION, PhysicsCommand};
use crate::runner::Simulation;
use sim_plugin_api::{EntityId, EntityKind, Message, Vec3};

/// The largest compiled GetEntities filter (bytes of the regex engine's program).
const MAX_FILTER_PROGRAM: usize = 1 << 20;

/// The world factory's service `what` (`create`, `remove`), if the world has one.
pub(super) fn factory(sim: &Simulation, what: &str) -> Option<String> {
    let name = format!(
        "/world/{}/{what}",
        crate::transport::sanitize_topic_part(&sim.world().name)
    );
    sim.services().contains(&name).then_some(name)
}

/// The factory's service `what`, or the FEATURE_UNSUPPORTED reply's message saying the world
/// cannot `verb` without one.
fn factory_service(sim: &Simulation, what: &str, verb: &str) -> Result<String, String> {
    factory(sim, what).ok_or_else(|| {
        format!("this world has no factory (the simcore::Factory plugin) to {verb} with")
    })
}

/// SpawnEntity through the factory: its diagnostic is the reply's message on failure.
pub(super) fn spawn(sim: &mut Simulation, s: &Spawn, now: u8) -> Reply {
    use sim_plugin_api::{EntityFactory, Payload};
    let service = match factory_service(sim, "create", "spawn") {
        Ok(s) => s,
        Err(m) => return Reply::error(now, result::FEATURE_UNSUPPORTED, m),
    };
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
    let message = Message::new(
        "",
        Payload::EntityFactory(abi_stable::std_types::RBox::new(request)),
    );
    match sim.call_service(&service, &message) {
        Ok(reply) => match reply.payload.as_enum() {
            Ok(Payload::Pose(created)) => {
                let mut r = Reply::ok(now);
                r.entity_name = created.name.to_string();
                r
            }
            _ => Reply::error(
                now,
                result::OPERATION_FAILED,
                "the factory's reply has no name",
            ),
        },
        Err(e) => Reply::error(now, result::OPERATION_FAILED, e.to_string()),
    }
}

/// DeleteEntity through the factory.
pub(super) fn delete(sim: &mut Simulation, name: &str, now: u8) -> Reply {
    use sim_plugin_api::Payload;
    let service = match factory_service(sim, "remove", "delete") {
        Ok(s) => s,
        Err(m) => return Reply::error(now, result::FEATURE_UNSUPPORTED, m),
    };
    let message = Message::new("", Payload::Text(name.into()));
    match sim.call_service(&service, &message) {
        Ok(_) => Reply::ok(now),
        Err(e) if e.to_string().contains("no model") => {
            Reply::error(now, result::NOT_FOUND, e.to_string())
        }
        Err(e) => Reply::error(now, result::OPERATION_FAILED, e.to_string()),
    }
}

/// The id of the model `name` (a scoped name, `outer::inner` for a nested one).
fn model(sim: &Simulation, name: &str) -> Option<EntityId> {
    sim.physics()
        .frames()
        .find(|f| f.kind == EntityKind::MODEL && f.scoped_name == name)
        .map(|f| f.id)
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
    let physics = sim.physics();
    let mut r = Reply::ok(now);
    r.entities = physics
        .frames()
        .filter(|e| e.kind == EntityKind::MODEL)
        .filter(|e| re.as_ref().is_none_or(|re| re.is_match(e.scoped_name)))
        .filter(|e| {
            region.as_ref().is_none_or(|region| {
                let (lo, hi) = physics
                    .model_bounds(e.id)
                    .unwrap_or((e.pose.position, e.pose.position));
                region.overlaps(lo, hi)
            })
        })
        .map(|e| e.scoped_name.to_string())
        .collect();
    r
}

/// A GetEntities overlap region.
enum Region {
    Sphere(Vec3, f64),
    Box(Vec3, Vec3),
}

impl Region {
    /// Whether the box `lo..hi` overlaps the region.
    fn overlaps(&self, lo: Vec3, hi: Vec3) -> bool {
        match *self {
            Region::Sphere(c, r) => {
                let d = |c: f64, lo: f64, hi: f64| c - c.clamp(lo, hi);
                let (x, y, z) = (d(c.x, lo.x, hi.x), d(c.y, lo.y, hi.y), d(c.z, lo.z, hi.z));
                x * x + y * y + z * z <= r * r
            }
            Region::Box(a, b) => {
                a.x <= hi.x
                    && lo.x <= b.x
                    && a.y <= hi.y
                    && lo.y <= b.y
                    && a.z <= hi.z
                    && lo.z <= b.z
            }
        }
    }
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
        bounds::SPHERE if p.len() == 2 && p[1].x >= 0.0 => Ok(Some(Region::Sphere(p[0], p[1].x))),
        bounds::SPHERE => {
            bad("TYPE_SPHERE takes its centre and a point whose x is the radius (not negative)")
        }
        bounds::BOX if p.len() == 2 => {
            let (a, b) = (p[0], p[1]);
            Ok(Some(Region::Box(
                Vec3 {
                    x: a.x.min(b.x),
                    y: a.y.min(b.y),
                    z: a.z.min(b.z),
                },
                Vec3 {
                    x: a.x.max(b.x),
                    y: a.y.max(b.y),
                    z: a.z.max(b.z),
                },
            )))
        }
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
    let Some(k) = model(sim, name).and_then(|id| sim.physics().kinematics_of(id)) else {
        return Reply::error(now, result::NOT_FOUND, format!("no model `{name}`"));
    };
    let mut r = Reply::ok(now);
    r.entity_state = EntityState {
        stamp: sim.time(),
        frame: "world".into(),
        pose: k.pose,
        linear_velocity: k.linear_velocity,
        angular_velocity: k.angular_velocity,
        linear_acceleration: k.linear_acceleration,
        angular_acceleration: k.angular_acceleration,
    };
    r
}

/// SetEntityState: teleports a model and sets its velocity (world frame) through the truth
/// path, at once. A pose that is none (a position not finite or past the simulated extent, a
/// rotation not finite or of zero norm) is INVALID_POSE; a velocity or acceleration not
/// finite or out of range, a frame other than the world, or a motion asked of a static model
/// is OPERATION_FAILED. The acceleration is otherwise ignored (the package allows it): the
/// engine's comes from the forces. Only the `parts` asked for are checked and set; the others
/// stay as they are.
pub(super) fn set_entity_state(
    sim: &mut Simulation,
    name: &str,
    s: &EntityState,
    parts: StateParts,
    now: u8,
) -> Reply {
    let fail = |code, m: String| Reply::error(now, code, m);
    let Some(id) = model(sim, name) else {
        return fail(result::NOT_FOUND, format!("no model `{name}`"));
    };
    if !(s.frame.is_empty() || s.frame == "world") {
        return fail(
            result::OPERATION_FAILED,
            format!(
                "state.header.frame_id `{}`: simcore sets states in the world frame (empty or `world`)",
                s.frame
            ),
        );
    }
    let q = s.pose.orientation;
    if parts.pose {
        let p = s.pose.position;
        for (field, v) in [("x", p.x), ("y", p.y), ("z", p.z)] {
            if !(v.is_finite() && v.abs() <= MAX_COMMAND_POSITION) {
                return fail(
                    result::INVALID_POSE,
                    format!(
                        "state.pose.position.{field} = {v} is not within {MAX_COMMAND_POSITION} m of the origin"
                    ),
                );
            }
        }
        let norm = (q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w).sqrt();
        if !(norm.is_finite() && norm > 1e-9) {
            return fail(
                result::INVALID_POSE,
                format!(
                    "state.pose.orientation ({}, {}, {}, {}) is not a rotation",
                    q.x, q.y, q.z, q.w
                ),
            );
        }
    }
    // The motion parts asked for, each checked and, when non-zero, refused for a static model.
    let mut motion = Vec::with_capacity(4);
    if parts.twist {
        motion.extend([
            ("twist.linear", s.linear_velocity),
            ("twist.angular", s.angular_velocity),
        ]);
    }
    if parts.acceleration {
        motion.extend([
            ("acceleration.linear", s.linear_acceleration),
            ("acceleration.angular", s.angular_acceleration),
        ]);
    }
    for &(field, v) in &motion {
        for (axis, x) in [("x", v.x), ("y", v.y), ("z", v.z)] {
            if !(x.is_finite() && x.abs() <= MAX_COMMAND_MAGNITUDE) {
                return fail(
                    result::OPERATION_FAILED,
                    format!(
                        "state.{field}.{axis} = {x} is not a number within {MAX_COMMAND_MAGNITUDE}"
                    ),
                );
            }
        }
    }
    let moving = motion
        .iter()
        .any(|(_, v)| v.x != 0.0 || v.y != 0.0 || v.z != 0.0);
    let is_static = sim.physics().is_static_model(id);
    if is_static && moving {
        return fail(
            result::OPERATION_FAILED,
            format!("`{name}` is static: it takes a pose, not a velocity or an acceleration"),
        );
    }
    let mut pose = s.pose;
    pose.orientation = q.normalized();
    let mut commands = Vec::with_capacity(2);
    if parts.pose {
        commands.push(PhysicsCommand::SetPose(id, pose));
    }
    if parts.twist && !is_static {
        commands.push(PhysicsCommand::SetVelocity(
            id,
            s.linear_velocity,
            s.angular_velocity,
        ));
    }
    for c in &commands {
        if let Err(e) = sim.apply_physics(c) {
            return fail(result::OPERATION_FAILED, e.to_string());
        }
    }
    Reply::ok(now)
}
