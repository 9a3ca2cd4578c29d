//! Joint bounds in rapier's terms: limits and forces in its precision (an infinite bound as
//! the largest finite one), and commands clamped to a joint's limit.

/// Position limits `[lo, hi]` less `shift`, in rapier's precision, an infinite bound as the
/// largest finite one; `None` when neither bound is finite (no limit).
pub(super) fn rapier_limits([lo, hi]: [f64; 2], shift: f64) -> Option<[f32; 2]> {
    if !(lo.is_finite() || hi.is_finite()) {
        return None;
    }
    let lo = if lo.is_finite() {
        (lo - shift) as f32
    } else {
        f32::MIN
    };
    let hi = if hi.is_finite() {
        (hi - shift) as f32
    } else {
        f32::MAX
    };
    Some([lo, hi])
}

/// A force or torque bound in rapier's precision, an infinite one as the largest finite one.
pub(super) fn rapier_force(max: f64) -> f32 {
    if max.is_finite() {
        max as f32
    } else {
        f32::MAX
    }
}

/// `v` clamped to `[-limit, limit]` (unchanged when the limit is not a number or negative).
pub(super) fn within(v: f64, limit: f64) -> f64 {
    if limit >= 0.0 {
        v.clamp(-limit, limit)
    } else {
        v
    }
}
