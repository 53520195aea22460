//! Schema-driven planning and the consistency rules Terraform enforces on
//! plans and apply results (hashicorp/terraform internal/plans/objchange).
//!
//! Everything here is pure: values in, values and diagnostics out.

use super::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use super::schema::{Mode, PlanModifier, Schema};
use super::value::Value;

/// The framework's part of planning, before the resource refines the plan:
/// defaults for unset attributes, and computed attributes either kept from the prior state or marked unknown.
pub fn base_plan(
    schema: &Schema,
    prior: Option<&Value>,
    proposed: &Value,
    config: &Value,
) -> Value {
    let mut planned = proposed.clone();
    schema.nullify_write_only(&mut planned);
    for attribute in &schema.attributes {
        let configured = config
            .get_attr(&attribute.name)
            .is_some_and(|v| !v.is_null());
        if !configured {
            if let Some(default) = &attribute.default {
                planned.set_attr(&attribute.name, default.clone());
            }
        }
    }
    let changed = prior.is_none_or(|prior| configurable_changed(schema, prior, &planned));
    for attribute in &schema.attributes {
        let configured = config
            .get_attr(&attribute.name)
            .is_some_and(|v| !v.is_null());
        if attribute.mode.is_computed()
            && !configured
            && attribute.default.is_none()
            && changed
            && !(prior.is_some() && attribute.has(PlanModifier::UseStateForUnknown))
        {
            planned.set_attr(&attribute.name, Value::unknown());
        }
    }
    planned
}

/// True when any attribute the user can configure differs between two objects.
fn configurable_changed(schema: &Schema, prior: &Value, planned: &Value) -> bool {
    schema.attributes.iter().any(|attribute| {
        attribute.mode.is_configurable()
            && prior.get_attr(&attribute.name) != planned.get_attr(&attribute.name)
    })
}

/// Paths of `RequiresReplace` attributes whose planned value differs from the prior one.
pub fn replacement_paths(
    schema: &Schema,
    prior: Option<&Value>,
    planned: &Value,
) -> Vec<AttributePath> {
    let Some(prior) = prior else {
        return Vec::new();
    };
    schema
        .attributes
        .iter()
        .filter(|a| a.has(PlanModifier::RequiresReplace))
        .filter(|a| prior.get_attr(&a.name) != planned.get_attr(&a.name))
        .map(|a| AttributePath::attribute(&a.name))
        .collect()
}

/// Checks a plan against Terraform's rules: every non-computed attribute
/// equals its configuration, a configured computed attribute equals its
/// configuration, and unknown only where the provider may still decide. A violation is a provider bug, reported as an
/// error instead of letting Terraform reject the plan.
pub fn check_plan(schema: &Schema, config: &Value, planned: &Value, diags: &mut Diagnostics) {
    for attribute in &schema.attributes {
        let path = AttributePath::attribute(&attribute.name);
        let config_value = config.get_attr(&attribute.name);
        let planned_value = planned.get_attr(&attribute.name);
        let (Some(config_value), Some(planned_value)) = (config_value, planned_value) else {
            diags.push(internal_error(
                "plan",
                &path,
                "attribute missing from the object",
            ));
            continue;
        };
        if attribute.write_only {
            if !planned_value.is_null() {
                diags.push(internal_error(
                    "plan",
                    &path,
                    "a write-only attribute must be null in the plan",
                ));
            }
            continue;
        }
        let must_equal_config = attribute.mode == Mode::Required
            || attribute.mode == Mode::Optional
            || !config_value.is_null();
        if must_equal_config && config_value != planned_value {
            diags.push(internal_error(
                "plan",
                &path,
                "planned value differs from configuration",
            ));
        }
    }
}

/// Checks an apply result: wholly known, and every value that was known in
/// the plan is unchanged.
pub fn check_apply(schema: &Schema, planned: &Value, new_state: &Value, diags: &mut Diagnostics) {
    for attribute in &schema.attributes {
        let path = AttributePath::attribute(&attribute.name);
        let Some(new_value) = new_state.get_attr(&attribute.name) else {
            diags.push(internal_error(
                "apply",
                &path,
                "attribute missing from the new state",
            ));
            continue;
        };
        if !new_value.is_wholly_known() {
            diags.push(internal_error(
                "apply",
                &path,
                "value still unknown after apply",
            ));
            continue;
        }
        if let Some(planned_value) = planned.get_attr(&attribute.name) {
            if planned_value.is_wholly_known() && planned_value != new_value {
                diags.push(internal_error(
                    "apply",
                    &path,
                    "value differs from the planned value",
                ));
            }
        }
    }
}

/// A provider bug found at `stage` (plan, apply, read) on `path`.
pub(crate) fn internal_error(stage: &str, path: &AttributePath, what: &str) -> Diagnostic {
    Diagnostic::error(
        format!("Provider bug: invalid {stage} result"),
        format!(
            "The provider computed an inconsistent {stage} for \"{path}\": {what}. \
             Please report this issue to the provider developers."
        ),
    )
    .at(path.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::Attribute;
    use crate::value::Type;

    fn schema() -> Schema {
        Schema::new(
            "test",
            vec![
                Attribute::required("name", Type::String, "")
                    .plan_modifier(PlanModifier::RequiresReplace),
                Attribute::optional("note", Type::String, ""),
                Attribute::with_default("mode", Type::String, Value::string("auto"), ""),
                Attribute::computed("id", Type::String, "")
                    .plan_modifier(PlanModifier::UseStateForUnknown),
                Attribute::computed("digest", Type::String, ""),
            ],
        )
    }

    fn object(name: &str, note: Value, mode: Value, id: Value, digest: Value) -> Value {
        Value::object([
            ("name".to_owned(), Value::string(name)),
            ("note".to_owned(), note),
            ("mode".to_owned(), mode),
            ("id".to_owned(), id),
            ("digest".to_owned(), digest),
        ])
    }

    /// The configuration of `name` with every optional and computed attribute unset.
    fn configured(name: &str) -> Value {
        object(
            name,
            Value::null(),
            Value::null(),
            Value::null(),
            Value::null(),
        )
    }

    /// The state after applying `configured("a")`.
    fn applied() -> Value {
        object(
            "a",
            Value::null(),
            Value::string("auto"),
            Value::string("x"),
            Value::string("d"),
        )
    }

    #[test]
    fn create_fills_defaults_and_marks_computed_unknown() {
        let config = configured("a");
        let planned = base_plan(&schema(), None, &config, &config);
        assert_eq!(planned.get_attr("mode"), Some(&Value::string("auto")));
        assert!(planned.get_attr("id").unwrap().is_unknown());
        assert!(planned.get_attr("digest").unwrap().is_unknown());
        let mut diags = Diagnostics::new();
        check_plan(&schema(), &config, &planned, &mut diags);
        assert!(diags.is_empty(), "{diags:?}");
    }

    #[test]
    fn unchanged_update_keeps_every_prior_value() {
        let prior = applied();
        let config = configured("a");
        let planned = base_plan(&schema(), Some(&prior), &prior, &config);
        assert_eq!(planned, prior);
        assert!(replacement_paths(&schema(), Some(&prior), &planned).is_empty());
    }

    #[test]
    fn changed_update_keeps_state_for_unknown_and_requests_replacement() {
        let prior = applied();
        let config = object(
            "b",
            Value::string("n"),
            Value::null(),
            Value::null(),
            Value::null(),
        );
        let proposed = object(
            "b",
            Value::string("n"),
            Value::string("auto"),
            Value::string("x"),
            Value::string("d"),
        );
        let planned = base_plan(&schema(), Some(&prior), &proposed, &config);
        assert_eq!(planned.get_attr("id"), Some(&Value::string("x")));
        assert!(planned.get_attr("digest").unwrap().is_unknown());
        assert_eq!(
            replacement_paths(&schema(), Some(&prior), &planned),
            vec![AttributePath::attribute("name")]
        );
    }

    #[test]
    fn plan_check_catches_a_changed_configured_value() {
        let config = object(
            "a",
            Value::string("n"),
            Value::null(),
            Value::null(),
            Value::null(),
        );
        let mut planned = base_plan(&schema(), None, &config, &config);
        planned.set_attr("note", Value::string("other"));
        let mut diags = Diagnostics::new();
        check_plan(&schema(), &config, &planned, &mut diags);
        assert!(diags.has_errors());
        assert_eq!(
            diags.iter().next().unwrap().path,
            Some(AttributePath::attribute("note"))
        );
    }

    #[test]
    fn apply_check_catches_unknowns_and_changed_known_values() {
        let planned = object(
            "a",
            Value::null(),
            Value::string("auto"),
            Value::unknown(),
            Value::string("d"),
        );
        let good = object(
            "a",
            Value::null(),
            Value::string("auto"),
            Value::string("x"),
            Value::string("d"),
        );
        let mut diags = Diagnostics::new();
        check_apply(&schema(), &planned, &good, &mut diags);
        assert!(diags.is_empty());
        let changed = object(
            "a",
            Value::null(),
            Value::string("auto"),
            Value::string("x"),
            Value::string("e"),
        );
        check_apply(&schema(), &planned, &changed, &mut diags);
        assert!(diags.has_errors());
        let mut diags = Diagnostics::new();
        check_apply(&schema(), &planned, &planned, &mut diags);
        assert!(diags.has_errors());
    }
}
