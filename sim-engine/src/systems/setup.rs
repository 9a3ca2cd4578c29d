//! What the engine settles about a `<plugin>` before creating its system: its entity, names,
//! element, seed and the namespace of its relative topics.

use crate::sensors::derive_seed;
use sim_plugin_api::EntityId;
use sim_world::{PluginSpec, Span};

/// Everything resolved about one `<plugin>` before creating it.
#[derive(Clone, Debug, PartialEq)]
pub struct SystemSetup {
    /// The entity it is attached to (world, model or sensor).
    pub entity: EntityId,
    /// That entity's scoped name.
    pub entity_name: String,
    /// `<plugin name>`.
    pub name: String,
    /// `<plugin filename>`.
    pub filename: String,
    /// The `<plugin>` element text.
    pub sdf: String,
    /// Where it is.
    pub span: Span,
    /// Seed of its random streams.
    pub seed: u64,
    /// Prefix of its relative topics (`/world/<w>` or `/model/<m>`).
    pub namespace: String,
    /// The topics its `post_step` publishes on, when publishing on them is all that hook
    /// does: the engine then runs the hook only while one of them has a subscriber (empty:
    /// always). The engine sets it for the truth widget it adds itself for the world's
    /// `set_pose` service, whose pose lists are a by-product nobody asked for.
    pub post_step_serves: Vec<String>,
}

impl SystemSetup {
    /// How warnings and reports name it: `plugin NAME (on ENTITY)`.
    pub fn who(&self) -> String {
        format!("plugin {} (on {})", self.name, self.entity_name)
    }

    /// The setup of `<plugin>` `p` attached to `entity` (scoped name `entity_name`), its
    /// relative topics under `namespace` and its seed derived from `run_seed` and
    /// `entity_name::plugin::NAME`.
    pub fn plan(
        p: &PluginSpec,
        entity: EntityId,
        entity_name: &str,
        namespace: &str,
        run_seed: u64,
    ) -> Self {
        SystemSetup {
            entity,
            entity_name: entity_name.to_string(),
            name: p.name.clone(),
            filename: p.filename.clone(),
            sdf: p.sdf.clone(),
            span: p.span.clone(),
            seed: derive_seed(run_seed, &format!("{entity_name}::plugin::{}", p.name)),
            namespace: namespace.to_string(),
            post_step_serves: Vec::new(),
        }
    }
}
