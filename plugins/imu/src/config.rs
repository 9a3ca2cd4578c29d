//! Reading the `<imu>` element of a `<sensor type="imu">`.
//!
//! Everything is read once, when the sensor is created, from its parsed `<sensor>` element
//! ([`SensorConfig::parse_sdf`](sim_plugin_api::SensorConfig::parse_sdf)). Invalid values are
//! configuration errors
//! ([`ErrorCode::INVALID_CONFIG`](sim_plugin_api::ErrorCode::INVALID_CONFIG)) whose message
//! names the sensor's scoped name, the element, the text found there and, when known, its
//! place in the world file.

use crate::frames::Localization;
use sim_plugin_api::{
    PluginError, Quat, Vec3,
    noise::NoiseParams,
    sdf::{Element, FromSdf},
};
use simcore_plugin_common::{axis_noises, sdf::owner};

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

impl ImuConfig {
    /// Reads the `<imu>` child of `sensor` (the `<sensor>` element); its scoped name, which
    /// the errors and warnings name, is the document's owner. No `<imu>` element gives the
    /// defaults.
    pub fn read(sensor: &Element<'_, '_>) -> Result<ImuConfig, PluginError> {
        let mut config = ImuConfig::default();
        let Some(imu) = sensor.child("imu") else {
            return Ok(config);
        };

        if let Some(frame) = imu.child("orientation_reference_frame") {
            if let Some(loc) = frame.child("localization") {
                config.localization = Localization::parse(loc.text())
                    .ok_or_else(|| loc.error("one of ENU, NED, NWU, CUSTOM", loc.text()))?;
            }
            if let Some(custom) = frame.child("custom_rpy") {
                let rpy = Vec3::from_text(custom.text()).ok_or_else(|| {
                    custom.error("three finite numbers (roll pitch yaw, rad)", custom.text())
                })?;
                let parent_frame = custom.attribute("parent_frame").unwrap_or("").to_string();
                config.custom_rpy = Some(CustomRpy {
                    rpy: [rpy.x, rpy.y, rpy.z],
                    parent_frame,
                });
            }
        }

        config.angular_velocity_noise = axis_noises(&imu, "angular_velocity")?;
        config.linear_acceleration_noise = axis_noises(&imu, "linear_acceleration")?;
        config.enable_orientation = imu.get_or("enable_orientation", true)?;

        let sensor_name = owner(&imu);
        if imu.has("noise") {
            config.warnings.push(format!(
                "{sensor_name}: <imu><noise> (the SDF 1.5 form) is ignored; give the noise per \
                 axis in <imu><angular_velocity><x|y|z><noise> and \
                 <imu><linear_acceleration><x|y|z><noise>"
            ));
        }
        if config.localization == Localization::Custom
            && let Some(custom) = &config.custom_rpy
            && custom.parent_frame != "world"
        {
            config.warnings.push(format!(
                "{sensor_name}: <imu><orientation_reference_frame><custom_rpy parent_frame=\"{}\"> \
                 is not supported (only parent_frame=\"world\" is); orientation is reported \
                 relative to the sensor's initial orientation instead",
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

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::noise::NoiseKind;
    use sim_plugin_api::sdf::{Origin, SdfDocument};
    use sim_plugin_api::{EntityId, ErrorCode, testing::sensor_config};

    const NAME: &str = "robot::base::imu";

    /// The configuration of the `<sensor>` element `text`.
    fn read(text: &str) -> Result<ImuConfig, PluginError> {
        let doc = SdfDocument::parse(text, Origin::new(NAME))?;
        ImuConfig::read(&doc.root())
    }

    /// The configuration of a sensor whose `<imu>` element holds `imu_body`.
    fn parse(imu_body: &str) -> Result<ImuConfig, PluginError> {
        read(&format!(
            r#"<sensor name="imu" type="imu"><imu>{imu_body}</imu></sensor>"#
        ))
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
        let c =
            read(r#"<sensor name="imu" type="imu"><update_rate>5</update_rate></sensor>"#).unwrap();
        assert_eq!(c, ImuConfig::default());
        assert_eq!(read("  ").unwrap(), ImuConfig::default());
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
    fn bad_values_name_element_and_text() {
        for (body, element, expected, found) in [
            (
                r#"<angular_velocity><z><noise type="gaussian"><stddev>abc</stddev></noise></z></angular_velocity>"#,
                "<imu><angular_velocity><z><noise><stddev>",
                "a finite number",
                "abc",
            ),
            (
                r#"<linear_acceleration><x><noise type="gaussian"><mean>nan</mean></noise></x></linear_acceleration>"#,
                "<imu><linear_acceleration><x><noise><mean>",
                "a finite number",
                "nan",
            ),
            (
                r#"<linear_acceleration><y><noise type="uniform"/></y></linear_acceleration>"#,
                "<imu><linear_acceleration><y><noise> type",
                "one of none, gaussian, gaussian_quantized",
                "uniform",
            ),
            (
                r#"<orientation_reference_frame><localization>NEU</localization></orientation_reference_frame>"#,
                "<imu><orientation_reference_frame><localization>",
                "one of ENU, NED, NWU, CUSTOM",
                "NEU",
            ),
            (
                r#"<orientation_reference_frame><custom_rpy parent_frame="world">0 1</custom_rpy></orientation_reference_frame>"#,
                "<imu><orientation_reference_frame><custom_rpy>",
                "three finite numbers (roll pitch yaw, rad)",
                "0 1",
            ),
            (
                r#"<enable_orientation>yes</enable_orientation>"#,
                "<imu><enable_orientation>",
                "true, false, 1 or 0",
                "yes",
            ),
        ] {
            assert_eq!(
                config_error(body),
                format!("{NAME}: {element} must be {expected}, found \"{found}\"")
            );
        }
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
    fn malformed_xml() {
        let e = read("<sensor><imu></sensor>").unwrap_err();
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert!(
            e.message
                .starts_with("robot::base::imu: the element is not valid XML"),
            "{e}"
        );
    }

    #[test]
    fn custom_rpy_is_three_finite_numbers() {
        let custom = |rpy: &str| {
            parse(&format!(
                r#"<orientation_reference_frame><custom_rpy parent_frame="world">{rpy}</custom_rpy></orientation_reference_frame>"#
            ))
        };
        assert_eq!(
            custom(" 1 -2\n3e0 ").unwrap().custom_rpy.unwrap().rpy,
            [1.0, -2.0, 3.0]
        );
        for bad in ["1 2 3 4", "1 2 inf", ""] {
            let e = custom(bad).unwrap_err();
            assert_eq!(
                e.message.as_str(),
                format!(
                    "robot::base::imu: <imu><orientation_reference_frame><custom_rpy> must be three finite numbers (roll pitch yaw, rad), found \"{bad}\""
                )
            );
        }
        let c = parse("<enable_orientation> TRUE </enable_orientation>").unwrap();
        assert!(c.enable_orientation);
    }

    #[test]
    fn errors_name_the_file_and_line() {
        let text = "<sensor name=\"imu\" type=\"imu\">\n  <imu>\n    \
                    <enable_orientation>yes</enable_orientation>\n  </imu>\n</sensor>";
        let config = sensor_config(NAME, "imu", EntityId(2), text).with_source("world.sdf", 40);
        let doc = config.parse_sdf().unwrap();
        let e = ImuConfig::read(&doc.root()).unwrap_err();
        assert_eq!(
            e.message.as_str(),
            "robot::base::imu: <imu><enable_orientation> must be true, false, 1 or 0, found \"yes\" at world.sdf:42"
        );
    }
}
