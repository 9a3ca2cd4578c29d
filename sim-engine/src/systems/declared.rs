//! The engine's side of the `simcore.input_types.v1` extension: the types a system declares
//! for its inputs while its factory creates it (see [`sim_plugin_api::input_types`]).
//!
//! The extension is offered on the world a system factory's `create` receives, because the
//! inputs are announced to clients outside, and `--pub` checked, before the first step. The
//! kind, the topic and the count are checked during the call; whether the topic is one of
//! the system's subscriptions when it is registered
//! ([`SystemManager::add_declared`](super::SystemManager::add_declared)), after `create`
//! returned.

use super::commands::resolve_topic;
use super::inputs::{InputType, declarable, kind_type};
pub use crate::outputs::MAX_DECLARED_TOPIC_BYTES;
use crate::outputs::{answer, declared_topic, keep, shown};
use sim_plugin_api::{
    InputTypes, MAX_INPUT_TYPES,
    abi_stable::std_types::{RResult, RStr, RString},
};
use std::cell::RefCell;

/// One input type a system declared.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclaredInput {
    /// The topic, resolved against the system's namespace.
    pub topic: String,
    /// The type it reads there.
    pub ty: InputType,
}

/// The declarations of one system's creation, in order (a later one for the same topic
/// replaces the earlier).
#[derive(Debug)]
pub struct InputDeclarations {
    who: String,
    namespace: String,
    declared: RefCell<Vec<DeclaredInput>>,
}

impl InputDeclarations {
    /// Declarations of the system `who` (`plugin NAME (on ENTITY)`, as warnings name it),
    /// whose relative topics resolve below `namespace`.
    pub fn new(who: String, namespace: &str) -> Self {
        InputDeclarations {
            who,
            namespace: namespace.to_string(),
            declared: RefCell::new(Vec::new()),
        }
    }

    /// What was declared.
    pub fn take(&self) -> Vec<DeclaredInput> {
        std::mem::take(&mut self.declared.borrow_mut())
    }

    fn check(&self, topic: &str, kind: &str) -> Result<(), String> {
        let resolved = declared_topic(topic, |t| resolve_topic(&self.namespace, t))?;
        let Some(ty) = kind_type(kind) else {
            let kinds: Vec<&str> = declarable().map(|k| k.message).collect();
            return Err(format!(
                "`{resolved}`: simcore reads no payload kind `{}` from outside (the kinds: {})",
                shown(kind),
                kinds.join(", ")
            ));
        };
        let entry = DeclaredInput {
            topic: resolved,
            ty,
        };
        keep(
            &mut self.declared.borrow_mut(),
            entry,
            MAX_INPUT_TYPES,
            |d| &d.topic,
        )
        .map_err(|d| {
            format!(
                "`{}`: a system declares the types of at most {MAX_INPUT_TYPES} inputs",
                d.topic
            )
        })
    }
}

impl InputTypes for InputDeclarations {
    fn declare(&self, topic: RStr<'_>, kind: RStr<'_>) -> RResult<(), RString> {
        answer(
            &self.who,
            "an input type",
            self.check(topic.as_str(), kind.as_str()),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declarations() -> InputDeclarations {
        InputDeclarations::new("plugin P (on m)".into(), "/model/m")
    }

    fn declare(d: &InputDeclarations, topic: &str, kind: &str) -> Result<(), String> {
        d.declare(topic.into(), kind.into())
            .into_result()
            .map_err(String::from)
    }

    #[test]
    fn declarations_resolve_and_replace() {
        let d = declarations();
        declare(&d, "cmd", "Twist").unwrap();
        declare(&d, "/abs/level", "Double").unwrap();
        declare(&d, "cmd", "Boolean").unwrap();
        let got: Vec<(String, &str)> = d
            .take()
            .into_iter()
            .map(|i| (i.topic, i.ty.ros.name))
            .collect();
        assert_eq!(
            got,
            [
                ("/model/m/cmd".to_string(), "std_msgs/msg/Bool"),
                ("/abs/level".to_string(), "std_msgs/msg/Float64"),
            ]
        );
    }

    #[test]
    fn an_unknown_kind_is_refused_with_the_kinds() {
        let d = declarations();
        let e = declare(&d, "cmd", "Quaternion").unwrap_err();
        assert!(e.contains("`/model/m/cmd`"), "{e}");
        assert!(e.contains("no payload kind `Quaternion`"), "{e}");
        assert!(e.contains("Twist"), "{e}");
        let e = declare(&d, "cmd", "Custom").unwrap_err();
        assert!(e.contains("`Custom`"), "{e}");
        let long = "K".repeat(100_000);
        let e = declare(&d, "cmd", &long).unwrap_err();
        assert!(e.len() < 2000, "the message is bounded: {} bytes", e.len());
        assert!(d.take().is_empty());
    }

    #[test]
    fn an_invalid_topic_is_refused() {
        let d = declarations();
        let e = declare(&d, "bad topic", "Twist").unwrap_err();
        assert!(e.contains("whitespace"), "{e}");
        let e = declare(&d, &"t".repeat(MAX_DECLARED_TOPIC_BYTES + 1), "Twist").unwrap_err();
        assert!(e.contains("over 1024 bytes"), "{e}");
        assert!(e.len() < 300, "{e}");
        assert!(d.take().is_empty());
    }

    #[test]
    fn declarations_are_bounded() {
        let d = declarations();
        for i in 0..MAX_INPUT_TYPES {
            declare(&d, &format!("in{i}"), "Double").unwrap();
        }
        let e = declare(&d, "one_more", "Double").unwrap_err();
        assert!(e.contains("at most 64 inputs"), "{e}");
        // Replacing one already declared is not one more.
        declare(&d, "in3", "Twist").unwrap();
        let got = d.take();
        assert_eq!(got.len(), MAX_INPUT_TYPES);
        assert_eq!(got[3].ty.message, "Twist");
    }

    /// A system subscribing to `cmd` (relative) and `/abs/raw`.
    struct Subscriber;

    impl sim_plugin_api::System for Subscriber {
        fn subscriptions(&self) -> Vec<String> {
            vec!["cmd".into(), "/abs/raw".into()]
        }
    }

    fn registered(name: &str, inputs: &[(&str, &str)]) -> crate::systems::SystemManager {
        use sim_plugin_api::{GuardedSystem, SystemAbi_TO, abi_stable::sabi_trait::TD_Opaque};
        let setup = super::super::SystemSetup {
            entity: sim_plugin_api::EntityId(2),
            entity_name: "m".into(),
            name: name.into(),
            filename: String::new(),
            sdf: "<plugin/>".into(),
            span: Default::default(),
            seed: 0,
            namespace: "/model/m".into(),
            post_step_serves: Vec::new(),
        };
        let d = declarations();
        for (topic, kind) in inputs {
            declare(&d, topic, kind).unwrap();
        }
        let mut systems = crate::systems::SystemManager::new();
        let plugin = SystemAbi_TO::from_value(GuardedSystem(Subscriber), TD_Opaque);
        let mut bus = sim_transport::Bus::new();
        systems
            .add_declared(setup, plugin, "lib".into(), &mut bus, d.take(), Vec::new())
            .unwrap();
        systems
    }

    fn types(systems: &crate::systems::SystemManager, topic: &str) -> Vec<&'static str> {
        systems
            .input_types(topic)
            .into_iter()
            .map(|(_, t)| t.ros.name)
            .collect()
    }

    #[test]
    fn registration_keeps_the_declarations_of_subscribed_topics() {
        let systems = registered(
            "acme::Mover",
            &[
                ("cmd", "Twist"),
                ("elsewhere", "Double"),
                ("/abs/raw", "Int64"),
            ],
        );
        assert_eq!(types(&systems, "/model/m/cmd"), ["geometry_msgs/msg/Twist"]);
        assert_eq!(types(&systems, "/abs/raw"), ["std_msgs/msg/Int64"]);
        assert!(
            types(&systems, "/model/m/elsewhere").is_empty(),
            "a topic it does not subscribe to is not an input"
        );
        let undeclared = registered("acme::Mover", &[]);
        assert!(types(&undeclared, "/model/m/cmd").is_empty());
    }

    #[test]
    fn systems_serve_their_inputs_and_declared_outputs() {
        use crate::outputs::DeclaredOutput;
        use crate::runner::Direction;
        use sim_plugin_api::{GuardedSystem, SystemAbi_TO, abi_stable::sabi_trait::TD_Opaque};
        let setup = super::super::SystemSetup {
            entity: sim_plugin_api::EntityId(2),
            entity_name: "m".into(),
            name: "gz::sim::systems::DiffDrive".into(),
            filename: String::new(),
            sdf: "<plugin/>".into(),
            span: Default::default(),
            seed: 0,
            namespace: "/model/m".into(),
            post_step_serves: Vec::new(),
        };
        let mut systems = crate::systems::SystemManager::new();
        let mut bus = sim_transport::Bus::new();
        let outputs = vec![DeclaredOutput {
            topic: "/model/m/odometry".into(),
            kind: "Odometry",
        }];
        let d = declarations();
        declare(&d, "cmd", "Twist").unwrap();
        declare(&d, "/abs/raw", "Boolean").unwrap();
        let plugin = SystemAbi_TO::from_value(GuardedSystem(Subscriber), TD_Opaque);
        systems
            .add_declared(setup, plugin, "lib".into(), &mut bus, d.take(), outputs)
            .unwrap();
        let mut rows = Vec::new();
        systems.served_topics(&bus, &mut rows);
        let got: Vec<_> = rows
            .iter()
            .map(|r| (r.topic.as_str(), r.direction, r.kind, r.by.as_str()))
            .collect();
        let by = "plugin gz::sim::systems::DiffDrive (on m)";
        assert_eq!(
            got,
            [
                ("/model/m/cmd", Direction::In, Some("Twist"), by),
                ("/abs/raw", Direction::In, Some("Boolean"), by),
                ("/model/m/odometry", Direction::Out, Some("Odometry"), by),
            ]
        );
    }

    #[test]
    fn a_system_s_inputs_are_typed_by_its_declarations_alone() {
        // Whatever its name: the engine keeps no table of systems.
        let undeclared = registered("gz::sim::systems::DiffDrive", &[]);
        assert!(types(&undeclared, "/model/m/cmd").is_empty());
        assert!(types(&undeclared, "/abs/raw").is_empty());
        let declared = registered("gz::sim::systems::DiffDrive", &[("cmd", "Double")]);
        assert_eq!(types(&declared, "/model/m/cmd"), ["std_msgs/msg/Float64"]);
        assert!(types(&declared, "/abs/raw").is_empty());
    }
}
