//! The dialects against documented behaviour and against the classes of
//! spellings clients read differently (case, trailing dots, IDN, IPv4-mapped
//! IPv6, ports, blanks, `.` and `*.` forms).

use super::shared::whatwg_ipv6;
use super::*;

/// The dialect called `name`.
fn named(name: &str) -> Dialect {
    Dialect::from_name(name).unwrap_or_else(|| panic!("no client is called {name}"))
}

fn check(name: &str, list: &str, url: &str) -> bool {
    named(name).bypasses(list, &Destination::parse(url).unwrap())
}

#[test]
fn names_round_trip() {
    for d in Dialect::all() {
        assert_eq!(Dialect::from_name(d.name()), Some(d));
    }
    assert_eq!(Dialect::from_name("perl"), None);
}

/// Dialects order as [`CLIENTS`] lists them, whatever order they come in,
/// so that every per-client output is in documentation order.
#[test]
fn dialects_order_as_listed() {
    let sorted: std::collections::BTreeSet<Dialect> = CLIENTS
        .iter()
        .rev()
        .map(|&client| Dialect(client))
        .collect();
    let names: Vec<&str> = sorted.into_iter().map(Dialect::name).collect();
    assert_eq!(names, Dialect::names());
    assert!(Dialect::GO < Dialect::HTTPX && Dialect::HTTPX == named("httpx"));
}

/// One case per class of spelling clients read differently, per client it
/// applies to; each was a disagreement with the real client before the models
/// read hosts as written.
#[test]
fn spelling_classes_hold() {
    use Decision::{Direct, Proxy, Refused};
    let cases: &[(&str, &str, &str, Decision)] = &[
        ("go", "", "http://LOCALHOST/", Proxy),
        ("go", "", "http://localhost/", Direct),
        (
            "go",
            "bücher.example",
            "http://xn--bcher-kva.example/",
            Direct,
        ),
        ("go", "10.0.0.0/8", "http://[::ffff:10.0.0.1]/", Direct),
        ("go", "::ffff:10.0.0.0/104", "http://10.1.2.3/", Direct),
        ("go", "10.0.0.0/8", "http://[::10.0.0.1]/", Proxy),
        (
            "go",
            ".cluster.local",
            "https://kubernetes.default.svc.cluster.local./",
            Proxy,
        ),
        ("go", "example.com.", "http://example.com./", Direct),
        ("python", "example.com", "http://example.com./", Proxy),
        ("python", ".", "http://example.com./", Direct),
        (
            "python",
            "xn--bcher-kva.example",
            "http://bücher.example/",
            Proxy,
        ),
        ("python", "bücher.example", "http://BÜCHER.example/", Direct),
        (
            "requests",
            "xn--bcher-kva.example",
            "http://bücher.example/",
            Proxy,
        ),
        ("curl", "a.example b.example", "http://b.example/", Direct),
        ("curl", "a.example;b.example", "http://b.example/", Proxy),
        ("curl", "::ffff:10.1.2.3", "http://[::ffff:a01:203]/", Proxy),
        ("curl", "fd00::1", "http://[fd00:0::1]/", Direct),
        ("wget", "a,,b", "http://example.com./", Direct),
        ("wget", " example.com", "http://example.com/", Proxy),
        ("ruby", "", "http://bücher.example/", Refused),
        ("ruby", "", "http://LOCALHOST/", Direct),
        ("node", "[::10.1.2.3]", "http://[::10.1.2.3]/", Proxy),
        ("node", "[::a01:203]", "http://[::10.1.2.3]/", Direct),
        ("node", "", "http://[fe80::1%25eth0]/", Direct),
        (
            "python",
            "[fe80::1%eth0]",
            "http://[fe80::1%25eth0]/",
            Direct,
        ),
        ("go", "fe80::1%eth0", "http://[fe80::1%25eth0]/", Direct),
        ("go", "fe80::1", "http://[fe80::1%25eth0]/", Proxy),
        ("curl", "fe80::1", "http://[fe80::1%25eth0]/", Direct),
        ("undici", "*", "http://[fe80::1%25eth0]/", Refused),
        ("undici", "example.com", "http://a.example.com/", Direct),
        ("undici", ".example.com", "http://example.com/", Direct),
        ("undici", "a,*", "http://example.com/", Proxy),
        ("undici", "fd00::1", "http://[fd00::1]/", Proxy),
        ("undici", "[fd00::1]:80", "http://[fd00:0::1]/", Direct),
        ("reqwest", "", "http://LOCALHOST/", Proxy),
        ("reqwest", "*", "http://10.1.2.3/", Proxy),
        ("reqwest", "a.example, *", "http://example.com/", Direct),
        ("reqwest", "10.0.0.0/8", "http://[::ffff:10.0.0.1]/", Proxy),
        (
            "reqwest",
            "::ffff:10.0.0.1",
            "http://[::ffff:a00:1]/",
            Direct,
        ),
        ("reqwest", "example.com", "http://example.com./", Proxy),
        ("reqwest", ".", "http://example.com./", Direct),
        ("reqwest", "bücher.example", "http://bücher.example/", Proxy),
        (
            "reqwest",
            "xn--bcher-kva.example",
            "http://BÜCHER.example/",
            Direct,
        ),
        (
            "reqwest",
            "a.example example.com",
            "http://example.com/",
            Proxy,
        ),
        ("reqwest", "\texample.com ", "http://example.com/", Direct),
        ("reqwest", "example.com:80", "http://example.com/", Proxy),
        ("reqwest", "[fd00::1]", "http://[fd00::1]/", Proxy),
        ("reqwest", "fd00::/8", "http://[fd00:0::1]/", Direct),
        ("reqwest", "*.example.com", "http://a.example.com/", Proxy),
        ("reqwest", ".example.com", "http://example.com/", Direct),
        ("reqwest", "*", "http://[fe80::1%25eth0]/", Refused),
    ];
    for (name, list, url, want) in cases {
        let d = Destination::parse(url).unwrap();
        assert_eq!(named(name).decide(list, &d), *want, "{name} {list:?} {url}");
    }
}

#[test]
fn whatwg_ipv6_serialisation() {
    for (ip, written) in [
        ("::ffff:10.1.2.3", "::ffff:a01:203"),
        ("fd00:0::1", "fd00::1"),
        ("1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8"),
    ] {
        assert_eq!(whatwg_ipv6(ip.parse().unwrap()), written, "{ip}");
    }
}

#[test]
fn default_is_the_original_eight() {
    let names: Vec<&str> = Dialect::defaults().iter().map(|d| d.name()).collect();
    assert_eq!(names, Dialect::default_names());
    assert_eq!(
        Dialect::default_names(),
        ["go", "curl", "python", "requests", "ruby", "wget", "java", "node"]
    );
    // The first eight: the order of every per-client output stays.
    assert_eq!(
        Dialect::defaults(),
        &Dialect::all().take(8).collect::<Vec<_>>()
    );
}

#[test]
fn documented_differences_hold() {
    let cases: &[(&str, &str, &str, bool)] = &[
        ("go", ".example.com", "http://a.example.com/", true),
        ("go", ".example.com", "http://example.com/", false),
        ("go", "example.com", "http://a.example.com/", true),
        ("go", "*.example.com", "http://a.example.com/", true),
        ("go", "10.0.0.0/8", "http://10.1.2.3/", true),
        ("go", "10.0.0.0/8", "http://ten.example/", false),
        ("go", "example.com:8080", "http://example.com:8080/", true),
        ("go", "example.com:8080", "http://example.com/", false),
        ("go", "a,*", "http://x.example/", true),
        ("curl", ".example.com", "http://example.com/", true),
        ("curl", "10.0.0.0/8", "http://10.1.2.3/", true),
        ("curl", "a.example,*", "http://x.example/", false),
        ("curl", "*", "http://x.example/", true),
        (
            "curl",
            "example.com:8080",
            "http://example.com:8080/",
            false,
        ),
        ("python", "10.0.0.0/8", "http://10.1.2.3/", false),
        ("python", ".example.com", "http://example.com/", true),
        (
            "python",
            "example.com:8080",
            "http://example.com:8080/",
            true,
        ),
        ("requests", "10.0.0.0/8", "http://10.1.2.3/", true),
        ("requests", "example.com", "http://badexample.com/", false),
        ("ruby", "10.0.0.0/8", "http://10.1.2.3/", true),
        ("ruby", ".example.com", "http://example.com/", false),
        ("wget", "*.example.com", "http://a.example.com/", false),
        ("wget", ".example.com", "http://a.example.com/", true),
        ("wget", "example.com", "http://a.example.com/", true),
        ("java", "*.example.com", "http://a.example.com/", true),
        ("java", "example.com", "http://a.example.com/", false),
        ("java", "x.example", "http://127.0.0.5/", true),
        ("java", "", "http://127.0.0.5/", false),
        ("node", "example.com", "http://a.example.com/", false),
        ("node", ".example.com", "http://a.example.com/", true),
        ("node", "[fd00::1]", "http://[fd00::1]/", true),
        ("node", "fd00::1", "http://[fd00::1]/", false),
    ];
    for (name, list, url, want) in cases {
        assert_eq!(check(name, list, url), *want, "{name} {list:?} {url}");
    }
}
