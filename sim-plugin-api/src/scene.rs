//! The `simcore.scene.v1` extension: the world's scene (ambient light, background), its lights
//! and the segmentation labels of visuals, for plugins that render (cameras).
//!
//! Reached through [`WorldView::extension`](crate::WorldView::extension) with the name
//! [`SCENE_EXTENSION`]; [`WorldRef::scene`](crate::WorldRef::scene) does the lookup and the
//! layout check in one call:
//!
//! ```
//! # use sim_plugin_api::{testing::StaticWorld, SceneInfo};
//! # let world = StaticWorld::default();
//! # world.with(|world| {
//! let ambient = match world.scene() {
//!     Some(scene) => scene.scene().ambient,
//!     None => SceneInfo::default().ambient, // an engine without the extension
//! };
//! # assert_eq!(ambient, [0.4, 0.4, 0.4, 1.0]);
//! # });
//! ```
//!
//! An engine appends methods to [`SceneView`] only after its last one, so a plugin built
//! against this version keeps working with later engines.

use crate::{EntityId, Pose, SharedStr, Vec3};
use abi_stable::{
    RRef, StableAbi, sabi_trait,
    std_types::{RSlice, RSliceMut, RVec},
};

/// The name under which the engine offers [`SceneView`].
pub const SCENE_EXTENSION: &str = "simcore.scene.v1";

/// The label of a visual that carries none (see [`SceneView::labels`]).
pub const NO_LABEL: u32 = u32::MAX;

/// The world's `<scene>`: colours RGBA in [0, 1].
#[repr(C)]
#[derive(StableAbi, Copy, Clone, Debug, PartialEq)]
pub struct SceneInfo {
    /// `<ambient>`: light reaching every surface (default 0.4 0.4 0.4 1).
    pub ambient: [f32; 4],
    /// `<background>`: the colour where no geometry is seen (default 0.7 0.7 0.7 1).
    pub background: [f32; 4],
    /// `<shadows>`: whether lights that cast shadows do (default true).
    pub shadows: bool,
}

impl Default for SceneInfo {
    fn default() -> Self {
        SceneInfo {
            ambient: [0.4, 0.4, 0.4, 1.0],
            background: [0.7, 0.7, 0.7, 1.0],
            shadows: true,
        }
    }
}

/// The type of a [`Light`]. A newtype so that later versions can add kinds.
#[repr(transparent)]
#[derive(StableAbi, Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct LightKind(pub u32);

impl LightKind {
    /// Parallel rays along [`Light::direction`] (the sun); position is irrelevant.
    pub const DIRECTIONAL: LightKind = LightKind(1);
    /// Light from [`Light::pose`]'s position in every direction.
    pub const POINT: LightKind = LightKind(2);
    /// A cone from the position along the direction.
    pub const SPOT: LightKind = LightKind(3);
}

/// One light (SDF `<light>`), world frame.
#[repr(C)]
#[derive(StableAbi, Clone, Debug, PartialEq)]
pub struct Light {
    /// `<light name>`.
    pub name: SharedStr,
    /// `<light type>`.
    pub kind: LightKind,
    /// Pose of the light in the world.
    pub pose: Pose,
    /// Unit direction the light shines in, world frame (`<direction>` rotated by the pose).
    pub direction: Vec3,
    /// `<diffuse>` RGBA (default 1 1 1 1).
    pub diffuse: [f32; 4],
    /// `<specular>` RGBA (default 0.1 0.1 0.1 1).
    pub specular: [f32; 4],
    /// `<intensity>`: scale of the diffuse and specular colours (default 1).
    pub intensity: f64,
    /// `<attenuation><range>`, m: no light beyond it (point and spot; default 10; zero or
    /// negative: unlimited).
    pub range: f64,
    /// `<attenuation><constant>` (default 1). The attenuation is
    /// `1 / (constant + linear·d + quadratic·d²)`, 1 where that sum is not positive.
    pub constant: f64,
    /// `<attenuation><linear>` (default 1).
    pub linear: f64,
    /// `<attenuation><quadratic>` (default 0).
    pub quadratic: f64,
    /// `<spot><inner_angle>`, rad: full light inside it.
    pub spot_inner_angle: f64,
    /// `<spot><outer_angle>`, rad: no light outside it.
    pub spot_outer_angle: f64,
    /// `<spot><falloff>`: exponent of the fall-off between the two angles.
    pub spot_falloff: f64,
    /// `<cast_shadows>` (default false).
    pub cast_shadows: bool,
}

impl Light {
    /// A white directional light shining along `direction` (normalised), casting shadows.
    pub fn sun(direction: Vec3) -> Light {
        Light {
            name: SharedStr::new("sun"),
            kind: LightKind::DIRECTIONAL,
            pose: Pose::IDENTITY,
            direction: direction.normalized(),
            diffuse: [1.0, 1.0, 1.0, 1.0],
            specular: [0.1, 0.1, 0.1, 1.0],
            intensity: 1.0,
            range: 10.0,
            constant: 1.0,
            linear: 1.0,
            quadratic: 0.0,
            spot_inner_angle: 0.0,
            spot_outer_angle: 0.0,
            spot_falloff: 0.0,
            cast_shadows: true,
        }
    }
}

/// What the engine knows of the scene, for rendering plugins. Implemented by the engine;
/// borrowed for one call, like the [`WorldView`](crate::WorldView) it came from.
#[sabi_trait]
pub trait SceneView: Send + Sync {
    /// The world's `<scene>` (SDF defaults when it has none).
    fn scene(&self) -> SceneInfo;
    /// Replaces the contents of `out` with the world's lights, in declaration order.
    fn lights(&self, out: &mut RVec<Light>);
    /// The segmentation label of each visual in `ids` (from a `gz::sim::systems::Label`
    /// plugin on the visual or, failing that, on the nearest enclosing model that has one),
    /// or [`NO_LABEL`]. Returns how many ids were known visuals.
    #[sabi(last_prefix_field)]
    fn labels(&self, ids: RSlice<'_, EntityId>, out: RSliceMut<'_, u32>) -> u32;
}

/// The scene view as plugins receive it.
pub type SceneRef<'a> = SceneView_TO<'a, RRef<'a, ()>>;

impl<'w> crate::WorldRef<'w> {
    /// The [`SCENE_EXTENSION`] of this world, or `None` when the engine does not offer it (or
    /// offers an incompatible version).
    pub fn scene(&self) -> Option<&SceneRef<'_>> {
        self.extension(SCENE_EXTENSION.into())
            .into_option()
            .and_then(|e| e.get::<SceneRef<'_>>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Extension, testing::StaticWorld};

    #[test]
    fn the_scene_extension_round_trips_through_a_world_view() {
        let mut w = StaticWorld::default();
        w.scene = SceneInfo {
            ambient: [0.1, 0.2, 0.3, 1.0],
            background: [0.0, 0.0, 1.0, 1.0],
            shadows: false,
        };
        w.lights.push(Light::sun(Vec3::new(0.5, 0.1, -0.9)));
        w.set_label(EntityId(7), 42);
        w.with(|world| {
            let scene = world.scene().expect("the static world offers the scene");
            assert_eq!(scene.scene().ambient, [0.1, 0.2, 0.3, 1.0]);
            assert!(!scene.scene().shadows);
            let mut lights = RVec::new();
            scene.lights(&mut lights);
            assert_eq!(lights.len(), 1);
            assert_eq!(lights[0].kind, LightKind::DIRECTIONAL);
            assert!((lights[0].direction.length() - 1.0).abs() < 1e-12);
            let mut out = [0u32; 2];
            let known = scene.labels(
                RSlice::from_slice(&[EntityId(7), EntityId(8)]),
                RSliceMut::from_mut_slice(&mut out),
            );
            assert_eq!((known, out), (1, [42, NO_LABEL]));
            // Another name gives nothing.
            assert!(world.extension("simcore.scene.v0".into()).is_none());
            // The object is refused as a type of another layout.
            let ext = world.extension(SCENE_EXTENSION.into()).unwrap();
            assert!(ext.get::<SceneInfo>().is_none());
            assert!(ext.get::<SceneRef<'_>>().is_some());
        });
    }

    #[test]
    fn a_plain_struct_is_not_a_scene() {
        let info = SceneInfo::default();
        let ext = Extension::new(&info);
        assert!(ext.get::<SceneRef<'_>>().is_none());
        assert_eq!(ext.get::<SceneInfo>(), Some(&info));
    }
}
