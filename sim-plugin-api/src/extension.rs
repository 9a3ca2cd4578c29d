//! Versioned extensions: how the 1.x ABI grows without breaking plugins already built.
//!
//! abi_stable checks, when a library loads, that every type reachable from its root module
//! matches the engine's copy, and for traits and prefix structs it accepts only a library
//! whose copy has *at least* the engine's fields. A method the engine adds to
//! [`WorldView`](crate::WorldView) would therefore make every older plugin fail to load. So the
//! traits reachable from the root module are frozen for 1.x, and anything new is an
//! *extension*: a separate `#[sabi_trait]` object (or `#[repr(C)]` struct) that a plugin asks
//! for by name at run time:
//!
//! ```ignore
//! if let Some(scene) = world.extension("simcore.scene".into()).into_option()
//!     .and_then(|e| e.get::<SceneExt_TO<'_, RRef<'_, ()>>>())
//! {
//!     /* use the newer capability */
//! }
//! ```
//!
//! [`Extension::get`] checks the layout the plugin was compiled with against the layout the
//! engine provides, with the plugin's copy as the interface, so an engine may later append
//! methods to an extension trait and older plugins keep working; a plugin newer than the
//! engine simply gets `None` and can fall back.

use abi_stable::{
    RRef, StableAbi, abi_stability::check_layout_compatibility, type_layout::TypeLayout,
};

/// A type-checked, borrowed object handed across the boundary by name.
#[repr(C)]
#[derive(StableAbi, Copy, Clone)]
pub struct Extension<'a> {
    layout: &'static TypeLayout,
    object: RRef<'a, ()>,
}

impl<'a> Extension<'a> {
    /// Wraps `object` so that it can be handed out by [`crate::WorldView::extension`] or a
    /// plugin's `extension` hook.
    pub fn new<T: StableAbi>(object: &'a T) -> Self {
        let object = RRef::new(object);
        // SAFETY: only the pointer's type is erased; `get` restores it after checking that
        // the requested type's layout is compatible with `T::LAYOUT`.
        #[allow(unsafe_code)]
        let object = unsafe { object.transmute::<()>() };
        Extension {
            layout: T::LAYOUT,
            object,
        }
    }

    /// The object as a `T`, if `T` (as the caller was compiled) is layout-compatible with
    /// what the provider built. `None` when the versions do not fit.
    ///
    /// The check walks both layouts (about a million instructions for a trait object), so a
    /// pair of layouts found compatible is remembered: later lookups of the same extension,
    /// once per frame or scan, cost a comparison.
    pub fn get<T: StableAbi>(self) -> Option<&'a T> {
        let pair = (
            std::ptr::from_ref(T::LAYOUT) as usize,
            std::ptr::from_ref(self.layout) as usize,
        );
        if !checked(pair) {
            check_layout_compatibility(T::LAYOUT, self.layout)
                .into_result()
                .ok()?;
            remember(pair);
        }
        // SAFETY: abi_stable's layout check above (or an earlier one of the same two
        // `'static` layouts) guarantees that a `T` as the caller sees it
        // is a valid prefix-compatible view of the object the provider wrapped in `new`.
        #[allow(unsafe_code)]
        let object = unsafe { self.object.transmute_into_ref::<T>() };
        Some(object)
    }
}

/// The most layout pairs remembered as compatible (a plugin asks for a few extensions).
const REMEMBERED: usize = 64;

/// Layout pairs (the asker's, the provider's; both `'static`) found compatible.
static COMPATIBLE: std::sync::RwLock<Vec<(usize, usize)>> = std::sync::RwLock::new(Vec::new());

/// Whether `pair` was found compatible before.
fn checked(pair: (usize, usize)) -> bool {
    COMPATIBLE
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .contains(&pair)
}

/// Remembers that `pair` is compatible (while fewer than [`REMEMBERED`] are).
fn remember(pair: (usize, usize)) {
    let mut known = COMPATIBLE.write().unwrap_or_else(|e| e.into_inner());
    if known.len() < REMEMBERED && !known.contains(&pair) {
        known.push(pair);
    }
}

impl core::fmt::Debug for Extension<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Extension")
            .field("type", &self.layout.full_type().to_string())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use abi_stable::sabi_trait;
    use abi_stable::sabi_trait::TD_Opaque;

    #[repr(C)]
    #[derive(StableAbi)]
    struct Counter {
        value: u32,
    }
    #[repr(C)]
    #[derive(StableAbi)]
    struct Other {
        a: f64,
        b: f64,
    }

    #[sabi_trait]
    trait Greeter {
        fn greet(&self) -> u32;
    }
    struct Hello;
    impl Greeter for Hello {
        fn greet(&self) -> u32 {
            42
        }
    }

    #[test]
    fn round_trip_and_refusal() {
        let c = Counter { value: 7 };
        let ext = Extension::new(&c);
        assert_eq!(ext.get::<Counter>().map(|c| c.value), Some(7));
        assert!(
            ext.get::<Other>().is_none(),
            "an incompatible type must be refused"
        );

        let hello = Hello;
        let obj: Greeter_TO<'_, RRef<'_, ()>> = Greeter_TO::from_ptr(RRef::new(&hello), TD_Opaque);
        let ext = Extension::new(&obj);
        let back = ext
            .get::<Greeter_TO<'_, RRef<'_, ()>>>()
            .expect("same trait");
        assert_eq!(back.greet(), 42);
        assert!(ext.get::<Counter>().is_none());
    }
}
