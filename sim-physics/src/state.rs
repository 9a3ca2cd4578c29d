//! Motion state: stepping, each link's motion record with its finite-difference
//! accelerations, and the motion of any entity's frame.

use super::Physics;
use super::convert::*;
use super::entities::EntityData;
use rapier3d::prelude::*;
use sim_plugin_api::{EntityId, KinematicState, Pose, SimTime, Vec3};

/// Motion bookkeeping of one link, for finite-difference accelerations: rapier's own
/// single-precision velocities, copied once per step and turned into the engine's double
/// precision when read (a step pays for a copy per link, a read for what it reads).
///
/// One cache line a link: the step's pass over every link reads and writes that line, and
/// reads the body's velocities (and its position, for the planes' reach), nothing more; the
/// pose is read from the body when asked. The pass reads no fixed body (a static model's
/// link): its velocities are zero, as its record's are from the start.
#[derive(Clone, Debug)]
#[repr(align(64))]
pub(super) struct LinkMotion {
    pub body: RigidBodyHandle,
    /// How far the link's collisions (planes aside) reach from its origin, m: the radius of
    /// a ball about the origin that holds them (negative infinity without collisions).
    pub reach: Real,
    /// Whether the body's centre of mass is the link's origin, so that the origin moves
    /// with rapier's linear velocity (the common case: an `<inertial>` without a pose).
    pub centred: bool,
    /// Whether the body is fixed (a static model's link that no joint drives): its
    /// velocities are zero for good (a teleport places it without motion, and its type
    /// never changes), and rapier pairs it with no other fixed body, a plane's included.
    pub fixed: bool,
    /// The velocity of the link's origin and its angular velocity, world frame, after the
    /// last step,
    pub velocity: Vector,
    pub angular_velocity: Vector,
    /// and before it.
    pub previous_velocity: Vector,
    pub previous_angular_velocity: Vector,
}

impl LinkMotion {
    /// The record of a link added with `body`, at rest.
    pub fn new(body: RigidBodyHandle, centred: bool, fixed: bool) -> Self {
        LinkMotion {
            body,
            reach: Real::NEG_INFINITY,
            centred,
            fixed,
            velocity: Vector::ZERO,
            angular_velocity: Vector::ZERO,
            previous_velocity: Vector::ZERO,
            previous_angular_velocity: Vector::ZERO,
        }
    }

    /// The record's body if it moves, found by its index alone: a record names a live body
    /// or none (the link's removal clears it as it removes the body, `commands.rs`), so the
    /// generation, which lies on a cache line of the body's slot that nothing else here
    /// reads, need not be checked. One line fewer a link for the step's pass over every
    /// link; a fixed body is not read at all.
    #[inline]
    fn moving_body<'a>(&self, bodies: &'a RigidBodySet) -> Option<&'a RigidBody> {
        if self.fixed {
            return None;
        }
        let (body, handle) = bodies.get_unknown_gen(self.body.into_raw_parts().0)?;
        debug_assert_eq!(handle, self.body, "a link's record outlived its body");
        Some(body)
    }

    /// Takes the velocities of `body` after a step, keeping those before it.
    #[inline]
    fn record(&mut self, body: &RigidBody) {
        self.previous_velocity = self.velocity;
        self.previous_angular_velocity = self.angular_velocity;
        self.velocity = if self.centred {
            body.linvel()
        } else {
            body.velocity_at_point(body.translation())
        };
        self.angular_velocity = body.angvel();
    }

    /// How far the link's collisions reach from the world's origin along some axis, with
    /// the link's origin at `origin` (negative infinity without collisions).
    #[inline]
    pub fn reach_from(&self, origin: Vector) -> Real {
        origin.abs().max_element() + self.reach
    }

    /// The linear and angular accelerations of the last step, by finite difference over
    /// `dt` seconds.
    #[inline]
    fn accelerations(&self, dt: f64) -> (Vec3, Vec3) {
        let scale = 1.0 / dt;
        (
            (vec_from_rapier(self.velocity) - vec_from_rapier(self.previous_velocity)).scale(scale),
            (vec_from_rapier(self.angular_velocity)
                - vec_from_rapier(self.previous_angular_velocity))
            .scale(scale),
        )
    }
}

/// The links' motion records, indexed by the slot each link is given when added.
#[derive(Debug, Default)]
pub(super) struct LinkRecords {
    /// One record a link.
    pub records: Vec<LinkMotion>,
    /// Slots of `records` whose links were removed, for the next links added.
    free: Vec<usize>,
    /// The runs of slots of the links whose bodies move, in order: the step's pass goes
    /// through these alone (a world's static links are often most of its links), a run at a
    /// time.
    moving: Vec<std::ops::Range<usize>>,
    /// Whether links were added or removed since `moving` was listed.
    stale: bool,
    /// Whether each link's velocities in `records` are those of its body: true from the end
    /// of a step until anything moves, adds or removes a body. Sensors then read the record
    /// instead of the body's scattered velocities and centre of mass.
    pub fresh: bool,
    /// The initial world pose of each link (in f64, for building joints between links of
    /// different models).
    pub initial: std::collections::HashMap<EntityId, Pose>,
}

impl LinkRecords {
    /// Keeps `motion`, the record of a link just added, in a free slot or a new one; gives
    /// the slot.
    pub fn add(&mut self, motion: LinkMotion) -> usize {
        self.stale = true;
        match self.free.pop() {
            Some(slot) => {
                self.records[slot] = motion;
                slot
            }
            None => {
                self.records.push(motion);
                self.records.len() - 1
            }
        }
    }

    /// Clears the record in `slot`, whose link was removed with its body, and frees the slot.
    pub fn remove(&mut self, slot: usize) {
        self.stale = true;
        self.records[slot].body = RigidBodyHandle::invalid();
        self.free.push(slot);
    }

    /// Records the velocities of every link that moves after a step, handing each record
    /// and its body to `each` as well. Last link first: rapier's last passes went through
    /// the bodies first to last, so the last bodies are those still in the cache (and the
    /// first are then for the next step).
    #[inline]
    fn record_moving(
        &mut self,
        bodies: &RigidBodySet,
        mut each: impl FnMut(&LinkMotion, &RigidBody),
    ) {
        self.relist();
        for run in self.moving.iter().rev() {
            for m in self.records[run.clone()].iter_mut().rev() {
                if let Some(body) = m.moving_body(bodies) {
                    m.record(body);
                    each(m, body);
                }
            }
        }
    }

    /// Lists the runs of slots of the links that move again if links were added or removed.
    fn relist(&mut self) {
        if !std::mem::take(&mut self.stale) {
            return;
        }
        self.moving.clear();
        let mut run: Option<std::ops::Range<usize>> = None;
        for (slot, m) in self.records.iter().enumerate() {
            if m.fixed || m.body == RigidBodyHandle::invalid() {
                self.moving.extend(run.take());
            } else {
                run.get_or_insert(slot..slot).end = slot + 1;
            }
        }
        self.moving.extend(run);
    }
}

/// The world's clock: its time, its fixed step and the steps taken.
#[derive(Debug)]
pub(super) struct Clock {
    pub time: SimTime,
    pub step: SimTime,
    pub iteration: u64,
}

impl Clock {
    /// A clock at time zero stepping `step`.
    pub fn new(step: SimTime) -> Self {
        Clock {
            time: SimTime::ZERO,
            step,
            iteration: 0,
        }
    }
}

impl Physics {
    /// Current sim time.
    pub fn time(&self) -> SimTime {
        self.clock.time
    }

    /// The fixed step.
    pub fn step_size(&self) -> SimTime {
        self.clock.step
    }

    /// Steps completed.
    pub fn iteration(&self) -> u64 {
        self.clock.iteration
    }

    /// Number of rigid bodies and colliders (for summaries).
    pub fn counts(&self) -> (usize, usize) {
        (self.pw.bodies.len(), self.pw.colliders.len())
    }

    /// Looks up an entity id by scoped name.
    pub fn entity_id(&self, scoped_name: &str) -> Option<EntityId> {
        self.entities.by_name(scoped_name)
    }

    /// Scoped name of an entity.
    pub fn scoped_name(&self, id: EntityId) -> Option<&str> {
        self.entities.get(id).map(|e| e.scoped_name.as_str())
    }

    /// Advances one fixed step and updates the finite-difference accelerations.
    pub fn step(&mut self) {
        self.update_two_axes();
        self.update_drive_targets();
        self.hooks.gravity = self.pw.gravity;
        self.hooks.dt = self.pw.integration_parameters.dt;
        // The planes' reach, after a spawn or a teleport (`plane`).
        if std::mem::take(&mut self.planes.placed) && !self.planes.handles.is_empty() {
            let extent = self.collisions_extent();
            self.planes.fit(&mut self.pw.colliders, extent);
        }
        self.pw.step_with_events(&self.hooks, &());
        self.rays.stepped();
        self.scans.world_changed();
        if self.planes.handles.is_empty() {
            // Without planes, no body's position is read.
            self.links.record_moving(&self.pw.bodies, |_, _| {});
        } else {
            // How far the collisions reach from the origin, for the planes' reach (`plane`).
            let mut extent: Real = 0.0;
            self.links.record_moving(&self.pw.bodies, |m, body| {
                extent = extent.max(m.reach_from(body.translation()));
            });
            self.planes.fit(&mut self.pw.colliders, extent);
        }
        self.update_joint_turns();
        self.solve_couplings();
        // Screw and gearbox couplings change velocities after the record above.
        self.links.fresh = self.joints.couplings.is_empty();
        for h in self.wrenched.drain(..) {
            if let Some(b) = self.pw.bodies.get_mut(h) {
                b.reset_forces(false);
                b.reset_torques(false);
            }
        }
        self.clock.time = SimTime::from_nanos(self.clock.time.nanos + self.clock.step.nanos);
        self.clock.iteration += 1;
    }

    /// How far, along some axis, the collisions of the links that move reach from the
    /// world's origin (a fixed body touches no plane).
    fn collisions_extent(&self) -> Real {
        self.links
            .records
            .iter()
            .filter_map(|m| Some(m.reach_from(m.moving_body(&self.pw.bodies)?.translation())))
            .fold(0.0, Real::max)
    }

    /// The world pose of a link's body (as [`Physics::kinematics_of`] gives it).
    #[inline]
    fn link_pose(&self, link: EntityId) -> Option<Pose> {
        let EntityData::Link { body, .. } = self.entities.get(link)?.data else {
            return None;
        };
        self.pw
            .bodies
            .get(body)
            .map(|b| pose_from_rapier(b.position()))
    }

    /// Where the frame of entity `id` is: a link's, at an offset on a link, or fixed in the
    /// world (the world itself, a model without links).
    fn anchor(&self, id: EntityId) -> Option<Anchor> {
        Some(match &self.entities.get(id)?.data {
            EntityData::World => Anchor::Fixed(KinematicState::default().pose),
            EntityData::Link { .. } => Anchor::Link(id),
            EntityData::Model {
                canonical,
                initial_pose,
                ..
            } => match canonical {
                Some((link, offset)) => Anchor::OnLink(*link, *offset),
                None => Anchor::Fixed(*initial_pose),
            },
            EntityData::Collision { link, pose, .. }
            | EntityData::Visual { link, pose, .. }
            | EntityData::Sensor { link, pose } => Anchor::OnLink(*link, *pose),
            EntityData::Joint {
                child_link, frame2, ..
            } => Anchor::OnLink(*child_link, *frame2),
        })
    }

    /// The world pose of any entity's frame: the pose of [`Physics::kinematics_of`], the
    /// same numbers, without working out the motion (for `/tf` and the recorder, every step).
    pub fn pose_of(&self, id: EntityId) -> Option<Pose> {
        match self.anchor(id)? {
            Anchor::Link(link) => self.link_pose(link),
            Anchor::OnLink(link, offset) => Some(self.link_pose(link)?.compose(offset)),
            Anchor::Fixed(pose) => Some(pose),
        }
    }

    fn link_state(&self, link: EntityId) -> Option<KinematicState> {
        let EntityData::Link { body, slot } = self.entities.get(link)?.data else {
            return None;
        };
        let mut state = KinematicState::default();
        self.body_state_into(body, slot, &mut state)
            .then_some(state)
    }

    /// The motion of a link's body into `out`; false if the body is gone.
    #[inline]
    fn body_state_into(
        &self,
        body: RigidBodyHandle,
        slot: usize,
        out: &mut KinematicState,
    ) -> bool {
        let Some(b) = self.pw.bodies.get(body) else {
            return false;
        };
        let m = &self.links.records[slot];
        let (a, alpha) = m.accelerations(self.clock.step.as_secs_f64());
        out.linear_acceleration = a;
        out.angular_acceleration = alpha;
        out.pose = pose_from_rapier(b.position());
        (out.linear_velocity, out.angular_velocity) = if self.links.fresh {
            (
                vec_from_rapier(m.velocity),
                vec_from_rapier(m.angular_velocity),
            )
        } else {
            origin_velocity(b)
        };
        true
    }

    /// [`Physics::kinematics_of`] written into `out` (left as it was when `id` is unknown):
    /// the path of the per-update sensor reads, which ask for links.
    #[inline]
    pub fn kinematics_into(&self, id: EntityId, out: &mut KinematicState) -> bool {
        match self.entities.get(id).map(|e| &e.data) {
            Some(EntityData::Link { body, slot }) => self.body_state_into(*body, *slot, out),
            Some(_) => match self.kinematics_of(id) {
                Some(k) => {
                    *out = k;
                    true
                }
                None => false,
            },
            None => false,
        }
    }

    /// The motion of any entity's frame (see [`WorldView::kinematics`](sim_plugin_api::WorldView::kinematics)).
    pub fn kinematics_of(&self, id: EntityId) -> Option<KinematicState> {
        match self.anchor(id)? {
            Anchor::Link(link) => self.link_state(link),
            Anchor::OnLink(link, offset) => Some(self.link_state(link)?.at_offset(offset)),
            Anchor::Fixed(pose) => Some(KinematicState {
                pose,
                ..Default::default()
            }),
        }
    }
}

/// Where an entity's frame is (see [`Physics::kinematics_of`]).
enum Anchor {
    /// A link's own frame.
    Link(EntityId),
    /// At an offset in a link's frame.
    OnLink(EntityId, Pose),
    /// Fixed in the world.
    Fixed(Pose),
}

/// Velocity of the body's frame origin and its angular velocity, world frame.
pub(super) fn origin_velocity(b: &RigidBody) -> (Vec3, Vec3) {
    let v = b.velocity_at_point(b.translation());
    (vec_from_rapier(v), vec_from_rapier(b.angvel()))
}
