use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use std::collections::BTreeMap;

use super::*;
use clusterproxy_domain::import::fleet::{Bad, Listed};
use clusterproxy_domain::import::{id, parse_in, Syntax};

/// The import fixtures of `kind/name`.
fn fixture(path: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/import");
    std::fs::read_to_string(root.join(path)).unwrap()
}

fn put(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Every event of a scan of `scan`, or its error.
fn events(scan: &Scan) -> Result<Vec<Event>, String> {
    let mut events = Vec::new();
    super::scan(scan, &mut |e| {
        events.push(e);
        ControlFlow::Continue(())
    })?;
    Ok(events)
}

fn listed(events: &[Event]) -> Vec<&Listed> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Listed(l) => Some(l.as_ref()),
            Event::Skipped { .. } | Event::Unimported { .. } => None,
        })
        .collect()
}

fn skipped(events: &[Event]) -> Vec<(&str, &str)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::Skipped { path, reason } => Some((path.as_str(), reason.as_str())),
            Event::Listed(_) | Event::Unimported { .. } => None,
        })
        .collect()
}

fn scan_of(dir: &Path) -> Scan {
    Scan {
        directory: dir.display().to_string(),
        ..Scan::default()
    }
}

/// A fleet of every kind, with a copy, a Cluster beside its
/// KubeadmControlPlane, an artifact the import refuses and files that are
/// no artifacts.
fn fleet(root: &Path) {
    for (rel, fixture_path) in [
        ("aks/prod.json", "aks/az-aks-show.json"),
        ("tkg/tkg-prod-1.yaml", "tkg/cluster-config.yaml"),
        ("capi/eksa/cluster.yaml", "capi/eks-anywhere-cluster.yaml"),
        (
            "nodes/edge-01/http-proxy.conf",
            "systemd/docker-http-proxy.conf",
        ),
        (
            "giantswarm/gs-eu1.yaml",
            "giantswarm/cluster-aws-values.yaml",
        ),
        (
            "openshift/install-config.yaml",
            "openshift/install-config.yaml",
        ),
        ("rke2/rke2-server", "rke2/rke2-server"),
        ("nkp/cluster.yaml", "caren/nutanix-cluster.yaml"),
        ("tanzu/tkc.yaml", "tkgs/tanzu-kubernetes-cluster.yaml"),
        ("konvoy/cluster.yaml", "konvoy/cluster.yaml"),
        ("gke/proxy-configmap.yaml", "gke/sample_configmap.yaml"),
        ("docker/build-01/daemon.json", "docker/daemon.json"),
        (
            "eks/bottlerocket/user-data.toml",
            "bottlerocket/user-data.toml",
        ),
        // Refused: `${proxy_host}` was never expanded.
        ("rke2/broken/rke2-server", "rke2/rancher-quoted-heredoc.env"),
        // A copy of a cluster already listed, in its folder.
        ("tkg/tkg-prod-1-copy.yaml", "tkg/cluster-config.yaml"),
    ] {
        put(root, rel, &fixture(fixture_path));
    }
    // The Cluster and its KubeadmControlPlane, side by side in two files.
    let both = fixture("capi/kubeadm-control-plane.yaml");
    let (cluster, kcp) = both.split_once("\n---\n").unwrap();
    put(root, "capi/prod/cluster.yaml", cluster);
    put(root, "capi/prod/kcp.yaml", kcp);
    put(
        root,
        "README.md",
        "# Clusters\nOur proxy is set per cluster.\n",
    );
    put(
        root,
        "apps/deploy.yaml",
        "apiVersion: apps/v1\nkind: Deployment\n",
    );
    std::fs::write(root.join("logo.png"), [0x89, b'P', b'N', b'G', 0xff, 0xfe]).unwrap();
    put(
        root,
        ".git/config",
        "[Service]\nEnvironment=HTTP_PROXY=http://p:1\n",
    );
}

#[test]
fn a_fleet_lists_one_profile_per_cluster_as_the_id_import_gives_it() {
    let dir = tempfile::tempdir().unwrap();
    fleet(dir.path());
    let events = events(&scan_of(dir.path())).unwrap();
    let listed = listed(&events);
    let mut kinds: Vec<&str> = listed.iter().map(|l| l.id.kind.as_str()).collect();
    kinds.sort_unstable();
    kinds.dedup();
    assert_eq!(
        kinds.len(),
        clusterproxy_domain::import::kinds().len(),
        "{kinds:?}"
    );
    assert_eq!(
        listed.len(),
        14,
        "{:#?}",
        listed.iter().map(|l| l.display_name()).collect::<Vec<_>>()
    );
    for listed in &listed {
        // The import by the identity's parts is the scan's.
        let id = id::of_file(
            listed.name(),
            &listed.id.kind,
            listed.id.facts_text().as_deref(),
            &listed.path,
        )
        .unwrap();
        assert_eq!(id, listed.id);
        let id::Artifact::File(path) = &id.artifact else {
            panic!()
        };
        assert_eq!(path, &listed.path);
        let text = file::read(Path::new(path)).unwrap();
        // Its hints name the `facts` entry of the file.
        let rel = path
            .strip_prefix(&format!("{}/", dir.path().display()))
            .unwrap();
        let syntax = Syntax::Facts { glob: rel.into() };
        let mut imported = parse_in(&id.kind, &text, &id.facts, &syntax).unwrap();
        imported
            .keep_meaning(id.https_through_proxy, &id.kind, &syntax)
            .unwrap();
        assert_eq!(imported, listed.imported, "{}", listed.path);
        assert!(listed.display_name().contains(&listed.path));
        assert!(
            !listed.display_name().contains("s3cr"),
            "{}",
            listed.display_name()
        );
    }
    let names: Vec<&str> = listed.iter().map(|l| l.name()).collect();
    assert!(
        names.contains(&"tkg-prod-1") && names.contains(&"capi-prod"),
        "{names:?} {:?}",
        listed
            .iter()
            .map(|l| (&l.imported.name, &l.imported.name_from))
            .collect::<Vec<_>>()
    );
    // Artifacts that name no cluster are named after their path.
    assert!(names.contains(&"nodes-edge-01-http-proxy"), "{names:?}");
    assert!(names.contains(&"rke2-rke2-server"), "{names:?}");
    let skipped = skipped(&events);
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    let (path, reason) = skipped[0];
    assert!(path.ends_with("rke2/broken/rke2-server"), "{path}");
    assert!(
        reason.contains("`rke2`") && reason.contains("${"),
        "{reason}"
    );
}

#[test]
fn the_limit_stops_the_walk() {
    let dir = tempfile::tempdir().unwrap();
    fleet(dir.path());
    let mut seen = 0;
    super::scan(&scan_of(dir.path()), &mut |e| {
        if matches!(e, Event::Listed(_)) {
            seen += 1;
        }
        if seen == 3 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .unwrap();
    assert_eq!(seen, 3);
}

#[test]
fn globs_choose_files_kinds_and_facts() {
    let dir = tempfile::tempdir().unwrap();
    fleet(dir.path());
    // A drop-in whose kind cannot be told: no section, no `.conf`.
    put(dir.path(), "nodes/edge-02/proxy", "Environment=HTTP_PROXY=http://proxy.corp.example:3128 HTTPS_PROXY=http://proxy.corp.example:3128\n");
    let mut scan = scan_of(dir.path());
    assert!(listed(&events(&scan).unwrap())
        .iter()
        .all(|l| !l.path.ends_with("edge-02/proxy")));
    let strings = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let map = |pairs: &[(&str, &str)]| {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect::<BTreeMap<_, _>>()
    };
    scan = Scan::new(
        &scan.directory,
        &strings(&["nodes/**", "capi/**"]),
        &strings(&["capi/eksa/**"]),
        &map(&[
            ("nodes/edge-02/proxy", "systemd"),
            ("nodes/edge-02/*", "rke2"),
        ]),
        &map(&[
            ("capi/**", "service_cidrs=10.96.0.0/12"),
            ("**", "cloud=aws"),
        ]),
    )
    .unwrap();
    let events = events(&scan).unwrap();
    let mut paths: Vec<&str> = listed(&events)
        .iter()
        .map(|l| {
            l.path
                .rsplit_once(&*dir.path().display().to_string())
                .unwrap()
                .1
        })
        .collect();
    paths.sort_unstable();
    assert_eq!(
        paths,
        [
            "/capi/prod/kcp.yaml",
            "/nodes/edge-01/http-proxy.conf",
            "/nodes/edge-02/proxy"
        ]
    );
    let capi = listed(&events)
        .into_iter()
        .find(|l| l.id.kind == "capi")
        .unwrap();
    assert_eq!(capi.id.facts.service_cidrs, ["10.96.0.0/12"]);
    assert_eq!(capi.id.facts.cloud, None);
    let systemd = listed(&events)
        .into_iter()
        .find(|l| l.id.kind == "systemd")
        .unwrap();
    assert_eq!(
        systemd.id.facts.cloud,
        Some(clusterproxy_domain::no_proxy::Cloud::Aws)
    );
    let bad = Scan::new(
        "x",
        &strings(&["ok", "a[b"]),
        &strings(&["/abs"]),
        &map(&[("*", "nope")]),
        &map(&[("*", "pods=1")]),
    )
    .unwrap_err();
    assert!(
        matches!(&bad[..], [Bad::Include(1, _), Bad::Exclude(0, _), Bad::Kind(_, k), Bad::Facts(_, f)] if k.contains("Unknown kind") && f.contains("Unknown cluster fact")),
        "{bad:?}"
    );
}

#[test]
fn paths_are_shown_as_the_directory_names_them() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "clusters/a/rke2-server",
        &fixture("rke2/rke2-server"),
    );
    let cwd = std::env::current_dir().unwrap();
    // Relative to the working directory, as written (a trailing `/` aside).
    let relative = pathdiff(dir.path(), &cwd);
    for directory in [
        format!("{relative}/clusters"),
        format!("{relative}/clusters/"),
    ] {
        let scan = Scan {
            directory,
            ..Scan::default()
        };
        let events = events(&scan).unwrap();
        assert_eq!(
            listed(&events)[0].path,
            format!("{relative}/clusters/a/rke2-server")
        );
    }
}

/// `to` written relative to `from` with `..` steps.
fn pathdiff(to: &Path, from: &Path) -> String {
    let ups = from.components().count() - 1;
    let mut out = PathBuf::new();
    for _ in 0..ups {
        out.push("..");
    }
    out.push(to.strip_prefix("/").unwrap());
    out.display().to_string()
}

#[test]
fn bad_directories_are_errors_and_bad_trees_are_bounded() {
    let dir = tempfile::tempdir().unwrap();
    let missing = scan_of(&dir.path().join("nope"));
    assert!(events(&missing).unwrap_err().contains("does not exist"));
    put(dir.path(), "file", "x");
    let file = scan_of(&dir.path().join("file"));
    assert!(events(&file).unwrap_err().contains("is not a directory"));
    // A loop through a symbolic link: reported once, and the scan ends.
    let looped = dir.path().join("loop");
    put(&looped, "a/rke2-server", &fixture("rke2/rke2-server"));
    std::os::unix::fs::symlink(&looped, looped.join("a/back")).unwrap();
    let looped_events = events(&scan_of(&looped)).unwrap();
    assert_eq!(listed(&looped_events).len(), 1);
    let looped_skips = skipped(&looped_events);
    assert_eq!(looped_skips.len(), 1, "{looped_skips:?}");
    assert!(looped_skips[0].0.ends_with("a/back") && looped_skips[0].1.contains("loop"));
    // A tree deeper than the bound.
    let deep = dir.path().join("deep");
    let mut path = deep.clone();
    for _ in 0..=MAX_DEPTH {
        path.push("d");
    }
    std::fs::create_dir_all(&path).unwrap();
    let skipped_deep = events(&scan_of(&deep)).unwrap();
    let skipped_deep = skipped(&skipped_deep);
    assert_eq!(skipped_deep.len(), 1);
    assert!(skipped_deep[0].1.contains("deeper than"));
}

#[test]
fn too_many_entries_end_the_scan_with_an_error() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..=MAX_ENTRIES {
        std::fs::File::create(dir.path().join(format!("f{i}"))).unwrap();
    }
    let started = std::time::Instant::now();
    let error = events(&scan_of(dir.path())).unwrap_err();
    assert!(
        error.contains(&format!("more than {MAX_ENTRIES}")),
        "{error}"
    );
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
}

#[test]
fn unreadable_and_huge_files_are_reported_and_the_scan_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    put(dir.path(), "a/rke2-server", &fixture("rke2/rke2-server"));
    std::fs::write(
        dir.path().join("big.yaml"),
        vec![b'#'; clusterproxy_domain::import::MAX_INPUT_BYTES + 1],
    )
    .unwrap();
    std::os::unix::fs::symlink(dir.path().join("gone"), dir.path().join("dangling")).unwrap();
    let events = events(&scan_of(dir.path())).unwrap();
    assert_eq!(listed(&events).len(), 1);
    let skipped = skipped(&events);
    assert_eq!(skipped.len(), 2, "{skipped:?}");
    assert!(skipped
        .iter()
        .any(|(p, r)| p.ends_with("big.yaml") && r.contains("4 MiB")));
    assert!(skipped
        .iter()
        .any(|(p, r)| p.ends_with("dangling") && r.contains("symbolic link")));
}

/// Real artifacts that name the same cluster in different folders are
/// two clusters, each with its own key and display name; a Cluster and its
/// KubeadmControlPlane in one folder are one.
#[test]
fn clusters_that_share_a_name_in_two_folders_are_two() {
    let dir = tempfile::tempdir().unwrap();
    // tests/fixtures/fleet-shared-names, as files.
    let worker = fixture("capi/eks-anywhere-md-template.yaml");
    put(dir.path(), "staging/test-md-0-template.yaml", &worker);
    put(dir.path(), "production/test-md-0-template.yaml", &worker);
    let both = fixture("capi/kubeadm-control-plane.yaml");
    let (cluster, kcp) = both.split_once("\n---\n").unwrap();
    put(dir.path(), "capi-prod/cluster.yaml", cluster);
    put(dir.path(), "capi-prod/kcp.yaml", kcp);
    put(
        dir.path(),
        "eksa-prod.yaml",
        &fixture("capi/eks-anywhere-cluster.yaml"),
    );
    let events = events(&scan_of(dir.path())).unwrap();
    assert!(skipped(&events).is_empty(), "{:?}", skipped(&events));
    let listed = listed(&events);
    let keys: Vec<&str> = listed.iter().map(|l| l.key.as_str()).collect();
    assert_eq!(
        keys,
        [
            "capi-prod/capi-prod",
            "eksa-prod",
            "production/test",
            "staging/test"
        ]
    );
    let tests: Vec<String> = listed
        .iter()
        .filter(|l| l.name() == "test")
        .map(|l| l.display_name())
        .collect();
    assert_eq!(tests.len(), 2);
    assert_ne!(tests[0], tests[1]);
}

/// The scan's hints give the `facts` form: an artifact whose CIDR blocks
/// the import cannot place, or one that sends HTTPS direct, says how to
/// give the option in `facts` for its file (or the glob that applies).
#[test]
fn hints_are_written_as_facts() {
    let dir = tempfile::tempdir().unwrap();
    put(
        dir.path(),
        "edge/http-proxy.conf",
        "[Service]\nEnvironment=HTTP_PROXY=http://p.example:3128\n",
    );
    put(
        dir.path(),
        "rke2/rke2-server",
        "HTTP_PROXY=http://p.example:3128\nHTTPS_PROXY=http://p.example:3128\nNO_PROXY=10.42.0.0/16\n",
    );
    let events = events(&scan_of(dir.path())).unwrap();
    let skipped = skipped(&events);
    assert_eq!(skipped.len(), 1, "{skipped:?}");
    assert!(
        skipped[0]
            .1
            .contains("e.g. `facts = { \"edge/http-proxy.conf\" = \"https_through_proxy=true\" }`"),
        "{}",
        skipped[0].1
    );
    let listed = listed(&events);
    assert!(
        listed[0].imported.warnings.iter().any(|w| w.contains(
            "import with `facts = { \"rke2/rke2-server\" = \"pod_cidrs=...;service_cidrs=...\" }`"
        )),
        "{:?}",
        listed[0].imported.warnings
    );
}

/// The walk stays in its tree: links out of it (to a file or a directory,
/// absolute or relative) are not followed and are named in a warning; a
/// link into the tree is followed, a loop is reported, and `directory`
/// itself may be a link.
#[test]
fn links_out_of_the_tree_are_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let rke2 = fixture("rke2/rke2-server");
    put(dir.path(), "outside/rke2-server", &rke2);
    put(dir.path(), "outside/sub/rke2-server", &rke2);
    let tree = dir.path().join("tree");
    put(&tree, "a/rke2-server", &rke2);
    let link = |target: &Path, at: &str| std::os::unix::fs::symlink(target, tree.join(at)).unwrap();
    link(&dir.path().join("outside/rke2-server"), "file-out");
    link(&dir.path().join("outside/sub"), "dir-out");
    link(Path::new("../outside/rke2-server"), "relative-out");
    link(Path::new("a/../../outside"), "dotdot-out");
    link(&tree.join("a"), "into");
    link(Path::new("a/rke2-server"), "into-file");
    link(&tree, "a/loop");
    std::os::unix::fs::symlink(&tree, dir.path().join("tree-link")).unwrap();
    for root in [tree.clone(), dir.path().join("tree-link")] {
        let events = events(&scan_of(&root)).unwrap();
        let mut paths: Vec<&str> = listed(&events).iter().map(|l| l.path.as_str()).collect();
        paths.sort_unstable();
        let shown = root.display().to_string();
        assert_eq!(
            paths,
            [
                format!("{shown}/a/rke2-server"),
                format!("{shown}/into-file"),
                format!("{shown}/into/rke2-server"),
            ],
            "{:?}",
            skipped(&events)
        );
        let skipped = skipped(&events);
        let mut out: Vec<&str> = skipped
            .iter()
            .filter(|(_, reason)| reason.contains("outside `directory`; not followed"))
            .map(|(path, _)| path.strip_prefix(&format!("{shown}/")).unwrap())
            .collect();
        out.sort_unstable();
        assert_eq!(
            out,
            ["dir-out", "dotdot-out", "file-out", "relative-out"],
            "{skipped:?}"
        );
        // The loop, reached from the tree and through the link into it.
        let loops = skipped
            .iter()
            .filter(|(p, r)| p.ends_with("/loop") && r.contains("(a loop)"))
            .count();
        assert_eq!(loops, 2, "{skipped:?}");
        assert_eq!(skipped.len(), 6, "{skipped:?}");
    }
}

/// `/proc` and `/sys` are kernel file systems (not walked where they are
/// mounted below the directory, and refused as the directory); a
/// temporary directory is not.
#[cfg(target_os = "linux")]
#[test]
fn kernel_file_systems_are_told() {
    assert!(kernel_file_system(Path::new("/proc")));
    assert!(kernel_file_system(Path::new("/sys")));
    assert!(!kernel_file_system(tempfile::tempdir().unwrap().path()));
    // Nor is one the directory of a scan.
    for directory in ["/proc", "/proc/self", "/sys/kernel"] {
        let error = events(&scan_of(Path::new(directory))).unwrap_err();
        assert!(error.contains("kernel file system"), "{directory}: {error}");
    }
}
