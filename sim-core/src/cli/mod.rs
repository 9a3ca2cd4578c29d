//! The `simcore` command line (thin over the library): its arguments, and one module per
//! command.
//!
//! Nothing the command line prints may panic: a closed or full stdout or stderr (`2>&1 |
//! head -1`, `> /dev/full`) is no reason to end with a panic. So it prints with `note!` and
//! `say!`, which ignore a failed write, never with `println!` or `eprintln!`; the lines
//! `run` writes on stdout go through [`output`], which tells a closed reader from a failed
//! write.

/// Writes a line (as `eprintln!`) on stderr, ignoring a failure to write it.
macro_rules! note {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// Writes text (as `eprint!`) on stderr, ignoring a failure to write it.
macro_rules! note_text {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

/// Writes a line (as `println!`) on stdout, ignoring a failure to write it.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// Writes text (as `print!`) on stdout, ignoring a failure to write it.
macro_rules! say_text {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($arg)*);
    }};
}

pub mod batch;
pub mod check;
pub mod live;
pub mod new_plugin;
pub mod output;
pub mod plugins;
pub mod render;
pub mod report;
pub mod run;
pub mod settings;
pub mod transport;

use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

/// Headless, reproducible robot simulation with run-time sensor plugins.
#[derive(Debug, Parser)]
#[command(name = "simcore", version, about, long_about = None)]
pub struct Cli {
    /// More log output (-v info, -vv debug); SIMCORE_LOG overrides.
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Subcommands.
#[derive(Debug, Subcommand)]
// Parsed once per process: the size of the `run` arguments does not matter.
#[allow(clippy::large_enum_variant)]
pub enum Command {
    /// Run a world (an SDF file, or a TOML run manifest naming one).
    Run(Box<RunArgs>),
    /// List the plugin libraries on the search path, what they provide, and what was refused.
    Plugins(PathArgs),
    /// Check SDF files without running them: read each (its includes too) and build its
    /// worlds in the physics engine; print each problem with its source line; exit 0 when all
    /// are valid, 2 otherwise.
    ///
    /// No plugin is loaded: the elements of sensors and `<plugin>`s are checked as SDF, but
    /// what only a plugin reads (its parameters, whether a library serves it) is not. `simcore
    /// run WORLD --list` loads the plugins and creates every sensor and system, so it reports
    /// those too.
    Check(CheckArgs),
    /// Print what an SDF file (a world, or a model) resolves to: every frame and pose
    /// resolved, joints with the links they join, sensors and plugins.
    Inspect(InspectArgs),
    /// Write a new plugin crate, outside any workspace: a sensor or a system that builds, with
    /// unit tests, a world that runs it and a README.
    NewPlugin(NewPluginArgs),
    /// Draw a world, stepped to a sim time, into a PNG picture with the camera plugin
    /// (optionally with lidar rays and camera frusta on top).
    Render(Box<render::RenderArgs>),
    /// Run a sweep of worlds × seeds × SDF overrides (a TOML file), each run checked and
    /// written to a folder of its own, with a summary table; on a local pool or on Ray.
    Batch(batch::BatchArgs),
    /// One run of a batch, read as JSON on stdin (started by `simcore batch`).
    #[command(hide = true)]
    BatchWorker(batch::WorkerArgs),
    /// The topics of a running simulation (over Zenoh, as ROS 2 nodes reach it): list,
    /// echo, pub, hz.
    Topic(live::TopicArgs),
    /// The services of a running simulation: list, call.
    Service(live::ServiceArgs),
    /// Control a running simulation: pause, play, step N, reset, state.
    Sim(live::SimArgs),
    /// Print a shell completion script: `simcore completions bash > ~/.local/share/bash-completion/completions/simcore`,
    /// or `zsh` into a directory of `$fpath` as `_simcore`.
    Completions(CompletionArgs),
}

/// `simcore completions`.
#[derive(Debug, Args, Clone)]
pub struct CompletionArgs {
    /// The shell.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// `simcore completions`: the script, written whole to stdout (a closed stdout is no
/// failure; a full one is).
pub fn completions(args: &CompletionArgs) -> Result<Outcome, Failure> {
    use clap::CommandFactory;
    use std::io::Write;
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "simcore", &mut script);
    match std::io::stdout().lock().write_all(&script) {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            note!("error: writing stdout failed: {e}");
            Ok(Outcome::OutputFailed)
        }
        _ => Ok(Outcome::Success),
    }
}

/// `simcore new-plugin`.
#[derive(Debug, Args, Clone)]
#[command(group(clap::ArgGroup::new("kind").required(true).args(["sensor", "system"])))]
pub struct NewPluginArgs {
    /// The crate name (`acme-sonar`): a lowercase letter, then lowercase letters, digits,
    /// `-` or `_`. The library is named after it with `_` for `-`; so is a sensor's type.
    pub name: String,
    /// A sensor plugin (serves the sensor type named after the crate).
    #[arg(long)]
    pub sensor: bool,
    /// A system (model) plugin (serves the plugin name `<library>::<Type>`).
    #[arg(long)]
    pub system: bool,
    /// The directory the crate directory `NAME` is created in (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// Depend on the sim-plugin-api of this checkout (its directory) instead of the simcore
    /// git repository.
    #[arg(long = "api-path", value_name = "DIR")]
    pub api_path: Option<PathBuf>,
}

/// Where included models and other resources are searched for.
#[derive(Debug, Args, Clone, Default)]
pub struct ResourceArgs {
    /// A directory searched for `model://` URIs and included model names before
    /// SIMCORE_RESOURCE_PATH, GZ_SIM_RESOURCE_PATH, SDF_PATH, the `models/` directories at or
    /// above the world file and the manifest's resource_paths (repeatable).
    #[arg(long = "resource-path", value_name = "DIR")]
    pub resource_path: Vec<PathBuf>,
    /// The largest SDF or XML file read, in bytes (default 64 MiB).
    #[arg(long = "max-file-size", value_name = "BYTES")]
    pub max_file_size: Option<u64>,
    /// The largest mesh or height-map file read, in bytes (default 256 MiB).
    #[arg(long = "max-mesh-size", value_name = "BYTES")]
    pub max_mesh_size: Option<u64>,
    /// The most pixels of a height-map image (default 4097 x 4097).
    #[arg(long = "max-heightmap-pixels", value_name = "N")]
    pub max_heightmap_pixels: Option<u64>,
    /// The most models one load may expand, included copies and files counted (default 10,000).
    #[arg(long = "max-models", value_name = "N")]
    pub max_models: Option<usize>,
    /// The most triangles of a dynamic link's mesh for its convex decomposition; a larger
    /// mesh collides as its convex hull (default 2,000).
    #[arg(long = "max-decomposition-triangles", value_name = "N")]
    pub max_decomposition_triangles: Option<usize>,
    /// The longest text of one value, in bytes (default 4,096).
    #[arg(long = "max-value-length", value_name = "BYTES")]
    pub max_value_length: Option<usize>,
    /// The most pixels of one camera image, width x height (default 8,388,608).
    #[arg(long = "max-camera-pixels", value_name = "N")]
    pub max_camera_pixels: Option<u64>,
    /// The most rays of one lidar scan, horizontal x vertical samples (default 1,048,576).
    #[arg(long = "max-lidar-rays", value_name = "N")]
    pub max_lidar_rays: Option<u64>,
    /// The most models one file may hold, nested ones counted (default 100,000).
    #[arg(long = "max-world-models", value_name = "N")]
    pub max_world_models: Option<usize>,
    /// The most links one file may hold, and the copies includes make may add (default
    /// 100,000).
    #[arg(long = "max-links", value_name = "N")]
    pub max_links: Option<usize>,
    /// The most collisions one file may hold, and the copies includes make may add (default
    /// 100,000).
    #[arg(long = "max-collisions", value_name = "N")]
    pub max_collisions: Option<usize>,
    /// The most collisions of one link (default 1,000).
    #[arg(long = "max-link-collisions", value_name = "N")]
    pub max_link_collisions: Option<usize>,
    /// The most pairs of colliders whose boxes overlap when the world is built or a model
    /// created (default 1,000,000).
    #[arg(long = "max-overlapping-pairs", value_name = "N")]
    pub max_overlapping_pairs: Option<usize>,
    /// Let the world read files outside its own directory and the resource search path.
    #[arg(long = "read-anywhere")]
    pub read_anywhere: bool,
    /// Keep the world to its own directory and the resource search path, not the source
    /// tree it lies in (a world from a stranger placed inside your checkout).
    #[arg(long = "world-dir-only", conflicts_with = "read_anywhere")]
    pub world_dir_only: bool,
}

impl ResourceArgs {
    /// The input limits: the defaults, with what the flags raise or lower.
    pub fn limits(&self) -> sim_core::input::Limits {
        let mut l = sim_core::input::Limits::default();
        if let Some(v) = self.max_file_size {
            l.max_sdf_bytes = v;
        }
        if let Some(v) = self.max_mesh_size {
            l.max_mesh_bytes = v;
        }
        if let Some(v) = self.max_heightmap_pixels {
            l.max_heightmap_pixels = v;
        }
        if let Some(v) = self.max_models {
            l.max_models = v;
        }
        if let Some(v) = self.max_decomposition_triangles {
            l.max_decomposition_triangles = v;
        }
        if let Some(v) = self.max_value_length {
            l.max_value_bytes = v;
        }
        if let Some(v) = self.max_camera_pixels {
            l.max_camera_pixels = v;
        }
        if let Some(v) = self.max_lidar_rays {
            l.max_lidar_rays = v;
        }
        if let Some(v) = self.max_world_models {
            l.max_world_models = v;
        }
        if let Some(v) = self.max_links {
            l.max_links = v;
        }
        if let Some(v) = self.max_collisions {
            l.max_collisions = v;
        }
        if let Some(v) = self.max_link_collisions {
            l.max_link_collisions = v;
        }
        if let Some(v) = self.max_overlapping_pairs {
            l.max_overlapping_pairs = v;
        }
        l.read_anywhere = self.read_anywhere;
        l.read_project = !self.world_dir_only;
        l
    }
}

/// `simcore check`.
#[derive(Debug, Args, Clone)]
pub struct CheckArgs {
    /// The SDF files to check.
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<PathBuf>,
    /// A TOML run manifest whose resource_paths are searched too.
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// Resource search path.
    #[command(flatten)]
    pub resources: ResourceArgs,
}

/// `simcore inspect`.
#[derive(Debug, Args, Clone)]
pub struct InspectArgs {
    /// The SDF file (its root holds a world or a model).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,
    /// Print JSON in the schema of the libsdformat oracle (poses in the world frame, raw
    /// poses, resolved links and axes) instead of a tree.
    #[arg(long)]
    pub json: bool,
    /// A TOML run manifest whose resource_paths are searched too.
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
    /// Resource search path.
    #[command(flatten)]
    pub resources: ResourceArgs,
}

/// Where plugins and run settings come from.
#[derive(Debug, Args, Clone, Default)]
pub struct PathArgs {
    /// A directory searched for plugin libraries before SIMCORE_PLUGIN_PATH, the manifest's
    /// directories and the directory of the simcore executable (repeatable).
    #[arg(long = "plugin-path", value_name = "DIR")]
    pub plugin_path: Vec<PathBuf>,
    /// A TOML run manifest (world, seed, real_time_factor, threads, plugin_paths,
    /// resource_paths, and the libraries serving sensor types and plugin names).
    #[arg(long, value_name = "FILE")]
    pub manifest: Option<PathBuf>,
}

/// `simcore run`.
#[derive(Debug, Args, Clone)]
pub struct RunArgs {
    /// The world: an SDF file or a TOML manifest.
    #[arg(value_name = "WORLD")]
    pub world: PathBuf,
    /// Stop after this many steps.
    #[arg(long, conflicts_with = "duration")]
    pub steps: Option<u64>,
    /// Stop after this much sim time, in seconds.
    #[arg(long, value_name = "SECONDS")]
    pub duration: Option<f64>,
    /// Real-time factor (default: the manifest's, else the world's <real_time_factor>,
    /// else 1); 0 runs as fast as possible.
    #[arg(long, value_name = "X")]
    pub rtf: Option<f64>,
    /// Run seed for every noise stream (default: the manifest's, else 0).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Worker threads for sensor updates (default: the manifest's, else the number of CPUs).
    #[arg(long)]
    pub threads: Option<usize>,
    /// The wall time one plugin hook (a sensor update, a system step or service call) may
    /// take before it is named in a warning, in seconds (default: the manifest's, else 1).
    #[arg(long = "plugin-budget", value_name = "SECONDS")]
    pub plugin_budget: Option<f64>,
    /// The largest message a plugin may publish, in bytes; larger ones are refused and
    /// counted (default: the manifest's, else 64 MiB).
    #[arg(long = "max-message-size", value_name = "BYTES")]
    pub max_message_size: Option<u64>,
    /// Also write the closing summary as JSON to FILE.
    #[arg(long = "summary-json", value_name = "FILE")]
    pub summary_json: Option<PathBuf>,
    /// Print the messages of TOPIC as JSON lines on stdout (repeatable).
    #[arg(long, value_name = "TOPIC")]
    pub echo: Vec<String>,
    /// Publish a message at a sim time: `TOPIC=JSON@SECONDS` (without `@SECONDS`: at the
    /// start), e.g. `/model/robot/cmd_vel={"type":"Twist","linear":{"x":0.5}}@1.0` (repeatable).
    #[arg(long = "pub", value_name = "TOPIC=JSON@TIME")]
    pub publish: Vec<String>,
    /// Let `--pub` write to a topic nothing in the world listens to (for a recording or
    /// clients outside); without it such a `--pub` is refused.
    #[arg(long = "pub-any-topic")]
    pub pub_any_topic: bool,
    /// Call a service at a sim time: `SERVICE=JSON@SECONDS`; the reply is printed as a JSON
    /// line on stdout (repeatable).
    #[arg(long, value_name = "SERVICE=JSON@TIME")]
    pub call: Vec<String>,
    /// How long a `--call` waits for its reply, in seconds of wall time; a later reply is
    /// dropped and the call answered with a timeout error.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    pub call_timeout: f64,
    /// Record the run to this MCAP file (ROS 2 profile: every topic, /tf, /tf_static,
    /// /scene, /clock; see docs/recording.md).
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,
    /// Record only this bus topic (repeatable; default: every topic).
    #[arg(long = "record-topic", value_name = "TOPIC")]
    pub record_topic: Vec<String>,
    /// Serve the recorded channels live to the Foxglove app over WebSocket on ADDR
    /// (default 127.0.0.1:8765; port 0: any free port).
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:8765")]
    pub foxglove: Option<std::net::SocketAddr>,
    /// What the Foxglove clients' queues may hold, all together, in MiB (default 2048): past
    /// it, a client's largest channels are not sent to it until others unsubscribe.
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u64).range(1..=1 << 40))]
    pub foxglove_memory: Option<u64>,
    /// Serve the Foxglove clients the view only: without it they may also pause, play, step
    /// and reset the run (services `/get_simulation_state`, `/set_simulation_state`,
    /// `/step_simulation`, `/reset_simulation`).
    #[arg(long, requires = "foxglove")]
    pub foxglove_view_only: bool,
    /// Print the world's topics and services after loading it, then exit.
    #[arg(long)]
    pub list: bool,
    /// Refuse the world when a sensor type or `<plugin>` is served by no library (default:
    /// Gazebo's policy, one warning each and the world runs without it).
    #[arg(long)]
    pub strict: bool,
    /// Plugin search path and manifest.
    #[command(flatten)]
    pub paths: PathArgs,
    /// Resource search path.
    #[command(flatten)]
    pub resources: ResourceArgs,
    /// Clients outside the process.
    #[command(flatten)]
    pub transport: transport::TransportArgs,
}

/// Why a command stopped without doing its work; `main` makes it exit status 2.
#[derive(Debug)]
pub enum Failure {
    /// Printed on stderr as `error: MESSAGE`.
    Error(String),
    /// Printed on stderr as is (a rendered diagnostic).
    Report(String),
    /// Already reported.
    Reported,
}

impl Failure {
    /// Prints what is left to say on stderr.
    pub fn print(&self) {
        match self {
            Failure::Error(m) => note!("error: {m}"),
            Failure::Report(r) => note_text!("{r}"),
            Failure::Reported => {}
        }
    }
}

/// How a command that did its work ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// All went well.
    Success,
    /// It ran, but a plugin was disabled on the way.
    PluginDisabled,
    /// It ran, but what it had to write on stdout could not be written (a full disk; a
    /// reader that closed stdout is not a failure).
    OutputFailed,
    /// The simulation refused what was asked (a service call's result was not OK).
    Refused,
}
