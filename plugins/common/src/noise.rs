//! The SDF `<noise>` element and per-component noise streams.
//!
//! The API's reader reads a `<noise type="...">` element
//! ([`Element::noise`](sim_plugin_api::sdf::Element::noise)); [`NoiseChannel`] applies it to one measured component with its own generator,
//! seeded from the sensor's seed and a stream number fixed per component, so the same seed
//! always gives the same noise whatever other sensors do.

use sim_plugin_api::noise::{GaussianNoise, NoiseKind, NoiseParams, stream_seed};

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
