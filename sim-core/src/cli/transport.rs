//! `simcore run`'s transport options: the Zenoh session that makes the run's topics
//! reachable from other processes in ROS 2's wire format.

use super::Failure;
use clap::Args;
use sim_core::ros::names::RosNames;
use sim_core::runner::Simulation;
use std::path::PathBuf;

/// Transport options of `simcore run`.
#[derive(Debug, Args, Clone, Default)]
pub struct TransportArgs {
    /// No transport: the run's topics stay inside the process.
    #[arg(long)]
    pub no_transport: bool,
    /// Connect to this Zenoh endpoint, e.g. `tcp/192.168.1.5:7447` (repeatable; default:
    /// `tcp/localhost:7447` when something listens there).
    #[arg(long, value_name = "ENDPOINT")]
    pub zenoh_connect: Vec<String>,
    /// Listen on this Zenoh endpoint (repeatable; default: `tcp/localhost:7447` when nothing
    /// listens there).
    #[arg(long, value_name = "ENDPOINT")]
    pub zenoh_listen: Vec<String>,
    /// A Zenoh configuration file (Zenoh's JSON5 format: mode, endpoints, scouting,
    /// timeouts); `--zenoh-connect` and `--zenoh-listen` are added to it.
    #[arg(long, value_name = "FILE")]
    pub zenoh_config: Option<PathBuf>,
    /// How often `/clock` is published, per second of sim time (0: every step).
    #[arg(long, value_name = "HZ", default_value_t = 100.0)]
    pub clock_rate: f64,
    /// Start paused: the world steps only when a client calls StepSimulation or sets the
    /// state to playing (simulation_interfaces services, over Zenoh or to the Foxglove
    /// server).
    #[arg(long)]
    pub paused: bool,
}

/// The transport of a run (`None` with `--no-transport`).
#[cfg(feature = "zenoh")]
pub type Transport = Option<sim_core::zenoh::Bridge>;
/// The transport of a run (this build has none).
#[cfg(not(feature = "zenoh"))]
pub type Transport = Option<std::convert::Infallible>;

/// The topics the Zenoh transport publishes of its own (not on the world's bus).
pub const TRANSPORT_TOPICS: [&str; 3] = ["/clock", "/tf", "/tf_static"];

/// What the transport serves besides the world's topics, each with its ROS 2 type.
#[derive(Debug, Default)]
pub struct TransportServed {
    /// Its own topics: `/clock`, `/tf`, `/tf_static`.
    pub topics: Vec<(&'static str, &'static str)>,
    /// Its services (the `simulation_interfaces` ones), each name once with its types.
    pub services: Vec<(&'static str, Vec<&'static str>)>,
}

/// What the transport `args` start serves of its own (`None`: no transport).
#[cfg(feature = "zenoh")]
pub fn served(args: &TransportArgs) -> Option<TransportServed> {
    use sim_core::ros::catalog;
    use sim_core::zenoh::control::Service;
    if args.no_transport {
        return None;
    }
    let mut services: Vec<(&'static str, Vec<&'static str>)> = Vec::new();
    for s in Service::ALL {
        let ty = s.ros_type().name;
        match services.iter_mut().find(|(n, _)| *n == s.ros_name()) {
            Some((_, types)) if !types.contains(&ty) => types.push(ty),
            Some(_) => {}
            None => services.push((s.ros_name(), vec![ty])),
        }
    }
    services.sort();
    Some(TransportServed {
        topics: TRANSPORT_TOPICS
            .into_iter()
            .zip([&catalog::CLOCK, &catalog::TF_MESSAGE, &catalog::TF_MESSAGE])
            .map(|(name, ty)| (name, ty.name))
            .collect(),
        services,
    })
}

/// What the transport `args` start serves of its own: this build has none.
#[cfg(not(feature = "zenoh"))]
pub fn served(_args: &TransportArgs) -> Option<TransportServed> {
    None
}

/// Opens the transport as `args` say.
#[cfg(feature = "zenoh")]
pub fn start(
    args: &TransportArgs,
    names: &RosNames,
    sim: &mut Simulation,
    live_control: bool,
) -> Result<Transport, Failure> {
    use sim_core::zenoh::{Bridge, ZenohOptions};
    if args.no_transport {
        start_paused(args, sim, live_control)?;
        return Ok(None);
    }
    if !(args.clock_rate.is_finite() && args.clock_rate >= 0.0) {
        return Err(Failure::Error(format!(
            "--clock-rate must be a non-negative number, got {}",
            args.clock_rate
        )));
    }
    let options = ZenohOptions {
        connect: args.zenoh_connect.clone(),
        listen: args.zenoh_listen.clone(),
        config_file: args.zenoh_config.clone(),
        domain: ZenohOptions::domain_from_env().map_err(|e| Failure::Error(e.to_string()))?,
        clock_rate: args.clock_rate,
        names: names.clone(),
        ..ZenohOptions::default()
    };
    let bridge = Bridge::start(&options, sim).map_err(|e| Failure::Error(e.to_string()))?;
    start_paused(args, sim, true)?;
    Ok(Some(bridge))
}

/// Pauses the run before its first step with `--paused`, when a client can resume or step
/// it (`controlled`: the transport's, or the Foxglove server's).
fn start_paused(
    args: &TransportArgs,
    sim: &mut Simulation,
    controlled: bool,
) -> Result<(), Failure> {
    if !args.paused {
        return Ok(());
    }
    if !controlled {
        return Err(Failure::Error(
            "--paused needs the transport or --foxglove (only a client can resume or step the \
             run)"
                .into(),
        ));
    }
    sim.control_mut()
        .pause()
        .map_err(|e| Failure::Error(e.to_string()))
}

/// Without Zenoh in this build, asking for it is an error.
#[cfg(not(feature = "zenoh"))]
pub fn start(
    args: &TransportArgs,
    _names: &RosNames,
    sim: &mut Simulation,
    live_control: bool,
) -> Result<Transport, Failure> {
    if !args.zenoh_connect.is_empty()
        || !args.zenoh_listen.is_empty()
        || args.zenoh_config.is_some()
    {
        return Err(Failure::Error(
            "this simcore was built without the `zenoh` feature".into(),
        ));
    }
    start_paused(args, sim, live_control)?;
    Ok(None)
}

/// Serves the transport after a step and before the first (`stepped`), and while the run
/// waits paused.
pub fn after_step(transport: &mut Transport, sim: &mut Simulation, stepped: bool) {
    #[cfg(feature = "zenoh")]
    if let Some(t) = transport {
        if stepped {
            t.after_step(sim);
        } else {
            t.while_paused(sim);
        }
    }
    #[cfg(not(feature = "zenoh"))]
    let _ = (transport, sim, stepped);
}

/// Closes the transport and prints what each topic sent to clients outside the process.
pub fn finish(transport: Transport) {
    #[cfg(feature = "zenoh")]
    if let Some(t) = transport {
        use std::io::Write;
        let reports: Vec<_> = t
            .finish()
            .into_iter()
            .filter(|r| r.sent > 0 || r.lost > 0)
            .collect();
        if reports.is_empty() {
            return;
        }
        let w = reports
            .iter()
            .map(|r| r.ros_name.len())
            .max()
            .unwrap_or(5)
            .max(5);
        let mut e = std::io::stderr().lock();
        let _ = writeln!(e, "  {:<w$}  {:>8}  {:>7}  type", "zenoh", "sent", "lost");
        for r in &reports {
            let _ = writeln!(
                e,
                "  {:<w$}  {:>8}  {:>7}  {}",
                r.ros_name, r.sent, r.lost, r.ros_type
            );
        }
        for r in &reports {
            if let Some(steps) = r.steps {
                let _ = writeln!(
                    e,
                    "  {}: {steps} steps' frames in {} messages (a message holds every step that waited for the Zenoh thread; lost counts steps)",
                    r.ros_name, r.sent
                );
            }
        }
    }
    #[cfg(not(feature = "zenoh"))]
    let _ = transport;
}
