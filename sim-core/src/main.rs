//! The `simcore` command: `simcore run WORLD`, `simcore plugins`, `simcore check FILE...`,
//! `simcore inspect FILE`.

mod cli;

use clap::Parser;
use cli::{CheckArgs, Cli, Command, InspectArgs, PathArgs, ResourceArgs, RunArgs};
use sim_core::manifest::Manifest;
use sim_core::plugins::{Registry, SearchPath};
use sim_core::runner::{LoadError, RunLimit, RunSummary, SimOptions, Simulation, install_ctrl_c};
use sim_plugin_api::{PluginKind, SimTime};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

/// Exit codes: 0 ok, 1 a runtime failure (a plugin disabled), 2 bad input or usage.
const EXIT_RUNTIME: u8 = 1;
const EXIT_INPUT: u8 = 2;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_INPUT } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    init_logging(cli.verbose);
    let code = match cli.command {
        Command::Run(args) => run(args),
        Command::Plugins(paths) => plugins(paths),
        Command::Check(args) => check(args),
        Command::Inspect(args) => inspect(&args),
    };
    ExitCode::from(code)
}

/// `simcore inspect FILE [--json]`: 0 when the file reads, 2 (with the error on stderr, and
/// the oracle's `"ok": false` object on stdout with `--json`) when it does not.
fn inspect(args: &InspectArgs) -> u8 {
    let Some(options) = file_options(&args.resources, args.manifest.as_deref()) else {
        return EXIT_INPUT;
    };
    match sim_core::sdf::load_document_with(&args.file, &options) {
        Ok(doc) => {
            let text = if args.json {
                sim_core::inspect::to_json(&doc)
            } else {
                sim_core::inspect::to_tree(&doc)
            };
            let mut out = std::io::stdout().lock();
            let _ = out.write_all(text.as_bytes());
            0
        }
        Err(e) => {
            eprint!("{}", e.render(None));
            if args.json {
                print!("{}", sim_core::inspect::error_json(&e));
            }
            EXIT_INPUT
        }
    }
}

fn init_logging(verbose: u8) {
    let default = match verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("SIMCORE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .without_time()
        .with_target(false)
        .try_init();
}

fn error(msg: impl std::fmt::Display) {
    eprintln!("error: {msg}");
}

struct Settings {
    world: PathBuf,
    manifest: Manifest,
}

fn settings(world_arg: Option<&Path>, paths: &PathArgs) -> Result<Settings, String> {
    let mut manifest = match &paths.manifest {
        Some(p) => Manifest::load(p).map_err(|e| e.to_string())?,
        None => Manifest::default(),
    };
    let world = match world_arg {
        Some(w) if w.extension().is_some_and(|e| e == "toml") => {
            let m = Manifest::load(w).map_err(|e| e.to_string())?;
            let world = m.world.clone().ok_or_else(|| {
                format!(
                    "{}: the manifest names no world (add `world = \"path/to/world.sdf\"`)",
                    w.display()
                )
            })?;
            manifest.seed = m.seed.or(manifest.seed);
            manifest.real_time_factor = m.real_time_factor.or(manifest.real_time_factor);
            manifest.threads = m.threads.or(manifest.threads);
            manifest.plugin_paths.extend(m.plugin_paths);
            manifest.resource_paths.extend(m.resource_paths);
            // As its other settings, the run manifest's routes win over the --manifest's.
            manifest.sensors.extend(m.sensors);
            manifest.plugins.extend(m.plugins);
            world
        }
        Some(w) => w.to_path_buf(),
        None => manifest.world.clone().unwrap_or_default(),
    };
    Ok(Settings { world, manifest })
}

/// How SDF files are loaded: `--resource-path`, the environment, then the manifest's paths.
/// The load options of `check` and `inspect`: the command line's resource paths and those of
/// the manifest, if one is given (None, after reporting, when it cannot be read).
fn file_options(
    resources: &ResourceArgs,
    manifest: Option<&std::path::Path>,
) -> Option<sim_core::sdf::LoadOptions> {
    let manifest = match manifest {
        Some(p) => match Manifest::load(p) {
            Ok(m) => m,
            Err(e) => {
                error(e);
                return None;
            }
        },
        None => Manifest::default(),
    };
    Some(load_options(resources, &manifest))
}

fn load_options(resources: &ResourceArgs, manifest: &Manifest) -> sim_core::sdf::LoadOptions {
    sim_core::sdf::LoadOptions {
        resource_paths: resources.resource_path.clone(),
        fallback_resource_paths: manifest.resource_paths.clone(),
        ignore_env: false,
        ..Default::default()
    }
}

fn registry(paths: &PathArgs, manifest: &Manifest) -> Registry {
    Registry::discover(SearchPath::standard(
        &paths.plugin_path,
        &manifest.plugin_paths,
    ))
    .with_routes(manifest.sensors.clone(), manifest.plugins.clone())
}

fn run(args: RunArgs) -> u8 {
    let s = match settings(Some(&args.world), &args.paths) {
        Ok(s) => s,
        Err(e) => {
            error(e);
            return EXIT_INPUT;
        }
    };
    if let Some(d) = args.duration
        && !(d.is_finite() && d >= 0.0)
    {
        error(format!(
            "--duration must be a non-negative number of seconds, got {d}"
        ));
        return EXIT_INPUT;
    }
    if let Some(r) = args.rtf
        && !(r.is_finite() && r >= 0.0)
    {
        error(format!("--rtf must be >= 0, got {r}"));
        return EXIT_INPUT;
    }
    if args.threads == Some(0) {
        error("--threads must be at least 1");
        return EXIT_INPUT;
    }
    let world =
        match sim_core::sdf::load_with(&s.world, &load_options(&args.resources, &s.manifest)) {
            Ok(w) => w,
            Err(e) => {
                eprintln!("{}", e.render(None));
                return EXIT_INPUT;
            }
        };
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
    let registry = registry(&args.paths, &s.manifest);
    let mut sim = match Simulation::new(world, registry, &options) {
        Ok(sim) => sim,
        Err(LoadError::Plugins(problems)) => {
            error(format!(
                "{}: the world cannot run: {} plugin problem(s)",
                s.world.display(),
                problems.len()
            ));
            // Many sensors often share one problem (a plugin missing for their type): say it
            // once, with where it applies.
            let mut groups: Vec<(&str, Vec<&sim_core::runner::PluginProblem>)> = Vec::new();
            for p in &problems {
                match groups.iter_mut().find(|(m, _)| *m == p.message) {
                    Some((_, v)) => v.push(p),
                    None => groups.push((&p.message, vec![p])),
                }
            }
            for (message, list) in groups {
                for p in list.iter().take(3) {
                    eprintln!("  {}: {}", p.span, p.subject);
                }
                if list.len() > 3 {
                    eprintln!("  ... and {} more", list.len() - 3);
                }
                eprintln!("      {message}");
            }
            return EXIT_INPUT;
        }
        Err(e) => {
            error(format!("{}: {e}", s.world.display()));
            return EXIT_INPUT;
        }
    };
    // Libraries the world does not need are only mentioned in the log (`simcore plugins`
    // lists them); when a needed one is missing, the load error names the refused ones.
    for w in sim.warnings() {
        tracing::info!("{w}");
    }
    if args.list {
        for t in sim.topics() {
            println!("topic   {t}");
        }
        for t in sim.services() {
            println!("service {t}");
        }
        return 0;
    }
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
                error(format!(
                    "{} `{arg}`: {e}",
                    if is_call { "--call" } else { "--pub" }
                ));
                return EXIT_INPUT;
            }
        }
    }
    // Stable: same-time injections keep their command-line order (publications first).
    injections.sort_by_key(|i| i.at);
    let known = sim.topics();
    let mut subs = Vec::new();
    for t in &args.echo {
        let topic = match sim_core::transport::validate_topic(t) {
            Ok(t) => t,
            Err(e) => {
                error(format!("--echo: {e}"));
                return EXIT_INPUT;
            }
        };
        if !known.contains(&topic) {
            eprintln!(
                "warning: nothing in this world publishes on `{topic}` yet; its topics are:\n  {}",
                known.join("\n  ")
            );
        }
        subs.push(sim.bus_mut().subscribe(&topic, 1 << 16));
    }
    if !(args.call_timeout.is_finite() && args.call_timeout > 0.0) {
        error(format!(
            "--call-timeout must be a positive number of seconds, got {}",
            args.call_timeout
        ));
        return EXIT_INPUT;
    }
    let call_timeout = std::time::Duration::from_secs_f64(args.call_timeout);
    let limit = match (args.steps, args.duration) {
        (Some(n), _) => RunLimit::Steps(n),
        (None, Some(d)) => RunLimit::Duration(SimTime::from_secs_f64(d)),
        (None, None) => RunLimit::Forever,
    };
    let stop = Arc::new(AtomicBool::new(false));
    install_ctrl_c(stop.clone());
    let progress = std::io::stderr().is_terminal().then(|| {
        let pb = indicatif::ProgressBar::new_spinner();
        pb.set_style(
            indicatif::ProgressStyle::with_template("{spinner} {msg}").expect("valid template"),
        );
        pb
    });
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut echo_failed = false;
    let started = Instant::now();
    let mut last_draw = Instant::now();
    let (mut last_sim, mut last_wall) = (SimTime::ZERO, Instant::now());
    let mut next_injection = 0;
    let mut inject = |sim: &mut Simulation, out: &mut dyn Write| {
        while let Some(i) = injections
            .get(next_injection)
            .filter(|i| i.at <= sim.time())
        {
            next_injection += 1;
            let message = sim_plugin_api::Message::new("", i.payload.clone());
            if i.call {
                let (sec, nsec) = sim.time().to_sec_nsec();
                let line = match sim.call_service_within(&i.name, &message, call_timeout) {
                    Ok(reply) => serde_json::json!({
                        "service": i.name, "time": {"sec": sec, "nsec": nsec},
                        "response": sim_core::echo::message_json(&i.name, &reply),
                    }),
                    Err(e) => {
                        serde_json::json!({"service": i.name, "time": {"sec": sec, "nsec": nsec}, "error": e})
                    }
                };
                let _ = writeln!(out, "{line}");
            } else {
                let topic = sim.bus_mut().intern(&i.name);
                sim.bus_mut().publish(topic, message);
            }
        }
    };
    inject(&mut sim, &mut out);
    let summary = sim.run(limit, rtf, &stop, |sim| {
        inject(sim, &mut out);
        if !subs.is_empty() && !echo_failed {
            let mut wrote = false;
            for sub in &subs {
                for env in sub.drain() {
                    let v = sim_core::echo::message_json(&env.topic, &env.message);
                    if writeln!(out, "{v}").is_err() {
                        echo_failed = true;
                    }
                    wrote = true;
                }
            }
            if wrote && out.flush().is_err() {
                echo_failed = true;
            }
        }
        if let Some(pb) = &progress
            && last_draw.elapsed() >= Duration::from_millis(100)
        {
            let now = sim.time();
            let wall = last_wall.elapsed().as_secs_f64();
            let rate = (now.nanos - last_sim.nanos) as f64 * 1e-9 / wall.max(1e-9);
            pb.set_message(format!(
                "sim {:.3} s | real-time factor {:.2} | wall {:.1} s",
                now.as_secs_f64(),
                rate,
                started.elapsed().as_secs_f64()
            ));
            pb.tick();
            last_draw = Instant::now();
            (last_sim, last_wall) = (now, Instant::now());
        }
    });
    if let Some(pb) = progress {
        pb.finish_and_clear();
    }
    let _ = out.flush();
    print_summary(&summary, &s.world);
    if summary.failures.is_empty() {
        0
    } else {
        EXIT_RUNTIME
    }
}

/// A `--pub` or `--call` argument.
struct Injection {
    at: SimTime,
    name: String,
    payload: sim_plugin_api::Payload,
    call: bool,
}

/// Parses `NAME=JSON@SECONDS` (the `@SECONDS` part is optional).
fn parse_injection(arg: &str, call: bool) -> Result<Injection, String> {
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
    let payload = sim_core::echo::payload_from_json(&value)?;
    Ok(Injection {
        at,
        name,
        payload,
        call,
    })
}

fn print_summary(s: &RunSummary, world: &Path) {
    let mut e = std::io::stderr().lock();
    let _ = writeln!(
        e,
        "{}{}: {} steps, sim time {:.3} s, wall time {:.3} s, real-time factor {:.2}",
        world.display(),
        if s.interrupted { " (interrupted)" } else { "" },
        s.steps,
        s.sim_time.as_secs_f64(),
        s.wall_time.as_secs_f64(),
        s.real_time_factor()
    );
    if !s.sensors.is_empty() {
        let w = s
            .sensors
            .iter()
            .map(|r| r.scoped_name.len())
            .max()
            .unwrap_or(6)
            .max(6);
        let _ = writeln!(
            e,
            "  {:<w$}  {:>8}  {:>10}  {:>6}  {:>7}  topic",
            "sensor", "updates", "rate (Hz)", "errors", "dropped"
        );
        let sim_s = s.sim_time.as_secs_f64();
        for r in &s.sensors {
            let rate = if sim_s > 0.0 {
                r.updates as f64 / sim_s
            } else {
                0.0
            };
            let _ = writeln!(
                e,
                "  {:<w$}  {:>8}  {:>10.2}  {:>6}  {:>7}  {}",
                r.scoped_name, r.updates, rate, r.errors, r.dropped, r.topic
            );
            if let Some(d) = &r.disabled {
                let _ = writeln!(e, "  {:<w$}  disabled: {d}", "");
            }
        }
    }
    for r in &s.systems {
        let _ = writeln!(
            e,
            "  plugin {} on {} ({}): {} messages, {} commands{}",
            r.name,
            r.entity_name,
            r.library,
            r.messages,
            r.commands,
            r.disabled
                .as_ref()
                .map(|d| format!(", disabled: {d}"))
                .unwrap_or_default()
        );
    }
    for f in &s.failures {
        let _ = writeln!(
            e,
            "error: at sim time {:.3} s, {} was disabled: {} ({})",
            f.time.as_secs_f64(),
            f.subject,
            f.error,
            f.span
        );
    }
}

/// `simcore check`: loads each file (includes too) and builds it in the physics engine; prints
/// `FILE: OK` on stdout or every problem with its source line on stderr (warnings too, which
/// do not make a file invalid).
fn check(args: CheckArgs) -> u8 {
    let Some(options) = file_options(&args.resources, args.manifest.as_deref()) else {
        return EXIT_INPUT;
    };
    let mut bad = 0;
    for file in &args.files {
        let (loaded, warnings) = sim_core::sdf::load_document_with_warnings(file, &options);
        // Warnings are printed, as libsdformat's, and do not make the file invalid.
        for w in &warnings {
            eprint!("{}", w.render_warning());
        }
        let problem = match loaded {
            Err(e) => Some(e.render(None)),
            // Every world of the file is built (`run` simulates only the first).
            Ok(doc) => match doc.into_worlds() {
                Err(e) => Some(e.render(None)),
                Ok(worlds) => {
                    let several = worlds.len() > 1;
                    let reports: String = worlds
                        .iter()
                        .filter_map(|world| {
                            let e = sim_core::physics::Physics::build(world).err()?;
                            let which = if several {
                                format!("world \"{}\"", world.name)
                            } else {
                                "the world".to_string()
                            };
                            Some(format!(
                                "error: {which} cannot be built: {}\n  --> {}\n",
                                e.message, e.span
                            ))
                        })
                        .collect();
                    (!reports.is_empty()).then_some(reports)
                }
            },
        };
        match problem {
            None => println!("{}: OK", file.display()),
            Some(report) => {
                bad += 1;
                eprint!("{report}");
                eprintln!("{}: invalid", file.display());
            }
        }
    }
    if args.files.len() > 1 {
        eprintln!(
            "checked {} files: {} valid, {} invalid",
            args.files.len(),
            args.files.len() - bad,
            bad
        );
    }
    if bad == 0 { 0 } else { EXIT_INPUT }
}

fn plugins(paths: PathArgs) -> u8 {
    let s = match settings(None, &paths) {
        Ok(s) => s,
        Err(e) => {
            error(e);
            return EXIT_INPUT;
        }
    };
    let reg = registry(&paths, &s.manifest);
    let mut o = std::io::stdout().lock();
    let _ = writeln!(
        o,
        "plugin search path (engine ABI {}):",
        sim_core::plugins::env_api_version()
    );
    for d in reg.search_path.dirs() {
        let _ = writeln!(
            o,
            "  {}{}",
            d.display(),
            if d.is_dir() { "" } else { "  (missing)" }
        );
    }
    let _ = writeln!(o);
    if reg.libraries.is_empty() {
        let _ = writeln!(o, "no plugin libraries found");
    }
    for l in &reg.libraries {
        let _ = writeln!(o, "{}  (ABI {})", l.path.display(), l.abi_version);
        for f in &l.factories {
            let serves = if f.kind == PluginKind::SENSOR {
                "sensor types"
            } else {
                "plugin names"
            };
            let _ = writeln!(
                o,
                "  {} {} {}: {} {} — {}",
                f.kind.name(),
                f.name,
                f.version,
                serves,
                f.serves.join(", "),
                f.description
            );
        }
    }
    if !reg.refused.is_empty() {
        let _ = writeln!(o, "\nrefused:");
        for r in &reg.refused {
            let _ = writeln!(o, "  {}: {}", r.path.display(), r.reason);
        }
    }
    if !reg.shadowed.is_empty() {
        let _ = writeln!(
            o,
            "\nshadowed (an earlier directory has a library of the same name):"
        );
        for (skipped, used) in &reg.shadowed {
            let _ = writeln!(o, "  {} (using {})", skipped.display(), used.display());
        }
    }
    0
}
