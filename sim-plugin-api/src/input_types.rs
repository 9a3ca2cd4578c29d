//! The `simcore.input_types.v1` extension of [`WorldView`](crate::WorldView): a system names
//! the message type it reads on each of its subscriptions, so that the engine can announce
//! those inputs to clients outside with their type (over Zenoh, a typed subscription that
//! ROS 2 tools discover) and check what is published there.
//!
//! The interface names a subscription's topic, not its type, so without a declaration the
//! engine offers such an input untyped. A declaration names the kind of [`Payload`] the
//! system reads there, as [`Payload::type_name`] spells it (`"Twist"`, `"Double"`,
//! `"Boolean"`, ...); the engine answers an error for a kind it cannot read from outside, for
//! an invalid topic and past [`MAX_INPUT_TYPES`] declarations.
//!
//! The engine offers it only on the world a system factory's `create` receives: the inputs
//! are announced, and `--pub` checked, before the first step, so a declaration made later
//! would come too late. Whether the topic is one the system subscribes to is checked once
//! `create` has returned and the engine has read [`System::subscriptions`](crate::System::subscriptions):
//! a declaration for another topic is dropped then, with a warning naming the plugin and the
//! topic.
//!
//! ```ignore
//! fn create(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
//!     if let Some(types) = sim_plugin_api::input_types(world) {
//!         if let RErr(why) = types.declare("cmd_vel".into(), "Twist".into()) { /* ... */ }
//!     }
//!     // An engine without the extension: the input stays untyped.
//!     Ok(Self::new(config))
//! }
//! ```
//!
//! An engine appends methods to [`InputTypes`] only after its last one, so a plugin built
//! against this version keeps working with later engines.
//!
//! [`Payload`]: crate::Payload
//! [`Payload::type_name`]: crate::Payload::type_name

use crate::WorldRef;
use abi_stable::{
    RRef, sabi_trait,
    std_types::{RResult, RStr, RString},
};

/// The name under which [`WorldView::extension`](crate::WorldView::extension) hands out
/// [`InputTypes`].
pub const INPUT_TYPES_EXTENSION: &str = "simcore.input_types.v1";

/// The most declarations one system may make (a later one for a topic already declared
/// replaces it and does not count again).
pub const MAX_INPUT_TYPES: usize = 64;

/// The message types of a system's inputs (see the [module docs](self)).
#[sabi_trait]
pub trait InputTypes {
    /// Declares that the system reads payloads of `kind` ([`Payload::type_name`](crate::Payload::type_name))
    /// on `topic` (relative topics resolve as the system's subscriptions do). An error says
    /// why the declaration was refused: a kind the engine does not read from outside, an
    /// invalid topic, or more than [`MAX_INPUT_TYPES`] declarations.
    #[sabi(last_prefix_field)]
    fn declare(&self, topic: RStr<'_>, kind: RStr<'_>) -> RResult<(), RString>;
}

/// The input types extension as plugins receive it.
pub type InputTypesRef<'a> = InputTypes_TO<'a, RRef<'a, ()>>;

/// The engine's [`InputTypes`] on `world`, or `None` when the engine does not offer it (an
/// engine older than 1.6, or a world outside a system factory's `create`).
pub fn input_types<'w>(world: &'w WorldRef<'_>) -> Option<&'w InputTypesRef<'w>> {
    world
        .extension(INPUT_TYPES_EXTENSION.into())
        .into_option()
        .and_then(|e| e.get::<InputTypesRef<'w>>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Extension;
    use abi_stable::sabi_trait::TD_Opaque;
    use abi_stable::std_types::{RErr, ROk};
    use std::cell::RefCell;

    #[derive(Default)]
    struct Recorder(RefCell<Vec<(String, String)>>);

    impl InputTypes for Recorder {
        fn declare(&self, topic: RStr<'_>, kind: RStr<'_>) -> RResult<(), RString> {
            if kind.as_str() != "Twist" {
                return RErr(format!("no kind `{kind}`").into());
            }
            self.0.borrow_mut().push((topic.into(), kind.into()));
            ROk(())
        }
    }

    #[test]
    fn declarations_reach_the_provider_through_an_extension() {
        let r = Recorder::default();
        let object: InputTypesRef<'_> = InputTypes_TO::from_ptr(RRef::new(&r), TD_Opaque);
        let ext = Extension::new(&object);
        let back = ext.get::<InputTypesRef<'_>>().expect("same trait");
        assert_eq!(back.declare("cmd".into(), "Twist".into()), ROk(()));
        assert_eq!(
            back.declare("cmd".into(), "Nope".into()),
            RErr("no kind `Nope`".into())
        );
        assert_eq!(*r.0.borrow(), [("cmd".to_string(), "Twist".to_string())]);
        assert!(ext.get::<crate::ModelPlugins>().is_none());
    }
}
