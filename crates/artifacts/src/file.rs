//! Reading an artifact file within bounds, for the `file:` import and the
//! fleet scan alike: a regular file of at most
//! [`MAX_INPUT_BYTES`] (4 MiB) of UTF-8, opened
//! without ever blocking (`O_NONBLOCK`: a FIFO opens at once) and its type
//! checked on the open descriptor before any read.

use std::fmt;
use std::io::Read as _;
#[cfg(unix)]
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::Path;

use clusterproxy_domain::import::MAX_INPUT_BYTES;

/// Bytes read between two looks at the cancellation flag.
const CHUNK_BYTES: u64 = 64 * 1024;

/// Why a file was not read; [`Unreadable::detail`] says it naming the file,
/// never quoting its content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreadable {
    /// Nothing at that path.
    NotFound,
    /// A directory.
    Directory,
    /// A FIFO, socket or device.
    NotRegular,
    /// Larger than 4 MiB.
    TooBig,
    /// Not UTF-8 text.
    NotText,
    /// Opening or reading failed (permissions, I/O): the system's message.
    Failed(String),
    /// The computation was cancelled while the file was read.
    Cancelled,
}

impl Unreadable {
    /// The message for the file shown as `path`.
    pub fn detail(&self, path: &str) -> String {
        match self {
            Self::NotFound => format!("File not found: {path}."),
            Self::Directory => format!("{path} is a directory, not a file."),
            Self::NotRegular => format!(
                "{path} is not a regular file (a FIFO, socket or device); give the artifact as a file or inline."
            ),
            Self::TooBig => format!(
                "{path} is larger than {MAX_INPUT_BYTES} bytes (4 MiB), the most an import reads."
            ),
            Self::NotText => format!("{path} is not UTF-8 text."),
            Self::Failed(error) => format!("Cannot read {path}: {error}."),
            Self::Cancelled => format!("{path} was not read: the request was cancelled."),
        }
    }
}

impl fmt::Display for Unreadable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.detail("the file"))
    }
}

/// The text of the regular file at `path` (symbolic links followed).
pub fn read(path: &Path) -> Result<String, Unreadable> {
    read_with(path, 0)
}

/// The text of the regular file at `path`, which must not be a symbolic
/// link (the fleet walk resolved and checked every link in it already, so
/// a link that appears there since is not followed).
pub fn read_unlinked(path: &Path) -> Result<String, Unreadable> {
    #[cfg(unix)]
    return read_with(path, libc::O_NOFOLLOW);
    #[cfg(not(unix))]
    read_with(path, 0)
}

/// [`read`], with `flags` added to the open's; a read of many chunks stops
/// when the computation is cancelled (the text read so far is discarded).
fn read_with(path: &Path, flags: i32) -> Result<String, Unreadable> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    // Windows opens a named pipe without waiting for its server; the type
    // check below refuses it.
    #[cfg(unix)]
    options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | flags);
    #[cfg(not(unix))]
    let _ = flags;
    let file = options.open(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Unreadable::NotFound,
        _ => Unreadable::Failed(e.to_string()),
    })?;
    let meta = file
        .metadata()
        .map_err(|e| Unreadable::Failed(e.to_string()))?;
    if meta.is_dir() {
        return Err(Unreadable::Directory);
    }
    if !meta.is_file() {
        return Err(Unreadable::NotRegular);
    }
    if meta.len() > MAX_INPUT_BYTES as u64 {
        return Err(Unreadable::TooBig);
    }
    let mut bytes = Vec::new();
    let mut rest = file.take(MAX_INPUT_BYTES as u64 + 1);
    loop {
        if clusterproxy_cancel::requested() {
            return Err(Unreadable::Cancelled);
        }
        let read = (&mut rest)
            .take(CHUNK_BYTES)
            .read_to_end(&mut bytes)
            .map_err(|e| Unreadable::Failed(e.to_string()))?;
        if read == 0 {
            break;
        }
    }
    if bytes.len() > MAX_INPUT_BYTES {
        return Err(Unreadable::TooBig);
    }
    String::from_utf8(bytes).map_err(|_| Unreadable::NotText)
}
