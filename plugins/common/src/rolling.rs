//! A rolling mean (gz-math's `RollingMean`), which gz-sim's odometry estimates use.

use std::collections::VecDeque;

/// The mean of the last `window` values pushed (gz-math's `RollingMean`).
#[derive(Clone, Debug, PartialEq)]
pub struct RollingMean {
    window: usize,
    values: VecDeque<f64>,
}

impl RollingMean {
    /// An empty mean over `window` values (at least 1).
    pub fn new(window: usize) -> Self {
        RollingMean {
            window: window.max(1),
            values: VecDeque::new(),
        }
    }

    /// Adds a value, dropping the oldest beyond the window.
    pub fn push(&mut self, v: f64) {
        if self.values.len() == self.window {
            self.values.pop_front();
        }
        self.values.push_back(v);
    }

    /// The mean of the values in the window (0 when empty).
    pub fn mean(&self) -> f64 {
        if self.values.is_empty() {
            0.0
        } else {
            self.values.iter().sum::<f64>() / self.values.len() as f64
        }
    }

    /// Forgets every value.
    pub fn clear(&mut self) {
        self.values.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rolling_mean_over_its_window() {
        let mut m = RollingMean::new(3);
        assert_eq!(m.mean(), 0.0);
        for v in [1.0, 2.0, 3.0, 10.0] {
            m.push(v);
        }
        assert!((m.mean() - 5.0).abs() < 1e-12);
        m.clear();
        assert_eq!(m.mean(), 0.0);
    }
}
