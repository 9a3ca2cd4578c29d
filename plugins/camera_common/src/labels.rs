//! The segmentation labels of the visuals a camera's rays hit, looked up in the engine's scene
//! extension the first time a visual is hit and kept until forgotten.

use sim_plugin_api::{
    EntityId, NO_LABEL, RayHit, WorldRef,
    abi_stable::std_types::{RSlice, RSliceMut},
};
use std::collections::HashMap;

/// Labels of visuals met so far ([`NO_LABEL`] for a visual that has none, or when the engine
/// offers no scene extension).
#[derive(Clone, Debug, Default)]
pub struct LabelCache {
    labels: HashMap<EntityId, u32>,
    new: Vec<(EntityId, EntityId)>,
    ids: Vec<EntityId>,
    out: Vec<u32>,
}

impl LabelCache {
    /// Looks up the labels of the visuals in `hits` met for the first time; returns those
    /// visuals with the model each was hit in and its label, in the order first hit.
    pub fn learn(
        &mut self,
        world: &WorldRef<'_>,
        hits: &[RayHit],
    ) -> Vec<(EntityId, EntityId, u32)> {
        self.new.clear();
        let mut last = EntityId::NONE;
        for h in hits {
            if h.entity != last && !h.entity.is_none() {
                last = h.entity;
                if !self.labels.contains_key(&h.entity)
                    && !self.new.iter().any(|(e, _)| *e == h.entity)
                {
                    self.new.push((h.entity, h.model));
                }
            }
        }
        if self.new.is_empty() {
            return Vec::new();
        }
        self.ids.clear();
        self.ids.extend(self.new.iter().map(|(e, _)| *e));
        self.out.clear();
        self.out.resize(self.ids.len(), NO_LABEL);
        if let Some(scene) = world.scene() {
            scene.labels(
                RSlice::from_slice(&self.ids),
                RSliceMut::from_mut_slice(&mut self.out),
            );
        }
        self.new
            .iter()
            .zip(&self.out)
            .map(|(&(e, m), &l)| {
                self.labels.insert(e, l);
                (e, m, l)
            })
            .collect()
    }

    /// The label of `visual` ([`NO_LABEL`] when it has none), or `None` before it is learnt.
    pub fn get(&self, visual: EntityId) -> Option<u32> {
        self.labels.get(&visual).copied()
    }

    /// Forgets every label.
    pub fn clear(&mut self) {
        self.labels.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim_plugin_api::{Vec3, testing::StaticWorld};

    #[test]
    fn labels_are_looked_up_once_per_visual() {
        let mut w = StaticWorld::default();
        w.set_label(EntityId(10), 5);
        let hit = |e: u64, m: u64| RayHit {
            distance: 1.0,
            normal: Vec3::new(-1.0, 0.0, 0.0),
            entity: EntityId(e),
            model: EntityId(m),
        };
        let miss = RayHit {
            entity: EntityId::NONE,
            ..hit(0, 0)
        };
        let hits = [hit(10, 1), hit(10, 1), miss, hit(11, 2), hit(10, 1)];
        let mut cache = LabelCache::default();
        w.with(|v| {
            assert_eq!(
                cache.learn(&v, &hits),
                vec![
                    (EntityId(10), EntityId(1), 5),
                    (EntityId(11), EntityId(2), NO_LABEL)
                ]
            );
            assert!(
                cache.learn(&v, &hits).is_empty(),
                "known visuals are not looked up again"
            );
        });
        assert_eq!(cache.get(EntityId(10)), Some(5));
        assert_eq!(cache.get(EntityId(11)), Some(NO_LABEL));
        assert_eq!(cache.get(EntityId(12)), None);
        cache.clear();
        assert_eq!(cache.get(EntityId(10)), None);
    }
}
