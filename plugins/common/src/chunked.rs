//! Output buffers set up by the chunks that write them.
//!
//! A scan's or a frame's outputs (ranges, point clouds, images: up to a few megabytes) are
//! new buffers every time, since the messages take them. Made with `vec![0; n]`, each was
//! cleared on the sensor's own thread before the chunks of [`Passes`](crate::Passes) wrote
//! it, a pass over every byte that the other sensor threads waited for. A [`ChunkedVec`]
//! leaves its memory unset: each of its [`Part`]s is set by the chunk that writes it, on that
//! chunk's thread, just before it is written (while it is in that core's cache), and any part
//! no chunk took is set when the buffer is finished. The result is the same as clearing first.

use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, Ordering};

/// A buffer of `len` elements, set part by part (see the [module docs](self)).
#[derive(Debug)]
pub struct ChunkedVec<T> {
    vec: Vec<T>,
    len: usize,
    part_len: usize,
    /// Whether each part has been set ([`Part::fill`], [`Part::write`]).
    filled: Vec<AtomicBool>,
}

/// One part of a [`ChunkedVec`], to be set by [`Part::fill`] and then written, or made by
/// [`Part::write`].
#[derive(Debug)]
pub struct Part<'a, T> {
    slots: &'a mut [MaybeUninit<T>],
    filled: &'a AtomicBool,
}

impl<T: Copy> ChunkedVec<T> {
    /// A buffer of `len` elements in parts of `part_len` (the last one shorter; at least 1).
    pub fn new(len: usize, part_len: usize) -> Self {
        let part_len = part_len.max(1);
        ChunkedVec {
            vec: Vec::with_capacity(len),
            len,
            part_len,
            filled: (0..len.div_ceil(part_len))
                .map(|_| AtomicBool::new(false))
                .collect(),
        }
    }

    /// The parts, in order: consecutive runs of `part_len` elements covering the buffer.
    pub fn parts(&mut self) -> Vec<Part<'_, T>> {
        let slots = &mut self.vec.spare_capacity_mut()[..self.len];
        slots
            .chunks_mut(self.part_len)
            .zip(&self.filled)
            .map(|(slots, filled)| Part { slots, filled })
            .collect()
    }

    /// The buffer, with every element of a part no chunk set given `value`.
    pub fn into_vec(mut self, value: T) -> Vec<T> {
        let slots = &mut self.vec.spare_capacity_mut()[..self.len];
        for (slots, filled) in slots.chunks_mut(self.part_len).zip(&self.filled) {
            if !filled.load(Ordering::Acquire) {
                for s in slots {
                    s.write(value);
                }
            }
        }
        // SAFETY: the capacity is at least `len` (`Vec::with_capacity(len)`), and each of the
        // `len` elements is initialised: the parts are disjoint and cover `0..len`; a part
        // marked filled had every element written by `Part::write` before it was marked
        // (Release, read with Acquire above; the chunks have also returned, since `self`
        // is no longer borrowed), and every other part was written just above. Nothing
        // else writes the spare capacity.
        #[allow(unsafe_code)]
        unsafe {
            self.vec.set_len(self.len)
        };
        self.vec
    }
}

impl<'a, T: Copy> Part<'a, T> {
    /// The part with every element set to `value`, to be written.
    pub fn fill(self, value: T) -> &'a mut [T] {
        self.write(|_| value)
    }

    /// The part with its `k`-th element set to `f(k)`, in order: for outputs made element
    /// by element, which need no value set before.
    pub fn write(self, mut f: impl FnMut(usize) -> T) -> &'a mut [T] {
        for (k, s) in self.slots.iter_mut().enumerate() {
            s.write(f(k));
        }
        self.written()
    }

    /// This part and `other` (of the same length) with their `k`-th elements set to the two
    /// of `f(k)`, in order: two outputs made together from the same inputs, read once.
    pub fn write_with<U: Copy>(
        self,
        other: Part<'a, U>,
        mut f: impl FnMut(usize) -> (T, U),
    ) -> (&'a mut [T], &'a mut [U]) {
        assert_eq!(self.len(), other.len(), "parts of the same length");
        for (k, (s, o)) in self
            .slots
            .iter_mut()
            .zip(other.slots.iter_mut())
            .enumerate()
        {
            let (a, b) = f(k);
            s.write(a);
            o.write(b);
        }
        (self.written(), other.written())
    }

    /// This part and `b` and `c` (of the same length) with their `k`-th elements set to the
    /// three of the `k`-th item of `items`, in order: three outputs made in one pass. Panics
    /// (leaving the parts unset) when `items` ends before the parts do.
    #[inline]
    pub fn write_three<U: Copy, V: Copy>(
        self,
        b: Part<'a, U>,
        c: Part<'a, V>,
        items: impl IntoIterator<Item = (T, U, V)>,
    ) -> (&'a mut [T], &'a mut [U], &'a mut [V]) {
        let n = self.len();
        assert!(b.len() == n && c.len() == n, "parts of the same length");
        let mut written = 0;
        let slots = self
            .slots
            .iter_mut()
            .zip(b.slots.iter_mut())
            .zip(c.slots.iter_mut());
        for (((x, y), z), (u, v, w)) in slots.zip(items) {
            x.write(u);
            y.write(v);
            z.write(w);
            written += 1;
        }
        assert_eq!(written, n, "an item for every element");
        (self.written(), b.written(), c.written())
    }

    /// The part's elements, every one of which the caller has just written: marks the part
    /// filled and hands it out.
    fn written(self) -> &'a mut [T] {
        self.filled.store(true, Ordering::Release);
        let slots: *mut [MaybeUninit<T>] = self.slots;
        // SAFETY: the callers (`write`, `write_with`, `write_three`) initialise every element
        // of `slots` before calling this (a panic in their `f`, or `write_three` given too
        // few items, leaves before the part is marked or handed out), and `MaybeUninit<T>`
        // has the size, alignment and layout of `T`; the slice is borrowed for `'a` as
        // `slots` was, and `self` (its only other path) is consumed.
        #[allow(unsafe_code)]
        unsafe {
            &mut *(slots as *mut [T])
        }
    }

    /// The part's length.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the part is empty (never, but for a buffer of no elements).
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_filled_and_written_make_the_buffer_and_the_rest_take_the_value() {
        for (len, part) in [(0, 4), (1, 4), (10, 4), (12, 4), (7, 1), (5, 0)] {
            let mut buffer = ChunkedVec::<u32>::new(len, part);
            let parts = buffer.parts();
            assert_eq!(parts.iter().map(Part::len).sum::<usize>(), len);
            // Every other part is taken (set by `fill` or `write`); the rest are left to
            // `into_vec`.
            let mut start = 0;
            for (k, p) in parts.into_iter().enumerate() {
                let n = p.len();
                match k % 4 {
                    0 => {
                        let out = p.fill(7);
                        assert!(out.iter().all(|&v| v == 7));
                        for (i, v) in out.iter_mut().enumerate() {
                            *v = (start + i) as u32;
                        }
                    }
                    2 => {
                        let out = p.write(|i| (start + i) as u32);
                        assert_eq!(out.len(), n);
                    }
                    _ => {}
                }
                start += n;
            }
            let v = buffer.into_vec(9);
            let step = part.max(1);
            let expected: Vec<u32> = (0..len)
                .map(|i| if (i / step) % 2 == 0 { i as u32 } else { 9 })
                .collect();
            assert_eq!(v, expected, "len {len}, parts of {part}");
        }
    }

    #[test]
    fn parts_written_together_make_both_buffers() {
        for (len, part) in [(0, 4), (1, 4), (10, 4), (12, 3)] {
            let (mut a, mut b) = (
                ChunkedVec::<u32>::new(len, part),
                ChunkedVec::<f64>::new(len, part),
            );
            let mut start = 0;
            // Every part but the second written: that one takes the value.
            for (k, (pa, pb)) in a.parts().into_iter().zip(b.parts()).enumerate() {
                let n = pa.len();
                if k != 1 {
                    let (x, y) = pa.write_with(pb, |i| ((start + i) as u32, -((start + i) as f64)));
                    assert_eq!((x.len(), y.len()), (n, n));
                }
                start += n;
            }
            let in_second = |i: usize| i / part == 1;
            let (a, b) = (a.into_vec(9), b.into_vec(0.5));
            for i in 0..len {
                let (ea, eb) = if in_second(i) {
                    (9, 0.5)
                } else {
                    (i as u32, -(i as f64))
                };
                assert_eq!(
                    (a[i], b[i]),
                    (ea, eb),
                    "element {i} of {len}, parts of {part}"
                );
            }
        }
    }

    #[test]
    fn parts_written_three_together_make_three_buffers() {
        for (len, part) in [(0, 4), (1, 4), (10, 4), (12, 3)] {
            let mut a = ChunkedVec::<u32>::new(len, part);
            let mut b = ChunkedVec::<f64>::new(len, part);
            let mut c = ChunkedVec::<[u8; 3]>::new(len, part);
            let mut start = 0;
            // Every part but the second written; the second's items run out one short,
            // which panics and leaves all three parts to take the value.
            let parts = a.parts().into_iter().zip(b.parts()).zip(c.parts());
            for (k, ((pa, pb), pc)) in parts.enumerate() {
                let n = pa.len();
                let items = (start..start + n).map(|i| (i as u32, -(i as f64), [i as u8; 3]));
                if k == 1 {
                    let short = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        pa.write_three(pb, pc, items.take(n - 1));
                    }));
                    assert!(short.is_err(), "too few items panic");
                } else {
                    let (x, y, z) = pa.write_three(pb, pc, items);
                    assert_eq!((x.len(), y.len(), z.len()), (n, n, n));
                }
                start += n;
            }
            let (a, b, c) = (a.into_vec(9), b.into_vec(0.5), c.into_vec([7; 3]));
            for i in 0..len {
                let expected = if i / part == 1 {
                    (9, 0.5, [7; 3])
                } else {
                    (i as u32, -(i as f64), [i as u8; 3])
                };
                assert_eq!((a[i], b[i], c[i]), expected, "element {i} of {len}");
            }
        }
    }

    #[test]
    fn parts_filled_on_other_threads_are_kept() {
        let mut buffer = ChunkedVec::<u8>::new(10_000, 1024);
        std::thread::scope(|s| {
            for (k, p) in buffer.parts().into_iter().enumerate() {
                s.spawn(move || p.fill(0).iter_mut().for_each(|b| *b = k as u8 + 1));
            }
        });
        let v = buffer.into_vec(0);
        assert_eq!(v.len(), 10_000);
        assert!(
            v.iter()
                .enumerate()
                .all(|(i, &b)| b == (i / 1024) as u8 + 1)
        );
    }
}
