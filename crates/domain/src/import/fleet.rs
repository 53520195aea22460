//! The fleet scan behind the `clusterproxy_profile` list resource: walks a
//! directory of cluster artifacts (a GitOps repository), tells each file's
//! kind from its content and name (`detect.rs`), sends it through the same
//! importer as an import ID does ([`parse_with`]), and
//! hands each cluster found to the caller as it is found, with the import
//! ID that gives the same profile. Memory does not grow with the number of
//! artifacts: a directory's names are held while it is walked, and one hash
//! per cluster listed tells a second artifact of the same cluster.
//!
//! Bounds: files are read as the `file:` import reads them ([`file::read`]:
//! regular files only, without blocking, at most 4 MiB); at most
//! [`MAX_ENTRIES`] entries are looked at and [`MAX_DEPTH`] directory levels
//! walked; a symbolic link to a directory is followed unless it leads back
//! to one of its own parents (a loop). Names starting with `.` (`.git`,
//! `.terraform`) are passed over.
//!
//! What is reported: files that are no artifact of any kind pass quietly;
//! an artifact the import refuses, a file that cannot be read, a loop or a
//! tree too deep is a [`Event::Skipped`] naming the file and the reason,
//! and the scan goes on. A second artifact of a cluster already listed (a
//! Cluster and its KubeadmControlPlane side by side, a copy) passes quietly
//! when it gives the same settings, and is reported when they differ.

mod detect;
mod glob;

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};
use std::ops::ControlFlow;
use std::path::Path;

pub use detect::kind_of;
pub use glob::{Glob, MAX_GLOB_CHARS};

use super::file::{self, Unreadable};
use super::id::{read_facts, Artifact, ImportId};
use super::imported::Imported;
use super::parse_with;
use super::registry::importer;
use crate::no_proxy::Cluster;

/// Most directory entries (files and directories) a scan looks at.
pub const MAX_ENTRIES: usize = 50_000;

/// Deepest directory level walked below the scanned directory.
pub const MAX_DEPTH: usize = 32;

/// The import facts of the files a glob matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    /// Cluster facts, as an import ID gives them.
    pub cluster: Cluster,
    /// As the import option: an artifact that sends HTTPS direct may
    /// become a profile that sends it through the proxy.
    pub https_through_proxy: bool,
}

/// A part of a scan's configuration that is wrong, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bad {
    /// `include[index]`.
    Include(usize, String),
    /// `exclude[index]`.
    Exclude(usize, String),
    /// The glob of `kinds`, or its kind.
    Kind(String, String),
    /// The glob of `facts`, or its facts.
    Facts(String, String),
}

/// What to scan.
#[derive(Debug, Clone, Default)]
pub struct Scan {
    /// The directory as the configuration names it (relative to the working
    /// directory, or absolute); each file's path is this, `/`, and its path
    /// below it.
    pub directory: String,
    /// Only files matching one of these are read (all when empty).
    pub include: Vec<Glob>,
    /// Files and directories matching one of these are passed over.
    pub exclude: Vec<Glob>,
    /// Kinds by glob, for files whose kind cannot be told from their
    /// content; of the globs that match a file, the longest applies.
    pub kinds: Vec<(Glob, &'static str)>,
    /// Import facts by glob; of the globs that match a file, the longest
    /// applies.
    pub facts: Vec<(Glob, Facts)>,
}

impl Scan {
    /// The scan of `directory` the configuration describes: globs as
    /// [`Glob`] reads them, kinds among [`kinds()`](super::kinds), facts in
    /// the import ID's syntax (`pod_cidrs=10.0.0.0/16;service_cidrs=...`).
    pub fn new(
        directory: &str,
        include: &[String],
        exclude: &[String],
        kinds: &BTreeMap<String, String>,
        facts: &BTreeMap<String, String>,
    ) -> Result<Self, Vec<Bad>> {
        let mut bad = Vec::new();
        let mut globs = |list: &[String], wrap: fn(usize, String) -> Bad| -> Vec<Glob> {
            list.iter()
                .enumerate()
                .filter_map(|(i, g)| Glob::parse(g).map_err(|e| bad.push(wrap(i, e))).ok())
                .collect()
        };
        let include = globs(include, Bad::Include);
        let exclude = globs(exclude, Bad::Exclude);
        let mut by_kind = Vec::new();
        for (glob, kind) in kinds {
            let parsed = Glob::parse(glob).map_err(|e| bad.push(Bad::Kind(glob.clone(), e)));
            let known = importer(kind).map(|i| i.kind()).ok_or_else(|| {
                bad.push(Bad::Kind(
                    glob.clone(),
                    format!(
                        "Unknown kind {kind:?}; use one of {}.",
                        super::kinds().join(", ")
                    ),
                ))
            });
            if let (Ok(glob), Ok(kind)) = (parsed, known) {
                by_kind.push((glob, kind));
            }
        }
        let mut by_facts = Vec::new();
        for (glob, text) in facts {
            let parsed = Glob::parse(glob).map_err(|e| bad.push(Bad::Facts(glob.clone(), e)));
            let mut cluster = Cluster::default();
            let read = read_facts(text, &mut cluster)
                .map_err(|f| bad.push(Bad::Facts(glob.clone(), f.detail)));
            if let (Ok(glob), Ok(https_through_proxy)) = (parsed, read) {
                by_facts.push((
                    glob,
                    Facts {
                        cluster,
                        https_through_proxy,
                    },
                ));
            }
        }
        if !bad.is_empty() {
            return Err(bad);
        }
        by_kind.sort_by_key(|(g, _)| std::cmp::Reverse(g.as_str().len()));
        by_facts.sort_by_key(|(g, _)| std::cmp::Reverse(g.as_str().len()));
        Ok(Self {
            directory: directory.to_owned(),
            include,
            exclude,
            kinds: by_kind,
            facts: by_facts,
        })
    }
}

/// One cluster found.
#[derive(Debug, Clone)]
pub struct Listed {
    /// The import ID that gives this profile (named, `file:` the path).
    pub id: ImportId,
    /// The file's path: the directory as configured, joined with its path below it.
    pub path: String,
    /// What its import read.
    pub imported: Imported,
}

impl Listed {
    /// The profile's name.
    pub fn name(&self) -> &str {
        self.id.name.as_deref().unwrap_or_default()
    }

    /// "name (kind, path)", as `terraform query` lists it.
    pub fn display_name(&self) -> String {
        format!("{} ({}, {})", self.name(), self.id.kind, self.path)
    }
}

/// What a scan reports, in walk order (names sorted within a directory).
#[derive(Debug, Clone)]
pub enum Event {
    /// A cluster.
    Listed(Box<Listed>),
    /// A file or directory passed over, and why (for a warning).
    Skipped {
        /// Its path, as [`Listed::path`].
        path: String,
        /// Why, naming no secret.
        reason: String,
    },
}

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
    let mut walk = Walk {
        scan,
        emit,
        entries: 0,
        seen: HashMap::new(),
        ancestors: vec![identity(&meta)],
    };
    match walk.directory(root, "", 0) {
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
    /// Hash of (kind, name) of each cluster listed -> hash of its settings.
    seen: HashMap<u64, u64>,
    /// The directories from the root down to the one walked.
    ancestors: Vec<(u64, u64)>,
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

fn hash(value: impl Hash) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
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

    /// The path shown for `rel`: the directory as configured, `/`, `rel`.
    fn shown(&self, rel: &str) -> String {
        let directory = self.scan.directory.trim_end_matches('/');
        match directory {
            "" if self.scan.directory.starts_with('/') => format!("/{rel}"),
            "" | "." => rel.to_owned(),
            directory => format!("{directory}/{rel}"),
        }
    }

    fn excluded(&self, rel: &str, is_dir: bool) -> bool {
        self.scan
            .exclude
            .iter()
            .any(|glob| glob.matches(rel) || (is_dir && glob.matches(&format!("{rel}/"))))
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
                return self.skip(&self.shown(rel), format!("cannot read the directory: {e}"))
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
            if clusterproxy_cancel::requested() {
                return ControlFlow::Break(Stop::Emitter);
            }
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
            let rel = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            let path = dir.join(&name);
            let meta = match std::fs::metadata(&path) {
                Ok(meta) => meta,
                Err(_) => {
                    self.skip(&self.shown(&rel), "a symbolic link to nothing")?;
                    continue;
                }
            };
            if meta.is_dir() {
                if self.excluded(&rel, true) {
                    continue;
                }
                if depth + 1 > MAX_DEPTH {
                    self.skip(
                        &self.shown(&rel),
                        format!("deeper than {MAX_DEPTH} directory levels; not walked"),
                    )?;
                    continue;
                }
                let id = identity(&meta);
                if self.ancestors.contains(&id) {
                    self.skip(
                        &self.shown(&rel),
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

    fn file(&mut self, path: &Path, name: &str, rel: &str) -> ControlFlow<Stop> {
        let included =
            self.scan.include.is_empty() || self.scan.include.iter().any(|g| g.matches(rel));
        if !included || self.excluded(rel, false) {
            return ControlFlow::Continue(());
        }
        let shown = self.shown(rel);
        let text = match file::read(path) {
            Ok(text) => text,
            // Binary files, FIFOs, sockets and devices are no artifacts.
            Err(Unreadable::NotText | Unreadable::NotRegular | Unreadable::NotFound) => {
                return ControlFlow::Continue(())
            }
            Err(why) => return self.skip(&shown, why.detail("the file")),
        };
        let given = self.scan.kinds.iter().find(|(g, _)| g.matches(rel));
        let Some(kind) = given
            .map(|(_, kind)| *kind)
            .or_else(|| detect::kind_of(name, &text))
        else {
            return ControlFlow::Continue(());
        };
        let rule = self.scan.facts.iter().find(|(g, _)| g.matches(rel));
        let facts = rule.map(|(_, f)| f.cluster.clone()).unwrap_or_default();
        let https_through_proxy = rule.is_some_and(|(_, f)| f.https_through_proxy);
        let imported = parse_with(kind, &text, &facts).and_then(|mut imported| {
            imported
                .keep_meaning(https_through_proxy)
                .map_err(|f| vec![f])?;
            Ok(imported)
        });
        drop(text);
        let imported = match imported {
            Ok(imported) => imported,
            Err(findings) => {
                let reasons: Vec<String> = findings.into_iter().map(|f| f.detail).collect();
                return self.skip(
                    &shown,
                    format!("read as `{kind}`, not imported: {}", reasons.join(" ")),
                );
            }
        };
        // An artifact that names no cluster is named after its path, so
        // that every node drop-in of a fleet gets its own profile.
        let name = if imported.name == kind {
            name_of_path(rel)
        } else {
            imported.name.clone()
        };
        let key = hash((kind, &name));
        let settings = hash((
            &imported.http_proxy,
            &imported.https_proxy,
            &imported.username,
            &imported.no_proxy,
            &imported.trusted_ca,
        ));
        match self.seen.get(&key) {
            Some(known) if *known == settings => return ControlFlow::Continue(()),
            Some(_) => {
                return self.skip(
                    &shown,
                    format!(
                        "cluster {name:?} ({kind}) was listed from an earlier file with other proxy settings; only the first is listed. Give this one its own directory scan, or leave one out with `exclude`."
                    ),
                )
            }
            None => {
                self.seen.insert(key, settings);
            }
        }
        let listed = Listed {
            id: ImportId {
                name: Some(name),
                kind: kind.to_owned(),
                facts,
                https_through_proxy,
                artifact: Artifact::File(shown.clone()),
            },
            path: shown,
            imported,
        };
        self.emit(Event::Listed(Box::new(listed)))
    }
}

/// A profile name from a path below the directory: its extension left out,
/// every character an import ID's name cannot hold made `-`.
fn name_of_path(rel: &str) -> String {
    let stem = match rel.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() && !stem.ends_with('/') && !ext.contains('/') => stem,
        _ => rel,
    };
    stem.chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '_' | '-' => c,
            _ => '-',
        })
        .collect()
}

#[cfg(test)]
mod tests;
