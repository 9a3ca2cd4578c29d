//! Unit tests of the SDF reader, one file per behaviour; `support` holds what they share.

mod deprecated;
mod every_error;
mod flattened;
mod frames;
mod includes;
mod inertia;
mod joints;
mod links;
mod load;
mod model_config;
mod models;
mod overrides;
mod params;
mod plugins;
mod reports;
mod robustness;
mod root;
mod sensors;
mod shapes;
mod support;
mod untrusted;
mod values;
mod world;
