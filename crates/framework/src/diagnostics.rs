//! Diagnostics (errors and warnings shown by Terraform) and the attribute
//! paths that point them at a place in the configuration.

use std::fmt;

/// One step of an [`AttributePath`].
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum PathStep {
    /// An object attribute by name.
    Attribute(String),
    /// A list or tuple element by position.
    Index(i64),
    /// A map element by key.
    Key(String),
}

/// A path into a value, e.g. `pod_cidrs[2]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct AttributePath {
    steps: Vec<PathStep>,
}

impl AttributePath {
    /// The empty path (the whole object).
    pub fn root() -> Self {
        Self::default()
    }

    /// A path to a top-level attribute.
    pub fn attribute(name: impl Into<String>) -> Self {
        Self::root().attr(name)
    }

    /// This path extended by an attribute step.
    pub fn attr(mut self, name: impl Into<String>) -> Self {
        self.steps.push(PathStep::Attribute(name.into()));
        self
    }

    /// This path extended by a list-index step.
    pub fn index(mut self, index: usize) -> Self {
        self.steps
            .push(PathStep::Index(i64::try_from(index).unwrap_or(i64::MAX)));
        self
    }

    /// This path extended by a map-key step.
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.steps.push(PathStep::Key(key.into()));
        self
    }

    /// The steps of the path, outermost first.
    pub fn steps(&self) -> &[PathStep] {
        &self.steps
    }
}

impl fmt::Display for AttributePath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, step) in self.steps.iter().enumerate() {
            match step {
                PathStep::Attribute(name) if i == 0 => write!(f, "{name}")?,
                PathStep::Attribute(name) => write!(f, ".{name}")?,
                PathStep::Index(n) => write!(f, "[{n}]")?,
                PathStep::Key(k) => write!(f, "[{k:?}]")?,
            }
        }
        Ok(())
    }
}

/// Error or warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// Stops the operation.
    Error,
    /// Shown, but the operation goes on.
    Warning,
}

/// A message for the user, optionally attached to an attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// One-line summary.
    pub summary: String,
    /// Longer explanation.
    pub detail: String,
    /// The attribute the message is about, if any.
    pub path: Option<AttributePath>,
    /// A stable identifier of the diagnostic's kind, for callers that name
    /// diagnostics (e.g. to acknowledge a warning); Terraform never sees it.
    pub id: Option<&'static str>,
}

impl Diagnostic {
    /// An error not tied to an attribute.
    pub fn error(summary: impl Into<String>, detail: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            summary: summary.into(),
            detail: detail.into(),
            path: None,
            id: None,
        }
    }

    /// A warning not tied to an attribute.
    pub fn warning(summary: impl Into<String>, detail: impl Into<String>) -> Self {
        Self {
            severity: Severity::Warning,
            ..Self::error(summary, detail)
        }
    }

    /// The same diagnostic, identified by `id` (see [`Diagnostic::id`]).
    pub fn with_id(mut self, id: &'static str) -> Self {
        self.id = Some(id);
        self
    }

    /// The same diagnostic, pointed at `path`.
    pub fn at(mut self, path: AttributePath) -> Self {
        self.path = Some(path);
        self
    }
}

/// An ordered collection of diagnostics.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Diagnostics(Vec<Diagnostic>);

impl Diagnostics {
    /// No diagnostics.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds one diagnostic.
    pub fn push(&mut self, diagnostic: Diagnostic) {
        self.0.push(diagnostic);
    }

    /// Adds every diagnostic of `other`.
    pub fn extend(&mut self, other: Diagnostics) {
        self.0.extend(other.0);
    }

    /// True when at least one diagnostic is an error.
    pub fn has_errors(&self) -> bool {
        self.0.iter().any(|d| d.severity == Severity::Error)
    }

    /// True when there is no diagnostic at all.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The diagnostics in order.
    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.0.iter()
    }
}

impl From<Diagnostic> for Diagnostics {
    fn from(diagnostic: Diagnostic) -> Self {
        Self(vec![diagnostic])
    }
}

impl FromIterator<Diagnostic> for Diagnostics {
    fn from_iter<I: IntoIterator<Item = Diagnostic>>(iter: I) -> Self {
        Self(iter.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_displays_like_terraform_addresses() {
        let path = AttributePath::attribute("units").index(2).attr("name");
        assert_eq!(path.to_string(), "units[2].name");
        assert_eq!(
            AttributePath::attribute("env").key("A").to_string(),
            "env[\"A\"]"
        );
    }

    #[test]
    fn error_detection() {
        let mut diags = Diagnostics::new();
        diags.push(Diagnostic::warning("w", ""));
        assert!(!diags.has_errors());
        diags.push(Diagnostic::error("e", "").at(AttributePath::attribute("x")));
        assert!(diags.has_errors());
    }
}
