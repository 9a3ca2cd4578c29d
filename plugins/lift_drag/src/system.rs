//! The lift-drag system: the link's motion in, a wrench on it every step out.

use crate::aero::wrench;
use crate::config::LiftDragConfig;
use sim_plugin_api::{
    abi_stable::std_types::{RSlice, RSliceMut},
    prelude::*,
};
use simcore_plugin_common::gz::{GzSystem, entity};
use simcore_plugin_common::{Attached, attached, plugin_document};

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
        let doc = plugin_document(config, &who)?;
        let parsed = LiftDragConfig::read(&doc.root())?;
        let find = |name: &str, kind, tag: &str| entity(world, scoped, name, kind, tag, &who);
        let link = find(&parsed.link, EntityKind::LINK, "link_name")?;
        let control = match &parsed.control_joint {
            None => None,
            Some(j) => Some(find(j, EntityKind::JOINT, "control_joint_name")?),
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

#[cfg(test)]
mod tests {
    use super::*;
    use simcore_plugin_common::testing::SystemSetup;

    #[test]
    fn errors_name_the_file_and_line() {
        let sdf = "<plugin name=\"gz::sim::systems::LiftDrag\" filename=\"f\">\n  \
                   <link_name>wing</link_name>\n  <cp>1 2</cp>\n</plugin>";
        let e = SystemSetup::on_model("gz::sim::systems::LiftDrag", "plane")
            .create_error::<LiftDrag>(sdf);
        assert_eq!(e.code, ErrorCode::INVALID_CONFIG);
        assert_eq!(
            e.message.as_str(),
            "plane: LiftDrag: <cp> must be three numbers (x y z), found \"1 2\" at world.sdf:42"
        );
    }
}
