//! Models created at run time (gz-msgs `EntityFactory`): reading the request's SDF text or
//! file within [`MAX_SPAWN_BYTES`], naming the model (renaming on a clash when allowed),
//! posing it, checking its plugins, and building it with them.

use super::plan::{Plan, PluginPolicy};
use super::{SimOptions, Simulation};
use crate::plugins::{PluginProblem, Registry};
use sim_physics::{BuildError, Physics};
use sim_plugin_api::{EntityFactory, EntityId, Pose};
use sim_world::{Model, World};
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The largest model description a spawn request may carry (1 MiB).
pub const MAX_SPAWN_BYTES: usize = 1 << 20;

/// Why a model could not be created at run time.
#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    /// The request carries no model description.
    #[error("the request has neither `sdf` text nor an `sdf_filename`")]
    NoDescription,
    /// No model file of the requested name was found (the message says where it looked).
    #[error("{0}")]
    NoFile(String),
    /// The model file lies outside the world's directory and the resource search path (and
    /// the world was not loaded with [`sim_world::input::Limits::read_anywhere`]).
    #[error("model file `{name}`: {reason}")]
    Outside {
        /// The file as the request names it.
        name: String,
        /// Where it resolved to, and the rule.
        reason: String,
    },
    /// The model file could not be read.
    #[error("cannot read `{}`: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The model file is not a regular file, or grew past the limit while it was read.
    #[error("cannot read `{}`: {source}", path.display())]
    NotReadable {
        /// The file.
        path: PathBuf,
        /// Why.
        source: sim_world::input::ReadError,
    },
    /// The model file is larger than [`MAX_SPAWN_BYTES`].
    #[error("`{}` is {len} bytes; model descriptions are limited to {MAX_SPAWN_BYTES} bytes", path.display())]
    FileTooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        len: u64,
    },
    /// The SDF text is larger than [`MAX_SPAWN_BYTES`].
    #[error("the SDF text is {0} bytes; model descriptions are limited to {MAX_SPAWN_BYTES} bytes")]
    TextTooLarge(usize),
    /// The SDF does not read (the rendered diagnostic, with file, line and source).
    #[error("{0}")]
    Sdf(String),
    /// The name override is not a model name.
    #[error(
        "model name `{0}` is not allowed: it must not contain `::`, start with `__`, \
         be `world` or have surrounding spaces"
    )]
    BadName(String),
    /// The name override reads as a path (a model's name may become part of a file name).
    #[error("model name `{}` is not allowed: it {problem}", .name.escape_debug())]
    PathLikeName {
        /// The name.
        name: String,
        /// What is wrong with it.
        problem: &'static str,
    },
    /// The name is taken and renaming is not allowed.
    #[error("a model named `{0}` already exists; choose another name or allow renaming")]
    NameTaken(String),
    /// The request's pose, or the world pose it gives the model, is not one the engine
    /// simulates (checked as a moved entity's is, [`sim_physics::check_pose`]).
    #[error("the request's pose is refused: {0}")]
    Pose(sim_physics::CommandError),
    /// `relative_to` names no entity.
    #[error("relative_to names no entity: `{0}`")]
    UnknownFrame(String),
    /// A sensor or plugin of the model cannot be served or created (one line each).
    #[error("{}", .0.iter().map(|p| p.to_string()).collect::<Vec<_>>().join("\n"))]
    Plugins(Vec<PluginProblem>),
    /// The model cannot be built in the physics engine.
    #[error(transparent)]
    Build(#[from] BuildError),
}

impl Simulation {
    /// Creates a model at run time from SDF text or a file (gz-msgs `EntityFactory`): the
    /// model, with its sensors and plugins, is in the world for the next step, and rays see
    /// it at once. Returns the new model's id, or the full diagnostic (SDF errors with file,
    /// line and source; plugin problems) when it cannot be created: nothing is then added.
    ///
    /// The request is checked as [`ModelFactory::create`](sim_plugin_api::ModelFactory::create)
    /// checks it (see [`Simulation::prepare_model`]), then the model is built.
    pub fn spawn(&mut self, request: &EntityFactory) -> Result<EntityId, SpawnError> {
        let model = self.prepare_model(request, &HashSet::new())?;
        self.build_model(&model)
    }

    /// Checks a creation request without changing the world, as
    /// [`ModelFactory::create`](sim_plugin_api::ModelFactory::create) does at call time:
    /// reads the SDF text, or the file `sdf_filename` (a relative name is looked up beside
    /// the world file, then in the working directory), at most [`MAX_SPAWN_BYTES`]; parses it;
    /// applies the name override; resolves a clash with an existing model or a name in
    /// `claimed` by renaming to `name_1`, `name_2`, ... when `allow_renaming`, else refuses;
    /// sets the pose (when the request's is not the identity, it replaces the model's own, in
    /// the frame of `relative_to`: empty or `world` for the world, else any entity's scoped
    /// name); and checks that a library serves every sensor and plugin of the model. Returns
    /// the model to build, or the full diagnostic. The model is built apart once
    /// ([`Physics::check_model`]), so that a model accepted is one that builds.
    pub fn prepare_model(
        &self,
        request: &EntityFactory,
        claimed: &HashSet<String>,
    ) -> Result<Model, SpawnError> {
        prepare_model(
            &self.physics,
            &self.registry,
            &self.world,
            &self.options,
            self.policy,
            request,
            claimed,
        )
    }

    /// Builds a model checked by [`Simulation::prepare_model`] with its sensors and plugins.
    /// When a plugin refuses its configuration, the model is taken out again and the
    /// diagnostic returned.
    pub fn build_model(&mut self, model: &Model) -> Result<EntityId, SpawnError> {
        let id = self.physics.spawn_model(model)?;
        let registry = &self.registry;
        let suffix = |t: &str| registry.sensor_topic_suffix(t);
        let plan = Plan::model(
            &self.world,
            &self.physics,
            model,
            self.options.seed,
            &suffix,
        );
        let mut resolution = plan.resolve_with(registry, self.policy);
        for p in std::mem::take(&mut resolution.skipped) {
            tracing::warn!("{p}; `{}` is created without it", model.name);
        }
        for p in std::mem::take(&mut resolution.notices) {
            tracing::warn!("{p}");
        }
        let problems = resolution.create(
            &self.world.name,
            &self.physics,
            &mut self.bus,
            &mut self.sensors,
            &mut self.systems,
        );
        if !problems.is_empty() {
            if let Ok(removed) = self.physics.remove_model(id) {
                self.sensors.remove(&removed);
                self.systems.remove(&removed);
            }
            return Err(SpawnError::Plugins(problems));
        }
        Ok(id)
    }
}

/// See [`Simulation::prepare_model`].
pub(super) fn prepare_model(
    physics: &Physics,
    registry: &Registry,
    world: &World,
    options: &SimOptions,
    policy: PluginPolicy,
    request: &EntityFactory,
    claimed: &HashSet<String>,
) -> Result<Model, SpawnError> {
    let (text, file) = read_description(request, world)?;
    let mut model = sim_sdf::parse_model_in(&text, file.as_deref(), world)
        .map_err(|e| SpawnError::Sdf(e.render(None)))?;
    if !request.name.is_empty() {
        model.name = checked_name(request.name.as_str())?;
    }
    model.name = free_name(&model.name, request.allow_renaming, |n| {
        physics.entity_id(n).is_some() || claimed.contains(n)
    })?;
    if let Some(pose) = requested_pose(request, |name| {
        physics.entity_id(name).map(|id| {
            physics
                .kinematics_of(id)
                .map(|k| k.pose)
                .unwrap_or_default()
        })
    })? {
        model.pose = pose;
    }
    let suffix = |t: &str| registry.sensor_topic_suffix(t);
    let problems = Plan::model(world, physics, &model, options.seed, &suffix)
        .resolve_with(registry, policy)
        .problems;
    if !problems.is_empty() {
        return Err(SpawnError::Plugins(problems));
    }
    // Built apart first, so that an accepted model is one that builds (an unreadable mesh
    // is refused here, in the reply, not after it).
    physics.check_model(&model, world)?;
    Ok(model)
}

/// The request's SDF text, and the file it was read from, if any (at most
/// [`MAX_SPAWN_BYTES`]).
fn read_description(
    request: &EntityFactory,
    world: &World,
) -> Result<(String, Option<PathBuf>), SpawnError> {
    let (text, file) = match (request.sdf.is_empty(), request.sdf_filename.is_empty()) {
        (false, _) => (request.sdf.to_string(), None),
        (true, false) => {
            let path = find_model_file(request.sdf_filename.as_str(), world)?;
            let read = |source| SpawnError::Read {
                path: path.clone(),
                source,
            };
            let len = std::fs::metadata(&path).map_err(read)?.len();
            if len > MAX_SPAWN_BYTES as u64 {
                return Err(SpawnError::FileTooLarge { path, len });
            }
            let text = sim_world::input::read_regular_text(&path, MAX_SPAWN_BYTES as u64).map_err(
                |source| SpawnError::NotReadable {
                    path: path.clone(),
                    source,
                },
            )?;
            (text, Some(path))
        }
        (true, true) => return Err(SpawnError::NoDescription),
    };
    if text.len() > MAX_SPAWN_BYTES {
        return Err(SpawnError::TextTooLarge(text.len()));
    }
    Ok((text, file))
}

/// A requested model name, if it may name a model.
fn checked_name(name: &str) -> Result<String, SpawnError> {
    if name.contains("::") || name.trim() != name || name == "world" || name.starts_with("__") {
        return Err(SpawnError::BadName(name.to_string()));
    }
    if let Some(problem) = sim_world::input::path_like(name) {
        return Err(SpawnError::PathLikeName {
            name: name.to_string(),
            problem,
        });
    }
    Ok(name.to_string())
}

/// `name` if it is free, else (when `allow_renaming`) the first free `name_1`, `name_2`, ...
fn free_name(
    name: &str,
    allow_renaming: bool,
    taken: impl Fn(&str) -> bool,
) -> Result<String, SpawnError> {
    if !taken(name) {
        return Ok(name.to_string());
    }
    if !allow_renaming {
        return Err(SpawnError::NameTaken(name.to_string()));
    }
    let mut k = 1;
    while taken(&format!("{name}_{k}")) {
        k += 1;
    }
    Ok(format!("{name}_{k}"))
}

/// The world pose the request asks for (None: keep the model's own): the request's pose in
/// the frame of `relative_to` (empty or `world`: the world; else an entity, whose pose
/// `frame_of` gives).
fn requested_pose(
    request: &EntityFactory,
    frame_of: impl Fn(&str) -> Option<Pose>,
) -> Result<Option<Pose>, SpawnError> {
    let pose = request.pose;
    sim_physics::check_pose(pose).map_err(SpawnError::Pose)?;
    if pose == Pose::IDENTITY && request.relative_to.is_empty() {
        return Ok(None);
    }
    let frame = match request.relative_to.as_str() {
        "" | "world" => Pose::IDENTITY,
        name => frame_of(name).ok_or_else(|| SpawnError::UnknownFrame(name.to_string()))?,
    };
    let world = frame.compose(Pose::new(pose.position, pose.orientation.normalized()));
    sim_physics::check_pose(world).map_err(SpawnError::Pose)?;
    Ok(Some(world))
}

/// Finds a model file named in a creation request ([`locate_model_file`]), when the world may
/// read it: like the files a world includes, it must lie, symbolic links followed, in the
/// world's directory (the working directory for a world read from text) or on the resource
/// search path, unless the world's limits allow reading anywhere.
fn find_model_file(name: &str, world: &World) -> Result<PathBuf, SpawnError> {
    let found = locate_model_file(name, world)?;
    sim_sdf::confine_to_world(found, world).map_err(|reason| SpawnError::Outside {
        name: name.to_string(),
        reason,
    })
}

/// Where a model file named in a creation request is: absolute as given; relative beside the
/// world file first, then in the working directory; then, as an `<include>` `<uri>` would be
/// (`model://NAME`, a model name or a model directory, through its `model.config`), on the
/// resource search path the world was loaded with ([`World::resources`]: `--resource-path`,
/// the environment variables, the `models/` directories at or above the world file, the
/// manifest's `resource_paths`).
fn locate_model_file(name: &str, world: &World) -> Result<PathBuf, SpawnError> {
    let path = Path::new(name);
    if path.is_absolute() && path.is_file() {
        return Ok(path.to_path_buf());
    }
    let world_dir = world.span.file.as_ref().and_then(|f| f.parent());
    let mut tried = Vec::new();
    if !name.contains("://") && !path.is_absolute() {
        if let Some(dir) = world_dir {
            let p = dir.join(path);
            if p.is_file() {
                return Ok(p);
            }
            tried.push(format!("`{}`", p.display()));
        }
        if path.is_file() {
            return Ok(path.to_path_buf());
        }
        tried.push(format!("`{}`", path.display()));
    }
    match world.resources.resolve(name, world_dir) {
        Ok(found) if found.is_dir() => sim_world::resources::model_file(&found)
            .map(|m| m.path)
            .map_err(|e| SpawnError::NoFile(format!("model `{name}`: {e}; {}", e.hint()))),
        Ok(found) => Ok(found),
        Err(e) => Err(SpawnError::NoFile(format!(
            "no model file `{name}`{}: {e}; {}",
            if tried.is_empty() {
                String::new()
            } else {
                format!(" (looked for {})", tried.join(", "))
            },
            e.hint()
        ))),
    }
}

#[cfg(test)]
#[path = "spawn_tests.rs"]
mod tests;
