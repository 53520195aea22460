//! Pure domain core: everything about proxies and NO_PROXY, free of any
//! Terraform or protocol type.

pub mod cancel;
pub mod no_proxy;
pub mod profile;

use std::fmt;

/// How serious a [`Finding`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The input cannot be used; no output is produced.
    Error,
    /// The input is used, but the user should know something about it.
    Warning,
}

/// A problem or remark about user input, located by the input field it
/// concerns (named like the Terraform attribute that carries it, e.g.
/// `pod_cidrs`) and, for list inputs, the element index.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Finding {
    /// Error or warning.
    pub severity: Severity,
    /// Input field the finding is about; empty when it concerns the whole input.
    pub field: String,
    /// Element index inside a list field, when the finding is about one element.
    pub index: Option<usize>,
    /// One-line summary.
    pub summary: String,
    /// Longer explanation, quoting the offending value where that is not secret.
    pub detail: String,
}

impl Finding {
    /// An error about `field` (and element `index`, if any).
    pub fn error(
        field: impl Into<String>,
        index: Option<usize>,
        summary: impl Into<String>,
        detail: impl Into<String>,
    ) -> Self {
        Self::new(Severity::Error, field, index, summary, detail)
    }

    /// A warning about `field` (and element `index`, if any).
    pub fn warning(
        field: impl Into<String>,
        index: Option<usize>,
        summary: impl Into<String>,
        detail: impl Into<String>,
    ) -> Self {
        Self::new(Severity::Warning, field, index, summary, detail)
    }

    fn new(
        severity: Severity,
        field: impl Into<String>,
        index: Option<usize>,
        summary: impl Into<String>,
        detail: impl Into<String>,
    ) -> Self {
        Self {
            severity,
            field: field.into(),
            index,
            summary: summary.into(),
            detail: detail.into(),
        }
    }

    /// True for [`Severity::Error`].
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.index {
            Some(i) => write!(f, "{}[{}]: {}", self.field, i, self.summary),
            None => write!(f, "{}: {}", self.field, self.summary),
        }
    }
}

pub mod import;
pub mod proxy_url;
pub mod render;
pub mod trusted_ca;
