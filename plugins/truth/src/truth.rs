//! The truth widget: ground-truth poses out, teleports in.

use crate::config::TruthConfig;
use sim_plugin_api::{
    ModelInfo,
    abi_stable::std_types::{RBox, RSlice, RSliceMut, RVec},
    msgs::NamedPose,
    prelude::*,
};
use simcore_plugin_common::gz::GzSystem;
use simcore_plugin_common::{Throttle, plugin_document, pose_problem, topic_part};

/// How many unknown ids in a row end the scan for links past the last model.
const SCAN_GAP: u64 = 64;

/// Publishes ground-truth poses of the world's models (attached to the world) or of one model
/// (attached to a model); on the world it also answers `/world/<w>/set_pose`.
pub struct TruthWidget {
    config: TruthConfig,
    /// The world or the model it is attached to.
    root: EntityId,
    on_world: bool,
    topic: SharedStr,
    set_pose_service: String,
    /// The models seen when `targets` was built.
    models_seen: Vec<EntityId>,
    /// What is published, in order, with its scoped name.
    targets: Vec<EntityId>,
    names: Vec<SharedStr>,
    states: Vec<KinematicState>,
    publish: Throttle,
    models_buf: RVec<ModelInfo>,
}

impl GzSystem for TruthWidget {
    /// Creates the system on a world or a model.
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let on_world = config.entity == EntityId::WORLD;
        let who = format!("{}: {}", config.entity_name, config.name);
        if !on_world && !simcore_plugin_common::on_model(config, world) {
            return Err(PluginError::config(format!(
                "{who}: must be attached to the world or to a model"
            )));
        }
        let doc = plugin_document(config, &who)?;
        let parsed = TruthConfig::read(&doc.root())?;
        Ok(TruthWidget::new(
            parsed,
            config.entity,
            config.world_name.as_str(),
        ))
    }

    /// The pose list (`Pose_V`).
    fn outputs(&self) -> Vec<(String, &'static str)> {
        vec![(self.topic.as_str().to_string(), "Pose_V")]
    }
}

impl TruthWidget {
    /// Builds the system from a parsed configuration, attached to `root` (the world or a
    /// model) of the world named `world_name`.
    pub fn new(config: TruthConfig, root: EntityId, world_name: &str) -> Self {
        let on_world = root == EntityId::WORLD;
        TruthWidget {
            config,
            root,
            on_world,
            topic: SharedStr::new(if on_world { "pose/info" } else { "pose" }),
            set_pose_service: format!("/world/{}/set_pose", topic_part(world_name)),
            models_seen: Vec::new(),
            targets: Vec::new(),
            names: Vec::new(),
            states: Vec::new(),
            publish: Throttle::default(),
            models_buf: RVec::new(),
        }
    }

    /// Whether model `m` (of the list `models`) is published: the root model itself or a
    /// top-level model of the world, or (with nested models on) one nested in those.
    fn publishes_model(&self, m: &ModelInfo, models: &[ModelInfo]) -> bool {
        if !self.on_world && m.id == self.root {
            return true;
        }
        let top = if self.on_world {
            m.parent == EntityId::WORLD
        } else {
            false
        };
        if top {
            return true;
        }
        if !self.config.publish_nested_model_pose {
            return false;
        }
        // Walk up to the root (bounded by the depth of the tree).
        let mut parent = m.parent;
        for _ in 0..models.len() {
            if parent == self.root {
                return true;
            }
            match models.iter().find(|p| p.id == parent) {
                Some(p) => parent = p.parent,
                None => return false,
            }
        }
        false
    }

    /// Rebuilds the list of published entities when the set of models changed.
    fn refresh(&mut self, world: &WorldRef<'_>) {
        let mut models = std::mem::take(&mut self.models_buf);
        world.models(&mut models);
        let ids: Vec<EntityId> = models.iter().map(|m| m.id).collect();
        if ids == self.models_seen && !self.models_seen.is_empty() {
            self.models_buf = models;
            return;
        }
        let published: Vec<EntityId> = models
            .iter()
            .filter(|m| self.publishes_model(m, &models))
            .map(|m| m.id)
            .collect();
        let mut targets = Vec::new();
        if self.config.publish_model_pose {
            targets.extend(published.iter().copied());
        }
        if self.config.publish_link_pose {
            let last_model = ids.iter().map(|i| i.0).max().unwrap_or(1);
            targets.extend(links_of(world, &published, last_model));
        }
        self.names = targets
            .iter()
            .map(|id| SharedStr::from(world.scoped_name_of(*id).unwrap_or_default()))
            .collect();
        self.states = vec![KinematicState::default(); targets.len()];
        self.targets = targets;
        self.models_seen = ids;
        self.models_buf = models;
    }
}

/// The links whose parent is one of `models`, in id order. The view has no query for the
/// children of an entity, so the ids are scanned: up to the last model, and past it until
/// [`SCAN_GAP`] unknown ids in a row (ids are never reused and are given out in order).
fn links_of(world: &WorldRef<'_>, models: &[EntityId], last_model: u64) -> Vec<EntityId> {
    let mut out = Vec::new();
    let mut gap = 0;
    let mut id = 2;
    while id <= last_model || gap < SCAN_GAP {
        match world.entity_info(EntityId(id)).into_option() {
            Some(info) => {
                gap = 0;
                if info.kind == EntityKind::LINK && models.contains(&info.parent) {
                    out.push(EntityId(id));
                }
            }
            None => gap += 1,
        }
        id += 1;
    }
    out
}

impl System for TruthWidget {
    fn services(&self) -> Vec<String> {
        if self.on_world {
            vec![self.set_pose_service.clone()]
        } else {
            Vec::new()
        }
    }

    fn post_step(
        &mut self,
        ctx: &StepContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        if !self.publish.due(self.config.period_ns(), ctx) {
            return Ok(());
        }
        self.refresh(world);
        world.kinematics(
            RSlice::from_slice(&self.targets),
            RSliceMut::from_mut_slice(&mut self.states),
        );
        let poses: RVec<NamedPose> = self
            .names
            .iter()
            .zip(&self.states)
            .map(|(name, s)| NamedPose {
                name: name.clone(),
                pose: s.pose,
            })
            .collect();
        out.publish(self.topic.clone(), Payload::PoseList(RBox::new(poses)));
        Ok(())
    }

    fn call(
        &mut self,
        service: &str,
        request: &Message,
        world: &WorldRef<'_>,
        commands: &mut CommandsMut<'_>,
    ) -> Result<Message, PluginError> {
        if service != self.set_pose_service {
            return Err(PluginError::new(
                ErrorCode::NOT_FOUND,
                format!("no service `{service}`"),
            ));
        }
        let Ok(Payload::Pose(p)) = request.payload.as_enum() else {
            return Err(PluginError::new(
                ErrorCode::BAD_REQUEST,
                format!(
                    "{service} takes a Pose {{name, pose}}, got {}",
                    request
                        .payload
                        .as_enum()
                        .map(|p| p.type_name())
                        .unwrap_or("an unknown payload")
                ),
            ));
        };
        let name = p.name.as_str();
        let id = world.entity_by_name(name.into());
        let kind = world.entity_info(id).into_option().map(|i| i.kind);
        match kind {
            Some(EntityKind::MODEL | EntityKind::LINK) => {}
            Some(k) => {
                return Err(PluginError::new(
                    ErrorCode::BAD_REQUEST,
                    format!("{service}: `{name}` is a {}, not a model or link", k.name()),
                ));
            }
            None => {
                return Err(PluginError::new(
                    ErrorCode::BAD_REQUEST,
                    format!("{service}: no model `{name}`"),
                ));
            }
        }
        let mut pose = p.pose;
        if let Some(problem) = pose_problem(&pose) {
            return Err(PluginError::new(
                ErrorCode::BAD_REQUEST,
                format!("{service}: the pose of `{name}` is refused: {problem}"),
            ));
        }
        let q = pose.orientation;
        pose.orientation = q.normalized();
        commands.set_pose(id, pose);
        Ok(Message::new("", Payload::Boolean(true)))
    }

    fn reset(&mut self, _world: &WorldRef<'_>) -> Result<(), PluginError> {
        self.publish.reset();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::testing::{StaticWorld, system_config};
    use simcore_plugin_common::gz::{OrIdle, create};

    #[test]
    fn created_on_the_world_with_errors_naming_the_file_and_line() {
        let mut world = StaticWorld::default();
        world.set_entity(EntityId(4), EntityKind::LINK, EntityId::WORLD, "m::l");
        let create_on = |entity: EntityId, name: &str, sdf: &str| {
            let config = system_config("gz::sim::systems::PosePublisher", entity, name, sdf)
                .with_source("world.sdf", 5);
            world.with(|w| create::<TruthWidget>(&config, &w))
        };
        let Err(e) = create_on(
            EntityId::WORLD,
            "w",
            "<plugin>\n  <publish_link_pose>yes</publish_link_pose>\n</plugin>",
        ) else {
            panic!("a flag that is not a boolean is refused");
        };
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "w: gz::sim::systems::PosePublisher: <publish_link_pose> must be true, false, 1 or 0, \
             found \"yes\" at world.sdf:6"
        );
        let Err(e) = create_on(EntityId(4), "m::l", "") else {
            panic!("a pose publisher on a link is refused");
        };
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        let Ok(OrIdle::Active(t)) = create_on(EntityId::WORLD, "w", "") else {
            panic!("a pose publisher on the world is created");
        };
        assert_eq!(t.outputs(), [("pose/info".to_string(), "Pose_V")]);
        assert_eq!(t.services(), ["/world/static/set_pose"]);
    }
}
