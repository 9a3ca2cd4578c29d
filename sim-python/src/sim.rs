//! `simcore.Simulation`: a world loaded as `simcore run` loads it, stepped from Python.

use crate::engine::{Engine, Shared, lock, lock_attached};
use crate::errors::{
    ControlError, OverrideError, PluginError, ServiceError, SimError, WorldError, message_error,
    no_panic,
};
use crate::message::{Message, message};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use sim_engine::plugins::{Registry, SearchPath};
use sim_engine::runner::{LoadError, PluginPolicy, ResetScope, SimOptions, Simulation as Engine0};
use sim_sdf::LoadOptions;
use sim_sdf::overrides::{self, OverriddenLoadError, Override};
use sim_transport::Subscription as BusSubscription;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

/// Where a world comes from: a file or SDF text.
pub enum Source {
    /// A world file.
    File(PathBuf),
    /// SDF text.
    Text(String),
}

impl Source {
    /// A path (`str` or `os.PathLike`), or SDF text (a `str` starting with `<`).
    pub fn from_py(world: &Bound<'_, PyAny>) -> PyResult<Source> {
        if let Ok(s) = world.cast::<PyString>() {
            let s = s.to_str()?;
            if s.trim_start().starts_with('<') {
                return Ok(Source::Text(s.to_string()));
            }
            return Ok(Source::File(PathBuf::from(s)));
        }
        Ok(Source::File(world.extract::<PathBuf>()?))
    }

    /// How errors name it.
    pub fn label(&self) -> String {
        match self {
            Source::File(p) => p.display().to_string(),
            Source::Text(_) => "<inline>".to_string(),
        }
    }
}

/// An override value as SDF text: strings as they are, booleans as `true`/`false`, numbers
/// as Python prints them, sequences (a pose, a vector) joined by spaces.
fn override_value(v: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(s) = v.cast::<PyString>() {
        return Ok(s.to_str()?.to_string());
    }
    if let Ok(b) = v.extract::<bool>()
        && v.is_instance_of::<pyo3::types::PyBool>()
    {
        return Ok(if b { "true" } else { "false" }.to_string());
    }
    if v.is_instance_of::<PyList>() || v.is_instance_of::<pyo3::types::PyTuple>() {
        let parts = v
            .try_iter()?
            .map(|x| override_value(&x?))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(parts.join(" "));
    }
    Ok(v.str()?.to_str()?.to_string())
}

/// The overrides of a mapping `{path: value}`.
pub fn overrides_from_py(overrides: Option<&Bound<'_, PyAny>>) -> PyResult<Vec<Override>> {
    let Some(o) = overrides.filter(|o| !o.is_none()) else {
        return Ok(Vec::new());
    };
    let items = o
        .call_method0("items")
        .map_err(|_| PyValueError::new_err("overrides is a mapping of SDF paths to values"))?;
    let mut out = Vec::new();
    for item in items.try_iter()? {
        let (path, value): (String, Bound<'_, PyAny>) = item?.extract()?;
        out.push(Override::new(path, override_value(&value)?));
    }
    Ok(out)
}

/// The plugin search path: `plugin_path`, then `SIMCORE_PLUGIN_PATH` (as `simcore run`).
fn registry(plugin_path: &[PathBuf]) -> Registry {
    Registry::discover(SearchPath::standard(plugin_path, &[]))
}

/// Reads a world with its overrides, errors as Python exceptions.
pub fn read_world(source: &Source, over: &[Override]) -> PyResult<sim_world::World> {
    let options = LoadOptions::default();
    let read = match source {
        Source::File(p) => overrides::load_with(p, &options, over),
        Source::Text(t) => overrides::parse_str_with(t, None, &options, over),
    };
    read.map_err(|e| match e {
        OverriddenLoadError::Override(e) => OverrideError::new_err(e.to_string()),
        OverriddenLoadError::Sdf(e) => WorldError::new_err(e.render(None)),
    })
}

/// The error of a load that failed after the world was read.
fn load_error(source: &Source, e: LoadError) -> PyErr {
    load_error_at(&source.label(), e)
}

/// [`load_error`] for the world named `label`.
fn load_error_at(label: &str, e: LoadError) -> PyErr {
    match e {
        LoadError::Plugins(problems) => PluginError::new_err(format!(
            "{label}: {} plugin problem(s):\n{}",
            problems.len(),
            problems
                .iter()
                .map(|p| format!("  {p}"))
                .collect::<Vec<_>>()
                .join("\n")
        )),
        LoadError::Build(b) => WorldError::new_err(format!(
            "error: the world cannot be built: {}\n  --> {}\n",
            b.message, b.span
        )),
        e => SimError::new_err(format!("{label}: {e}")),
    }
}

/// The exception of a run-control request the engine refused (by the error's variant).
fn control_error(source: &str, e: sim_engine::runner::ControlError) -> PyErr {
    use sim_engine::runner::ControlError as E;
    match e {
        E::Reset(load) => load_error_at(source, load),
        E::AlreadyInState(state) => {
            ControlError::new_err(format!("the simulation is {state} already"))
        }
        e @ (E::Busy | E::NotPaused | E::Quitting) => ControlError::new_err(e.to_string()),
    }
}

/// A world loaded with its plugins, stepped from Python (see the stubs, `_simcore.pyi`).
#[pyclass(module = "simcore._simcore", name = "Simulation", frozen)]
pub struct PySimulation {
    pub(crate) shared: Arc<Shared>,
    label: String,
    world_name: String,
    seed: u64,
}

impl Drop for PySimulation {
    /// A simulation dropped while playing stops its thread (which holds the engine too).
    fn drop(&mut self) {
        let _ = self.shared.pause();
    }
}

impl PySimulation {
    /// Runs `f` on the engine (GIL held), unless closed.
    fn with<T>(&self, f: impl FnOnce(&mut Engine) -> PyResult<T>) -> PyResult<T> {
        no_panic("the simulation", || {
            let mut guard = Python::attach(|py| lock_attached(py, &self.shared.engine));
            match guard.as_mut() {
                Some(e) => f(e),
                None => Err(ControlError::new_err("the simulation is closed")),
            }
        })
    }

    /// Refuses what needs the engine to itself while `play()` steps it.
    fn not_playing(&self, what: &str) -> PyResult<()> {
        if self.shared.playing() {
            return Err(ControlError::new_err(format!(
                "cannot {what} while playing; call pause() first"
            )));
        }
        Ok(())
    }
}

#[pymethods]
impl PySimulation {
    #[new]
    #[pyo3(signature = (world, *, seed=0, threads=1, plugin_path=None, overrides=None, policy="gazebo"))]
    fn new(
        py: Python<'_>,
        world: &Bound<'_, PyAny>,
        seed: u64,
        threads: usize,
        plugin_path: Option<&Bound<'_, PyAny>>,
        overrides: Option<&Bound<'_, PyAny>>,
        policy: &str,
    ) -> PyResult<Self> {
        let source = Source::from_py(world)?;
        let over = overrides_from_py(overrides)?;
        let plugin_path: Vec<PathBuf> = match plugin_path.filter(|p| !p.is_none()) {
            None => Vec::new(),
            Some(p) if p.is_instance_of::<PyString>() => vec![p.extract()?],
            Some(p) => p.extract()?,
        };
        let policy = match policy {
            "gazebo" => PluginPolicy::Gazebo,
            "strict" => PluginPolicy::Strict,
            other => {
                return Err(PyValueError::new_err(format!(
                    "policy is \"gazebo\" or \"strict\", got {other:?}"
                )));
            }
        };
        if threads == 0 {
            return Err(PyValueError::new_err("threads must be at least 1"));
        }
        let options = SimOptions { seed, threads };
        let label = source.label();
        let built = py.detach(|| {
            std::panic::catch_unwind(|| -> PyResult<Engine> {
                let world = read_world(&source, &over)?;
                let sim = Engine0::with_policy(world, registry(&plugin_path), &options, policy)
                    .map_err(|e| load_error(&source, e))?;
                Ok(Engine::new(sim))
            })
        });
        let engine = match built {
            Ok(r) => r?,
            Err(panic) => {
                return Err(SimError::new_err(format!(
                    "internal error while loading {label}: {}",
                    crate::errors::panic_text(&panic)
                )));
            }
        };
        let world_name = engine.sim.world().name.clone();
        Ok(PySimulation {
            shared: Shared::new(engine),
            label,
            world_name,
            seed,
        })
    }

    /// Takes `n` steps (GIL released while stepping).
    #[pyo3(signature = (n=1))]
    fn step(&self, py: Python<'_>, n: u64) -> PyResult<()> {
        self.not_playing("step()")?;
        let shared = self.shared.clone();
        let r = py.detach(move || match lock(&shared.engine).as_mut() {
            Some(e) => e.step(n).map_err(Some),
            None => Err(None),
        });
        match r {
            Ok(()) => Ok(()),
            Err(Some(e)) => Err(SimError::new_err(e)),
            Err(None) => Err(ControlError::new_err("the simulation is closed")),
        }
    }

    /// Sim time, seconds.
    #[getter]
    fn time(&self) -> PyResult<f64> {
        self.with(|e| Ok(e.sim.time().as_secs_f64()))
    }

    /// Sim time, nanoseconds.
    #[getter]
    fn time_ns(&self) -> PyResult<i64> {
        self.with(|e| Ok(e.sim.time().nanos))
    }

    /// Steps taken since loading (or the last reset).
    #[getter]
    fn iteration(&self) -> PyResult<u64> {
        self.with(|e| Ok(e.sim.physics().iteration()))
    }

    /// The physics step, seconds.
    #[getter]
    fn step_size(&self) -> PyResult<f64> {
        self.with(|e| Ok(e.sim.physics().step_size().as_secs_f64()))
    }

    /// The world's name.
    #[getter]
    fn world_name(&self) -> String {
        self.world_name.clone()
    }

    /// The run seed (the last reset's, when it gave one).
    #[getter]
    fn seed(&self) -> PyResult<u64> {
        self.with(|e| Ok(e.sim.options().seed))
    }

    /// Starts stepping on a background thread paced to `rtf` (0: as fast as possible) until
    /// `pause()`.
    #[pyo3(signature = (rtf=1.0))]
    fn play(&self, rtf: f64) -> PyResult<()> {
        if !(rtf.is_finite() && rtf >= 0.0) {
            return Err(PyValueError::new_err(format!(
                "rtf must be >= 0, got {rtf}"
            )));
        }
        self.with(|e| match e.sim.control_mut().play() {
            Ok(()) | Err(sim_engine::runner::ControlError::AlreadyInState(_)) => Ok(()),
            Err(err) => Err(control_error(&self.label, err)),
        })?;
        self.shared.play(rtf).map_err(ControlError::new_err)
    }

    /// Stops `play()`'s stepping (after the step under way).
    fn pause(&self, py: Python<'_>) -> PyResult<()> {
        let shared = self.shared.clone();
        py.detach(move || shared.pause())
            .map_err(SimError::new_err)?;
        self.with(|e| match e.sim.control_mut().pause() {
            Ok(()) | Err(sim_engine::runner::ControlError::AlreadyInState(_)) => Ok(()),
            Err(err) => Err(control_error(&self.label, err)),
        })
    }

    /// The engine's run state: "paused" (stepped when asked), "playing" (`play()`),
    /// "stopped" or "quitting".
    #[getter(state)]
    fn run_state(&self) -> PyResult<&'static str> {
        self.with(|e| Ok(e.sim.control().state().name()))
    }

    /// Whether the simulation is not being stepped in the background.
    #[getter]
    fn paused(&self) -> bool {
        !self.shared.playing()
    }

    /// Starts again from the world as loaded (`seed`: with that run seed), or with
    /// `spawned_only` only removes the models spawned since loading.
    #[pyo3(signature = (*, spawned_only=false, seed=None))]
    fn reset(&self, py: Python<'_>, spawned_only: bool, seed: Option<u64>) -> PyResult<()> {
        self.not_playing("reset()")?;
        if spawned_only && seed.is_some() {
            return Err(PyValueError::new_err(
                "a seed applies to a reset of the whole world, not to spawned_only",
            ));
        }
        let shared = self.shared.clone();
        let r = py.detach(
            move || -> Result<(), Option<sim_engine::runner::ControlError>> {
                let mut guard = lock(&shared.engine);
                let Some(e) = guard.as_mut() else {
                    return Err(None);
                };
                let scope = if spawned_only {
                    ResetScope::Spawned
                } else {
                    ResetScope::All
                };
                match (seed, scope) {
                    (Some(s), ResetScope::All) => e
                        .sim
                        .reset_with_seed(s)
                        .map_err(|l| Some(sim_engine::runner::ControlError::Reset(l)))?,
                    _ => {
                        e.sim.reset_scope(scope).map_err(Some)?;
                    }
                }
                if scope == ResetScope::All {
                    e.forget();
                    e.broken = None;
                }
                Ok(())
            },
        );
        match r {
            Ok(()) => Ok(()),
            Err(Some(err)) => Err(control_error(&self.label, err)),
            Err(None) => Err(ControlError::new_err("the simulation is closed")),
        }
    }

    /// Stops playing and frees the engine; later calls raise `ControlError`.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        let shared = self.shared.clone();
        let paused = py.detach(move || {
            let r = shared.pause();
            lock(&shared.engine).take();
            r
        });
        paused.map_err(SimError::new_err)
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        let state = match lock(&self.shared.engine).as_ref() {
            None => "closed".to_string(),
            Some(e) => format!(
                "t={:.3} s, iteration {}, {}",
                e.sim.time().as_secs_f64(),
                e.sim.physics().iteration(),
                if self.shared.playing() {
                    "playing"
                } else {
                    "paused"
                }
            ),
        };
        format!(
            "<simcore.Simulation world \"{}\" from {} (seed {}): {state}>",
            self.world_name, self.label, self.seed
        )
    }

    /// The topics of the world (those of its sensors and systems, and any published on).
    fn topics(&self) -> PyResult<Vec<String>> {
        self.with(|e| Ok(e.sim.topics()))
    }

    /// The services the world's plugins offer.
    fn services(&self) -> PyResult<Vec<String>> {
        self.with(|e| Ok(e.sim.services()))
    }

    /// The latest message on `topic` (since loading or the last reset), or None.
    fn read(&self, topic: &str) -> PyResult<Option<Message>> {
        let env = self.with(|e| {
            e.collect();
            Ok(e.latest(topic))
        })?;
        Ok(env.map(|env| message(&env)))
    }

    /// A subscription to `topic`: its `drain()` returns the messages published since the
    /// last call (up to `capacity` of them; older ones are dropped and counted).
    #[pyo3(signature = (topic, capacity=1024))]
    fn subscribe(&self, topic: &str, capacity: usize) -> PyResult<Subscription> {
        let topic = sim_transport::validate_topic(topic)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        self.with(|e| {
            Ok(Subscription {
                inner: e.sim.bus_mut().subscribe(&topic, capacity.max(1)),
            })
        })
    }

    /// Publishes `msg` (a dict as `simcore run --pub` takes it: `{"type": "Twist", "linear":
    /// {"x": 0.5}}`) on `topic`, stamped with the current sim time.
    fn publish(&self, topic: &str, msg: &Bound<'_, PyAny>) -> PyResult<()> {
        let topic = sim_transport::validate_topic(topic)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        let value = crate::convert::from_py(msg)?;
        let payload = sim_codec::json::payload_from_json(&value)
            .map_err(|e| message_error(format!("publish to `{topic}`: {e}")))?;
        self.with(|e| {
            let mut m = sim_plugin_api::Message::new("", payload);
            m.header.stamp = e.sim.time();
            let id = e.sim.bus_mut().intern(&topic);
            e.sim.bus_mut().publish(id, m);
            Ok(())
        })
    }

    /// Calls a service with `request` (a dict as `publish` takes); returns the reply's fields
    /// as a dict (with its `type`).
    #[pyo3(signature = (service, request, *, timeout=None))]
    fn call<'py>(
        &self,
        py: Python<'py>,
        service: &str,
        request: &Bound<'_, PyAny>,
        timeout: Option<f64>,
    ) -> PyResult<Bound<'py, PyDict>> {
        self.not_playing("call a service")?;
        let value = crate::convert::from_py(request)?;
        let payload = sim_codec::json::payload_from_json(&value)
            .map_err(|e| message_error(format!("call `{service}`: {e}")))?;
        let timeout = match timeout {
            None => sim_engine::runner::DEFAULT_SERVICE_TIMEOUT,
            Some(t) if t.is_finite() && t > 0.0 => Duration::from_secs_f64(t),
            Some(t) => {
                return Err(PyValueError::new_err(format!(
                    "timeout must be a positive number of seconds, got {t}"
                )));
            }
        };
        let reply = self.with(|e| {
            let mut m = sim_plugin_api::Message::new("", payload);
            m.header.stamp = e.sim.time();
            let reply = e
                .sim
                .call_service_within(service, &m, timeout)
                .map_err(|err| ServiceError::new_err(err.to_string()));
            e.collect();
            reply
        })?;
        crate::message::reply_dict(py, service, &reply)
    }

    /// The plugins disabled while running: dicts with `time`, `subject`, `where`, `error`.
    #[getter]
    fn failures<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        let list = self.with(|e| {
            Ok(e.failures()
                .iter()
                .map(|f| {
                    (
                        f.time.as_secs_f64(),
                        f.subject.clone(),
                        f.span.to_string(),
                        f.error.clone(),
                    )
                })
                .collect::<Vec<_>>())
        })?;
        list.into_iter()
            .map(|(t, s, w, err)| {
                let d = PyDict::new(py);
                d.set_item("time", t)?;
                d.set_item("subject", s)?;
                d.set_item("where", w)?;
                d.set_item("error", err)?;
                Ok(d)
            })
            .collect()
    }

    /// What loading noted: sensors and plugins no library serves (skipped under the
    /// "gazebo" policy), notices about the world's plugins, refused libraries.
    #[getter]
    fn warnings(&self) -> PyResult<Vec<String>> {
        self.with(|e| {
            let s = &e.sim;
            Ok(s.skipped()
                .iter()
                .map(|p| format!("{p}; the world runs without it"))
                .chain(s.notices().iter().map(|p| p.to_string()))
                .chain(s.warnings().iter().cloned())
                .collect())
        })
    }

    // Entities.

    /// The state of a model (or link, by scoped name): `pose` (x, y, z), `orientation`
    /// (x, y, z, w), `linear_velocity`, `angular_velocity`, `linear_acceleration`,
    /// `angular_acceleration`.
    fn get_state<'py>(&self, py: Python<'py>, model: &str) -> PyResult<Bound<'py, PyDict>> {
        let state = self.with(|e| crate::entity::state(&e.sim, model))?;
        crate::entity::state_dict(py, &state)
    }

    /// Sets a model's pose, orientation and velocities (those given).
    #[pyo3(signature = (model, *, pose=None, orientation=None, linear_velocity=None, angular_velocity=None))]
    fn set_state(
        &self,
        model: &str,
        pose: Option<[f64; 3]>,
        orientation: Option<[f64; 4]>,
        linear_velocity: Option<[f64; 3]>,
        angular_velocity: Option<[f64; 3]>,
    ) -> PyResult<()> {
        self.not_playing("set_state()")?;
        let update = crate::entity::Update {
            position: pose,
            orientation,
            linear_velocity,
            angular_velocity,
        };
        self.with(|e| crate::entity::set_state(&mut e.sim, model, &update))
    }

    /// Creates a model from SDF text (a `<model>`, or an `<sdf>` holding one) or a model file
    /// name; returns its name.
    #[pyo3(signature = (sdf, *, name=None, pose=None, orientation=None, allow_renaming=false))]
    fn spawn(
        &self,
        sdf: &str,
        name: Option<String>,
        pose: Option<[f64; 3]>,
        orientation: Option<[f64; 4]>,
        allow_renaming: bool,
    ) -> PyResult<String> {
        self.not_playing("spawn()")?;
        self.with(|e| {
            crate::entity::spawn(
                &mut e.sim,
                sdf,
                name.as_deref(),
                pose,
                orientation,
                allow_renaming,
            )
        })
    }

    /// Removes a model with its sensors and plugins.
    fn delete(&self, model: &str) -> PyResult<()> {
        self.not_playing("delete()")?;
        self.with(|e| crate::entity::delete(&mut e.sim, model))
    }

    /// The scoped names of the world's models (nested ones as `outer::inner`); with `near`
    /// and `radius`, those whose collision box reaches within `radius` of the point `near`;
    /// with `between`, those whose collision box overlaps the box between two corners (a
    /// model without collisions is its origin).
    #[pyo3(signature = (*, near=None, radius=None, between=None))]
    fn models(
        &self,
        near: Option<[f64; 3]>,
        radius: Option<f64>,
        between: Option<([f64; 3], [f64; 3])>,
    ) -> PyResult<Vec<String>> {
        let region = crate::entity::region(near, radius, between)?;
        self.with(|e| Ok(e.sim.models_where(|_| true, region.as_ref())))
    }
}

/// A subscription to one topic (`Simulation.subscribe`).
#[pyclass(module = "simcore._simcore", name = "Subscription", frozen)]
pub struct Subscription {
    inner: BusSubscription,
}

#[pymethods]
impl Subscription {
    /// The messages published since the last call, oldest first.
    fn drain(&self) -> Vec<Message> {
        self.inner.drain().iter().map(message).collect()
    }

    /// The topic.
    #[getter]
    fn topic(&self) -> String {
        self.inner.topic().to_string()
    }

    /// Messages lost because more than `capacity` were waiting.
    #[getter]
    fn dropped(&self) -> u64 {
        self.inner.dropped()
    }

    fn __repr__(&self) -> String {
        format!("<simcore.Subscription to {}>", self.inner.topic())
    }
}
