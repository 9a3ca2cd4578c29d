//! The live tools: `simcore topic`, `simcore service` and `simcore sim` reach a running
//! simcore over Zenoh, as `gz topic` and `gz service` reach a running Gazebo, and as a ROS 2
//! node would (the same discovery, so they work through a Zenoh router and across hosts).
//! Messages are JSON in and out, in the form `simcore run --echo` and `--pub` use; service
//! requests and replies have the `simulation_interfaces` field names.

#[cfg(feature = "zenoh")]
mod service;
#[cfg(feature = "zenoh")]
mod topic;

use super::{Failure, Outcome};
use clap::{Args, Subcommand};
use std::path::PathBuf;

/// Where the live tools find the simulation.
#[derive(Debug, Args, Clone)]
pub struct ConnectArgs {
    /// Connect to this Zenoh endpoint (repeatable; default `tcp/localhost:7447`, where a
    /// Zenoh router or a `simcore run` started without endpoints listens).
    #[arg(long, value_name = "ENDPOINT", global = true)]
    pub zenoh_connect: Vec<String>,
    /// A Zenoh configuration file (Zenoh's JSON5 format: mode, endpoints, scouting,
    /// timeouts); `--zenoh-connect` is added to it.
    #[arg(long, value_name = "FILE", global = true)]
    pub zenoh_config: Option<PathBuf>,
    /// How long to wait for the graph's answer (topics, services and their types), in
    /// seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 1.0, global = true)]
    pub discovery: f64,
}

/// `simcore topic`.
#[derive(Debug, Args, Clone)]
pub struct TopicArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: TopicCommand,
    /// Where the simulation is.
    #[command(flatten)]
    pub connect: ConnectArgs,
}

/// `simcore topic` subcommands.
#[derive(Debug, Subcommand, Clone)]
pub enum TopicCommand {
    /// List the topics of the ROS 2 graph: each with its type and how many publish and
    /// subscribe.
    List(ListArgs),
    /// Print a topic's messages as JSON lines (as `simcore run --echo` does) until Ctrl-C.
    Echo(EchoArgs),
    /// Publish a message (JSON, as `simcore run --pub` takes it) once or at a rate.
    Pub(PubArgs),
    /// Print how often a topic's messages arrive (wall time), once a second.
    Hz(HzArgs),
}

/// `simcore topic list`, `simcore service list`.
#[derive(Debug, Args, Clone)]
pub struct ListArgs {
    /// Print one JSON object per line (name, types, who offers, who wants).
    #[arg(long)]
    pub json: bool,
}

/// `simcore topic echo`.
#[derive(Debug, Args, Clone)]
pub struct EchoArgs {
    /// The topic: its ROS name (`/model/rover_1/odometry`) or simcore's
    /// (`/model/rover-1/odometry`).
    pub topic: String,
    /// Stop after this many messages.
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
    /// Stop after this many seconds (wall time).
    #[arg(long, value_name = "SECONDS")]
    pub duration: Option<f64>,
}

/// `simcore topic pub`.
#[derive(Debug, Args, Clone)]
pub struct PubArgs {
    /// The topic (ROS name, or simcore's).
    pub topic: String,
    /// The message, e.g. `{"type": "Twist", "linear": {"x": 0.5}}`.
    pub message: String,
    /// Publish once, then exit.
    #[arg(long, conflicts_with = "times")]
    pub once: bool,
    /// Publish this many times, then exit.
    #[arg(long, value_name = "N")]
    pub times: Option<u64>,
    /// Messages per second (wall time).
    #[arg(long, value_name = "HZ", default_value_t = 1.0)]
    pub rate: f64,
    /// How long to wait for a subscriber before the first message, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 5.0)]
    pub wait: f64,
}

/// `simcore topic hz`.
#[derive(Debug, Args, Clone)]
pub struct HzArgs {
    /// The topic (ROS name, or simcore's).
    pub topic: String,
    /// The most recent arrivals the statistics are over.
    #[arg(long, value_name = "N", default_value_t = 10_000)]
    pub window: usize,
    /// Stop after this many messages.
    #[arg(long, value_name = "N")]
    pub count: Option<u64>,
    /// Stop after this many seconds (wall time).
    #[arg(long, value_name = "SECONDS")]
    pub duration: Option<f64>,
}

/// `simcore service`.
#[derive(Debug, Args, Clone)]
pub struct ServiceArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: ServiceCommand,
    /// Where the simulation is.
    #[command(flatten)]
    pub connect: ConnectArgs,
}

/// `simcore service` subcommands.
#[derive(Debug, Subcommand, Clone)]
pub enum ServiceCommand {
    /// List the services of the ROS 2 graph, each with its type and servers.
    List(ListArgs),
    /// Call a service: a `simulation_interfaces` one with the request as JSON with the
    /// service's field names (`{"steps": 10}`), or one of the world's (a plugin's, a sensor's
    /// `set_rate`) with the request as `simcore run --call` takes it; the reply printed as
    /// JSON.
    Call(CallArgs),
}

/// `simcore service call`.
#[derive(Debug, Args, Clone)]
pub struct CallArgs {
    /// The service (`/step_simulation`).
    pub service: String,
    /// The request (default `{}`: every field zero, false or empty).
    pub request: Option<String>,
    /// How long to wait for the reply, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub timeout: f64,
}

/// `simcore sim`.
#[derive(Debug, Args, Clone)]
pub struct SimArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: SimCommand,
    /// How long to wait for the reply, in seconds (a long step takes its time).
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0, global = true)]
    pub timeout: f64,
    /// Where the simulation is.
    #[command(flatten)]
    pub connect: ConnectArgs,
}

/// `simcore sim` subcommands.
#[derive(Debug, Subcommand, Clone, Copy, PartialEq, Eq)]
pub enum SimCommand {
    /// Pause the simulation.
    Pause,
    /// Resume it.
    Play,
    /// Advance a paused simulation by N steps (default 1); returns once they are done and
    /// every sensor due by then has published.
    Step {
        /// How many steps.
        #[arg(default_value_t = 1)]
        steps: u64,
    },
    /// Reset it: time, poses and velocities back to the start, spawned models removed.
    Reset,
    /// Print whether it is playing, paused or stopped.
    State,
}

/// A duration in seconds from the command line, checked.
fn seconds(flag: &str, s: f64) -> Result<std::time::Duration, Failure> {
    std::time::Duration::try_from_secs_f64(s)
        .ok()
        .filter(|d| d.as_secs() < 365 * 24 * 3600)
        .ok_or_else(|| {
            Failure::Error(format!(
                "{flag} must be a number of seconds from 0 to a year, got {s}"
            ))
        })
}

/// `simcore topic`.
pub fn topic(args: TopicArgs) -> Result<Outcome, Failure> {
    #[cfg(feature = "zenoh")]
    return topic::run(args);
    #[cfg(not(feature = "zenoh"))]
    return without_zenoh(args);
}

/// `simcore service`.
pub fn service(args: ServiceArgs) -> Result<Outcome, Failure> {
    #[cfg(feature = "zenoh")]
    return service::run(args);
    #[cfg(not(feature = "zenoh"))]
    return without_zenoh(args);
}

/// `simcore sim`.
pub fn sim(args: SimArgs) -> Result<Outcome, Failure> {
    #[cfg(feature = "zenoh")]
    return service::sim(args);
    #[cfg(not(feature = "zenoh"))]
    return without_zenoh(args);
}

#[cfg(not(feature = "zenoh"))]
fn without_zenoh<T>(_: T) -> Result<Outcome, Failure> {
    Err(Failure::Error(
        "this simcore was built without the `zenoh` feature: the live tools need it".into(),
    ))
}

#[cfg(feature = "zenoh")]
mod session {
    use super::super::Failure;
    use super::ConnectArgs;
    use sim_core::zenoh::ZenohOptions;
    use sim_core::zenoh::client::graph::Graph;
    use sim_core::zenoh::client::{Client, ClientOptions};
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    /// The client's session, its graph, and the stop flag Ctrl-C sets.
    pub struct Session {
        pub client: Client,
        pub stop: Arc<AtomicBool>,
        pub discovery: std::time::Duration,
    }

    impl Session {
        /// Opens the session (Ctrl-C handled from here on).
        pub fn open(args: &ConnectArgs) -> Result<Session, Failure> {
            let discovery = super::seconds("--discovery", args.discovery)?;
            let stop = Arc::new(AtomicBool::new(false));
            super::super::run::install_ctrl_c(stop.clone(), None);
            let options = ClientOptions {
                connect: args.zenoh_connect.clone(),
                config_file: args.zenoh_config.clone(),
                domain: ZenohOptions::domain_from_env()
                    .map_err(|e| Failure::Error(e.to_string()))?,
                ..ClientOptions::default()
            };
            let client = Client::open(&options).map_err(|e| {
                Failure::Error(format!(
                    "{e} (is a simcore run or a Zenoh router reachable at {}? --zenoh-connect \
                     names another endpoint)",
                    where_(args)
                ))
            })?;
            Ok(Session {
                client,
                stop,
                discovery,
            })
        }

        /// The graph as it answers within the discovery time.
        pub fn graph(&self) -> Result<Graph, Failure> {
            self.client
                .graph(self.discovery, &self.stop)
                .map_err(|e| Failure::Error(e.to_string()))
        }
    }

    fn where_(args: &ConnectArgs) -> String {
        if args.zenoh_connect.is_empty() {
            sim_core::zenoh::DEFAULT_ENDPOINT.to_string()
        } else {
            args.zenoh_connect.join(", ")
        }
    }
}
