//! `<joint>`: type, parent, child, pose, `<sensor>`s (posed in the joint frame) and `<axis>`
//! (direction, limits, dynamics), with the version rules of the axis frame (1.4: the parent
//! model frame; 1.5-1.6: `use_parent_model_frame`; 1.7+: `xyz@expressed_in`). Names and
//! frames are resolved later, with the enclosing model or world (see `frames`).

use roxmltree::Node;

use super::error::{ErrorKind, SdfError};
use super::reader::{Reader, children};
use super::siblings::Siblings;
use super::version::Version;
use sim_world::{Joint, JointAxis, JointKind, Vec3};

impl Reader<'_> {
    /// `<joint>` of a model or world. Its parent and child are checked and resolved to links,
    /// and its poses and axis resolved, with the enclosing scope (see `frames`).
    pub(super) fn joint(&self, node: Node) -> Result<Joint, SdfError> {
        let name = self.entity_name(node, true)?;
        let ty = self.required_attr(
            node,
            "type",
            "add type=\"revolute\" (or continuous, prismatic, fixed, ball, universal, revolute2, \
             screw, gearbox)",
        )?;
        let kind = match ty.trim() {
            "revolute" => JointKind::Revolute,
            "continuous" => JointKind::Continuous,
            "prismatic" => JointKind::Prismatic,
            "fixed" => JointKind::Fixed,
            "ball" => JointKind::Ball,
            "universal" => JointKind::Universal,
            "revolute2" => JointKind::Revolute2,
            "screw" => JointKind::Screw,
            "gearbox" => JointKind::Gearbox,
            other => {
                return Err(self.attr_error(
                    node,
                    "type",
                    ErrorKind::Unsupported,
                    format!("joint \"{name}\": unknown joint type \"{other}\""),
                    "use revolute, continuous, prismatic, fixed, ball, universal, revolute2, \
                     screw or gearbox",
                ));
            }
        };
        let frame_ref = |which: &str| -> Result<String, SdfError> {
            let Some(n) = self.child(node, which) else {
                return Err(self.error(
                    node,
                    ErrorKind::Missing,
                    format!("joint \"{name}\" has no <{which}>"),
                    format!("add <{which}>LINK_NAME</{which}> naming a link (or a frame) in scope"),
                ));
            };
            let v = self.text(n).trimmed().to_string();
            if v.is_empty() {
                return Err(self.error(
                    n,
                    ErrorKind::Missing,
                    format!("joint \"{name}\": <{which}> is empty"),
                    format!("name the {which} link (or a frame attached to it)"),
                ));
            }
            if which == "child" && v == "world" {
                return Err(self.error(
                    n,
                    ErrorKind::Invalid,
                    format!("joint \"{name}\": the child cannot be `world`"),
                    "make `world` the <parent> and the link the <child>",
                ));
            }
            Ok(v)
        };
        let parent = frame_ref("parent")?;
        let child = frame_ref("child")?;
        if parent == child {
            return Err(self.error(
                node,
                ErrorKind::Invalid,
                format!("joint \"{name}\" joins \"{child}\" to itself"),
                "the parent and the child must be different links",
            ));
        }
        let raw_pose = self.raw_pose(node)?;
        // libsdformat keeps an axis written on any joint; the engine ignores the axes a
        // joint type does not use.
        let one_axis = !matches!(kind, JointKind::Fixed | JointKind::Ball);
        let axis = if one_axis || self.child(node, "axis").is_some() {
            Some(self.axis(node, "axis", &name, kind)?)
        } else {
            None
        };
        let two_axes = matches!(
            kind,
            JointKind::Universal | JointKind::Revolute2 | JointKind::Gearbox
        );
        let axis2 = if two_axes || self.child(node, "axis2").is_some() {
            Some(self.axis(node, "axis2", &name, kind)?)
        } else {
            None
        };
        let screw_thread_pitch = self.screw_thread_pitch(node, &name)?;
        let gearbox_ratio = self.child_f64(node, "gearbox_ratio", 1.0)?;
        if !gearbox_ratio.is_finite() {
            let n = self.child(node, "gearbox_ratio").unwrap_or(node);
            return Err(self.error(
                n,
                ErrorKind::Invalid,
                format!(
                    "joint \"{name}\": <gearbox_ratio> must be finite, got {}",
                    self.written(n)
                ),
                "give the ratio of the parent's turns to the child's, e.g. 5",
            ));
        }
        let gearbox_reference_body = self
            .child(node, "gearbox_reference_body")
            .map(|n| self.text(n).trimmed().to_string())
            .unwrap_or_default();
        let mut sensors = Vec::new();
        let mut sensor_names = Siblings::default();
        for c in children(node, "sensor") {
            let sensor = self.sensor(c)?;
            sensor_names.insert(self, c, &sensor.name, "joint")?;
            sensors.push(sensor);
        }
        Ok(Joint {
            name,
            kind,
            parent,
            child,
            parent_link: String::new(),
            child_link: String::new(),
            pose: raw_pose.pose,
            raw_pose,
            axis,
            axis2,
            screw_thread_pitch,
            gearbox_ratio,
            gearbox_reference_body,
            gearbox_reference_link: String::new(),
            sensors,
            span: self.span(node),
        })
    }

    /// A screw joint's thread pitch in m/rev, right-handed: `<screw_thread_pitch>` (SDF 1.10+)
    /// wins over the older `<thread_pitch>` (rad/m, left-handed), as libsdformat reads them.
    fn screw_thread_pitch(&self, joint: Node, name: &str) -> Result<f64, SdfError> {
        if let Some(n) = self.child(joint, "screw_thread_pitch") {
            let v = self.child_f64(joint, "screw_thread_pitch", 1.0)?;
            if !v.is_finite() {
                return Err(self.error(
                    n,
                    ErrorKind::Invalid,
                    format!(
                        "joint \"{name}\": <screw_thread_pitch> must be finite, got {}",
                        self.written(n)
                    ),
                    "give the travel per revolution in metres (negative: a left-handed thread)",
                ));
            }
            return Ok(v);
        }
        if let Some(n) = self.child(joint, "thread_pitch") {
            let v = self.child_f64(joint, "thread_pitch", 1.0)?;
            if v == 0.0 || !v.is_finite() {
                return Err(self.error(
                    n,
                    ErrorKind::Invalid,
                    format!(
                        "joint \"{name}\": <thread_pitch> must be finite and not zero, got {}",
                        self.written(n)
                    ),
                    "give the pitch in radians per metre (or use <screw_thread_pitch>, metres per \
                     revolution, in SDF 1.10+)",
                ));
            }
            return Ok(-std::f64::consts::TAU / v);
        }
        Ok(1.0)
    }

    /// `<axis>` or `<axis2>` (`which`) of a joint, or the defaults when it has none.
    fn axis(
        &self,
        joint: Node,
        which: &str,
        name: &str,
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
        let Some(axis) = self.child(joint, which) else {
            return Ok(JointAxis {
                xyz: Vec3::new(0.0, 0.0, 1.0),
                expressed_in: if self.version < Version::new(1, 5) {
                    "__model__".to_string()
                } else {
                    String::new()
                },
                expressed_in_span: None,
                xyz_in_joint: Vec3::new(0.0, 0.0, 1.0),
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
                format!("joint \"{name}\": the {which} <xyz> is zero"),
                "give a direction, e.g. 0 0 1",
            ));
        }
        // 1.4: the parent model frame; 1.5, 1.6: that frame with use_parent_model_frame;
        // 1.7+: the frame named by expressed_in (checked when the joint is resolved).
        let mut expressed_in = if self.version < Version::new(1, 5) {
            "__model__".to_string()
        } else {
            String::new()
        };
        if self.version < Version::new(1, 7)
            && self.child_bool(axis, "use_parent_model_frame", false)?
        {
            expressed_in = "__model__".to_string();
        }
        let mut expressed_in_span = None;
        if let Some(e) = xyz_node
            .attribute("expressed_in")
            .map(str::trim)
            .filter(|e| !e.is_empty())
        {
            expressed_in = e.to_string();
            expressed_in_span = Some(self.attr_span(xyz_node, "expressed_in"));
        }
        let (mut lower, mut upper, mut effort, mut velocity) = (
            f64::NEG_INFINITY,
            f64::INFINITY,
            f64::INFINITY,
            f64::INFINITY,
        );
        if let Some(l) = self.child(axis, "limit") {
            lower = unlimited(self.child_limit(l, "lower", lower)?, -1.0);
            upper = unlimited(self.child_limit(l, "upper", upper)?, 1.0);
            // Before 1.10 a negative effort or velocity meant "no limit".
            let e = self.child_limit(l, "effort", effort)?;
            effort = if e < 0.0 { f64::INFINITY } else { e };
            let v = self.child_limit(l, "velocity", velocity)?;
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
                        format!(
                            "joint \"{name}\": <{what}> must not be negative, got {}",
                            self.written(n)
                        ),
                        format!("give a <{what}> of 0 or more"),
                    ));
                }
            }
        }
        Ok(JointAxis {
            xyz: xyz.normalized(),
            expressed_in,
            expressed_in_span,
            xyz_in_joint: xyz.normalized(),
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

    /// A `<limit>` value: a number, or `inf` / `-inf` (as libsdformat reads them).
    fn child_limit(&self, limit: Node, name: &str, default: f64) -> Result<f64, SdfError> {
        if let Some(n) = self.child(limit, name) {
            match self.text(n).trimmed().to_ascii_lowercase().as_str() {
                "inf" | "+inf" | "infinity" | "+infinity" => return Ok(f64::INFINITY),
                "-inf" | "-infinity" => return Ok(f64::NEG_INFINITY),
                _ => {}
            }
        }
        self.child_f64(limit, name, default)
    }
}
