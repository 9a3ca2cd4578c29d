//! A writer of plain CDR (XCDR1, little-endian), the encoding rmw_zenoh and rosbag2 use.
//!
//! The buffer starts with the 4-byte encapsulation header `00 01 00 00`; alignment counts
//! from the first byte after it, and each primitive aligns to its own size (8-byte types to
//! 8). Strings are a `u32` length including the terminating NUL, the bytes and the NUL;
//! sequences a `u32` count and the elements; fixed arrays the elements alone.

/// Appends CDR-encoded values to a byte buffer.
#[derive(Debug)]
pub struct CdrWriter<'a> {
    out: &'a mut Vec<u8>,
    /// Where the body starts (after the encapsulation header).
    origin: usize,
}

impl<'a> CdrWriter<'a> {
    /// Starts a message at the end of `out`, writing the encapsulation header.
    pub fn new(out: &'a mut Vec<u8>) -> Self {
        out.extend_from_slice(&[0, 1, 0, 0]);
        let origin = out.len();
        CdrWriter { out, origin }
    }

    /// Bytes of the body written so far (the position alignment is counted from).
    pub fn position(&self) -> usize {
        self.out.len() - self.origin
    }

    fn align(&mut self, n: usize) {
        let pad = (n - self.position() % n) % n;
        self.out.resize(self.out.len() + pad, 0);
    }

    /// A `bool` (one byte).
    pub fn bool(&mut self, v: bool) {
        self.out.push(u8::from(v));
    }
    /// A `uint8` / `byte` / `char`.
    pub fn u8(&mut self, v: u8) {
        self.out.push(v);
    }
    /// An `int8`.
    pub fn i8(&mut self, v: i8) {
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    /// A `uint16`.
    pub fn u16(&mut self, v: u16) {
        self.align(2);
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    /// An `int16`.
    pub fn i16(&mut self, v: i16) {
        self.align(2);
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    /// A `uint32`.
    pub fn u32(&mut self, v: u32) {
        self.align(4);
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    /// An `int32`.
    pub fn i32(&mut self, v: i32) {
        self.align(4);
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    /// A `uint64`.
    pub fn u64(&mut self, v: u64) {
        self.align(8);
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    /// An `int64`.
    pub fn i64(&mut self, v: i64) {
        self.align(8);
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    /// A `float32`.
    pub fn f32(&mut self, v: f32) {
        self.align(4);
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    /// A `float64`.
    pub fn f64(&mut self, v: f64) {
        self.align(8);
        self.out.extend_from_slice(&v.to_le_bytes());
    }
    /// A `string`.
    pub fn string(&mut self, s: &str) {
        self.u32(cdr_len(s.len() + 1));
        self.out.extend_from_slice(s.as_bytes());
        self.out.push(0);
    }
    /// The element count of a sequence (`T[]`, `T[<=N]`); the elements follow.
    pub fn sequence_len(&mut self, n: usize) {
        self.u32(cdr_len(n));
    }
    /// A `uint8[]` / `byte[]` sequence.
    pub fn bytes(&mut self, b: &[u8]) {
        self.sequence_len(b.len());
        self.out.extend_from_slice(b);
    }
    /// A `float32[]` sequence.
    pub fn f32_seq(&mut self, v: impl ExactSizeIterator<Item = f32>) {
        self.sequence_len(v.len());
        for x in v {
            self.f32(x);
        }
    }
    /// A `float64[]` sequence.
    pub fn f64_seq(&mut self, v: &[f64]) {
        self.sequence_len(v.len());
        for &x in v {
            self.f64(x);
        }
    }
    /// A `float64[N]` fixed array.
    pub fn f64_array(&mut self, v: &[f64]) {
        for &x in v {
            self.f64(x);
        }
    }
}

/// A length as CDR's `u32`; lengths beyond it cannot be encoded, so a message that big is
/// a bug of its producer (the engine's message size limits are far below 4 GiB).
fn cdr_len(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
