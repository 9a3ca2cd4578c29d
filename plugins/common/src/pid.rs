//! The PID controller of gz-math (`gz::math::PID`), which gz-sim's controller systems use.

/// A PID controller with gz-math's semantics: `update(error, dt)` with `error = measured −
/// target` returns `offset − p·e − ∫i·e dt − d·ė`, the integral term clamped to
/// `[i_min, i_max]` and the output to `[cmd_min, cmd_max]` (each only when its maximum is not
/// below its minimum). The first update's derivative is taken from a previous error of 0, as
/// in gz-math.
#[derive(Clone, Debug, PartialEq)]
pub struct Pid {
    /// Proportional gain.
    pub p: f64,
    /// Integral gain.
    pub i: f64,
    /// Derivative gain.
    pub d: f64,
    /// Upper limit of the integral term.
    pub i_max: f64,
    /// Lower limit of the integral term.
    pub i_min: f64,
    /// Upper limit of the output.
    pub cmd_max: f64,
    /// Lower limit of the output.
    pub cmd_min: f64,
    /// Feed-forward offset of the output.
    pub cmd_offset: f64,
    integral: f64,
    last_error: f64,
    derivative: f64,
}

impl Pid {
    /// A controller with these gains and limits and no history.
    #[allow(clippy::too_many_arguments)]
    pub const fn new(
        p: f64,
        i: f64,
        d: f64,
        i_max: f64,
        i_min: f64,
        cmd_max: f64,
        cmd_min: f64,
        cmd_offset: f64,
    ) -> Pid {
        Pid {
            p,
            i,
            d,
            i_max,
            i_min,
            cmd_max,
            cmd_min,
            cmd_offset,
            integral: 0.0,
            last_error: 0.0,
            derivative: 0.0,
        }
    }

    /// The command for `error` (measured − target) after `dt` seconds; 0 (and no update) when
    /// `dt` is 0 or the error is not finite.
    pub fn update(&mut self, error: f64, dt: f64) -> f64 {
        if dt == 0.0 || !error.is_finite() {
            return 0.0;
        }
        self.integral += self.i * dt * error;
        if self.i_max >= self.i_min {
            self.integral = self.integral.clamp(self.i_min, self.i_max);
        }
        self.derivative = (error - self.last_error) / dt;
        self.last_error = error;
        let cmd = self.cmd_offset - self.p * error - self.integral - self.d * self.derivative;
        if self.cmd_max >= self.cmd_min {
            cmd.clamp(self.cmd_min, self.cmd_max)
        } else {
            cmd
        }
    }

    /// Forgets the integral and the previous error.
    pub fn reset(&mut self) {
        self.integral = 0.0;
        self.last_error = 0.0;
        self.derivative = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::Pid;

    #[test]
    fn terms_limits_and_reset_as_gz_math() {
        let mut pid = Pid::new(2.0, 1.0, 0.5, 0.3, -0.3, 10.0, -10.0, 1.0);
        // e = 1 after 0.1 s: p 2, integral 0.1, derivative (1 - 0) / 0.1 = 10 → 1 - 2 - 0.1 - 5.
        assert!((pid.update(1.0, 0.1) - (1.0 - 2.0 - 0.1 - 5.0)).abs() < 1e-12);
        // Same error: no derivative, integral 0.2.
        assert!((pid.update(1.0, 0.1) - (1.0 - 2.0 - 0.2)).abs() < 1e-12);
        // The integral stops at i_max.
        for _ in 0..10 {
            pid.update(1.0, 0.1);
        }
        assert!((pid.update(1.0, 0.1) - (1.0 - 2.0 - 0.3)).abs() < 1e-12);
        // The output is clamped.
        assert_eq!(pid.update(100.0, 0.1), -10.0);
        // No time, or no number: nothing.
        assert_eq!(pid.update(1.0, 0.0), 0.0);
        assert_eq!(pid.update(f64::NAN, 0.1), 0.0);
        pid.reset();
        assert!((pid.update(0.0, 0.1) - 1.0).abs() < 1e-12);
        // Limits with max below min are off.
        let mut open = Pid::new(1.0, 0.0, 0.0, 0.0, 0.0, -1.0, 1.0, 0.0);
        assert_eq!(open.update(-50.0, 0.1), 50.0);
    }
}
