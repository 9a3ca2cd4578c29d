//! The air at the sensor, as gz-sensors' `AirSpeedSensor` models it: the International
//! Standard Atmosphere's troposphere over the geometric altitude.
//!
//! For an altitude `h` (m above sea level; Gazebo takes the sensor's world `z`):
//!
//! 1. temperature `T = T₀ − L·h`, with `T₀` = [`SEA_LEVEL_TEMPERATURE`] and `L` =
//!    [`TEMPERATURE_LAPSE_RATE`];
//! 2. density `ρ = ρ₀ / (T₀ / T)^n`, with `ρ₀` = [`SEA_LEVEL_DENSITY`] and `n` =
//!    [`DENSITY_EXPONENT`] (`g₀·M / (R*·L) − 1`, rounded as Gazebo writes it).
//!
//! At and above `T₀ / L` (about 44.3 km, where `T` reaches 0 K) the model has no meaning:
//! there the temperature is 0 K and the density 0 (Gazebo computes NaN).

/// Temperature at sea level `T₀`, K.
pub const SEA_LEVEL_TEMPERATURE: f64 = 288.15;
/// Temperature lapse rate of the troposphere `L`, K/m.
pub const TEMPERATURE_LAPSE_RATE: f64 = 0.0065;
/// Air density at sea level `ρ₀`, kg/m³.
pub const SEA_LEVEL_DENSITY: f64 = 1.225;
/// The exponent `n` of the density law.
pub const DENSITY_EXPONENT: f64 = 4.256;

/// Temperature of the air, K, at altitude `h` (m); 0 where the model ends.
pub fn temperature(h: f64) -> f64 {
    (SEA_LEVEL_TEMPERATURE - TEMPERATURE_LAPSE_RATE * h).max(0.0)
}

/// Density of the air, kg/m³, at altitude `h` (m); 0 where the model ends.
pub fn density(h: f64) -> f64 {
    let t = temperature(h);
    if t > 0.0 {
        SEA_LEVEL_DENSITY / (SEA_LEVEL_TEMPERATURE / t).powf(DENSITY_EXPONENT)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_atmosphere_density() {
        // ISA density by geometric altitude (kg/m³): Gazebo's form leaves out the
        // geopotential correction, a few parts in 10⁴ at 5 km.
        for (h, rho) in [
            (0.0, 1.225),
            (1000.0, 1.1117),
            (2000.0, 1.0066),
            (5000.0, 0.7364),
        ] {
            let got = density(h);
            assert!((got - rho).abs() <= 1e-3 * rho, "{h} m: {got}, table {rho}");
        }
        assert_eq!(temperature(1000.0), 281.65);
        assert!(density(100.0) < density(99.0));
    }

    #[test]
    fn nothing_above_the_model() {
        assert_eq!(temperature(50_000.0), 0.0);
        assert_eq!(density(50_000.0), 0.0);
        assert!(density(44_000.0) > 0.0);
    }
}
