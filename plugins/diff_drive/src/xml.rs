//! Small readers of the `<plugin>` element, on top of the shared SDF helpers.

use sim_plugin_api::PluginError;
use simcore_plugin_common::{
    descend,
    roxmltree::{Document, Node},
};

/// Parses the `<plugin>` element's text. Blank text gives `None`; malformed XML is a
/// configuration error naming `who`.
pub fn parse_plugin_sdf<'i>(sdf: &'i str, who: &str) -> Result<Option<Document<'i>>, PluginError> {
    if sdf.trim().is_empty() {
        return Ok(None);
    }
    Document::parse(sdf).map(Some).map_err(|e| {
        PluginError::config(format!("{who}: the <plugin> element is not valid XML: {e}"))
    })
}

/// The trimmed text of the child element `tag` of `root`, or `None` when it is absent (an empty
/// element gives `Some("")`).
pub fn text<'a>(root: Node<'a, '_>, tag: &str) -> Option<&'a str> {
    descend(root, &[tag]).map(|e| e.text().unwrap_or("").trim())
}
