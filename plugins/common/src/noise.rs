//! The SDF `<noise>` element and per-component noise streams.
//!
//! [`Reader::noise`] reads one `<noise type="...">` element (SDF defaults: type `none`, every
//! number 0) with the API's reader
//! ([`Element::noise_params`](sim_plugin_api::sdf::Element::noise_params)); [`NoiseChannel`] applies it to one measured component with its own generator,
//! seeded from the sensor's seed and a stream number fixed per component, so the same seed
//! always gives the same noise whatever other sensors do.

use crate::sdf::{Reader, child, descend, element_path};
use roxmltree::Node;
use sim_plugin_api::{
    PluginError,
    noise::{GaussianNoise, NoiseKind, NoiseParams, stream_seed},
    sdf::{Origin, SdfDocument},
};

impl Reader<'_> {
    /// The `<noise>` child of the element at `path` below `root` (usually the `<sensor>`
    /// element): `reader.noise_at(sensor, &["altimeter", "vertical_position"])` reads
    /// `<altimeter><vertical_position><noise>`. Absent: no noise.
    pub fn noise_at(&self, root: Node<'_, '_>, path: &[&str]) -> Result<NoiseParams, PluginError> {
        match descend(root, path).and_then(|e| child(e, "noise")) {
            Some(noise) => self.noise(noise, &format!("{}<noise>", element_path(path))),
            None => Ok(NoiseParams::default()),
        }
    }

    /// One `<noise>` element; `path` names it in messages (`<altimeter><vertical_position><noise>`).
    /// Read by [`Element::noise_params`](sim_plugin_api::sdf::Element::noise_params), whose
    /// rules and messages it has.
    pub fn noise(&self, noise: Node<'_, '_>, path: &str) -> Result<NoiseParams, PluginError> {
        let text = noise
            .document()
            .input_text()
            .get(noise.range())
            .unwrap_or_default();
        let element = SdfDocument::parse(text, Origin::new(self.sensor()))?.nested(path);
        Ok(element.root().noise_params()?)
    }
}

/// The variance a sensor reports for a noise model: `stddev²` for Gaussian noise (the bias is
/// left out, as Gazebo does for its covariances), 0 without noise.
pub fn gaussian_variance(params: &NoiseParams) -> f64 {
    match params.kind {
        NoiseKind::Gaussian => params.stddev * params.stddev,
        NoiseKind::None => 0.0,
    }
}

/// The noise of one measured component: a [`GaussianNoise`] stream, or nothing when the
/// parameters cannot change a value (then [`NoiseChannel::apply`] returns its input and draws
/// no random numbers). The stream is boxed, so a channel without noise is one word and a
/// sensor with several channels stays small.
#[derive(Clone, Debug)]
pub struct NoiseChannel(Option<Box<GaussianNoise>>);

impl NoiseChannel {
    /// The channel for `params`, seeded with stream `stream` of the sensor's seed
    /// (`stream_seed(sensor_seed, stream)`).
    pub fn new(params: NoiseParams, sensor_seed: u64, stream: u64) -> Self {
        NoiseChannel(
            params
                .is_active()
                .then(|| Box::new(GaussianNoise::new(params, stream_seed(sensor_seed, stream)))),
        )
    }

    /// A channel that adds nothing.
    pub const NONE: NoiseChannel = NoiseChannel(None);

    /// Whether it can change a value.
    pub fn is_active(&self) -> bool {
        self.0.is_some()
    }

    /// `x` with noise; `dt` (s) is the time since this channel's previous sample (0 on the
    /// first) and drives the dynamic bias.
    #[inline]
    pub fn apply(&mut self, x: f64, dt: f64) -> f64 {
        match &mut self.0 {
            Some(n) => n.apply(x, dt),
            None => x,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_sensor_sdf;
    use sim_plugin_api::ErrorCode;

    const NAME: &str = "robot::base::s";

    fn read(body: &str, path: &[&str]) -> Result<NoiseParams, PluginError> {
        let text = format!("<sensor name=\"s\" type=\"x\">{body}</sensor>");
        let doc = parse_sensor_sdf(&text, NAME)?.unwrap();
        Reader::new(NAME).noise_at(doc.root_element(), path)
    }

    fn error(body: &str, path: &[&str]) -> String {
        let e = read(body, path).expect_err("expected a configuration error");
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert!(e.message.starts_with(NAME), "{e}");
        e.message.to_string()
    }

    #[test]
    fn full_and_absent() {
        let p = read(
            r#"<a><b><noise type="gaussian"><mean>0.1</mean><stddev> 2e-4 </stddev>
               <bias_mean>-7.5e-6</bias_mean><bias_stddev>8e-7</bias_stddev>
               <dynamic_bias_stddev>1e-5</dynamic_bias_stddev>
               <dynamic_bias_correlation_time>400</dynamic_bias_correlation_time>
               <precision>0.001</precision></noise></b></a>"#,
            &["a", "b"],
        )
        .unwrap();
        assert_eq!(
            p,
            NoiseParams {
                kind: NoiseKind::Gaussian,
                mean: 0.1,
                stddev: 2e-4,
                bias_mean: -7.5e-6,
                bias_stddev: 8e-7,
                dynamic_bias_stddev: 1e-5,
                dynamic_bias_correlation_time: 400.0,
                precision: 0.001,
            }
        );
        assert_eq!(read("<a/>", &["a", "b"]).unwrap(), NoiseParams::default());
        assert_eq!(read("", &["a"]).unwrap(), NoiseParams::default());
        let q = read(
            r#"<a><noise type="Gaussian_Quantized"><stddev>1</stddev></noise></a>"#,
            &["a"],
        )
        .unwrap();
        assert_eq!(q.kind, NoiseKind::Gaussian);
        let t = read(
            r#"<a><noise><type>gaussian</type><stddev>1</stddev></noise></a>"#,
            &["a"],
        )
        .unwrap();
        assert_eq!(t.kind, NoiseKind::Gaussian);
        let n = read(r#"<a><noise><stddev>1</stddev></noise></a>"#, &["a"]).unwrap();
        assert_eq!(n.kind, NoiseKind::None);
    }

    #[test]
    fn errors_name_element_and_text() {
        let m = error(
            r#"<a><b><noise type="gaussian"><stddev>abc</stddev></noise></b></a>"#,
            &["a", "b"],
        );
        assert_eq!(
            m,
            "robot::base::s: <a><b><noise><stddev> must be a finite number, found \"abc\""
        );
        let m = error(r#"<a><noise type="uniform"/></a>"#, &["a"]);
        assert!(
            m.contains("<a><noise> type") && m.contains("\"uniform\""),
            "{m}"
        );
        for field in [
            "stddev",
            "bias_stddev",
            "dynamic_bias_stddev",
            "dynamic_bias_correlation_time",
            "precision",
        ] {
            let m = error(
                &format!(r#"<a><noise type="gaussian"><{field}>-0.5</{field}></noise></a>"#),
                &["a"],
            );
            assert!(
                m.contains(&format!("<a><noise><{field}> must be zero or positive"))
                    && m.contains("\"-0.5\""),
                "{m}"
            );
        }
        read(
            r#"<a><noise type="gaussian"><mean>-1</mean><bias_mean>-1</bias_mean></noise></a>"#,
            &["a"],
        )
        .unwrap();
    }

    #[test]
    fn channels() {
        let g = NoiseParams {
            kind: NoiseKind::Gaussian,
            stddev: 0.5,
            ..Default::default()
        };
        assert_eq!(gaussian_variance(&g), 0.25);
        assert_eq!(gaussian_variance(&NoiseParams::default()), 0.0);
        let mut none = NoiseChannel::new(NoiseParams::default(), 1, 0);
        assert!(!none.is_active());
        assert_eq!(none.apply(3.0, 0.1), 3.0);
        assert!(!NoiseChannel::NONE.is_active());
        // Same seed and stream: the same stream; another stream number: another stream.
        let mut a = NoiseChannel::new(g, 9, 2);
        let mut b = NoiseChannel::new(g, 9, 2);
        let mut c = NoiseChannel::new(g, 9, 3);
        let va: Vec<f64> = (0..5).map(|_| a.apply(0.0, 0.0)).collect();
        let vb: Vec<f64> = (0..5).map(|_| b.apply(0.0, 0.0)).collect();
        let vc: Vec<f64> = (0..5).map(|_| c.apply(0.0, 0.0)).collect();
        assert_eq!(va, vb);
        assert_ne!(va, vc);
        // It is GaussianNoise seeded with stream_seed(seed, stream).
        let mut raw = GaussianNoise::new(g, stream_seed(9, 2));
        assert_eq!(va[0], raw.apply(0.0, 0.0));
    }
}
