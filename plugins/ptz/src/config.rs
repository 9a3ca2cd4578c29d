//! Reading the `<plugin>` element of a pan-tilt-zoom head, and the PID it uses.

use sim_plugin_api::PluginError;
use sim_plugin_api::sdf::{Element, SdfError};
use simcore_plugin_common::gz::{JOINT_NAME, first_named, required_text};

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

/// What `<zoom_min>` and `<zoom_max>` must be, in messages.
const FOV: &str = "within (0, pi) (a horizontal field of view in radians)";

impl PtzConfig {
    /// Reads the `<plugin>` element `root` (its messages name the system,
    /// `cam: PanTiltZoom`).
    pub fn read(root: &Element<'_, '_>) -> Result<PtzConfig, PluginError> {
        let num = |tag: &str, default: f64| root.get_or(tag, default);
        let positive = |tag: &str, default: f64| root.param::<f64>(tag).positive().or(default);
        let pi = std::f64::consts::PI;
        let zoom_limits = limits(root, "zoom_min", "zoom_max", (0.1, 2.0))?;
        let (zoom_min, zoom_max) = zoom_limits;
        if zoom_min <= 0.0 || zoom_max >= pi {
            let tag = if zoom_min <= 0.0 {
                "zoom_min"
            } else {
                "zoom_max"
            };
            let e = root.child(tag).unwrap_or(*root);
            return Err(e.error(FOV, e.text()).into());
        }
        let initial_zoom = root
            .param::<f64>("initial_zoom")
            .check(format!("within [{zoom_min}, {zoom_max}]"), move |z| {
                (zoom_min..=zoom_max).contains(z)
            })
            .get()?;
        Ok(PtzConfig {
            pan_joint: joint(root, "pan_joint")?,
            tilt_joint: joint(root, "tilt_joint")?,
            camera: first_named(root, "camera").map(|e| e.text().to_string()),
            pan_limits: limits(root, "pan_min", "pan_max", (-pi, pi))?,
            tilt_limits: limits(root, "tilt_min", "tilt_max", (-pi / 2.0, pi / 2.0))?,
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

/// The joint named in `<tag>` (required, not empty).
fn joint(root: &Element<'_, '_>, tag: &str) -> Result<String, SdfError> {
    Ok(required_text(root, tag, JOINT_NAME)?.text().to_string())
}

/// The limits in `<lo>` and `<hi>` (`default` for those absent); `<hi>` must not be below
/// `<lo>`.
fn limits(
    root: &Element<'_, '_>,
    lo: &str,
    hi: &str,
    default: (f64, f64),
) -> Result<(f64, f64), SdfError> {
    let (a, b) = (root.get_or(lo, default.0)?, root.get_or(hi, default.1)?);
    if a > b {
        return Err(match root.child(hi) {
            Some(e) => e.error(format!("at least <{lo}> ({a})"), e.text()),
            // The default maximum is below the written minimum.
            None => {
                let e = root.child(lo).unwrap_or(*root);
                e.error(format!("at most <{hi}> ({b})"), e.text())
            }
        });
    }
    Ok((a, b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::sdf::{Origin, SdfDocument};

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

    fn parse(text: &str) -> Result<PtzConfig, PluginError> {
        let doc = SdfDocument::parse(text, Origin::new("cam: PanTiltZoom"))?;
        PtzConfig::read(&doc.root())
    }

    const JOINTS: &str = "<pan_joint>p</pan_joint><tilt_joint>t</tilt_joint>";

    #[test]
    fn parse_defaults_and_errors() {
        let c = parse("<plugin><pan_joint>pan</pan_joint><tilt_joint>tilt</tilt_joint></plugin>")
            .unwrap();
        assert_eq!(c.camera, None);
        assert_eq!(c.zoom_limits, (0.1, 2.0));
        assert_eq!(c.gains, (5.0, 0.0, 0.0, 1.0));
        let msg = |inner: &str| {
            parse(&format!("<plugin>{inner}</plugin>"))
                .unwrap_err()
                .message
                .to_string()
        };
        assert_eq!(
            msg("<pan_joint>pan</pan_joint>"),
            "cam: PanTiltZoom: <tilt_joint> is required (a joint name)"
        );
        assert_eq!(
            msg("<pan_joint> </pan_joint><tilt_joint>t</tilt_joint>"),
            "cam: PanTiltZoom: <pan_joint> must be a joint name, found \"\""
        );
        assert_eq!(
            msg(&format!("{JOINTS}<pan_min>1</pan_min><pan_max>0</pan_max>")),
            "cam: PanTiltZoom: <pan_max> must be at least <pan_min> (1), found \"0\""
        );
        assert_eq!(
            msg(&format!("{JOINTS}<tilt_min>2</tilt_min>")),
            "cam: PanTiltZoom: <tilt_min> must be at most <tilt_max> (1.5707963267948966), found \"2\""
        );
        assert_eq!(
            msg(&format!("{JOINTS}<zoom_max>3.2</zoom_max>")),
            "cam: PanTiltZoom: <zoom_max> must be within (0, pi) (a horizontal field of view in radians), found \"3.2\""
        );
        assert_eq!(
            msg(&format!("{JOINTS}<zoom_min>0</zoom_min>")),
            "cam: PanTiltZoom: <zoom_min> must be within (0, pi) (a horizontal field of view in radians), found \"0\""
        );
        assert_eq!(
            msg(&format!("{JOINTS}<initial_zoom>3</initial_zoom>")),
            "cam: PanTiltZoom: <initial_zoom> must be within [0.1, 2], found \"3\""
        );
        assert_eq!(
            msg(&format!("{JOINTS}<max_torque>0</max_torque>")),
            "cam: PanTiltZoom: <max_torque> must be positive, found \"0\""
        );
        assert_eq!(
            parse("").unwrap_err().message.as_str(),
            "cam: PanTiltZoom: <pan_joint> is required (a joint name)"
        );
    }

    #[test]
    fn everything_set() {
        let c = parse(&format!(
            "<plugin>{JOINTS}<camera>l::cam</camera><pan_min>-1</pan_min><pan_max>1</pan_max>\
             <zoom_min>0.2</zoom_min><zoom_max>1</zoom_max><initial_zoom>0.5</initial_zoom>\
             <p_gain>2</p_gain><i_gain>0.1</i_gain><d_gain>0.01</d_gain><i_max>-3</i_max>\
             <max_velocity>1</max_velocity><state_publish_frequency>5</state_publish_frequency></plugin>"
        ))
        .unwrap();
        assert_eq!(c.camera.as_deref(), Some("l::cam"));
        assert_eq!(c.pan_limits, (-1.0, 1.0));
        assert_eq!(c.zoom_limits, (0.2, 1.0));
        assert_eq!(c.initial_zoom, Some(0.5));
        assert_eq!(c.gains, (2.0, 0.1, 0.01, 3.0));
        assert_eq!((c.max_velocity, c.publish_frequency), (1.0, 5.0));
    }
}
