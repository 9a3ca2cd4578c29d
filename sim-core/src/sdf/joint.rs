//! `<joint>`: type, parent, child, pose, `<sensor>`s (posed in the joint frame) and `<axis>`
//! (direction, limits, dynamics), with the version rules of the axis frame (1.4: the parent
//! model frame; 1.5-1.6: `use_parent_model_frame`; 1.7+: `xyz@expressed_in`).

use roxmltree::Node;

use super::error::{ErrorKind, SdfError};
use super::model::Siblings;
use super::reader::{Reader, Version, children, tag};
use crate::world::{AxisFrame, Joint, JointAxis, JointKind, Vec3};

impl Reader<'_> {
    /// `<joint>` of the model named `model`, whose links are `links`. `nested` are the names
    /// of the model's nested models (a joint may name one, meaning its canonical link, which
    /// this reader does not resolve yet).
    pub(super) fn joint(
        &self,
        node: Node,
        model: &str,
        links: &[String],
        nested: &[String],
    ) -> Result<Joint, SdfError> {
        let name = self.entity_name(node, true)?;
        let ty = self.required_attr(
            node,
            "type",
            "add type=\"revolute\" (or continuous, prismatic, fixed, ball)",
        )?;
        let kind = match ty.trim() {
            "revolute" => JointKind::Revolute,
            "continuous" => JointKind::Continuous,
            "prismatic" => JointKind::Prismatic,
            "fixed" => JointKind::Fixed,
            "ball" => JointKind::Ball,
            other => {
                let hint = match other {
                    "universal" => {
                        "build it from two revolute joints with a light link between them"
                    }
                    "revolute2" => {
                        "build it from two revolute joints with a light link between them"
                    }
                    "screw" => {
                        "use a prismatic joint, or a revolute joint if only the rotation matters"
                    }
                    "gearbox" => "drive the two joints with a plugin that keeps their ratio",
                    _ => "use revolute, continuous, prismatic, fixed or ball",
                };
                return Err(self.attr_error(
                    node,
                    "type",
                    ErrorKind::Unsupported,
                    format!(
                        "joint \"{name}\": type \"{other}\" cannot be built by this engine yet"
                    ),
                    hint,
                ));
            }
        };
        let link_ref = |which: &str| -> Result<String, SdfError> {
            let Some(n) = self.child(node, which) else {
                return Err(self.error(
                    node,
                    ErrorKind::Missing,
                    format!("joint \"{name}\" has no <{which}>"),
                    format!("add <{which}>LINK_NAME</{which}> naming a link of model \"{model}\""),
                ));
            };
            let v = self.text(n).trimmed().to_string();
            let ok = links.contains(&v) || (which == "parent" && v == "world");
            if !ok {
                let (kind, hint) = if v.contains("::") || nested.contains(&v) {
                    (ErrorKind::Unsupported, "joints to nested models and their links are not supported yet; join links of the same model".to_string())
                } else {
                    (
                        ErrorKind::Invalid,
                        format!(
                            "name one of the links of model \"{model}\" ({}){}",
                            links.join(", "),
                            if which == "parent" { " or `world`" } else { "" }
                        ),
                    )
                };
                return Err(self.error(
                    n,
                    kind,
                    format!(
                        "joint \"{name}\": <{which}> \"{v}\" is not a link of model \"{model}\""
                    ),
                    hint,
                ));
            }
            Ok(v)
        };
        let parent = link_ref("parent")?;
        let child = link_ref("child")?;
        if parent == child {
            return Err(self.error(
                node,
                ErrorKind::Invalid,
                format!("joint \"{name}\" joins link \"{child}\" to itself"),
                "the parent and the child must be different links",
            ));
        }
        // A joint's pose is in its child link's frame by default.
        let pose = self.pose(node, &[child.as_str(), name.as_str()])?;
        let axis = match kind {
            JointKind::Revolute | JointKind::Continuous | JointKind::Prismatic => {
                Some(self.axis(node, &name, model, kind)?)
            }
            JointKind::Fixed | JointKind::Ball => None,
        };
        if let Some(c) = node
            .children()
            .find(|c| c.is_element() && tag(*c) == "axis2")
        {
            return Err(self.error(
                c,
                ErrorKind::Unsupported,
                format!("joint \"{name}\": <axis2> belongs to two-axis joints, which cannot be built yet"),
                "remove <axis2>",
            ));
        }
        let mut sensors = Vec::new();
        let mut sensor_names = Siblings::default();
        for c in children(node, "sensor") {
            let sensor = self.sensor(c, &name)?;
            sensor_names.insert(self, c, &sensor.name, "joint")?;
            sensors.push(sensor);
        }
        Ok(Joint {
            name,
            kind,
            parent,
            child,
            pose,
            axis,
            sensors,
            span: self.span(node),
        })
    }

    fn axis(
        &self,
        joint: Node,
        name: &str,
        model: &str,
        kind: JointKind,
    ) -> Result<JointAxis, SdfError> {
        let old = self.version < Version::new(1, 10);
        let unlimited = |v: f64, sign: f64| {
            if old && v.abs() >= 1e16 {
                sign * f64::INFINITY
            } else {
                v
            }
        };
        let Some(axis) = self.child(joint, "axis") else {
            return Ok(JointAxis {
                xyz: Vec3::new(0.0, 0.0, 1.0),
                frame: if self.version < Version::new(1, 5) {
                    AxisFrame::Model
                } else {
                    AxisFrame::Joint
                },
                lower: f64::NEG_INFINITY,
                upper: f64::INFINITY,
                effort: f64::INFINITY,
                velocity: f64::INFINITY,
                damping: 0.0,
                friction: 0.0,
                spring_reference: 0.0,
                spring_stiffness: 0.0,
            });
        };
        let xyz = self.child_vec3(axis, "xyz", Vec3::new(0.0, 0.0, 1.0))?;
        let xyz_node = self.child(axis, "xyz").unwrap_or(axis);
        if xyz.length().is_nan() || xyz.length() <= 1e-9 {
            return Err(self.error(
                xyz_node,
                ErrorKind::Invalid,
                format!("joint \"{name}\": the axis <xyz> is zero"),
                "give a direction, e.g. 0 0 1",
            ));
        }
        let mut frame = if self.version < Version::new(1, 5) {
            AxisFrame::Model
        } else {
            AxisFrame::Joint
        };
        if self.version < Version::new(1, 7)
            && self.child_bool(axis, "use_parent_model_frame", false)?
        {
            frame = AxisFrame::Model;
        }
        if let Some(e) = xyz_node
            .attribute("expressed_in")
            .map(str::trim)
            .filter(|e| !e.is_empty())
        {
            frame = if e == "__model__" || e == model {
                AxisFrame::Model
            } else if e == name {
                AxisFrame::Joint
            } else {
                return Err(self.attr_error(
                    xyz_node,
                    "expressed_in",
                    ErrorKind::Unsupported,
                    format!(
                        "joint \"{name}\": axes expressed in frame \"{e}\" are not supported yet"
                    ),
                    "express the axis in the joint frame (no attribute) or in __model__",
                ));
            };
        }
        let (mut lower, mut upper, mut effort, mut velocity) = (
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::INFINITY,
            f64::INFINITY,
        );
        if let Some(l) = self.child(axis, "limit") {
            lower = unlimited(self.child_f64(l, "lower", lower)?, -1.0);
            upper = unlimited(self.child_f64(l, "upper", upper)?, 1.0);
            // Before 1.10 a negative effort or velocity meant "no limit".
            let e = self.child_f64(l, "effort", effort)?;
            effort = if e < 0.0 { f64::INFINITY } else { e };
            let v = self.child_f64(l, "velocity", velocity)?;
            velocity = if v < 0.0 { f64::INFINITY } else { v };
            if lower > upper {
                return Err(self.error(
                    l,
                    ErrorKind::Invalid,
                    format!(
                        "joint \"{name}\": the lower limit {lower} is above the upper limit {upper}"
                    ),
                    "swap <lower> and <upper>",
                ));
            }
        }
        if kind == JointKind::Continuous {
            (lower, upper) = (f64::NEG_INFINITY, f64::INFINITY);
        }
        let (mut damping, mut friction, mut spring_reference, mut spring_stiffness) =
            (0.0, 0.0, 0.0, 0.0);
        if let Some(d) = self.child(axis, "dynamics") {
            damping = self.child_f64(d, "damping", 0.0)?;
            friction = self.child_f64(d, "friction", 0.0)?;
            spring_reference = self.child_f64(d, "spring_reference", 0.0)?;
            spring_stiffness = self.child_f64(d, "spring_stiffness", 0.0)?;
            for (what, v) in [
                ("damping", damping),
                ("friction", friction),
                ("spring_stiffness", spring_stiffness),
            ] {
                if v < 0.0 {
                    let n = self.child(d, what).unwrap_or(d);
                    return Err(self.error(
                        n,
                        ErrorKind::Invalid,
                        format!("joint \"{name}\": <{what}> must not be negative, got {v}"),
                        format!("give a <{what}> of 0 or more"),
                    ));
                }
            }
        }
        Ok(JointAxis {
            xyz: xyz.normalized(),
            frame,
            lower,
            upper,
            effort,
            velocity,
            damping,
            friction,
            spring_reference,
            spring_stiffness,
        })
    }
}
