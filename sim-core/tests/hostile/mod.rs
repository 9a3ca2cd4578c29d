//! Hostile files the untrusted-input tests write (see `docs/untrusted-input.md`): binary STLs
//! whose header claims any triangle count, PNGs whose header claims any size, and a sound
//! solid to compare with.
#![allow(dead_code)]

/// A binary STL of `triangles`, its header claiming `claimed` triangles (their real number
/// when None).
pub fn stl(triangles: &[[[f32; 3]; 3]], claimed: Option<u32>) -> Vec<u8> {
    let mut b = vec![0u8; 80];
    b.extend(claimed.unwrap_or(triangles.len() as u32).to_le_bytes());
    for t in triangles {
        b.extend([0u8; 12]);
        for v in t {
            b.extend(v.iter().flat_map(|c| c.to_le_bytes()));
        }
        b.extend([0u8; 2]);
    }
    b
}

/// A PNG whose header claims `width` x `height` 8-bit grey pixels, with almost no data: only
/// the header matters to the size check.
pub fn png_claiming(width: u32, height: u32) -> Vec<u8> {
    fn crc32(bytes: &[u8]) -> u32 {
        let mut c = 0xffff_ffffu32;
        for &b in bytes {
            c ^= u32::from(b);
            for _ in 0..8 {
                c = if c & 1 != 0 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
            }
        }
        !c
    }
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut chunk = |kind: &[u8; 4], data: &[u8]| {
        out.extend((data.len() as u32).to_be_bytes());
        let mut body = kind.to_vec();
        body.extend(data);
        out.extend(&body);
        out.extend(crc32(&body).to_be_bytes());
    };
    let mut ihdr = width.to_be_bytes().to_vec();
    ihdr.extend(height.to_be_bytes());
    ihdr.extend([8, 0, 0, 0, 0]);
    chunk(b"IHDR", &ihdr);
    chunk(b"IDAT", &[0x78, 0x9c, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]);
    chunk(b"IEND", &[]);
    out
}

/// A unit tetrahedron.
pub fn tetrahedron() -> Vec<[[f32; 3]; 3]> {
    let p = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [0.0, 0.0, 1.0],
    ];
    vec![
        [p[0], p[2], p[1]],
        [p[0], p[1], p[3]],
        [p[0], p[3], p[2]],
        [p[1], p[2], p[3]],
    ]
}
