//! Reading the `<plugin>` element of a pan-tilt-zoom head, and the PID it uses.

use sim_plugin_api::PluginError;
use simcore_plugin_common::{Reader, parse_plugin_sdf, text};

/// A PID controller with an integral clamp and an output clamp.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pid {
    /// Proportional gain.
    pub p: f64,
    /// Integral gain.
    pub i: f64,
    /// Derivative gain.
    pub d: f64,
    /// The integral term is kept within +-this (in output units).
    pub i_max: f64,
    /// The output is kept within +-this.
    pub out_max: f64,
    integral: f64,
    last_error: Option<f64>,
}

impl Pid {
    /// A controller at rest.
    pub fn new(p: f64, i: f64, d: f64, i_max: f64, out_max: f64) -> Self {
        Pid {
            p,
            i,
            d,
            i_max,
            out_max,
            integral: 0.0,
            last_error: None,
        }
    }

    /// One update with `error = target - measured` over `dt` s; returns the clamped output.
    /// The integral only grows while the output is not saturated (no wind-up during long
    /// moves at full speed).
    pub fn update(&mut self, error: f64, dt: f64) -> f64 {
        let derivative = match self.last_error {
            Some(last) if dt > 0.0 => (error - last) / dt,
            _ => 0.0,
        };
        self.last_error = Some(error);
        let integral = (self.integral + self.i * error * dt).clamp(-self.i_max, self.i_max);
        let raw = self.p * error + integral + self.d * derivative;
        if raw.abs() <= self.out_max {
            self.integral = integral;
        }
        (self.p * error + self.integral + self.d * derivative).clamp(-self.out_max, self.out_max)
    }

    /// Forgets the integral and the last error.
    pub fn reset(&mut self) {
        self.integral = 0.0;
        self.last_error = None;
    }
}

/// The parsed configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct PtzConfig {
    /// `<pan_joint>` (required).
    pub pan_joint: String,
    /// `<tilt_joint>` (required).
    pub tilt_joint: String,
    /// `<camera>`: the camera sensor zoom acts on, scoped below the model (`link::sensor`);
    /// none: zoom is only reported.
    pub camera: Option<String>,
    /// `<pan_min>`, `<pan_max>`, rad (default -pi, pi).
    pub pan_limits: (f64, f64),
    /// `<tilt_min>`, `<tilt_max>`, rad (default -pi/2, pi/2).
    pub tilt_limits: (f64, f64),
    /// `<zoom_min>`, `<zoom_max>`: horizontal field of view, rad (default 0.1, 2.0).
    pub zoom_limits: (f64, f64),
    /// `<initial_zoom>`, rad (default: none; the camera keeps its own until commanded).
    pub initial_zoom: Option<f64>,
    /// `<p_gain>`, `<i_gain>`, `<d_gain>` (default 5, 0, 0), `<i_max>` (default 1 rad/s).
    pub gains: (f64, f64, f64, f64),
    /// `<max_velocity>`, rad/s (default 2): the PID output clamp.
    pub max_velocity: f64,
    /// `<max_torque>`, N m (default 10): the joint motors' limit.
    pub max_torque: f64,
    /// `<state_publish_frequency>`, Hz (default 20; 0 or negative: every step).
    pub publish_frequency: f64,
}

impl PtzConfig {
    /// Parses the `<plugin>` element given as XML text; `model` names it in errors.
    pub fn parse(plugin_sdf: &str, model: &str) -> Result<PtzConfig, PluginError> {
        let who = format!("{model}: PanTiltZoom");
        let need = |what: &str| PluginError::config(format!("{who}: needs <{what}>"));
        let Some(doc) = parse_plugin_sdf(plugin_sdf, &who)? else {
            return Err(need("pan_joint"));
        };
        let root = doc.root_element();
        let r = Reader::new(&who);
        let name = |tag: &str| {
            text(root, tag)
                .filter(|t| !t.is_empty())
                .map(str::to_string)
        };
        let num = |tag: &str, default: f64| r.number(root, &[tag]).map(|v| v.unwrap_or(default));
        let limits = |lo: &str, hi: &str, d: (f64, f64)| -> Result<(f64, f64), PluginError> {
            let (a, b) = (num(lo, d.0)?, num(hi, d.1)?);
            if a > b {
                return Err(r.error(
                    &format!("<{hi}>"),
                    &format!("at least <{lo}> ({a})"),
                    &b.to_string(),
                ));
            }
            Ok((a, b))
        };
        let positive = |tag: &str, default: f64| -> Result<f64, PluginError> {
            let v = num(tag, default)?;
            if v <= 0.0 {
                return Err(r.error(&format!("<{tag}>"), "positive", &v.to_string()));
            }
            Ok(v)
        };
        let pi = std::f64::consts::PI;
        let zoom_limits = limits("zoom_min", "zoom_max", (0.1, 2.0))?;
        if zoom_limits.0 <= 0.0 || zoom_limits.1 >= pi {
            return Err(r.error(
                "<zoom_min>/<zoom_max>",
                "within (0, pi) (a horizontal field of view in radians)",
                &format!("{} {}", zoom_limits.0, zoom_limits.1),
            ));
        }
        let initial_zoom = r.number(root, &["initial_zoom"])?;
        if let Some(z) = initial_zoom
            && !(zoom_limits.0..=zoom_limits.1).contains(&z)
        {
            return Err(r.error(
                "<initial_zoom>",
                &format!("within [{}, {}]", zoom_limits.0, zoom_limits.1),
                &z.to_string(),
            ));
        }
        Ok(PtzConfig {
            pan_joint: name("pan_joint").ok_or_else(|| need("pan_joint"))?,
            tilt_joint: name("tilt_joint").ok_or_else(|| need("tilt_joint"))?,
            camera: name("camera"),
            pan_limits: limits("pan_min", "pan_max", (-pi, pi))?,
            tilt_limits: limits("tilt_min", "tilt_max", (-pi / 2.0, pi / 2.0))?,
            zoom_limits,
            initial_zoom,
            gains: (
                num("p_gain", 5.0)?,
                num("i_gain", 0.0)?,
                num("d_gain", 0.0)?,
                num("i_max", 1.0)?.abs(),
            ),
            max_velocity: positive("max_velocity", 2.0)?,
            max_torque: positive("max_torque", 10.0)?,
            publish_frequency: num("state_publish_frequency", 20.0)?,
        })
    }

    /// A PID with the configured gains and clamps.
    pub fn pid(&self) -> Pid {
        let (p, i, d, i_max) = self.gains;
        Pid::new(p, i, d, i_max, self.max_velocity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pid_terms_and_clamps() {
        let mut pid = Pid::new(2.0, 1.0, 0.5, 0.1, 3.0);
        // p: 2 * 1; i: 1 * 1 * 0.01; d: first update has none.
        assert!((pid.update(1.0, 0.01) - 2.01).abs() < 1e-12);
        // d: 0.5 * (0.5 - 1) / 0.01 = -25; the output is clamped.
        assert_eq!(pid.update(0.5, 0.01), -3.0);
        for _ in 0..1000 {
            pid.update(1.0, 0.01);
        }
        assert!(
            (pid.update(1.0, 0.01) - 2.1).abs() < 1e-12,
            "integral clamped at 0.1"
        );
        pid.reset();
        assert!((pid.update(1.0, 0.01) - 2.01).abs() < 1e-12);
    }

    #[test]
    fn parse_defaults_and_errors() {
        let c = PtzConfig::parse(
            "<plugin><pan_joint>pan</pan_joint><tilt_joint>tilt</tilt_joint></plugin>",
            "cam",
        )
        .unwrap();
        assert_eq!(c.camera, None);
        assert_eq!(c.zoom_limits, (0.1, 2.0));
        assert_eq!(c.gains, (5.0, 0.0, 0.0, 1.0));
        let e = PtzConfig::parse("<plugin><pan_joint>pan</pan_joint></plugin>", "cam").unwrap_err();
        assert_eq!(e.message.as_str(), "cam: PanTiltZoom: needs <tilt_joint>");
        let e = PtzConfig::parse(
            "<plugin><pan_joint>p</pan_joint><tilt_joint>t</tilt_joint><pan_min>1</pan_min><pan_max>0</pan_max></plugin>",
            "cam",
        )
        .unwrap_err();
        assert!(
            e.message
                .contains("<pan_max> must be at least <pan_min> (1)"),
            "{}",
            e.message
        );
        let e = PtzConfig::parse(
            "<plugin><pan_joint>p</pan_joint><tilt_joint>t</tilt_joint><initial_zoom>3</initial_zoom></plugin>",
            "cam",
        )
        .unwrap_err();
        assert!(
            e.message.contains("<initial_zoom> must be within [0.1, 2]"),
            "{}",
            e.message
        );
    }
}
