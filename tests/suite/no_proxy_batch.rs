//! `Dialect::decide_all` (one pass over a setting for a batch of
//! destinations, as the coverage check uses it) decides every destination
//! as `Dialect::decide` does for it alone, on the scale tests' mixed
//! installation entries and on the quirky settings of the model tests.

use crate::support;

use clusterproxy::domain::no_proxy::dialect::Decision;
use clusterproxy::domain::no_proxy::{Destination, Dialect};
use support::mixed_entries;

/// The batch decides every destination as the one-destination case does:
/// no destination dropped, none left undecided by an early stop, whatever
/// the order of entries and destinations.
#[test]
fn decide_all_matches_decide() {
    const N: usize = 150;
    let entries = mixed_entries(N);
    let mut urls: Vec<String> = [
        "http://LOCALHOST/",
        "http://localhost/",
        "http://127.0.0.1/",
        "http://[::1]/",
        "http://[fe80::1%25eth0]/",
        "http://[FE80::1%25eth0]:8080/",
        "http://bücher.example/",
        "http://a.BÜCHER.example./",
        "http://xn--bcher-kva.example/",
        "https://kubernetes.default.svc.cluster.local./",
        "http://Example.COM.:8080/",
        "http://example.com/",
        "http://a.example.com/",
        "https://example.com:443/",
        "http://x.example./",
        "http://[::ffff:10.0.0.1]/",
        "http://[::10.1.2.3]/",
        "http://[fd00:0::1]/",
        "http://[FD00::1]/",
        "http://10.1.2.3/",
        "http://nothing.example/",
    ]
    .map(str::to_owned)
    .into();
    for i in [0, 1, 2, 3, 4, 5, 70, 71, 72, 73, 74, 75, N - 6, N - 1] {
        let (a, b, c) = ((i >> 16) & 0xff, (i >> 8) & 0xff, i & 0xff);
        urls.extend([
            format!("http://host-{i}.team-{}.corp.example/", i % 97),
            format!("https://HOST-{i}.team-{}.corp.example./", i % 97),
            format!("https://a.zone-{i}.example/"),
            format!("http://zone-{i}.example/"),
            format!("http://10.{a}.{b}.{c}/"),
            format!("http://[::ffff:10.{a}.{b}.{c}]/"),
            format!("http://172.{}.{b}.9/", 16 + a % 16),
            format!("http://[fd00:{a:x}:{b:x}::{c:x}]/"),
            format!("http://svc-{i}.corp.example:{}/", 1024 + i % 1000),
            format!("http://svc-{i}.corp.example:1/"),
        ]);
    }
    let destinations: Vec<Destination> = urls
        .iter()
        .map(|u| Destination::parse(u).unwrap())
        .collect();
    let mut reversed = destinations.clone();
    reversed.reverse();
    let joined = |sep: &str, entries: &[String]| entries.join(sep);
    let mut tail_first = entries.clone();
    tail_first.reverse();
    let mut lists = vec![
        String::new(),
        "*".to_owned(),
        joined(",", &entries),
        joined(",", &tail_first),
        joined(" , ", &entries),
        joined(" ", &entries),
        joined("|", &entries),
        format!(
            "{},*,{}",
            joined(",", &entries[..N / 2]),
            joined(",", &entries[N / 2..])
        ),
        format!("{},a.example\tb.example", joined(",", &entries)),
        format!("{},[fd00::1],fd00::/8", joined(",", &entries)),
        format!("{}|*.example.com|10.*", joined("|", &entries)),
        "a,,b".to_owned(),
        " example.com".to_owned(),
        "\texample.com ".to_owned(),
        "a.example;b.example".to_owned(),
        ".".to_owned(),
        "*.".to_owned(),
        ":8080".to_owned(),
        "LOCALHOST".to_owned(),
        "bücher.example,.bücher.example".to_owned(),
        "fe80::1%eth0,fe80::1%25eth0,[fe80::1%eth0]".to_owned(),
        "::ffff:10.0.0.0/104,[::a01:203]:80,example.com.".to_owned(),
        "*.example.com,example.com:443,10.0.0.0/8".to_owned(),
    ];
    lists.extend(entries.iter().step_by(31).cloned());
    for dialect in Dialect::all() {
        let mut seen = (false, false);
        for list in &lists {
            let wants: Vec<Decision> = destinations
                .iter()
                .map(|d| dialect.decide(list, d))
                .collect();
            if list.len() > 1000 {
                seen.0 |= wants.contains(&Decision::Direct);
                seen.1 |= wants.contains(&Decision::Proxy);
            }
            let batch = dialect.decide_all(list, &destinations);
            assert_eq!(batch, wants, "{dialect} {list:?}");
            let mut batch = dialect.decide_all(list, &reversed);
            batch.reverse();
            assert_eq!(batch, wants, "{dialect} {list:?} (reversed)");
        }
        // The long lists leave some destinations proxied and send others
        // direct, so the batch must go on after the first match.
        assert_eq!(seen, (true, true), "{dialect}");
    }
}
