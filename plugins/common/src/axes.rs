//! Noise given per axis: SDF's `<x>`, `<y>` and `<z>` children, each with its `<noise>`
//! (`<imu><angular_velocity>`, `<force_torque><force>`, `<magnetometer>`, ...), and one noise
//! stream per axis.

use crate::noise::NoiseChannel;
use sim_plugin_api::noise::NoiseParams;
use sim_plugin_api::sdf::{Element, SdfError};

/// The `<x|y|z><noise>` of the element at `path` below `element`, in x, y, z order: each
/// [`Element::noise`] (the default, no noise, where an axis or its `<noise>` is absent; an
/// error naming the element where one does not read).
pub fn axis_noises(element: &Element<'_, '_>, path: &str) -> Result<[NoiseParams; 3], SdfError> {
    let axis = |a: &str| element.noise(&format!("{path}/{a}"));
    Ok([axis("x")?, axis("y")?, axis("z")?])
}

/// One [`NoiseChannel`] per axis: axis `i` has `params[i]` and stream `streams[i]` of the
/// sensor's seed `seed`.
pub fn axis_channels(params: &[NoiseParams; 3], seed: u64, streams: [u64; 3]) -> [NoiseChannel; 3] {
    std::array::from_fn(|i| NoiseChannel::new(params[i], seed, streams[i]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::noise::NoiseKind;
    use sim_plugin_api::sdf::{Origin, SdfDocument};

    #[test]
    fn reads_each_axis_in_order_with_defaults_for_the_absent_ones() {
        let doc = SdfDocument::parse(
            r#"<sensor><imu><rate>
                 <z><noise type="gaussian"><stddev>3</stddev></noise></z>
                 <x><noise type="gaussian"><mean>1</mean></noise></x>
               </rate></imu></sensor>"#,
            Origin::new("m::l::s"),
        )
        .unwrap();
        let [x, y, z] = axis_noises(&doc.root(), "imu/rate").unwrap();
        assert_eq!((x.kind, x.mean, x.stddev), (NoiseKind::Gaussian, 1.0, 0.0));
        assert_eq!(y, NoiseParams::default());
        assert_eq!((z.kind, z.mean, z.stddev), (NoiseKind::Gaussian, 0.0, 3.0));
        // Nothing there at all: no noise on any axis.
        let none = axis_noises(&doc.root(), "imu/other").unwrap();
        assert_eq!(none, [NoiseParams::default(); 3]);
    }

    #[test]
    fn a_bad_axis_is_an_error_naming_it() {
        let doc = SdfDocument::parse(
            r#"<sensor><a><y><noise type="gaussian"><stddev>x</stddev></noise></y></a></sensor>"#,
            Origin::new("m::l::s"),
        )
        .unwrap();
        let e = axis_noises(&doc.root(), "a").unwrap_err();
        assert_eq!(
            e.to_string(),
            "m::l::s: <a><y><noise><stddev> must be a finite number, found \"x\""
        );
    }

    #[test]
    fn each_axis_has_its_parameters_and_its_own_stream() {
        let gaussian = |stddev| NoiseParams {
            kind: NoiseKind::Gaussian,
            stddev,
            ..NoiseParams::default()
        };
        let params = [gaussian(1.0), NoiseParams::default(), gaussian(2.0)];
        let streams = [4, 5, 6];
        let mut channels = axis_channels(&params, 7, streams);
        assert!(channels[0].is_active() && !channels[1].is_active() && channels[2].is_active());
        for ((c, p), s) in channels.iter_mut().zip(params).zip(streams) {
            let mut alone = NoiseChannel::new(p, 7, s);
            for _ in 0..3 {
                assert_eq!(c.apply(10.0, 0.1), alone.apply(10.0, 0.1));
            }
        }
        // The x and z streams differ (same seed, other stream numbers).
        let mut again = axis_channels(&[gaussian(1.0); 3], 7, streams);
        let [a, _, c] = &mut again;
        assert_ne!(a.apply(0.0, 0.0), c.apply(0.0, 0.0));
    }
}
