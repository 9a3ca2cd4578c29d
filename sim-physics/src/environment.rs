//! What the world is in, as plugins read it: its name, gravity, magnetic field, atmosphere,
//! place on Earth, scene and world-level lights, fixed when the world is built.

use sim_plugin_api::{SceneInfo, SphericalCoordinates, Vec3};
use sim_world::World;

/// The world's environment (see the module's documentation).
#[derive(Debug)]
pub(super) struct Environment {
    /// The world's name.
    pub name: String,
    pub gravity: Vec3,
    pub magnetic_field: Vec3,
    /// `<atmosphere><temperature>`, K, for the visual temperatures extension.
    pub atmosphere_temperature: f64,
    pub spherical: Option<SphericalCoordinates>,
    /// The `<scene>`, for the scene extension.
    pub scene: SceneInfo,
    /// World-level lights, world frame, for the scene extension.
    pub lights: Vec<sim_plugin_api::Light>,
}

impl Environment {
    /// The environment `world` declares.
    pub fn of(world: &World) -> Self {
        Environment {
            name: world.name.clone(),
            gravity: world.gravity,
            magnetic_field: world.magnetic_field,
            atmosphere_temperature: world.atmosphere_temperature,
            spherical: world
                .spherical_coordinates
                .as_ref()
                .map(|s| SphericalCoordinates {
                    latitude_deg: s.latitude_deg,
                    longitude_deg: s.longitude_deg,
                    elevation: s.elevation,
                    heading_deg: s.heading_deg,
                    equatorial_axis: s.equatorial_axis,
                    polar_axis: s.polar_axis,
                }),
            scene: SceneInfo {
                ambient: world.scene.ambient,
                background: world.scene.background,
                shadows: world.scene.shadows,
            },
            lights: world.lights.iter().map(api_light).collect(),
        }
    }
}

/// A world-level light as plugins see it: its direction in the world frame.
fn api_light(l: &sim_world::Light) -> sim_plugin_api::Light {
    use sim_world::LightKind as K;
    sim_plugin_api::Light {
        name: sim_plugin_api::SharedStr::new(&l.name),
        kind: match l.kind {
            K::Directional => sim_plugin_api::LightKind::DIRECTIONAL,
            K::Point => sim_plugin_api::LightKind::POINT,
            K::Spot => sim_plugin_api::LightKind::SPOT,
        },
        pose: l.pose,
        direction: l.world_direction(),
        diffuse: l.diffuse,
        specular: l.specular,
        intensity: l.intensity,
        range: l.range,
        constant: l.constant,
        linear: l.linear,
        quadratic: l.quadratic,
        spot_inner_angle: l.spot_inner_angle,
        spot_outer_angle: l.spot_outer_angle,
        spot_falloff: l.spot_falloff,
        cast_shadows: l.cast_shadows,
    }
}
