//! # sim-sdf: SDFormat read as libsdformat reads it
//!
//! SDF text -> [`sim_world::World`] (or, for model files, [`Document::Model`]). No physics,
//! no plugins and no run: a reader whose only output is the world model, with [`inspect`]
//! to print what it read (a tree, or JSON in the schema of the libsdformat oracle).
//!
//! [`load`] reads a world file, [`parse_str`] reads SDF text ([`load_with`] and
//! [`parse_str_with`] take [`LoadOptions`]: where included models are searched for);
//! [`load_document`] / [`load_document_with`] and [`parse_document`] read either a world or a
//! model. A document with problems is an [`SdfError`] that names the file, line and column,
//! the element, what is wrong and what to do, and carries every other problem of the load in
//! [`SdfError::others`]: an element of a world, model or link with an error is skipped and its
//! siblings are still read, and a pass over the whole document (`validate`) checks what
//! libsdformat checks in elements the engine does not use ([`SdfError::render`] prints them
//! all as compiler-style reports; for a problem inside an included file,
//! [`SdfError::included_from`] lists the includes that led there).
//! [`load_document_with_warnings`] also returns the warnings, which do not stop a load.
//!
//! # What is read
//!
//! SDFormat 1.0 to 1.12 documents with one or more `<world>`s (or one `<model>`): physics,
//! gravity, magnetic field, spherical coordinates, the scene (ambient, background, shadows),
//! world-level lights, frames, models (nested too) with links, inertials, joints (world joints
//! too), collisions and visuals of every SDF shape (box, sphere, cylinder, capsule, ellipsoid,
//! cone, plane, mesh, heightmap, polyline; a mesh or heightmap `<uri>` is resolved to its file
//! here and the file is read when the world is built), sensors and plugins (of the world, models,
//! links and sensors), and `<include>`s
//! of models (found through [`sim_world::resources`], each file read once per load, with the
//! include's overrides, `<namespace>`, `merge="true"` and the edits of `<experimental:params>`,
//! see `params`); the `gz::sim::systems::Label` plugin becomes a
//! segmentation label of its model or visual. Every pose is resolved by SDFormat's frame
//! semantics (see `frames`): `relative_to` any frame in scope, `attached_to`, canonical
//! links, placement frames, joints to frames and to links of nested models, axes
//! `expressed_in` any frame. The nested models an SDF < 1.8 world's model holds flattened
//! (`inner::link`, frame `inner::__model__`) are rebuilt as libsdformat does (see
//! `unflatten`). Automatic inertia (`<inertial auto="true">`) is computed from the
//! collisions, a mesh's from the solid it encloses (see `mesh_inertia`). Defaults are those of SDF 1.12. Elements the engine does not
//! use
//! (GUI, sky, lights inside links, actors...) are skipped; the physics parameters it does not
//! honour are warned about (see `unhonoured` and `docs/physics.md`) (an included
//! light is one of the world's lights). Elements that would change the world if they were skipped (`<population>`, the
//! deprecated `<image>` shape, automatic inertia from a shape without volume, joint types
//! rapier cannot build) are
//! reported as not supported yet rather than dropped.
//!
//! A file with several worlds is a [`Document::Worlds`]; simcore simulates one world, so
//! [`load`] and [`Document::into_world`] give the first, with a warning naming the others.
//!
//! As libsdformat, the reader is lenient about what tinyxml2 tolerates (comments containing
//! `--`, undeclared namespace prefixes such as `<gz:policies>`), and uses the first of a
//! repeated single element (with a warning).
//!
//! # Structure
//!
//! A `Reader` carries the file, the source text, the declared version and the load's shared
//! state (resource search path, files already included); there is one function per element
//! (`world`, `physics`, `model`, `link`, `frame`, `joint`, `inertial`, `collision`, `visual`,
//! `geometry`, `sensor`, `plugin`, `raw_pose`...), each returning its part of the data model,
//! poses as written, or the error inside it (worlds, models and links: every error of their
//! children). When a model (after its nested and
//! included models) or the world has been read, `frames` resolves its scope: names,
//! references, and every pose relative to its default parent.
//!
//! The modules import one another one way, from the bottom up:
//!
//! * leaves: `error`, `version` (the SDF version, which `crate::resources` uses too), `source`
//!   (where the text of an edited document was written), `schema`, `lenient`, `inertia`,
//!   `mesh_inertia`; over them `xml` (a mutable XML tree and its writer), `load` (what one load
//!   shares: [`LoadOptions`], the loader) and `params` (the edits of `<experimental:params>`,
//!   applied to the XML tree);
//! * `text` (a value element's text and SDF booleans), `reader` (the `Reader` context and its
//!   helpers: spans, errors, children, attributes, names), `values` (typed values of an
//!   element's text: numbers, vectors, booleans, poses), then `parse` (a file's text, the
//!   lenient XML parse, the `<sdf>` root) and `siblings`;
//! * the element readers (`joint`, `shapes`, `sensor`, `scene`, `unflatten`, `validate`,
//!   `deprecated`, `frames`), then `include` (the `<include>` loader), then `model` and
//!   `world`, which read includes;
//! * `document`: the entry points;
//! * [`overrides`]: values written into a document's text at element paths before it is
//!   read (`world/model[box]/pose`), and into the texts of the included files those paths
//!   reach (`world/model[rover]/link[chassis]/inertial/mass`), which the includes then read
//!   instead of their files (`Reader::rewrites`); and the loads that take them.

#![warn(missing_docs)]

mod deprecated;
mod document;
mod error;
mod frames;
mod include;
mod inertia;
mod joint;
mod lenient;
mod load;
mod mesh_inertia;
mod model;
pub mod overrides;
mod params;
mod parse;
mod reader;
mod scene;
mod schema;
mod sensor;
mod shapes;
mod siblings;
mod source;
mod surface;
mod text;
mod thermal;
mod undeclared;
mod unflatten;
mod unhonoured;
mod validate;
mod values;
pub(crate) mod version;

pub mod inspect;
mod world;
mod xml;

#[cfg(test)]
mod tests;

pub use document::{
    Document, load, load_document, load_document_with, load_document_with_warnings, load_with,
    parse_document, parse_model_in, parse_model_str, parse_str, parse_str_with,
};
pub use error::{ErrorKind, SdfError};
pub use frames::{PlacementError, frame_in_model, frame_in_world, place_model};
pub use load::LoadOptions;
pub use load::confine_to_world;
