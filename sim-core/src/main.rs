//! The `simcore` command: `simcore run WORLD`, `simcore plugins`, `simcore check FILE...`,
//! `simcore inspect FILE`, `simcore new-plugin NAME`, `simcore render WORLD -o FILE`,
//! `simcore batch SWEEP.toml`, and the live tools `simcore topic`, `simcore service`, `simcore
//! sim` (see `cli::live`), `simcore completions SHELL`.

mod cli;

use clap::Parser;
use cli::{Cli, Command, Failure, Outcome};
use std::io::IsTerminal;
use std::process::ExitCode;

/// Exit codes: 0 ok, 1 a runtime failure (a plugin disabled, stdout not written, a call
/// refused), 2 bad input or usage.
const EXIT_RUNTIME: u8 = 1;
const EXIT_INPUT: u8 = 2;

/// Set to `1`, simcore exits 0 right after its arguments parse (and as it does without it
/// when they do not), doing nothing else. It exists for the documentation's test
/// (`sim-core/tests/docs_commands.rs`), which checks every `simcore` command the docs show,
/// as written, against this parser, including those it cannot run (a live tool needs a
/// running simulation, a long run takes long).
const PARSE_ONLY_ENV: &str = "SIMCORE_PARSE_ONLY";

/// The engine's allocations (rapier's, the bus's, the transport's) come from mimalloc, whose
/// free of memory another thread allocated takes no lock: with glibc's allocator the
/// simulation thread waited on its heap's lock while the Zenoh thread freed the messages
/// and `/tf` steps it had handed over. Plugins keep their own (the system's) allocator.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { EXIT_INPUT } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    if std::env::var_os(PARSE_ONLY_ENV).is_some_and(|v| v == "1") {
        return ExitCode::SUCCESS;
    }
    init_logging(cli.verbose);
    let result = match cli.command {
        Command::Run(args) => cli::run::run(*args),
        Command::Plugins(paths) => cli::plugins::plugins(paths),
        Command::Check(args) => cli::check::check(args),
        Command::Inspect(args) => cli::check::inspect(&args),
        Command::NewPlugin(args) => cli::new_plugin::new_plugin(args),
        Command::Render(args) => cli::render::render(*args),
        Command::Batch(args) => cli::batch::batch(args),
        Command::BatchWorker(args) => cli::batch::worker(args),
        Command::Topic(args) => cli::live::topic(args),
        Command::Service(args) => cli::live::service(args),
        Command::Sim(args) => cli::live::sim(args),
        Command::Completions(args) => cli::completions(&args),
    };
    ExitCode::from(exit_code(result))
}

/// The exit status of a command's result (printing what a failure has left to say).
fn exit_code(result: Result<Outcome, Failure>) -> u8 {
    match result {
        Ok(Outcome::Success) => 0,
        Ok(Outcome::PluginDisabled | Outcome::OutputFailed | Outcome::Refused) => EXIT_RUNTIME,
        Err(f) => {
            f.print();
            EXIT_INPUT
        }
    }
}

fn init_logging(verbose: u8) {
    // Zenoh's own log (its crates') one level quieter: its fallbacks, such as joining
    // whoever took port 7447 first, are not the user's concern, and an endpoint nobody
    // listens on is said once, in simcore's error.
    const ZENOH: [&str; 4] = [
        "zenoh",
        "zenoh_link_commons",
        "zenoh_link_tcp",
        "zenoh_transport",
    ];
    let quieter = |level: &str| {
        ZENOH
            .iter()
            .map(|c| format!(",{c}={level}"))
            .collect::<String>()
    };
    let default = match verbose {
        0 => format!("warn{}", quieter("error")),
        1 => format!("info{}", quieter("warn")),
        _ => "debug".to_string(),
    };
    let filter = tracing_subscriber::EnvFilter::try_from_env("SIMCORE_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    // A log line that cannot be written (stderr closed or full) is dropped without a word:
    // the subscriber's own notice of it would be written with `eprintln!`, which panics there.
    // Colours only for a terminal: piped into a file or another program, escape codes are
    // noise.
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .log_internal_errors(false)
        .without_time()
        .with_target(false)
        .try_init();
}
