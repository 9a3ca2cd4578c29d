//! Work made once per view, and shared by the bands of that view: the rasteriser's depth
//! passes (kept in the ray index, which forgets them with its trees), the scans' footprints,
//! grids and rays (beside it, see `scan`).

use std::sync::{Arc, Mutex, OnceLock};

/// The most views kept at once (the cameras, shadow maps and lidars of a step).
const MAX_KEPT: usize = 8;

/// Values made for views since the world last changed, by view.
pub(crate) struct Kept<K, V>(Mutex<Vec<(K, Arc<OnceLock<V>>)>>);

impl<K, V> Default for Kept<K, V> {
    fn default() -> Self {
        Kept(Mutex::new(Vec::new()))
    }
}

impl<K: PartialEq + Copy, V> Kept<K, V> {
    /// Forgets every value: the world moved or changed.
    pub(crate) fn forget(&self) {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }

    /// The value of `key` (made by `make` unless it is kept), one of at most [`MAX_KEPT`]:
    /// the first caller makes it while later ones for the same view wait for it.
    pub(crate) fn get(&self, key: &K, make: impl FnOnce() -> V) -> Arc<OnceLock<V>> {
        let cell = {
            let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
            match kept.iter().find(|(k, _)| k == key) {
                Some((_, c)) => c.clone(),
                None => {
                    if kept.len() >= MAX_KEPT {
                        kept.remove(0);
                    }
                    let c = Arc::new(OnceLock::new());
                    kept.push((*key, c.clone()));
                    c
                }
            }
        };
        cell.get_or_init(make);
        cell
    }
}
