//! Planning a sensor: what the engine settles about a `<sensor>` before its plugin is created
//! (its scoped name, topics, frame id, seed and entities).

use super::{SensorSetup, derive_seed};
use sim_plugin_api::{EntityId, Pose};
use sim_transport::{TopicError, default_joint_sensor_topic, default_sensor_topic, validate_topic};
use sim_world::{Model, SensorSpec};

/// `parent::name`, the scoped name of an entity inside `parent`.
pub(crate) fn scoped(parent: &str, name: &str) -> String {
    format!("{parent}::{name}")
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
