//! The fleet scan's configuration, shared by everything that scans a
//! directory of cluster artifacts (the `clusterproxy_profile` list
//! resource, the `clusterproxy_fleet` data source): one typed model
//! ([`ScanConfig`]), its checks ([`scan_of`]: each bad part an error on its
//! attribute) and the diagnostics of a walk ([`skipped`], [`unlistable`]),
//! so that both take the same arguments, refuse the same input and report
//! the same way.

use std::collections::BTreeMap;

use crate::domain::import::fleet;
use crate::framework::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::framework::schema::{NoNullElements, NotBlank};

crate::model! {
    /// What to scan: the directory and the globs that choose files, kinds and facts.
    pub struct ScanConfig {
        pub directory: String [required("The directory that holds the artifacts (a GitOps repository, or a part of it), relative to the working directory or absolute. It is walked down to 32 levels over at most 50,000 files and directories, and the walk stays in it: a symbolic link is followed only when its target (every link resolved) is inside `directory`, and not when it leads back to a parent (a loop); a link out of it, to a file or a directory, gets a warning naming it and is not followed, and kernel file systems (`/proc`, `/sys`) below it are not walked. `directory` itself may be a symbolic link; names starting with `.` (`.git`, `.terraform`) are passed over. Each file's path, as this attribute names it joined with its path below it, goes into the identity, so import from the same working directory.").validator(NotBlank)],
        pub include: Vec<String> [optional("Globs of the files to read, relative to `directory` (all files when unset): `*` and `?` within a name, `**` across directories (`clusters/**/*.yaml`), `[a-z]` classes; a glob without `/` matches the file's name at any depth.").validator(NoNullElements)],
        pub exclude: Vec<String> [optional("Globs of the files and directories to pass over, as `include` writes them (`secrets/**`).").validator(NoNullElements)],
        pub kinds: BTreeMap<String, String> [optional("The kind of the files a glob matches, for artifacts whose kind cannot be told from their content and name, e.g. `{ \"nodes/*/proxy\" = \"systemd\" }`; of the globs that match a file, the longest applies. Kinds as in import IDs.")],
        pub facts: BTreeMap<String, String> [optional("Import facts of the files a glob matches, in the import ID's syntax, e.g. `{ \"clusters/prod/**\" = \"pod_cidrs=10.244.0.0/16;service_cidrs=10.96.0.0/12;cloud=aws\" }` (also `node_cidrs`, `cluster_domain`, `apiserver_host`, `apiserver_ip`, `control_plane_endpoint`, `https_through_proxy=true`); of the globs that match a file, the longest applies. They go into the identity, so the import by identity classifies NO_PROXY the same way.")],
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
    let mut diags = Diagnostics::new();
    diags.push(
        Diagnostic::warning("Artifact not listed", format!("{path}: {reason}"))
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
