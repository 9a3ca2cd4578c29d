//! Items the export macro expands to. Not part of the public API.

pub use crate::{
    Extension, FactoryInfo, PluginError, PluginKind, PluginModule, PluginModule_Ref, SensorBox,
    SensorConfig, SystemBox, SystemConfig, WorldRef,
};
pub use abi_stable::{
    library::{CheckTypeLayout, LibHeader, RootModuleResult},
    prefix_type::PrefixTypeTrait,
    sabi_trait::TD_Opaque,
    std_types::{ROption, RResult, RSlice, RStr},
};

/// Calls a root-module constructor the way abi_stable's own export attribute does.
pub fn call_root_module_loader(f: fn() -> PluginModule_Ref) -> RootModuleResult {
    abi_stable::library::__call_root_module_loader(f)
}

/// Builds and leaks the root module.
pub fn module(
    factories: extern "C" fn() -> RSlice<'static, FactoryInfo>,
    create_sensor: extern "C" fn(
        RStr<'_>,
        &SensorConfig<'_>,
        WorldRef<'_>,
    ) -> RResult<SensorBox, PluginError>,
    create_system: extern "C" fn(
        RStr<'_>,
        &SystemConfig<'_>,
        WorldRef<'_>,
    ) -> RResult<SystemBox, PluginError>,
    extension: extern "C" fn(RStr<'_>) -> ROption<Extension<'static>>,
) -> PluginModule_Ref {
    PluginModule {
        factories,
        create_sensor,
        create_system,
        extension,
    }
    .leak_into_prefix()
}

/// The error for a factory name the library does not have.
pub fn unknown_factory<T>(factory: RStr<'_>, kind: PluginKind) -> RResult<T, PluginError> {
    RResult::RErr(PluginError::new(
        crate::ErrorCode::UNKNOWN_FACTORY,
        format!(
            "this library has no {} factory named `{}`",
            kind.name(),
            factory
        ),
    ))
}
