//! `simcore run`: load a world with its plugins, inject `--pub` and `--call` requests at
//! their times, echo topics, show progress, and print the run summary.
//!
//! The run ends at its limit, on SIGINT, SIGTERM or SIGHUP, or when stdout is closed while
//! it writes there (`| head -1`); each way the summary is printed on stderr and a recording
//! is finished. stdout is written by a thread of its own ([`super::output`]).

use super::output::Output;
use super::report::{plugin_problems, print_skipped, print_summary};
use super::settings::{Settings, load_options, registry, settings};
use super::transport::{TRANSPORT_TOPICS, TransportServed};
use super::{Failure, Outcome, RunArgs};
use sim_core::record::{RecordOptions, RecordSummary, Recorder};
use sim_core::ros::names::RosNames;
use sim_core::runner::{Guards, LoadError, Moment, PluginPolicy, RunLimit, SimOptions, Simulation};
use sim_core::transport::Subscription;
use sim_core::world::World;
use sim_plugin_api::SimTime;
use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// Runs a world as `args` say: its topics and services with `--list`, else until its limit
/// or Ctrl-C.
pub fn run(args: RunArgs) -> Result<Outcome, Failure> {
    let s = settings(Some(&args.world), &args.paths)?;
    check_numbers(&args)?;
    let world = load_world(&s, &args)?;
    let (options, rtf) = run_options(&args, &s, &world);
    let step = SimTime::from_secs_f64(world.physics.max_step_size);
    if rtf > 0.0
        && sim_core::runner::step_period(step, rtf) == Some(sim_core::runner::MAX_STEP_WAIT)
    {
        let _ = writeln!(
            std::io::stderr(),
            "warning: a real-time factor of {rtf:e} would make each step of {} s last {:e} s; \
             each lasts {} s at most (see docs/untrusted-input.md)",
            world.physics.max_step_size,
            world.physics.max_step_size / rtf,
            sim_core::runner::MAX_STEP_WAIT.as_secs()
        );
    }
    let mut sim = build(world, &args, &s, &options)?;
    sim.set_guards(guards(&args, &s)?);
    // Libraries the world does not need are only mentioned in the log (`simcore plugins`
    // lists them); when a needed one is missing, the load error names the refused ones. One
    // refused in place of a library the run uses (a broken copy earlier on the path) is
    // warned about, naming both.
    for w in sim.warnings() {
        tracing::info!("{w}");
    }
    let opened = sim.registry().opened();
    for r in sim.registry().refused() {
        let same_name = |l: &&&sim_core::plugins::PluginLibrary| {
            r.path
                .file_name()
                .is_some_and(|f| f.to_string_lossy() == l.file_name)
        };
        if let Some(used) = opened.iter().find(same_name) {
            note!(
                "warning: plugin library {} refused: {}; {} of the same name is used instead \
                 (remove or replace the refused file)",
                r.path.display(),
                r.reason,
                used.path.display()
            );
        }
    }
    for n in sim.notices() {
        note!("warning: {n}");
    }
    for p in sim.skipped() {
        note!("warning: {p}; the world runs without it");
    }
    let names = ros_names(&s.manifest.ros.remap)?;
    let transport_served = super::transport::served(&args.transport);
    if args.list {
        list(&sim, transport_served.as_ref(), &names);
        return Ok(Outcome::Success);
    }
    let injections = injections(&args)?;
    check_publications(&sim, &injections, args.pub_any_topic)?;
    // Before `--echo` subscribes: the transport takes the topics the world itself listens
    // to for its inputs.
    let live_control = args.foxglove.is_some() && !args.foxglove_view_only;
    let mut transport = super::transport::start(&args.transport, &names, &mut sim, live_control)?;
    let subs = subscribe_echo(&mut sim, &args.echo, transport_served.as_ref())?;
    let call_timeout = seconds("--call-timeout", args.call_timeout)?;
    let limit = match (args.steps, args.duration) {
        (Some(n), _) => RunLimit::Steps(n),
        (None, Some(d)) => RunLimit::Duration(SimTime::from_secs_f64(d)),
        (None, None) => RunLimit::Forever,
    };
    let recorder = start_recording(&mut sim, &args, &s, options.seed, names)?;
    let stop = Arc::new(AtomicBool::new(false));
    install_ctrl_c(stop.clone(), Some(sim.waker()));
    let mut monitor = Monitor {
        out: Output::start(std::io::stdout()),
        stop: stop.clone(),
        injections,
        next_injection: 0,
        call_timeout,
        subs,
        progress: Progress::new(),
        recorder,
    };
    monitor.inject(&mut sim);
    super::transport::after_step(&mut transport, &mut sim, true);
    let summary = sim.run_with(limit, rtf, &stop, |sim, moment| {
        let stepped = moment == Moment::Stepped;
        if stepped {
            monitor.after_step(sim);
        }
        if let Some(r) = &mut monitor.recorder {
            r.serve(sim);
        }
        super::transport::after_step(&mut transport, sim, stepped);
    });
    let (recorded, mut out) = monitor.finish();
    print_summary(&summary, &s.world);
    if let Some(path) = &args.summary_json {
        super::report::write_summary_json(path, &summary, &s.world)?;
    }
    if let Some(r) = recorded {
        note!("  {r}");
    }
    super::transport::finish(transport);
    print_skipped(sim.skipped());
    // After the summary: a reader that never reads delays the exit, never the summary; a
    // signal ends the wait.
    let stdout_closed = out.closed();
    let dropped = out.finish(&stop);
    let write_error = out.error();
    if let Some(e) = &write_error {
        note!("error: writing stdout failed: {e}; the run ended there");
    } else if stdout_closed {
        note!("  stdout was closed: the run ended there");
    }
    if dropped > 0 {
        note!("  {dropped} line(s) for stdout dropped (the reader was too slow or gone)");
    }
    Ok(if write_error.is_some() {
        Outcome::OutputFailed
    } else if summary.failures.is_empty() {
        Outcome::Success
    } else {
        Outcome::PluginDisabled
    })
}

/// Sets `stop` on SIGINT (Ctrl-C), SIGTERM and SIGHUP, and wakes the run when it waits paused
/// (once per process; later calls reuse the first flag).
pub fn install_ctrl_c(stop: Arc<AtomicBool>, waker: Option<sim_core::runner::RunWaker>) {
    let _ = ctrlc::set_handler(move || {
        stop.store(true, Ordering::Relaxed);
        if let Some(w) = &waker {
            w.wake();
        }
    });
}

/// The ROS 2 names of the run's topics, for the transport and the recordings alike: the
/// manifest's `[[ros.remap]]` (every problem with them reported), else the rule.
fn ros_names(remaps: &[sim_core::manifest::Remap]) -> Result<RosNames, Failure> {
    let pairs: Vec<(String, String)> = remaps
        .iter()
        .map(|r| (r.from.clone(), r.to.clone()))
        .collect();
    RosNames::new(&pairs).map_err(|e| Failure::Error(format!("[[ros.remap]]: {e}")))
}

/// Starts `--record` (else the manifest's `record`) and `--foxglove`, before the first step.
fn start_recording(
    sim: &mut Simulation,
    args: &RunArgs,
    s: &Settings,
    seed: u64,
    names: RosNames,
) -> Result<Option<Recorder>, Failure> {
    let path = args.record.clone().or_else(|| s.manifest.record.clone());
    if path.is_none() && args.foxglove.is_none() {
        return Ok(None);
    }
    let topics = if args.record_topic.is_empty() {
        s.manifest.record_topics.clone()
    } else {
        args.record_topic.clone()
    };
    let options = RecordOptions {
        names,
        live_memory: args.foxglove_memory.map_or(0, |m| m << 20),
        live_control: !args.foxglove_view_only,
        ..RecordOptions::for_run(sim, &s.world, seed, path, args.foxglove, topics)
    };
    let r = Recorder::start(sim, options).map_err(|e| Failure::Error(e.to_string()))?;
    if let (Some(addr), Some(port)) = (args.foxglove, r.live_port()) {
        note!("serving Foxglove on ws://{}:{port}", addr.ip());
    }
    Ok(Some(r))
}

/// `--plugin-budget` and `--max-message-size` (else the manifest's, else the defaults).
fn guards(args: &RunArgs, s: &Settings) -> Result<Guards, Failure> {
    let mut g = Guards::default();
    if let Some(b) = args.plugin_budget.or(s.manifest.plugin_budget) {
        g.hook_budget = seconds("--plugin-budget", b)?;
    }
    if let Some(m) = args.max_message_size.or(s.manifest.max_message_size) {
        if m == 0 {
            return Err(Failure::Error(
                "--max-message-size must be at least 1 byte".into(),
            ));
        }
        g.max_message_bytes = m;
    }
    Ok(g)
}

/// The longest wall time a flag may give in seconds (`--call-timeout`, `--plugin-budget`):
/// about 31 years.
const MAX_SECONDS: f64 = 1e9;

/// The duration of `value` seconds given to `flag`: a positive number of at most
/// [`MAX_SECONDS`], else an error naming the flag and the value.
fn seconds(flag: &str, value: f64) -> Result<Duration, Failure> {
    if value.is_finite() && value > 0.0 && value <= MAX_SECONDS {
        Ok(Duration::try_from_secs_f64(value).unwrap_or(Duration::MAX))
    } else {
        Err(Failure::Error(format!(
            "{flag} must be a positive number of seconds, at most {MAX_SECONDS:e}, got {}",
            short(value)
        )))
    }
}

/// `v` as a user would write it: `1e300` rather than its 301 digits.
fn short(v: f64) -> String {
    if v != 0.0 && v.is_finite() && !(1e-4..1e9).contains(&v.abs()) {
        format!("{v:e}")
    } else {
        v.to_string()
    }
}

/// `--duration`, `--rtf` and `--threads` in range.
fn check_numbers(args: &RunArgs) -> Result<(), Failure> {
    if let Some(d) = args.duration
        && !(d.is_finite() && d >= 0.0)
    {
        return Err(Failure::Error(format!(
            "--duration must be a non-negative number of seconds, got {d}"
        )));
    }
    if let Some(r) = args.rtf
        && !(r.is_finite() && r >= 0.0)
    {
        return Err(Failure::Error(format!("--rtf must be >= 0, got {r}")));
    }
    if args.threads == Some(0) {
        return Err(Failure::Error("--threads must be at least 1".into()));
    }
    Ok(())
}

fn load_world(s: &Settings, args: &RunArgs) -> Result<World, Failure> {
    sim_core::sdf::load_with(&s.world, &load_options(&args.resources, &s.manifest))
        .map_err(|e| Failure::Report(format!("{}\n", e.render(None))))
}

/// The simulation options and the real-time factor: the command line's, else the
/// manifest's, else the world's (threads: else the number of CPUs).
fn run_options(args: &RunArgs, s: &Settings, world: &World) -> (SimOptions, f64) {
    let rtf = args
        .rtf
        .or(s.manifest.real_time_factor)
        .unwrap_or(world.physics.real_time_factor);
    let threads = args
        .threads
        .or(s.manifest.threads)
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let options = SimOptions {
        seed: args.seed.or(s.manifest.seed).unwrap_or(0),
        threads,
    };
    (options, rtf)
}

fn build(
    world: World,
    args: &RunArgs,
    s: &Settings,
    options: &SimOptions,
) -> Result<Simulation, Failure> {
    let registry = registry(&args.paths, &s.manifest);
    let policy = if args.strict || s.manifest.strict {
        PluginPolicy::Strict
    } else {
        PluginPolicy::Gazebo
    };
    Simulation::with_policy(world, registry, options, policy).map_err(|e| match e {
        LoadError::Plugins(problems) => Failure::Report(plugin_problems(&s.world, &problems)),
        e => Failure::Error(format!("{}: {e}", s.world.display())),
    })
}

/// `--list`: every topic the run serves (its direction, payload kind, ROS 2 type and who
/// serves it), then every service, with what the transport adds when the run starts one
/// (`transport`, its topics named as `names` says), aligned in columns under a header line
/// (until stdout is closed).
fn list(sim: &Simulation, transport: Option<&TransportServed>, names: &RosNames) {
    let served = sim.served();
    let mut rows: Vec<[String; 6]> = Vec::new();
    let dash = || "-".to_string();
    for t in &served.topics {
        let ros = match t.kind {
            Some(k) => ros_types(k),
            None => "?".to_string(),
        };
        let mut by = if t.by.is_empty() {
            "published from outside the plugins".to_string()
        } else {
            t.by.clone()
        };
        if transport.is_some() {
            match names.ros_name(&t.topic) {
                Some(n) if n != t.topic => by.push_str(&format!("; ROS 2 name {n}")),
                Some(_) => {}
                None => by.push_str("; no ROS 2 name"),
            }
        }
        rows.push([
            "topic".into(),
            t.direction.as_str().into(),
            t.topic.clone(),
            t.kind.unwrap_or("?").into(),
            ros,
            by,
        ]);
    }
    for (topic, ty) in transport.iter().flat_map(|t| &t.topics) {
        rows.push([
            "topic".into(),
            "out".into(),
            topic.to_string(),
            dash(),
            ty.to_string(),
            "transport".into(),
        ]);
    }
    for s in &served.services {
        rows.push([
            "service".into(),
            dash(),
            s.name.clone(),
            dash(),
            dash(),
            s.by.clone(),
        ]);
    }
    for (name, types) in transport.iter().flat_map(|t| &t.services) {
        rows.push([
            "service".into(),
            dash(),
            name.to_string(),
            dash(),
            types.join("|"),
            "transport".into(),
        ]);
    }
    let header = ["KIND", "DIR", "NAME", "TYPE", "ROS2_TYPE", "BY"].map(String::from);
    let mut widths = [0usize; 5];
    for r in std::iter::once(&header).chain(&rows) {
        for (w, cell) in widths.iter_mut().zip(r) {
            *w = (*w).max(cell.len());
        }
    }
    let mut out = std::io::stdout().lock();
    for r in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (cell, w) in r.iter().zip(widths) {
            line.push_str(&format!("{cell:<w$}  "));
        }
        line.push_str(&r[5]);
        if writeln!(out, "{line}").is_err() {
            return;
        }
    }
}

/// The ROS 2 types of payload kind `kind`, `|`-separated (`?` for a kind simcore does not
/// know, `-` for one with no ROS 2 form).
fn ros_types(kind: &str) -> String {
    match sim_core::ros::kinds::kind_named(kind) {
        Some(k) if k.ros.is_empty() => "-".to_string(),
        Some(k) => k.ros.iter().map(|t| t.name).collect::<Vec<_>>().join("|"),
        None => "?".to_string(),
    }
}

/// The `--pub` and `--call` arguments in time order (same-time ones keep their command-line
/// order, publications first).
fn injections(args: &RunArgs) -> Result<Vec<Injection>, Failure> {
    let mut injections = Vec::new();
    for (arg, is_call) in args
        .publish
        .iter()
        .map(|a| (a, false))
        .chain(args.call.iter().map(|a| (a, true)))
    {
        match parse_injection(arg, is_call) {
            Ok(i) => injections.push(i),
            Err(e) => {
                return Err(Failure::Error(format!(
                    "{} `{arg}`: {e}",
                    if is_call { "--call" } else { "--pub" }
                )));
            }
        }
    }
    // Stable: same-time injections keep their command-line order (publications first).
    injections.sort_by_key(|i| i.at);
    Ok(injections)
}

/// Refuses a `--pub` to a sensor's output, to a topic nothing in the world listens to
/// (unless `any_topic`), of a type other than the one the systems listening there read (when
/// simcore knows it: declared by the plugin), or of
/// a type other than an earlier `--pub` to the same topic.
fn check_publications(
    sim: &Simulation,
    injections: &[Injection],
    any_topic: bool,
) -> Result<(), Failure> {
    let outputs = sim.sensors().output_topics_by(sim.bus());
    let listened: Vec<String> = sim
        .topics()
        .into_iter()
        .filter(|t| sim.bus().stats(t).subscribers > 0)
        .collect();
    let mut types: Vec<(&str, &str)> = Vec::new();
    for i in injections.iter().filter(|i| !i.call) {
        let refuse = |why: String| Err(Failure::Error(format!("--pub `{}`: {why}", i.name)));
        if let Some((_, sensor)) = outputs.iter().find(|(t, _)| *t == i.name) {
            return refuse(format!(
                "`{}` is the output of sensor `{sensor}`; --pub writes to the topics the \
                 world listens to",
                i.name
            ));
        }
        if !any_topic && !listened.contains(&i.name) {
            return refuse(format!(
                "nothing in this world listens to `{}` (--pub-any-topic allows it); the \
                 topics it listens to: {}",
                i.name,
                if listened.is_empty() {
                    "none".to_string()
                } else {
                    listened.join(", ")
                }
            ));
        }
        let ty = i.payload.type_name();
        match types.iter().find(|(t, _)| *t == i.name) {
            Some((_, other)) if *other != ty => {
                return refuse(format!(
                    "a {ty} message, where an earlier --pub to `{}` is a {other}: a topic \
                     carries one type",
                    i.name
                ));
            }
            Some(_) => {}
            None => types.push((&i.name, ty)),
        }
        let readers = sim.systems().input_types(&i.name);
        if let Some((setup, expected)) = readers.first()
            && !readers.iter().any(|(_, t)| t.message == ty)
        {
            return refuse(format!(
                "a {ty} message, where plugin `{}` (on `{}`) reads a {} on `{}`",
                setup.name, setup.entity_name, expected.message, i.name
            ));
        }
    }
    Ok(())
}

/// Subscribes to the `--echo` topics. A topic the run does not serve (see
/// [`Simulation::served`]) is warned about, naming the nearest one it serves; one only the
/// transport serves (`/clock`) gets a note that `--echo` does not see it.
fn subscribe_echo(
    sim: &mut Simulation,
    echo: &[String],
    transport: Option<&TransportServed>,
) -> Result<Vec<Subscription>, Failure> {
    let served = sim.served();
    let known = served.topic_names();
    let mut subs = Vec::new();
    for t in echo {
        let topic = sim_core::transport::validate_topic(t)
            .map_err(|e| Failure::Error(format!("--echo: {e}")))?;
        if known.contains(&topic.as_str()) {
            // Served: its messages arrive once they are published.
        } else if TRANSPORT_TOPICS.contains(&topic.as_str()) {
            match transport {
                Some(_) => note!(
                    "note: `{topic}` is published by the transport for clients outside this \
                     process, not in the world: --echo prints the world's own topics"
                ),
                None => note!(
                    "warning: `{topic}` is published only by the transport, which this run \
                     does not start; echoing it anyway"
                ),
            }
        } else {
            match nearest(&topic, known.iter().copied()) {
                Some(near) => note!(
                    "warning: nothing in this world publishes or listens on `{topic}`; the \
                     nearest topic it serves is `{near}` (--list lists them); echoing `{topic}` \
                     anyway"
                ),
                None => note!(
                    "warning: nothing in this world publishes or listens on `{topic}` (it \
                     serves no topics); echoing it anyway"
                ),
            }
        }
        subs.push(sim.bus_mut().subscribe(&topic, 1 << 16));
    }
    Ok(subs)
}

/// The candidate nearest to `name` by edit distance (the first in order among equals).
fn nearest<'a>(name: &str, candidates: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    candidates.min_by_key(|c| strsim::levenshtein(name, c))
}

/// A `--pub` or `--call` argument.
pub(super) struct Injection {
    pub(super) at: SimTime,
    pub(super) name: String,
    pub(super) payload: sim_plugin_api::Payload,
    call: bool,
}

/// Parses `NAME=JSON@SECONDS` (the `@SECONDS` part is optional).
pub(super) fn parse_injection(arg: &str, call: bool) -> Result<Injection, String> {
    let (name, rest) = arg.split_once('=').ok_or("expected NAME=JSON@SECONDS")?;
    let name = sim_core::transport::validate_topic(name).map_err(|e| e.to_string())?;
    let (json, at) = match rest.rsplit_once('@') {
        Some((json, t)) if t.trim().parse::<f64>().is_ok() => {
            let t: f64 = t.trim().parse().unwrap_or(0.0);
            if !(t.is_finite() && t >= 0.0) {
                return Err(format!(
                    "the time must be a non-negative number of seconds, got {t}"
                ));
            }
            (json, SimTime::from_secs_f64(t))
        }
        _ => (rest, SimTime::ZERO),
    };
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("the message is not valid JSON: {e}"))?;
    let payload = sim_core::echo::payload_from_json(&value).map_err(|e| e.to_string())?;
    Ok(Injection {
        at,
        name,
        payload,
        call,
    })
}

/// What runs after every step: due injections, echoed messages, the recording, progress.
struct Monitor {
    out: Output,
    /// Set when stdout is closed: the run ends.
    stop: Arc<AtomicBool>,
    injections: Vec<Injection>,
    next_injection: usize,
    call_timeout: Duration,
    subs: Vec<Subscription>,
    progress: Option<Progress>,
    recorder: Option<Recorder>,
}

impl Monitor {
    fn after_step(&mut self, sim: &mut Simulation) {
        self.inject(sim);
        self.echo();
        if self.out.closed() {
            self.stop.store(true, Ordering::Relaxed);
        }
        if let Some(r) = &mut self.recorder {
            r.after_step(sim);
        }
        if let Some(p) = &mut self.progress {
            p.tick(sim.time(), self.recorder.as_ref().map(|r| r.progress()));
        }
    }

    /// Publishes the due `--pub` messages and calls the due `--call` services (their replies
    /// as JSON lines).
    fn inject(&mut self, sim: &mut Simulation) {
        while let Some(i) = self
            .injections
            .get(self.next_injection)
            .filter(|i| i.at <= sim.time())
        {
            self.next_injection += 1;
            let mut message = sim_plugin_api::Message::new("", i.payload.clone());
            // Stamped as the engine stamps what plugins publish: with the sim time.
            message.header.stamp = sim.time();
            if i.call {
                let (sec, nsec) = sim.time().to_sec_nsec();
                let line = match sim.call_service_within(&i.name, &message, self.call_timeout) {
                    Ok(reply) => serde_json::json!({
                        "service": i.name, "time": {"sec": sec, "nsec": nsec},
                        "response": sim_core::echo::echo_json(&i.name, &reply),
                    }),
                    Err(e) => {
                        serde_json::json!({"service": i.name, "time": {"sec": sec, "nsec": nsec}, "error": e.to_string()})
                    }
                };
                self.out.line(line.to_string());
            } else {
                let topic = sim.bus_mut().intern(&i.name);
                sim.bus_mut().publish(topic, message);
            }
        }
    }

    /// Queues the messages received on the `--echo` topics as JSON lines.
    fn echo(&mut self) {
        for sub in &self.subs {
            for env in sub.drain() {
                let v = sim_core::echo::echo_json(&env.topic, &env.message);
                self.out.line(v.to_string());
            }
        }
    }

    /// Clears the progress line and finishes the recording; returns what was recorded and
    /// the stdout writer, still writing what is queued.
    fn finish(mut self) -> (Option<RecordSummary>, Output) {
        if let Some(p) = self.progress.take() {
            p.bar.finish_and_clear();
        }
        (self.recorder.take().and_then(Recorder::finish), self.out)
    }
}

/// The progress line on a terminal's stderr.
struct Progress {
    bar: indicatif::ProgressBar,
    started: Instant,
    last_draw: Instant,
    last_sim: SimTime,
    last_wall: Instant,
}

impl Progress {
    /// A spinner when stderr is a terminal.
    fn new() -> Option<Self> {
        std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new_spinner();
            bar.set_style(
                indicatif::ProgressStyle::with_template("{spinner} {msg}").expect("valid template"),
            );
            Progress {
                bar,
                started: Instant::now(),
                last_draw: Instant::now(),
                last_sim: SimTime::ZERO,
                last_wall: Instant::now(),
            }
        })
    }

    /// Redraws at most every 100 ms: sim time, recent real-time factor, wall time, and the
    /// messages and bytes recorded.
    fn tick(&mut self, now: SimTime, recorded: Option<(u64, u64)>) {
        if self.last_draw.elapsed() < Duration::from_millis(100) {
            return;
        }
        let wall = self.last_wall.elapsed().as_secs_f64();
        let rate = (now.nanos - self.last_sim.nanos) as f64 * 1e-9 / wall.max(1e-9);
        let recorded = recorded
            .map(|(n, b)| format!(" | recorded {n} messages, {:.1} MiB", b as f64 / 1048576.0))
            .unwrap_or_default();
        self.bar.set_message(format!(
            "sim {:.3} s | real-time factor {:.2} | wall {:.1} s{recorded}",
            now.as_secs_f64(),
            rate,
            self.started.elapsed().as_secs_f64()
        ));
        self.bar.tick();
        self.last_draw = Instant::now();
        (self.last_sim, self.last_wall) = (now, Instant::now());
    }
}
