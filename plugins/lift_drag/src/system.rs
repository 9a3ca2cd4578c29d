//! The lift-drag system: the link's motion in, a wrench on it every step out.

use crate::aero::wrench;
use crate::config::LiftDragConfig;
use sim_plugin_api::{
    abi_stable::std_types::{RSlice, RSliceMut},
    prelude::*,
};
use simcore_plugin_common::gz::{GzSystem, missing};
use simcore_plugin_common::{Attached, attached, find_in_model};

/// Lift and drag on one link of a model (see the crate documentation).
pub struct LiftDrag {
    config: LiftDragConfig,
    link: EntityId,
    control: Option<EntityId>,
}

impl GzSystem for LiftDrag {
    /// Creates the system from its `<plugin>` element; it must be attached to a model that
    /// has the link (and the control joint, if named).
    fn build(config: &SystemConfig<'_>, world: &WorldRef<'_>) -> Result<Self, PluginError> {
        let Attached { scoped, who, .. } = attached(config, world, "LiftDrag")?;
        let parsed = LiftDragConfig::parse(config.sdf.as_str(), &who)?;
        let link = find_in_model(world, scoped, &parsed.link, EntityKind::LINK).map_err(|e| {
            missing(
                e.element_error(
                    &format!("{who}: <link_name>"),
                    &parsed.link,
                    EntityKind::LINK,
                )
                .message,
            )
        })?;
        let control = match &parsed.control_joint {
            None => None,
            Some(j) => Some(
                find_in_model(world, scoped, j, EntityKind::JOINT).map_err(|e| {
                    missing(
                        e.element_error(
                            &format!("{who}: <control_joint_name>"),
                            j,
                            EntityKind::JOINT,
                        )
                        .message,
                    )
                })?,
            ),
        };
        Ok(LiftDrag {
            config: parsed,
            link,
            control,
        })
    }
}

impl LiftDrag {}

impl System for LiftDrag {
    fn pre_step(
        &mut self,
        _ctx: &StepContext,
        _inbox: &[Message],
        world: &WorldRef<'_>,
        commands: &mut CommandsMut<'_>,
    ) -> Result<(), PluginError> {
        // A removed link gets nothing.
        let Some(state) = world.kinematics_of(self.link) else {
            return Ok(());
        };
        let control = self.control.and_then(|j| {
            let mut s = [JointState::default()];
            let known =
                world.joint_states(RSlice::from_slice(&[j]), RSliceMut::from_mut_slice(&mut s));
            (known == 1 && s[0].dof > 0).then_some(s[0].position[0])
        });
        if let Some((force, torque)) = wrench(
            &self.config.coefficients,
            state.pose,
            state.linear_velocity,
            state.angular_velocity,
            control,
        ) {
            commands.apply_wrench(self.link, force, torque);
        }
        Ok(())
    }
}
