//! `simcore topic list | echo | pub | hz`.

use super::super::output::Output;
use super::super::{Failure, Outcome};
use super::session::Session;
use super::{EchoArgs, HzArgs, ListArgs, PubArgs, TopicArgs, TopicCommand, seconds};
use serde_json::json;
use sim_core::ros::names::ros_name;
use sim_core::ros::{RosType, decode_message, encode};
use sim_core::zenoh::client::TopicReader;
use sim_core::zenoh::client::graph::{Graph, Named};
use sim_plugin_api::Message;
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// How long one look for a sample waits before the stop flag and the limits are looked at.
const POLL: Duration = Duration::from_millis(50);

/// Runs `simcore topic`.
pub fn run(args: TopicArgs) -> Result<Outcome, Failure> {
    let mut s = Session::open(&args.connect)?;
    match args.command {
        TopicCommand::List(a) => list(&s, &a),
        TopicCommand::Echo(a) => echo(&mut s, &a),
        TopicCommand::Pub(a) => publish(&mut s, &a),
        TopicCommand::Hz(a) => hz(&mut s, &a),
    }
}

/// The nodes of endpoints, each once, in order.
fn nodes(endpoints: &[sim_core::zenoh::client::graph::Endpoint]) -> Vec<String> {
    let mut v: Vec<String> = endpoints.iter().map(|e| e.node.clone()).collect();
    v.sort();
    v.dedup();
    v
}

/// Prints what `list` of topics or services found: a table, or JSON lines.
pub(super) fn print_list(
    named: &BTreeMap<String, Named>,
    json_lines: bool,
    offered: &str,
    wanted: &str,
) {
    if json_lines {
        for (name, n) in named {
            say!(
                "{}",
                json!({
                    "name": name,
                    "types": n.types,
                    offered: nodes(&n.offered),
                    wanted: nodes(&n.wanted),
                })
            );
        }
        return;
    }
    let w = named.keys().map(String::len).max().unwrap_or(0);
    for (name, n) in named {
        say!(
            "{name:<w$}  {}  [{} {offered}, {} {wanted}]",
            n.types.join(", "),
            n.offered.len(),
            n.wanted.len()
        );
    }
}

fn list(s: &Session, a: &ListArgs) -> Result<Outcome, Failure> {
    let graph = s.graph()?;
    let topics = graph.topics();
    if topics.is_empty() && !a.json {
        note!(
            "no topics answered within {:.1} s (is a simcore run reachable? --discovery waits longer)",
            s.discovery.as_secs_f64()
        );
    }
    print_list(&topics, a.json, "publishers", "subscribers");
    Ok(Outcome::Success)
}

/// The ROS name a topic argument stands for, and what the graph has under it: the name as
/// given when the graph has it, else its ROS form by simcore's rule (`-` to `_`, ...). When
/// the graph has neither, a warning names the nearest topic it has.
fn resolve(given: &str, graph: &Graph) -> Result<(String, Option<Named>), Failure> {
    let topics = graph.topics();
    if let Some(n) = topics.get(given) {
        return Ok((given.to_string(), Some(n.clone())));
    }
    let ros =
        ros_name(given).ok_or_else(|| Failure::Error(format!("`{given}` is not a topic name")))?;
    if let Some(n) = topics.get(&ros) {
        return Ok((ros, Some(n.clone())));
    }
    match topics.keys().min_by_key(|k| strsim::levenshtein(&ros, k)) {
        Some(near) => note!(
            "warning: no node announces `{ros}` yet; the nearest topic is `{near}` (simcore topic \
             list lists them)"
        ),
        None => note!("warning: no node announces `{ros}` yet (no topics answered)"),
    }
    Ok((ros, None))
}

/// The one type the graph gives a topic, if simcore knows it.
fn known_type(named: Option<&Named>) -> Option<&'static RosType> {
    match named.map(|n| n.types.as_slice()) {
        Some([one]) => RosType::by_name(one),
        _ => None,
    }
}

/// When `limit` (a `--duration`) ends, if given.
fn deadline(flag: &str, limit: Option<f64>) -> Result<Option<Instant>, Failure> {
    limit
        .map(|d| seconds(flag, d).map(|d| Instant::now() + d))
        .transpose()
}

/// Listens to `topic` (see [`resolve`]) until `duration` (`--duration`) ends, if given: its
/// ROS name, the reader, and when to stop.
fn listen(
    s: &mut Session,
    topic: &str,
    duration: Option<f64>,
) -> Result<(String, TopicReader, Option<Instant>), Failure> {
    let graph = s.graph()?;
    let (name, named) = resolve(topic, &graph)?;
    let end = deadline("--duration", duration)?;
    let reader = s
        .client
        .reader(&name, known_type(named.as_ref()))
        .map_err(|e| Failure::Error(e.to_string()))?;
    Ok((name, reader, end))
}

fn echo(s: &mut Session, a: &EchoArgs) -> Result<Outcome, Failure> {
    let (name, reader, end) = listen(s, &a.topic, a.duration)?;
    let mut out = Output::start(std::io::stdout());
    let mut printed = 0u64;
    // What could not be read, by type: one warning each, the count at the end.
    let mut unreadable: BTreeMap<String, u64> = BTreeMap::new();
    let mut skip = |what: String, why: &dyn Fn() -> String| {
        let n = unreadable.entry(what).or_default();
        if *n == 0 {
            note!("warning: {}", why());
        }
        *n += 1;
    };
    while !s.stop.load(Ordering::Relaxed)
        && !out.closed()
        && a.count.is_none_or(|c| printed < c)
        && end.is_none_or(|e| Instant::now() < e)
    {
        let Some(r) = reader.next(POLL) else { continue };
        let Some(ty) = r.ty else {
            let dds = r.key.rsplit('/').nth(1).unwrap_or("").to_string();
            let why = || format!("`{name}` carries {dds}, a type simcore cannot read; skipped");
            skip(dds.clone(), &why);
            continue;
        };
        match message_json(&name, ty, &r.bytes) {
            Ok(v) => {
                out.line(v.to_string());
                printed += 1;
            }
            Err(e) => {
                let why = || format!("a `{name}` message ({}) could not be read: {e}", ty.name);
                skip(ty.name.to_string(), &why);
            }
        }
    }
    for (ty, n) in &unreadable {
        if *n > 1 {
            note!("{n} messages of {ty} on `{name}` were skipped");
        }
    }
    out_end(out, &s.stop)
}

/// The line `echo` prints for a sample of `ty`: `--echo`'s form of the message it decodes to;
/// `/clock`'s `rosgraph_msgs/msg/Clock`, which has no payload of its own, as
/// `{"topic", "type": "Clock", "clock": {"sec", "nsec"}}`.
fn message_json(
    name: &str,
    ty: &'static RosType,
    bytes: &[u8],
) -> Result<serde_json::Value, sim_core::ros::DecodeError> {
    if ty == &sim_core::ros::catalog::CLOCK {
        let mut r = sim_core::ros::CdrReader::new(bytes)?;
        let sec = r.read::<i32>("clock.sec")?;
        let nsec = r.read::<u32>("clock.nanosec")?;
        return Ok(json!({"topic": name, "type": "Clock", "clock": {"sec": sec, "nsec": nsec}}));
    }
    let m = decode_message(ty.name, bytes)?;
    Ok(sim_core::echo::echo_json(name, &m))
}

/// Finishes stdout: the outcome, with what went wrong said.
fn out_end(mut out: Output, stop: &std::sync::atomic::AtomicBool) -> Result<Outcome, Failure> {
    let dropped = out.finish(stop);
    if dropped > 0 {
        note!("{dropped} line(s) dropped (the reader of stdout was too slow or gone)");
    }
    if let Some(e) = out.error() {
        note!("error: writing stdout failed: {e}");
        return Ok(Outcome::OutputFailed);
    }
    Ok(Outcome::Success)
}

fn publish(s: &mut Session, a: &PubArgs) -> Result<Outcome, Failure> {
    if !(a.rate.is_finite() && a.rate > 0.0 && a.rate <= 1e6) {
        return Err(Failure::Error(format!(
            "--rate must be a number of messages per second above 0 and at most 1e6, got {}",
            a.rate
        )));
    }
    let wait = seconds("--wait", a.wait)?;
    let value: serde_json::Value = serde_json::from_str(&a.message)
        .map_err(|e| Failure::Error(format!("the message is not valid JSON: {e}")))?;
    let payload = sim_core::echo::payload_from_json(&value)
        .map_err(|e| Failure::Error(format!("the message: {e}")))?;
    let mut bytes = Vec::new();
    let ty = encode(&Message::new("", payload), &mut bytes)
        .ok_or_else(|| Failure::Error("the message has no ROS 2 form (see docs/ros.md)".into()))?;
    let graph = s.graph()?;
    let (name, named) = resolve(&a.topic, &graph)?;
    if let Some(n) = &named
        && !n.wanted.is_empty()
        && !n.types.iter().any(|t| t == ty.name)
    {
        note!(
            "warning: `{name}` is read as {}; this publishes {} (it may be refused)",
            n.types.join(", "),
            ty.name
        );
    }
    let mut writer = s
        .client
        .writer(&name, ty)
        .map_err(|e| Failure::Error(e.to_string()))?;
    let count = if a.once { Some(1) } else { a.times };
    if !writer.wait_for_subscriber(wait, &s.stop) {
        if s.stop.load(Ordering::Relaxed) {
            return Ok(Outcome::Success);
        }
        let m = format!(
            "nothing subscribes to `{name}` ({}) within {:.1} s",
            ty.name,
            wait.as_secs_f64()
        );
        if count.is_some() {
            return Err(Failure::Error(format!(
                "{m}; nothing was published (--wait waits longer)"
            )));
        }
        note!("warning: {m}; publishing anyway");
    }
    let period = Duration::from_secs_f64(1.0 / a.rate);
    let mut next = Instant::now();
    let mut sent = 0u64;
    while count.is_none_or(|c| sent < c) && !s.stop.load(Ordering::Relaxed) {
        let now = Instant::now();
        if now < next {
            std::thread::sleep((next - now).min(POLL));
            continue;
        }
        writer
            .put(bytes.clone())
            .map_err(|e| Failure::Error(format!("publishing on `{name}`: {e}")))?;
        sent += 1;
        next += period;
    }
    // Let the last message leave before the session closes.
    std::thread::sleep(Duration::from_millis(200));
    note!("published {sent} message(s) on `{name}` ({})", ty.name);
    Ok(Outcome::Success)
}

/// Arrival statistics over a window, as `ros2 topic hz` prints them.
#[derive(Default)]
struct Rate {
    arrivals: VecDeque<Instant>,
    window: usize,
}

impl Rate {
    fn add(&mut self, at: Instant) {
        self.arrivals.push_back(at);
        while self.arrivals.len() > self.window.max(2) {
            self.arrivals.pop_front();
        }
    }

    /// `average rate: …` and the gaps' min, max and standard deviation, if two arrived.
    fn report(&self) -> Option<String> {
        let gaps: Vec<f64> = self
            .arrivals
            .iter()
            .zip(self.arrivals.iter().skip(1))
            .map(|(a, b)| (*b - *a).as_secs_f64())
            .collect();
        if gaps.is_empty() {
            return None;
        }
        let n = gaps.len() as f64;
        let mean = gaps.iter().sum::<f64>() / n;
        let var = gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / n;
        let min = gaps.iter().copied().fold(f64::INFINITY, f64::min);
        let max = gaps.iter().copied().fold(0.0, f64::max);
        let rate = if mean > 0.0 {
            1.0 / mean
        } else {
            f64::INFINITY
        };
        Some(format!(
            "average rate: {rate:.3}\n\tmin: {min:.3}s max: {max:.3}s std dev: {:.5}s window: {}",
            var.sqrt(),
            self.arrivals.len()
        ))
    }
}

fn hz(s: &mut Session, a: &HzArgs) -> Result<Outcome, Failure> {
    if a.window < 2 {
        return Err(Failure::Error("--window must be at least 2".into()));
    }
    let (name, reader, end) = listen(s, &a.topic, a.duration)?;
    let mut rate = Rate {
        window: a.window,
        ..Rate::default()
    };
    let mut received = 0u64;
    let mut next_report = Instant::now() + Duration::from_secs(1);
    let mut reported = false;
    while !s.stop.load(Ordering::Relaxed)
        && a.count.is_none_or(|c| received < c)
        && end.is_none_or(|e| Instant::now() < e)
    {
        if reader.next(POLL).is_some() {
            rate.add(Instant::now());
            received += 1;
        }
        if Instant::now() >= next_report {
            next_report += Duration::from_secs(1);
            if let Some(r) = rate.report() {
                say!("{r}");
                reported = true;
            }
        }
    }
    match rate.report() {
        Some(r) => say!("{r}"),
        None if !reported => note!("no messages on `{name}` (or only one)"),
        None => {}
    }
    Ok(Outcome::Success)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_is_over_the_window() {
        let t0 = Instant::now();
        let mut r = Rate {
            window: 3,
            ..Rate::default()
        };
        assert!(r.report().is_none());
        for i in [0u64, 100, 200, 250] {
            r.add(t0 + Duration::from_millis(i));
        }
        let line = r.report().unwrap();
        // The window keeps the last three: gaps of 100 and 50 ms.
        assert!(line.starts_with("average rate: 13.333"), "{line}");
        assert!(line.contains("min: 0.050s max: 0.100s"), "{line}");
        assert!(line.ends_with("window: 3"), "{line}");
    }
}
