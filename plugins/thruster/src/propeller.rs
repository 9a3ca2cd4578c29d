//! Fossen's propeller law as gz-sim's Thruster uses it, free of any engine.

/// A propeller in a fluid (gz-sim's names and defaults in the README).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Propeller {
    /// `<thrust_coefficient>` `Ct` (default 1).
    pub thrust_coefficient: f64,
    /// Whether `<thrust_coefficient>` was given: else it follows the advance ratio.
    pub coefficient_set: bool,
    /// `<fluid_density>` ρ, kg/m³ (default 1000).
    pub fluid_density: f64,
    /// `<propeller_diameter>` D, m (default 0.02).
    pub diameter: f64,
    /// `<wake_fraction>` (default 0.2).
    pub wake_fraction: f64,
    /// `<alpha_1>` (default 1).
    pub alpha1: f64,
    /// `<alpha_2>` (default 0).
    pub alpha2: f64,
}

impl Default for Propeller {
    fn default() -> Self {
        Propeller {
            thrust_coefficient: 1.0,
            coefficient_set: false,
            fluid_density: 1000.0,
            diameter: 0.02,
            wake_fraction: 0.2,
            alpha1: 1.0,
            alpha2: 0.0,
        }
    }
}

impl Propeller {
    /// The thrust of a propeller spinning at `omega` rad/s: `Ct D⁴ ω |ω| ρ`, N.
    pub fn thrust(&self, omega: f64) -> f64 {
        self.thrust_coefficient * self.diameter.powi(4) * omega.abs() * omega * self.fluid_density
    }

    /// The spin that gives `thrust`: `sqrt(|T / (ρ Ct D⁴)|)`, signed as `T Ct`.
    pub fn spin_for(&self, thrust: f64) -> f64 {
        let w = (thrust / (self.fluid_density * self.thrust_coefficient * self.diameter.powi(4)))
            .abs()
            .sqrt();
        if thrust * self.thrust_coefficient > 0.0 {
            w
        } else {
            -w
        }
    }

    /// Updates `Ct` from the advance ratio, `α1 + α2 (1 − w) v / (ω D)`, when it was not
    /// given and the propeller turns (as gz-sim does before each conversion).
    pub fn follow_advance(&mut self, speed: f64, omega: f64) {
        if !self.coefficient_set && omega.abs() > f64::EPSILON {
            self.thrust_coefficient = self.alpha1
                + self.alpha2 * ((1.0 - self.wake_fraction) * speed) / (omega * self.diameter);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thrust_and_spin_are_inverse() {
        let p = Propeller {
            thrust_coefficient: 0.004,
            diameter: 0.2,
            ..Default::default()
        };
        let w = 30.0;
        let t = p.thrust(w);
        assert!((t - 0.004 * 0.0016 * 900.0 * 1000.0).abs() < 1e-9);
        assert!((p.spin_for(t) - w).abs() < 1e-9);
        assert!((p.spin_for(-t) + w).abs() < 1e-9);
        assert_eq!(p.thrust(-w), -t);
        let mut q = Propeller { alpha2: 0.5, ..p };
        q.follow_advance(2.0, 10.0);
        assert!((q.thrust_coefficient - (1.0 + 0.5 * 0.8 * 2.0 / 2.0)).abs() < 1e-12);
    }
}
