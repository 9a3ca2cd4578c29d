//! `<sensor>` and `<plugin>`.

use roxmltree::Node;

use super::error::{ErrorKind, SdfError};
use super::reader::{Reader, children, tag};
use super::version::Version;
use sim_plugin_api::ALL_VISIBLE;
use sim_world::{MAX_RATE_HZ, MIN_RATE_HZ};
use sim_world::{PluginSpec, SensorSpec};

impl Reader<'_> {
    /// `<sensor name type>` of a link (or joint), whose frame is the default frame of the
    /// sensor's pose (resolved with the model). The type-specific configuration stays in
    /// `sdf`, the element's source text, for the sensor plugin.
    pub(super) fn sensor(&self, node: Node) -> Result<SensorSpec, SdfError> {
        let name = self.entity_name(node, false)?;
        let sensor_type = self
            .required_attr(
                node,
                "type",
                "name the kind of sensor, e.g. <sensor name=\"imu\" type=\"imu\">",
            )?
            .trim()
            .to_string();
        let raw_pose = self.raw_pose(node)?;
        // Negative rates mean "as fast as possible", as 0 (gz-sensors does the same).
        let update_rate = self.child_f64(node, "update_rate", 0.0)?.max(0.0);
        self.warn_extreme_rate(node, update_rate);
        let topic = self
            .child_string(node, "topic")
            .filter(|t| t != "__default__");
        let contact_topic = (sensor_type == "contact")
            .then(|| self.contact_topic(node, topic.is_some()))
            .flatten();
        let frame_id = self
            .child_string(node, "frame_id")
            .or_else(|| self.child_string(node, "gz_frame_id"));
        // Triggering is configured on the sensor (simcore) or, as in Gazebo, in <camera>.
        let camera = children(node, "camera").next();
        let mut triggered = self.bool_of(self.child(node, "triggered"))?;
        let mut trigger_topic = self.child_string(node, "trigger_topic");
        if let Some(camera) = camera {
            if triggered.is_none() {
                triggered = self.bool_of(self.child(camera, "triggered"))?;
            }
            if trigger_topic.is_none() {
                trigger_topic = self.child_string(camera, "trigger_topic");
            }
        }
        let visibility_mask = self.visibility_mask(node)?;
        self.sensor_sizes(node)?;
        let plugins = children(node, "plugin")
            .map(|p| self.plugin(p))
            .collect::<Result<_, _>>()?;
        Ok(SensorSpec {
            custom_type: (sensor_type == "custom")
                .then(|| custom_type(node))
                .flatten(),
            sensor_type,
            pose: raw_pose.pose,
            raw_pose,
            always_on: self.child_bool(node, "always_on", false)?,
            update_rate,
            visualize: self.child_bool(node, "visualize", false)?,
            topic,
            contact_topic,
            frame_id,
            enable_metrics: self.child_bool(node, "enable_metrics", false)?,
            active: self.child_bool(node, "active", true)?,
            triggered: triggered.unwrap_or(false),
            trigger_topic,
            visibility_mask,
            sdf: self.element_source(node),
            plugins,
            span: self.span(node),
            name,
        })
    }

    /// The topic of a contact sensor: `<contact><topic>`, as gz-sim's Contact system reads it
    /// (`ContactSensor::Load`), which ignores the sensor-level `<topic>`; so does simcore, with
    /// a warning when one is given.
    fn contact_topic(&self, node: Node, sensor_level: bool) -> Option<String> {
        if sensor_level && let Some(t) = children(node, "topic").next() {
            self.loader.warn(
                self.error(
                    t,
                    ErrorKind::Unsupported,
                    "the <topic> of a contact sensor is not used (as in Gazebo): it publishes on \
                 <contact><topic>, or on its default topic"
                        .to_string(),
                    "move the name into <contact><topic>",
                ),
            );
        }
        let contact = children(node, "contact").next()?;
        self.child_string(contact, "topic")
            .filter(|t| t != "__default__" && t != "__default_topic__")
    }

    /// The `<visibility_mask>` of the sensor's `<camera>`, `<lidar>` or `<ray>` (every bit
    /// when absent). Whether it selects anything is the sensor plugin's: the plugins that
    /// cast at visuals honour it.
    fn visibility_mask(&self, node: Node) -> Result<u32, SdfError> {
        let Some(mask) = ["camera", "lidar", "ray"]
            .into_iter()
            .find_map(|h| children(node, h).next())
            .and_then(|h| self.child(h, "visibility_mask"))
        else {
            return Ok(ALL_VISIBLE);
        };
        self.visibility_bits(mask)
    }

    /// A `<visibility_mask>` or `<visibility_flags>` (`node`): an unsigned 32-bit number,
    /// decimal or `0x` hexadecimal ([`sim_plugin_api::parse_visibility_bits`]); every bit when
    /// empty.
    pub(super) fn visibility_bits(&self, node: Node) -> Result<u32, SdfError> {
        let text = self.text(node);
        let t = text.trimmed();
        if t.is_empty() {
            return Ok(ALL_VISIBLE);
        }
        sim_plugin_api::parse_visibility_bits(t).ok_or_else(|| {
            self.error_at(
                text.start(),
                node,
                ErrorKind::Invalid,
                format!(
                    "<{}> must be an unsigned 32-bit number, found \"{t}\"",
                    tag(node)
                ),
                "write a number from 0 to 4294967295 (0xffffffff, the default: every bit)",
            )
        })
    }

    /// Warns about an `<update_rate>` the clock cannot keep (the sensor manager's schedule): a period under
    /// one nanosecond updates at every step, as rate 0 does; one longer than the clock's range
    /// updates once, at the start.
    fn warn_extreme_rate(&self, node: Node, rate: f64) {
        let Some(at) = self.child(node, "update_rate") else {
            return;
        };
        let what = if rate > MAX_RATE_HZ {
            "is faster than one update per nanosecond, the clock's resolution: the sensor updates at every step, as with 0"
        } else if rate > 0.0 && rate < MIN_RATE_HZ {
            "has a period longer than the clock's range (about 292 years): the sensor updates once, at the start, and never again"
        } else {
            return;
        };
        self.loader.warn(self.error(
            at,
            ErrorKind::Invalid,
            format!("<update_rate> {rate:e} Hz {what}"),
            "write the rate in Hz the sensor should run at (0: at every step)",
        ));
    }

    /// Bounds what a sensor's plugin allocates from its SDF: the pixels of each `<camera>`
    /// image and the rays of a `<lidar>` (or `<ray>`) scan, against the load's limits. A
    /// size that is not a whole number is left to the schema checks and the plugin.
    fn sensor_sizes<'n>(&self, node: Node<'n, 'n>) -> Result<(), SdfError> {
        let whole = |parent: Node<'n, 'n>, path: &[&str]| -> Option<(Node<'n, 'n>, u64)> {
            let mut n = parent;
            for p in path {
                n = children(n, p).next()?;
            }
            Some((n, self.text(n).trimmed().parse::<u64>().ok()?))
        };
        let limits = &self.loader.limits;
        for camera in children(node, "camera") {
            let Some(image) = children(camera, "image").next() else {
                continue;
            };
            // The camera plugins' defaults when a side is absent.
            let (w_node, w) = whole(image, &["width"]).unwrap_or((image, 320));
            let (h_node, h) = whole(image, &["height"]).unwrap_or((image, 240));
            let pixels = w.saturating_mul(h);
            if pixels > limits.max_camera_pixels {
                let at = if w >= h { w_node } else { h_node };
                return Err(self.error(
                    at,
                    ErrorKind::Invalid,
                    format!(
                        "a {w} x {h} camera image is {pixels} pixels; the limit is {} pixels per image",
                        limits.max_camera_pixels
                    ),
                    "make the image smaller, or raise the limit (--max-camera-pixels, LoadOptions::limits.max_camera_pixels)",
                ));
            }
        }
        for lidar in children(node, "lidar").chain(children(node, "ray")) {
            let Some((h_node, h)) = whole(lidar, &["scan", "horizontal", "samples"]) else {
                continue;
            };
            let (v_node, v) = whole(lidar, &["scan", "vertical", "samples"]).unwrap_or((h_node, 1));
            let rays = h.saturating_mul(v);
            if rays > limits.max_lidar_rays {
                let at = if h >= v { h_node } else { v_node };
                return Err(self.error(
                    at,
                    ErrorKind::Invalid,
                    format!(
                        "a scan of {h} x {v} samples is {rays} rays; the limit is {} rays per scan",
                        limits.max_lidar_rays
                    ),
                    "take fewer samples, or raise the limit (--max-lidar-rays, LoadOptions::limits.max_lidar_rays)",
                ));
            }
        }
        Ok(())
    }

    /// `<plugin filename name>`. `name` is optional since SDF 1.10 (then empty).
    pub(super) fn plugin(&self, node: Node) -> Result<PluginSpec, SdfError> {
        let filename = self.required_attr(
            node,
            "filename",
            "name the plugin library, e.g. <plugin filename=\"simcore-plugin-imu\" name=\"...\">",
        )?;
        let name = match node.attribute("name") {
            Some(n) => n.to_string(),
            None if self.version >= Version::new(1, 10) => String::new(),
            None => {
                return Err(self.error(
                    node,
                    ErrorKind::Missing,
                    format!("<plugin> has no `name` attribute (required before SDF 1.10; this file declares {})", self.version),
                    "add name=\"...\" (the plugin's class or factory name), or declare <sdf version=\"1.10\"> or newer",
                ));
            }
        };
        Ok(PluginSpec {
            filename,
            name,
            sdf: self.element_source(node),
            span: self.span(node),
        })
    }
}

/// The `gz:type` of a custom sensor, however its prefix is read: undeclared (the reader's
/// `gz.type`, see `lenient`) or declared with `xmlns:gz`. Empty is none.
fn custom_type(node: Node) -> Option<String> {
    let gz = node.lookup_namespace_uri(Some("gz"));
    node.attributes()
        .find(|a| {
            a.name() == "gz.type" || (gz.is_some() && a.namespace() == gz && a.name() == "type")
        })
        .map(|a| a.value().trim().to_string())
        .filter(|t| !t.is_empty())
}
