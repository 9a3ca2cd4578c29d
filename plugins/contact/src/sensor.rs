//! The contact sensor: what it reports and how.
//!
//! At creation each `<contact><collision>` name is resolved to the collision entity
//! `model::link::NAME` of the sensor's link; an unknown name is a configuration error naming
//! it and the link. Every update asks the engine for the contact points of the last step
//! involving those collisions and publishes them all as one `Contacts` message, with the named
//! collision as `collision1`. Unlike Gazebo, which publishes only when there are contacts, an
//! update with nothing touching publishes an empty list, so that subscribers see "no contact"
//! at the sensor's rate rather than silence.

use crate::config::{ContactConfig, collision_elements};
use sim_plugin_api::sdf::Element;
use sim_plugin_api::{
    ContactPoint,
    abi_stable::std_types::{RBox, RSlice, RVec},
    prelude::*,
};
use simcore_plugin_common::SdfSensor;

/// A contact sensor (SDF `<sensor type="contact">` in a link).
#[derive(Clone, Debug)]
pub struct ContactSensor {
    collisions: Vec<EntityId>,
    /// Reused between updates.
    buffer: RVec<ContactPoint>,
}

impl SdfSensor for ContactSensor {
    /// Reads `<contact>` and resolves each `<collision>` it names to a collision of the
    /// sensor's link; an unknown name is a configuration error naming it and the link.
    fn build(
        config: &SensorConfig<'_>,
        sdf: &Element<'_, '_>,
        world: &WorldRef<'_>,
    ) -> Result<Self, PluginError> {
        let scoped_name = config.scoped_name.as_str();
        let contact = ContactConfig::read(sdf)?;
        let link = world
            .entity_info(config.link)
            .into_option()
            .map(|l| l.scoped_name.as_str().to_string())
            .ok_or_else(|| {
                PluginError::config(format!(
                    "{scoped_name}: its link (entity {}) is not in the world",
                    config.link.0
                ))
            })?;
        if contact.collisions.is_empty() {
            world.log_message(
                LogLevel::WARN,
                &format!(
                    "{scoped_name}: no <contact><collision> names a collision of link `{link}`: \
                     the sensor reports no contacts"
                ),
            );
        }
        let mut collisions = Vec::with_capacity(contact.collisions.len());
        for name in &contact.collisions {
            let scoped = format!("{link}::{name}");
            let id = world.entity_by_name(scoped.as_str().into());
            let is_collision = world
                .entity_info(id)
                .into_option()
                .is_some_and(|e| e.kind == EntityKind::COLLISION);
            if !is_collision {
                let element = collision_elements(sdf)
                    .find(|c| c.text() == name)
                    .unwrap_or(*sdf);
                let expected = format!("the name of a collision of link `{link}`");
                return Err(element.error(expected, name.as_str()).into());
            }
            collisions.push(id);
        }
        Ok(ContactSensor::new(collisions))
    }

    fn outputs(&self) -> Vec<(String, &'static str)> {
        vec![(String::new(), "Contacts")]
    }
}

impl ContactSensor {
    /// A sensor reporting the contacts of `collisions` (collision entities).
    pub fn new(collisions: Vec<EntityId>) -> Self {
        ContactSensor {
            collisions,
            buffer: RVec::new(),
        }
    }

    /// The collision entities it reports on, in `<collision>` order.
    pub fn collisions(&self) -> &[EntityId] {
        &self.collisions
    }
}

impl Sensor for ContactSensor {
    fn update(
        &mut self,
        _ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        world.contacts(RSlice::from_slice(&self.collisions), &mut self.buffer);
        let contacts = self.buffer.clone();
        out.publish("", Payload::Contacts(RBox::new(contacts)));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::testing::{StaticWorld, sensor_config};

    #[test]
    fn an_unknown_collision_names_its_element_and_place() {
        let mut w = StaticWorld::default();
        w.set_entity(EntityId(2), EntityKind::LINK, EntityId(1), "b::body");
        w.set_entity(
            EntityId(3),
            EntityKind::COLLISION,
            EntityId(2),
            "b::body::c",
        );
        let text = "<sensor name='touch' type='contact'>\n  <contact>\n    \
                    <collision>c</collision>\n    <collision>bumper</collision>\n  </contact>\n</sensor>";
        let config = sensor_config("b::body::touch", "contact", EntityId(2), text)
            .with_source("world.sdf", 40);
        let e = w.with(|w| ContactSensor::create(&config, &w)).unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "b::body::touch: <contact><collision> must be the name of a collision of link \
             `b::body`, found \"bumper\" at world.sdf:43"
        );
        let text = "<sensor><contact><collision>c</collision></contact></sensor>";
        let config = sensor_config("b::body::touch", "contact", EntityId(2), text);
        let s = w.with(|w| ContactSensor::create(&config, &w)).unwrap();
        assert_eq!(s.collisions(), [EntityId(3)]);
    }
}
