//! Checking a library file before it is opened: opening a shared library runs its
//! constructors, and mapping a file cut short kills the process with SIGBUS when a missing
//! page is touched. So on ELF platforms a file is opened only when it is a complete ELF shared
//! object of this machine's class and byte order (every segment and section header within
//! the file) that exports abi_stable's root module symbol; any other is refused with a
//! reason, without being opened. Only the headers, the dynamic symbol table and the
//! read-only data (where the factory list is, see `listing`) are read.

use super::listing::Listing;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// The largest dynamic symbol or string table read (a plugin's are a few hundred KiB).
const MAX_TABLE_BYTES: u64 = 64 << 20;

/// `ET_DYN`: a shared object.
const ET_DYN: u16 = 3;
/// `SHT_DYNSYM`: the dynamic symbol table.
const SHT_DYNSYM: u32 = 11;
/// `SHT_PROGBITS`: data of the program.
const SHT_PROGBITS: u32 = 1;
/// `SHF_WRITE | SHF_EXECINSTR`: the flags of sections that are not read-only data.
const WRITE_OR_EXEC: u64 = 0x1 | 0x4;
/// `SHF_ALLOC`: the section is loaded.
const SHF_ALLOC: u64 = 0x2;

/// Whether the file at `path` may be opened (`Err`: the reason it is not), and, when it may,
/// the factory list it carries (None: none found, or not an ELF platform).
pub(super) fn examine(path: &Path) -> Result<Option<Listing>, String> {
    if !cfg!(target_os = "linux") {
        return Ok(None);
    }
    check(path)
}

fn read_at(f: &mut File, offset: u64, len: u64) -> Result<Vec<u8>, String> {
    let mut buf = vec![0; len as usize];
    f.seek(SeekFrom::Start(offset))
        .and_then(|_| f.read_exact(&mut buf))
        .map_err(|e| format!("cannot be read: {e}"))?;
    Ok(buf)
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().expect("4 bytes"))
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().expect("8 bytes"))
}

/// Whether `offset + count * size` lies within `len`.
fn within(offset: u64, count: u64, size: u64, len: u64) -> bool {
    count
        .checked_mul(size)
        .and_then(|n| n.checked_add(offset))
        .is_some_and(|end| end <= len)
}

fn check(path: &Path) -> Result<Option<Listing>, String> {
    let truncated = |what: &str| {
        format!("it is not a complete shared library ({what} lies past its end: a truncated copy?)")
    };
    let mut f = File::open(path).map_err(|e| format!("cannot be read: {e}"))?;
    let len = f
        .metadata()
        .map_err(|e| format!("cannot be read: {e}"))?
        .len();
    if len < 64 {
        return Err("it is not an ELF shared library (too short)".into());
    }
    let h = read_at(&mut f, 0, 64)?;
    if &h[..4] != b"\x7fELF" {
        return Err("it is not an ELF shared library".into());
    }
    // 64-bit, little-endian: the machines simcore is built for.
    if h[4] != 2 || h[5] != 1 || !cfg!(target_pointer_width = "64") || cfg!(target_endian = "big") {
        return Err("it is an ELF file of another class or byte order than this machine's".into());
    }
    if u16_at(&h, 16) != ET_DYN {
        return Err("it is an ELF file but not a shared library".into());
    }
    let (phoff, shoff) = (u64_at(&h, 32), u64_at(&h, 40));
    let (phentsize, phnum) = (u64::from(u16_at(&h, 54)), u64::from(u16_at(&h, 56)));
    let (shentsize, shnum) = (u64::from(u16_at(&h, 58)), u64::from(u16_at(&h, 60)));
    if phentsize < 56 || !within(phoff, phnum, phentsize, len) {
        return Err(truncated("its program headers"));
    }
    let ph = read_at(&mut f, phoff, phnum * phentsize)?;
    for i in 0..phnum as usize {
        let p = &ph[i * phentsize as usize..];
        let (offset, filesz) = (u64_at(p, 8), u64_at(p, 32));
        if !within(offset, 1, filesz, len) {
            return Err(truncated("a segment"));
        }
    }
    if shentsize < 64 || !within(shoff, shnum, shentsize, len) {
        return Err(truncated("its section headers"));
    }
    let sh = read_at(&mut f, shoff, shnum * shentsize)?;
    let section = |i: usize| &sh[i * shentsize as usize..(i + 1) * shentsize as usize];
    let no_root = "not a simcore plugin: it exports no abi_stable root module (plugins are built \
                   with sim_plugin_api::export_plugin!); it was not opened";
    let Some(dynsym) = (0..shnum as usize).find(|&i| u32_at(section(i), 4) == SHT_DYNSYM) else {
        return Err(no_root.into());
    };
    let s = section(dynsym);
    let (sym_off, sym_size, link, entsize) = (
        u64_at(s, 24),
        u64_at(s, 32),
        u32_at(s, 40) as usize,
        u64_at(s, 56),
    );
    if link >= shnum as usize || entsize < 24 {
        return Err("its dynamic symbol table is malformed".into());
    }
    let strtab = section(link);
    let (str_off, str_size) = (u64_at(strtab, 24), u64_at(strtab, 32));
    if sym_size > MAX_TABLE_BYTES || str_size > MAX_TABLE_BYTES {
        return Err("its dynamic symbol table is larger than any plugin's".into());
    }
    if !within(sym_off, 1, sym_size, len) || !within(str_off, 1, str_size, len) {
        return Err(truncated("its dynamic symbol table"));
    }
    let syms = read_at(&mut f, sym_off, sym_size)?;
    let strs = read_at(&mut f, str_off, str_size)?;
    let wanted = abi_stable::library::ROOT_MODULE_LOADER_NAME.as_bytes();
    let exported = syms.chunks_exact(entsize as usize).any(|sym| {
        let name = u32_at(sym, 0) as usize;
        let defined = u16_at(sym, 6) != 0;
        defined
            && strs
                .get(name..)
                .and_then(|rest| rest.split(|&b| b == 0).next())
                .is_some_and(|n| n == wanted)
    });
    if !exported {
        return Err(no_root.into());
    }
    // The factory list lies in the read-only data, in the first such section that holds one.
    for i in 0..shnum as usize {
        let s = section(i);
        let (kind, flags, offset, size) =
            (u32_at(s, 4), u64_at(s, 8), u64_at(s, 24), u64_at(s, 32));
        if kind != SHT_PROGBITS || flags & SHF_ALLOC == 0 || flags & WRITE_OR_EXEC != 0 {
            continue;
        }
        if size > MAX_TABLE_BYTES || !within(offset, 1, size, len) {
            continue;
        }
        if let Some(list) = super::listing::find(&read_at(&mut f, offset, size)?) {
            return Ok(Some(list));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_what_is_not_a_complete_plugin_without_opening_it() {
        let t = tempfile::tempdir().unwrap();
        let text = t.path().join("libtext.so");
        std::fs::write(
            &text,
            "not a library at all, just text long enough to be read in full",
        )
        .unwrap();
        assert!(check(&text).unwrap_err().contains("not an ELF"));
        // The engine itself is a complete ELF file, but not a shared library with a root
        // module (a test binary is an executable or a position-independent one).
        let me = std::env::current_exe().unwrap();
        let e = check(&me).unwrap_err();
        assert!(
            e.contains("not a shared library") || e.contains("root module"),
            "{e}"
        );
        // Cut short: refused, whatever it was.
        let bytes = std::fs::read(&me).unwrap();
        let cut = t.path().join("libcut.so");
        std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
        assert!(check(&cut).is_err());
    }
}
