//! Suggestions for misspelt names: the one home of "did you mean".

/// Optimal string alignment distance (edits: insert, delete, substitute,
/// swap two neighbours), for short names.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            d[i][j] = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d[i][j] = d[i][j].min(d[i - 2][j - 2] + 1);
            }
        }
    }
    d[a.len()][b.len()]
}

/// The candidate `name` most likely misspells: the nearest one within two
/// edits (one for names of up to four characters), or else the only
/// candidate that starts with `name` or that `name` starts with (a
/// singular for a plural, a cut name). Ties go to the first candidate;
/// `None` when nothing is close or `name` is a candidate.
pub fn suggest<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    if candidates.contains(&name) || name.is_empty() {
        return None;
    }
    let lower = name.to_lowercase();
    let limit = if name.chars().count() <= 4 { 1 } else { 2 };
    // The distance is at least the difference in length: a name much longer
    // than every candidate (a megabyte of input) is compared with none.
    let nearest = candidates
        .iter()
        .filter(|c| c.chars().count().abs_diff(lower.chars().count()) <= limit)
        .map(|c| (edit_distance(&lower, c), *c))
        .filter(|(distance, _)| *distance <= limit)
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, c)| c);
    nearest.or_else(|| {
        let mut prefixed = candidates
            .iter()
            .filter(|c| c.starts_with(&lower) || lower.starts_with(*c));
        match (prefixed.next(), prefixed.next()) {
            (Some(only), None) => Some(*only),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const INPUTS: &[&str] = &[
        "pod_cidrs",
        "service_cidrs",
        "node_cidrs",
        "units",
        "cluster_name",
        "namespace",
    ];

    #[test]
    fn suggests_the_near_name() {
        for (typo, want) in [
            ("pod_cidr", Some("pod_cidrs")),
            ("POD_CIDRS", Some("pod_cidrs")),
            ("service_cidr", Some("service_cidrs")),
            ("unit", Some("units")),
            ("clustername", Some("cluster_name")),
            ("namespcae", Some("namespace")),
            ("cluster", Some("cluster_name")),
            ("pod_cidrs", None),
            ("cidrs", None),
            ("zzz", None),
            ("", None),
        ] {
            assert_eq!(suggest(typo, INPUTS), want, "{typo}");
        }
        assert_eq!(edit_distance("kublet", "kubelet"), 1);
        assert_eq!(edit_distance("ab", "ba"), 1);
    }
}
