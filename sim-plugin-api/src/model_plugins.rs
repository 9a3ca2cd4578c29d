//! Reading other models' `<plugin>` elements: the `simcore.model_plugins.v1` extension of
//! [`WorldView`](crate::WorldView). See [`ModelPlugins`].

use crate::{EntityId, WorldRef};
use abi_stable::{
    StableAbi,
    std_types::{RHashMap, RString, RVec},
};

/// The name under which [`WorldView::extension`](crate::WorldView::extension) hands out the
/// [`ModelPlugins`] table.
pub const MODEL_PLUGINS_EXTENSION: &str = "simcore.model_plugins.v1";

/// One `<plugin>` element of a model.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default, PartialEq)]
pub struct PluginElement {
    /// `name`.
    pub name: RString,
    /// `filename`.
    pub filename: RString,
    /// The whole element as self-contained XML text.
    pub sdf: RString,
}

/// Reading other models' `<plugin>` elements: the `simcore.model_plugins.v1` extension of
/// [`WorldView`](crate::WorldView).
///
/// A plugin gets its own `<plugin>` element in its configuration, but some data are
/// annotations on *other* models: a fiducial id, a team, a label. Through
/// [`WorldView::extension`](crate::WorldView::extension) under [`MODEL_PLUGINS_EXTENSION`]
/// the engine hands out its [`ModelPlugins`] table: the `<plugin>` elements declared
/// directly in each model (loaded with the world or created later):
///
/// ```ignore
/// if let Some(table) = sim_plugin_api::model_plugins(&world) {
///     for p in table.of(model_id).unwrap_or_default() {
///         /* p.name, p.filename, p.sdf (the element as XML text) */
///     }
/// }
/// ```
///
/// The engine keeps it up to date as models are created and removed.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, Default)]
pub struct ModelPlugins {
    models: RHashMap<EntityId, RVec<PluginElement>>,
}

impl ModelPlugins {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// The `<plugin>` elements declared directly in `model` (not in its nested models), in
    /// document order; `None` when `model` is not a model of the world.
    pub fn of(&self, model: EntityId) -> Option<&[PluginElement]> {
        self.models.get(&model).map(|v| v.as_slice())
    }

    /// Records the elements of a model (engine side).
    pub fn insert(&mut self, model: EntityId, plugins: RVec<PluginElement>) {
        self.models.insert(model, plugins);
    }

    /// Forgets a removed model (engine side).
    pub fn remove(&mut self, model: EntityId) {
        self.models.remove(&model);
    }
}

/// The engine's [`ModelPlugins`], or `None` when the engine does not offer it.
pub fn model_plugins<'w>(world: &'w WorldRef<'_>) -> Option<&'w ModelPlugins> {
    world
        .extension(MODEL_PLUGINS_EXTENSION.into())
        .into_option()
        .and_then(|e| e.get::<ModelPlugins>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Extension;

    #[test]
    fn table_through_an_extension() {
        let mut t = ModelPlugins::new();
        let e = PluginElement {
            name: "m".into(),
            filename: "lib".into(),
            sdf: "<plugin name='m'/>".into(),
        };
        t.insert(EntityId(5), RVec::from(vec![e.clone()]));
        t.insert(EntityId(6), RVec::new());
        let ext = Extension::new(&t);
        let back = ext.get::<ModelPlugins>().expect("same type");
        assert_eq!(back.of(EntityId(5)), Some(&[e][..]));
        assert_eq!(back.of(EntityId(6)), Some(&[][..]));
        assert_eq!(back.of(EntityId(7)), None);
        assert!(ext.get::<PluginElement>().is_none());
        t.remove(EntityId(5));
        assert_eq!(t.of(EntityId(5)), None);
    }
}
