//! Typed access to a plugin's SDF element, without an XML crate in the plugin.
//!
//! The engine hands a sensor its whole `<sensor>` element ([`SensorConfig::sdf`]) and a
//! system its `<plugin>` element ([`SystemConfig::sdf`]) as self-contained XML text, together
//! with where that element starts in the world file ([`SensorConfig::source`]). The text is
//! the element exactly as written, with its original line breaks (the engine only adds the
//! `xmlns` declarations of the namespaces the element uses to its start tag, on its first
//! line), so the line of anything inside it is the element's line plus the line breaks before
//! it. [`SdfDocument`] parses the text once, when the plugin is created, and
//! [`Element`] reads it:
//!
//! ```
//! use sim_plugin_api::prelude::*;
//! use sim_plugin_api::sdf::SdfDocument;
//!
//! # fn main() -> Result<(), PluginError> {
//! let text = "<sensor name=\"s\" type=\"lidar\">\n  <lidar>\n    <range><min>0.1</min><max>abc</max></range>\n  </lidar>\n</sensor>";
//! let config = sim_plugin_api::testing::sensor_config("m::l::s", "lidar", EntityId(3), text)
//!     .with_source("world.sdf", 40);
//! let doc = config.parse_sdf()?;
//! let lidar = doc.root().child("lidar").expect("written above");
//! assert_eq!(lidar.get::<f64>("range/min")?, Some(0.1));
//! assert_eq!(lidar.get_or("range/resolution", 0.01)?, 0.01);
//! let e = lidar.param::<f64>("range/max").unit("metres").positive().required().unwrap_err();
//! assert_eq!(
//!     e.to_string(),
//!     "m::l::s: <lidar><range><max> must be a finite number in metres, found \"abc\" at world.sdf:42"
//! );
//! # Ok(())
//! # }
//! ```
//!
//! - Paths are element names separated by `/` (`"range/min"`), each step the first child of
//!   that name; a step may carry a namespace prefix declared in the world (`"acme:gain"`).
//! - [`Element::get`] answers `None` for an absent element, [`Element::get_or`] a default,
//!   [`Element::require`] an error; text that does not read as the type is always an error.
//! - The types read are those implementing [`FromSdf`]: `f64`, `f32`, `i64`, `i32`, `u64`,
//!   `u32`, `bool`, `String`, [`Vec3`](crate::Vec3), [`Pose`](crate::Pose) (SDF pose text,
//!   with its `degrees` and `rotation_format` attributes) and [`Color`].
//! - [`Element::noise`] reads a `<noise>` element into
//!   [`NoiseParams`](crate::noise::NoiseParams).
//! - Every error is an [`SdfError`]: the owner (the sensor's scoped name, the plugin's name),
//!   the element's path, what was expected, the text found and, when the engine said where the
//!   element is, the file and line. It converts into an
//!   [`ErrorCode::INVALID_CONFIG`](crate::ErrorCode::INVALID_CONFIG) [`PluginError`](crate::PluginError),
//!   so `?` works in a plugin's `create`.
//!
//! This module is plugin-side code: nothing in it crosses the boundary.
//!
//! [`SensorConfig::sdf`]: crate::SensorConfig::sdf
//! [`SensorConfig::source`]: crate::SensorConfig::source
//! [`SystemConfig::sdf`]: crate::SystemConfig::sdf

mod config;
mod document;
mod element;
mod error;
mod noise;
mod origin;
mod param;
mod value;

pub use document::SdfDocument;
pub use element::{Children, Element, FromSdf};
pub use error::SdfError;
pub use origin::Origin;
pub use param::Param;
pub use value::Color;
#[cfg(test)]
mod tests;
