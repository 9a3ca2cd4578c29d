//! The run control served to the live view's clients: four services a Foxglove client calls
//! (the app's Service Call panel, or any client of the WebSocket protocol), named as ROS 2's
//! `simulation_interfaces` names its own, with JSON requests and replies. Each translates to
//! the engine's run control and nothing more ([`Simulation::set_run_state`],
//! [`RunControl::step`](sim_engine::runner::RunControl::step), [`Simulation::reset_scope`]);
//! a refusal is the engine's [`ControlError`], as text.
//!
//! | service | request | reply |
//! |---|---|---|
//! | `/get_simulation_state` | `{}` | `{"state", "sim_time", "iteration"}` |
//! | `/set_simulation_state` | `{"state": "playing" \| "paused" \| "stopped" \| "quitting"}` | the state after it |
//! | `/step_simulation` | `{"steps": N}` (default 1), a paused run | the state once the N steps are taken |
//! | `/reset_simulation` | `{"scope": "all" \| "spawned"}` (default `all`) | the state after it, with the models removed (`"removed"`) for `spawned` |
//!
//! `state` is `stopped`, `playing`, `paused` or `quitting`, `sim_time` seconds. The server's
//! threads only read the request and queue the call ([`MAX_WAITING`] at most) with a wake-up
//! for the run; the run answers it on its own thread ([`LiveControl::serve`]) after a step or
//! while it waits paused.

use crossbeam_channel::{Receiver, Sender, TrySendError, bounded};
use foxglove::Schema;
use foxglove::websocket::service::{Handler, Request, Responder, Service, ServiceSchema};
use serde_json::{Map, Value, json};
use sim_engine::runner::{ControlError, ResetDone, ResetScope, RunState, RunWaker, Simulation};

/// The calls that may wait for the run at once; more are refused, saying so.
pub const MAX_WAITING: usize = 64;

/// The largest request read, in bytes.
const MAX_REQUEST: usize = 4096;

/// What a call asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Op {
    State,
    Set(RunState),
    Step(u64),
    Reset(ResetScope),
}

/// A call waiting for the run.
struct Call {
    op: Op,
    responder: Responder,
}

/// The run's side: the calls queued by the services, and the step call whose steps are being
/// taken.
pub struct LiveControl {
    calls: Receiver<Call>,
    stepping: Option<Responder>,
}

impl std::fmt::Debug for LiveControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LiveControl")
            .field("waiting", &self.calls.len())
            .field("stepping", &self.stepping.is_some())
            .finish()
    }
}

/// A service's handler on the server's threads: reads the request, queues the call and wakes
/// the run.
struct Forward {
    read: fn(&Map<String, Value>) -> Result<Op, String>,
    calls: Sender<Call>,
    waker: RunWaker,
}

impl Handler for Forward {
    fn call(&self, request: Request, responder: Responder) {
        let op = match parse(request.payload()).and_then(|o| (self.read)(&o)) {
            Ok(op) => op,
            Err(m) => return responder.respond_err(m),
        };
        match self.calls.try_send(Call { op, responder }) {
            Ok(()) => self.waker.wake(),
            Err(TrySendError::Full(c)) => c.responder.respond_err(format!(
                "{MAX_WAITING} calls are waiting for the run already; call again"
            )),
            Err(TrySendError::Disconnected(c)) => {
                c.responder.respond_err("the run has ended".to_string())
            }
        }
    }
}

/// The request as a JSON object (an empty request is `{}`).
fn parse(payload: &[u8]) -> Result<Map<String, Value>, String> {
    if payload.len() > MAX_REQUEST {
        return Err(format!(
            "the request is {} bytes; at most {MAX_REQUEST} are read",
            payload.len()
        ));
    }
    if payload.iter().all(u8::is_ascii_whitespace) {
        return Ok(Map::new());
    }
    match serde_json::from_slice(payload) {
        Ok(Value::Object(o)) => Ok(o),
        Ok(_) => Err("the request is a JSON object".into()),
        Err(e) => Err(format!("the request is not JSON: {e}")),
    }
}

/// Refuses a field of `o` other than `known`.
fn only(o: &Map<String, Value>, known: &[&str]) -> Result<(), String> {
    match o.keys().find(|k| !known.contains(&k.as_str())) {
        None => Ok(()),
        Some(k) if known.is_empty() => Err(format!("unknown field `{k}`: the request has none")),
        Some(k) => Err(format!(
            "unknown field `{k}` (the request's fields: {})",
            known.join(", ")
        )),
    }
}

/// The text field `name` of `o`, if given.
fn text<'a>(o: &'a Map<String, Value>, name: &str) -> Result<Option<&'a str>, String> {
    match o.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(v) => Err(format!("`{name}` must be a string, found {v}")),
    }
}

fn read_state(_: &Map<String, Value>) -> Result<Op, String> {
    Ok(Op::State)
}

fn read_set(o: &Map<String, Value>) -> Result<Op, String> {
    only(o, &["state"])?;
    let to = match text(o, "state")? {
        Some("playing") => RunState::Playing,
        Some("paused") => RunState::Paused,
        Some("stopped") => RunState::Stopped,
        Some("quitting") => RunState::Quitting,
        Some(other) => {
            return Err(format!(
                "`state` must be playing, paused, stopped or quitting, found `{other}`"
            ));
        }
        None => return Err("`state` is required: playing, paused, stopped or quitting".into()),
    };
    Ok(Op::Set(to))
}

fn read_step(o: &Map<String, Value>) -> Result<Op, String> {
    only(o, &["steps"])?;
    match o.get("steps") {
        None | Some(Value::Null) => Ok(Op::Step(1)),
        Some(v) => v
            .as_u64()
            .map(Op::Step)
            .ok_or_else(|| format!("`steps` must be a whole number, 0 or more, found {v}")),
    }
}

fn read_reset(o: &Map<String, Value>) -> Result<Op, String> {
    only(o, &["scope"])?;
    match text(o, "scope")? {
        None | Some("all") => Ok(Op::Reset(ResetScope::All)),
        Some("spawned") => Ok(Op::Reset(ResetScope::Spawned)),
        Some(other) => Err(format!("`scope` must be all or spawned, found `{other}`")),
    }
}

/// A JSON schema (`jsonschema` encoding) named `name`.
fn schema(name: &str, text: &str) -> Schema {
    Schema::new(name, "jsonschema", text.as_bytes().to_vec())
}

/// The reply's schema: the run's state.
const STATE_SCHEMA: &str = r#"{"type":"object","properties":{"state":{"type":"string","enum":["stopped","playing","paused","quitting"]},"sim_time":{"type":"number"},"iteration":{"type":"integer"},"removed":{"type":"array","items":{"type":"string"}}}}"#;

impl LiveControl {
    /// The run's side, and the services that queue calls for it and wake it with `waker`.
    pub fn new(waker: RunWaker) -> (LiveControl, Vec<Service>) {
        let (calls, queue) = bounded(MAX_WAITING);
        type Read = fn(&Map<String, Value>) -> Result<Op, String>;
        let services: [(&str, &str, &str, Read); 4] = [
            (
                "/get_simulation_state",
                "simcore.GetSimulationState",
                r#"{"type":"object","properties":{},"additionalProperties":false}"#,
                read_state,
            ),
            (
                "/set_simulation_state",
                "simcore.SetSimulationState",
                r#"{"type":"object","properties":{"state":{"type":"string","enum":["playing","paused","stopped","quitting"]}},"required":["state"],"additionalProperties":false}"#,
                read_set,
            ),
            (
                "/step_simulation",
                "simcore.StepSimulation",
                r#"{"type":"object","properties":{"steps":{"type":"integer","minimum":0,"default":1}},"additionalProperties":false}"#,
                read_step,
            ),
            (
                "/reset_simulation",
                "simcore.ResetSimulation",
                r#"{"type":"object","properties":{"scope":{"type":"string","enum":["all","spawned"],"default":"all"}},"additionalProperties":false}"#,
                read_reset,
            ),
        ];
        let services = services
            .into_iter()
            .map(|(name, ty, request, read)| {
                let s = ServiceSchema::new(ty)
                    .with_request("json", schema(&format!("{ty}.Request"), request))
                    .with_response("json", schema(&format!("{ty}.Response"), STATE_SCHEMA));
                Service::builder(name, s).handler(Forward {
                    read,
                    calls: calls.clone(),
                    waker: waker.clone(),
                })
            })
            .collect();
        (
            LiveControl {
                calls: queue,
                stepping: None,
            },
            services,
        )
    }

    /// Answers what the clients asked (on the run's thread: after each step and while the
    /// run waits paused): the step call whose steps are all taken, then each queued call.
    pub fn serve(&mut self, sim: &mut Simulation) {
        self.answer_stepping(sim);
        while let Ok(call) = self.calls.try_recv() {
            self.answer(sim, call);
        }
        // A quit just answered ends the steps being taken.
        self.answer_stepping(sim);
    }

    /// Answers the step call whose steps are all taken, or refuses it when the run quits
    /// before they are.
    fn answer_stepping(&mut self, sim: &Simulation) {
        let control = sim.control();
        if !(control.quitting() || control.steps_left() == 0) {
            return;
        }
        match self.stepping.take() {
            Some(r) if control.quitting() => r.respond_err(ControlError::Quitting.to_string()),
            Some(r) => r.respond_ok(state(sim, None).to_string()),
            None => {}
        }
    }

    fn answer(&mut self, sim: &mut Simulation, Call { op, responder }: Call) {
        let done = match op {
            Op::State => Ok(None),
            Op::Set(to) => sim.set_run_state(to).map(|()| None),
            Op::Reset(scope) => sim.reset_scope(scope).map(|done| match done {
                ResetDone::All => None,
                ResetDone::Spawned(removed) => Some(removed),
            }),
            Op::Step(n) => match sim.control_mut().step(n) {
                Ok(true) => Ok(None),
                Ok(false) => {
                    // Answered once the last step is taken (a run that stops before
                    // answers with an error as the responder is dropped).
                    self.stepping = Some(responder);
                    return;
                }
                Err(e) => Err(e),
            },
        };
        match done {
            Ok(removed) => responder.respond_ok(state(sim, removed).to_string()),
            Err(e) => responder.respond_err(e.to_string()),
        }
    }
}

/// The run's state as a reply: with `removed`, the models a reset removed.
fn state(sim: &Simulation, removed: Option<Vec<String>>) -> Value {
    let mut v = json!({
        "state": sim.control().state().name(),
        "sim_time": sim.time().as_secs_f64(),
        "iteration": sim.physics().iteration(),
    });
    if let Some(r) = removed {
        v["removed"] = json!(r);
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(f: fn(&Map<String, Value>) -> Result<Op, String>, text: &str) -> Result<Op, String> {
        parse(text.as_bytes()).and_then(|o| f(&o))
    }

    #[test]
    fn requests_are_read_with_defaults_and_errors_name_the_field() {
        assert_eq!(read(read_step, ""), Ok(Op::Step(1)));
        assert_eq!(read(read_step, r#"{"steps": 25}"#), Ok(Op::Step(25)));
        assert_eq!(
            read(read_step, r#"{"steps": -1}"#),
            Err("`steps` must be a whole number, 0 or more, found -1".into())
        );
        assert_eq!(
            read(read_step, r#"{"step": 2}"#),
            Err("unknown field `step` (the request's fields: steps)".into())
        );
        assert_eq!(
            read(read_set, r#"{"state": "paused"}"#),
            Ok(Op::Set(RunState::Paused))
        );
        assert_eq!(
            read(read_set, "{}"),
            Err("`state` is required: playing, paused, stopped or quitting".into())
        );
        assert_eq!(
            read(read_set, r#"{"state": 2}"#),
            Err("`state` must be a string, found 2".into())
        );
        assert_eq!(read(read_reset, " "), Ok(Op::Reset(ResetScope::All)));
        assert_eq!(
            read(read_reset, r#"{"scope": "spawned"}"#),
            Ok(Op::Reset(ResetScope::Spawned))
        );
        assert!(
            read(read_reset, "[1]")
                .unwrap_err()
                .contains("a JSON object")
        );
        assert!(read(read_state, "{").unwrap_err().contains("not JSON"));
        let big = format!(r#"{{"steps": 1{}}}"#, " ".repeat(MAX_REQUEST));
        assert!(read(read_step, &big).unwrap_err().contains("at most 4096"));
    }
}
