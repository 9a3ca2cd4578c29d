//! The engine's table of entities: ids, kinds, names and the physics handles behind them.

use rapier3d::prelude::RigidBodyHandle;
use sim_plugin_api::{EntityId, EntityKind, Pose};
use std::collections::{BTreeMap, HashMap};

/// What the engine keeps per entity kind.
#[derive(Clone, Debug)]
pub(crate) enum EntityData {
    World,
    Model {
        /// Links of this model (not of nested models).
        links: Vec<EntityId>,
        /// The link whose motion the model frame follows, and the model frame in that link's
        /// frame.
        canonical: Option<(EntityId, Pose)>,
        /// Pose of the model in the world at load time (used while it has no links).
        initial_pose: Pose,
        is_static: bool,
    },
    Link {
        body: RigidBodyHandle,
        /// Index into the per-link motion table.
        slot: usize,
    },
    Collision {
        collider: rapier3d::prelude::ColliderHandle,
        link: EntityId,
        pose: Pose,
        laser_retro: f64,
        /// Its geometry's kind, size and closed-form volume (for the mechanics extension).
        shape: super::summary::ShapeSummary,
    },
    Visual {
        link: EntityId,
        pose: Pose,
        diffuse: [f32; 4],
        laser_retro: f64,
        /// Segmentation label: the visual's own or that of its nearest labelled model.
        label: Option<u32>,
        /// `<visibility_flags>`: seen by casts whose mask shares a bit with them.
        visibility_flags: u32,
        /// Its Thermal temperature, if a Thermal plugin gave one.
        thermal: Option<sim_world::VisualThermal>,
        /// Its shape as the world describes it (for scene listings).
        geometry: std::sync::Arc<sim_world::Geometry>,
    },
    Sensor {
        link: EntityId,
        pose: Pose,
    },
    Joint {
        handle: rapier3d::prelude::ImpulseJointHandle,
        /// The parent body (the world anchor for `world`).
        parent: RigidBodyHandle,
        /// The child link and the joint frame on its body.
        child_link: EntityId,
        frame2: Pose,
        kind: sim_world::JointKind,
        /// Index of the joint's first axis in the per-axis table (angle unwrapping).
        slot: usize,
        /// Per axis (two for universal, revolute2 and gearbox joints, none for fixed and
        /// ball joints): how its position is measured and which rapier joint drives it.
        axes: Box<[Option<AxisPair>; 2]>,
        /// The multibody joint of a joint built in reduced coordinates (see
        /// `joints::reduced`); `handle` is then its drive joint.
        multibody: Option<rapier3d::prelude::MultibodyJointHandle>,
        /// The fixed body made to root a reduced-coordinate joint to the world, removed
        /// with the joint.
        anchor: Option<RigidBodyHandle>,
    },
}

/// One joint axis: two frames on two bodies whose relative rotation about X (or, for a
/// prismatic joint, translation along X) is the axis position.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AxisPair {
    /// The rapier joint whose X axis is this axis (none for gearbox axes, which are only
    /// coupled).
    pub joint: Option<rapier3d::prelude::ImpulseJointHandle>,
    pub body1: RigidBodyHandle,
    pub frame1: Pose,
    pub body2: RigidBodyHandle,
    pub frame2: Pose,
    /// Translation along X rather than rotation about it.
    pub linear: bool,
    /// Axis `k` of a universal or revolute2 joint: the frames are the joint frame on each
    /// body (X along axis 1, Y along axis 2), and the angles are read from their relative
    /// rotation `R_x(angle 1) * R_y(angle 2)`.
    pub two_axes: Option<usize>,
    /// The rapier joint that brakes this axis with its SDF `<friction>` (none without
    /// friction).
    pub friction: Option<rapier3d::prelude::ImpulseJointHandle>,
    /// The SDF effort limit (N or N·m, infinite: none): commands never push harder.
    pub effort: f64,
    /// The SDF velocity limit (m/s or rad/s, infinite: none): velocity commands are clamped
    /// to it.
    pub velocity: f64,
}

impl AxisPair {
    /// This axis braked by the friction joint `friction`.
    pub fn with_friction(self, friction: Option<rapier3d::prelude::ImpulseJointHandle>) -> Self {
        AxisPair { friction, ..self }
    }
}

/// One entity.
#[derive(Clone, Debug)]
pub(crate) struct Entity {
    pub kind: EntityKind,
    pub parent: EntityId,
    pub name: String,
    pub scoped_name: String,
    /// The model this entity belongs to (itself for a model; NONE for the world).
    pub model: EntityId,
    pub data: EntityData,
}

/// All entities, by id. Ids count up from 1 (the world) and are never given twice, so an id
/// kept after its entity was removed is refused rather than naming another; a removed
/// entity leaves nothing in the table, so creating and removing models keeps it the size of
/// the entities that exist.
#[derive(Debug, Default)]
pub(crate) struct Entities {
    /// The entities that exist, in id order.
    table: BTreeMap<u64, Entity>,
    /// The id the next entity gets.
    next: u64,
    by_name: HashMap<String, EntityId>,
}

impl Entities {
    pub fn add(&mut self, e: Entity) -> EntityId {
        let id = self.next_id();
        self.next = id.0 + 1;
        // Models, links and sensors win name clashes with collisions and visuals, which may
        // legitimately share names with each other and with their link's sensors.
        let strong = !matches!(e.kind, EntityKind::COLLISION | EntityKind::VISUAL);
        if strong {
            self.by_name.insert(e.scoped_name.clone(), id);
        } else {
            self.by_name.entry(e.scoped_name.clone()).or_insert(id);
        }
        self.table.insert(id.0, e);
        id
    }

    /// Makes `name` another name of `id`, replacing what it named before (aliases use names
    /// SDF reserves, so that is only ever an alias of a removed entity).
    pub fn alias(&mut self, name: &str, id: EntityId) {
        if id != EntityId::NONE {
            self.by_name.insert(name.to_string(), id);
        }
    }

    /// The id the next added entity will get.
    pub fn next_id(&self) -> EntityId {
        EntityId(self.next.max(1))
    }

    pub fn get(&self, id: EntityId) -> Option<&Entity> {
        self.table.get(&id.0)
    }

    /// The visibility flags of visual `id` (none for anything else).
    pub fn visibility_flags(&self, id: EntityId) -> u32 {
        match self.get(id).map(|e| &e.data) {
            Some(EntityData::Visual {
                visibility_flags, ..
            }) => *visibility_flags,
            _ => 0,
        }
    }

    pub fn get_mut(&mut self, id: EntityId) -> Option<&mut Entity> {
        self.table.get_mut(&id.0)
    }

    /// Removes the entities `ids` from the table (their ids are never given again), and
    /// forgets every name that led to one of them (its own, and the aliases of joints' ends).
    pub fn remove_all(&mut self, ids: &[EntityId]) {
        let mut gone = std::collections::HashSet::new();
        let mut gone_names = std::collections::HashSet::new();
        for &id in ids {
            if let Some(e) = self.table.remove(&id.0) {
                gone.insert(id);
                gone_names.insert(e.scoped_name);
            }
        }
        if !gone.is_empty() {
            // A joint's end aliases (`joint::__parent__`) outlive the joint when they name a
            // link that stays (the world, another model's link).
            let of_gone_joint = |name: &str| {
                ["::__parent__", "::__child__"].iter().any(|end| {
                    name.strip_suffix(end)
                        .is_some_and(|joint| gone_names.contains(joint))
                })
            };
            self.by_name
                .retain(|name, id| !gone.contains(id) && !of_gone_joint(name));
        }
    }

    /// How many names lead to entities (scoped names and aliases).
    pub fn names(&self) -> usize {
        self.by_name.len()
    }

    /// How many entities the table holds (those that exist).
    pub fn len(&self) -> usize {
        self.table.len()
    }

    pub fn by_name(&self, scoped: &str) -> Option<EntityId> {
        self.by_name
            .get(scoped)
            .copied()
            .filter(|id| self.get(*id).is_some())
    }

    pub fn iter(&self) -> impl Iterator<Item = (EntityId, &Entity)> {
        self.table.iter().map(|(&id, e)| (EntityId(id), e))
    }

    /// Whether `model` is `ancestor` or nested (at any depth) inside it.
    pub fn is_within(&self, model: EntityId, ancestor: EntityId) -> bool {
        let mut cur = model;
        for _ in 0..256 {
            if cur == ancestor {
                return true;
            }
            match self.get(cur) {
                Some(e) if e.kind == EntityKind::MODEL => cur = e.parent,
                _ => return false,
            }
        }
        false
    }
}
