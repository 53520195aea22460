//! The fleet scan behind the `clusterproxy_profile` list resource, without
//! its I/O: what to scan ([`Scan`]: the directory, `include`/`exclude`
//! globs, kinds and facts by glob), what one file is ([`classify`]: its
//! kind told from its content and name by `detect.rs`, imported through the
//! same importer as an import ID ([`parse_in`], its hints written as
//! `facts`), with the import ID that
//! gives the same profile), and which files are one cluster ([`Clusters`]:
//! those of one folder that name the same cluster).
//! The walk that reads the directory and hands each file's name and text
//! here is the artifacts crate's (`clusterproxy-artifacts`).
//!
//! What is reported: files that are no artifact of any kind pass quietly,
//! unless they set a proxy (an [`Event::Unimported`], `sniff.rs`);
//! an artifact the import refuses is a [`Event::Skipped`] naming the file
//! and the reason. A second artifact of a cluster already listed from its
//! folder (a Cluster and its KubeadmControlPlane side by side, a copy)
//! passes quietly when it gives the same settings, and is reported when
//! they differ; the same name in another folder is another cluster.

mod detect;
mod glob;

use std::collections::hash_map::DefaultHasher;
use std::collections::{BTreeMap, HashMap};
use std::hash::{Hash, Hasher};

pub use detect::kind_of;
pub use glob::{Glob, MAX_GLOB_CHARS};

use super::id::{read_facts, Artifact, ImportId};
use super::imported::Imported;
use super::registry::importer;
use super::{parse_in, Syntax};
use crate::no_proxy::Cluster;

/// The import facts of the files a glob matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Facts {
    /// Cluster facts, as an import ID gives them.
    pub cluster: Cluster,
    /// As the import option: an artifact that sends HTTPS direct may
    /// become a profile that sends it through the proxy.
    pub https_through_proxy: bool,
}

/// Most globs `include` or `exclude` holds.
pub const MAX_GLOBS: usize = 1_000;

/// Most entries `kinds` or `facts` holds.
pub const MAX_RULES: usize = 1_000;

/// Most characters of one argument's globs (and, for `kinds` and `facts`,
/// their values) in all: 256 globs of the longest.
pub const MAX_ARGUMENT_CHARS: usize = 64 * 1024;

/// An argument of a scan's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Argument {
    /// `include`.
    Include,
    /// `exclude`.
    Exclude,
    /// `kinds`.
    Kinds,
    /// `facts`.
    Facts,
}

impl Argument {
    /// Its name in the configuration.
    pub fn name(self) -> &'static str {
        match self {
            Self::Include => "include",
            Self::Exclude => "exclude",
            Self::Kinds => "kinds",
            Self::Facts => "facts",
        }
    }
}

/// Why `argument`, of `count` entries and `chars` characters in all, is
/// over its caps ([`MAX_GLOBS`] or [`MAX_RULES`], [`MAX_ARGUMENT_CHARS`]),
/// if it is.
fn over_caps(argument: Argument, count: usize, chars: usize) -> Option<String> {
    let (cap, what) = match argument {
        Argument::Include | Argument::Exclude => (MAX_GLOBS, "globs"),
        Argument::Kinds | Argument::Facts => (MAX_RULES, "entries"),
    };
    let name = argument.name();
    if count > cap {
        return Some(format!(
            "`{name}` holds {count} {what}, more than the {cap} {what} a scan takes; point `directory` at a part of the tree, or write fewer, broader globs."
        ));
    }
    (chars > MAX_ARGUMENT_CHARS).then(|| format!(
        "`{name}` holds {chars} characters in all, more than the {MAX_ARGUMENT_CHARS} characters a scan takes in one argument; write fewer, shorter globs."
    ))
}

/// A part of a scan's configuration that is wrong, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bad {
    /// A whole argument, over its caps (nothing of it was read).
    Capped(Argument, String),
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
    /// An argument over its caps ([`MAX_GLOBS`], [`MAX_RULES`],
    /// [`MAX_ARGUMENT_CHARS`]) is refused whole, before any of it is read,
    /// so that the work of a scan (files times globs) stays bounded.
    pub fn new(
        directory: &str,
        include: &[String],
        exclude: &[String],
        kinds: &BTreeMap<String, String>,
        facts: &BTreeMap<String, String>,
    ) -> Result<Self, Vec<Bad>> {
        let chars =
            |texts: &mut dyn Iterator<Item = &String>| texts.map(|t| t.chars().count()).sum();
        let capped: Vec<Bad> = [
            (Argument::Include, include.len(), chars(&mut include.iter())),
            (Argument::Exclude, exclude.len(), chars(&mut exclude.iter())),
            (
                Argument::Kinds,
                kinds.len(),
                chars(&mut kinds.iter().flat_map(|(g, k)| [g, k])),
            ),
            (
                Argument::Facts,
                facts.len(),
                chars(&mut facts.iter().flat_map(|(g, f)| [g, f])),
            ),
        ]
        .into_iter()
        .filter_map(|(argument, count, chars)| {
            over_caps(argument, count, chars).map(|why| Bad::Capped(argument, why))
        })
        .collect();
        if !capped.is_empty() {
            return Err(capped);
        }
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

    /// The path shown for `rel` (a path below the directory): the directory
    /// as configured, `/`, `rel`.
    pub fn shown(&self, rel: &str) -> String {
        let directory = self.directory.trim_end_matches('/');
        match directory {
            "" if self.directory.starts_with('/') => format!("/{rel}"),
            "" | "." => rel.to_owned(),
            directory => format!("{directory}/{rel}"),
        }
    }

    /// Whether `exclude` passes over `rel`, a directory when `is_dir` (so
    /// that `secrets/**` leaves out the directory `secrets` itself).
    pub fn excluded(&self, rel: &str, is_dir: bool) -> bool {
        let path = glob::Subject::new(rel);
        let dir = is_dir.then(|| glob::Subject::new(&format!("{rel}/")));
        self.exclude.iter().any(|glob| {
            glob.matches_subject(&path) || dir.as_ref().is_some_and(|d| glob.matches_subject(d))
        })
    }

    /// Whether the file `rel` is read: `include` takes it (or is empty)
    /// and `exclude` does not leave it out.
    pub fn reads(&self, rel: &str) -> bool {
        let path = glob::Subject::new(rel);
        let included =
            self.include.is_empty() || self.include.iter().any(|g| g.matches_subject(&path));
        included && !self.excluded(rel, false)
    }
}

/// One cluster found.
#[derive(Debug, Clone)]
pub struct Listed {
    /// The cluster's stable key: `<folder below the directory>/<name>`, or
    /// the name alone for an artifact at the top. A cluster is a folder and
    /// a name: the same name in two folders is two clusters (names repeat
    /// across environments), and a second artifact of the cluster beside
    /// the first (its KubeadmControlPlane) keeps the key.
    pub key: String,
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
    /// A file that is no artifact of any kind but sets a proxy, in a format
    /// no importer reads (`sniff.rs`), for a warning.
    Unimported {
        /// Its path, as [`Listed::path`].
        path: String,
        /// What it sets, where, and what it looks like, quoting no value.
        reason: String,
    },
}

/// What one file of a scan is, from its path below the directory (`rel`),
/// its name and its text, as the walk that read it hands it over (a walk
/// reads only the files [`Scan::reads`] takes): `None` for a file that is
/// no artifact, [`Event::Listed`] for an artifact the import takes, [`Event::Skipped`]
/// with the reason for one it refuses. Whether another file already listed
/// the same cluster is [`Clusters::admit`]'s to say.
pub fn classify(scan: &Scan, rel: &str, name: &str, text: &str) -> Option<Event> {
    let shown = scan.shown(rel);
    let given = scan.kinds.iter().find(|(g, _)| g.matches(rel));
    let kind = given
        .map(|(_, kind)| *kind)
        .or_else(|| detect::kind_of(name, text))?;
    let rule = scan.facts.iter().find(|(g, _)| g.matches(rel));
    let facts = rule.map(|(_, f)| f.cluster.clone()).unwrap_or_default();
    let https_through_proxy = rule.is_some_and(|(_, f)| f.https_through_proxy);
    // Hints name the `facts` entry that applies, or one for this file.
    let syntax = Syntax::Facts {
        glob: rule.map_or(rel, |(g, _)| g.as_str()).to_owned(),
    };
    let imported = parse_in(kind, text, &facts, &syntax).and_then(|mut imported| {
        imported
            .keep_meaning(https_through_proxy, kind, &syntax)
            .map_err(|f| vec![f])?;
        Ok(imported)
    });
    let imported = match imported {
        Ok(imported) => imported,
        Err(findings) => {
            let reasons: Vec<String> = findings.into_iter().map(|f| f.detail).collect();
            return Some(Event::Skipped {
                path: shown,
                reason: format!("read as `{kind}`, not imported: {}", reasons.join(" ")),
            });
        }
    };
    // An artifact that names no cluster is named after its path, so
    // that every node drop-in of a fleet gets its own profile.
    let name = if imported.name == kind {
        name_of_path(rel)
    } else {
        imported.name.clone()
    };
    let key = match rel.rsplit_once('/') {
        Some((folder, _)) => format!("{folder}/{name}"),
        None => name.clone(),
    };
    Some(Event::Listed(Box::new(Listed {
        key,
        id: ImportId {
            name: Some(name),
            kind: kind.to_owned(),
            facts,
            https_through_proxy,
            artifact: Artifact::File(shown.clone()),
        },
        path: shown,
        imported,
    })))
}

/// The clusters a scan has listed so far, by [`Listed::key`]: one hash
/// per cluster, so that memory does not grow with the artifacts' size.
#[derive(Debug, Default)]
pub struct Clusters {
    /// Hash of the key of each cluster listed -> hash of its settings.
    seen: HashMap<u64, u64>,
}

impl Clusters {
    /// What a scan reports for `listed`: itself when its cluster (its
    /// folder and name) is new; nothing when an earlier file of that folder
    /// listed the cluster with the same settings (a Cluster and its
    /// KubeadmControlPlane side by side, a copy); a [`Event::Skipped`] when
    /// the settings differ.
    pub fn admit(&mut self, listed: Box<Listed>) -> Option<Event> {
        let kind = listed.id.kind.as_str();
        let name = listed.name();
        let key = hash(&listed.key);
        let imported = &listed.imported;
        let settings = hash((
            &imported.http_proxy,
            &imported.https_proxy,
            &imported.username,
            &imported.no_proxy,
            &imported.trusted_ca,
        ));
        match self.seen.get(&key) {
            Some(known) if *known == settings => None,
            Some(_) => Some(Event::Skipped {
                reason: format!(
                    "cluster {name:?} ({kind}) was listed from an earlier file of its folder with other proxy settings; only the first is listed. Move this one to a folder of its own, or leave one out with `exclude`."
                ),
                path: listed.path,
            }),
            None => {
                self.seen.insert(key, settings);
                Some(Event::Listed(listed))
            }
        }
    }
}

fn hash(value: impl Hash) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
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
