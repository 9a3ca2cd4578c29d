//! Reading a sensor's SDF element.
//!
//! The engine hands a sensor plugin its whole `<sensor>` element as self-contained XML text.
//! The in-tree plugins parse it once, when the sensor is created, with [`parse_sensor_sdf`],
//! then read their type-specific element with a [`Reader`]: thin wrappers over the API's
//! typed reader ([`sim_plugin_api::sdf`], which third-party plugins use directly), whose
//! value rules they share, over the plugins' own roxmltree nodes. Its errors are
//! [`ErrorCode::INVALID_CONFIG`](sim_plugin_api::ErrorCode::INVALID_CONFIG) errors of the form
//! `model::link::sensor: <element> must be <what>, found "<text>"`.

use roxmltree::{Document, Node};
use sim_plugin_api::{PluginError, Vec3, sdf::FromSdf};

/// Parses the `<sensor>` element's text. Blank text gives `None` (a sensor configured with
/// defaults only); malformed XML is a configuration error naming `sensor` (the scoped name).
pub fn parse_sensor_sdf<'i>(
    sensor_sdf: &'i str,
    sensor: &str,
) -> Result<Option<Document<'i>>, PluginError> {
    if sensor_sdf.trim().is_empty() {
        return Ok(None);
    }
    Document::parse(sensor_sdf).map(Some).map_err(|e| {
        PluginError::config(format!(
            "{sensor}: the <sensor> element is not valid XML: {e}"
        ))
    })
}

/// Parses a `<plugin>` element's text (system plugins get their element the same way sensors
/// do). Blank text gives `None`; malformed XML is a configuration error naming `who`.
pub fn parse_plugin_sdf<'i>(sdf: &'i str, who: &str) -> Result<Option<Document<'i>>, PluginError> {
    if sdf.trim().is_empty() {
        return Ok(None);
    }
    Document::parse(sdf).map(Some).map_err(|e| {
        PluginError::config(format!("{who}: the <plugin> element is not valid XML: {e}"))
    })
}

/// The trimmed text of the child element `tag` of `root`, or `None` when it is absent (an
/// empty element gives `Some("")`).
pub fn text<'a>(root: Node<'a, '_>, tag: &str) -> Option<&'a str> {
    child(root, tag).map(|e| e.text().unwrap_or("").trim())
}

/// An SDF boolean: `true`, `false`, `1` or `0` (letter case ignored).
pub fn parse_bool(text: &str) -> Option<bool> {
    bool::from_text(text)
}

/// The first child element of `node` named `name`.
pub fn child<'a, 'i>(node: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
    node.children()
        .find(|c| c.is_element() && c.tag_name().name() == name)
}

/// The element reached from `node` by following the first child with each name in `path`
/// (`descend(sensor, &["navsat", "position_sensing"])`); `node` itself for an empty path.
pub fn descend<'a, 'i>(node: Node<'a, 'i>, path: &[&str]) -> Option<Node<'a, 'i>> {
    path.iter().try_fold(node, |n, name| child(n, name))
}

/// `path` as it is written in messages: `["navsat", "vertical"]` gives `<navsat><vertical>`.
pub fn element_path(path: &[&str]) -> String {
    path.iter().map(|p| format!("<{p}>")).collect()
}

/// A finite `f64`, surrounding whitespace allowed.
pub fn parse_f64(text: &str) -> Option<f64> {
    f64::from_text(text)
}

/// Reads values out of a sensor's SDF, with errors that name the sensor.
#[derive(Copy, Clone, Debug)]
pub struct Reader<'s> {
    sensor: &'s str,
}

impl<'s> Reader<'s> {
    /// A reader for the sensor with scoped name `sensor` (`model::link::sensor`).
    pub fn new(sensor: &'s str) -> Self {
        Reader { sensor }
    }

    /// The sensor's scoped name.
    pub fn sensor(&self) -> &'s str {
        self.sensor
    }

    /// The configuration error `<sensor>: <element> must be <expected>, found "<found>"`.
    pub fn error(&self, element: &str, expected: &str, found: &str) -> PluginError {
        PluginError::config(format!(
            "{}: {element} must be {expected}, found \"{}\"",
            self.sensor,
            found.trim()
        ))
    }

    /// The boolean in the child element `tag` of `root`, or `None` when it is absent. Text
    /// other than `true`, `false`, `1`, `0` is an error.
    pub fn boolean(&self, root: Node<'_, '_>, tag: &str) -> Result<Option<bool>, PluginError> {
        match text(root, tag) {
            None => Ok(None),
            Some(t) => parse_bool(t)
                .map(Some)
                .ok_or_else(|| self.error(&format!("<{tag}>"), &bool::expected(), t)),
        }
    }

    /// The `<visibility_mask>` child of `holder` (a sensor's `<camera>`, `<lidar>` or `<ray>`,
    /// named `holder` in messages): an unsigned 32-bit number, decimal or `0x` hexadecimal
    /// ([`parse_visibility_bits`](sim_plugin_api::parse_visibility_bits)), every bit
    /// ([`ALL_VISIBLE`](sim_plugin_api::ALL_VISIBLE)) when absent or empty.
    pub fn visibility_mask(&self, element: Node<'_, '_>, holder: &str) -> Result<u32, PluginError> {
        match text(element, "visibility_mask").map(str::trim) {
            None | Some("") => Ok(sim_plugin_api::ALL_VISIBLE),
            Some(t) => sim_plugin_api::parse_visibility_bits(t).ok_or_else(|| {
                self.error(
                    &format!("<{holder}><visibility_mask>"),
                    "an unsigned 32-bit number (0 to 4294967295)",
                    t,
                )
            }),
        }
    }

    /// The three numbers (`x y z`) in the child element `tag` of `root`, or `None` when it is
    /// absent. Anything but three finite numbers is an error.
    pub fn vector(&self, root: Node<'_, '_>, tag: &str) -> Result<Option<Vec3>, PluginError> {
        let Some(t) = text(root, tag) else {
            return Ok(None);
        };
        Vec3::from_text(t)
            .map(Some)
            .ok_or_else(|| self.error(&format!("<{tag}>"), &Vec3::expected(), t))
    }

    /// The number in the element at `path` below `root` (usually the `<sensor>` element), or
    /// `None` when the element is absent. Text that is not a finite number is an error.
    pub fn number(&self, root: Node<'_, '_>, path: &[&str]) -> Result<Option<f64>, PluginError> {
        let Some(e) = descend(root, path) else {
            return Ok(None);
        };
        let text = e.text().unwrap_or("");
        parse_f64(text)
            .map(Some)
            .ok_or_else(|| self.error(&element_path(path), "a finite number", text))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::ErrorCode;

    #[test]
    fn vectors() {
        let doc = parse_sensor_sdf("<p><a>1 2 -3.5</a><b>1 2</b><c>1 x 3</c></p>", "m")
            .unwrap()
            .unwrap();
        let r = Reader::new("m: P");
        let root = doc.root_element();
        assert_eq!(
            r.vector(root, "a").unwrap(),
            Some(Vec3::new(1.0, 2.0, -3.5))
        );
        assert_eq!(r.vector(root, "none").unwrap(), None);
        for tag in ["b", "c"] {
            assert!(
                r.vector(root, tag)
                    .unwrap_err()
                    .message
                    .contains("three numbers")
            );
        }
    }

    #[test]
    fn parse_and_descend() {
        assert!(parse_sensor_sdf("  \n", "m::l::s").unwrap().is_none());
        let doc = parse_sensor_sdf(
            "<sensor><a><b>1.5</b><b>2</b></a><c> nope </c></sensor>",
            "m::l::s",
        )
        .unwrap()
        .unwrap();
        let root = doc.root_element();
        assert_eq!(descend(root, &[]), Some(root));
        assert_eq!(descend(root, &["a", "b"]).unwrap().text(), Some("1.5"));
        assert!(descend(root, &["a", "x"]).is_none());
        let r = Reader::new("m::l::s");
        assert_eq!(r.number(root, &["a", "b"]).unwrap(), Some(1.5));
        assert_eq!(r.number(root, &["z"]).unwrap(), None);
        let e = r.number(root, &["c"]).unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "m::l::s: <c> must be a finite number, found \"nope\""
        );
    }

    #[test]
    fn malformed_xml_names_the_sensor() {
        let e = parse_sensor_sdf("<sensor><a></sensor>", "m::l::s").unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert!(
            e.message
                .starts_with("m::l::s: the <sensor> element is not valid XML")
        );
    }

    #[test]
    fn scalars() {
        assert_eq!(parse_f64(" 1e3 "), Some(1000.0));
        assert_eq!(parse_f64("inf"), None);
        assert_eq!(parse_f64("NaN"), None);
        assert_eq!(element_path(&["a", "b"]), "<a><b>");
    }
}
