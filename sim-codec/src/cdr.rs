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
    /// Bytes as they are, unaligned: the contents of a `uint8[]` whose count
    /// [`sequence_len`](Self::sequence_len) wrote.
    pub fn raw(&mut self, b: &[u8]) {
        self.out.extend_from_slice(b);
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

/// Why bytes are not the CDR form of a message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    /// Fewer than the 4 bytes of the encapsulation header.
    #[error("a CDR message starts with a 4-byte encapsulation header, got {0} bytes")]
    NoHeader(usize),
    /// An encapsulation other than plain CDR (`00 00` big-endian, `00 01` little-endian).
    #[error("encapsulation {0:02x} {1:02x} is not plain CDR (00 00 or 00 01)")]
    Encapsulation(u8, u8),
    /// The message ends inside a field.
    #[error("the message ends inside `{field}` (at byte {at} of the body)")]
    Truncated {
        /// The field being read.
        field: &'static str,
        /// Its offset in the body.
        at: usize,
    },
    /// A string or sequence length larger than the bytes left.
    #[error("`{field}` claims {len} elements but only {left} bytes are left")]
    TooLong {
        /// The field being read.
        field: &'static str,
        /// The length read.
        len: u32,
        /// Bytes left in the message.
        left: usize,
    },
    /// A string without its terminating NUL, or with a NUL inside.
    #[error("`{0}` is not a NUL-terminated string")]
    NotTerminated(&'static str),
    /// A string that is not UTF-8.
    #[error("`{0}` is not UTF-8")]
    NotUtf8(&'static str),
    /// A `bool` byte other than 0 or 1.
    #[error("`{field}` is a bool but holds {value}")]
    NotBool {
        /// The field being read.
        field: &'static str,
        /// The byte found.
        value: u8,
    },
    /// Bytes after the last field beyond the final alignment padding.
    #[error("{0} bytes follow the end of the message")]
    TrailingBytes(usize),
    /// A field whose value has no simcore form (the message says why).
    #[error("{0}")]
    Invalid(String),
    /// A type the decoder does not read.
    #[error("messages of type `{0}` cannot be decoded")]
    UnknownType(String),
}

/// Reads plain CDR (XCDR1) of either byte order, the inverse of [`CdrWriter`]: every length
/// is checked against the bytes left, so no input makes it allocate more than the input's
/// size or read out of bounds.
#[derive(Debug)]
pub struct CdrReader<'a> {
    body: &'a [u8],
    pos: usize,
    big_endian: bool,
}

/// A fixed-size primitive [`CdrReader::read`] can decode.
pub trait Primitive: Sized {
    /// Size in bytes (also its alignment).
    const SIZE: usize;
    /// From exactly `SIZE` bytes.
    fn from_bytes(b: &[u8], big_endian: bool) -> Self;
}

macro_rules! primitive {
    ($($t:ty),*) => {$(
        impl Primitive for $t {
            const SIZE: usize = std::mem::size_of::<$t>();
            fn from_bytes(b: &[u8], big_endian: bool) -> Self {
                let mut a = [0u8; std::mem::size_of::<$t>()];
                a.copy_from_slice(b);
                if big_endian { <$t>::from_be_bytes(a) } else { <$t>::from_le_bytes(a) }
            }
        }
    )*};
}
primitive!(u8, i8, u16, i16, u32, i32, u64, i64, f32, f64);

impl<'a> CdrReader<'a> {
    /// Starts reading a message: checks the encapsulation header and takes its byte order.
    pub fn new(bytes: &'a [u8]) -> Result<Self, DecodeError> {
        let (head, body) = bytes
            .split_at_checked(4)
            .ok_or(DecodeError::NoHeader(bytes.len()))?;
        let big_endian = match (head[0], head[1]) {
            (0, 0) => true,
            (0, 1) => false,
            (a, b) => return Err(DecodeError::Encapsulation(a, b)),
        };
        Ok(CdrReader {
            body,
            pos: 0,
            big_endian,
        })
    }

    /// Whether the message is big-endian.
    pub fn is_big_endian(&self) -> bool {
        self.big_endian
    }

    /// Bytes of the body not read yet.
    pub fn remaining(&self) -> usize {
        self.body.len() - self.pos
    }

    fn take(&mut self, n: usize, field: &'static str) -> Result<&'a [u8], DecodeError> {
        let body = self.body;
        let s =
            body.get(self.pos..)
                .and_then(|rest| rest.get(..n))
                .ok_or(DecodeError::Truncated {
                    field,
                    at: self.pos,
                })?;
        self.pos += n;
        Ok(s)
    }

    fn align(&mut self, n: usize, field: &'static str) -> Result<(), DecodeError> {
        let pad = (n - self.pos % n) % n;
        self.take(pad, field).map(|_| ())
    }

    /// A primitive, aligned to its size; `field` names it in errors.
    pub fn read<T: Primitive>(&mut self, field: &'static str) -> Result<T, DecodeError> {
        self.align(T::SIZE, field)?;
        let b = self.take(T::SIZE, field)?;
        Ok(T::from_bytes(b, self.big_endian))
    }

    /// A `bool`: a byte that must be 0 or 1.
    pub fn bool(&mut self, field: &'static str) -> Result<bool, DecodeError> {
        match self.read::<u8>(field)? {
            0 => Ok(false),
            1 => Ok(true),
            value => Err(DecodeError::NotBool { field, value }),
        }
    }

    /// A `float64`.
    pub fn f64(&mut self, field: &'static str) -> Result<f64, DecodeError> {
        self.read(field)
    }

    /// A `string` (a length of 0, which some writers use for the empty string, reads as
    /// empty).
    pub fn string(&mut self, field: &'static str) -> Result<&'a str, DecodeError> {
        let n = self.sequence_len(1, field)?;
        if n == 0 {
            return Ok("");
        }
        let b = self.take(n, field)?;
        let (&nul, text) = b.split_last().ok_or(DecodeError::NotTerminated(field))?;
        if nul != 0 || text.contains(&0) {
            return Err(DecodeError::NotTerminated(field));
        }
        std::str::from_utf8(text).map_err(|_| DecodeError::NotUtf8(field))
    }

    /// The element count of a sequence whose elements take at least `min_size` bytes each;
    /// a count the bytes left cannot hold is an error.
    pub fn sequence_len(
        &mut self,
        min_size: usize,
        field: &'static str,
    ) -> Result<usize, DecodeError> {
        let len: u32 = self.read(field)?;
        let left = self.remaining();
        let n = len as usize;
        if n.saturating_mul(min_size.max(1)) > left {
            return Err(DecodeError::TooLong { field, len, left });
        }
        Ok(n)
    }

    /// A `uint8[]` / `byte[]` sequence.
    pub fn bytes(&mut self, field: &'static str) -> Result<&'a [u8], DecodeError> {
        let n = self.sequence_len(1, field)?;
        self.take(n, field)
    }

    /// A sequence of primitives.
    pub fn seq<T: Primitive>(&mut self, field: &'static str) -> Result<Vec<T>, DecodeError> {
        let n = self.sequence_len(T::SIZE, field)?;
        (0..n).map(|_| self.read(field)).collect()
    }

    /// A fixed array of `N` primitives.
    pub fn array<T: Primitive + Copy + Default, const N: usize>(
        &mut self,
        field: &'static str,
    ) -> Result<[T; N], DecodeError> {
        let mut a = [T::default(); N];
        for x in &mut a {
            *x = self.read(field)?;
        }
        Ok(a)
    }

    /// Ends the message: only the padding a writer may add to round the body up to a
    /// multiple of 8 bytes may follow.
    pub fn finish(self) -> Result<(), DecodeError> {
        match self.remaining() {
            n if n < 8 => Ok(()),
            n => Err(DecodeError::TrailingBytes(n)),
        }
    }
}
