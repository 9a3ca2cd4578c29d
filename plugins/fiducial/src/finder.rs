//! The fiducial finder: which marked models the sensor sees, and where.
//!
//! Markers are visuals whose `<laser_retro>` is a whole number of at least 1 (the fiducial id).
//! Plugins cannot list an entity's children, so the markers are found by scanning entity ids
//! (given out in order, never reused) whenever the set of models changes. Per update:
//!
//! 1. sensor pose `T_ws = T_wl · T_ls`;
//! 2. each marker's position in the sensor frame gives its range, bearing
//!    (`atan2(y, x)`) and elevation (`atan2(z, sqrt(x² + y²))`); markers outside the range
//!    or the field of view are dropped;
//! 3. one batched ray cast (visual geometry, the sensor's own model ignored) from the sensor
//!    to each remaining marker: it is seen when the first hit belongs to the marked model.

use crate::config::FiducialConfig;
use crate::marker::marker_id;
use sim_plugin_api::sdf::Element;
use sim_plugin_api::{
    ModelInfo, SurfaceInfo,
    abi_stable::std_types::{RBox, RSlice, RSliceMut, RVec},
    model_plugins,
    msgs::Fiducial,
    prelude::*,
    sdf::{Origin, SdfDocument},
};
use simcore_plugin_common::SdfSensor;
use simcore_plugin_common::SensorMount;

/// How many unknown ids in a row end the scan past the last model.
const SCAN_GAP: u64 = 64;

/// One marker: a marked visual, or a model marked in one of its `<plugin>` elements.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    /// The entity whose origin is the fiducial: the visual, or the model itself.
    pub target: EntityId,
    /// The model it belongs to.
    pub model: EntityId,
    /// Its fiducial id.
    pub id: i64,
    /// The model's scoped name.
    pub name: SharedStr,
}

/// The fiducial id a `laser_retro` value encodes: a whole number of at least 1.
pub fn fiducial_id(laser_retro: f64) -> Option<i64> {
    (laser_retro >= 1.0 && laser_retro.fract() == 0.0 && laser_retro < 9.0e15)
        .then_some(laser_retro as i64)
}

/// The fiducial id in a `<plugin>` element: its `<fiducial_id>` child, a whole number of at
/// least 1 (anything else marks nothing; the marker plugin refuses it at load time).
pub fn plugin_fiducial_id(plugin_sdf: &str) -> Option<i64> {
    let doc = SdfDocument::parse(plugin_sdf, Origin::new("simcore::FiducialMarker")).ok()?;
    marker_id(&doc.root()).ok().flatten()
}

/// A fiducial sensor (SDF `<sensor type="fiducial">`).
#[derive(Debug)]
pub struct FiducialFinder {
    mount: SensorMount,
    model: EntityId,
    config: FiducialConfig,
    models_seen: Vec<EntityId>,
    markers: Vec<Marker>,
    models_buf: RVec<ModelInfo>,
}

impl SdfSensor for FiducialFinder {
    /// Reads `<fiducial>` (the markers it looks for).
    fn build(
        config: &SensorConfig<'_>,
        sdf: &Element<'_, '_>,
        _world: &WorldRef<'_>,
    ) -> Result<Self, PluginError> {
        let parsed = FiducialConfig::read(sdf)?;
        Ok(FiducialFinder::new(
            parsed,
            SensorMount::of(config),
            config.model,
        ))
    }

    fn outputs(&self) -> Vec<(String, &'static str)> {
        vec![(String::new(), "Fiducials")]
    }
}

impl FiducialFinder {
    /// Builds the sensor: at `mount` on a link of `model` (never reported).
    pub fn new(config: FiducialConfig, mount: SensorMount, model: EntityId) -> Self {
        FiducialFinder {
            mount,
            model,
            config,
            models_seen: Vec::new(),
            markers: Vec::new(),
            models_buf: RVec::new(),
        }
    }

    /// The markers known (after the first update).
    pub fn markers(&self) -> &[Marker] {
        &self.markers
    }

    /// Rebuilds the marker list when the set of models changed.
    fn refresh(&mut self, world: &WorldRef<'_>) {
        let mut models = std::mem::take(&mut self.models_buf);
        world.models(&mut models);
        let ids: Vec<EntityId> = models.iter().map(|m| m.id).collect();
        self.models_buf = models;
        if ids == self.models_seen && !ids.is_empty() {
            return;
        }
        let last_model = ids.iter().map(|i| i.0).max().unwrap_or(1);
        let mut visuals = Vec::new();
        let (mut id, mut gap) = (2, 0);
        while id <= last_model || gap < SCAN_GAP {
            match world.entity_info(EntityId(id)).into_option() {
                Some(info) => {
                    gap = 0;
                    if info.kind == EntityKind::VISUAL {
                        visuals.push((EntityId(id), info.parent));
                    }
                }
                None => gap += 1,
            }
            id += 1;
        }
        let ids_only: Vec<EntityId> = visuals.iter().map(|v| v.0).collect();
        let mut surfaces = vec![SurfaceInfo::default(); ids_only.len()];
        world.surfaces(
            RSlice::from_slice(&ids_only),
            RSliceMut::from_mut_slice(&mut surfaces),
        );
        self.markers = visuals
            .iter()
            .zip(&surfaces)
            .filter_map(|((visual, link), s)| {
                let fid = fiducial_id(s.laser_retro)?;
                let model = world.entity_info(*link).into_option()?.parent;
                (model != self.model).then(|| Marker {
                    target: *visual,
                    model,
                    id: fid,
                    name: SharedStr::from(world.scoped_name_of(model).unwrap_or_default()),
                })
            })
            .collect();
        // Models marked by a `<fiducial_id>` in one of their `<plugin>` elements.
        if let Some(table) = model_plugins(world) {
            for m in &self.models_buf {
                if m.id == self.model {
                    continue;
                }
                for p in table.of(m.id).unwrap_or_default() {
                    if let Some(id) = plugin_fiducial_id(p.sdf.as_str()) {
                        self.markers.push(Marker {
                            target: m.id,
                            model: m.id,
                            id,
                            name: SharedStr::from(world.scoped_name_of(m.id).unwrap_or_default()),
                        });
                    }
                }
            }
        }
        self.models_seen = ids;
    }

    /// The fiducials seen now.
    pub fn detect(&mut self, world: &WorldRef<'_>) -> Result<Vec<Fiducial>, PluginError> {
        self.refresh(world);
        let sensor = self.mount.pose(world)?;
        let to_sensor = sensor.inverse();
        let visuals: Vec<EntityId> = self.markers.iter().map(|m| m.target).collect();
        let mut states = vec![KinematicState::default(); visuals.len()];
        world.kinematics(
            RSlice::from_slice(&visuals),
            RSliceMut::from_mut_slice(&mut states),
        );
        let mut candidates = Vec::new();
        let mut rays = Vec::new();
        for (m, s) in self.markers.iter().zip(&states) {
            let rel = to_sensor.transform_point(s.pose.position);
            let range = rel.length();
            if range < self.config.range_min || range > self.config.range_max || range == 0.0 {
                continue;
            }
            let bearing = rel.y.atan2(rel.x);
            let elevation = rel.z.atan2((rel.x * rel.x + rel.y * rel.y).sqrt());
            if bearing.abs() > self.config.horizontal_fov / 2.0
                || elevation.abs() > self.config.vertical_fov / 2.0
            {
                continue;
            }
            let d = s.pose.position - sensor.position;
            rays.push(Ray {
                origin: sensor.position,
                direction: d.scale(1.0 / d.length()),
            });
            candidates.push((
                Fiducial {
                    id: m.id,
                    name: m.name.clone(),
                    range,
                    bearing,
                    elevation,
                    pose: to_sensor.compose(s.pose),
                },
                m.model,
            ));
        }
        let options = RayCastOptions {
            max_distance: self.config.range_max + 0.01,
            target: RayTarget::VISUAL,
            exclude_model: self.model,
        }
        .without_normals_in(world);
        let mut hits: Vec<RayHit> = Vec::new();
        world.cast_ray_batch(&rays, &options, &mut hits);
        // Seen when the first thing the ray meets, no farther than the marker, is the marked
        // model.
        let mut seen: Vec<Fiducial> = candidates
            .into_iter()
            .zip(&hits)
            .filter(|((c, model), hit)| hit.model == *model && hit.distance <= c.range + 0.01)
            .map(|((c, _), _)| c)
            .collect();
        seen.sort_by(|a, b| a.id.cmp(&b.id).then(a.name.as_str().cmp(b.name.as_str())));
        Ok(seen)
    }
}

impl Sensor for FiducialFinder {
    fn update(
        &mut self,
        _ctx: &UpdateContext,
        world: &WorldRef<'_>,
        out: &mut Outputs<'_>,
    ) -> Result<(), PluginError> {
        let seen = self.detect(world)?;
        out.publish("", Payload::Fiducials(RBox::new(RVec::from(seen))));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_from_laser_retro() {
        assert_eq!(fiducial_id(0.0), None);
        assert_eq!(fiducial_id(0.5), None);
        assert_eq!(fiducial_id(7.0), Some(7));
        assert_eq!(fiducial_id(7.5), None);
        assert_eq!(fiducial_id(f64::NAN), None);
        assert_eq!(fiducial_id(-3.0), None);
        assert_eq!(
            plugin_fiducial_id("<plugin name='m'><fiducial_id> 12 </fiducial_id></plugin>"),
            Some(12)
        );
        assert_eq!(
            plugin_fiducial_id("<plugin><fiducial_id>0</fiducial_id></plugin>"),
            None
        );
        assert_eq!(
            plugin_fiducial_id("<plugin><other>3</other></plugin>"),
            None
        );
    }
}
