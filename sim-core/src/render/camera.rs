//! The camera that takes the picture: one more `camera` sensor, created by the factory the
//! registry resolves for that type, on the world frame at the viewpoint, updated once
//! through a sensor manager and bus of its own (so the world's own sensors and topics never
//! see it).

use super::picture::Picture;
use super::view::View;
use crate::runner::Simulation;
use crate::sensors::{SensorManager, SensorSetup};
use crate::transport::Bus;
use crate::world::Span;
use sim_plugin_api::{EntityId, Payload};

/// The sensor type the picture is taken with.
pub const CAMERA_TYPE: &str = "camera";

/// The name of the camera that takes the picture (in its messages and errors).
const NAME: &str = "simcore_render";

/// The topic it publishes on, on its own bus.
const TOPIC: &str = "/simcore/render/image";

/// Why no picture was taken.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// No library serves the `camera` sensor type, or its factory refused the camera.
    #[error("the picture is taken by the camera plugin: {0}")]
    NoCamera(String),
    /// The camera failed or published no image.
    #[error("the camera plugin took no picture: {0}")]
    Camera(String),
}

/// The camera sensor at a viewpoint, ready to take pictures of a simulation's world.
pub struct Viewer {
    view: View,
    sensors: SensorManager,
    bus: Bus,
    image: crate::transport::Subscription,
}

impl std::fmt::Debug for Viewer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Viewer").field("view", &self.view).finish()
    }
}

/// The `<sensor>` element of a camera with `view`'s image size and field of view, seeing
/// from 5 cm to `far` m.
fn camera_sdf(view: &View, far: f64) -> String {
    format!(
        "<sensor name=\"{NAME}\" type=\"{CAMERA_TYPE}\"><camera>\
         <horizontal_fov>{}</horizontal_fov>\
         <image><width>{}</width><height>{}</height><format>R8G8B8</format></image>\
         <clip><near>0.05</near><far>{far}</far></clip></camera></sensor>",
        view.hfov, view.width, view.height
    )
}

impl Viewer {
    /// Creates the camera of `view` with the factory `sim`'s registry has for sensor type
    /// `camera`; it sees up to `far` metres.
    pub fn new(sim: &Simulation, view: View, far: f64) -> Result<Viewer, RenderError> {
        let setup = SensorSetup {
            entity: EntityId::NONE,
            link: EntityId::WORLD,
            model: EntityId::NONE,
            name: NAME.into(),
            scoped_name: NAME.into(),
            sensor_type: CAMERA_TYPE.into(),
            topic: TOPIC.into(),
            frame_id: NAME.into(),
            update_rate: 0.0,
            active: true,
            triggered: false,
            trigger_topic: String::new(),
            enable_metrics: false,
            pose: view.pose,
            sdf: camera_sdf(&view, far),
            span: Span::default(),
            seed: 0,
        };
        let registry = sim.registry();
        let resolved = registry
            .resolve_sensor(&setup)
            .map_err(|p| RenderError::NoCamera(p.message))?;
        let (plugin, _) = resolved
            .create_sensor(&setup, &sim.world().name, sim.physics())
            .map_err(|p| RenderError::NoCamera(p.message))?;
        let library = resolved.library.file_name.clone();
        let mut bus = Bus::new();
        let image = bus.subscribe(TOPIC, 1);
        let mut sensors = SensorManager::new();
        sensors.add(setup, plugin, library, &mut bus);
        Ok(Viewer {
            view,
            sensors,
            bus,
            image,
        })
    }

    /// The view it takes pictures of.
    pub fn view(&self) -> &View {
        &self.view
    }

    /// Takes a picture of `sim`'s world as it is now.
    pub fn take(&mut self, sim: &Simulation) -> Result<Picture, RenderError> {
        let failures = self
            .sensors
            .update(sim.time(), sim.physics(), &mut self.bus, None);
        if let Some(f) = failures.into_iter().next() {
            return Err(RenderError::Camera(f.error));
        }
        let image = self
            .image
            .drain()
            .into_iter()
            .rev()
            .find_map(|e| match e.message.payload.as_enum() {
                Ok(Payload::Image(i)) => Some(Picture::from_image(i)),
                _ => None,
            })
            .ok_or_else(|| RenderError::Camera("no image was published".into()))?;
        image.ok_or_else(|| RenderError::Camera("the image is not 8-bit RGB".into()))
    }
}
