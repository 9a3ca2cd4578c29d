//! `simcore service list | call` and `simcore sim pause | play | step | reset | state`.

use super::super::{Failure, Outcome};
use super::session::Session;
use super::{CallArgs, ListArgs, ServiceArgs, ServiceCommand, SimArgs, SimCommand, seconds};
use serde_json::{Value, json};
use sim_core::zenoh::client::CallError;
use sim_core::zenoh::client::graph::Endpoint;
use sim_core::zenoh::client::requests::{reply_json, request_cdr, result_of};
use sim_core::zenoh::control::{Service, result, state};
use sim_core::zenoh::keys::EndpointKind;
use std::time::Duration;

/// The type `service list` gives a world service: a plugin's, called with `--call`'s JSON.
const WORLD_SERVICE: &str = "simcore world service (JSON)";

/// Runs `simcore service`.
pub fn run(args: ServiceArgs) -> Result<Outcome, Failure> {
    let mut s = Session::open(&args.connect)?;
    match args.command {
        ServiceCommand::List(a) => list(&s, &a),
        ServiceCommand::Call(a) => call(&mut s, &a),
    }
}

fn list(s: &Session, a: &ListArgs) -> Result<Outcome, Failure> {
    let mut services = s.graph()?.services();
    // The world's own services (plugins', sensors' set_rate), called with JSON.
    let world = s
        .client
        .world_services(s.discovery, &s.stop)
        .map_err(|e| Failure::Error(format!("the world's services: {e}")))?;
    for name in world.unwrap_or_default() {
        let n = services.entry(name).or_default();
        n.types.push(WORLD_SERVICE.into());
        // Served by the simulation itself (no ROS endpoint announces it).
        n.offered.push(Endpoint {
            kind: EndpointKind::Service,
            zid: String::new(),
            node: "/simcore".into(),
            name: String::new(),
            dds_type: String::new(),
            hash: String::new(),
            qos: String::new(),
        });
    }
    if services.is_empty() && !a.json {
        note!(
            "no services answered within {:.1} s (is a simcore run reachable? --discovery waits longer)",
            s.discovery.as_secs_f64()
        );
    }
    super::topic::print_list(&services, a.json, "servers", "clients");
    Ok(Outcome::Success)
}

/// The service `name` stands for, with the request read from `request` (JSON): a
/// `simulation_interfaces` service under its own name, or under the name a server in the
/// graph announces for its type. Of the two forms of SpawnEntity and SetEntityState the
/// request's fields choose (2.x's `entity_resource` or `set_*`), else the 1.x form.
fn service_of(name: &str, request: &Value, s: &Session) -> Result<Service, Failure> {
    let v2 = |k: &[&str]| k.iter().any(|k| request.get(k).is_some());
    let pick = |service: Service| match service {
        Service::Spawn if v2(&["entity_resource"]) => Service::SpawnV2,
        Service::SetEntityState if v2(&["set_pose", "set_twist", "set_acceleration"]) => {
            Service::SetEntityStateV2
        }
        other => other,
    };
    let name = if name.starts_with('/') {
        name.to_string()
    } else {
        format!("/{name}")
    };
    if let Some(&service) = Service::ALL.iter().find(|s| s.ros_name() == name) {
        return Ok(pick(service));
    }
    let services = s.graph()?.services();
    let Some(named) = services.get(&name) else {
        let near = services
            .keys()
            .map(String::as_str)
            .chain(Service::ALL.iter().map(|s| s.ros_name()))
            .min_by_key(|k| strsim::levenshtein(&name, k));
        return Err(Failure::Error(match near {
            Some(n) => format!(
                "no server announces `{name}`; the nearest service is `{n}` (simcore service list \
                 lists them)"
            ),
            None => format!("no server announces `{name}`"),
        }));
    };
    Service::ALL
        .iter()
        .copied()
        .find(|s| named.types.iter().any(|t| t == s.ros_type().name))
        .map(pick)
        .ok_or_else(|| {
            Failure::Error(format!(
                "`{name}` is {}: simcore writes the requests of the simulation_interfaces \
                 services only (a plugin's services are called with `simcore run --call`)",
                named.types.join(", ")
            ))
        })
}

/// Calls `service` as `name` with the JSON request; the reply as JSON.
fn call_service(
    s: &mut Session,
    service: Service,
    name: &str,
    request: &Value,
    timeout: Duration,
) -> Result<Value, Failure> {
    let bytes =
        request_cdr(service, request).map_err(|e| Failure::Error(format!("the request: {e}")))?;
    let ty = service.ros_type();
    let reply = s
        .client
        .call(name, ty, &service.dds_name(), bytes, timeout, &s.stop)
        .map_err(|e| match e {
            CallError::Timeout(_) | CallError::Unanswered => Failure::Error(format!(
                "{name} ({}): {e} (is a simcore run reachable? a long step needs a longer --timeout)",
                ty.name
            )),
            e => Failure::Error(format!("{name} ({}): {e}", ty.name)),
        })?;
    reply_json(service, &reply).map_err(|e| {
        Failure::Error(format!(
            "{name} ({}): the reply could not be read: {e}",
            ty.name
        ))
    })
}

fn call(s: &mut Session, a: &CallArgs) -> Result<Outcome, Failure> {
    let timeout = seconds("--timeout", a.timeout)?;
    let request: Value = match &a.request {
        None => json!({}),
        Some(text) => serde_json::from_str(text)
            .map_err(|e| Failure::Error(format!("the request is not valid JSON: {e}")))?,
    };
    let name = if a.service.starts_with('/') {
        a.service.clone()
    } else {
        format!("/{}", a.service)
    };
    if !Service::ALL.iter().any(|s| s.ros_name() == name) {
        // A world service (a plugin's), when the world has it.
        let world = s
            .client
            .world_services(s.discovery, &s.stop)
            .map_err(|e| Failure::Error(format!("the world's services: {e}")))?
            .unwrap_or_default();
        if world.contains(&name) {
            return match s.client.call_world(&name, &request, timeout, &s.stop) {
                Ok(reply) => {
                    say!("{reply}");
                    Ok(Outcome::Success)
                }
                Err(CallError::Refused(why)) => {
                    note!("error: {why}");
                    Ok(Outcome::Refused)
                }
                Err(e) => Err(Failure::Error(format!("{name}: {e}"))),
            };
        }
    }
    let service = service_of(&name, &request, s)?;
    let reply = call_service(s, service, service.ros_name(), &request, timeout)?;
    say!("{reply}");
    Ok(match result_of(&reply) {
        Some((code, _)) if code != u64::from(result::OK) => Outcome::Refused,
        _ => Outcome::Success,
    })
}

/// The name of a `SimulationState` value.
fn state_name(v: u64) -> &'static str {
    match u8::try_from(v) {
        Ok(state::STOPPED) => "stopped",
        Ok(state::PLAYING) => "playing",
        Ok(state::PAUSED) => "paused",
        Ok(state::QUITTING) => "quitting",
        _ => "unknown",
    }
}

/// Runs `simcore sim`: one call, its outcome said on stderr in a line, exit 1 if refused.
pub fn sim(args: SimArgs) -> Result<Outcome, Failure> {
    let timeout = seconds("--timeout", args.timeout)?;
    let mut s = Session::open(&args.connect)?;
    let (service, request) = match args.command {
        SimCommand::Pause => (Service::SetState, json!({"state": state::PAUSED})),
        SimCommand::Play => (Service::SetState, json!({"state": state::PLAYING})),
        SimCommand::Step { steps } => (Service::Step, json!({ "steps": steps })),
        SimCommand::Reset => (Service::Reset, json!({"scope": 0})),
        SimCommand::State => (Service::GetState, json!({})),
    };
    let reply = call_service(&mut s, service, service.ros_name(), &request, timeout)?;
    let (code, message) = result_of(&reply).unwrap_or((0, ""));
    let ok = code == u64::from(result::OK)
        || (code == u64::from(result::ALREADY_IN_TARGET_STATE) && service == Service::SetState);
    if !ok {
        note!("error: refused (result {code}): {message}");
        return Ok(Outcome::Refused);
    }
    match args.command {
        SimCommand::State => {
            let st = reply["state"]["state"].as_u64().unwrap_or(u64::MAX);
            say!("{}", state_name(st));
        }
        SimCommand::Pause => note!("paused"),
        SimCommand::Play => note!("playing"),
        SimCommand::Step { steps } => note!("stepped {steps}"),
        SimCommand::Reset => note!("reset"),
    }
    Ok(Outcome::Success)
}
