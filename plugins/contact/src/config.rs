//! Reading the `<contact>` element of a `<sensor type="contact">`.

use sim_plugin_api::PluginError;
use simcore_plugin_common::{Reader, child, parse_sensor_sdf};

/// The parsed `<contact>` element.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ContactConfig {
    /// The `<collision>` names, in order, each the name of a collision of the sensor's link
    /// (its own name, not scoped). Repeated names are kept once.
    pub collisions: Vec<String>,
}

impl ContactConfig {
    /// Parses the `<contact>` child of a `<sensor>` element given as XML text. `sensor` (the
    /// scoped name) is used in error messages. A sensor without `<contact>`, or without any
    /// `<collision>` in it, has no collisions (it reports nothing, as in gz-sim); an empty
    /// `<collision>` is a configuration error.
    pub fn parse(sensor_sdf: &str, sensor: &str) -> Result<ContactConfig, PluginError> {
        let r = Reader::new(sensor);
        let Some(doc) = parse_sensor_sdf(sensor_sdf, sensor)? else {
            return Ok(ContactConfig::default());
        };
        let Some(contact) = child(doc.root_element(), "contact") else {
            return Ok(ContactConfig::default());
        };
        let mut collisions: Vec<String> = Vec::new();
        for c in contact
            .children()
            .filter(|c| c.is_element() && c.tag_name().name() == "collision")
        {
            let name = c.text().unwrap_or("").trim();
            if name.is_empty() {
                return Err(r.error("<contact><collision>", "the name of a collision", name));
            }
            if !collisions.iter().any(|n| n == name) {
                collisions.push(name.to_string());
            }
        }
        Ok(ContactConfig { collisions })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAME: &str = "box::body::bumper";

    #[test]
    fn collisions_in_order_once_each() {
        let c = ContactConfig::parse(
            "<sensor name='bumper' type='contact'><contact>\
               <collision> front </collision><collision>back</collision><collision>front</collision>\
             </contact></sensor>",
            NAME,
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
            let c = ContactConfig::parse(sdf, NAME).unwrap();
            assert!(c.collisions.is_empty(), "{sdf}");
        }
    }

    #[test]
    fn errors() {
        let e = ContactConfig::parse("<sensor><contact><collision/></contact></sensor>", NAME)
            .unwrap_err();
        assert_eq!(
            e.message.as_str(),
            "box::body::bumper: <contact><collision> must be the name of a collision, found \"\""
        );
        let e = ContactConfig::parse("<sensor><contact></sensor>", NAME).unwrap_err();
        assert!(e.message.starts_with(NAME));
    }
}
