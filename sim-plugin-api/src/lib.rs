//! # sim-plugin-api: the stable plugin ABI of simcore
//!
//! Sensor and system (world/model) plugins are `cdylib` crates that depend on this crate
//! only. The engine loads them at run time through [abi_stable], which checks, before any
//! plugin code runs, that the library was built against the same major version of this crate
//! and that every type crossing the boundary has the layout the engine expects. A library
//! that fails a check is refused with a one-line reason; it never crashes the engine.
//!
//! The major version of this crate is the ABI: a plugin built against 1.x loads into every
//! engine built against a later 1.y, from 1.2.0 on (see [Versions](#versions-and-the-abi-epoch)).
//! To keep that promise the traits and structs reachable from the root module are frozen
//! within 1.x, new capabilities are added as [`Extension`]s looked up by name, and the
//! message types ([`Payload`]) are fixed for 1.x (see [Message types](#message-types)).
//!
//! ## Modules
//!
//! - [`guide`]: the plugin author's guide: a sensor and a system, topics and namespaces,
//!   parameters, noise, testing, versions;
//! - [`prelude`]: what a plugin author needs, `use sim_plugin_api::prelude::*;`;
//! - [`sdf`]: typed access to the plugin's SDF element (`get::<f64>("range/min")`, poses,
//!   vectors, colours, `<noise>`), with errors that carry the file and line;
//! - [`noise`]: the noise parameters, and with the `noise` feature the Gazebo noise model;
//! - [`msgs`]: every message type;
//! - [`testing`]: a fixed world and helpers to test a plugin without the engine;
//! - [`scene`]: the scene extension, for rendering plugins;
//! - [`mechanics`]: the mechanics extension (mass properties, collision shapes, a model's
//!   joints), for physical systems;
//! - [`abi`]: the ABI internals (root module, FFI forms, extension plumbing), which the
//!   engine and [`export_plugin!`] use.
//!
//! Every item is also reachable at the crate root, where plugins built against 1.0 import it.
//!
//! ## Writing a sensor plugin
//!
//! `Cargo.toml`:
//!
//! ```toml
//! [package]
//! name = "acme-sim-height"
//! version = "0.1.0"
//! edition = "2024"
//!
//! [lib]
//! crate-type = ["cdylib", "rlib"]
//!
//! [dependencies]
//! sim-plugin-api = "1.8"
//! ```
//!
//! Until the crate is published, take it from the simcore repository instead:
//! `sim-plugin-api = { git = "https://github.com/simcore-sim/simcore" }` (cargo finds the
//! package inside the repository; add `rev = "..."` to pin a commit, or use a `path` to a
//! checkout).
//!
//! `src/lib.rs`: a sensor that reports the height of its link above the world origin, for an
//! SDF `<sensor type="height">` with an optional `<offset>` element.
//!
//! ```
//! use sim_plugin_api::prelude::*;
//!
//! pub struct HeightSensor {
//!     link: EntityId,
//!     offset: f64,
//! }
//!
//! impl HeightSensor {
//!     pub fn create(config: &SensorConfig<'_>, _world: &WorldRef<'_>) -> Result<Self, PluginError> {
//!         // The plugin owns its configuration: read the `<sensor>` element with the typed
//!         // API; a bad value is an error naming the sensor, the element and its line.
//!         let offset = config.parse_sdf()?.root().param::<f64>("offset").unit("metres").or(0.0)?;
//!         Ok(HeightSensor { link: config.link, offset })
//!     }
//! }
//!
//! impl Sensor for HeightSensor {
//!     fn update(
//!         &mut self,
//!         _ctx: &UpdateContext,
//!         world: &WorldRef<'_>,
//!         out: &mut Outputs<'_>,
//!     ) -> Result<(), PluginError> {
//!         let state = world.kinematics_of(self.link).ok_or_else(|| {
//!             PluginError::runtime("the sensor's link no longer exists")
//!         })?;
//!         out.publish("", Payload::Double(state.pose.position.z + self.offset));
//!         Ok(())
//!     }
//! }
//!
//! export_plugin! {
//!     sensor "height" {
//!         serves: ["height"],
//!         description: "Height of the link above the world origin",
//!         create: HeightSensor::create,
//!     }
//! }
//!
//! // The sensor can be tested without the engine, against a fixed world:
//! # fn main() {
//! use sim_plugin_api::testing::StaticWorld;
//! let link = EntityId(10);
//! let mut world = StaticWorld::default();
//! world.set_kinematics(link, KinematicState {
//!     pose: Pose::new(Vec3::new(0.0, 0.0, 2.5), Default::default()),
//!     ..Default::default()
//! });
//! let sdf = r#"<sensor name="h" type="height"><offset>0.5</offset></sensor>"#;
//! let config = sim_plugin_api::testing::sensor_config("m::l::h", "height", link, sdf);
//! let outputs = world.with(|w| {
//!     let mut sensor = HeightSensor::create(&config, &w).unwrap();
//!     sim_plugin_api::testing::run_update(&mut sensor, &w)
//! });
//! assert!(matches!(outputs[0].payload.as_enum(), Ok(Payload::Double(z)) if *z == 3.0));
//! # }
//! ```
//!
//! Build it with `cargo build --release`, put `libacme_sim_height.so` in a directory on the
//! plugin search path (`simcore run --plugin-path DIR`, `SIMCORE_PLUGIN_PATH`, the run
//! manifest, or beside the `simcore` executable) and use `<sensor type="height">` in a world.
//! `simcore plugins` lists what the engine found.
//!
//! ## Rules of the boundary
//!
//! - Only `#[repr(C)]` `StableAbi` data and the traits here cross; each library has its own
//!   copy of std, allocator, logger and panic hook. Log through [`WorldView::log`].
//! - Panics never unwind across: [`export_plugin!`] catches them at every entry point and
//!   returns a [`PluginError`]; the engine reports it and disables that plugin.
//! - Sensors run in parallel with each other (`Send`); the engine owns the threads, so a
//!   plugin should not start thread pools. Batch ray casts: one [`WorldView::cast_rays`] call
//!   per scan.
//! - Libraries are never unloaded.
//!
//! ## Engine extensions
//!
//! | name | reached through | what |
//! |---|---|---|
//! | [`MODEL_FACTORY_EXTENSION`] (`simcore.factory.v1`) | [`Commands::extension`], helper [`model_factory`] | [`ModelFactory`]: create a model with the verdict (final name and pose, or the SDF diagnostic) during the call; the model is built when the commands are applied |
//! | [`MECHANICS_EXTENSION`] (`simcore.mechanics.v1`) | [`WorldView::extension`], helper [`WorldRef::mechanics`] | [`mechanics`]: a link's mass properties and collision shapes (kind, size, volume, centre of volume), a model's links, joints and canonical link, a joint's axis |
//! | [`MODEL_PLUGINS_EXTENSION`] (`simcore.model_plugins.v1`) | [`WorldView::extension`], helper [`model_plugins`] | [`ModelPlugins`]: the `<plugin>` elements of every model, e.g. to read annotations such as a fiducial id |
//! | [`RUNTIME_JOINTS_EXTENSION`] (`simcore.runtime_joints.v1`) | [`Commands::extension`], helper [`runtime_joints()`] | [`runtime_joints`](mod@runtime_joints): fixed joints between two links created and removed at run time |
//! | [`SCENE_EXTENSION`] (`simcore.scene.v1`) | [`WorldView::extension`], helper [`WorldRef::scene`] | [`scene`]: the world's `<scene>`, its lights (world frame) and the segmentation labels of visuals, for rendering plugins |
//! | [`VISIBILITY_RAYS_EXTENSION`] (`simcore.visibility_rays.v1`) | [`WorldView::extension`], helper [`WorldRef::cast_rays_seen_by`] | [`visibility`]: ray casts that see only the visuals whose `<visibility_flags>` meet a sensor's `<visibility_mask>` |
//! | [`MODEL_LINKS_EXTENSION`] (`simcore.model_links.v1`) | [`WorldView::extension`], helper [`WorldRef::links_of`] | [`model_links`]: the links of a model, own name and id, e.g. to push one with `apply_wrench` |
//! | [`VISUAL_BOXES_EXTENSION`] (`simcore.visual_boxes.v1`) | [`WorldView::extension`], helper [`WorldRef::visual_boxes`] | [`visual_boxes`]: every visual's local bounding box, model, label and world pose, e.g. for full and 3D bounding boxes |
//! | [`RASTER_EXTENSION`] (`simcore.raster.v1`) | [`WorldView::extension`], helper [`WorldRef::raster`] | [`raster`]: a pinhole camera's per-pixel hits rasterised (as one ray per pixel from the near plane gives them), and the depths along parallel rays of a shadow map |
//! | [`SCAN_EXTENSION`] (`simcore.scan.v1`) | [`WorldView::extension`], helper [`WorldRef::scan`] | [`scan`]: a lidar's rays on a grid of angles cast as a whole, bit for bit the hits of casting them one by one |
//! | [`INPUT_TYPES_EXTENSION`] (`simcore.input_types.v1`) | [`WorldView::extension`] of the world a system factory's `create` gets, helper [`input_types()`] | [`input_types`](mod@input_types): a system names the payload kind it reads on each subscription, so the engine announces the input with its ROS type (offered at creation because inputs are announced before the first step) |
//! | [`OUTPUT_TYPES_EXTENSION`] (`simcore.output_types.v1`) | [`WorldView::extension`] of the world a sensor's or system factory's `create` gets, helpers [`output_types()`] and [`declare_outputs`] | [`output_types`](mod@output_types): a plugin names each topic it publishes on and the payload kind there, so that a run lists its outputs, typed, before anything was published |
//!
//! An engine without an extension answers `None`, so a plugin can fall back.
//!
//! ## Versions and the ABI epoch
//!
//! The 1.x ABI epoch begins at 1.2.0, the first release whose layouts are promised. An
//! engine built with sim-plugin-api 1.y loads every plugin built against 1.x for
//! 1.2 <= x <= y, whatever the patch version, the rustc or the abi_stable 0.11 patch
//! release; it refuses, with a one-line reason naming both versions, a plugin built against a
//! newer minor version than its own (the plugin may rely on what that version added) and one
//! of another major version. `simcore plugins` shows the exact version each library was built
//! against.
//!
//! - 1.2.0 and 1.1.0 have the same layouts: plugins built against 1.1 load.
//! - Plugins built against 1.0.0 load when they were built from the state of 1.0.0 that
//!   already had the fiducial message; earlier 1.0.0 builds are refused: under the same
//!   version number, header strings changed type, [`WorldView`] gained methods and
//!   [`Payload`] gained variants, so abi_stable's layout check fails for them.
//!
//! Within 1.x a minor release adds items (functions, constants, extensions, helper types that
//! do not cross the boundary) and a patch release fixes behaviour or documentation; neither
//! changes a type that crosses the boundary. The engine's test suite loads plugins built
//! against a frozen copy of 1.2.0, so a change that would refuse them fails its CI.
//!
//! ## Message types
//!
//! [`Payload`] is a non-exhaustive enum across the ABI ([`Payload_NE`]), and its variants are
//! fixed for all of 1.x: new message types do not become new variants. The reason is the rule
//! abi_stable applies to a non-exhaustive enum when a library loads: the engine's copy (the
//! loader's) may have fewer variants than the plugin's, never more. A variant added to the
//! engine would refuse every plugin built before it ("too many variants"), while a plugin with
//! more variants than the engine would pass. So a new message type of 1.x is a versioned
//! schema of [`Payload::Custom`]: a [`CustomMessage`] whose schema names the type and its
//! version (`simcore.msgs.<Type>.v1`), encoded as its encoding says, with typed helpers in this
//! crate to build and read it; plugins of any 1.x pass it on unchanged, and those that do not
//! know the schema ignore it. New variants of [`Payload`] wait for 2.0.
//!
//! Code that matches a [`Payload`] keeps a fallback arm all the same: [`Payload_NE::as_enum`]
//! answers an error for a variant this build does not know (a message from a plugin built
//! against a modified copy of this crate), and the engine prints such a message as `Unknown`.
#![allow(non_local_definitions, non_camel_case_types)]

// abi_stable's `#[derive(StableAbi)]` and `#[sabi_trait]` expand to `unsafe impl`s and
// unsafe vtable shims, so the modules that use them allow `unsafe_code`. The only
// hand-written unsafe code is in `extension` and the export macro, each with a SAFETY note.
#[doc(hidden)]
pub mod __private;
#[doc(hidden)]
pub mod export;
#[allow(unsafe_code)]
mod extension;
#[allow(unsafe_code)]
mod factory;
pub mod guide;
#[allow(unsafe_code)]
pub mod input_types;
#[allow(unsafe_code)]
mod math;
#[allow(unsafe_code)]
pub mod mechanics;
#[allow(unsafe_code)]
mod messages;
#[allow(unsafe_code)]
pub mod model_links;
#[allow(unsafe_code)]
mod model_plugins;
pub mod noise;
#[allow(unsafe_code)]
pub mod output_types;
#[allow(unsafe_code)]
mod plugin;
#[allow(unsafe_code)]
pub mod raster;
#[allow(unsafe_code)]
pub mod runtime_joints;
#[allow(unsafe_code)]
pub mod scan;
#[allow(unsafe_code)]
pub mod scene;
pub mod sdf;
#[allow(unsafe_code)]
pub mod sensor_threads;
pub mod testing;
#[allow(unsafe_code)]
mod types;
#[allow(unsafe_code)]
pub mod visibility;
#[allow(unsafe_code)]
pub mod visual_boxes;
#[allow(unsafe_code)]
pub mod visual_temperatures;
#[allow(unsafe_code)]
mod world;

// The root keeps every path of 1.0 (plugins built against it import them), but shows only
// the items a plugin author uses: the ABI internals are hidden here and documented in `abi`.
// The hidden globs re-export everything of their module; the named re-exports after them
// are the visible ones. (The trait objects `#[sabi_trait]` generates are re-exports in their
// module, which a hidden glob does not hide: they are named.)
#[doc(hidden)]
pub use abi::ABI_MAJOR;
pub use abi_stable;
#[doc(hidden)]
pub use extension::Extension;
#[doc(hidden)]
pub use factory::*;
pub use factory::{
    CreatedModel, MODEL_FACTORY_EXTENSION, ModelFactory, ModelFactoryRef, model_factory,
};
#[doc(hidden)]
pub use factory::{ModelFactory_CTO, ModelFactory_TO};
#[doc(hidden)]
pub use input_types::InputTypes_TO;
pub use input_types::{
    INPUT_TYPES_EXTENSION, InputTypes, InputTypesRef, MAX_INPUT_TYPES, input_types,
};
pub use math::{Pose, Quat, Vec3};
#[doc(hidden)]
pub use mechanics::Mechanics_TO;
pub use mechanics::{
    CollisionShape, JointAxis, LinkInertial, MECHANICS_EXTENSION, Mechanics, MechanicsRef,
    ShapeKind,
};
#[doc(hidden)]
pub use messages::*;
pub use messages::{
    Altimeter, BatteryState, CameraInfo, CustomMessage, EntityFactory, Fiducial, Header, Image,
    Imu, LaserScan, LogicalCameraFrustum, LogicalCameraImage, Message, NamedPose, NavSat, Odometry,
    Payload, PixelFormat, PointCloudPacked, PointField, PointFieldType, SensorMetrics, SharedStr,
    Twist,
};
#[doc(hidden)]
pub use model_links::ModelLinks_TO;
pub use model_links::{LinkEntry, MODEL_LINKS_EXTENSION, ModelLinks, ModelLinksRef};
pub use model_plugins::*;
#[doc(hidden)]
pub use output_types::OutputTypes_TO;
pub use output_types::{
    MAX_OUTPUT_TYPES, OUTPUT_TYPES_EXTENSION, OutputTypes, OutputTypesRef, declare_outputs,
    output_types,
};
#[doc(hidden)]
pub use plugin::*;
pub use plugin::{Outputs, Sensor, SensorConfig, StepContext, System, SystemConfig, UpdateContext};
#[doc(hidden)]
pub use plugin::{SensorAbi, SensorAbi_CTO, SensorAbi_TO, SystemAbi, SystemAbi_CTO, SystemAbi_TO};
#[doc(hidden)]
pub use raster::Raster_TO;
pub use raster::{OrthoView, PinholeView, RASTER_EXTENSION, Raster, RasterRef};
#[doc(hidden)]
pub use runtime_joints::RuntimeJoints_TO;
pub use runtime_joints::{
    RUNTIME_JOINTS_EXTENSION, RuntimeJoints, RuntimeJointsRef, runtime_joints,
};
#[doc(hidden)]
pub use scan::Scan_TO;
pub use scan::{SCAN_EXTENSION, Scan, ScanAngles, ScanRef, ScanView};
#[doc(hidden)]
pub use scene::SceneView_TO;
pub use scene::{Light, LightKind, NO_LABEL, SCENE_EXTENSION, SceneInfo, SceneRef, SceneView};
pub use sensor_threads::{
    ChunkTask, ChunkTaskRef, SENSOR_THREADS_EXTENSION, SensorThreads, SensorThreadsRef,
};
pub use sensor_threads::{ChunkTask_TO, SensorThreads_TO};
pub use types::*;
#[doc(hidden)]
pub use visibility::VisibilityRays_TO;
pub use visibility::{
    ALL_VISIBLE, VISIBILITY_RAYS_EXTENSION, VisibilityRays, VisibilityRaysRef,
    parse_visibility_bits,
};
#[doc(hidden)]
pub use visual_boxes::VisualBoxes_TO;
pub use visual_boxes::{VISUAL_BOXES_EXTENSION, VisualBox, VisualBoxes, VisualBoxesRef};
#[doc(hidden)]
pub use visual_temperatures::VisualTemperatures_TO;
pub use visual_temperatures::{
    DEFAULT_AMBIENT_TEMPERATURE, VISUAL_TEMPERATURES_EXTENSION, VisualTemperature,
    VisualTemperatures, VisualTemperaturesRef,
};
#[doc(hidden)]
pub use world::*;
pub use world::{
    Commands, CommandsMut, ContactPoint, EntityInfo, JointCommand, JointCommandMode, JointState,
    KinematicState, ModelInfo, Ray, RayCastOptions, RayHit, RayTarget, SphericalCoordinates,
    SurfaceInfo, WorldRef, WorldView, Wrench,
};
#[doc(hidden)]
pub use world::{Commands_CTO, Commands_TO, WorldView_CTO, WorldView_TO};

/// What a plugin author needs, in one import: `use sim_plugin_api::prelude::*;`.
///
/// The [`Sensor`] and [`System`] traits, their configurations and contexts, the world
/// ([`WorldRef`], [`WorldView`], [`CommandsMut`]), [`Outputs`], [`Payload`] and the common
/// message types, [`PluginError`], [`export_plugin!`](crate::export_plugin) and the math
/// types. The other message types are in [`msgs`].
pub mod prelude {
    pub use crate::export_plugin;
    pub use crate::math::{Pose, Quat, Vec3};
    pub use crate::messages::{
        CameraInfo, Header, Image, Imu, LaserScan, Message, NavSat, Odometry, Payload, PixelFormat,
        SharedStr, Twist,
    };
    pub use crate::plugin::{
        Outputs, Sensor, SensorConfig, StepContext, System, SystemConfig, UpdateContext,
    };
    pub use crate::types::{EntityId, EntityKind, ErrorCode, LogLevel, PluginError, SimTime};
    pub use crate::world::{
        Commands, CommandsMut, JointCommand, JointCommandMode, JointState, KinematicState, Ray,
        RayCastOptions, RayHit, RayTarget, WorldRef, WorldView,
    };
}

/// Every message type: the [`Payload`] enum, the [`Message`]
/// envelope and what its variants carry.
pub mod msgs {
    pub use crate::messages::{
        Altimeter, BatteryState, CameraInfo, CustomMessage, EntityFactory, Fiducial, Header, Image,
        Imu, LaserScan, LogicalCameraFrustum, LogicalCameraImage, Message, NamedPose, NavSat,
        Odometry, Payload, PixelFormat, PointCloudPacked, PointField, PointFieldType,
        SensorMetrics, SharedStr, Twist,
    };
}

/// The ABI internals: the root module a library exports, the layout and version items, the
/// FFI forms of the traits (what [`export_plugin!`](crate::export_plugin) wraps a plugin's
/// [`Sensor`] or [`System`] into and the engine calls) and the extension plumbing.
///
/// Plugin authors do not need them; the engine and the export macro do. They are also
/// reachable at the crate root (their 1.0 paths).
///
/// Extensions are how the 1.x ABI grows without breaking plugins already built: abi_stable
/// checks, when a library loads, that every type reachable from its root module matches the
/// engine's copy, so the traits reachable from the root module are frozen for 1.x and
/// anything new is a separate object a plugin asks for by name at run time, type-checked by
/// [`Extension::get`].
pub mod abi {
    /// The major version of the plugin ABI this crate defines.
    pub const ABI_MAJOR: u32 = 1;

    pub use crate::export::{install_panic_hook, take_panic_message};
    pub use crate::extension::Extension;
    pub use crate::factory::{ModelFactory_CTO, ModelFactory_TO, ModelFactory_trait};
    pub use crate::messages::{
        Payload_Bounds, Payload_Interface, Payload_NE, Payload_NEMarker, Payload_Storage,
    };
    pub use crate::plugin::{
        FactoryInfo, GuardedSensor, GuardedSystem, PluginKind, PluginModule, PluginModule_Prefix,
        PluginModule_Ref, RECLAIMABLE_SEQ, SensorAbi, SensorAbi_CTO, SensorAbi_TO, SensorAbi_trait,
        SensorBox, SystemAbi, SystemAbi_CTO, SystemAbi_TO, SystemAbi_trait, SystemBox, guard,
    };
    pub use crate::scene::SceneView_TO;
    pub use crate::world::{
        Commands_CTO, Commands_TO, Commands_trait, WorldView_CTO, WorldView_TO, WorldView_trait,
    };
}

#[cfg(test)]
mod tests {
    /// Every root path of 1.0 still resolves (plugins built against it import them).
    #[test]
    #[allow(unused_imports)]
    fn root_keeps_the_paths_of_1_0() {
        use crate::{
            ABI_MAJOR, Aabb, Altimeter, BatteryState, CameraInfo, Commands, Commands_CTO,
            Commands_TO, Commands_trait, CommandsMut, ContactPoint, CreatedModel, CustomMessage,
            EntityFactory, EntityId, EntityInfo, EntityKind, ErrorCode, Extension, FactoryInfo,
            Fiducial, GuardedSensor, GuardedSystem, Header, Image, Imu, JointCommand,
            JointCommandMode, JointState, KinematicState, LaserScan, Light, LightKind, LogLevel,
            LogicalCameraFrustum, LogicalCameraImage, MODEL_FACTORY_EXTENSION,
            MODEL_PLUGINS_EXTENSION, Message, ModelFactory, ModelFactory_CTO, ModelFactory_TO,
            ModelFactory_trait, ModelFactoryRef, ModelInfo, ModelPlugins, NO_LABEL, NamedPose,
            NavSat, Odometry, Outputs, Payload, Payload_Bounds, Payload_Interface, Payload_NE,
            Payload_NEMarker, Payload_Storage, PixelFormat, PluginElement, PluginError, PluginKind,
            PluginModule, PluginModule_Prefix, PluginModule_Ref, PointCloudPacked, PointField,
            PointFieldType, Pose, Quat, RECLAIMABLE_SEQ, Ray, RayCastOptions, RayHit, RayTarget,
            SCENE_EXTENSION, SceneInfo, SceneRef, SceneView, SceneView_TO, Sensor, SensorAbi,
            SensorAbi_CTO, SensorAbi_TO, SensorAbi_trait, SensorBox, SensorConfig, SensorMetrics,
            SharedStr, SimTime, SourceLocation, SphericalCoordinates, StepContext, SurfaceInfo,
            System, SystemAbi, SystemAbi_CTO, SystemAbi_TO, SystemAbi_trait, SystemBox,
            SystemConfig, Twist, UpdateContext, Vec3, WorldRef, WorldView, WorldView_CTO,
            WorldView_TO, WorldView_trait, Wrench, abi_stable, export, export_plugin, guard,
            model_factory, model_plugins, scene, testing,
        };
    }
    #[test]
    fn root_module_symbol_matches_abi_stable() {
        assert_eq!(
            crate::__root_module_symbol!(),
            abi_stable::library::ROOT_MODULE_LOADER_NAME
        );
    }

    #[test]
    fn abi_major_matches_crate_version() {
        assert_eq!(
            env!("CARGO_PKG_VERSION_MAJOR"),
            crate::ABI_MAJOR.to_string()
        );
    }
}
