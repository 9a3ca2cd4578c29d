//! Choosing the factory of each planned sensor and system plugin, and creating its object;
//! every problem found on the way is a [`PluginProblem`].

use super::{Registry, Resolved};
use crate::outputs::{DeclaredOutput, OutputDeclarations, TopicBase};
use crate::sensors::{SensorSetup, source_location};
use crate::systems::{DeclaredInput, InputDeclarations, SystemSetup};
use sim_physics::Physics;
use sim_plugin_api::{
    Extension, INPUT_TYPES_EXTENSION, InputTypes_TO, OUTPUT_TYPES_EXTENSION, OutputTypes_TO,
    SensorBox, SystemBox, SystemConfig, WorldView_TO,
    abi_stable::{RRef, sabi_trait::TD_Opaque, std_types::RStr},
};
use sim_world::Span;

/// One problem found while resolving and creating plugins.
#[derive(Clone, Debug, PartialEq)]
pub struct PluginProblem {
    /// The element that needs the plugin.
    pub span: Span,
    /// What needs it (`sensor model::link::imu (type imu)`).
    pub subject: String,
    /// What is wrong and what to do.
    pub message: String,
}

impl std::fmt::Display for PluginProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}: {}", self.span, self.subject, self.message)
    }
}

/// What a sensor's problems name: ``sensor `model::link::imu` (type `imu`)``.
pub fn sensor_subject(scoped_name: &str, sensor_type: &str) -> String {
    format!("sensor `{scoped_name}` (type `{sensor_type}`)")
}

/// What a system plugin's problems name: ``plugin `NAME` (filename `FILE`)``.
pub fn system_subject(s: &SystemSetup) -> String {
    format!("plugin `{}` (filename `{}`)", s.name, s.filename)
}

impl Registry {
    /// The factory serving a planned sensor, or the problem (naming the types served, the
    /// search path and the refused libraries when none serves it).
    pub fn resolve_sensor(&self, setup: &SensorSetup) -> Result<Resolved<'_>, PluginProblem> {
        let problem = |message| PluginProblem {
            span: setup.span.clone(),
            subject: sensor_subject(&setup.scoped_name, &setup.sensor_type),
            message,
        };
        match self.routed_sensor_factory(&setup.sensor_type) {
            Ok(Some(r)) => Ok(r),
            Ok(None) => Err(problem(self.no_sensor_library(&setup.sensor_type))),
            Err(e) => Err(problem(e.to_string())),
        }
    }

    /// The factory serving a planned system plugin, or the problem.
    pub fn resolve_system(&self, setup: &SystemSetup) -> Result<Resolved<'_>, PluginProblem> {
        self.system_factory(&setup.filename, &setup.name)
            .map_err(|e| PluginProblem {
                span: setup.span.clone(),
                subject: system_subject(setup),
                message: e.to_string(),
            })
    }

    fn no_sensor_library(&self, sensor_type: &str) -> String {
        let served = self.served_sensor_types();
        let mut m = format!(
            "no plugin library serves sensor type `{sensor_type}`; types served: {}; plugin search path: [{}]",
            if served.is_empty() {
                "none".to_string()
            } else {
                served.join(", ")
            },
            self.search_path
        );
        m.push_str(&self.refused_note(None));
        m.push_str("; add the directory of the plugin that serves it with --plugin-path or SIMCORE_PLUGIN_PATH");
        m
    }
}

impl Resolved<'_> {
    /// A refusal by the factory, as a problem naming the library.
    fn refused(
        &self,
        span: &Span,
        subject: String,
        e: &sim_plugin_api::PluginError,
    ) -> PluginProblem {
        PluginProblem {
            span: span.clone(),
            subject,
            message: format!("{} (from {})", e.message, self.library.file_name),
        }
    }

    /// Creates the sensor object of `setup` with this factory, against `physics`, with the
    /// outputs it declared on the way (the `simcore.output_types.v1` extension is offered on
    /// the world its `create` gets).
    pub fn create_sensor(
        &self,
        setup: &SensorSetup,
        world_name: &str,
        physics: &Physics,
    ) -> Result<(SensorBox, Vec<DeclaredOutput>), PluginProblem> {
        let config = setup.config(world_name);
        let declarations = OutputDeclarations::new(
            format!("sensor {}", setup.scoped_name),
            TopicBase::Sensor(setup.topic.clone()),
        );
        let output_types = OutputTypes_TO::from_ptr(RRef::new(&declarations), TD_Opaque);
        let view = physics
            .view(&setup.scoped_name)
            .with_extension(OUTPUT_TYPES_EXTENSION, Extension::new(&output_types));
        let created = (self.library.module.create_sensor())(
            RStr::from_str(&self.factory.name),
            &config,
            WorldView_TO::from_ptr(&view, TD_Opaque),
        )
        .into_result()
        .map_err(|e| {
            self.refused(
                &setup.span,
                sensor_subject(&setup.scoped_name, &setup.sensor_type),
                &e,
            )
        })?;
        Ok((created, declarations.take()))
    }

    /// Creates the system object of `setup` with this factory, against `physics`, with the
    /// input types and the outputs it declared on the way (the `simcore.input_types.v1` and
    /// `simcore.output_types.v1` extensions are offered on the world its `create` gets).
    pub fn create_system(
        &self,
        setup: &SystemSetup,
        world_name: &str,
        physics: &Physics,
    ) -> Result<(SystemBox, Vec<DeclaredInput>, Vec<DeclaredOutput>), PluginProblem> {
        let config = SystemConfig {
            name: RStr::from_str(&setup.name),
            filename: RStr::from_str(&setup.filename),
            entity: setup.entity,
            entity_name: RStr::from_str(&setup.entity_name),
            world_name: RStr::from_str(world_name),
            seed: setup.seed,
            sdf: RStr::from_str(&setup.sdf),
            source: source_location(&setup.span),
        };
        let declarations = InputDeclarations::new(setup.who(), &setup.namespace);
        let input_types = InputTypes_TO::from_ptr(RRef::new(&declarations), TD_Opaque);
        let outputs =
            OutputDeclarations::new(setup.who(), TopicBase::System(setup.namespace.clone()));
        let output_types = OutputTypes_TO::from_ptr(RRef::new(&outputs), TD_Opaque);
        let view = physics
            .view(&setup.name)
            .with_extension(INPUT_TYPES_EXTENSION, Extension::new(&input_types))
            .with_extension(OUTPUT_TYPES_EXTENSION, Extension::new(&output_types));
        let created = (self.library.module.create_system())(
            RStr::from_str(&self.factory.name),
            &config,
            WorldView_TO::from_ptr(&view, TD_Opaque),
        )
        .into_result()
        .map_err(|e| self.refused(&setup.span, system_subject(setup), &e))?;
        Ok((created, declarations.take(), outputs.take()))
    }
}
