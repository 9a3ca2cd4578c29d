//! Where a `<plugin name="...">` is served from: the run manifest's `[plugins]` entries.

use serde::Deserialize;

/// Where a `<plugin name="...">` is served from, by the manifest's `[plugins]` table.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum PluginRoute {
    /// The library (by bare name); its system factory serving the plugin's name, else its
    /// first system factory.
    Library(String),
    /// The library and the name of the factory in it.
    Factory {
        /// The library (by bare name).
        library: String,
        /// The name the factory serves.
        name: String,
    },
}

impl PluginRoute {
    /// The library named.
    pub fn library(&self) -> &str {
        match self {
            PluginRoute::Library(l) | PluginRoute::Factory { library: l, .. } => l,
        }
    }

    /// The factory name, if one is given.
    pub fn factory(&self) -> Option<&str> {
        match self {
            PluginRoute::Library(_) => None,
            PluginRoute::Factory { name, .. } => Some(name),
        }
    }
}
