//! The message type each system reads on each of its subscriptions. The plugin interface
//! names a subscription's topic, not its type, so the engine knows it from what a system
//! declared through the `simcore.input_types.v1` extension while it was created
//! ([`InputDeclarations`](super::InputDeclarations), the kinds of [`declarable`], each read
//! from the ROS type [`sim_codec::kinds`] names); the systems simcore ships declare theirs as
//! any plugin does, so the engine holds no table of them. `simcore run` refuses a `--pub` of
//! another type to such an input, and the Zenoh transport gives the input's subscription an
//! `MS` token of its ROS type. Any other input (or one whose type its SDF chooses, as
//! TriggeredPublisher's) reads whatever arrives.

use super::{SystemManager, SystemSetup};
use sim_codec::RosType;

/// The type a system reads on one of its inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputType {
    /// The engine's message type, as `--echo` prints it and `--pub` writes it
    /// ([`sim_plugin_api::Payload::type_name`]).
    pub message: &'static str,
    /// Its ROS 2 type.
    pub ros: &'static RosType,
}

/// The input type of payload kind `kind`: the ROS 2 type the engine decodes it from
/// ([`sim_codec::kinds`]' `read_from`), if a system may declare it (every kind with a ROS
/// form).
pub fn kind_type(kind: &str) -> Option<InputType> {
    let k = sim_codec::kinds::kind_named(kind)?;
    Some(InputType {
        message: k.name,
        ros: k.read_from?,
    })
}

/// The payload kinds a system may declare for an input, in [`Payload`]'s order.
///
/// [`Payload`]: sim_plugin_api::Payload
pub fn declarable() -> impl Iterator<Item = InputType> {
    sim_codec::kinds::KINDS
        .iter()
        .filter_map(|k| kind_type(k.name))
}

impl SystemManager {
    /// The active systems that subscribe to `topic` and declared the type they read there,
    /// in load order.
    pub fn input_types(&self, topic: &str) -> Vec<(&SystemSetup, InputType)> {
        self.slots
            .iter()
            .filter(|s| s.plugin.is_some())
            .filter_map(|s| {
                let i = s.subscriptions.iter().position(|t| t.topic() == topic)?;
                let declared = s.declared[i];
                Some((&s.setup, declared?))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_codec::catalog;

    /// A system may declare every kind with a ROS form, read from the type the inbound
    /// decoder reads it from (a ROS type it does not know is refused as unknown, whatever
    /// the bytes), which is in the catalogue.
    #[test]
    fn every_declarable_kind_is_decoded_from_its_ros_type() {
        assert_eq!(declarable().count(), sim_codec::kinds::KINDS.len() - 1);
        for k in declarable() {
            let r = sim_codec::decode(k.ros.name, &[0, 1, 0, 0]);
            assert!(
                !matches!(r, Err(sim_codec::DecodeError::UnknownType(_))),
                "{}: {r:?}",
                k.message
            );
            assert!(catalog::ALL.contains(&k.ros), "{}", k.ros.name);
            assert_eq!(kind_type(k.message), Some(k));
        }
        let pose = kind_type("Pose").unwrap();
        assert_eq!(
            pose.ros,
            &catalog::POSE_STAMPED,
            "a pose is sent as a PoseStamped"
        );
        let empty = sim_codec::decode(catalog::EMPTY.name, &[0, 1, 0, 0, 0]).unwrap();
        assert_eq!(empty.type_name(), "Empty");
        assert_eq!(kind_type("Quaternion"), None);
        assert_eq!(kind_type("Custom"), None, "Custom has no ROS form");
    }
}
