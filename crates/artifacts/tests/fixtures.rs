//! Nothing that sets a proxy is passed over in silence: every fixture of
//! `tests/fixtures/` (the import corpus, the fleet folders, the files in
//! formats no importer reads), walked by the fleet scan one file at a time,
//! is listed or warned about when it names a proxy setting, and stays quiet
//! when it is documentation; a warning that it sets a proxy comes only for
//! a file that names one. Which fixtures name a proxy is
//! told from the tree itself, by a rule coarser than the scan's (any
//! uncommented mention of a proxy variable or a `proxy` block, whatever its
//! shape or value), so that no list is kept by hand.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use clusterproxy_artifacts::walk;
use clusterproxy_domain::import::fleet::{Event, Glob, Scan};

/// The fixture tree.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures")
}

/// The import corpus' expectations and facts: the corpus test's data, not
/// artifacts.
const NOT_ARTIFACTS: &[&str] = &["*.expected.json", "*.facts"];

/// Every file below `dir` (links followed, as the walk follows them), as
/// paths below `root`, leaving out what [`NOT_ARTIFACTS`] names.
fn files(root: &Path, dir: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_str().unwrap();
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            files(root, &path, out);
        } else if !name.ends_with(".expected.json") && !name.ends_with(".facts") {
            let rel = path.strip_prefix(root).unwrap();
            out.push(rel.to_str().unwrap().to_owned());
        }
    }
}

/// The scan of the fixture tree that reads only `rel`, with `kinds`.
fn scan_of(rel: &str, kinds: &[(&str, &'static str)]) -> Scan {
    Scan {
        directory: root().display().to_string(),
        include: vec![Glob::parse(rel).unwrap()],
        exclude: NOT_ARTIFACTS
            .iter()
            .map(|g| Glob::parse(g).unwrap())
            .collect(),
        kinds: kinds
            .iter()
            .map(|(g, k)| (Glob::parse(g).unwrap(), *k))
            .collect(),
        ..Scan::default()
    }
}

/// Every event of `scan`.
fn events(scan: &Scan) -> Vec<Event> {
    let mut events = Vec::new();
    walk::scan(scan, &mut |e| {
        events.push(e);
        ControlFlow::Continue(())
    })
    .unwrap();
    events
}

/// The coarse rule: an uncommented line that mentions a proxy variable
/// (`HTTP_PROXY`, `https-proxy`, `noProxy`, `Acquire::http::Proxy`, in any
/// case) or opens a `proxy` block (`proxy:`, `"proxy":`, `[proxy]`,
/// `<proxy>`, `proxies`).
fn names_a_proxy(text: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim();
        if ["#", "//", "/*", "<!--", "*"]
            .iter()
            .any(|c| line.starts_with(c))
        {
            return false;
        }
        let folded: String = line
            .chars()
            .filter(|c| c.is_ascii_alphanumeric() || matches!(c, ':' | '<' | '[' | '"'))
            .map(|c| c.to_ascii_lowercase())
            .collect();
        let folded = folded.replace("::", "");
        ["httpproxy", "httpsproxy", "noproxy"]
            .iter()
            .any(|v| folded.contains(v))
            || ["proxy:", "\"proxy\":", "[proxy", "<proxy", "<proxies"]
                .iter()
                .any(|o| folded.starts_with(o))
    })
}

/// What the walk made of one file.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    Quiet,
    Listed,
    Skipped(String),
    Unimported(String),
}

fn outcome(events: Vec<Event>) -> Outcome {
    let mut outcomes: Vec<Outcome> = events
        .into_iter()
        .map(|e| match e {
            Event::Listed(_) => Outcome::Listed,
            Event::Skipped { reason, .. } => Outcome::Skipped(reason),
            Event::Unimported { reason, .. } => Outcome::Unimported(reason),
        })
        .collect();
    assert!(outcomes.len() <= 1, "one event per file: {outcomes:?}");
    outcomes.pop().unwrap_or(Outcome::Quiet)
}

#[test]
fn every_fixture_imports_or_warns() {
    let root = root();
    let mut all = Vec::new();
    files(&root, &root, &mut all);
    let mut wrong = BTreeMap::new();
    let mut unimported = 0;
    for rel in &all {
        let text = std::fs::read_to_string(root.join(rel)).unwrap_or_default();
        let docs = rel.ends_with(".md");
        let outcome = outcome(events(&scan_of(rel, &[])));
        let expected = if docs || !names_a_proxy(&text) {
            "quiet"
        } else {
            "listed or warned"
        };
        let fine = match &outcome {
            Outcome::Quiet => expected == "quiet",
            // An importer sees more than the coarse rule (a Secret's
            // base64 data), but never in documentation.
            Outcome::Listed | Outcome::Skipped(_) => !docs,
            Outcome::Unimported(reason) => {
                unimported += 1;
                // Keys and lines, never a value.
                expected != "quiet" && !reason.contains("://") && !reason.contains("password")
            }
        };
        if !fine {
            wrong.insert(rel.clone(), format!("expected {expected}, got {outcome:?}"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    // The negative fixtures are in the tree (and were walked).
    let negative = all
        .iter()
        .filter(|rel| rel.starts_with("unimported/") && !rel.ends_with(".md"))
        .count();
    assert!(
        negative >= 5 && unimported >= negative,
        "{negative} {unimported}"
    );
}

/// A file given a kind whose import fails gets the usual "read as X, not
/// imported", and no second warning that it sets a proxy.
#[test]
fn a_file_given_a_kind_is_reported_once() {
    let rel = "unimported/docker/Dockerfile";
    let Outcome::Unimported(reason) = outcome(events(&scan_of(rel, &[]))) else {
        panic!("{rel} sets NO_PROXY");
    };
    assert!(
        reason.starts_with("sets NO_PROXY at line 5, NO_PROXY at line 6")
            && reason.contains("(looks like a Dockerfile), but no importer reads this format")
            && reason.contains(&format!("`kinds = {{ \"{rel}\" = \"<kind>\" }}`")),
        "{reason}"
    );
    match outcome(events(&scan_of(rel, &[(rel, "rke2")]))) {
        Outcome::Skipped(reason) => {
            assert!(
                reason.starts_with("read as `rke2`, not imported"),
                "{reason}"
            )
        }
        other => panic!("{other:?}"),
    }
}
