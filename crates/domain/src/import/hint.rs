//! Hints in the syntax of their context: an import that asks for an
//! option (cluster facts, `https_through_proxy=true`) says how to give it
//! where the import came from: in an import ID (`rke2(pod_cidrs=...):...`),
//! or in a fleet scan's `facts` (`facts = { "<glob>" = "pod_cidrs=..." }`).

/// Where an import's options are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Syntax {
    /// An import ID: `<kind>(<options>):<source>`.
    Id,
    /// A fleet scan's `facts` entry for the files `glob` matches.
    Facts {
        /// The glob whose entry takes the options.
        glob: String,
    },
}

impl Syntax {
    /// How to give `options` (`pod_cidrs=...;service_cidrs=...`) to an
    /// import of `kind` whose source is written `source` in an ID (`...`,
    /// `file:PATH`), quoted as code.
    pub fn options(&self, kind: &str, options: &str, source: &str) -> String {
        match self {
            Self::Id => format!("`{kind}({options}):{source}`"),
            Self::Facts { glob } => format!("`facts = {{ {glob:?} = {options:?} }}`"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_are_written_as_their_context_writes_them() {
        let options = "pod_cidrs=...;service_cidrs=...";
        assert_eq!(
            Syntax::Id.options("rke2", options, "..."),
            "`rke2(pod_cidrs=...;service_cidrs=...):...`"
        );
        let facts = Syntax::Facts {
            glob: "nodes/a/rke2-server".into(),
        };
        assert_eq!(
            facts.options("rke2", options, "..."),
            "`facts = { \"nodes/a/rke2-server\" = \"pod_cidrs=...;service_cidrs=...\" }`"
        );
    }
}
