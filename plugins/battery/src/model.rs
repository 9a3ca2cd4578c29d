//! The linear battery model of Gazebo's `LinearBatteryPlugin`.

/// Charge and current of a linear battery.
///
/// Per step of `dt` seconds with total power `p` W drawn:
/// `i_raw = p / v` (with `v` the voltage after the previous step), `i_smooth += k (i_raw -
/// i_smooth)` with `k = min(dt / tau, 1)`, `q -= dt i_smooth / 3600` (clamped at 0), and
/// `v = e0 + e1 (1 - q / c) - r i_smooth`.
#[derive(Clone, Debug, PartialEq)]
pub struct LinearBattery {
    /// Open-circuit voltage constant `e0`, V.
    pub e0: f64,
    /// Open-circuit voltage linear coefficient `e1`, V.
    pub e1: f64,
    /// Capacity `c`, Ah.
    pub capacity: f64,
    /// Internal resistance `r`, ohm.
    pub resistance: f64,
    /// Current smoothing time constant `tau`, s.
    pub tau: f64,
    /// Charge `q`, Ah.
    pub charge: f64,
    /// The last unfiltered current, A.
    pub current_raw: f64,
    /// The filtered current, A (positive when discharging).
    pub current_smooth: f64,
    /// The voltage after the last step, V.
    pub voltage: f64,
}

impl LinearBattery {
    /// A battery holding `charge` Ah at rest (no current).
    pub fn new(e0: f64, e1: f64, capacity: f64, resistance: f64, tau: f64, charge: f64) -> Self {
        let mut b = LinearBattery {
            e0,
            e1,
            capacity,
            resistance,
            tau,
            charge,
            current_raw: 0.0,
            current_smooth: 0.0,
            voltage: 0.0,
        };
        b.voltage = b.open_circuit_voltage();
        b
    }

    /// `e0 + e1 (1 - q/c)`.
    pub fn open_circuit_voltage(&self) -> f64 {
        self.e0 + self.e1 * (1.0 - self.charge / self.capacity)
    }

    /// Draws `power` W for `dt` s (see the type's docs). Returns the new voltage.
    pub fn step(&mut self, power: f64, dt: f64) -> f64 {
        self.current_raw = if self.voltage > 0.0 {
            power / self.voltage
        } else {
            0.0
        };
        let k = (dt / self.tau).min(1.0);
        self.current_smooth += k * (self.current_raw - self.current_smooth);
        self.charge = (self.charge - dt * self.current_smooth / 3600.0).max(0.0);
        self.voltage = self.open_circuit_voltage() - self.resistance * self.current_smooth;
        self.voltage
    }

    /// Whether the charge is used up.
    pub fn drained(&self) -> bool {
        self.charge <= 0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_the_formula() {
        let mut b = LinearBattery::new(12.6, -2.0, 1.2, 0.07, 2.0, 1.0);
        let v0 = 12.6 - 2.0 * (1.0 - 1.0 / 1.2);
        assert!((b.voltage - v0).abs() < 1e-12);
        let dt = 0.01;
        let i_raw = 100.0 / v0;
        let i_s = dt / 2.0 * i_raw;
        let q = 1.0 - dt * i_s / 3600.0;
        let v = 12.6 - 2.0 * (1.0 - q / 1.2) - 0.07 * i_s;
        assert!((b.step(100.0, dt) - v).abs() < 1e-12);
        assert!((b.charge - q).abs() < 1e-15);
        // A long draw approaches i = p / v and drains at that rate.
        for _ in 0..100_000 {
            b.step(10.0, dt);
        }
        assert!((b.current_smooth - 10.0 / b.voltage).abs() < 1e-3);
        assert!(!b.drained());
    }

    #[test]
    fn drains_to_zero_and_stays_there() {
        let mut b = LinearBattery::new(12.0, 0.0, 0.001, 0.0, 0.001, 0.001);
        for _ in 0..10_000 {
            b.step(120.0, 0.01);
        }
        assert_eq!(b.charge, 0.0);
        assert!(b.drained());
    }

    #[test]
    fn a_time_constant_below_the_step_does_not_overshoot() {
        let mut b = LinearBattery::new(10.0, 0.0, 1.0, 0.0, 0.0001, 1.0);
        b.step(10.0, 0.01);
        assert!((b.current_smooth - 1.0).abs() < 1e-12);
    }
}
