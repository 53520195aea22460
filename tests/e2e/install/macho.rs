//! A static checker for the macOS release binaries (no macOS here to run
//! them): the Mach-O header's architecture, the minimum macOS of
//! `LC_BUILD_VERSION`, the dylibs the binary loads (system ones only), and
//! the embedded code signature: an ad-hoc CodeDirectory whose SHA-256 page
//! hashes match the file's pages.
//!
//! Format facts (numbers, field order): apple-oss-distributions/xnu at
//! 1031c584a5e37aff177559b9f69dbd3c8c3fd30a, EXTERNAL_HEADERS/mach-o/loader.h
//! (mach_header_64, load commands, dylib_command, build_version_command,
//! linkedit_data_command) and osfmk/kern/cs_blobs.h (SuperBlob, BlobIndex,
//! CodeDirectory, CS_ADHOC, CS_HASHTYPE_SHA256). Mach-O headers and load
//! commands are little-endian on both architectures; code signature blobs
//! are big-endian.

/// `MH_MAGIC_64`.
const MH_MAGIC_64: u32 = 0xfeed_facf;
/// `CPU_TYPE_X86_64` (`CPU_TYPE_X86 | CPU_ARCH_ABI64`).
pub const CPU_TYPE_X86_64: u32 = 0x0100_0007;
/// `CPU_TYPE_ARM64` (`CPU_TYPE_ARM | CPU_ARCH_ABI64`).
pub const CPU_TYPE_ARM64: u32 = 0x0100_000c;
const MH_EXECUTE: u32 = 0x2;
const LC_REQ_DYLD: u32 = 0x8000_0000;
const LC_LOAD_DYLIB: u32 = 0xc;
const LC_LOAD_WEAK_DYLIB: u32 = 0x18 | LC_REQ_DYLD;
const LC_REEXPORT_DYLIB: u32 = 0x1f | LC_REQ_DYLD;
const LC_LAZY_LOAD_DYLIB: u32 = 0x20;
const LC_LOAD_UPWARD_DYLIB: u32 = 0x23 | LC_REQ_DYLD;
const LC_CODE_SIGNATURE: u32 = 0x1d;
const LC_VERSION_MIN_MACOSX: u32 = 0x24;
const LC_BUILD_VERSION: u32 = 0x32;
const PLATFORM_MACOS: u32 = 1;
const CSMAGIC_EMBEDDED_SIGNATURE: u32 = 0xfade_0cc0;
const CSMAGIC_CODEDIRECTORY: u32 = 0xfade_0c02;
const CSSLOT_CODEDIRECTORY: u32 = 0;
const CS_ADHOC: u32 = 0x2;
const CS_HASHTYPE_SHA256: u8 = 2;

/// What the checker read from one binary.
#[derive(Debug, Default)]
pub struct MachO {
    /// `cputype` of the header.
    pub cpu_type: u32,
    /// `LC_BUILD_VERSION`'s platform and minos as (major, minor, patch).
    pub build_version: Option<(u32, (u32, u32, u32))>,
    /// Whether an `LC_VERSION_MIN_MACOSX` is there (the older form).
    pub version_min_macosx: Option<(u32, u32, u32)>,
    /// The install names of every dylib load command.
    pub dylibs: Vec<String>,
    /// The embedded code signature, when there is one.
    pub signature: Option<Signature>,
}

/// The CodeDirectory of the embedded signature.
#[derive(Debug)]
pub struct Signature {
    /// CodeDirectory flags (`CS_ADHOC` among them).
    pub flags: u32,
    /// The signing identifier.
    pub identifier: String,
    /// Code slots in the directory.
    pub code_slots: usize,
    /// Bytes per hashed page.
    pub page_size: usize,
    /// Indices of the code slots whose hash does not match the page.
    pub mismatched_pages: Vec<usize>,
}

impl Signature {
    /// Ad-hoc signed (no certificate).
    pub fn is_adhoc(&self) -> bool {
        self.flags & CS_ADHOC != 0
    }
}

fn le32(bytes: &[u8], at: usize) -> Result<u32, String> {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
        .ok_or_else(|| format!("truncated at {at:#x}"))
}

fn be32(bytes: &[u8], at: usize) -> Result<u32, String> {
    bytes
        .get(at..at + 4)
        .map(|b| u32::from_be_bytes(b.try_into().unwrap()))
        .ok_or_else(|| format!("truncated at {at:#x}"))
}

fn byte(bytes: &[u8], at: usize) -> Result<u8, String> {
    bytes
        .get(at)
        .copied()
        .ok_or_else(|| format!("truncated at {at:#x}"))
}

fn c_string(bytes: &[u8], at: usize, end: usize) -> Result<String, String> {
    let slice = bytes
        .get(at..end.min(bytes.len()))
        .ok_or_else(|| format!("string at {at:#x} out of range"))?;
    let len = slice.iter().position(|&b| b == 0).unwrap_or(slice.len());
    Ok(String::from_utf8_lossy(&slice[..len]).into_owned())
}

/// `xxxx.yy.zz` nibble-packed version as (major, minor, patch).
fn version(packed: u32) -> (u32, u32, u32) {
    (packed >> 16, (packed >> 8) & 0xff, packed & 0xff)
}

/// Reads a thin 64-bit Mach-O executable.
pub fn parse(bytes: &[u8]) -> Result<MachO, String> {
    if le32(bytes, 0)? != MH_MAGIC_64 {
        return Err(format!(
            "not a 64-bit little-endian Mach-O (magic {:#x})",
            le32(bytes, 0)?
        ));
    }
    let mut macho = MachO {
        cpu_type: le32(bytes, 4)?,
        ..MachO::default()
    };
    if le32(bytes, 12)? != MH_EXECUTE {
        return Err(format!("filetype {} is not MH_EXECUTE", le32(bytes, 12)?));
    }
    let ncmds = le32(bytes, 16)? as usize;
    let mut at = 32; // sizeof(mach_header_64)
    for _ in 0..ncmds {
        let cmd = le32(bytes, at)?;
        let size = le32(bytes, at + 4)? as usize;
        if size < 8 {
            return Err(format!("load command at {at:#x} has size {size}"));
        }
        match cmd {
            LC_LOAD_DYLIB | LC_LOAD_WEAK_DYLIB | LC_REEXPORT_DYLIB | LC_LAZY_LOAD_DYLIB
            | LC_LOAD_UPWARD_DYLIB => {
                let name = le32(bytes, at + 8)? as usize;
                macho.dylibs.push(c_string(bytes, at + name, at + size)?);
            }
            LC_BUILD_VERSION => {
                macho.build_version = Some((le32(bytes, at + 8)?, version(le32(bytes, at + 12)?)));
            }
            LC_VERSION_MIN_MACOSX => {
                macho.version_min_macosx = Some(version(le32(bytes, at + 8)?));
            }
            LC_CODE_SIGNATURE => {
                let offset = le32(bytes, at + 8)? as usize;
                let size = le32(bytes, at + 12)? as usize;
                let blob = bytes
                    .get(offset..offset + size)
                    .ok_or("the code signature lies outside the file")?;
                macho.signature = Some(code_directory(bytes, blob)?);
            }
            _ => {}
        }
        at += size;
    }
    Ok(macho)
}

/// The CodeDirectory of the embedded SuperBlob `blob`, its code slots
/// checked against the pages of `file`.
fn code_directory(file: &[u8], blob: &[u8]) -> Result<Signature, String> {
    if be32(blob, 0)? != CSMAGIC_EMBEDDED_SIGNATURE {
        return Err(format!(
            "code signature magic {:#x} is not an embedded SuperBlob",
            be32(blob, 0)?
        ));
    }
    let count = be32(blob, 8)? as usize;
    let directory = (0..count)
        .map(|i| Ok((be32(blob, 12 + 8 * i)?, be32(blob, 16 + 8 * i)? as usize)))
        .collect::<Result<Vec<_>, String>>()?
        .into_iter()
        .find(|(slot, _)| *slot == CSSLOT_CODEDIRECTORY)
        .map(|(_, offset)| offset)
        .ok_or("the SuperBlob has no CodeDirectory")?;
    let cd = blob.get(directory..).ok_or("CodeDirectory out of range")?;
    if be32(cd, 0)? != CSMAGIC_CODEDIRECTORY {
        return Err(format!("CodeDirectory magic {:#x}", be32(cd, 0)?));
    }
    let flags = be32(cd, 12)?;
    let hash_offset = be32(cd, 16)? as usize;
    let ident_offset = be32(cd, 20)? as usize;
    let code_slots = be32(cd, 28)? as usize;
    let code_limit = be32(cd, 32)? as usize;
    let hash_size = byte(cd, 36)? as usize;
    let hash_type = byte(cd, 37)?;
    let page_shift = byte(cd, 39)?;
    let identifier = c_string(cd, ident_offset, cd.len())?;
    if hash_type != CS_HASHTYPE_SHA256 || hash_size != 32 {
        return Err(format!(
            "hash type {hash_type} of size {hash_size}: the checker knows SHA-256 only"
        ));
    }
    let page = if page_shift == 0 {
        code_limit.max(1)
    } else {
        1usize << page_shift
    };
    if code_limit > file.len() || code_slots != code_limit.div_ceil(page) {
        return Err(format!(
            "{code_slots} code slots for a code limit of {code_limit} in pages of {page} \
             (file of {} bytes)",
            file.len()
        ));
    }
    let mut mismatched_pages = Vec::new();
    for slot in 0..code_slots {
        let start = slot * page;
        let data = &file[start..(start + page).min(code_limit)];
        let expected = cd
            .get(hash_offset + slot * 32..hash_offset + (slot + 1) * 32)
            .ok_or("code slot out of range")?;
        let actual = aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, data);
        if actual.as_ref() != expected {
            mismatched_pages.push(slot);
        }
    }
    Ok(Signature {
        flags,
        identifier,
        code_slots,
        page_size: page,
        mismatched_pages,
    })
}

/// Everything a release binary for macOS must be, as a list of what it is
/// not (empty: it passes). `cpu_type` is the architecture the zip is named
/// for; `signed` whether an ad-hoc signature is required (arm64: macOS
/// refuses to run unsigned arm64 code).
pub fn problems(macho: &MachO, cpu_type: u32, signed: bool) -> Vec<String> {
    let mut problems = Vec::new();
    if macho.cpu_type != cpu_type {
        problems.push(format!(
            "cputype {:#x}, expected {cpu_type:#x}",
            macho.cpu_type
        ));
    }
    match macho.build_version {
        Some((PLATFORM_MACOS, (11, 0, 0))) => {}
        other => problems.push(format!(
            "LC_BUILD_VERSION {other:?}, expected platform macOS with minos 11.0"
        )),
    }
    if let Some(old) = macho.version_min_macosx {
        problems.push(format!(
            "LC_VERSION_MIN_MACOSX {old:?} beside LC_BUILD_VERSION"
        ));
    }
    if macho.dylibs.is_empty() {
        problems.push("no dylib at all (libSystem is always linked)".to_owned());
    }
    for dylib in &macho.dylibs {
        if !(dylib.starts_with("/usr/lib/") || dylib.starts_with("/System/Library/")) {
            problems.push(format!("{dylib} is not a system library"));
        }
    }
    match (&macho.signature, signed) {
        (None, true) => problems.push("no code signature".to_owned()),
        (Some(signature), _) => {
            if signed && !signature.is_adhoc() {
                problems.push(format!(
                    "CodeDirectory flags {:#x} are not ad-hoc",
                    signature.flags
                ));
            }
            if signature.identifier.is_empty() {
                problems.push("a CodeDirectory without identifier".to_owned());
            }
            if signature.code_slots == 0 {
                problems.push("a CodeDirectory without code slots".to_owned());
            }
            if !signature.mismatched_pages.is_empty() {
                problems.push(format!(
                    "{} of {} page hashes do not match (pages {:?})",
                    signature.mismatched_pages.len(),
                    signature.code_slots,
                    &signature.mismatched_pages[..signature.mismatched_pages.len().min(8)]
                ));
            }
        }
        (None, false) => {}
    }
    problems
}
