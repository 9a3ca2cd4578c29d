//! The `<topic>/set_rate` service of every sensor, as gz-sensors offers it: `Sensor::Load`
//! advertises `<topic>/set_rate` (a `msgs::Double` request) and `SensorPrivate::SetRate`
//! applies it. A negative rate becomes 0 (every step); when the SDF `<update_rate>` is above
//! 0 it is the ceiling: a request for 0 or for more than it is refused and changes nothing.
//! A sensor whose SDF rate is 0 takes any rate. The next due time is kept.

use super::SensorManager;

/// The suffix of the service below a sensor's topic.
pub const SET_RATE: &str = "set_rate";

/// Gazebo's `lessOrNearEqual` tolerance for comparing rates.
const NEAR: f64 = 1e-6;

/// Why a `set_rate` request was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RateError {
    /// The requested rate is not a number.
    #[error("cannot set the update rate of sensor `{sensor}` to {rate}: not a number of Hz")]
    NotANumber {
        /// The sensor's scoped name.
        sensor: String,
        /// The rate asked for.
        rate: f64,
    },
    /// 0 (every step) asked of a sensor whose SDF rate is above 0.
    #[error(
        "cannot set the update rate of sensor `{sensor}` to 0 (every step): its <update_rate> \
         is {sdf} Hz, the most it may run at"
    )]
    Zero {
        /// The sensor's scoped name.
        sensor: String,
        /// Its `<update_rate>`.
        sdf: f64,
    },
    /// More than the SDF rate asked for.
    #[error(
        "cannot set the update rate of sensor `{sensor}` to {rate} Hz: its <update_rate>, \
         {sdf} Hz, is the most it may run at"
    )]
    AboveSdf {
        /// The sensor's scoped name.
        sensor: String,
        /// The rate asked for.
        rate: f64,
        /// Its `<update_rate>`.
        sdf: f64,
    },
}

/// The `set_rate` service of a sensor on `topic`.
pub fn set_rate_service(topic: &str) -> String {
    format!("{}/{SET_RATE}", topic.trim_end_matches('/'))
}

impl SensorManager {
    /// The `set_rate` services of the sensors, in sensor order.
    pub fn set_rate_services(&self) -> Vec<String> {
        self.slots
            .iter()
            .map(|s| set_rate_service(&s.cold.setup.topic))
            .collect()
    }

    /// Whether a sensor offers `service` (its `<topic>/set_rate`).
    pub fn offers_set_rate(&self, service: &str) -> bool {
        self.rate_slot(service).is_some()
    }

    /// The index of the sensor whose `set_rate` service is `service`.
    fn rate_slot(&self, service: &str) -> Option<usize> {
        let topic = service.strip_suffix(SET_RATE)?.strip_suffix('/')?;
        self.slots
            .iter()
            .position(|s| s.cold.setup.topic.trim_end_matches('/') == topic)
    }

    /// Answers a call of `service` with the requested rate (Hz): `None` when no sensor offers
    /// that service, else the rate now in effect, or why the request was refused (see the
    /// module docs).
    pub fn set_rate(&mut self, service: &str, rate: f64) -> Option<Result<f64, RateError>> {
        let k = self.rate_slot(service)?;
        let s = &mut self.slots[k];
        let sensor = s.cold.setup.scoped_name.clone();
        let sdf = s.cold.setup.update_rate;
        if rate.is_nan() {
            return Some(Err(RateError::NotANumber { sensor, rate }));
        }
        let rate = rate.max(0.0);
        if sdf > NEAR {
            if rate <= NEAR {
                return Some(Err(RateError::Zero { sensor, sdf }));
            }
            if rate > sdf + NEAR {
                return Some(Err(RateError::AboveSdf { sensor, rate, sdf }));
            }
        }
        s.schedule.set_rate(rate);
        Some(Ok(s.schedule.rate_hz()))
    }
}
