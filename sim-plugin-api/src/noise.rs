//! The Gazebo sensor noise model (`<noise type="gaussian">`), seeded per stream.
//!
//! Semantics follow gz-sensors' `GaussianNoiseModel`: a constant bias drawn once from
//! N(bias_mean, bias_stddev) with its sign flipped with probability 1/2, white noise
//! N(mean, stddev) per sample, an optional Gauss-Markov dynamic bias, and quantisation to
//! `precision`. Differences, on purpose: every stream has its own generator seeded from the
//! sensor's seed (Gazebo shares one process-wide generator, so its output depends on thread
//! scheduling), and `dt` is always honoured (Gazebo passes 0 for most sensors, which silently
//! disables the dynamic bias).
//!
//! [`NoiseParams`] (read from SDF by [`Element::noise`](crate::sdf::Element::noise)) and
//! [`stream_seed`] are always here; `GaussianNoise`, which draws the noise, needs the
//! `noise` feature (it brings the random number crates).

#[cfg(feature = "noise")]
use rand_distr::{Distribution, Normal, StandardNormal};
#[cfg(feature = "noise")]
use rand_xoshiro::Xoshiro256PlusPlus;
#[cfg(feature = "noise")]
use rand_xoshiro::rand_core::{Rng, SeedableRng};

/// `<noise type>`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum NoiseKind {
    /// No noise.
    #[default]
    None,
    /// Gaussian noise (`gaussian`, and `gaussian_quantized`, which Gazebo treats the same).
    Gaussian,
}

/// Parameters of one `<noise>` element (SDF defaults: all zero).
#[derive(Copy, Clone, Debug, Default, PartialEq)]
pub struct NoiseParams {
    /// Noise type.
    pub kind: NoiseKind,
    /// Mean of the white noise.
    pub mean: f64,
    /// Standard deviation of the white noise.
    pub stddev: f64,
    /// Mean of the constant bias.
    pub bias_mean: f64,
    /// Standard deviation of the constant bias.
    pub bias_stddev: f64,
    /// Standard deviation of the dynamic bias.
    pub dynamic_bias_stddev: f64,
    /// Correlation time of the dynamic bias, s.
    pub dynamic_bias_correlation_time: f64,
    /// Quantisation step (0: none).
    pub precision: f64,
}

impl NoiseParams {
    /// Whether applying this noise can change a value.
    pub fn is_active(&self) -> bool {
        self.kind != NoiseKind::None
            && (self.mean != 0.0
                || self.stddev != 0.0
                || self.bias_mean != 0.0
                || self.bias_stddev != 0.0
                || self.dynamic_bias_stddev != 0.0
                || self.precision != 0.0)
    }
}

/// Derives the seed of stream `stream` of a sensor whose seed is `seed` (SplitMix64 mix).
pub fn stream_seed(seed: u64, stream: u64) -> u64 {
    let mut z = seed
        ^ stream
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(0x632B_E59B_D9B4_E019);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(feature = "noise")]
/// One noise stream: parameters, the drawn bias and its own generator.
#[derive(Clone, Debug)]
pub struct GaussianNoise {
    params: NoiseParams,
    bias: f64,
    rng: Xoshiro256PlusPlus,
}

#[cfg(feature = "noise")]
impl GaussianNoise {
    /// A stream with `params`, seeded with `seed`; draws the constant bias.
    pub fn new(params: NoiseParams, seed: u64) -> Self {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let mut bias = params.bias_mean;
        if params.kind != NoiseKind::None {
            if params.bias_stddev > 0.0 {
                let z: f64 = StandardNormal.sample(&mut rng);
                bias = params.bias_mean + params.bias_stddev * z;
            }
            if uniform(&mut rng) < 0.5 {
                bias = -bias;
            }
        }
        GaussianNoise { params, bias, rng }
    }

    /// The parameters.
    pub fn params(&self) -> &NoiseParams {
        &self.params
    }

    /// The current bias (constant plus dynamic).
    pub fn bias(&self) -> f64 {
        self.bias
    }

    /// Applies the noise to `x`; `dt` (s) is the time since the previous sample of this stream
    /// (0 on the first) and drives the dynamic bias.
    pub fn apply(&mut self, x: f64, dt: f64) -> f64 {
        let p = self.params;
        if p.kind == NoiseKind::None {
            return x;
        }
        let white = if p.stddev > 0.0 {
            // Normal::new only fails for a non-finite or negative deviation, excluded above.
            Normal::new(p.mean, p.stddev)
                .map(|n| n.sample(&mut self.rng))
                .unwrap_or(p.mean)
        } else {
            p.mean
        };
        let tau = p.dynamic_bias_correlation_time;
        if p.dynamic_bias_stddev > 0.0 && tau > 0.0 && dt > 0.0 {
            let sigma_b = p.dynamic_bias_stddev;
            let sigma_d = (-sigma_b * sigma_b * tau / 2.0 * (-2.0 * dt / tau).exp_m1()).sqrt();
            let phi = (-dt / tau).exp();
            let z: f64 = StandardNormal.sample(&mut self.rng);
            self.bias = phi * self.bias + sigma_d * z;
        }
        let mut y = x + self.bias + white;
        if p.precision != 0.0 {
            y = (y / p.precision).round() * p.precision;
        }
        y
    }
}

#[cfg(feature = "noise")]
fn uniform(rng: &mut Xoshiro256PlusPlus) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

#[cfg(all(test, feature = "noise"))]
mod tests {
    use super::*;

    fn gaussian(mean: f64, stddev: f64) -> NoiseParams {
        NoiseParams {
            kind: NoiseKind::Gaussian,
            mean,
            stddev,
            ..Default::default()
        }
    }

    #[test]
    fn white_noise_statistics() {
        let mut n = GaussianNoise::new(gaussian(0.5, 0.2), 7);
        let samples: Vec<f64> = (0..200_000).map(|_| n.apply(1.0, 0.001)).collect();
        let m = samples.iter().sum::<f64>() / samples.len() as f64;
        let v = samples.iter().map(|s| (s - m) * (s - m)).sum::<f64>() / samples.len() as f64;
        assert!((m - 1.5).abs() < 0.005, "mean {m}");
        assert!((v.sqrt() - 0.2).abs() < 0.005, "stddev {}", v.sqrt());
    }

    #[test]
    fn same_seed_same_stream_and_none_is_identity() {
        let mut a = GaussianNoise::new(gaussian(0.0, 1.0), 3);
        let mut b = GaussianNoise::new(gaussian(0.0, 1.0), 3);
        let mut c = GaussianNoise::new(gaussian(0.0, 1.0), 4);
        let va: Vec<f64> = (0..10).map(|_| a.apply(0.0, 0.0)).collect();
        let vb: Vec<f64> = (0..10).map(|_| b.apply(0.0, 0.0)).collect();
        let vc: Vec<f64> = (0..10).map(|_| c.apply(0.0, 0.0)).collect();
        assert_eq!(va, vb);
        assert_ne!(va, vc);
        let mut none = GaussianNoise::new(
            NoiseParams {
                stddev: 5.0,
                ..Default::default()
            },
            1,
        );
        assert_eq!(none.apply(2.0, 1.0), 2.0);
    }

    #[test]
    fn bias_sign_and_precision() {
        let p = NoiseParams {
            kind: NoiseKind::Gaussian,
            bias_mean: 0.3,
            ..Default::default()
        };
        let biases: Vec<f64> = (0..200).map(|s| GaussianNoise::new(p, s).bias()).collect();
        assert!(biases.iter().all(|b| b.abs() == 0.3));
        assert!(biases.iter().any(|b| *b > 0.0) && biases.iter().any(|b| *b < 0.0));
        let q = NoiseParams {
            kind: NoiseKind::Gaussian,
            precision: 0.25,
            ..Default::default()
        };
        assert_eq!(GaussianNoise::new(q, 0).apply(1.1, 0.0), 1.0);
    }

    #[test]
    fn dynamic_bias_random_walk_stationary_variance() {
        let p = NoiseParams {
            kind: NoiseKind::Gaussian,
            dynamic_bias_stddev: 0.1,
            dynamic_bias_correlation_time: 1.0,
            ..Default::default()
        };
        let mut n = GaussianNoise::new(p, 11);
        let mut values = Vec::new();
        for i in 0..400_000 {
            let y = n.apply(0.0, 0.01);
            if i > 1000 && i % 50 == 0 {
                values.push(y);
            }
        }
        let m = values.iter().sum::<f64>() / values.len() as f64;
        let sd = (values.iter().map(|v| (v - m).powi(2)).sum::<f64>() / values.len() as f64).sqrt();
        // Gazebo's discretisation has the stationary deviation sigma_b * sqrt(tau / 2).
        let expected = 0.1 * (0.5f64).sqrt();
        assert!(
            (sd - expected).abs() < 0.01,
            "stationary stddev {sd}, expected {expected}"
        );
    }
}
