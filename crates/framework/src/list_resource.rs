//! The list resource contract (protocol 6.10, Terraform >= 1.14: `list`
//! blocks in `.tfquery.hcl` files, `terraform query`).
//!
//! A list resource has the type name of the managed resource whose objects
//! it finds; Terraform requires that resource to have an identity schema,
//! and every result to carry an identity of it (hashicorp/terraform
//! v1.15.5 internal/plugin6/grpc_provider.go, ListResource). Its schema is
//! the schema of the `config` block inside the `list` block: Terraform
//! wraps it (internal/plugin6/convert/schema.go, ProtoToListSchema) and
//! sends the value of that block.
//!
//! Results stream: [`ListResource::list`] hands each one to `emit` as it is
//! found, and the server sends it at once, so memory does not grow with
//! the number of results. `emit` says when to stop (the limit is reached,
//! Terraform went away).

use std::ops::ControlFlow;

use super::diagnostics::Diagnostics;
use super::schema::Schema;
use super::value::Value;

/// One object found.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    /// Its identity, a value of the managed resource's identity schema;
    /// what `-generate-config-out` writes into `import { identity = ... }`.
    pub identity: Value,
    /// What `terraform query` prints for it.
    pub display_name: String,
    /// Its state, a value of the managed resource's schema, when the
    /// request asked for it (`include_resource`). Terraform prints it
    /// unredacted in `query -json` (internal/command/views/json/query.go):
    /// it must hold no secret.
    pub object: Option<Value>,
    /// Warnings that travel with this result, in its event: Terraform
    /// stops reading at the `limit`-th result, so a warning about the
    /// listing as a whole (more results than the limit) must come with it.
    pub diagnostics: Diagnostics,
}

/// What a listing hands over, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// An object found.
    Found(Found),
    /// Diagnostics about the listing (a warning about one source, or an
    /// error that ends it), on an event of their own.
    Diagnostics(Diagnostics),
}

/// A list resource.
pub trait ListResource: Send + Sync {
    /// Full type name: the managed resource's, e.g. `clusterproxy_profile`.
    fn type_name(&self) -> &'static str;

    /// The schema of the `config` block.
    fn schema(&self) -> Schema;

    /// Checks a configuration that may still hold unknown values, after the
    /// schema's checks passed.
    fn validate(&self, _config: &Value, _diags: &mut Diagnostics) {}

    /// Finds the objects `config` (wholly known, checked) designates,
    /// handing each [`Event`] to `emit` until it breaks; with
    /// `include_object`, each result carries its state.
    fn list(
        &self,
        config: &Value,
        include_object: bool,
        emit: &mut dyn FnMut(Event) -> ControlFlow<()>,
    );
}

/// Runs `resource`'s listing of `config` (checked against `schema` first)
/// within Terraform's rules: at most `limit` results (Terraform stops
/// reading there too), each with a wholly known identity and, when asked,
/// a wholly known object; a result that breaks them ends the listing with
/// an error (a bug in the provider). Every event goes to `emit`, which may
/// stop the listing. The listing looks one result ahead of the limit: the
/// `limit`-th result is held until the listing ends or finds another, and
/// then carries a warning that more results exist.
pub fn list_checked(
    resource: &dyn ListResource,
    schema: &Schema,
    config: &Value,
    include_object: bool,
    limit: i64,
    emit: &mut dyn FnMut(Event) -> ControlFlow<()>,
) {
    let mut diags = Diagnostics::new();
    schema.validate(config, &mut diags);
    if !diags.has_errors() && !config.is_wholly_known() {
        diags.push(super::diagnostics::Diagnostic::error(
            "Configuration not known",
            "The list configuration holds values known only after apply; `terraform query` needs every value known.",
        ));
    }
    if diags.has_errors() {
        let _ = emit(Event::Diagnostics(diags));
        return;
    }
    let mut left = limit;
    if left <= 0 {
        return;
    }
    // The `limit`-th result, until the listing shows whether more exist.
    let mut held: Option<Found> = None;
    resource.list(config, include_object, &mut |event| {
        let event = match event {
            Event::Found(found) => {
                let bad_object = found
                    .object
                    .as_ref()
                    .is_some_and(|o| o.is_null() || !o.is_wholly_known());
                if found.identity.is_null() || !found.identity.is_wholly_known() || bad_object {
                    let mut diags = Diagnostics::new();
                    diags.push(super::diagnostics::Diagnostic::error(
                        "Provider bug: incomplete list result",
                        format!(
                            "A result of {} has an identity or object that is null or not wholly known.",
                            resource.type_name()
                        ),
                    ));
                    let _ = emit(Event::Diagnostics(diags));
                    return ControlFlow::Break(());
                }
                if let Some(mut last) = held.take() {
                    last.diagnostics.push(more_than(limit));
                    let _ = emit(Event::Found(last));
                    return ControlFlow::Break(());
                }
                left -= 1;
                let found = Found {
                    object: found.object.filter(|_| include_object),
                    ..found
                };
                if left == 0 {
                    held = Some(found);
                    return ControlFlow::Continue(());
                }
                Event::Found(found)
            }
            diagnostics => diagnostics,
        };
        emit(event)
    });
    if let Some(last) = held {
        let _ = emit(Event::Found(last));
    }
}

/// The warning that a listing found more than `limit` results.
fn more_than(limit: i64) -> super::diagnostics::Diagnostic {
    super::diagnostics::Diagnostic::warning(
        "More results than the limit",
        format!(
            "{limit} results were listed, the `limit` of this `list` block, and more exist; raise `limit` to list them all."
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::Severity;
    use crate::schema::Attribute;
    use crate::value::Type;

    /// Finds `count` objects named `n0`, `n1`...; `bad` at index `bad`
    /// has an unknown identity.
    struct Counts {
        count: usize,
        bad: Option<usize>,
    }

    impl ListResource for Counts {
        fn type_name(&self) -> &'static str {
            "test_counts"
        }

        fn schema(&self) -> Schema {
            Schema::new(
                "Counts.",
                vec![Attribute::required("prefix", Type::String, "Prefix.")],
            )
        }

        fn list(
            &self,
            config: &Value,
            include_object: bool,
            emit: &mut dyn FnMut(Event) -> ControlFlow<()>,
        ) {
            let prefix = config
                .get_attr("prefix")
                .and_then(Value::as_str)
                .unwrap_or_default();
            for i in 0..self.count {
                let name = Value::string(format!("{prefix}{i}"));
                let identity = if self.bad == Some(i) {
                    Value::unknown()
                } else {
                    Value::object([("name".to_owned(), name.clone())])
                };
                let found = Found {
                    identity,
                    display_name: format!("{prefix}{i}"),
                    object: include_object.then(|| Value::object([("name".to_owned(), name)])),
                    diagnostics: Diagnostics::new(),
                };
                if emit(Event::Found(found)).is_break() {
                    return;
                }
            }
        }
    }

    fn run(resource: &Counts, config: &Value, include: bool, limit: i64) -> Vec<Event> {
        let mut events = Vec::new();
        list_checked(
            resource,
            &resource.schema(),
            config,
            include,
            limit,
            &mut |e| {
                events.push(e);
                ControlFlow::Continue(())
            },
        );
        events
    }

    fn config() -> Value {
        Value::object([("prefix".to_owned(), Value::string("n"))])
    }

    #[test]
    fn the_limit_stops_the_listing_and_objects_come_only_when_asked() {
        let resource = Counts {
            count: 10,
            bad: None,
        };
        let events = run(&resource, &config(), false, 3);
        assert_eq!(events.len(), 3);
        assert!(events
            .iter()
            .all(|e| matches!(e, Event::Found(Found { object: None, .. }))));
        let events = run(&resource, &config(), true, 100);
        assert_eq!(events.len(), 10);
        assert!(
            matches!(&events[9], Event::Found(f) if f.object.is_some() && f.display_name == "n9")
        );
        assert!(run(&resource, &config(), true, 0).is_empty());
    }

    /// Terraform stops reading at the `limit`-th result: the warning that
    /// more exist travels with it, and only when more exist.
    #[test]
    fn a_limit_that_leaves_results_out_says_so_on_the_last_result() {
        let warned = |events: &[Event]| -> Vec<String> {
            events
                .iter()
                .filter_map(|e| match e {
                    Event::Found(f) => Some(f),
                    Event::Diagnostics(_) => None,
                })
                .flat_map(|f| {
                    f.diagnostics
                        .iter()
                        .map(|d| format!("{}: {}", f.display_name, d.detail))
                })
                .collect()
        };
        let ten = Counts {
            count: 10,
            bad: None,
        };
        let events = run(&ten, &config(), false, 3);
        assert_eq!(events.len(), 3, "{events:?}");
        assert_eq!(
            warned(&events),
            ["n2: 3 results were listed, the `limit` of this `list` block, and more exist; raise `limit` to list them all."]
        );
        for limit in [10, 11] {
            let events = run(&ten, &config(), false, limit);
            assert_eq!(events.len(), 10);
            assert!(warned(&events).is_empty(), "{limit}: {events:?}");
        }
    }

    #[test]
    fn a_bad_result_or_configuration_is_an_error_event() {
        let resource = Counts {
            count: 5,
            bad: Some(2),
        };
        let events = run(&resource, &config(), false, 100);
        assert_eq!(events.len(), 3, "{events:?}");
        let Event::Diagnostics(diags) = &events[2] else {
            panic!("{events:?}")
        };
        assert!(diags.iter().any(|d| d.severity == Severity::Error
            && d.summary == "Provider bug: incomplete list result"));
        let missing = Value::object([("prefix".to_owned(), Value::null())]);
        let events = run(&resource, &missing, false, 100);
        assert!(
            matches!(&events[..], [Event::Diagnostics(d)] if d.has_errors()),
            "{events:?}"
        );
        let unknown = Value::object([("prefix".to_owned(), Value::unknown())]);
        let events = run(&resource, &unknown, false, 100);
        assert!(
            matches!(&events[..], [Event::Diagnostics(d)] if d.iter().any(|d| d.summary == "Configuration not known")),
            "{events:?}"
        );
    }
}
