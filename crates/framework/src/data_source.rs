//! The data source contract.

use super::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use super::planning::internal_error;
use super::schema::{Mode, Schema};
use super::value::Value;

/// A data source: computes a state object from its configuration.
///
/// The framework checks the configuration against [`DataSource::schema`]
/// (validators, required attributes), fills defaults, and verifies the
/// result is wholly known before it reaches Terraform.
pub trait DataSource: Send + Sync {
    /// Full type name, e.g. `clusterproxy_no_proxy`.
    fn type_name(&self) -> &'static str;

    /// The configuration arguments and the attributes a read computes; the
    /// server asks once and keeps it.
    fn schema(&self) -> Schema;

    /// Checks a configuration that may still hold unknown values (plan time;
    /// read its model with
    /// [`Field::get_planned`](super::model::Field::get_planned)). Only known
    /// values are checked.
    fn validate(&self, _config: &Value, _diags: &mut Diagnostics) {}

    /// Reads the data for a wholly known configuration (defaults already
    /// filled; read its model with [`Field::get`](super::model::Field::get),
    /// which stops on a value the model cannot hold): returns an object of
    /// the computed attributes
    /// ([`model::computed`](super::model::computed)), which the framework sets
    /// on the configuration to make the state. Returns `None` after adding an
    /// error diagnostic.
    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value>;

    /// Whether a read may run long whatever its configuration's size (it
    /// walks a directory): such a read always runs on a thread of its own,
    /// where StopProvider and a call its client drops reach it, instead of
    /// on the worker that received it, which serves every other request.
    fn runs_long(&self) -> bool {
        false
    }
}

/// A data source of a static list (`&'static dyn Trait` entries, whose
/// trait extends [`DataSource`]) is one itself, so a plain list can be
/// served as it is.
impl<T: DataSource + ?Sized> DataSource for &'static T {
    fn type_name(&self) -> &'static str {
        (**self).type_name()
    }

    fn schema(&self) -> Schema {
        (**self).schema()
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        (**self).validate(config, diags);
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        (**self).read(config, diags)
    }

    fn runs_long(&self) -> bool {
        (**self).runs_long()
    }
}

/// The path of the first unknown value in `value` (a set's element: the
/// set), if any.
fn first_unknown(value: &Value, at: AttributePath) -> Option<AttributePath> {
    match value {
        Value::Unknown(_) => Some(at),
        Value::Object(entries) => entries
            .iter()
            .find_map(|(name, v)| first_unknown(v, at.clone().attr(name))),
        Value::Map(entries) => entries
            .iter()
            .find_map(|(key, v)| first_unknown(v, at.clone().key(key))),
        Value::List(items) | Value::Tuple(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, v)| first_unknown(v, at.clone().index(i))),
        Value::Set(items) => (!items.iter().all(Value::is_wholly_known)).then_some(at),
        Value::Typed(typed) => first_unknown(&typed.1, at),
        _ => None,
    }
}

/// The error [`checked_config`] gives for a configuration that still holds
/// an unknown value: what a request of its kind cannot run on.
pub(crate) struct Unknown {
    /// The diagnostic's summary.
    pub summary: &'static str,
    /// Its detail.
    pub detail: &'static str,
}

/// The opening of a request that runs on a wholly known configuration
/// (ReadDataSource, InvokeAction): refuses one that still holds an unknown
/// value (`unknown`, on its path), runs the schema's checks and, when they
/// pass, `validate` (the implementation's), then fills defaults. Returns the
/// configuration to run on, or `None` after an error diagnostic.
pub(crate) fn checked_config(
    unknown: Unknown,
    schema: &Schema,
    validate: impl FnOnce(&Value, &mut Diagnostics),
    mut config: Value,
    diags: &mut Diagnostics,
) -> Option<Value> {
    if let Some(path) = first_unknown(&config, AttributePath::root()) {
        diags.push(Diagnostic::error(unknown.summary, unknown.detail).at(path));
        return None;
    }
    schema.validate(&config, diags);
    if !diags.has_errors() {
        validate(&config, diags);
    }
    if diags.has_errors() {
        return None;
    }
    schema.apply_defaults(&mut config);
    Some(config)
}

/// Reads `data_source` for `config` as ReadDataSource does: the schema's and
/// the data source's checks, defaults, the read, and the checks Terraform
/// holds results to (wholly known; configured values come back unchanged).
///
/// The state is the configuration with the computed attributes set: a read
/// may return only computed attributes (an optional computed one only where
/// the configuration leaves it null), so configured values come back
/// unchanged by construction, without copying or comparing them.
/// `schema` is `data_source.schema()`, computed once by the caller.
pub fn read_checked(
    data_source: &dyn DataSource,
    schema: &Schema,
    config: Value,
    diags: &mut Diagnostics,
) -> Option<Value> {
    let mut config = checked_config(
        Unknown {
            summary: "Unknown value in a data source's configuration",
            detail: "Terraform reads a data source only once its configuration is known, and this request holds an unknown value here: nothing was read.",
        },
        schema,
        |config, diags| data_source.validate(config, diags),
        config,
        diags,
    )?;
    let computed = data_source.read(&config, diags)?;
    if diags.has_errors() {
        return None;
    }
    let Value::Object(computed) = computed else {
        diags.push(incomplete());
        return None;
    };
    for (name, value) in computed {
        let settable = match schema.attribute(&name).map(|a| a.mode) {
            Some(Mode::Computed) => true,
            Some(Mode::OptionalComputed) => config.get_attr(&name).is_some_and(Value::is_null),
            _ => false,
        };
        if settable {
            config.set_attr(&name, value);
        } else {
            diags.push(internal_error(
                "read",
                &AttributePath::attribute(&name),
                "the read sets an attribute that is not computed, or is configured",
            ));
        }
    }
    if diags.has_errors() {
        return None;
    }
    if !config.is_wholly_known() {
        diags.push(incomplete());
        return None;
    }
    Some(config)
}

fn incomplete() -> Diagnostic {
    Diagnostic::error(
        "Provider bug: incomplete data source result",
        "The data source returned a null or partly unknown result.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Attribute;
    use crate::value::Type;

    /// Returns the attributes it was made with.
    struct Returns(Vec<(&'static str, Value)>);

    impl DataSource for Returns {
        fn type_name(&self) -> &'static str {
            "test_returns"
        }

        fn schema(&self) -> Schema {
            Schema::new(
                "test",
                vec![
                    Attribute::required("input", Type::String, "input"),
                    Attribute::optional("note", Type::String, "note"),
                    Attribute::with_default("mode", Type::String, Value::string("a"), "mode"),
                    Attribute::computed("out", Type::String, "out"),
                ],
            )
        }

        fn read(&self, _config: &Value, _diags: &mut Diagnostics) -> Option<Value> {
            Some(Value::object(
                self.0.iter().map(|(k, v)| ((*k).to_owned(), v.clone())),
            ))
        }
    }

    fn read(returns: Vec<(&'static str, Value)>) -> (Option<Value>, Diagnostics) {
        let source = Returns(returns);
        let config = Value::object([
            ("input".to_owned(), Value::string("x")),
            ("note".to_owned(), Value::Null),
            ("mode".to_owned(), Value::Null),
            ("out".to_owned(), Value::Null),
        ]);
        let mut diags = Diagnostics::new();
        let state = read_checked(&source, &source.schema(), config, &mut diags);
        (state, diags)
    }

    #[test]
    fn the_state_is_the_configuration_with_the_computed_attributes() {
        let (state, diags) = read(vec![("out", Value::string("y"))]);
        assert!(!diags.has_errors(), "{diags:?}");
        let state = state.unwrap();
        assert_eq!(state.get_attr("input"), Some(&Value::string("x")));
        assert_eq!(state.get_attr("note"), Some(&Value::Null));
        assert_eq!(state.get_attr("mode"), Some(&Value::string("a")));
        assert_eq!(state.get_attr("out"), Some(&Value::string("y")));
    }

    #[test]
    fn a_read_cannot_change_what_is_configured() {
        for (name, value) in [
            ("input", Value::string("changed")),
            ("note", Value::string("set")),
            ("mode", Value::string("b")),
            ("unknown_attribute", Value::string("z")),
        ] {
            let (state, diags) = read(vec![(name, value)]);
            assert!(state.is_none(), "{name}");
            let diag = diags.iter().next().unwrap();
            assert_eq!(diag.summary, "Provider bug: invalid read result", "{name}");
        }
    }

    #[test]
    fn a_read_must_return_known_values() {
        let (state, diags) = read(vec![("out", Value::Unknown(Box::default()))]);
        assert!(state.is_none());
        assert!(diags.has_errors());
    }

    /// A long-running data source in a static list.
    struct Walks;

    impl DataSource for Walks {
        fn type_name(&self) -> &'static str {
            "test_walks"
        }

        fn schema(&self) -> Schema {
            Schema::new("test", Vec::new())
        }

        fn read(&self, _config: &Value, _diags: &mut Diagnostics) -> Option<Value> {
            None
        }

        fn runs_long(&self) -> bool {
            true
        }
    }

    /// A static list's entry answers as its data source does, `runs_long`
    /// included (which decides the thread its reads run on).
    #[test]
    fn a_listed_data_source_answers_as_itself() {
        static LISTED: &[&dyn DataSource] = &[&Walks];
        let entry: &dyn DataSource = &LISTED[0];
        assert_eq!(entry.type_name(), "test_walks");
        assert!(entry.runs_long());
    }
}
