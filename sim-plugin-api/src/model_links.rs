//! The `simcore.model_links.v1` extension: the links of a model, by name and id, so that a
//! system can find the link to push (`Commands::apply_wrench` acts on links) without
//! guessing scoped names.
//!
//! ```
//! # use sim_plugin_api::{testing::StaticWorld, EntityId};
//! # let world = StaticWorld::default();
//! # world.with(|world| {
//! # let model = EntityId(1);
//! match world.links_of(model) {
//!     Some(links) => {
//!         for (name, id) in links {
//!             // e.g. ("chassis", EntityId(4)): its own name, and its id.
//!             let _ = (name, id);
//!         }
//!     }
//!     None => { /* an engine without the extension: look links up by scoped name */ }
//! }
//! # });
//! ```
//!
//! An engine appends methods to [`ModelLinks`] only after its last one, so a plugin built
//! against this version keeps working with later engines.

use crate::{EntityId, SharedStr};
use abi_stable::{RRef, StableAbi, sabi_trait, std_types::RVec};

/// The name under which the engine offers [`ModelLinks`].
pub const MODEL_LINKS_EXTENSION: &str = "simcore.model_links.v1";

/// One link of a model.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct LinkEntry {
    /// The link's own name (`<link name>`).
    pub name: SharedStr,
    /// Its id.
    pub id: EntityId,
}

/// The links of models (see the [module docs](self)).
#[sabi_trait]
pub trait ModelLinks: Send + Sync {
    /// Fills `out` with the links of `model`, in the order the model declares them (its
    /// nested models' links not included); returns false (and leaves `out` empty) when
    /// `model` is not a model.
    #[sabi(last_prefix_field)]
    fn links_of(&self, model: EntityId, out: &mut RVec<LinkEntry>) -> bool;
}

/// The links extension as plugins receive it.
pub type ModelLinksRef<'a> = ModelLinks_TO<'a, RRef<'a, ()>>;

impl<'w> crate::WorldRef<'w> {
    /// The [`MODEL_LINKS_EXTENSION`] of this world, or `None` when the engine does not offer
    /// it (or offers an incompatible version).
    pub fn model_links(&self) -> Option<&ModelLinksRef<'_>> {
        self.extension(MODEL_LINKS_EXTENSION.into())
            .into_option()
            .and_then(|e| e.get::<ModelLinksRef<'_>>())
    }

    /// The links of `model` as (own name, id), in declaration order: `Some(empty)` for a
    /// model without links, `None` when `model` is not a model or the engine lacks the
    /// extension.
    pub fn links_of(&self, model: EntityId) -> Option<Vec<(String, EntityId)>> {
        let ext = self.model_links()?;
        let mut out = RVec::new();
        if !ext.links_of(model, &mut out) {
            return None;
        }
        Some(
            out.into_iter()
                .map(|l| (l.name.as_str().to_string(), l.id))
                .collect(),
        )
    }
}
