//! The buoyancy system: every link's displaced volume, and the fluid's push on it each step.

use crate::config::{BuoyancyConfig, Fluid};
use crate::volume::{Submersible, layered_forces};
use sim_plugin_api::{
    CollisionShape, ModelInfo, ShapeKind,
    abi_stable::std_types::{RSlice, RSliceMut, RVec},
    prelude::*,
};
use simcore_plugin_common::gz::{GzSystem, mechanics, missing};
use std::collections::BTreeMap;

/// What the fluid acts on of one link.
#[derive(Clone, Debug)]
struct Body {
    /// Total volume of its collisions, m³, and its centre in the link frame.
    volume: f64,
    center: Vec3,
    /// Its box and sphere collisions, for graded buoyancy.
    shapes: Vec<(EntityId, Submersible)>,
    /// Whether it has collisions with volume of other kinds (graded buoyancy skips them).
    others: bool,
}

/// Buoyancy on the links of the world (see the crate documentation).
pub struct Buoyancy {
    config: BuoyancyConfig,
    /// The links, by model, of the models seen so far (rebuilt when the models change).
    bodies: BTreeMap<EntityId, Body>,
    models: Vec<EntityId>,
    warned_shapes: bool,
}

impl GzSystem for Buoyancy {
    /// Creates the system from its `<plugin>` element; it must be attached to the world, and
    /// the engine must offer the mechanics extension.
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let who = format!("{}: Buoyancy", config.entity_name.as_str());
        if !simcore_plugin_common::on_world(config, world) {
            return Err(missing(format!(
                "{who}: should be attached to a <world>, not a <model>"
            )));
        }
        mechanics(world, &who, "collision volumes")?;
        let doc = simcore_plugin_common::plugin_document(config, &who)?;
        let parsed = BuoyancyConfig::read(&doc.root())?;
        if parsed.defaulted {
            world.log_message(
                LogLevel::WARN,
                &format!("{who}: neither <graded_buoyancy> nor <uniform_fluid_density> specified; defaulting to <uniform_fluid_density>1000</uniform_fluid_density>"),
            );
        }
        Ok(Buoyancy {
            config: parsed,
            bodies: BTreeMap::new(),
            models: Vec::new(),
            warned_shapes: false,
        })
    }
}

impl Buoyancy {
    /// Whether `link` (scoped name without the world) or one of its models is enabled.
    fn enabled(&self, scoped: &str) -> bool {
        if self.config.enabled.is_empty() {
            return true;
        }
        let mut name = scoped;
        loop {
            if self.config.enabled.iter().any(|e| e == name) {
                return true;
            }
            match name.rfind("::") {
                Some(i) => name = &name[..i],
                None => return false,
            }
        }
    }

    /// Rebuilds the table of bodies when the world's models changed.
    fn refresh(&mut self, world: &WorldRef<'_>) {
        let mut models = RVec::<ModelInfo>::new();
        world.models(&mut models);
        let ids: Vec<EntityId> = models
            .iter()
            .filter(|m| !m.is_static)
            .map(|m| m.id)
            .collect();
        if ids == self.models {
            return;
        }
        let Some(mech) = world.mechanics() else {
            return;
        };
        let (mut links, mut shapes) = (RVec::new(), RVec::<CollisionShape>::new());
        self.bodies.clear();
        for &model in &ids {
            mech.model_links(model, &mut links);
            for &link in links.iter() {
                let Some(name) = world.scoped_name_of(link) else {
                    continue;
                };
                if !self.enabled(&name) {
                    continue;
                }
                mech.collision_shapes(link, &mut shapes);
                let volume: f64 = shapes.iter().map(|s| s.volume).sum();
                if volume <= 0.0 {
                    continue;
                }
                let center = shapes
                    .iter()
                    .fold(Vec3::ZERO, |a, s| a + s.center_of_volume.scale(s.volume))
                    .scale(1.0 / volume);
                let solids: Vec<(EntityId, Submersible)> = shapes
                    .iter()
                    .filter_map(|s| match s.kind {
                        ShapeKind::BOX => Some((s.collision, Submersible::Box(s.size))),
                        ShapeKind::SPHERE => Some((s.collision, Submersible::Sphere(s.size.x))),
                        _ => None,
                    })
                    .collect();
                let others = shapes.iter().filter(|s| s.volume > 0.0).count() > solids.len();
                self.bodies.insert(
                    link,
                    Body {
                        volume,
                        center,
                        shapes: solids,
                        others,
                    },
                );
            }
        }
        self.models = ids;
    }
}

impl System for Buoyancy {
    fn pre_step(
        &mut self,
        _ctx: &StepContext,
        _inbox: &[Message],
        world: &WorldRef<'_>,
        commands: &mut CommandsMut<'_>,
    ) -> Result<(), PluginError> {
        self.refresh(world);
        let g = world.gravity();
        let mut warn_shapes = false;
        for (&link, body) in &self.bodies {
            let Some(state) = world.kinematics_of(link) else {
                continue;
            };
            let (force, torque) = match &self.config.fluid {
                Fluid::Uniform(rho) => {
                    let f = g.scale(-rho * body.volume);
                    (f, state.pose.orientation.rotate(body.center).cross(f))
                }
                Fluid::Graded(layers) => {
                    let ids: Vec<EntityId> = body.shapes.iter().map(|(c, _)| *c).collect();
                    let mut poses = vec![KinematicState::default(); ids.len()];
                    world.kinematics(
                        RSlice::from_slice(&ids),
                        RSliceMut::from_mut_slice(&mut poses),
                    );
                    warn_shapes |= body.others;
                    let (mut f, mut t) = (Vec3::ZERO, Vec3::ZERO);
                    for ((_, shape), k) in body.shapes.iter().zip(&poses) {
                        for (force, point) in layered_forces(shape, k.pose, layers, g) {
                            f = f + force;
                            t = t + (point - state.pose.position).cross(force);
                        }
                    }
                    (f, t)
                }
            };
            commands.apply_wrench(link, force, torque);
        }
        if warn_shapes && !self.warned_shapes {
            self.warned_shapes = true;
            world.log_message(
                LogLevel::WARN,
                "Buoyancy: only <box> and <sphere> collisions are supported by the graded buoyancy option",
            );
        }
        Ok(())
    }
}
