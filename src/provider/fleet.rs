//! The fleet scan's configuration, shared by everything that scans a
//! directory of cluster artifacts (the `clusterproxy_profile` list
//! resource, the `clusterproxy_fleet` data source): one typed model
//! ([`ScanConfig`]), its checks ([`scan_of`]: each bad part an error on its
//! attribute) and the diagnostics of a walk ([`skipped`], [`unimported`],
//! [`unlistable`]),
//! so that both take the same arguments, refuse the same input and report
//! the same way.

use std::collections::BTreeMap;

use crate::domain::import::fleet;
use crate::framework::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::framework::schema::{NoNullElements, NotBlank};

crate::model! {
    /// What to scan: the directory and the globs that choose files, kinds and facts.
    pub struct ScanConfig {
        pub directory: String [required("The directory that holds the artifacts (a GitOps repository, or a part of it), relative to the working directory or absolute. It is walked down to 32 levels over at most 50,000 files and directories, and the walk stays in it: a symbolic link is followed only when its target (every link resolved) is inside `directory`, and not when it leads back to a parent (a loop); a link out of it, to a file or a directory, gets a warning naming it and is not followed, and kernel file systems (`/proc`, `/sys`) are not walked, below it or as it. `directory` itself may be a symbolic link; names starting with `.` (`.git`, `.terraform`) are passed over. Each file's path, as this attribute names it joined with its path below it, goes into the identity, so import from the same working directory.").validator(NotBlank)],
        pub include: Vec<String> [optional("Globs of the files to read, relative to `directory` (all files when unset): `*` and `?` within a name, `**` across directories (`clusters/**/*.yaml`), `[a-z]` classes; a glob without `/` matches the file's name at any depth. At most 1,000 globs of at most 256 characters, 65,536 characters in all (as for `exclude`, `kinds` and `facts`, keys and values counted): a scan matches every file against every glob, so its work is bounded by both.").validator(NoNullElements)],
        pub exclude: Vec<String> [optional("Globs of the files and directories to pass over, as `include` writes them (`secrets/**`). At most 1,000 globs, 65,536 characters in all.").validator(NoNullElements)],
        pub kinds: BTreeMap<String, String> [optional("The kind of the files a glob matches, for artifacts whose kind cannot be told from their content and name, e.g. `{ \"nodes/*/proxy\" = \"systemd\" }`; of the globs that match a file, the longest applies. Kinds as in import IDs. At most 1,000 entries, 65,536 characters in all.")],
        pub facts: BTreeMap<String, String> [optional("Import facts of the files a glob matches, in the import ID's syntax, e.g. `{ \"clusters/prod/**\" = \"pod_cidrs=10.244.0.0/16;service_cidrs=10.96.0.0/12;cloud=aws\" }` (also `node_cidrs`, `cluster_domain`, `apiserver_host`, `apiserver_ip`, `control_plane_endpoint`, `https_through_proxy=true`); of the globs that match a file, the longest applies. They go into the identity, so the import by identity classifies NO_PROXY the same way. At most 1,000 entries, 65,536 characters in all.")],
    }
}

/// The scan `config` describes; each bad part is an error on its attribute.
pub fn scan_of(config: &ScanConfig, diags: &mut Diagnostics) -> Option<fleet::Scan> {
    fleet::Scan::new(
        &config.directory,
        &config.include,
        &config.exclude,
        &config.kinds,
        &config.facts,
    )
    .map_err(|bad| {
        for bad in bad {
            let (path, detail) = match bad {
                fleet::Bad::Capped(argument, why) => {
                    let attribute = match argument {
                        fleet::Argument::Include => ScanConfig::include,
                        fleet::Argument::Exclude => ScanConfig::exclude,
                        fleet::Argument::Kinds => ScanConfig::kinds,
                        fleet::Argument::Facts => ScanConfig::facts,
                    };
                    (AttributePath::attribute(attribute), why)
                }
                fleet::Bad::Include(i, why) => {
                    (AttributePath::attribute(ScanConfig::include).index(i), why)
                }
                fleet::Bad::Exclude(i, why) => {
                    (AttributePath::attribute(ScanConfig::exclude).index(i), why)
                }
                fleet::Bad::Kind(glob, why) => {
                    (AttributePath::attribute(ScanConfig::kinds).key(glob), why)
                }
                fleet::Bad::Facts(glob, why) => {
                    (AttributePath::attribute(ScanConfig::facts).key(glob), why)
                }
            };
            diags.push(Diagnostic::error("Invalid list configuration", detail).at(path));
        }
    })
    .ok()
}

/// The warning for a file or directory the walk passed over, on `directory`.
pub fn skipped(path: &str, reason: &str) -> Diagnostics {
    warning("Artifact not listed", path, reason)
}

/// The warning for a file that sets a proxy in a format no importer reads,
/// on `directory`.
pub fn unimported(path: &str, reason: &str) -> Diagnostics {
    warning("Proxy setting not imported", path, reason)
}

/// A warning on `directory` about the file or directory `path`.
fn warning(summary: &str, path: &str, reason: &str) -> Diagnostics {
    let mut diags = Diagnostics::new();
    diags.push(
        Diagnostic::warning(summary, format!("{path}: {reason}"))
            .at(AttributePath::attribute(ScanConfig::directory)),
    );
    diags
}

/// The error for a directory that cannot be walked (`detail` says why), on
/// `directory`.
pub fn unlistable(detail: String) -> Diagnostics {
    let mut diags = Diagnostics::new();
    diags.push(
        Diagnostic::error("Cannot list the directory", detail)
            .at(AttributePath::attribute(ScanConfig::directory)),
    );
    diags
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `count` distinct globs of 256 characters.
    fn globs(count: usize) -> Vec<String> {
        (0..count)
            .map(|i| format!("{i:08}/{}", "*".repeat(247)))
            .collect()
    }

    fn config(include: Vec<String>, exclude: Vec<String>, rules: Vec<String>) -> ScanConfig {
        ScanConfig {
            directory: "fleet".into(),
            include,
            exclude,
            kinds: rules
                .iter()
                .map(|g| (g.clone(), "systemd".into()))
                .collect(),
            facts: rules
                .iter()
                .map(|g| (g.clone(), "cloud=aws".into()))
                .collect(),
        }
    }

    /// The errors of `config`, as "path: detail".
    fn errors(config: &ScanConfig) -> Vec<String> {
        let mut diags = Diagnostics::new();
        let scan = scan_of(config, &mut diags);
        assert_eq!(scan.is_some(), !diags.has_errors());
        diags
            .iter()
            .map(|d| {
                let path = d.path.as_ref().map(ToString::to_string).unwrap_or_default();
                format!("{path}: {}", d.detail)
            })
            .collect()
    }

    /// 100 globs of 256 characters in each argument are taken; 200,000
    /// are refused with one error on the argument naming the cap, and so
    /// is an argument over the size cap, before any glob is read.
    #[test]
    fn globs_kinds_and_facts_are_capped() {
        let hundred = globs(100);
        assert_eq!(hundred[0].chars().count(), 256);
        let taken = config(hundred.clone(), hundred.clone(), hundred);
        assert_eq!(errors(&taken), Vec::<String>::new());
        let many = globs(200_000);
        let refused = errors(&config(many.clone(), many.clone(), many));
        assert_eq!(refused.len(), 4, "{refused:?}");
        for (attribute, cap) in [
            ("include", "1000 globs"),
            ("exclude", "1000 globs"),
            ("kinds", "1000 entries"),
            ("facts", "1000 entries"),
        ] {
            assert!(
                refused
                    .iter()
                    .any(|e| e.starts_with(&format!("{attribute}: ")) && e.contains(cap)),
                "{attribute}: {refused:?}"
            );
        }
        // Within the count, over the size: 300 globs of 256 characters.
        let big = globs(300);
        let refused = errors(&config(Vec::new(), big, Vec::new()));
        assert_eq!(refused.len(), 1, "{refused:?}");
        assert!(
            refused[0].starts_with("exclude: ") && refused[0].contains("65536 characters"),
            "{refused:?}"
        );
    }
}
