//! The walk of a fleet scan: reads the directory a [`Scan`] names and hands
//! each file's path below it, name and text to the domain
//! ([`fleet::classify`], [`Clusters::admit`]), which tells what it is; each
//! event goes to the caller as it is found. Memory does not grow with the
//! number of artifacts: a directory's names are held while it is walked,
//! and one hash per cluster listed tells a second artifact of the same
//! cluster.
//!
//! Cancellation ([`clusterproxy_cancel::requested`]) is looked at before
//! each entry, inside each glob match and file read, and after them, so a
//! cancelled walk stops within one entry's work.
//!
//! Bounds: files are read as the `file:` import reads them ([`file::read`]:
//! regular files only, without blocking, at most 4 MiB); at most
//! [`MAX_ENTRIES`] entries are looked at and [`MAX_DEPTH`] directory levels
//! walked. The walk stays in its tree: a symbolic link is followed only
//! when its target, every link in it resolved, lies inside the directory
//! (itself resolved: `directory` may be a link), and then not when it leads
//! back to one of its own parents (a loop); a link out of the tree, to a
//! file or a directory, is not followed. Kernel file systems (`/proc`,
//! `/sys`) are not walked, mounted below the directory or as it: their links
//! (`/proc/<pid>/cwd`, `/proc/<pid>/root`) lead into other processes' trees
//! by the kernel's own objects, not by paths, and their files are no
//! artifacts. Names starting with `.` (`.git`, `.terraform`) are passed
//! over. A file that cannot be read, a link not followed, a loop or a tree
//! too deep is a [`Event::Skipped`] naming it and the reason, and the walk
//! goes on.

use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use clusterproxy_domain::import::fleet::{self, Clusters, Event, Scan};
use clusterproxy_domain::import::sniff;

use crate::file::{self, Unreadable};

/// Most directory entries (files and directories) a scan looks at.
pub const MAX_ENTRIES: usize = 50_000;

/// Deepest directory level walked below the scanned directory.
pub const MAX_DEPTH: usize = 32;

/// Scans `scan.directory`, handing every event to `emit`, which may stop
/// the scan. An error when the directory cannot be walked at all, or holds
/// more than [`MAX_ENTRIES`] entries (the events before it were handed
/// over).
pub fn scan(scan: &Scan, emit: &mut dyn FnMut(Event) -> ControlFlow<()>) -> Result<(), String> {
    let root = Path::new(&scan.directory);
    let meta = std::fs::metadata(root).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => format!(
            "{:?} does not exist (relative paths start at the working directory).",
            scan.directory
        ),
        _ => format!("Cannot read {:?}: {e}.", scan.directory),
    })?;
    if !meta.is_dir() {
        return Err(format!(
            "{:?} is not a directory; name the directory that holds the artifacts (a file is imported with an `import` block).",
            scan.directory
        ));
    }
    // Where the tree is, every link resolved: what links may lead into.
    let inside = std::fs::canonicalize(root)
        .map_err(|e| format!("Cannot read {:?}: {e}.", scan.directory))?;
    if kernel_file_system(&inside) {
        return Err(format!(
            "{:?} is on a kernel file system (such as /proc or /sys), whose files are no artifacts and whose links lead into other processes' trees; name the directory that holds the artifacts.",
            scan.directory
        ));
    }
    let mut walk = Walk {
        scan,
        emit,
        entries: 0,
        clusters: Clusters::default(),
        ancestors: vec![identity(&meta)],
        inside: inside.clone(),
    };
    match walk.directory(&inside, "", 0) {
        ControlFlow::Continue(()) | ControlFlow::Break(Stop::Emitter) => Ok(()),
        ControlFlow::Break(Stop::Error(error)) => Err(error),
    }
}

/// Why a walk stops early.
enum Stop {
    /// The caller asked (a limit, a cancellation).
    Emitter,
    /// The scan cannot go on.
    Error(String),
}

struct Walk<'a> {
    scan: &'a Scan,
    emit: &'a mut dyn FnMut(Event) -> ControlFlow<()>,
    entries: usize,
    clusters: Clusters,
    /// The directories from the root down to the one walked.
    ancestors: Vec<(u64, u64)>,
    /// The scanned directory, every link resolved.
    inside: PathBuf,
}

/// Where a directory entry leads, its links resolved.
enum Target {
    /// Inside the tree: its path (resolved when it was a link) and metadata.
    Inside(PathBuf, std::fs::Metadata),
    /// Not followed, and why.
    Refused(String),
}

/// Goes on unless the walk's computation is cancelled.
fn go_on() -> ControlFlow<Stop> {
    match clusterproxy_cancel::requested() {
        true => ControlFlow::Break(Stop::Emitter),
        false => ControlFlow::Continue(()),
    }
}

/// A directory's device and inode (a loop leads back to one of its parents).
fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        (meta.dev(), meta.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        (0, 0)
    }
}

impl Walk<'_> {
    fn emit(&mut self, event: Event) -> ControlFlow<Stop> {
        (self.emit)(event).map_break(|()| Stop::Emitter)
    }

    fn skip(&mut self, path: &str, reason: impl Into<String>) -> ControlFlow<Stop> {
        self.emit(Event::Skipped {
            path: path.to_owned(),
            reason: reason.into(),
        })
    }

    fn directory(&mut self, dir: &Path, rel: &str, depth: usize) -> ControlFlow<Stop> {
        let listing = match std::fs::read_dir(dir) {
            Ok(listing) => listing,
            Err(e) if depth == 0 => {
                return ControlFlow::Break(Stop::Error(format!(
                    "Cannot read {:?}: {e}.",
                    self.scan.directory
                )))
            }
            Err(e) => {
                return self.skip(
                    &self.scan.shown(rel),
                    format!("cannot read the directory: {e}"),
                )
            }
        };
        let mut names = Vec::new();
        for entry in listing {
            self.entries += 1;
            if self.entries > MAX_ENTRIES {
                return ControlFlow::Break(Stop::Error(format!(
                    "{:?} holds more than {MAX_ENTRIES} files and directories, more than one query lists; point `directory` at a part of it, or leave parts out with `exclude`.",
                    self.scan.directory
                )));
            }
            go_on()?;
            let Ok(entry) = entry else { continue };
            // A name that is not UTF-8 cannot be named in an import ID.
            if let Ok(name) = entry.file_name().into_string() {
                if !name.starts_with('.') {
                    names.push(name);
                }
            }
        }
        names.sort_unstable();
        for name in names {
            go_on()?;
            let rel = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let (path, meta) = match self.target(dir.join(&name)) {
                Target::Inside(path, meta) => (path, meta),
                Target::Refused(reason) => {
                    self.skip(&self.scan.shown(&rel), reason)?;
                    continue;
                }
            };
            if meta.is_dir() {
                if self.scan.excluded(&rel, true) {
                    continue;
                }
                go_on()?;
                if depth + 1 > MAX_DEPTH {
                    self.skip(
                        &self.scan.shown(&rel),
                        format!("deeper than {MAX_DEPTH} directory levels; not walked"),
                    )?;
                    continue;
                }
                let id = identity(&meta);
                if self.ancestors.last().is_some_and(|parent| parent.0 != id.0)
                    && kernel_file_system(&path)
                {
                    self.skip(
                        &self.scan.shown(&rel),
                        "a kernel file system (such as /proc or /sys), whose files are no artifacts and whose links lead into other processes' trees; not walked",
                    )?;
                    continue;
                }
                if self.ancestors.contains(&id) {
                    self.skip(
                        &self.scan.shown(&rel),
                        "a symbolic link to one of its own parent directories (a loop); not followed",
                    )?;
                    continue;
                }
                self.ancestors.push(id);
                let walked = self.directory(&path, &rel, depth + 1);
                self.ancestors.pop();
                walked?;
            } else {
                self.file(&path, &name, &rel)?;
            }
        }
        ControlFlow::Continue(())
    }

    /// Where the entry at `path` leads: itself when it is no symbolic link;
    /// for a link, its target with every link resolved, when that lies
    /// inside the tree.
    fn target(&self, path: PathBuf) -> Target {
        let Ok(own) = std::fs::symlink_metadata(&path) else {
            return Target::Refused("gone while the directory was walked".to_owned());
        };
        if !own.file_type().is_symlink() {
            return Target::Inside(path, own);
        }
        let resolved = match std::fs::canonicalize(&path) {
            Ok(resolved) => resolved,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Target::Refused("a symbolic link to nothing".to_owned())
            }
            Err(e) => {
                return Target::Refused(format!("a symbolic link that cannot be followed: {e}"))
            }
        };
        if !resolved.starts_with(&self.inside) {
            return Target::Refused(
                "a symbolic link to outside `directory`; not followed (the walk stays in its tree)"
                    .to_owned(),
            );
        }
        match std::fs::metadata(&resolved) {
            Ok(meta) => Target::Inside(resolved, meta),
            Err(_) => Target::Refused("a symbolic link to nothing".to_owned()),
        }
    }

    fn file(&mut self, path: &Path, name: &str, rel: &str) -> ControlFlow<Stop> {
        let reads = self.scan.reads(rel);
        // A cancelled glob match answers no match.
        go_on()?;
        if !reads {
            return ControlFlow::Continue(());
        }
        let text = match file::read_unlinked(path) {
            Ok(text) => text,
            Err(Unreadable::Cancelled) => return ControlFlow::Break(Stop::Emitter),
            // Binary files, FIFOs, sockets and devices are no artifacts.
            Err(Unreadable::NotText | Unreadable::NotRegular | Unreadable::NotFound) => {
                return ControlFlow::Continue(())
            }
            Err(why) => return self.skip(&self.scan.shown(rel), why.detail("the file")),
        };
        let event = match fleet::classify(self.scan, rel, name, &text) {
            Some(Event::Listed(listed)) => self.clusters.admit(listed),
            None => sniff::unimported(self.scan, rel, name, &text),
            other => other,
        };
        drop(text);
        match event {
            Some(event) => self.emit(event),
            None => ControlFlow::Continue(()),
        }
    }
}

/// Whether `path` is on a kernel file system (procfs, sysfs).
#[cfg(target_os = "linux")]
fn kernel_file_system(path: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt as _;
    let Ok(c_path) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
        return false;
    };
    // SAFETY: `c_path` is a valid C string and `stats` a writable statfs.
    let mut stats: libc::statfs = unsafe { std::mem::zeroed() };
    if unsafe { libc::statfs(c_path.as_ptr(), &mut stats) } != 0 {
        return false;
    }
    // The field's and the constants' C types differ between C libraries.
    #[allow(clippy::unnecessary_cast)]
    let (kind, proc, sys) = (
        stats.f_type as i64,
        libc::PROC_SUPER_MAGIC as i64,
        libc::SYSFS_MAGIC as i64,
    );
    kind == proc || kind == sys
}

/// Whether `path` is on a kernel file system: none known here.
#[cfg(not(target_os = "linux"))]
fn kernel_file_system(_path: &Path) -> bool {
    false
}

#[cfg(test)]
mod tests;
