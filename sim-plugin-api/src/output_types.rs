//! The `simcore.output_types.v1` extension of [`WorldView`](crate::WorldView): a sensor or a
//! system names, when it is created, each topic it will publish on and the message type it
//! publishes there, so that the engine can list what a run serves (`simcore run --list`) and
//! check the names a user asks for (`--echo`) before anything was published.
//!
//! Without declarations the engine knows a plugin's outputs only once it published on them
//! (and a sensor's own topic, untyped). A declaration names the topic, resolved as the
//! plugin's publications are (see the [guide's topic rules](crate::guide::topics): for a
//! sensor `""` is its own topic and a relative topic lies below it, for a system a relative
//! topic lies in its namespace), and the kind of [`Payload`] published there, as
//! [`Payload::type_name`] spells it (`"Odometry"`, `"Pose_V"`, `"CameraInfo"`, `"Custom"`,
//! ...). The engine answers an error for a kind it does not know, for an invalid topic and
//! past [`MAX_OUTPUT_TYPES`] declarations.
//!
//! The engine offers it only on the world a sensor's or system's factory `create` receives:
//! the outputs are listed before the first step, so a declaration made later would come too
//! late. A declaration promises nothing about when (or whether) the plugin publishes; a topic
//! it publishes on without declaring it is still published, and listed from then on.
//!
//! ```ignore
//! fn create(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
//!     // An engine without the extension (older than 1.7) lists the outputs once published.
//!     sim_plugin_api::declare_outputs(world, &[("odometry", "Odometry"), ("tf", "Pose_V")]);
//!     Ok(Self::new(config))
//! }
//! ```
//!
//! An engine appends methods to [`OutputTypes`] only after its last one, so a plugin built
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
/// [`OutputTypes`].
pub const OUTPUT_TYPES_EXTENSION: &str = "simcore.output_types.v1";

/// The most declarations one plugin may make (a later one for a topic already declared
/// replaces it and does not count again).
pub const MAX_OUTPUT_TYPES: usize = 64;

/// The message types of a plugin's outputs (see the [module docs](self)).
#[sabi_trait]
pub trait OutputTypes {
    /// Declares that the plugin publishes payloads of `kind`
    /// ([`Payload::type_name`](crate::Payload::type_name)) on `topic` (relative topics
    /// resolve as the plugin's publications do). An error says why the declaration was
    /// refused: a kind the engine does not know, an invalid topic, or more than
    /// [`MAX_OUTPUT_TYPES`] declarations.
    #[sabi(last_prefix_field)]
    fn declare(&self, topic: RStr<'_>, kind: RStr<'_>) -> RResult<(), RString>;
}

/// The output types extension as plugins receive it.
pub type OutputTypesRef<'a> = OutputTypes_TO<'a, RRef<'a, ()>>;

/// The engine's [`OutputTypes`] on `world`, or `None` when the engine does not offer it (an
/// engine older than 1.7, or a world outside a factory's `create`).
pub fn output_types<'w>(world: &'w WorldRef<'_>) -> Option<&'w OutputTypesRef<'w>> {
    world
        .extension(OUTPUT_TYPES_EXTENSION.into())
        .into_option()
        .and_then(|e| e.get::<OutputTypesRef<'w>>())
}

/// Declares each `(topic, kind)` of `outputs` (see [`OutputTypes::declare`]) when the engine
/// offers the extension on `world`; returns the reasons of the declarations it refused (the
/// engine also logs them, naming the plugin). Nothing is declared, and nothing refused, by
/// an engine without it.
pub fn declare_outputs<T: AsRef<str>>(world: &WorldRef<'_>, outputs: &[(T, &str)]) -> Vec<String> {
    let Some(types) = output_types(world) else {
        return Vec::new();
    };
    outputs
        .iter()
        .filter_map(|(topic, kind)| {
            types
                .declare(topic.as_ref().into(), (*kind).into())
                .into_result()
                .err()
                .map(String::from)
        })
        .collect()
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

    impl OutputTypes for Recorder {
        fn declare(&self, topic: RStr<'_>, kind: RStr<'_>) -> RResult<(), RString> {
            if kind.as_str() != "Odometry" {
                return RErr(format!("no kind `{kind}`").into());
            }
            self.0.borrow_mut().push((topic.into(), kind.into()));
            ROk(())
        }
    }

    #[test]
    fn declarations_reach_the_provider_through_an_extension() {
        let r = Recorder::default();
        let object: OutputTypesRef<'_> = OutputTypes_TO::from_ptr(RRef::new(&r), TD_Opaque);
        let ext = Extension::new(&object);
        let back = ext.get::<OutputTypesRef<'_>>().expect("same trait");
        assert_eq!(back.declare("odom".into(), "Odometry".into()), ROk(()));
        assert_eq!(
            back.declare("odom".into(), "Nope".into()),
            RErr("no kind `Nope`".into())
        );
        assert_eq!(
            *r.0.borrow(),
            [("odom".to_string(), "Odometry".to_string())]
        );
        assert!(ext.get::<crate::InputTypesRef<'_>>().is_none());
    }

    #[test]
    fn without_the_extension_nothing_is_declared_or_refused() {
        let world = crate::testing::StaticWorld::default();
        let refused = world.with(|w| {
            assert!(output_types(&w).is_none());
            declare_outputs(&w, &[("odom", "Odometry"), ("x", "Nope")])
        });
        assert!(refused.is_empty());
    }
}
