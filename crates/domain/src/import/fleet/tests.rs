use super::*;

const RKE2: &str = "HTTP_PROXY=http://proxy.corp.example:3128\nHTTPS_PROXY=http://proxy.corp.example:3128\nNO_PROXY=127.0.0.1,localhost\n";

fn scan(directory: &str) -> Scan {
    Scan {
        directory: directory.to_owned(),
        ..Scan::default()
    }
}

#[test]
fn a_file_is_listed_skipped_or_passed_over() {
    let scan = scan("fleet");
    let Some(Event::Listed(listed)) = classify(&scan, "edge/rke2-server", "rke2-server", RKE2)
    else {
        panic!("not listed")
    };
    assert_eq!(listed.id.kind, "rke2");
    assert_eq!(listed.path, "fleet/edge/rke2-server");
    // An artifact that names no cluster is named after its path.
    assert_eq!(listed.name(), "edge-rke2-server");
    assert_eq!(
        listed.id.artifact,
        Artifact::File("fleet/edge/rke2-server".into())
    );
    assert!(classify(&scan, "README.md", "README.md", "# Clusters\n").is_none());
    let refused = classify(
        &scan,
        "rke2-server",
        "rke2-server",
        "HTTP_PROXY=http://${proxy_host}:3128\n",
    );
    assert!(
        matches!(&refused, Some(Event::Skipped { path, reason }) if path == "fleet/rke2-server" && reason.contains("`rke2`")),
        "{refused:?}"
    );
}

#[test]
fn include_and_exclude_choose_the_files_read() {
    let strings = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let scan = Scan::new(
        "/",
        &strings(&["nodes/**"]),
        &strings(&["nodes/secret/**"]),
        &BTreeMap::new(),
        &BTreeMap::new(),
    )
    .unwrap();
    assert!(scan.reads("nodes/a/rke2-server"));
    assert!(!scan.reads("apps/rke2-server"));
    assert!(!scan.reads("nodes/secret/rke2-server"));
    assert!(scan.excluded("nodes/secret", true));
    assert_eq!(scan.shown("nodes/a"), "/nodes/a");
    assert_eq!(self::scan(".").shown("a"), "a");
    assert_eq!(self::scan("x/").shown("a"), "x/a");
}

#[test]
fn a_cluster_is_listed_once_and_other_settings_are_reported() {
    let scan = scan("fleet");
    let listed = |rel: &str, text: &str| match classify(&scan, rel, "cluster-config.yaml", text) {
        Some(Event::Listed(listed)) => listed,
        other => panic!("{other:?}"),
    };
    let tkg = "CLUSTER_NAME: prod\nTKG_HTTP_PROXY: http://p.example:3128\nTKG_HTTPS_PROXY: http://p.example:3128\n";
    let mut clusters = Clusters::default();
    assert!(matches!(
        clusters.admit(listed("a/cluster-config.yaml", tkg)),
        Some(Event::Listed(_))
    ));
    assert!(clusters
        .admit(listed("a/copy/cluster-config.yaml", tkg))
        .is_none());
    let other = "CLUSTER_NAME: prod\nTKG_HTTP_PROXY: http://q.example:3128\nTKG_HTTPS_PROXY: http://q.example:3128\n";
    let reported = clusters.admit(listed("b/cluster-config.yaml", other));
    assert!(
        matches!(&reported, Some(Event::Skipped { path, reason }) if path == "fleet/b/cluster-config.yaml" && reason.contains("earlier file")),
        "{reported:?}"
    );
}
