//! Conversions between framework diagnostics/values and domain findings/lists.

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

/// A list of strings as a value.
pub fn string_list<S: AsRef<str>>(items: &[S]) -> Value {
    Value::list(items.iter().map(|s| Value::string(s.as_ref())).collect())
}
