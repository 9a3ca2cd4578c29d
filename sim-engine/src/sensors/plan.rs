//! Planning a sensor: what the engine settles about a `<sensor>` before its plugin is created
//! (its scoped name, topics, frame id, seed and entities).

use sim_plugin_api::abi_stable::std_types::RStr;
use sim_plugin_api::{EntityId, Pose, SensorConfig, SourceLocation};
use sim_transport::{TopicError, default_joint_sensor_topic, default_sensor_topic, validate_topic};
use sim_world::{Model, SensorSpec, Span};

/// `parent::name`, the scoped name of an entity inside `parent`.
pub(crate) fn scoped(parent: &str, name: &str) -> String {
    format!("{parent}::{name}")
}

/// Everything the engine resolved about one `<sensor>` before creating its plugin.
#[derive(Clone, Debug, PartialEq)]
pub struct SensorSetup {
    /// The sensor entity.
    pub entity: EntityId,
    /// Its link.
    pub link: EntityId,
    /// Its link's model.
    pub model: EntityId,
    /// `<sensor name>`.
    pub name: String,
    /// `model::link::sensor`.
    pub scoped_name: String,
    /// SDF type as written.
    pub sensor_type: String,
    /// The resolved topic.
    pub topic: String,
    /// The frame id of its messages.
    pub frame_id: String,
    /// `<update_rate>`.
    pub update_rate: f64,
    /// Whether it starts active.
    pub active: bool,
    /// Triggered mode.
    pub triggered: bool,
    /// The trigger topic (used in triggered mode).
    pub trigger_topic: String,
    /// `<enable_metrics>`.
    pub enable_metrics: bool,
    /// Pose in the link frame.
    pub pose: Pose,
    /// The `<sensor>` element text.
    pub sdf: String,
    /// Where it is.
    pub span: Span,
    /// Seed of its random streams.
    pub seed: u64,
}

impl SensorSetup {
    /// The configuration its plugin is created from, borrowing from this setup.
    pub fn config<'a>(&'a self, world_name: &'a str) -> SensorConfig<'a> {
        SensorConfig {
            name: RStr::from_str(&self.name),
            scoped_name: RStr::from_str(&self.scoped_name),
            sensor_type: RStr::from_str(&self.sensor_type),
            topic: RStr::from_str(&self.topic),
            frame_id: RStr::from_str(&self.frame_id),
            world_name: RStr::from_str(world_name),
            sensor: self.entity,
            link: self.link,
            model: self.model,
            pose: self.pose,
            update_rate: self.update_rate,
            seed: self.seed,
            sdf: RStr::from_str(&self.sdf),
            source: source_location(&self.span),
        }
    }
}

/// A span as the plugin ABI carries it.
pub(crate) fn source_location(span: &Span) -> SourceLocation<'_> {
    let file = span.file.as_ref().and_then(|f| f.to_str()).unwrap_or("");
    SourceLocation {
        file: RStr::from_str(file),
        line: span.line,
        column: span.column,
    }
}

/// Derives a sensor's seed from the run seed and its scoped name (FNV-1a, then a SplitMix64
/// finaliser), so that noise does not depend on load order or thread scheduling.
pub fn derive_seed(run_seed: u64, scoped_name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in scoped_name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    let mut z = h ^ run_seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Where one `<sensor>` of a model sits.
#[derive(Clone, Debug)]
pub struct SensorSite<'a> {
    /// The sensor as written.
    pub spec: &'a SensorSpec,
    /// `model::link::sensor` (or `model::joint::sensor`).
    pub scoped_name: String,
    /// Its link (for a joint's sensor, the joint's child link).
    pub link: EntityId,
    /// Its pose in that link.
    pub pose: Pose,
    /// Its topic when `<topic>` is not given.
    pub default_topic: String,
}

/// The sensors of `model` (not of its nested models), in load order: link sensors in link
/// order, then joint sensors (attached to the joint's child link, posed in it). `path` is
/// the model's scope (its name last), `entity` looks an entity up by scoped name (NONE when
/// it is not built), `suffix` gives the suffix of a sensor type's default topic
/// ([`Registry::sensor_topic_suffix`](crate::plugins::Registry::sensor_topic_suffix)).
pub fn model_sensors<'a>(
    world_name: &str,
    path: &[&str],
    model: &'a Model,
    entity: &dyn Fn(&str) -> EntityId,
    suffix: &dyn Fn(&str) -> String,
) -> Vec<SensorSite<'a>> {
    let scoped_model = path.join("::");
    let mut sites = Vec::new();
    for link in &model.links {
        let scoped_link = scoped(&scoped_model, &link.name);
        let link_id = entity(&scoped_link);
        for s in &link.sensors {
            sites.push(SensorSite {
                spec: s,
                scoped_name: scoped(&scoped_link, &s.name),
                link: link_id,
                pose: s.pose,
                default_topic: default_sensor_topic(
                    world_name,
                    path,
                    &link.name,
                    &s.name,
                    &suffix(&s.sensor_type),
                ),
            });
        }
    }
    for joint in &model.joints {
        let link_id = entity(&scoped(&scoped_model, &joint.child_link));
        let scoped_joint = scoped(&scoped_model, &joint.name);
        for s in &joint.sensors {
            sites.push(SensorSite {
                spec: s,
                scoped_name: scoped(&scoped_joint, &s.name),
                link: link_id,
                pose: joint.pose.compose(s.pose),
                default_topic: default_joint_sensor_topic(
                    world_name,
                    path,
                    &joint.name,
                    &s.name,
                    &suffix(&s.sensor_type),
                ),
            });
        }
    }
    sites
}

/// A `<topic>` or `<trigger_topic>` that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{error}; {fix}")]
pub struct InvalidTopic {
    /// What is wrong with the name.
    pub error: TopicError,
    /// What to do.
    pub fix: &'static str,
}

/// A user-given topic, checked (the defaults are built valid).
fn checked(given: &Option<String>, fix: &'static str) -> Result<Option<String>, InvalidTopic> {
    given
        .as_deref()
        .map(|t| validate_topic(t).map_err(|error| InvalidTopic { error, fix }))
        .transpose()
}

impl SensorSite<'_> {
    /// The sensor's setup: its topic (`<topic>`, `<contact><topic>` for a contact sensor,
    /// else the default), its trigger topic
    /// (`<trigger_topic>`, else `<topic>/trigger`), its frame id (`<frame_id>`, else the
    /// scoped name) and the seed derived from `run_seed` and the scoped name. `entity` is the
    /// sensor's entity, `model` its link's model.
    pub fn plan(
        &self,
        entity: EntityId,
        model: EntityId,
        run_seed: u64,
    ) -> Result<SensorSetup, InvalidTopic> {
        let s = self.spec;
        // A contact sensor publishes on <contact><topic> (gz-sim's Contact system), never on
        // <topic>.
        let topic = if s.sensor_type == "contact" {
            checked(&s.contact_topic, "fix <contact><topic> or remove it")?
        } else {
            checked(&s.topic, "fix <topic> or remove it to use the default name")?
        }
        .unwrap_or_else(|| self.default_topic.clone());
        let trigger_topic = checked(&s.trigger_topic, "fix <trigger_topic>")?
            .unwrap_or_else(|| format!("{topic}/trigger"));
        Ok(SensorSetup {
            entity,
            link: self.link,
            model,
            name: s.name.clone(),
            scoped_name: self.scoped_name.clone(),
            // A custom sensor is served by the library serving its `gz:type`.
            sensor_type: s
                .custom_type
                .clone()
                .unwrap_or_else(|| s.sensor_type.clone()),
            topic,
            frame_id: s
                .frame_id
                .clone()
                .unwrap_or_else(|| self.scoped_name.clone()),
            update_rate: s.update_rate,
            active: s.active,
            triggered: s.triggered,
            trigger_topic,
            enable_metrics: s.enable_metrics,
            pose: self.pose,
            sdf: s.sdf.clone(),
            span: s.span.clone(),
            seed: derive_seed(run_seed, &self.scoped_name),
        })
    }
}
