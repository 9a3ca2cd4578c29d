//! The machinery behind [`export_plugin!`](crate::export_plugin): panic capture inside the
//! plugin library and the items the macro refers to.

use std::cell::RefCell;
use std::sync::Once;

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Installs (once per library) a panic hook that records the message and location of a
/// panic instead of printing it, so that [`crate::guard`] can report it to the engine.
///
/// Each plugin library has its own copy of std and therefore its own hook: this affects
/// only the library that calls it.
pub fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        std::panic::set_hook(Box::new(|info| {
            let payload = info.payload();
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic payload".to_string());
            let text = match info.location() {
                Some(l) => format!("{message} (at {}:{}:{})", l.file(), l.line(), l.column()),
                None => message,
            };
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(text));
        }));
    });
}

/// The message recorded by the hook for the last panic on this thread, if any.
pub fn take_panic_message() -> Option<String> {
    LAST_PANIC.with(|p| p.borrow_mut().take())
}

/// How the factory list [`export_plugin!`](crate::export_plugin) leaves in a library's
/// read-only data begins. The list follows it as NUL-terminated fields, five per factory:
/// the kind (`sensor` or `system`), the factory name, its version, its description, and the
/// names it serves, each followed by `0x1f`; [`LISTING_END`] ends it. The engine reads it from
/// the file to learn what a library serves without opening it, and refuses a library whose
/// list differs from what its root module reports once opened.
pub const LISTING_MAGIC: &[u8] = b"\0simcore.factories.v1\0";

/// The field that ends the factory list (see [`LISTING_MAGIC`]).
pub const LISTING_END: &[u8] = b"simcore.factories.end";

/// The field that begins, right after [`LISTING_END`], the topic suffixes a library's sensor
/// factories declare (`serves: ["gpu_lidar" => "scan"]` in [`export_plugin!`](crate::export_plugin)):
/// NUL-terminated pairs of fields, the sensor type and the suffix of its default topic,
/// ended by [`TOPICS_END`]. A library built before 1.8.0 has none; engines that do not know
/// the section stop reading at [`LISTING_END`].
pub const TOPICS_MAGIC: &[u8] = b"simcore.topics.v1";

/// The field that ends the topic suffixes (see [`TOPICS_MAGIC`]).
pub const TOPICS_END: &[u8] = b"simcore.topics.end";

/// The field that begins, right after [`TOPICS_END`], the gz-sim systems a library's sensor
/// factories stand for (`enabled_by: ["gz::sim::systems::Imu"]` in
/// [`export_plugin!`](crate::export_plugin)): NUL-terminated class names, ended by
/// [`ENABLERS_END`]. A world's `<plugin>` naming such a system needs no library of its own:
/// the sensor plugin does what the system does in gz-sim. A library built before 1.8.0 has
/// none.
pub const ENABLERS_MAGIC: &[u8] = b"simcore.enablers.v1";

/// The field that ends the enabling systems (see [`ENABLERS_MAGIC`]).
pub const ENABLERS_END: &[u8] = b"simcore.enablers.end";

/// The symbol abi_stable looks up in a library. It must equal
/// `abi_stable::library::ROOT_MODULE_LOADER_NAME` (checked by a test); the macro needs it as
/// a literal.
#[doc(hidden)]
#[macro_export]
macro_rules! __root_module_symbol {
    () => {
        "_1as_0lib_1header_0root_bmodule_bloader"
    };
}

/// Exports the plugin library's root module: lists its factories and creates their objects,
/// catching panics at every entry point.
///
/// ```ignore
/// sim_plugin_api::export_plugin! {
///     sensor "my_sensor" {
///         serves: ["my_type" => "reading"],  // default topic: .../sensor/<name>/reading
///         enabled_by: ["acme::systems::MySensors"],  // optional
///         description: "What it measures",
///         create: MySensor::create,   // fn(&SensorConfig, &WorldRef) -> Result<impl Sensor, PluginError>
///     }
///     system "my_system" {
///         serves: ["acme::MySystem"],
///         description: "What it does",
///         create: MySystem::create,   // fn(&SystemConfig, &WorldRef) -> Result<impl System, PluginError>
///     }
/// }
/// ```
///
/// Use it once, at the root of a `cdylib` crate.
///
/// A sensor factory may follow each type it serves with the suffix of its sensors' default
/// topic (`"my_type" => "reading"`: a sensor `s` of that type on link `l` of model `m`
/// publishes on `/world/<w>/model/m/link/l/sensor/s/reading` unless its SDF gives a
/// `<topic>`; `=> ""`: on `.../sensor/s` itself). A type without one gets Gazebo's suffix for
/// it (`imu`, `scan` for `gpu_lidar`, ...), or the type's own name for a type Gazebo does not
/// have.
///
/// A sensor factory may name, with `enabled_by`, the gz-sim systems whose work in gz-sim is
/// to make its sensor types update (`gz::sim::systems::Imu` for `imu`): a world's `<plugin>`
/// naming one is then served by this library's sensors, with no library of its own and no
/// warning (see [`ENABLERS_MAGIC`]).
///
/// Besides the root module, the library carries its factory list as plain data (see
/// [`LISTING_MAGIC`]), so that the engine learns what it serves from the file, without
/// opening it (which would run its code); this is no part of the ABI.
#[macro_export]
macro_rules! export_plugin {
    (
        $(
            $kind:ident $name:literal {
                serves: [$($serve:literal $(=> $suffix:literal)?),* $(,)?],
                $(enabled_by: [$($enabler:literal),* $(,)?],)?
                description: $desc:literal,
                create: $create:path $(,)?
            }
        )*
    ) => {
        #[doc(hidden)]
        mod __simcore_plugin_export {
            #[allow(unused_imports)]
            use super::*;
            use $crate::__private as p;

            /// The factory list as data the engine reads from the file (see
            /// `sim_plugin_api::export::LISTING_MAGIC`).
            const LISTING: &str = concat!(
                "\0simcore.factories.v1\0",
                $(
                    stringify!($kind), "\0", $name, "\0", env!("CARGO_PKG_VERSION"), "\0",
                    $desc, "\0", $($serve, "\x1f",)* "\0",
                )*
                "simcore.factories.end\0",
                "simcore.topics.v1\0",
                $( $( $( $serve, "\0", $suffix, "\0", )? )* )*
                "simcore.topics.end\0",
                "simcore.enablers.v1\0",
                $( $( $( $enabler, "\0", )* )? )*
                "simcore.enablers.end\0"
            );
            static LISTING_BYTES: [u8; LISTING.len()] = match LISTING.as_bytes().first_chunk() {
                Some(bytes) => *bytes,
                None => [0; LISTING.len()],
            };

            static FACTORIES: &[p::FactoryInfo] = &[
                $(
                    p::FactoryInfo {
                        name: p::RStr::from_str($name),
                        kind: $crate::__plugin_kind!($kind),
                        serves: p::RSlice::from_slice(&[$(p::RStr::from_str($serve)),*]),
                        version: p::RStr::from_str(env!("CARGO_PKG_VERSION")),
                        description: p::RStr::from_str($desc),
                    },
                )*
            ];

            extern "C" fn factories() -> p::RSlice<'static, p::FactoryInfo> {
                // Referenced here, so that the linker keeps the listing in the library.
                ::core::hint::black_box(&LISTING_BYTES);
                p::RSlice::from_slice(FACTORIES)
            }

            #[allow(unused_variables)]
            extern "C" fn create_sensor(
                factory: p::RStr<'_>,
                config: &p::SensorConfig<'_>,
                world: p::WorldRef<'_>,
            ) -> p::RResult<p::SensorBox, p::PluginError> {
                $( $crate::__create_arm!(sensor, $kind, factory, $name, $create, config, world); )*
                p::unknown_factory(factory, p::PluginKind::SENSOR)
            }

            #[allow(unused_variables)]
            extern "C" fn create_system(
                factory: p::RStr<'_>,
                config: &p::SystemConfig<'_>,
                world: p::WorldRef<'_>,
            ) -> p::RResult<p::SystemBox, p::PluginError> {
                $( $crate::__create_arm!(system, $kind, factory, $name, $create, config, world); )*
                p::unknown_factory(factory, p::PluginKind::SYSTEM)
            }

            extern "C" fn extension(_name: p::RStr<'_>) -> p::ROption<p::Extension<'static>> {
                p::ROption::RNone
            }

            fn root_module() -> p::PluginModule_Ref {
                $crate::export::install_panic_hook();
                p::module(factories, create_sensor, create_system, extension)
            }

            extern "C" fn erased_root_module() -> p::RootModuleResult {
                p::call_root_module_loader(root_module)
            }

            #[allow(unsafe_code)]
            #[unsafe(export_name = $crate::__root_module_symbol!())]
            #[used]
            pub static LIB_HEADER: p::LibHeader = {
                // SAFETY: `erased_root_module` returns the module type named here, which is
                // what abi_stable requires of the constructor of a library header.
                unsafe { p::LibHeader::from_constructor::<p::PluginModule_Ref>(
                    erased_root_module,
                    p::CheckTypeLayout::Yes,
                ) }
            };
        }
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __plugin_kind {
    (sensor) => {
        $crate::PluginKind::SENSOR
    };
    (system) => {
        $crate::PluginKind::SYSTEM
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __create_arm {
    (sensor, sensor, $factory:ident, $name:literal, $create:path, $config:ident, $world:ident) => {
        if $factory.as_str() == $name {
            return $crate::guard(|| {
                let sensor = $create($config, &$world)?;
                Ok($crate::SensorAbi_TO::from_value(
                    $crate::GuardedSensor(sensor),
                    $crate::__private::TD_Opaque,
                ))
            });
        }
    };
    (system, system, $factory:ident, $name:literal, $create:path, $config:ident, $world:ident) => {
        if $factory.as_str() == $name {
            return $crate::guard(|| {
                let system = $create($config, &$world)?;
                Ok($crate::SystemAbi_TO::from_value(
                    $crate::GuardedSystem(system),
                    $crate::__private::TD_Opaque,
                ))
            });
        }
    };
    (sensor, system, $($rest:tt)*) => {};
    (system, sensor, $($rest:tt)*) => {};
}
