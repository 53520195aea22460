//! Reading the artifact an import ID names: the domain parses the ID and
//! hands back a `file:` source as its path; the file is read here, by
//! [`file::read`]: without ever blocking and at most 4 MiB.

use std::borrow::Cow;
use std::path::Path;

use crate::artifacts::file;
use crate::domain::import::id::Artifact;
use crate::domain::Finding;

fn unreadable(detail: impl Into<String>) -> Finding {
    Finding::error(None, "Cannot read the artifact", detail)
}

/// The artifact's text: read from its file, or given inline.
pub fn text(artifact: &Artifact) -> Result<Cow<'_, str>, Finding> {
    match artifact {
        Artifact::File(path) => read_file(path).map(Cow::Owned),
        Artifact::Inline(text) => Ok(Cow::Borrowed(text)),
    }
}

/// Reads the artifact's file (see [`file::read`]); messages name the
/// file, never its content.
fn read_file(path: &str) -> Result<String, Finding> {
    file::read(Path::new(path)).map_err(|why| unreadable(why.detail(path)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::import::{id, MAX_INPUT_BYTES};

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("clusterproxy-id-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    /// The text of the artifact `id` names.
    fn read(id: &str) -> Result<String, Finding> {
        Ok(text(&id::parse(id)?.artifact)?.into_owned())
    }

    #[test]
    fn files_are_read_without_blocking_and_within_the_cap() {
        let file = scratch("dropin.conf");
        std::fs::write(&file, "[Service]\nEnvironment=HTTP_PROXY=http://p:1\n").unwrap();
        let path = file.display().to_string();
        for id in [format!("systemd:{path}"), format!("systemd:file:{path}")] {
            assert!(read(&id).unwrap().starts_with("[Service]"), "{id}");
        }
        assert_eq!(read("systemd:inline:[Service]").unwrap(), "[Service]");
        let missing = read("systemd:/nonexistent/http-proxy.conf").unwrap_err();
        assert_eq!(missing.summary, "Cannot read the artifact");
        assert_eq!(
            missing.detail,
            "File not found: /nonexistent/http-proxy.conf."
        );
        assert!(read("systemd:file:/nonexistent/a b.conf")
            .unwrap_err()
            .detail
            .contains("File not found"));
        let dir = std::env::temp_dir().display().to_string();
        assert!(read(&format!("systemd:{dir}"))
            .unwrap_err()
            .detail
            .contains("directory"));
        assert!(read("systemd:/dev/zero")
            .unwrap_err()
            .detail
            .contains("not a regular file"));
        let fifo = scratch("fifo");
        let _ = std::fs::remove_file(&fifo);
        let c_path = std::ffi::CString::new(fifo.display().to_string()).unwrap();
        // SAFETY: mkfifo reads a NUL-terminated path, valid for the call.
        assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
        let started = std::time::Instant::now();
        let err = read(&format!("systemd:file:{}", fifo.display())).unwrap_err();
        assert!(err.detail.contains("not a regular file"), "{}", err.detail);
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        let big = scratch("big.conf");
        std::fs::write(&big, vec![b'#'; MAX_INPUT_BYTES + 1]).unwrap();
        assert!(read(&format!("systemd:file:{}", big.display()))
            .unwrap_err()
            .detail
            .contains("4 MiB"));
        let binary = scratch("binary.conf");
        std::fs::write(&binary, [0xff, 0xfe, b'x']).unwrap();
        let err = read(&format!("systemd:file:{}", binary.display())).unwrap_err();
        assert!(err.detail.ends_with("is not UTF-8 text."), "{}", err.detail);
    }
}
