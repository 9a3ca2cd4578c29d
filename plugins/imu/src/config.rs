//! Reading the `<imu>` element of a `<sensor type="imu">`.
//!
//! Everything is parsed once, when the sensor is created. Invalid values are configuration
//! errors ([`ErrorCode::INVALID_CONFIG`](sim_plugin_api::ErrorCode::INVALID_CONFIG)) whose
//! message names the sensor's scoped name, the element and the text found there.

use crate::frames::Localization;
use roxmltree::Node;
use sim_plugin_api::{PluginError, Quat, noise::NoiseParams};
use simcore_plugin_common::sdf::{Reader, child, parse_bool, parse_f64, parse_sensor_sdf};

/// `<orientation_reference_frame><custom_rpy parent_frame="...">`.
#[derive(Clone, Debug, PartialEq)]
pub struct CustomRpy {
    /// Roll, pitch and yaw, rad.
    pub rpy: [f64; 3],
    /// The `parent_frame` attribute (empty when absent). Only `world` is supported.
    pub parent_frame: String,
}

/// Where the reported orientation is measured from, once the SDF has been resolved.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum OrientationReference {
    /// The sensor's own world orientation when it was created (and again after a reset):
    /// the reported orientation starts at identity.
    InitialPose,
    /// A fixed frame, given by its orientation in the world (`R_wf`).
    Fixed(Quat),
}

/// The parsed `<imu>` element. [`Default`] is what a sensor without `<imu>` gets.
#[derive(Clone, Debug, PartialEq)]
pub struct ImuConfig {
    /// `<orientation_reference_frame><localization>` (default `CUSTOM`).
    pub localization: Localization,
    /// `<orientation_reference_frame><custom_rpy>`, when present.
    pub custom_rpy: Option<CustomRpy>,
    /// `<angular_velocity><x|y|z><noise>`, in x, y, z order.
    pub angular_velocity_noise: [NoiseParams; 3],
    /// `<linear_acceleration><x|y|z><noise>`, in x, y, z order.
    pub linear_acceleration_noise: [NoiseParams; 3],
    /// `<enable_orientation>` (default true).
    pub enable_orientation: bool,
    /// Things that were accepted but are not honoured, for the log (one line each).
    pub warnings: Vec<String>,
}

impl Default for ImuConfig {
    fn default() -> Self {
        ImuConfig {
            localization: Localization::Custom,
            custom_rpy: None,
            angular_velocity_noise: [NoiseParams::default(); 3],
            linear_acceleration_noise: [NoiseParams::default(); 3],
            enable_orientation: true,
            warnings: Vec::new(),
        }
    }
}

const AXES: [&str; 3] = ["x", "y", "z"];

impl ImuConfig {
    /// Parses the `<imu>` child of a `<sensor>` element given as XML text. `sensor` (the
    /// scoped name) is used in error messages. No `<imu>` element (or blank text) gives the
    /// defaults.
    pub fn parse(sensor_sdf: &str, sensor: &str) -> Result<ImuConfig, PluginError> {
        let Some(doc) = parse_sensor_sdf(sensor_sdf, sensor)? else {
            return Ok(ImuConfig::default());
        };
        match child(doc.root_element(), "imu") {
            Some(imu) => ImuConfig::from_element(imu, sensor),
            None => Ok(ImuConfig::default()),
        }
    }

    /// Reads an `<imu>` element. `sensor` (the scoped name) is used in error messages.
    pub fn from_element(imu: Node<'_, '_>, sensor: &str) -> Result<ImuConfig, PluginError> {
        let mut config = ImuConfig::default();
        let ctx = Reader::new(sensor);

        if let Some(frame) = child(imu, "orientation_reference_frame") {
            if let Some(loc) = child(frame, "localization") {
                let text = loc.text().unwrap_or("");
                config.localization = Localization::parse(text).ok_or_else(|| {
                    ctx.error(
                        "<imu><orientation_reference_frame><localization>",
                        "one of ENU, NED, NWU, CUSTOM",
                        text,
                    )
                })?;
            }
            if let Some(custom) = child(frame, "custom_rpy") {
                let path = "<imu><orientation_reference_frame><custom_rpy>";
                let text = custom.text().unwrap_or("");
                let rpy = parse_triple(text).ok_or_else(|| {
                    ctx.error(path, "three finite numbers (roll pitch yaw, rad)", text)
                })?;
                let parent_frame = custom.attribute("parent_frame").unwrap_or("").to_string();
                config.custom_rpy = Some(CustomRpy { rpy, parent_frame });
            }
        }

        config.angular_velocity_noise = axis_noises(&ctx, imu, "angular_velocity")?;
        config.linear_acceleration_noise = axis_noises(&ctx, imu, "linear_acceleration")?;

        if let Some(e) = child(imu, "enable_orientation") {
            let text = e.text().unwrap_or("");
            config.enable_orientation = parse_bool(text).ok_or_else(|| {
                ctx.error("<imu><enable_orientation>", "true, false, 1 or 0", text)
            })?;
        }

        if child(imu, "noise").is_some() {
            config.warnings.push(format!(
                "{sensor}: <imu><noise> (the SDF 1.5 form) is ignored; give the noise per axis \
                 in <imu><angular_velocity><x|y|z><noise> and <imu><linear_acceleration><x|y|z><noise>"
            ));
        }
        if config.localization == Localization::Custom
            && let Some(custom) = &config.custom_rpy
            && custom.parent_frame != "world"
        {
            config.warnings.push(format!(
                "{sensor}: <imu><orientation_reference_frame><custom_rpy parent_frame=\"{}\"> is \
                 not supported (only parent_frame=\"world\" is); orientation is reported relative \
                 to the sensor's initial orientation instead",
                custom.parent_frame
            ));
        }
        Ok(config)
    }

    /// The frame orientation is reported in: the fixed ENU/NED/NWU frames, the `custom_rpy`
    /// frame when its parent frame is `world`, otherwise the sensor's initial orientation.
    pub fn orientation_reference(&self) -> OrientationReference {
        match self.localization.frame_in_world() {
            Some(q) => OrientationReference::Fixed(q),
            None => match &self.custom_rpy {
                Some(CustomRpy {
                    rpy: [r, p, y],
                    parent_frame,
                }) if parent_frame == "world" => {
                    OrientationReference::Fixed(Quat::from_rpy(*r, *p, *y))
                }
                _ => OrientationReference::InitialPose,
            },
        }
    }
}

/// `<imu><{group}><x|y|z><noise>` for the three axes.
fn axis_noises(
    r: &Reader<'_>,
    imu: Node<'_, '_>,
    group: &str,
) -> Result<[NoiseParams; 3], PluginError> {
    let mut out = [NoiseParams::default(); 3];
    let Some(g) = child(imu, group) else {
        return Ok(out);
    };
    for (axis, params) in AXES.iter().zip(out.iter_mut()) {
        if let Some(noise) = child(g, axis).and_then(|a| child(a, "noise")) {
            *params = r.noise(noise, &format!("<imu><{group}><{axis}><noise>"))?;
        }
    }
    Ok(out)
}

fn parse_triple(text: &str) -> Option<[f64; 3]> {
    let mut it = text.split_whitespace().map(parse_f64);
    let v = [it.next()??, it.next()??, it.next()??];
    it.next().is_none().then_some(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::ErrorCode;
    use sim_plugin_api::noise::NoiseKind;

    const NAME: &str = "robot::base::imu";

    fn parse(imu_body: &str) -> Result<ImuConfig, PluginError> {
        ImuConfig::parse(
            &format!(r#"<sensor name="imu" type="imu"><imu>{imu_body}</imu></sensor>"#),
            NAME,
        )
    }

    fn config_error(imu_body: &str) -> String {
        let e = parse(imu_body).expect_err("expected a configuration error");
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert!(
            e.message.starts_with(NAME),
            "message does not name the sensor: {e}"
        );
        e.message.to_string()
    }

    #[test]
    fn missing_imu_element_gives_defaults() {
        let c = ImuConfig::parse(
            r#"<sensor name="imu" type="imu"><update_rate>5</update_rate></sensor>"#,
            NAME,
        )
        .unwrap();
        assert_eq!(c, ImuConfig::default());
        assert_eq!(ImuConfig::parse("  ", NAME).unwrap(), ImuConfig::default());
        assert!(c.enable_orientation);
        assert_eq!(c.localization, Localization::Custom);
        assert_eq!(c.orientation_reference(), OrientationReference::InitialPose);
    }

    #[test]
    fn full_element() {
        let c = parse(
            r#"<orientation_reference_frame>
                 <localization>NED</localization>
                 <custom_rpy parent_frame="world">0.1 0.2 0.3</custom_rpy>
                 <grav_dir_x>1 0 0</grav_dir_x>
               </orientation_reference_frame>
               <angular_velocity>
                 <y><noise type="gaussian"><mean>0.1</mean><stddev>2e-4</stddev>
                   <bias_mean>7.5e-6</bias_mean><bias_stddev>8e-7</bias_stddev>
                   <dynamic_bias_stddev>1e-5</dynamic_bias_stddev>
                   <dynamic_bias_correlation_time>400</dynamic_bias_correlation_time>
                   <precision>0.001</precision></noise></y>
               </angular_velocity>
               <linear_acceleration>
                 <z><noise type="gaussian_quantized"><stddev> 0.017 </stddev></noise></z>
                 <x><noise type="none"><stddev>3</stddev></noise></x>
               </linear_acceleration>
               <enable_orientation>0</enable_orientation>"#,
        )
        .unwrap();
        assert_eq!(c.localization, Localization::Ned);
        assert_eq!(
            c.custom_rpy,
            Some(CustomRpy {
                rpy: [0.1, 0.2, 0.3],
                parent_frame: "world".into()
            })
        );
        assert_eq!(c.angular_velocity_noise[0], NoiseParams::default());
        assert_eq!(
            c.angular_velocity_noise[1],
            NoiseParams {
                kind: NoiseKind::Gaussian,
                mean: 0.1,
                stddev: 2e-4,
                bias_mean: 7.5e-6,
                bias_stddev: 8e-7,
                dynamic_bias_stddev: 1e-5,
                dynamic_bias_correlation_time: 400.0,
                precision: 0.001,
            }
        );
        assert_eq!(c.linear_acceleration_noise[2].kind, NoiseKind::Gaussian);
        assert_eq!(c.linear_acceleration_noise[2].stddev, 0.017);
        assert_eq!(c.linear_acceleration_noise[0].kind, NoiseKind::None);
        assert_eq!(c.linear_acceleration_noise[0].stddev, 3.0);
        assert!(!c.enable_orientation);
        assert!(c.warnings.is_empty());
        // NED wins over custom_rpy when the localization is not CUSTOM.
        assert_eq!(
            c.orientation_reference(),
            OrientationReference::Fixed(crate::frames::NED_IN_WORLD)
        );
    }

    #[test]
    fn custom_rpy_needs_world_parent() {
        let c = parse(
            r#"<orientation_reference_frame><custom_rpy parent_frame="world">0 0 1</custom_rpy></orientation_reference_frame>"#,
        )
        .unwrap();
        assert_eq!(
            c.orientation_reference(),
            OrientationReference::Fixed(Quat::from_rpy(0.0, 0.0, 1.0))
        );
        assert!(c.warnings.is_empty());

        for attr in [r#"parent_frame="base_link""#, ""] {
            let c = parse(&format!(
                r#"<orientation_reference_frame><localization>CUSTOM</localization><custom_rpy {attr}>0 0 1</custom_rpy></orientation_reference_frame>"#
            ))
            .unwrap();
            assert_eq!(c.orientation_reference(), OrientationReference::InitialPose);
            assert_eq!(c.warnings.len(), 1);
            assert!(c.warnings[0].contains("custom_rpy") && c.warnings[0].starts_with(NAME));
        }
    }

    #[test]
    fn old_style_noise_is_reported() {
        let c = parse(r#"<noise><type>gaussian</type></noise>"#).unwrap();
        assert_eq!(c.warnings.len(), 1);
        assert!(c.warnings[0].contains("<imu><noise>"));
    }

    #[test]
    fn noise_type_as_child_element() {
        let c = parse(r#"<angular_velocity><x><noise><type>gaussian</type><stddev>1</stddev></noise></x></angular_velocity>"#)
            .unwrap();
        assert_eq!(c.angular_velocity_noise[0].kind, NoiseKind::Gaussian);
    }

    #[test]
    fn bad_number_names_element_and_text() {
        let m = config_error(
            r#"<angular_velocity><z><noise type="gaussian"><stddev>abc</stddev></noise></z></angular_velocity>"#,
        );
        assert!(
            m.contains("<imu><angular_velocity><z><noise><stddev>"),
            "{m}"
        );
        assert!(m.contains("\"abc\""), "{m}");

        let m = config_error(
            r#"<linear_acceleration><x><noise type="gaussian"><mean>nan</mean></noise></x></linear_acceleration>"#,
        );
        assert!(
            m.contains("<imu><linear_acceleration><x><noise><mean>") && m.contains("nan"),
            "{m}"
        );
    }

    #[test]
    fn unknown_noise_type() {
        let m = config_error(
            r#"<linear_acceleration><y><noise type="uniform"/></y></linear_acceleration>"#,
        );
        assert!(
            m.contains("<imu><linear_acceleration><y><noise> type") && m.contains("\"uniform\""),
            "{m}"
        );
    }

    #[test]
    fn negative_deviations_and_precision() {
        for field in [
            "stddev",
            "bias_stddev",
            "dynamic_bias_stddev",
            "dynamic_bias_correlation_time",
            "precision",
        ] {
            let m = config_error(&format!(
                r#"<angular_velocity><x><noise type="gaussian"><{field}>-0.5</{field}></noise></x></angular_velocity>"#
            ));
            assert!(
                m.contains(&format!("<{field}>")) && m.contains("-0.5"),
                "{m}"
            );
        }
        // Negative means are fine.
        parse(r#"<angular_velocity><x><noise type="gaussian"><mean>-0.5</mean><bias_mean>-1</bias_mean></noise></x></angular_velocity>"#)
            .unwrap();
    }

    #[test]
    fn other_bad_values() {
        let m = config_error(
            r#"<orientation_reference_frame><localization>NEU</localization></orientation_reference_frame>"#,
        );
        assert!(m.contains("<localization>") && m.contains("\"NEU\""), "{m}");
        let m = config_error(
            r#"<orientation_reference_frame><custom_rpy parent_frame="world">0 1</custom_rpy></orientation_reference_frame>"#,
        );
        assert!(m.contains("<custom_rpy>") && m.contains("\"0 1\""), "{m}");
        let m = config_error(r#"<enable_orientation>yes</enable_orientation>"#);
        assert!(
            m.contains("<enable_orientation>") && m.contains("\"yes\""),
            "{m}"
        );
    }

    #[test]
    fn malformed_xml() {
        let e = ImuConfig::parse("<sensor><imu></sensor>", NAME).unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert!(e.message.starts_with(NAME));
    }

    #[test]
    fn helpers() {
        assert_eq!(parse_triple(" 1 -2\n3e0 "), Some([1.0, -2.0, 3.0]));
        assert_eq!(parse_triple("1 2 3 4"), None);
        assert_eq!(parse_triple("1 2 inf"), None);
        assert_eq!(parse_bool(" TRUE "), Some(true));
        assert_eq!(parse_bool("0"), Some(false));
    }
}
