//! Reading a plugin's SDF element: the in-tree plugins use the API's typed access
//! ([`sim_plugin_api::sdf`]), as third-party plugins do, with a few helpers of their own.
//!
//! A sensor parses its `<sensor>` element with [`SensorConfig::parse_sdf`]; a system parses
//! its `<plugin>` element with [`plugin_document`], which names the system in messages the way
//! gz-sim's systems are named in simcore's (`rover: JointController`). Either way every error
//! is an [`SdfError`] naming the owner, the element, what it must be, the text found and the
//! place in the world file; it converts into an
//! [`ErrorCode::INVALID_CONFIG`](sim_plugin_api::ErrorCode::INVALID_CONFIG) [`PluginError`].
//!
//! [`SensorConfig::parse_sdf`]: sim_plugin_api::SensorConfig::parse_sdf

use sim_plugin_api::sdf::{Element, Origin, SdfDocument, SdfError};
use sim_plugin_api::{PluginError, SystemConfig};

/// `config`'s `<plugin>` element, parsed; its messages name `who` (the model and the system,
/// `rover: JointController`) and the place the engine gave.
pub fn plugin_document<'a>(
    config: &SystemConfig<'a>,
    who: &'a str,
) -> Result<SdfDocument<'a>, PluginError> {
    let origin = Origin {
        owner: who,
        ..config.origin()
    };
    Ok(SdfDocument::parse(config.sdf.as_str(), origin)?)
}

/// The owner an element's messages name (a sensor's scoped name, a system's `who`).
pub fn owner<'a>(element: &Element<'a, '_>) -> &'a str {
    element.document().origin().owner
}

/// ` at file:line` of `element`, or nothing when its place is unknown: the tail of a message
/// of a plugin's own about it.
pub fn at(element: &Element<'_, '_>) -> String {
    element
        .place()
        .map(|p| format!(" at {p}"))
        .unwrap_or_default()
}

/// The `<visibility_mask>` child of `holder` (a sensor's `<camera>`, `<lidar>` or `<ray>`): an
/// unsigned 32-bit number, decimal or `0x` hexadecimal
/// ([`parse_visibility_bits`](sim_plugin_api::parse_visibility_bits)), every bit
/// ([`ALL_VISIBLE`](sim_plugin_api::ALL_VISIBLE)) when absent or empty.
pub fn visibility_mask(holder: &Element<'_, '_>) -> Result<u32, SdfError> {
    match holder.child("visibility_mask") {
        None => Ok(sim_plugin_api::ALL_VISIBLE),
        Some(e) if e.text().is_empty() => Ok(sim_plugin_api::ALL_VISIBLE),
        Some(e) => sim_plugin_api::parse_visibility_bits(e.text())
            .ok_or_else(|| e.error("an unsigned 32-bit number (0 to 4294967295)", e.text())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::{EntityId, ErrorCode, testing};

    #[test]
    fn a_system_document_names_the_system_and_its_place() {
        let config = testing::system_config(
            "gz::sim::systems::JointController",
            EntityId(1),
            "rover",
            "<plugin name=\"j\" filename=\"f\">\n  <p_gain>x</p_gain>\n</plugin>",
        )
        .with_source("world.sdf", 10);
        let doc = plugin_document(&config, "rover: JointController").unwrap();
        let gain = doc.root().child("p_gain").unwrap();
        assert_eq!(owner(&gain), "rover: JointController");
        assert_eq!(at(&gain), " at world.sdf:11");
        let e = PluginError::from(doc.root().require::<f64>("p_gain").unwrap_err());
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "rover: JointController: <p_gain> must be a finite number, found \"x\" at world.sdf:11"
        );
        let bad = testing::system_config("s", EntityId(1), "rover", "<plugin><a></plugin>");
        assert!(
            plugin_document(&bad, "rover: S")
                .unwrap_err()
                .message
                .starts_with("rover: S: the element is not valid XML")
        );
    }

    #[test]
    fn visibility_masks() {
        let doc = SdfDocument::parse(
            "<sensor><camera><visibility_mask>0x10</visibility_mask></camera>\
             <lidar><visibility_mask> </visibility_mask></lidar><ray/>\
             <gpu_ray><visibility_mask>-1</visibility_mask></gpu_ray></sensor>",
            Origin::new("m::l::s"),
        )
        .unwrap();
        let holder = |name: &str| doc.root().child(name).unwrap();
        assert_eq!(visibility_mask(&holder("camera")).unwrap(), 0x10);
        assert_eq!(visibility_mask(&holder("lidar")).unwrap(), u32::MAX);
        assert_eq!(visibility_mask(&holder("ray")).unwrap(), u32::MAX);
        assert_eq!(
            visibility_mask(&holder("gpu_ray")).unwrap_err().to_string(),
            "m::l::s: <gpu_ray><visibility_mask> must be an unsigned 32-bit number (0 to 4294967295), found \"-1\""
        );
    }
}
