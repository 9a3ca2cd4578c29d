//! `simcore render`: step a world to a sim time as `run` does (plugins and systems, no
//! transport, as fast as possible), then draw it from a viewpoint with the camera plugin,
//! optionally with its lidar rays and camera frusta drawn on top, into a PNG file (see
//! `sim_core::render`).

use super::report::plugin_problems;
use super::settings::{load_options, registry, settings};
use super::{Failure, Outcome, PathArgs, ResourceArgs};
use clap::Args;
use sim_core::render::{
    LidarTap, MAX_SIDE, View, Viewer, draw_frusta, draw_rays, frame_world, scene_bounds,
};
use sim_core::runner::{LoadError, PluginPolicy, RunLimit, SimOptions, Simulation};
use sim_plugin_api::{SimTime, Vec3};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

/// The latest sim time a world is stepped to, seconds.
pub const MAX_TIME: f64 = 3600.0;

/// `simcore render`.
#[derive(Debug, Args, Clone)]
pub struct RenderArgs {
    /// The world: an SDF file or a TOML manifest.
    #[arg(value_name = "WORLD")]
    pub world: PathBuf,
    /// The sim time to draw the world at, in seconds (0: as loaded; at most 3600).
    #[arg(
        long,
        value_name = "SECONDS",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    pub time: f64,
    /// Where the camera is, `X,Y,Z` in the world frame (with --look-at; default: a viewpoint
    /// that frames the whole world, looking slightly down).
    #[arg(long, value_name = "X,Y,Z", requires = "look_at", value_parser = parse_point, allow_hyphen_values = true)]
    pub from: Option<[f64; 3]>,
    /// The point the camera looks at, `X,Y,Z` (with --from).
    #[arg(long = "look-at", value_name = "X,Y,Z", requires = "from", value_parser = parse_point, allow_hyphen_values = true)]
    pub look_at: Option<[f64; 3]>,
    /// The picture's size, `WIDTHxHEIGHT` pixels.
    #[arg(long, value_name = "WxH", default_value = "960x540", value_parser = parse_size)]
    pub size: (u32, u32),
    /// Draw each lidar's rays (its latest scan) over the picture.
    #[arg(long)]
    pub rays: bool,
    /// Draw each camera's frustum over the picture.
    #[arg(long)]
    pub frusta: bool,
    /// Publish a message while stepping to the picture's time, as `simcore run --pub`:
    /// `TOPIC=JSON@SECONDS` (repeatable), so that the picture shows the scene of a run given
    /// the same messages (runs are deterministic).
    #[arg(long = "pub", value_name = "TOPIC=JSON@SECONDS")]
    pub publish: Vec<String>,
    /// The PNG file written.
    #[arg(short, long, value_name = "FILE")]
    pub output: PathBuf,
    /// Run seed for every noise stream (default: the manifest's, else 0).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Plugin search path and manifest.
    #[command(flatten)]
    pub paths: PathArgs,
    /// Resource search path.
    #[command(flatten)]
    pub resources: ResourceArgs,
}

/// `X,Y,Z`: three finite numbers.
fn parse_point(s: &str) -> Result<[f64; 3], String> {
    let v: Vec<f64> = s
        .split(',')
        .map(|p| p.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("expected X,Y,Z (three numbers), got `{s}`"))?;
    match v[..] {
        [x, y, z] if v.iter().all(|c| c.is_finite()) => Ok([x, y, z]),
        _ => Err(format!("expected X,Y,Z (three finite numbers), got `{s}`")),
    }
}

fn point([x, y, z]: [f64; 3]) -> Vec3 {
    Vec3::new(x, y, z)
}

/// `WxH`: two whole numbers from 1 to [`MAX_SIDE`].
fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let bad = || format!("expected WIDTHxHEIGHT, each from 1 to {MAX_SIDE} pixels, got `{s}`");
    let (w, h) = s.split_once(['x', 'X']).ok_or_else(bad)?;
    let side = |t: &str| {
        t.trim()
            .parse::<u32>()
            .ok()
            .filter(|v| (1..=MAX_SIDE).contains(v))
            .ok_or_else(bad)
    };
    Ok((side(w)?, side(h)?))
}

/// Draws the world as `args` say into the PNG file.
pub fn render(args: RenderArgs) -> Result<Outcome, Failure> {
    if !(args.time.is_finite() && (0.0..=MAX_TIME).contains(&args.time)) {
        return Err(Failure::Error(format!(
            "--time must be a number of seconds from 0 to {MAX_TIME}, got {}",
            args.time
        )));
    }
    let (width, height) = args.size;
    let limits = args.resources.limits();
    let pixels = u64::from(width) * u64::from(height);
    if pixels > limits.max_camera_pixels {
        return Err(Failure::Error(format!(
            "--size {width}x{height} is {pixels} pixels, more than the camera limit of {} \
             (raise it with --max-camera-pixels)",
            limits.max_camera_pixels
        )));
    }
    let explicit = match (args.from, args.look_at) {
        (Some(f), Some(l)) => Some(
            View::looking_at(point(f), point(l), width, height)
                .map_err(|e| Failure::Error(format!("--from / --look-at: {e}")))?,
        ),
        _ => None,
    };
    let s = settings(Some(&args.world), &args.paths)?;
    let world = sim_core::sdf::load_with(&s.world, &load_options(&args.resources, &s.manifest))
        .map_err(|e| Failure::Report(format!("{}\n", e.render(None))))?;
    let options = SimOptions {
        seed: args.seed.or(s.manifest.seed).unwrap_or(0),
        threads: s
            .manifest
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
    };
    let policy = if s.manifest.strict {
        PluginPolicy::Strict
    } else {
        PluginPolicy::Gazebo
    };
    let mut sim =
        Simulation::with_policy(world, registry(&args.paths, &s.manifest), &options, policy)
            .map_err(|e| match e {
                LoadError::Plugins(problems) => {
                    Failure::Report(plugin_problems(&s.world, &problems))
                }
                e => Failure::Error(format!("{}: {e}", s.world.display())),
            })?;
    for p in sim.skipped() {
        note!("warning: {p}; the world runs without it");
    }
    let tap = args.rays.then(|| LidarTap::new(&mut sim));
    let stop = Arc::new(AtomicBool::new(false));
    super::run::install_ctrl_c(stop.clone(), None);
    let mut publications = Vec::new();
    for arg in &args.publish {
        publications.push(
            super::run::parse_injection(arg, false)
                .map_err(|e| Failure::Error(format!("--pub `{arg}`: {e}")))?,
        );
    }
    // Stable: same-time messages keep their command-line order.
    publications.sort_by_key(|p| p.at);
    let mut due = publications.into_iter().peekable();
    let mut publish = |sim: &mut Simulation| {
        while let Some(p) = due.next_if(|p| p.at <= sim.time()) {
            let mut message = sim_plugin_api::Message::new("", p.payload);
            message.header.stamp = sim.time();
            let topic = sim.bus_mut().intern(&p.name);
            sim.bus_mut().publish(topic, message);
        }
    };
    publish(&mut sim);
    let summary = sim.run(
        RunLimit::Duration(SimTime::from_secs_f64(args.time)),
        0.0,
        &stop,
        publish,
    );
    if summary.interrupted {
        return Err(Failure::Error(
            "interrupted before the picture's time".into(),
        ));
    }
    // The sensor pass at the picture's time: the lidars' scans are of this state.
    let late_failures = sim.update_sensors().len();
    let view = explicit.unwrap_or_else(|| frame_world(sim.physics(), width, height));
    let (extent, far) = match scene_bounds(sim.physics()) {
        Some(b) => {
            let size = (b.max - b.min).length();
            let reach = ((b.min + b.max).scale(0.5) - view.pose.position).length() + size;
            (size, (3.0 * reach).max(200.0))
        }
        None => (1.0, 200.0),
    };
    let mut viewer = Viewer::new(&sim, view, far).map_err(|e| Failure::Error(e.to_string()))?;
    let mut picture = viewer
        .take(&sim)
        .map_err(|e| Failure::Error(e.to_string()))?;
    let mut notes = Vec::new();
    if let Some(tap) = &tap {
        let n = draw_rays(&mut picture, &view, &tap.scans());
        notes.push(format!("{n} lidar rays"));
    }
    if args.frusta {
        let n = draw_frusta(&mut picture, &view, &sim, (0.25 * extent).max(0.5));
        notes.push(format!("{n} camera frusta"));
    }
    let bytes = picture
        .to_png()
        .map_err(|e| Failure::Error(format!("cannot encode the picture: {e}")))?;
    sim_core::files::write(&args.output, &bytes).map_err(|e| Failure::Error(e.to_string()))?;
    let p = view.pose.position;
    note!(
        "wrote {} ({width}x{height}, t = {:.3} s, from {:.2},{:.2},{:.2}{}{})",
        args.output.display(),
        sim.time().as_secs_f64(),
        p.x,
        p.y,
        p.z,
        if notes.is_empty() { "" } else { ", " },
        notes.join(", ")
    );
    Ok(if summary.failures.is_empty() && late_failures == 0 {
        Outcome::Success
    } else {
        Outcome::PluginDisabled
    })
}
