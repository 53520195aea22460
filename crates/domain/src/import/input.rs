//! Reading an artifact's text within bounds: its size, and the nesting and
//! indentation of YAML or JSON, are checked before any parser runs; the
//! finding every import error shares; small readers the importers share.

use crate::Finding;

/// Largest artifact read or parsed: 4 MiB. Larger inputs are refused before
/// any parsing, so every import takes bounded time.
pub const MAX_INPUT_BYTES: usize = 4 << 20;

/// Deepest `{`/`[` nesting accepted in a YAML or JSON artifact (real ones
/// nest fewer than 20 levels).
pub const MAX_NESTING: usize = 64;

/// Widest indentation accepted in a YAML artifact, in columns; it bounds the
/// depth of block nesting.
pub const MAX_INDENT: usize = 512;

/// Refuses inputs over [`MAX_INPUT_BYTES`], naming the limit but not the
/// input's size: an artifact may hold a password, whose length a size would
/// tell.
pub(crate) fn check_size(text: &str) -> Result<(), Finding> {
    if text.len() > MAX_INPUT_BYTES {
        return Err(error(format!(
            "The artifact takes more than the {MAX_INPUT_BYTES} bytes (4 MiB) an import reads."
        )));
    }
    Ok(())
}

/// A finding with the summary every import error shares.
pub fn error(detail: impl Into<String>) -> Finding {
    Finding::error(None, "Cannot import proxy settings", detail)
}

/// Splits a comma- (or space-) separated NO_PROXY value.
pub fn split_list(value: &str) -> Vec<String> {
    value
        .split([',', ' ', '\n', '\t'])
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Documents of a (multi-document) YAML or JSON text. Size, nesting and
/// indentation are checked first, in one linear pass, so that hostile input
/// (e.g. `{` nested 100k deep) is refused before the parser runs.
pub fn documents(text: &str) -> Result<Vec<serde_json::Value>, Finding> {
    use serde::Deserialize as _;
    check_bounds(text)?;
    serde_yaml_ng::Deserializer::from_str(text)
        .map(|doc| {
            serde_json::Value::deserialize(doc)
                .map_err(|e| error(format!("Not valid YAML or JSON: {e}.")))
        })
        .filter(|doc| !matches!(doc, Ok(serde_json::Value::Null)))
        .collect()
}

/// Refuses what no parser is given: a text over [`MAX_INPUT_BYTES`], or
/// nesting or indentation past [`MAX_NESTING`] or [`MAX_INDENT`].
pub(crate) fn check_bounds(text: &str) -> Result<(), Finding> {
    check_size(text)?;
    check_nesting(text)
}

/// Refuses flow nesting deeper than [`MAX_NESTING`] and indentation wider
/// than [`MAX_INDENT`]. Brackets inside quoted strings count too: real
/// artifacts never come near the limit.
fn check_nesting(text: &str) -> Result<(), Finding> {
    let mut depth = 0usize;
    for byte in text.bytes() {
        match byte {
            b'[' | b'{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(error(format!(
                        "The artifact nests `{{` or `[` more than {MAX_NESTING} levels deep; real artifacts do not."
                    )));
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if let Some(line) = text
        .lines()
        .position(|l| l.len() - l.trim_start().len() > MAX_INDENT)
    {
        return Err(error(format!(
            "Line {} of the artifact is indented more than {MAX_INDENT} columns; real artifacts are not.",
            line + 1
        )));
    }
    Ok(())
}

/// The elements of `value` when it is an array; none otherwise.
pub(crate) fn items(value: Option<&serde_json::Value>) -> &[serde_json::Value] {
    value
        .and_then(serde_json::Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

/// The string elements of `value` when it is an array (other elements are
/// passed over).
pub(crate) fn strings(value: Option<&serde_json::Value>) -> impl Iterator<Item = &str> {
    items(value).iter().filter_map(serde_json::Value::as_str)
}

/// A string at `path` inside `value`.
pub fn text_at<'a>(value: &'a serde_json::Value, path: &[&str]) -> Option<&'a str> {
    path.iter()
        .try_fold(value, |v, key| v.get(key))
        .and_then(serde_json::Value::as_str)
}

/// The value of the ClusterClass variable `name` of a `Cluster` document:
/// the `value` of the `spec.topology.variables` item of that `name`
/// (cluster-api api/v1beta1/cluster_types.go, `ClusterVariable`).
pub(crate) fn topology_variable<'a>(
    document: &'a serde_json::Value,
    name: &str,
) -> Option<&'a serde_json::Value> {
    if text_at(document, &["kind"]) != Some("Cluster") {
        return None;
    }
    items(document.pointer("/spec/topology/variables"))
        .iter()
        .find(|variable| text_at(variable, &["name"]) == Some(name))
        .and_then(|variable| variable.get("value"))
}

/// The string at `key` of `object`, none when absent or null; anything
/// else is refused, naming `field` (where the object is) and the key.
pub(crate) fn optional_text(
    object: &serde_json::Value,
    key: &str,
    field: &str,
) -> Result<Option<String>, Finding> {
    match object.get(key) {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(serde_json::Value::String(text)) => Ok(Some(text.clone())),
        Some(_) => Err(error(format!("`{field}.{key}` is not a string."))),
    }
}

/// The list of strings at `key` of `object`, empty when absent or null;
/// anything else is refused, naming `field` and the key.
pub(crate) fn string_list(
    object: &serde_json::Value,
    key: &str,
    field: &str,
) -> Result<Vec<String>, Finding> {
    match object.get(key) {
        None | Some(serde_json::Value::Null) => Ok(Vec::new()),
        Some(serde_json::Value::Array(list)) => list
            .iter()
            .map(|item| item.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(|| {
                error(format!(
                    "`{field}.{key}` holds an item that is not a string."
                ))
            }),
        Some(_) => Err(error(format!("`{field}.{key}` is not a list of strings."))),
    }
}

/// The PEM text of a base64 CA bundle, as TKG writes it (TKG_PROXY_CA_CERT,
/// the `trust` variable's `additionalTrustedCAs[].data`); `field` names it.
pub(crate) fn base64_pem(b64: &str, field: &str) -> Result<String, Finding> {
    use base64::Engine as _;
    let pem = base64::engine::general_purpose::STANDARD
        .decode(b64.trim())
        .map_err(|_| error(format!("{field} is not base64.")))?;
    String::from_utf8(pem).map_err(|_| error(format!("{field} does not decode to PEM text.")))
}

/// The first of `documents` in which `shape` finds something, with what
/// it found.
pub(crate) fn first_shaped<'a, T>(
    documents: &'a [serde_json::Value],
    shape: impl Fn(&'a serde_json::Value) -> Option<T>,
) -> Option<(&'a serde_json::Value, T)> {
    documents
        .iter()
        .find_map(|document| Some((document, shape(document)?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An artifact over the limit is refused with the same text whatever
    /// it takes: artifacts hold passwords, and a size would tell anyone
    /// who knows the rest how long one is.
    #[test]
    fn an_artifact_over_the_limit_is_refused_naming_no_size() {
        let refusal = |extra: usize| {
            check_size(&"#".repeat(MAX_INPUT_BYTES + 1 + extra))
                .unwrap_err()
                .detail
        };
        let text = refusal(0);
        assert_eq!(text, refusal(12));
        assert!(text.contains("4194304 bytes (4 MiB)"), "{text}");
        assert!(!text.contains("4194305"), "{text}");
        assert!(check_size(&"#".repeat(MAX_INPUT_BYTES)).is_ok());
    }
}
