//! The `simcore` commands of the documentation, checked against the real binary, so that the
//! docs cannot drift from the command line.
//!
//! Every fenced code block marked `sh`, `bash`, `shell` or `console` in `README.md` and
//! `docs/*.md` is read. A line is a command (in a `console` block only a line after a `$ `
//! prompt; elsewhere every line, a `$ ` prompt taken off), joined with the next while it ends
//! in `\`, cut at an unquoted `#` comment, and split into words as `sh` would (quotes, `\`,
//! `|`, `&&`, `;`, `&`, `( )` and redirections; a `*` pattern is expanded in the workspace).
//! Each simple command whose program is `simcore` (or a path ending in `/simcore`), `cargo
//! xtask run ...` (`simcore run ...`) or `cargo run ... -p sim-core -- ...` is a `simcore`
//! command; its `NAME=value` words before the program are its environment.
//!
//! The rule:
//!
//! - **Every one is parsed**: the real binary runs with its arguments as written and
//!   `SIMCORE_PARSE_ONLY=1` (simcore exits right after clap's parse), and must exit 0.
//! - **The self-contained ones are also run** and must exit 0: `simcore plugins`,
//!   `simcore completions`, `simcore check` and `simcore inspect` of files under `worlds/`,
//!   `simcore render` of a world under `worlds/`, and `simcore run worlds/...` unless it is
//!   paused (`--paused`), serves the Foxglove app (`--foxglove`) or chooses Zenoh endpoints
//!   (`--zenoh-*`): with `--list` as written, else for at most 1 s of sim time (a longer
//!   `--duration`, or none, is shortened to 1 s). They run with the real plugin libraries
//!   staged on `SIMCORE_PLUGIN_PATH`, `--no-transport` added to runs (parallel runs must not
//!   join one another), in a fresh working directory holding links to the workspace's
//!   `worlds/` and `examples/` (what a command writes, camera frames, a recording or a
//!   picture, lands there).
//! - **The rest are only parsed**: what needs something this test cannot provide (a running
//!   simulation for `simcore topic`, `service` and `sim`; Ray; the Foxglove app; a file the
//!   docs make up, such as `sweep.toml`) or writes outside its folder (`new-plugin --dir
//!   ..`); `batch examples/sweep.toml` has a test of its own (`batch.rs`).
//!
//! A failure names the file and line of the command, the words it was run with and what
//! simcore printed.
//!
//! README's pictures are checked apart: the `simcore render` commands written beside them are
//! run and must make the committed files byte for byte.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The markdown files whose commands are checked: `README.md` and `docs/*.md`.
fn doc_files() -> Vec<PathBuf> {
    let root = common::workspace();
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files.insert(0, root.join("README.md"));
    files
}

/// The shell command lines of the fenced `sh`/`bash`/`shell`/`console` blocks of `markdown`,
/// each with the line number (from 1) where it starts: prompts taken off, `\` continuations
/// joined, comment and blank lines left out.
fn shell_lines(markdown: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    // The language of the open block, if any ("" for a block without one).
    let mut block: Option<String> = None;
    let mut pending: Option<(usize, String)> = None;
    for (i, line) in markdown.lines().enumerate() {
        let trimmed = line.trim_start();
        if let Some(info) = trimmed.strip_prefix("```") {
            block = match block {
                None => Some(info.trim().to_ascii_lowercase()),
                Some(_) => None,
            };
            if let Some(p) = pending.take() {
                out.push(p);
            }
            continue;
        }
        let Some(lang) = block.as_deref() else {
            continue;
        };
        let lang = lang.split([' ', ',', '{']).next().unwrap_or_default();
        if !matches!(lang, "sh" | "bash" | "shell" | "console") {
            continue;
        }
        let text = match pending.take() {
            // A continuation: the line as it is.
            Some((start, before)) => (start, before + trimmed),
            None => match trimmed.strip_prefix("$ ") {
                Some(command) => (i + 1, command.to_string()),
                None if lang == "console" => continue,
                None => (i + 1, trimmed.to_string()),
            },
        };
        match text.1.strip_suffix('\\') {
            Some(rest) => pending = Some((text.0, rest.to_string())),
            None => out.push(text),
        }
    }
    if let Some(p) = pending {
        out.push(p);
    }
    out.retain(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    out
}

/// A word or an operator of a shell line.
#[derive(Debug, Clone, PartialEq)]
enum Token {
    /// A word after quote removal; `glob` when it has an unquoted `*`.
    Word { text: String, glob: bool },
    /// `|`, `||`, `&`, `&&`, `;`, `(`, `)`, or a redirection (`>`, `>>`, `<`, `>&`, `<&`).
    Op(String),
}

/// Splits `line` into words and operators as `sh` does (no expansions but `*` marked).
fn tokens(line: &str) -> Result<Vec<Token>, String> {
    let mut out = Vec::new();
    let mut word = String::new();
    // Whether a word has started (an empty quoted word is a word), and has an unquoted `*`.
    let (mut started, mut glob) = (false, false);
    let mut chars = line.chars().peekable();
    let flush = |out: &mut Vec<Token>, word: &mut String, started: &mut bool, glob: &mut bool| {
        if *started {
            out.push(Token::Word {
                text: std::mem::take(word),
                glob: *glob,
            });
        }
        (*started, *glob) = (false, false);
    };
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => flush(&mut out, &mut word, &mut started, &mut glob),
            '#' if !started => break,
            '\'' => {
                started = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("a ' is not closed".into()),
                    }
                }
            }
            '"' => {
                started = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("a \" is not closed".into()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("a \" is not closed".into()),
                    }
                }
            }
            '\\' => {
                started = true;
                if let Some(c) = chars.next() {
                    word.push(c);
                }
            }
            // A process substitution, `<(simcore ...)`, runs its command as `( )` does.
            '<' | '>' if chars.peek() == Some(&'(') => {
                flush(&mut out, &mut word, &mut started, &mut glob);
                chars.next();
                out.push(Token::Op("(".into()));
            }
            '|' | '&' | ';' | '(' | ')' | '<' | '>' => {
                // A file descriptor number before a redirection (`2>`) is part of it.
                if matches!(c, '<' | '>')
                    && !glob
                    && !word.is_empty()
                    && word.bytes().all(|b| b.is_ascii_digit())
                {
                    (word, started) = (String::new(), false);
                }
                flush(&mut out, &mut word, &mut started, &mut glob);
                let mut op = c.to_string();
                if let Some(&next) = chars.peek()
                    && matches!(
                        (c, next),
                        ('|', '|') | ('&', '&') | ('>', '>') | ('>', '&') | ('<', '&')
                    )
                {
                    op.push(next);
                    chars.next();
                }
                out.push(Token::Op(op));
            }
            '*' => {
                (started, glob) = (true, true);
                word.push(c);
            }
            c => {
                started = true;
                word.push(c);
            }
        }
    }
    flush(&mut out, &mut word, &mut started, &mut glob);
    Ok(out)
}

/// `pattern` (a `*` in its last component only) expanded in `root`, sorted, as written when
/// nothing matches (as `sh` does).
fn expand(pattern: &str, root: &Path) -> Vec<String> {
    let (dir, file) = pattern.rsplit_once('/').unwrap_or(("", pattern));
    let matches = |name: &str| {
        let parts: Vec<&str> = file.split('*').collect();
        let (first, last) = (parts[0], parts[parts.len() - 1]);
        if name.starts_with('.')
            || name.len() < first.len() + last.len()
            || !name.starts_with(first)
            || !name.ends_with(last)
        {
            return false;
        }
        let mut rest = &name[first.len()..name.len() - last.len()];
        for part in &parts[1..parts.len() - 1] {
            match rest.find(part) {
                Some(at) => rest = &rest[at + part.len()..],
                None => return false,
            }
        }
        true
    };
    let mut found: Vec<String> = std::fs::read_dir(root.join(dir))
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|name| matches(name))
        .map(|name| match dir {
            "" => name,
            dir => format!("{dir}/{name}"),
        })
        .collect();
    found.sort();
    if found.is_empty() {
        found.push(pattern.to_string());
    }
    found
}

/// A `simcore` command of a doc page.
#[derive(Debug, Clone, PartialEq)]
struct DocCommand {
    /// `README.md`, `docs/cli.md`...
    file: String,
    /// Where the command's line starts, from 1.
    line: usize,
    /// The line as written (continuations joined).
    text: String,
    /// `NAME=value` words before the program.
    env: Vec<(String, String)>,
    /// The arguments after `simcore` (globs expanded).
    args: Vec<String>,
}

/// One run of simcore in a shell line: the `NAME=value` words before the program (its
/// environment), and its arguments.
type Invocation = (Vec<(String, String)>, Vec<String>);

/// The `simcore` invocations of one shell line: `(environment, arguments)` of each simple
/// command that runs `simcore`, `cargo xtask run` or `cargo run -p sim-core --`.
fn invocations(line: &str, root: &Path) -> Result<Vec<Invocation>, String> {
    let mut found = Vec::new();
    let mut simple: Vec<String> = Vec::new();
    let mut redirect = false;
    let mut tokens = tokens(line)?;
    tokens.push(Token::Op(";".into()));
    for t in tokens {
        match t {
            Token::Word { text, glob } => {
                if std::mem::take(&mut redirect) {
                    continue;
                }
                if glob {
                    simple.extend(expand(&text, root));
                } else {
                    simple.push(text);
                }
            }
            Token::Op(op) if matches!(op.as_str(), ">" | ">>" | "<" | ">&" | "<&") => {
                redirect = true;
            }
            Token::Op(_) => {
                redirect = false;
                if let Some(inv) = simcore_args(&std::mem::take(&mut simple)) {
                    found.push(inv);
                }
            }
        }
    }
    Ok(found)
}

/// The environment and arguments of `words` (one simple command) when it runs simcore.
fn simcore_args(words: &[String]) -> Option<Invocation> {
    let is_assignment = |w: &String| {
        w.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    let n_env = words.iter().take_while(|w| is_assignment(w)).count();
    let env = words[..n_env]
        .iter()
        .filter_map(|w| w.split_once('='))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let (program, rest) = words[n_env..].split_first()?;
    let args = if program == "simcore" || program.ends_with("/simcore") {
        rest.to_vec()
    } else if program == "cargo" && rest.first().is_some_and(|w| w == "xtask") {
        match &rest[1..] {
            [run, args @ ..] if run == "run" => std::iter::once(run.clone())
                .chain(args.iter().cloned())
                .collect(),
            _ => return None,
        }
    } else if program == "cargo" && rest.first().is_some_and(|w| w == "run") {
        let dashes = rest.iter().position(|w| w == "--")?;
        let own = &rest[..dashes];
        let names_simcore = own.windows(2).any(|w| {
            (matches!(w[0].as_str(), "-p" | "--package") && w[1] == "sim-core")
                || (w[0] == "--bin" && w[1] == "simcore")
        });
        if !names_simcore {
            return None;
        }
        rest[dashes + 1..].to_vec()
    } else {
        return None;
    };
    Some((env, args))
}

/// Every `simcore` command of the doc pages; a line that cannot be split into words is an
/// error naming it.
fn doc_commands() -> (Vec<DocCommand>, Vec<String>) {
    let root = common::workspace();
    let (mut commands, mut errors) = (Vec::new(), Vec::new());
    for path in doc_files() {
        let file = path.strip_prefix(&root).unwrap().display().to_string();
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{file}: {e}"));
        for (line, shell) in shell_lines(&text) {
            match invocations(&shell, &root) {
                Ok(found) => commands.extend(found.into_iter().map(|(env, args)| DocCommand {
                    file: file.clone(),
                    line,
                    text: shell.clone(),
                    env,
                    args,
                })),
                Err(e) => errors.push(format!("{file}:{line}: `{shell}`: {e}")),
            }
        }
    }
    (commands, errors)
}

/// The value of option `name` in `args` (`--name V` or `--name=V`).
fn option<'a>(args: &'a [String], name: &str) -> Option<&'a str> {
    args.iter().enumerate().find_map(|(i, a)| {
        if a == name {
            args.get(i + 1).map(String::as_str)
        } else {
            a.strip_prefix(name)?.strip_prefix('=')
        }
    })
}

/// The longest run of simcore the test makes, sim seconds: a documented run for longer (or
/// without an end) is run for this long instead.
const SHORT_RUN: f64 = 1.0;

/// The arguments the test runs `args` with (see the module's rule), `None` when it only
/// parses them: a run of a shipped world for longer than [`SHORT_RUN`], or without an end,
/// is shortened to it.
fn run_args(args: &[String]) -> Option<Vec<String>> {
    let operands = || args[1..].iter().filter(|a| !a.starts_with('-'));
    let shipped = |a: &String| a.starts_with("worlds/");
    match args.first().map(String::as_str) {
        Some("plugins" | "completions") => Some(args.to_vec()),
        Some("check" | "inspect") => {
            (operands().count() > 0 && operands().all(shipped)).then(|| args.to_vec())
        }
        Some("render") => args.get(1).is_some_and(shipped).then(|| args.to_vec()),
        Some("run") => {
            let outside = args.iter().any(|a| {
                a == "--paused" || a.starts_with("--foxglove") || a.starts_with("--zenoh")
            });
            if !args.get(1).is_some_and(shipped) || outside {
                return None;
            }
            if args.iter().any(|a| a == "--list") {
                return Some(args.to_vec());
            }
            let mut out = Vec::with_capacity(args.len() + 2);
            let mut rest = args.iter();
            while let Some(a) = rest.next() {
                if a == "--duration" {
                    rest.next();
                } else if !a.starts_with("--duration=") {
                    out.push(a.clone());
                }
            }
            let duration = option(args, "--duration")
                .and_then(|d| d.parse::<f64>().ok())
                .filter(|d| *d > 0.0 && *d <= SHORT_RUN)
                .unwrap_or(SHORT_RUN);
            out.extend(["--duration".to_string(), duration.to_string()]);
            Some(out)
        }
        _ => None,
    }
}

/// `file:line: `text`` and what a run printed, for a failure.
fn failure(c: &DocCommand, how: &str, o: &Output) -> String {
    format!(
        "{}:{}: `{}` {how}: {} (simcore {:?})\n{}{}",
        c.file,
        c.line,
        c.text,
        o.status,
        c.args,
        common::stderr(o),
        common::stdout(o)
            .lines()
            .take(5)
            .collect::<Vec<_>>()
            .join("\n")
    )
}

fn simcore_command(c: &DocCommand, args: &[&str], cwd: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_simcore"));
    cmd.args(args)
        .env_remove("SIMCORE_PLUGIN_PATH")
        .env_remove("SIMCORE_PARSE_ONLY")
        .env("SIMCORE_LOG", "warn")
        .envs(c.env.iter().map(|(k, v)| (k, v)))
        .current_dir(cwd);
    cmd
}

#[test]
fn every_documented_simcore_command_parses_and_the_short_ones_run() {
    let root = common::workspace();
    let (commands, errors) = doc_commands();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    // The pages show dozens; far fewer means the extraction broke, not that the docs are right.
    assert!(
        commands.len() >= 25,
        "only {} simcore commands found in README.md and docs/*.md: {commands:#?}",
        commands.len()
    );
    for file in [
        "README.md",
        "docs/cli.md",
        "docs/plugins.md",
        "docs/batch.md",
    ] {
        assert!(
            commands.iter().any(|c| c.file == file),
            "no simcore command found in {file}"
        );
    }

    let mut failures = Vec::new();
    for c in &commands {
        let args: Vec<&str> = c.args.iter().map(String::as_str).collect();
        let o = simcore_command(c, &args, &root)
            .env("SIMCORE_PARSE_ONLY", "1")
            .output()
            .expect("simcore runs");
        if !o.status.success() {
            failures.push(failure(c, "does not parse", &o));
        }
    }

    // The short ones, four at a time, each in a working directory of its own with the real
    // plugins staged.
    let plugins: Vec<String> = std::fs::read_dir(common::plugin_build_dir())
        .expect("plugin build dir")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|f| {
            let name = f
                .strip_prefix(std::env::consts::DLL_PREFIX)?
                .strip_suffix(std::env::consts::DLL_EXTENSION)?
                .strip_suffix('.')?;
            name.starts_with("simcore_plugin_")
                .then(|| name.to_string())
        })
        .collect();
    assert!(
        plugins.len() >= 10,
        "the plugin build holds only {plugins:?}"
    );
    let staged = common::stage(&plugins.iter().map(String::as_str).collect::<Vec<_>>());
    let runs: Vec<(&DocCommand, Vec<String>)> = commands
        .iter()
        .filter_map(|c| Some((c, run_args(&c.args)?)))
        .collect();
    for kind in ["plugins", "check", "run"] {
        assert!(
            runs.iter().any(|(c, _)| c.args[0] == kind),
            "no `simcore {kind}` of the docs is run: {runs:#?}"
        );
    }
    let listed = |runs: bool| {
        commands
            .iter()
            .filter(|c| run_args(&c.args).is_some() == runs)
            .map(|c| format!("{}:{}: {:?}", c.file, c.line, c.args))
            .collect::<Vec<_>>()
    };
    eprintln!(
        "{} documented simcore commands, each parsed; run: {:#?}\nonly parsed: {:#?}",
        commands.len(),
        listed(true),
        listed(false)
    );
    for chunk in runs.chunks(4) {
        let results: Vec<(&DocCommand, Output)> = std::thread::scope(|s| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|(c, args)| {
                    let staged = staged.path();
                    let root = &root;
                    s.spawn(move || {
                        let cwd = tempfile::tempdir().expect("temp dir");
                        for dir in ["worlds", "examples"] {
                            std::os::unix::fs::symlink(root.join(dir), cwd.path().join(dir))
                                .expect("link");
                        }
                        // A picture's folder (`-o docs/images/x.png`), made in the scratch
                        // directory, so that nothing is written into the workspace.
                        if let Some(parent) = option(args, "-o").and_then(|o| Path::new(o).parent())
                        {
                            std::fs::create_dir_all(cwd.path().join(parent)).expect("folder");
                        }
                        let args: Vec<&str> = args.iter().map(String::as_str).collect();
                        let o = simcore_command(c, &common::isolated(&args), cwd.path())
                            .env("SIMCORE_PLUGIN_PATH", staged)
                            .output()
                            .expect("simcore runs");
                        (*c, o)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for (c, o) in results {
            if !o.status.success() {
                failures.push(failure(c, "fails when run", &o));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} documented simcore commands fail:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

/// The parse-only mode parses and does nothing else: a command clap refuses still fails (so
/// the check above can fail), one it accepts exits 0 without being run.
#[test]
fn parse_only_parses_and_does_nothing_else() {
    let run = |args: &[&str], parse_only: bool| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_simcore"));
        c.args(args).current_dir(common::workspace());
        if parse_only {
            c.env("SIMCORE_PARSE_ONLY", "1");
        } else {
            c.env_remove("SIMCORE_PARSE_ONLY");
        }
        c.output().expect("simcore runs")
    };
    let bad = run(&["run", "worlds/imu_drop.sdf", "--no-such-flag"], true);
    assert_eq!(bad.status.code(), Some(2));
    assert!(common::stderr(&bad).contains("--no-such-flag"));
    let bad = run(&["run", "worlds/imu_drop.sdf", "--rtf", "fast"], true);
    assert_eq!(bad.status.code(), Some(2), "{}", common::stderr(&bad));

    let missing = ["check", "worlds/no_such_world.sdf"];
    let parsed = run(&missing, true);
    assert_eq!(parsed.status.code(), Some(0), "{}", common::stderr(&parsed));
    assert!(parsed.stdout.is_empty() && parsed.stderr.is_empty());
    let real = run(&missing, false);
    assert_eq!(real.status.code(), Some(2), "{}", common::stderr(&real));
}

#[test]
fn commands_are_read_from_shell_blocks_as_sh_reads_them() {
    let md = "text `simcore run x`\n\
              ```sh\n\
              # simcore plugins (a comment)\n\
              simcore run worlds/a.sdf --rtf 0 \\\n    --echo '/a b' # note\n\
              $ SIMCORE_LOG=debug target/debug/simcore check \"x y\" 2>/dev/null | head -1 &\n\
              python3 -c 'import simcore' && (cd d && simcore plugins)\n\
              cargo xtask run worlds/b.sdf --duration 5; cargo run --release -p sim-core -- inspect f\n\
              source <(simcore completions bash) > out\n\
              ```\n\
              ```console\n\
              $ simcore inspect worlds/c.sdf\n\
              simcore output, not a command\n\
              ```\n\
              ```python\n\
              simcore.run()\n\
              ```\n";
    let lines = shell_lines(md);
    assert_eq!(
        lines.iter().map(|(n, _)| *n).collect::<Vec<_>>(),
        [4, 6, 7, 8, 9, 12]
    );
    let root = Path::new("/nonexistent");
    let all: Vec<_> = lines
        .iter()
        .flat_map(|(_, l)| invocations(l, root).unwrap())
        .collect();
    let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        all,
        [
            (
                vec![],
                s(&["run", "worlds/a.sdf", "--rtf", "0", "--echo", "/a b"])
            ),
            (
                vec![("SIMCORE_LOG".to_string(), "debug".to_string())],
                s(&["check", "x y"])
            ),
            (vec![], s(&["plugins"])),
            (vec![], s(&["run", "worlds/b.sdf", "--duration", "5"])),
            (vec![], s(&["inspect", "f"])),
            (vec![], s(&["completions", "bash"])),
            (vec![], s(&["inspect", "worlds/c.sdf"])),
        ]
    );
    assert!(tokens("simcore run 'open").is_err());
    // Globs expand in the workspace, sorted, like sh's.
    let worlds = expand("worlds/*.sdf", &common::workspace());
    assert!(
        worlds.contains(&"worlds/imu_drop.sdf".to_string()),
        "{worlds:?}"
    );
    assert!(worlds.windows(2).all(|w| w[0] < w[1]));
    assert_eq!(
        expand("worlds/*.nothing", &common::workspace()),
        ["worlds/*.nothing"]
    );
}

#[test]
fn the_run_rule_takes_self_contained_commands_and_shortens_runs() {
    let s = |v: &str| v.split(' ').map(String::from).collect::<Vec<_>>();
    for (doc, run) in [
        ("plugins", "plugins"),
        ("completions zsh", "completions zsh"),
        (
            "check worlds/a.sdf worlds/b.sdf",
            "check worlds/a.sdf worlds/b.sdf",
        ),
        ("inspect worlds/a.sdf", "inspect worlds/a.sdf"),
        (
            "render worlds/a.sdf -o x.png",
            "render worlds/a.sdf -o x.png",
        ),
        ("run worlds/a.sdf --list", "run worlds/a.sdf --list"),
        ("run worlds/a.sdf", "run worlds/a.sdf --duration 1"),
        (
            "run worlds/a.sdf --rtf 0 --duration 5 --echo /t",
            "run worlds/a.sdf --rtf 0 --echo /t --duration 1",
        ),
        (
            "run worlds/a.sdf --duration=0.5 --echo /t",
            "run worlds/a.sdf --echo /t --duration 0.5",
        ),
    ] {
        assert_eq!(run_args(&s(doc)), Some(s(run)), "{doc}");
    }
    for no in [
        "check",
        "check ../x.sdf",
        "run run.toml --duration 1",
        "run worlds/a.sdf --duration 1 --foxglove",
        "run worlds/a.sdf --duration 1 --zenoh-connect tcp/h:7447",
        "run worlds/a.sdf --list --paused",
        "topic list",
        "render mine.sdf -o x.png",
        "batch examples/sweep.toml",
        "new-plugin acme --dir ..",
    ] {
        assert_eq!(run_args(&s(no)), None, "{no} is run");
    }
}

/// README's pictures (`docs/images/*.png`) are what the `simcore render` commands written
/// beside them make, byte for byte: each command is read from README.md, run with its `-o`
/// pointed at a scratch file, and compared with the committed picture.
#[test]
fn the_readme_pictures_reproduce_from_their_commands() {
    let root = common::workspace();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let spans: Vec<String> = readme
        .match_indices("`simcore render ")
        .filter_map(|(at, _)| {
            let rest = &readme[at + 1..];
            rest.find('`').map(|end| rest[..end].replace('\n', " "))
        })
        .filter(|s| s.contains(" -o docs/images/"))
        .collect();
    assert!(spans.len() >= 2, "README's picture commands: {spans:?}");
    let scratch = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for span in &spans {
        let mut args: Vec<String> = tokens(span)
            .unwrap()
            .into_iter()
            .filter_map(|t| match t {
                Token::Word { text, .. } => Some(text),
                Token::Op(_) => None,
            })
            .skip(1)
            .collect();
        let out = args.iter().position(|a| a == "-o").expect("-o") + 1;
        let picture = std::mem::replace(
            &mut args[out],
            scratch.path().join("picture.png").display().to_string(),
        );
        let o = Command::new(env!("CARGO_BIN_EXE_simcore"))
            .args(&args)
            .env("SIMCORE_PLUGIN_PATH", common::plugin_build_dir())
            .env("SIMCORE_LOG", "warn")
            .current_dir(&root)
            .output()
            .expect("simcore runs");
        assert!(o.status.success(), "`{span}`: {}", common::stderr(&o));
        let made = std::fs::read(&args[out]).unwrap();
        if made != std::fs::read(root.join(&picture)).unwrap() {
            failures.push(format!(
                "{picture} is not what `{span}` makes now: run that command in the workspace \
                 to make it again"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
