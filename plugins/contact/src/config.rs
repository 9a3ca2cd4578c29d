//! Reading the `<contact>` element of a `<sensor type="contact">`.
//!
//! Read once, when the sensor is created, from its parsed `<sensor>` element
//! ([`SensorConfig::parse_sdf`](sim_plugin_api::SensorConfig::parse_sdf)). Invalid values are
//! configuration errors whose message names the sensor's scoped name, the element, the text
//! found there and, when known, its place in the world file.

use sim_plugin_api::{PluginError, sdf::Element};

/// The parsed `<contact>` element.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContactConfig {
    /// The `<collision>` names, in order, each the name of a collision of the sensor's link
    /// (its own name, not scoped). Repeated names are kept once.
    pub collisions: Vec<String>,
}

impl ContactConfig {
    /// Reads the `<contact>` child of `sensor` (the `<sensor>` element). A sensor without
    /// `<contact>`, or without any `<collision>` in it, has no collisions (it reports nothing,
    /// as in gz-sim); an empty `<collision>` is a configuration error.
    pub fn read(sensor: &Element<'_, '_>) -> Result<ContactConfig, PluginError> {
        let mut collisions: Vec<String> = Vec::new();
        for c in collision_elements(sensor) {
            let name = c.text();
            if name.is_empty() {
                return Err(c.error("the name of a collision", name).into());
            }
            if !collisions.iter().any(|n| n == name) {
                collisions.push(name.to_string());
            }
        }
        Ok(ContactConfig { collisions })
    }
}

/// The `<contact><collision>` elements of `sensor` (the `<sensor>` element), in order.
pub(crate) fn collision_elements<'a, 't>(
    sensor: &Element<'a, 't>,
) -> impl Iterator<Item = Element<'a, 't>> {
    sensor
        .child("contact")
        .into_iter()
        .flat_map(|contact| contact.children_named("collision"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::{
        EntityId,
        sdf::{Origin, SdfDocument},
        testing::sensor_config,
    };

    const NAME: &str = "box::body::bumper";

    fn parse(text: &str) -> Result<ContactConfig, PluginError> {
        let doc = SdfDocument::parse(text, Origin::new(NAME))?;
        ContactConfig::read(&doc.root())
    }

    #[test]
    fn collisions_in_order_once_each() {
        let c = parse(
            "<sensor name='bumper' type='contact'><contact>\
               <collision> front </collision><collision>back</collision><collision>front</collision>\
             </contact></sensor>",
        )
        .unwrap();
        assert_eq!(c.collisions, ["front", "back"]);
    }

    #[test]
    fn no_collision_is_no_collisions() {
        for sdf in [
            "",
            "<sensor name='bumper' type='contact'/>",
            "<sensor><contact/></sensor>",
        ] {
            let c = parse(sdf).unwrap();
            assert!(c.collisions.is_empty(), "{sdf}");
        }
    }

    #[test]
    fn errors() {
        let e = parse("<sensor><contact><collision/></contact></sensor>").unwrap_err();
        assert_eq!(
            e.message.as_str(),
            "box::body::bumper: <contact><collision> must be the name of a collision, found \"\""
        );
        let e = parse("<sensor><contact></sensor>").unwrap_err();
        assert!(e.message.starts_with(NAME));
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let text = "<sensor name='bumper' type='contact'>\n  <contact>\n    \
                    <collision>front</collision>\n    <collision> </collision>\n  </contact>\n</sensor>";
        let config = sensor_config(NAME, "contact", EntityId(2), text).with_source("world.sdf", 40);
        let doc = config.parse_sdf().unwrap();
        let e = ContactConfig::read(&doc.root()).unwrap_err();
        assert_eq!(
            e.message.as_str(),
            "box::body::bumper: <contact><collision> must be the name of a collision, found \"\" at world.sdf:43"
        );
    }
}
