//! Typed values of an element's text, with exact error positions: numbers, vectors,
//! booleans, strings and poses, read through the [`Reader`] context.

use roxmltree::Node;

use super::error::{ErrorKind, SdfError};
use super::reader::{Reader, tag};
use super::text::parse_bool;
use super::version::Version;
use sim_world::{Pose, Quat, RawPose, Vec3};

impl Reader<'_> {
    /// The numbers of `node` (must be exactly one of the `counts`); None when the element is
    /// empty. `what` names the expected layout for messages, e.g. "x y z".
    pub fn numbers(
        &self,
        node: Node,
        counts: &[usize],
        what: &str,
    ) -> Result<Option<Vec<f64>>, SdfError> {
        let text = self.text(node);
        // Bounded before anything is split or parsed: a value is a few numbers.
        let max = self.loader.limits.max_value_bytes;
        if text.trimmed().len() > max {
            return Err(self.error_at(
                text.start(),
                node,
                ErrorKind::Invalid,
                format!(
                    "<{}> is {} bytes long; a value of numbers ({what}) is at most {max} bytes",
                    tag(node),
                    text.trimmed().len()
                ),
                "write the numbers the element takes, or raise the limit (--max-value-length, LoadOptions::limits.max_value_bytes)",
            ));
        }
        let tokens = text.tokens();
        if tokens.is_empty() {
            return Ok(None);
        }
        let mut values = Vec::with_capacity(tokens.len());
        for &(at, tok) in &tokens {
            values.push(self.number(node, at, tok)?);
        }
        if !counts.contains(&tokens.len()) {
            let expected = match counts {
                [n] => format!("{n}"),
                _ => counts
                    .iter()
                    .map(|c| c.to_string())
                    .collect::<Vec<_>>()
                    .join(" or "),
            };
            let plural = |n: usize| if n == 1 { "number" } else { "numbers" };
            let last = counts.last().copied().unwrap_or(1);
            return Err(self.error_at(
                text.start(),
                node,
                ErrorKind::Invalid,
                format!(
                    "<{}> needs {expected} {} ({what}), found {}: \"{}\"",
                    tag(node),
                    plural(last),
                    tokens.len(),
                    text.trimmed()
                ),
                format!(
                    "write {expected} {} separated by spaces: {what}",
                    plural(last)
                ),
            ));
        }
        Ok(Some(values))
    }

    /// One finite number token.
    fn number(&self, node: Node, at: usize, tok: &str) -> Result<f64, SdfError> {
        match tok.parse::<f64>() {
            Ok(v) if v.is_finite() => Ok(v),
            Ok(_) => Err(self.error_at(
                at,
                node,
                ErrorKind::Invalid,
                format!("<{}> must be a finite number, found \"{tok}\"", tag(node)),
                "infinite and NaN values are not allowed here",
            )),
            Err(_) => Err(self.error_at(
                at,
                node,
                ErrorKind::Invalid,
                format!("<{}> expects a number, found \"{tok}\"", tag(node)),
                "write a decimal number such as 0.5 or 1e-3",
            )),
        }
    }

    /// A single number element, None when absent or empty.
    pub fn f64_of(&self, node: Option<Node>) -> Result<Option<f64>, SdfError> {
        let Some(node) = node else { return Ok(None) };
        Ok(self
            .numbers(node, &[1], "one value")?
            .and_then(|v| v.first().copied()))
    }

    /// The number in child `name` of `parent`, `default` when absent.
    pub fn child_f64(&self, parent: Node, name: &str, default: f64) -> Result<f64, SdfError> {
        Ok(self.f64_of(self.child(parent, name))?.unwrap_or(default))
    }

    /// A strictly positive number in child `name`, `default` when absent.
    pub fn child_positive(
        &self,
        parent: Node,
        name: &str,
        default: f64,
        hint: &str,
    ) -> Result<f64, SdfError> {
        let Some(node) = self.child(parent, name) else {
            return Ok(default);
        };
        let v = self.f64_of(Some(node))?.unwrap_or(default);
        if v <= 0.0 {
            return Err(self.error_at(
                self.text(node).start(),
                node,
                ErrorKind::Invalid,
                format!(
                    "<{name}> must be greater than 0, found {}",
                    self.written(node)
                ),
                hint,
            ));
        }
        Ok(v)
    }

    /// A 3-vector in child `name`, `default` when absent.
    pub fn child_vec3(&self, parent: Node, name: &str, default: Vec3) -> Result<Vec3, SdfError> {
        match self.child(parent, name) {
            Some(node) => self.vec3_of(node, default),
            None => Ok(default),
        }
    }

    /// The 3-vector of `node`, `default` when it is empty.
    pub fn vec3_of(&self, node: Node, default: Vec3) -> Result<Vec3, SdfError> {
        Ok(match self.numbers(node, &[3], "x y z")? {
            Some(v) => Vec3::new(v[0], v[1], v[2]),
            None => default,
        })
    }

    /// A 3-vector with all components > 0 (sizes, radii).
    pub fn child_positive_vec3(
        &self,
        parent: Node,
        name: &str,
        default: Vec3,
        hint: &str,
    ) -> Result<Vec3, SdfError> {
        let Some(node) = self.child(parent, name) else {
            return Ok(default);
        };
        let v = self.vec3_of(node, default)?;
        if v.to_array().iter().any(|&c| c <= 0.0) {
            return Err(self.error_at(
                self.text(node).start(),
                node,
                ErrorKind::Invalid,
                format!(
                    "every component of <{name}> must be greater than 0, found {}",
                    self.written(node)
                ),
                hint,
            ));
        }
        Ok(v)
    }

    /// The boolean in child `name` of `parent`, `default` when absent or empty.
    pub fn child_bool(&self, parent: Node, name: &str, default: bool) -> Result<bool, SdfError> {
        Ok(self.bool_of(self.child(parent, name))?.unwrap_or(default))
    }

    /// The boolean of `node` (`true/false/1/0`, any case), None when absent or empty.
    pub fn bool_of(&self, node: Option<Node>) -> Result<Option<bool>, SdfError> {
        let Some(node) = node else { return Ok(None) };
        let text = self.text(node);
        let t = text.trimmed();
        if t.is_empty() {
            return Ok(None);
        }
        parse_bool(t).map(Some).ok_or_else(|| {
            self.error_at(
                text.start(),
                node,
                ErrorKind::Invalid,
                format!("<{}> must be a boolean, found \"{t}\"", tag(node)),
                "write true or false (1 and 0 are accepted too)",
            )
        })
    }

    /// The trimmed text of child `name`, None when absent or blank.
    pub fn child_string(&self, parent: Node, name: &str) -> Option<String> {
        let node = self.child(parent, name)?;
        let text = self.text(node);
        let t = text.trimmed();
        (!t.is_empty()).then(|| t.to_string())
    }

    // ----- poses ----------------------------------------------------------------------------

    /// The `<pose>` child of `parent` as written: its value and `relative_to` (SDF 1.7+) or
    /// `frame` (SDF 1.5, 1.6) attribute. Which frames that may name is checked when the
    /// model or world is resolved (see `frames`), not here. Without a `<pose>`, the
    /// identity relative to the default frame.
    pub fn raw_pose(&self, parent: Node) -> Result<RawPose, SdfError> {
        let Some(node) = self.child(parent, "pose") else {
            return Ok(RawPose {
                pose: Pose::IDENTITY,
                relative_to: String::new(),
                span: self.span(parent),
            });
        };
        let attr = if self.version >= Version::new(1, 7) {
            "relative_to"
        } else {
            "frame"
        };
        let relative_to = node
            .attribute(attr)
            .or_else(|| node.attribute("relative_to"))
            .unwrap_or("")
            .trim()
            .to_string();
        Ok(RawPose {
            pose: self.pose_of(node)?,
            relative_to,
            span: self.span(node),
        })
    }

    /// The pose written in `node`: `x y z roll pitch yaw` (radians, or degrees with
    /// `@degrees="true"`), or `x y z qx qy qz qw` with `@rotation_format="quat_xyzw"`.
    pub fn pose_of(&self, node: Node) -> Result<Pose, SdfError> {
        let quat = match node.attribute("rotation_format").map(str::trim) {
            None | Some("") | Some("euler_rpy") => false,
            Some("quat_xyzw") => true,
            Some(other) => {
                return Err(self.attr_error(
                    node,
                    "rotation_format",
                    ErrorKind::Invalid,
                    format!("unknown rotation_format \"{other}\""),
                    "use euler_rpy (x y z roll pitch yaw) or quat_xyzw (x y z qx qy qz qw)",
                ));
            }
        };
        let degrees = self.bool_attr(node, "degrees", false)?;
        if quat {
            let Some(v) = self.numbers(node, &[7], "x y z qx qy qz qw")? else {
                return Ok(Pose::IDENTITY);
            };
            let q = Quat::new(v[3], v[4], v[5], v[6]);
            let norm = (q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w).sqrt();
            if !(norm > 1e-12 && norm.is_finite()) {
                return Err(self.error_at(
                    self.text(node).start(),
                    node,
                    ErrorKind::Invalid,
                    "the quaternion of this pose is zero",
                    "give a unit quaternion qx qy qz qw, e.g. 0 0 0 1 for no rotation",
                ));
            }
            Ok(Pose::new(Vec3::new(v[0], v[1], v[2]), q.normalized()))
        } else {
            let Some(v) = self.numbers(node, &[6], "x y z roll pitch yaw")? else {
                return Ok(Pose::IDENTITY);
            };
            let k = if degrees {
                std::f64::consts::PI / 180.0
            } else {
                1.0
            };
            Ok(Pose::from_xyz_rpy(
                v[0],
                v[1],
                v[2],
                v[3] * k,
                v[4] * k,
                v[5] * k,
            ))
        }
    }
}
