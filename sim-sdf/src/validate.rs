//! Checks libsdformat makes on elements this reader does not otherwise use, so that a file
//! libsdformat refuses is refused here too, with every such problem of the file reported:
//!
//! * typed values of the SDF schema that the readers of elements do not check themselves
//!   (surface friction and contact parameters, velocity decay, sensor noise, camera clip
//!   planes, scene fog...):
//!   a value that is not a number (or boolean) is an error, and so is one outside the range
//!   the schema gives it (e.g. `<mu>` at least 0, `<restitution_coefficient>` from 0 to 1);
//! * `<material><script>` of a visual without a non-empty `<uri>` and `<name>` (the old
//!   `<script>Gazebo/Grey</script>` form);
//! * the `<image><format>` of a camera sensor naming no known pixel format.
//!
//! It also warns, without failing the load, about a child element in SDF's own namespace that
//! SDF does not define for a world, model, link, collision, visual, joint or geometry (as
//! libsdformat's default policy does; the element is ignored).
//!
//! The walk covers the SDF elements of one document; `<plugin>` contents, a world's `<state>`
//! and namespaced elements are skipped. Each rule names the element by the tags of its
//! nearest ancestors, which in SDF identify it without ambiguity.

use roxmltree::Node;

use super::error::{ErrorKind, SdfError};
use super::reader::{Reader, is_sdf_element, tag};
use super::schema::KNOWN_CHILDREN;
use super::text::parse_bool;

/// The type of a value element, with the range the schema gives a number.
#[derive(Clone, Copy)]
enum Ty {
    /// A real number in `[min, max]` (None: unbounded on that side).
    Double(Option<f64>, Option<f64>),
    /// `true`, `false`, `1` or `0`.
    Bool,
    /// A whole number in `[min, max]`.
    Whole(u64, u64),
}

/// A value element: the tags from an ancestor down to the element, and its type.
struct Rule {
    path: &'static [&'static str],
    ty: Ty,
    /// The rule does not apply when the element above `path` has one of these tags.
    not_under: &'static [&'static str],
}

const fn double(path: &'static [&'static str]) -> Rule {
    Rule {
        path,
        ty: Ty::Double(None, None),
        not_under: &[],
    }
}

const fn at_least(path: &'static [&'static str], min: f64) -> Rule {
    Rule {
        path,
        ty: Ty::Double(Some(min), None),
        not_under: &[],
    }
}

const fn within(path: &'static [&'static str], min: f64, max: f64) -> Rule {
    Rule {
        path,
        ty: Ty::Double(Some(min), Some(max)),
        not_under: &[],
    }
}

const fn whole(path: &'static [&'static str], min: u64, max: u64) -> Rule {
    Rule {
        path,
        ty: Ty::Whole(min, max),
        not_under: &[],
    }
}

const fn boolean(path: &'static [&'static str]) -> Rule {
    Rule {
        path,
        ty: Ty::Bool,
        not_under: &[],
    }
}

/// The largest `<lens><cutoff_angle>` of the specification: written as 3.141592653, a little
/// under π, and kept exactly so.
#[allow(clippy::approx_constant)]
const LENS_CUTOFF_MAX: f64 = 3.141592653;

/// The largest side of a camera image (the camera plugins' limit).
const CAMERA_MAX_SIDE: u64 = 16384;

/// The value elements checked, with the ranges of the SDF specification.
const RULES: &[Rule] = &[
    // <link><velocity_decay>
    double(&["velocity_decay", "linear"]),
    double(&["velocity_decay", "angular"]),
    // <collision><surface>
    within(&["bounce", "restitution_coefficient"], 0.0, 1.0),
    double(&["bounce", "threshold"]),
    at_least(&["torsional", "coefficient"], 0.0),
    boolean(&["torsional", "use_patch_radius"]),
    at_least(&["torsional", "patch_radius"], 0.0),
    at_least(&["torsional", "surface_radius"], 0.0),
    double(&["torsional", "ode", "slip"]),
    at_least(&["friction", "ode", "mu"], 0.0),
    at_least(&["friction", "ode", "mu2"], 0.0),
    double(&["friction", "ode", "slip1"]),
    double(&["friction", "ode", "slip2"]),
    at_least(&["friction", "bullet", "friction"], 0.0),
    at_least(&["friction", "bullet", "friction2"], 0.0),
    double(&["friction", "bullet", "rolling_friction"]),
    boolean(&["surface", "contact", "collide_without_contact"]),
    double(&["surface", "contact", "poissons_ratio"]),
    double(&["surface", "contact", "elastic_modulus"]),
    double(&["contact", "ode", "soft_cfm"]),
    double(&["contact", "ode", "soft_erp"]),
    double(&["contact", "ode", "kp"]),
    double(&["contact", "ode", "kd"]),
    double(&["contact", "ode", "max_vel"]),
    double(&["contact", "ode", "min_depth"]),
    double(&["contact", "bullet", "soft_cfm"]),
    double(&["contact", "bullet", "soft_erp"]),
    double(&["contact", "bullet", "kp"]),
    double(&["contact", "bullet", "kd"]),
    // <camera>
    within(&["camera", "horizontal_fov"], 0.1, 6.283186),
    at_least(&["camera", "clip", "near"], 0.0),
    at_least(&["camera", "clip", "far"], 0.1),
    at_least(&["depth_camera", "clip", "near"], 0.0),
    at_least(&["depth_camera", "clip", "far"], 0.1),
    within(&["lens", "cutoff_angle"], 0.0, LENS_CUTOFF_MAX),
    double(&["lens", "custom_function", "c1"]),
    double(&["lens", "custom_function", "c2"]),
    double(&["lens", "custom_function", "c3"]),
    double(&["lens", "custom_function", "f"]),
    boolean(&["lens", "scale_to_hfov"]),
    // The sizes the engine's cameras and lidars take (a camera's side, as the camera
    // plugins refuse larger ones; at least one sample).
    whole(&["camera", "image", "width"], 1, CAMERA_MAX_SIDE),
    whole(&["camera", "image", "height"], 1, CAMERA_MAX_SIDE),
    whole(&["scan", "horizontal", "samples"], 1, u32::MAX as u64),
    whole(&["scan", "vertical", "samples"], 1, u32::MAX as u64),
    // The shared noise model of IMUs, altimeters, magnetometers, GPS, air pressure and
    // force-torque sensors; cameras and lidars have their own noise element, without ranges.
    Rule {
        path: &["noise", "stddev"],
        ty: Ty::Double(Some(0.0), None),
        not_under: &["camera", "ray", "lidar"],
    },
    Rule {
        path: &["noise", "bias_stddev"],
        ty: Ty::Double(Some(0.0), None),
        not_under: &["camera", "ray", "lidar"],
    },
    Rule {
        path: &["noise", "dynamic_bias_stddev"],
        ty: Ty::Double(Some(0.0), None),
        not_under: &["camera", "ray", "lidar"],
    },
    // <world><scene>
    at_least(&["clouds", "speed"], 0.0),
    within(&["clouds", "direction"], 0.0, 3.1456),
    within(&["clouds", "humidity"], 0.0, 1.0),
    within(&["clouds", "mean_size"], 0.0, 1.0),
    at_least(&["fog", "start"], 0.0),
    at_least(&["fog", "end"], 0.0),
    at_least(&["fog", "density"], 0.0),
    // <particle_emitter>
    at_least(&["particle_emitter", "rate"], 0.0),
    at_least(&["particle_emitter", "min_velocity"], 0.0),
    at_least(&["particle_emitter", "max_velocity"], 0.0),
    at_least(&["particle_emitter", "scale_rate"], 0.0),
];

/// Sensor types whose `<camera>` libsdformat reads (and so whose pixel format it checks).
const CAMERA_SENSORS: &[&str] = &[
    "camera",
    "depth",
    "depth_camera",
    "rgbd",
    "rgbd_camera",
    "thermal",
    "thermal_camera",
    "segmentation",
    "segmentation_camera",
    "boundingbox",
    "boundingbox_camera",
    "wideanglecamera",
    "wide_angle_camera",
];

/// The pixel formats of a camera's `<image><format>`: the current names and the older ones
/// libsdformat still maps onto them.
const PIXEL_FORMATS: &[&str] = &[
    "L_INT8",
    "L_INT16",
    "RGB_INT8",
    "RGBA_INT8",
    "BGRA_INT8",
    "RGB_INT16",
    "RGB_INT32",
    "BGR_INT8",
    "BGR_INT16",
    "BGR_INT32",
    "R_FLOAT16",
    "RGB_FLOAT16",
    "R_FLOAT32",
    "RGB_FLOAT32",
    "BAYER_RGGB8",
    "BAYER_BGGR8",
    "BAYER_GBRG8",
    "BAYER_GRBG8",
    "R8G8B8",
    "L8",
    "L16",
    "B8G8R8",
];

impl Reader<'_> {
    /// Every problem of the checks above in the SDF elements below `root`, in document order.
    pub(super) fn validate(&self, root: Node) -> Vec<SdfError> {
        let mut problems = Vec::new();
        // An explicit stack: the depth of the document is not bounded.
        let mut stack: Vec<Node> = root
            .children()
            .filter(|c| is_sdf_element(*c))
            .collect::<Vec<_>>();
        stack.reverse();
        while let Some(node) = stack.pop() {
            // Plugin contents are not SDF; a world's <state> records entities with a schema of
            // its own.
            if matches!(tag(node), "plugin" | "state") {
                continue;
            }
            self.check_element(node, &mut problems);
            let before = stack.len();
            stack.extend(node.children().filter(|c| is_sdf_element(*c)));
            stack[before..].reverse();
        }
        problems
    }

    fn check_element(&self, node: Node, problems: &mut Vec<SdfError>) {
        let name = tag(node);
        self.warn_unknown_children(node);
        self.warn_deprecated(node);
        self.warn_unhonoured(node);
        if name == "script"
            && let Some(material) = node.parent_element()
            && tag(material) == "material"
        {
            self.check_script(node, problems);
            return;
        }
        if name == "shader" {
            self.check_shader(node, problems);
            return;
        }
        if name == "format" {
            self.check_pixel_format(node, problems);
            return;
        }
        let Some(rule) = RULES.iter().find(|r| matches(node, r)) else {
            return;
        };
        let text = self.text(node);
        let value = text.trimmed();
        if value.is_empty() {
            return;
        }
        match rule.ty {
            Ty::Bool => {
                if parse_bool(value).is_none() {
                    problems.push(self.error_at(
                        text.start(),
                        node,
                        ErrorKind::Invalid,
                        format!("<{name}> must be a boolean, found \"{value}\""),
                        "write true or false (1 and 0 are accepted too)",
                    ));
                }
            }
            Ty::Whole(min, max) => {
                if !value.parse::<u64>().is_ok_and(|v| (min..=max).contains(&v)) {
                    problems.push(self.error_at(
                        text.start(),
                        node,
                        ErrorKind::Invalid,
                        format!(
                            "<{name}> must be a whole number from {min} to {max}, found \"{value}\""
                        ),
                        format!("write a whole number from {min} to {max}"),
                    ));
                }
            }
            Ty::Double(min, max) => match value.parse::<f64>() {
                Err(_) => problems.push(self.error_at(
                    text.start(),
                    node,
                    ErrorKind::Invalid,
                    format!("<{name}> expects a number, found \"{value}\""),
                    "write a decimal number such as 0.5 or 1e-3",
                )),
                // NaN is in no range: it is refused wherever a range is checked.
                Ok(v) if v.is_nan() && (min.is_some() || max.is_some()) => {
                    problems.push(self.error_at(
                        text.start(),
                        node,
                        ErrorKind::Invalid,
                        format!("<{name}> must be a number, found \"{value}\""),
                        "write a decimal number such as 0.5 or 1e-3",
                    ))
                }
                Ok(v) => {
                    let low = min.is_some_and(|m| v < m);
                    let high = max.is_some_and(|m| v > m);
                    if low || high {
                        let range = match (min, max) {
                            (Some(a), Some(b)) => format!("from {a} to {b}"),
                            (Some(a), None) => format!("at least {a}"),
                            (None, Some(b)) => format!("at most {b}"),
                            (None, None) => String::new(),
                        };
                        problems.push(self.error_at(
                            text.start(),
                            node,
                            ErrorKind::Invalid,
                            format!("<{name}> must be {range}, found \"{value}\""),
                            format!("SDF allows values {range} here"),
                        ));
                    }
                }
            },
        }
    }

    /// Warns about each child of `node` in SDF's own namespace that SDF does not define there
    /// (see [`KNOWN_CHILDREN`]). Names with a `.` are undeclared prefixes (`gz:x` read as
    /// `gz.x`), i.e. namespaced, and not reported.
    fn warn_unknown_children(&self, node: Node) {
        let name = tag(node);
        let Some(&(_, parents, known)) = KNOWN_CHILDREN.iter().find(|(n, _, _)| *n == name) else {
            return;
        };
        let in_place = node
            .parent_element()
            .is_some_and(|p| parents.contains(&tag(p)));
        if !in_place {
            return;
        }
        for c in node.children().filter(|c| is_sdf_element(*c)) {
            let child = tag(c);
            if known.contains(&child) || child.contains('.') {
                continue;
            }
            self.loader.warn(self.error(
                c,
                ErrorKind::Invalid,
                format!("<{child}> is not an element of <{name}> in SDF; it is ignored"),
                format!(
                    "check the spelling (SDF defines {} here), or put a custom element in a namespace: <my:{child}> with xmlns:my=\"...\" on <sdf>",
                    known
                        .iter()
                        .map(|k| format!("<{k}>"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
    }

    /// `<material><shader type>`: a normal-map shader needs its `<normal_map>` (as
    /// libsdformat: ELEMENT_MISSING).
    fn check_shader(&self, node: Node, problems: &mut Vec<SdfError>) {
        let ty = node.attribute("type").map(str::trim).unwrap_or("");
        let needs_map = matches!(ty, "normal_map_object_space" | "normal_map_tangent_space");
        if needs_map && self.child(node, "normal_map").is_none() {
            problems.push(self.error(
                node,
                ErrorKind::Missing,
                format!("a <shader type=\"{ty}\"> needs a <normal_map>"),
                "name the normal map image: <normal_map>file.png</normal_map>, or use \
                 type=\"pixel\"",
            ));
        }
    }

    /// `<material><script>`: needs a non-empty `<uri>` and `<name>`.
    fn check_script(&self, node: Node, problems: &mut Vec<SdfError>) {
        let filled = |child: &str| {
            self.child_string(node, child)
                .is_some_and(|v| v != "__default__")
        };
        let inline = self.text(node).trimmed().to_string();
        let example = if inline.is_empty() {
            "Gazebo/Grey".to_string()
        } else {
            inline.clone()
        };
        let hint = format!(
            "write <script><uri>file://media/materials/scripts/gazebo.material</uri><name>{example}</name></script>, or give the colour with <ambient> and <diffuse> instead"
        );
        for child in ["uri", "name"] {
            if !filled(child) {
                let found = if inline.is_empty() {
                    String::new()
                } else {
                    format!(" (the text \"{inline}\" is not a <{child}>)")
                };
                problems.push(self.error(
                    node,
                    if child == "uri" {
                        ErrorKind::Invalid
                    } else {
                        ErrorKind::Missing
                    },
                    format!("<script> of a <material> has no <{child}>, or it is empty{found}"),
                    hint.clone(),
                ));
            }
        }
    }

    /// `<sensor type="camera"><camera><image><format>`: a known pixel format.
    fn check_pixel_format(&self, node: Node, problems: &mut Vec<SdfError>) {
        let mut up = node.ancestors().skip(1);
        let (Some(image), Some(camera), Some(sensor)) = (up.next(), up.next(), up.next()) else {
            return;
        };
        if tag(image) != "image" || tag(camera) != "camera" || tag(sensor) != "sensor" {
            return;
        }
        let sensor_type = sensor.attribute("type").unwrap_or_default().trim();
        if !CAMERA_SENSORS.contains(&sensor_type) {
            return;
        }
        let text = self.text(node);
        let value = text.trimmed();
        if value.is_empty() || PIXEL_FORMATS.contains(&value) {
            return;
        }
        problems.push(self.error_at(
            text.start(),
            node,
            ErrorKind::Invalid,
            format!("unknown pixel format \"{value}\""),
            format!("use one of {}", PIXEL_FORMATS.join(", ")),
        ));
    }
}

/// Whether `node` is the element `rule` describes.
fn matches(node: Node, rule: &Rule) -> bool {
    let mut at = Some(node);
    for &want in rule.path.iter().rev() {
        match at {
            Some(n) if n.is_element() && tag(n) == want => at = n.parent_element(),
            _ => return false,
        }
    }
    match at {
        Some(above) => !rule.not_under.contains(&tag(above)),
        None => true,
    }
}

#[cfg(test)]
mod tests {
    use crate::{ErrorKind, SdfError, parse_document, parse_str};

    /// A 1.6 world holding one model with one link whose body is `link`.
    fn world(link: &str) -> String {
        format!(
            "<sdf version=\"1.6\">\n<world name=\"w\">\n<model name=\"m\">\n<link name=\"l\">\n{link}\n</link>\n</model>\n</world>\n</sdf>\n"
        )
    }

    #[track_caller]
    fn refused(text: &str) -> SdfError {
        match parse_str(text, None) {
            Ok(_) => panic!("accepted:\n{text}"),
            Err(e) => e,
        }
    }

    /// 1-based line of the first line of `text` containing `needle`.
    fn line_of(text: &str, needle: &str) -> u32 {
        text.lines().position(|l| l.contains(needle)).unwrap() as u32 + 1
    }

    #[test]
    fn values_out_of_the_schema_range_or_not_numbers_are_refused_where_they_are() {
        let text = world(
            "<collision name=\"c\"><geometry><sphere><radius>1</radius></sphere></geometry>\n<surface><friction><ode>\n<mu>-1.000000</mu>\n<mu2>0.5</mu2>\n</ode></friction>\n<bounce><restitution_coefficient>1.5</restitution_coefficient></bounce></surface></collision>\n<velocity_decay>\n<linear>bad</linear>\n</velocity_decay>",
        );
        let e = refused(&text);
        let messages: Vec<&str> = e.all().map(|e| e.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "<mu> must be at least 0, found \"-1.000000\"",
                "<restitution_coefficient> must be from 0 to 1, found \"1.5\"",
                "<linear> expects a number, found \"bad\"",
            ]
        );
        let lines: Vec<u32> = e.all().map(|e| e.line).collect();
        assert_eq!(
            lines,
            [
                line_of(&text, "<mu>"),
                line_of(&text, "restitution"),
                line_of(&text, "<linear>")
            ]
        );
        assert!(e.all().all(|e| e.kind == ErrorKind::Invalid));
        assert_eq!(e.count(), 3);
        let report = e.render(None);
        assert_eq!(report.matches("error: ").count(), 3, "{report}");
        assert!(report.contains("<mu>-1.000000</mu>"), "{report}");
        assert!(report.ends_with("3 errors\n"), "{report}");
    }

    #[test]
    fn values_inside_their_range_and_plugin_contents_are_accepted() {
        let text = world(
            "<collision name=\"c\"><geometry><sphere><radius>1</radius></sphere></geometry>\n<surface><friction><ode><mu>0</mu><mu2>1e3</mu2></ode></friction><bounce><restitution_coefficient>1</restitution_coefficient></bounce></surface></collision>\n<velocity_decay><linear>0.1</linear><angular></angular></velocity_decay>\n<sensor name=\"cam\" type=\"camera\"><camera><noise><stddev>-1</stddev></noise><image><format>R8G8B8</format></image></camera>\n<plugin name=\"p\" filename=\"f\"><mu>-5</mu><format>X</format></plugin></sensor>",
        );
        parse_str(&text, None).unwrap_or_else(|e| panic!("{}", e.render(None)));
    }

    #[test]
    fn a_material_script_needs_a_uri_and_a_name() {
        let text = world(
            "<visual name=\"v\"><geometry><sphere><radius>1</radius></sphere></geometry>\n<material><script>Gazebo/Grey</script></material></visual>",
        );
        let e = refused(&text);
        assert_eq!(e.count(), 2, "{}", e.render(None));
        assert_eq!(e.kind, ErrorKind::Invalid);
        assert!(e.message.contains("no <uri>"), "{}", e.message);
        assert!(e.message.contains("\"Gazebo/Grey\""), "{}", e.message);
        assert_eq!(e.others[0].kind, ErrorKind::Missing);
        assert!(e.others[0].message.contains("no <name>"));
        assert!(e.hint.contains("<name>Gazebo/Grey</name>"), "{}", e.hint);
        assert_eq!(e.line, line_of(&text, "<script>"));

        let good = world(
            "<visual name=\"v\"><geometry><sphere><radius>1</radius></sphere></geometry>\n<material><script><uri>file://media/materials/scripts/gazebo.material</uri><name>Gazebo/Grey</name></script></material></visual>",
        );
        parse_str(&good, None).unwrap_or_else(|e| panic!("{}", e.render(None)));
    }

    #[test]
    fn camera_pixel_formats_must_be_known_and_noise_ranges_apply_to_the_shared_noise_model() {
        let text = world(
            "<sensor name=\"cam\" type=\"camera\"><camera><image><format>R16G16B16</format></image></camera></sensor>\n<sensor name=\"imu\" type=\"imu\"><imu><angular_velocity><x><noise type=\"gaussian\"><stddev>-0.1</stddev></noise></x></angular_velocity></imu></sensor>",
        );
        let e = refused(&text);
        let messages: Vec<&str> = e.all().map(|e| e.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "unknown pixel format \"R16G16B16\"",
                "<stddev> must be at least 0, found \"-0.1\""
            ]
        );
        assert!(e.hint.contains("RGB_INT8") && e.hint.contains("L16"));
        // A format of a sensor type libsdformat does not read a camera for is not checked.
        let other = world(
            "<sensor name=\"cams\" type=\"multicamera\"><camera name=\"a\"><image><format>R16G16B16</format></image></camera></sensor>",
        );
        parse_str(&other, None).unwrap_or_else(|e| panic!("{}", e.render(None)));
    }

    #[test]
    fn unknown_and_repeated_elements_are_warnings_that_do_not_stop_the_load() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("w.sdf");
        let text = world(
            "<colision name=\"typo\"/>\n<velocity_decay><linear>0.1</linear></velocity_decay>\n<gravity>true</gravity>\n<gravity>false</gravity>\n<my:thing xmlns:my=\"urn:x\"/>\n<gz:extra/>",
        );
        std::fs::write(&path, &text).unwrap();
        let (loaded, warnings) =
            crate::load_document_with_warnings(&path, &crate::LoadOptions::default());
        loaded.unwrap_or_else(|e| panic!("{}", e.render(None)));
        let found: Vec<(&str, u32)> = warnings
            .iter()
            .map(|w| (w.message.as_str(), w.line))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "<colision> is not an element of <link> in SDF; it is ignored",
                    line_of(&text, "<colision")
                ),
                (
                    "<gravity> appears more than once in <link name=\"l\">; only the first is used",
                    line_of(&text, "<gravity>false")
                ),
            ]
        );
        assert!(
            warnings[0].hint.contains("<collision>"),
            "{}",
            warnings[0].hint
        );
        let report = warnings[0].render_warning();
        assert!(report.starts_with("warning: <colision>"), "{report}");
        assert!(report.contains("<colision name=\"typo\"/>"), "{report}");
    }

    #[test]
    fn a_model_document_is_checked_as_well_and_its_reader_errors_come_first() {
        let text = "<sdf version=\"1.9\">\n<model name=\"m\">\n<link name=\"l\">\n<velocity_decay><angular>x</angular></velocity_decay>\n<inertial><mass>-1</mass></inertial>\n</link>\n</model>\n</sdf>\n";
        let e = parse_document(text, None).unwrap_err();
        assert_eq!(e.count(), 2, "{}", e.render(None));
        assert!(e.message.contains("mass"), "{}", e.message);
        assert_eq!(
            e.others[0].message,
            "<angular> expects a number, found \"x\""
        );
        assert_eq!(e.others[0].line, 4);
    }
}
