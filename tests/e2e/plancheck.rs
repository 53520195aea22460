//! Assertions on a saved plan (`terraform show -json`), in the manner of
//! terraform-plugin-testing's plancheck.

use serde_json::Value;

/// The planned change of `address` in a saved plan (`show -json`), in the
/// manner of terraform-plugin-testing's plancheck.
pub fn planned_change<'a>(plan: &'a Value, address: &str) -> &'a Value {
    plan["resource_changes"]
        .as_array()
        .and_then(|changes| changes.iter().find(|c| c["address"] == address))
        .unwrap_or_else(|| panic!("{address} not in the plan: {plan:#}"))
}

/// Asserts the actions planned for `address` (`["update"]`, `["delete",
/// "create"]`...).
pub fn expect_action(plan: &Value, address: &str, actions: &[&str]) {
    assert_eq!(
        planned_change(plan, address)["change"]["actions"],
        serde_json::json!(actions),
        "actions planned for {address}"
    );
}

/// Asserts that `attribute` of `address` is known in the plan.
pub fn expect_known(plan: &Value, address: &str, attribute: &str) {
    let change = &planned_change(plan, address)["change"];
    assert!(
        change["after_unknown"][attribute] != Value::Bool(true)
            && !change["after"][attribute].is_null(),
        "{address}.{attribute} is not known in the plan: {change:#}"
    );
}
