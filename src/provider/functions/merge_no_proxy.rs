//! `provider::clusterproxy::merge_no_proxy(lists, clients)`.

use crate::domain::redact::quoted;
use std::collections::BTreeSet;
use std::sync::LazyLock;

use crate::domain::no_proxy::{merge, Dialect, MergeOptions, Source};
use crate::domain::InputField;
use crate::framework::diagnostics::AttributePath;
use crate::framework::function::{Function, FunctionError, Parameter, Signature};
use crate::framework::value::{Type, Value};
use crate::provider::attributes::{string_list, LISTS};
use crate::provider::convert::{self, SettingsAt};

#[derive(Debug, Clone, Copy)]
pub struct MergeNoProxy;

/// The description of `clients`, from the client registry.
static CLIENTS: LazyLock<String> = LazyLock::new(|| {
    format!(
        "Clients that read the result ({}); null for every client but {}.",
        Dialect::listing(Dialect::all(), ", ", |_| None),
        Dialect::listing(Dialect::opt_in(), " and ", |_| None)
    )
});

/// The target clients named by a list argument (all when null).
pub fn clients_argument(value: &Value, index: usize) -> Result<BTreeSet<Dialect>, FunctionError> {
    let Some(items) = value.elements() else {
        return Ok(Dialect::defaults().iter().copied().collect());
    };
    let mut targets = BTreeSet::new();
    for item in items {
        let name = item.as_str().unwrap_or_default();
        let dialect = Dialect::from_name(name).ok_or_else(|| {
            FunctionError::argument(
                index,
                format!(
                    "{name} is not a client; use one of {}.",
                    Dialect::names().join(", "),
                    name = quoted(name)
                ),
            )
        })?;
        targets.insert(dialect);
    }
    if targets.is_empty() {
        return Err(FunctionError::argument(
            index,
            "List at least one client, or pass null for the default clients.",
        ));
    }
    Ok(targets)
}

impl Function for MergeNoProxy {
    fn name(&self) -> &'static str {
        "merge_no_proxy"
    }

    fn signature(&self) -> Signature {
        Signature {
            parameters: vec![
                Parameter {
                    name: LISTS,
                    ty: Type::list(Type::list(Type::String)),
                    description: "NO_PROXY lists; their order, and the order of their entries, do not matter.",
                    allow_null: false,
                    optional: &[],
                },
                Parameter {
                    name: "clients",
                    ty: Type::list(Type::String),
                    description: CLIENTS.as_str(),
                    allow_null: true,
                    optional: &[],
                },
            ],
            returns: Type::list(Type::String),
            summary: "Merge NO_PROXY lists",
            description: "Merges NO_PROXY lists into one normalised list, exactly as the `clusterproxy_no_proxy` data source does with its `extra` input but without any cluster or platform defaults: entries normalised, semantic duplicates removed, entries covered for every client dropped, extra forms some clients need added, in the data source's canonical order.",
            limit: None,
        }
    }

    fn call(&self, arguments: &[Value]) -> Result<Value, FunctionError> {
        let lists = arguments
            .first()
            .and_then(Value::elements)
            .unwrap_or_default();
        let targets = clients_argument(arguments.get(1).unwrap_or(&Value::null()), 1)?;
        let sources: Vec<Source> = lists
            .iter()
            .enumerate()
            .map(|(i, list)| {
                let entries = list.elements().unwrap_or_default();
                Source::list(
                    InputField::List(i),
                    entries.iter().map(|v| v.as_str().unwrap_or_default()),
                )
            })
            .collect();
        let options = MergeOptions {
            targets,
            aggregate_cidrs: false,
        };
        match merge(&sources, &options) {
            Ok(merged) => Ok(string_list(&merged.list)),
            Err(findings) => {
                let root = AttributePath::root();
                let text: Vec<String> = findings
                    .iter()
                    .map(|f| {
                        let path = convert::path(f.location, &root, SettingsAt::Renderer)
                            .unwrap_or_default();
                        format!("{path}: {}: {}", f.summary, f.detail)
                    })
                    .collect();
                Err(FunctionError::argument(0, text.join("\n")))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lists(items: &[&[&str]]) -> Value {
        Value::list(items.iter().map(|l| string_list(l)).collect())
    }

    #[test]
    fn merges_in_order() {
        let out = MergeNoProxy
            .call(&[
                lists(&[&["B.example", "10.0.0.0/8"], &["b.example", "10.1.0.0/16"]]),
                Value::null(),
            ])
            .unwrap();
        assert_eq!(out, string_list(&["b.example", ".b.example", "10.0.0.0/8"]));
    }

    #[test]
    fn bad_entries_and_clients_blame_their_argument() {
        let err = MergeNoProxy
            .call(&[lists(&[&["ok.example", "https://x"]]), Value::null()])
            .unwrap_err();
        assert_eq!(err.argument, Some(0));
        assert!(err.text.contains("lists[0][1]"), "{}", err.text);
        let err = MergeNoProxy
            .call(&[lists(&[&["a.example"]]), string_list(&["perl"])])
            .unwrap_err();
        assert_eq!(err.argument, Some(1));
    }
}
