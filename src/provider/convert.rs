//! Conversions between framework values/diagnostics and domain inputs/findings.

use crate::domain::{Finding, Severity};
use crate::framework::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::framework::value::Value;

/// Adds domain findings as diagnostics pointing at their attribute (and
/// element). `prefix` is the path of the object the findings' fields live in
/// (root for top-level attributes).
pub fn push_findings(findings: &[Finding], prefix: &AttributePath, diags: &mut Diagnostics) {
    for finding in findings {
        let mut path = prefix.clone();
        if !finding.field.is_empty() {
            path = path.attr(&finding.field);
        }
        if let Some(index) = finding.index {
            path = path.index(index);
        }
        let diagnostic = match finding.severity {
            Severity::Error => Diagnostic::error(&finding.summary, &finding.detail),
            Severity::Warning => Diagnostic::warning(&finding.summary, &finding.detail),
        };
        diags.push(if path.steps().is_empty() {
            diagnostic
        } else {
            diagnostic.at(path)
        });
    }
}

/// A string attribute; `None` when null (or absent).
pub fn string(object: &Value, name: &str) -> Option<String> {
    object
        .get_attr(name)
        .and_then(Value::as_str)
        .map(str::to_owned)
}

/// A bool attribute; `false` when null.
pub fn boolean(object: &Value, name: &str) -> bool {
    object
        .get_attr(name)
        .and_then(Value::as_bool)
        .unwrap_or(false)
}

/// A list/set of strings; a null list is empty. Callers reject null
/// elements first (schema validator `NoNullElements`), so indexes stay aligned.
pub fn strings(object: &Value, name: &str) -> Vec<String> {
    object
        .get_attr(name)
        .and_then(Value::elements)
        .map(|items| {
            items
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// A list of strings as a value.
pub fn string_list<S: AsRef<str>>(items: &[S]) -> Value {
    Value::list(items.iter().map(|s| Value::string(s.as_ref())).collect())
}

/// A set of strings as a value.
pub fn string_set<S: AsRef<str>>(items: &[S]) -> Value {
    Value::Set(items.iter().map(|s| Value::string(s.as_ref())).collect())
}

/// A list of objects, each given as (attribute, value) pairs.
pub fn objects<'a>(rows: impl IntoIterator<Item = Vec<(&'a str, Value)>>) -> Value {
    Value::list(
        rows.into_iter()
            .map(|row| Value::object(row.into_iter().map(|(k, v)| (k.to_owned(), v))))
            .collect(),
    )
}

/// The object type with string attributes `names`.
pub fn string_object_type(names: &[&str]) -> crate::framework::value::Type {
    crate::framework::value::Type::object(
        names
            .iter()
            .map(|n| (*n, crate::framework::value::Type::String)),
    )
}
