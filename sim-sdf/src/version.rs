//! The SDF version a document declares (kept with the data model, so that the resource
//! search, below the reader, can choose a `model.config` entry by version too).

pub(crate) use sim_world::version::Version;
