//! What a system reads on its inputs, declared to the engine (the `simcore.input_types.v1`
//! extension, [`sim_plugin_api::input_types()`]): the engine then announces each input with its
//! ROS 2 type and refuses a `--pub` of another type there.

use sim_plugin_api::{System, WorldRef};

/// Declares the payload kind `system` reads on each of its subscriptions, in their order
/// (`kinds[i]` for `system.subscriptions()[i]`), when the engine offers the extension on
/// `world` (a system factory's `create`); returns the reasons of the declarations the engine
/// refused (it also logs them, naming the plugin).
pub fn declare_inputs(world: &WorldRef<'_>, system: &impl System, kinds: &[&str]) -> Vec<String> {
    let Some(types) = sim_plugin_api::input_types(world) else {
        return Vec::new();
    };
    system
        .subscriptions()
        .iter()
        .zip(kinds)
        .filter_map(|(topic, kind)| {
            types
                .declare(topic.as_str().into(), (*kind).into())
                .into_result()
                .err()
                .map(String::from)
        })
        .collect()
}
