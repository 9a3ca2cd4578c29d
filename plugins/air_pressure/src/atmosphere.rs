//! Static pressure of the US 1976 standard atmosphere, troposphere layer, as gz-sensors'
//! `AirPressureSensor` computes it (the constants and formula there come from the RotorS
//! simulator's pressure plugin).
//!
//! For an altitude `h` (m above sea level):
//!
//! 1. geopotential height `h_g = r·h / (r + h)`, with `r` = [`EARTH_RADIUS`];
//! 2. temperature `T = T₀ − L·h_g`, with `T₀` = [`SEA_LEVEL_TEMPERATURE`] and `L` =
//!    [`TEMPERATURE_LAPSE_RATE`];
//! 3. pressure `P = P₀·(T / T₀)^(g₀·M / (R*·L))`, with `P₀` = [`SEA_LEVEL_PRESSURE`], `g₀` =
//!    [`STANDARD_GRAVITY`], `M` = [`AIR_MOLAR_MASS`] and `R*` = [`GAS_CONSTANT`]; the exponent is
//!    about 5.2559. (gz-sensors writes this as `P₀·exp(k·ln(T₀/T))` with `k` the negated
//!    exponent; the value is the same.)
//!
//! The troposphere's lapse rate holds up to 11 km; like Gazebo, the same formula is used above
//! that. Where it has no meaning, at and above the geopotential height `T₀/L` (about
//! 44.3 km, where `T` reaches 0 K), the pressure is 0 (Gazebo gives NaN there).

/// Universal gas constant `R*`, J/(kmol·K) (N·m/(kmol·K)).
pub const GAS_CONSTANT: f64 = 8314.32;
/// Mean molar mass of air `M`, kg/kmol.
pub const AIR_MOLAR_MASS: f64 = 28.9644;
/// Standard gravity `g₀`, m/s².
pub const STANDARD_GRAVITY: f64 = 9.80665;
/// Earth radius used for the geopotential height `r`, m.
pub const EARTH_RADIUS: f64 = 6_356_766.0;
/// Pressure at sea level `P₀`, Pa (one standard atmosphere).
pub const SEA_LEVEL_PRESSURE: f64 = 101_325.0;
/// Temperature at sea level `T₀`, K.
pub const SEA_LEVEL_TEMPERATURE: f64 = 288.15;
/// Temperature lapse rate of the troposphere `L`, K/m.
pub const TEMPERATURE_LAPSE_RATE: f64 = 0.0065;
/// The exponent `g₀·M / (R*·L)` of the pressure law.
pub const PRESSURE_EXPONENT: f64 =
    STANDARD_GRAVITY * AIR_MOLAR_MASS / (GAS_CONSTANT * TEMPERATURE_LAPSE_RATE);

/// Geopotential height, m, of the altitude `h` (m above sea level).
pub fn geopotential_height(h: f64) -> f64 {
    EARTH_RADIUS * h / (EARTH_RADIUS + h)
}

/// Temperature of the standard atmosphere, K, at altitude `h` (m).
pub fn temperature(h: f64) -> f64 {
    SEA_LEVEL_TEMPERATURE - TEMPERATURE_LAPSE_RATE * geopotential_height(h)
}

/// Static pressure of the standard atmosphere, Pa, at altitude `h` (m above sea level); 0
/// where the model's temperature is not positive.
pub fn pressure(h: f64) -> f64 {
    let t = temperature(h);
    if t > 0.0 {
        SEA_LEVEL_PRESSURE * (-PRESSURE_EXPONENT * (SEA_LEVEL_TEMPERATURE / t).ln()).exp()
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_atmosphere_table() {
        // US 1976 standard atmosphere, published table by geometric altitude (m, Pa, five
        // significant digits): within half a unit of the last digit.
        for (h, p, half_unit) in [
            (0.0, 101_325.0, 0.5),
            (-500.0, 107_480.0, 5.0),
            (1000.0, 89_876.0, 0.5),
            (2000.0, 79_501.0, 0.5),
            (3000.0, 70_121.0, 0.5),
            (5000.0, 54_048.0, 0.5),
            (10_000.0, 26_500.0, 0.5),
            (11_000.0, 22_700.0, 0.5),
        ] {
            let got = pressure(h);
            assert!(
                (got - p).abs() <= half_unit,
                "{h} m: {got} Pa, table {p} Pa"
            );
        }
        assert!((PRESSURE_EXPONENT - 5.255_88).abs() < 1e-5);
        assert!((temperature(11_000.0) - 216.774).abs() < 1e-3);
    }

    #[test]
    fn gazebo_form_and_limits() {
        // The gz-sensors form: P0 * exp(k * ln(T0 / T)) with k = g0 M / (R* * -L).
        let k = STANDARD_GRAVITY * AIR_MOLAR_MASS / (GAS_CONSTANT * -TEMPERATURE_LAPSE_RATE);
        for h in [-100.0, 0.0, 10.1, 832.0, 9000.0] {
            let t = SEA_LEVEL_TEMPERATURE
                - TEMPERATURE_LAPSE_RATE * (EARTH_RADIUS * h / (EARTH_RADIUS + h));
            let p = SEA_LEVEL_PRESSURE * (k * (SEA_LEVEL_TEMPERATURE / t).ln()).exp();
            assert!((pressure(h) - p).abs() <= 1e-9 * p, "{h}");
        }
        // Monotonic, and 0 where the model ends.
        assert!(pressure(100.0) < pressure(99.0));
        assert_eq!(pressure(50_000.0), 0.0);
        assert!(pressure(44_000.0) > 0.0);
    }
}
