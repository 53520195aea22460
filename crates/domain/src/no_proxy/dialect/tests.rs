//! The dialects against documented behaviour and against the classes of
//! spellings clients read differently (case, trailing dots, IDN, IPv4-mapped
//! IPv6, ports, blanks, `.` and `*.` forms).

use super::shared::whatwg_ipv6;
use super::*;

fn check(dialect: Dialect, list: &str, url: &str) -> bool {
    dialect.bypasses(list, &Destination::parse(url).unwrap())
}

#[test]
fn names_round_trip() {
    for d in Dialect::ALL {
        assert_eq!(Dialect::from_name(d.name()), Some(d));
    }
    assert_eq!(Dialect::from_name("perl"), None);
}

/// One case per class of spelling clients read differently, per client it
/// applies to; each was a disagreement with the real client before the models
/// read hosts as written.
#[test]
fn spelling_classes_hold() {
    use Decision::{Direct, Proxy, Refused};
    use Dialect::*;
    let cases: &[(Dialect, &str, &str, Decision)] = &[
        (Go, "", "http://LOCALHOST/", Proxy),
        (Go, "", "http://localhost/", Direct),
        (
            Go,
            "bücher.example",
            "http://xn--bcher-kva.example/",
            Direct,
        ),
        (Go, "10.0.0.0/8", "http://[::ffff:10.0.0.1]/", Direct),
        (Go, "::ffff:10.0.0.0/104", "http://10.1.2.3/", Direct),
        (Go, "10.0.0.0/8", "http://[::10.0.0.1]/", Proxy),
        (
            Go,
            ".cluster.local",
            "https://kubernetes.default.svc.cluster.local./",
            Proxy,
        ),
        (Go, "example.com.", "http://example.com./", Direct),
        (Python, "example.com", "http://example.com./", Proxy),
        (Python, ".", "http://example.com./", Direct),
        (
            Python,
            "xn--bcher-kva.example",
            "http://bücher.example/",
            Proxy,
        ),
        (Python, "bücher.example", "http://BÜCHER.example/", Direct),
        (
            Requests,
            "xn--bcher-kva.example",
            "http://bücher.example/",
            Proxy,
        ),
        (Curl, "a.example b.example", "http://b.example/", Direct),
        (Curl, "a.example;b.example", "http://b.example/", Proxy),
        (Curl, "::ffff:10.1.2.3", "http://[::ffff:a01:203]/", Proxy),
        (Curl, "fd00::1", "http://[fd00:0::1]/", Direct),
        (Wget, "a,,b", "http://example.com./", Direct),
        (Wget, " example.com", "http://example.com/", Proxy),
        (Ruby, "", "http://bücher.example/", Refused),
        (Ruby, "", "http://LOCALHOST/", Direct),
        (Node, "[::10.1.2.3]", "http://[::10.1.2.3]/", Proxy),
        (Node, "[::a01:203]", "http://[::10.1.2.3]/", Direct),
        (Node, "", "http://[fe80::1%25eth0]/", Direct),
        (Python, "[fe80::1%eth0]", "http://[fe80::1%25eth0]/", Direct),
        (Go, "fe80::1%eth0", "http://[fe80::1%25eth0]/", Direct),
        (Go, "fe80::1", "http://[fe80::1%25eth0]/", Proxy),
        (Curl, "fe80::1", "http://[fe80::1%25eth0]/", Direct),
        (Undici, "*", "http://[fe80::1%25eth0]/", Refused),
        (Undici, "example.com", "http://a.example.com/", Direct),
        (Undici, ".example.com", "http://example.com/", Direct),
        (Undici, "a,*", "http://example.com/", Proxy),
        (Undici, "fd00::1", "http://[fd00::1]/", Proxy),
        (Undici, "[fd00::1]:80", "http://[fd00:0::1]/", Direct),
        (Reqwest, "", "http://LOCALHOST/", Proxy),
        (Reqwest, "*", "http://10.1.2.3/", Proxy),
        (Reqwest, "a.example, *", "http://example.com/", Direct),
        (Reqwest, "10.0.0.0/8", "http://[::ffff:10.0.0.1]/", Proxy),
        (Reqwest, "::ffff:10.0.0.1", "http://[::ffff:a00:1]/", Direct),
        (Reqwest, "example.com", "http://example.com./", Proxy),
        (Reqwest, ".", "http://example.com./", Direct),
        (Reqwest, "bücher.example", "http://bücher.example/", Proxy),
        (
            Reqwest,
            "xn--bcher-kva.example",
            "http://BÜCHER.example/",
            Direct,
        ),
        (
            Reqwest,
            "a.example example.com",
            "http://example.com/",
            Proxy,
        ),
        (Reqwest, "\texample.com ", "http://example.com/", Direct),
        (Reqwest, "example.com:80", "http://example.com/", Proxy),
        (Reqwest, "[fd00::1]", "http://[fd00::1]/", Proxy),
        (Reqwest, "fd00::/8", "http://[fd00:0::1]/", Direct),
        (Reqwest, "*.example.com", "http://a.example.com/", Proxy),
        (Reqwest, ".example.com", "http://example.com/", Direct),
        (Reqwest, "*", "http://[fe80::1%25eth0]/", Refused),
    ];
    for (dialect, list, url, want) in cases {
        let d = Destination::parse(url).unwrap();
        assert_eq!(dialect.decide(list, &d), *want, "{dialect} {list:?} {url}");
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
    assert_eq!(Dialect::defaults(), &Dialect::ALL[..8]);
}

#[test]
fn documented_differences_hold() {
    use Dialect::*;
    let cases: &[(Dialect, &str, &str, bool)] = &[
        (Go, ".example.com", "http://a.example.com/", true),
        (Go, ".example.com", "http://example.com/", false),
        (Go, "example.com", "http://a.example.com/", true),
        (Go, "*.example.com", "http://a.example.com/", true),
        (Go, "10.0.0.0/8", "http://10.1.2.3/", true),
        (Go, "10.0.0.0/8", "http://ten.example/", false),
        (Go, "example.com:8080", "http://example.com:8080/", true),
        (Go, "example.com:8080", "http://example.com/", false),
        (Go, "a,*", "http://x.example/", true),
        (Curl, ".example.com", "http://example.com/", true),
        (Curl, "10.0.0.0/8", "http://10.1.2.3/", true),
        (Curl, "a.example,*", "http://x.example/", false),
        (Curl, "*", "http://x.example/", true),
        (Curl, "example.com:8080", "http://example.com:8080/", false),
        (Python, "10.0.0.0/8", "http://10.1.2.3/", false),
        (Python, ".example.com", "http://example.com/", true),
        (Python, "example.com:8080", "http://example.com:8080/", true),
        (Requests, "10.0.0.0/8", "http://10.1.2.3/", true),
        (Requests, "example.com", "http://badexample.com/", false),
        (Ruby, "10.0.0.0/8", "http://10.1.2.3/", true),
        (Ruby, ".example.com", "http://example.com/", false),
        (Wget, "*.example.com", "http://a.example.com/", false),
        (Wget, ".example.com", "http://a.example.com/", true),
        (Wget, "example.com", "http://a.example.com/", true),
        (Java, "*.example.com", "http://a.example.com/", true),
        (Java, "example.com", "http://a.example.com/", false),
        (Java, "x.example", "http://127.0.0.5/", true),
        (Java, "", "http://127.0.0.5/", false),
        (Node, "example.com", "http://a.example.com/", false),
        (Node, ".example.com", "http://a.example.com/", true),
        (Node, "[fd00::1]", "http://[fd00::1]/", true),
        (Node, "fd00::1", "http://[fd00::1]/", false),
    ];
    for (dialect, list, url, want) in cases {
        assert_eq!(
            check(*dialect, list, url),
            *want,
            "{dialect} {list:?} {url}"
        );
    }
}
