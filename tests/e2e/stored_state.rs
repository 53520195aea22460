//! State files as earlier releases of the provider wrote them, for the
//! upgrade tests.

use serde_json::Value;

use crate::harness::{Workdir, PROVIDER_ADDRESS};

impl Workdir {
    /// Writes `terraform.tfstate` as an earlier release left it: one instance
    /// of `address` (`TYPE.NAME`, or `data.TYPE.NAME`) of this provider with
    /// `attributes` under `schema_version`, the `sensitive` attributes marked.
    pub fn write_stored_state(
        &self,
        address: &str,
        schema_version: i64,
        attributes: Value,
        sensitive: &[&str],
    ) {
        let (mode, address) = match address.strip_prefix("data.") {
            Some(rest) => ("data", rest),
            None => ("managed", address),
        };
        let (type_name, name) = address.split_once('.').expect("TYPE.NAME");
        let marks: Vec<Value> = sensitive
            .iter()
            .map(|name| serde_json::json!([{"type": "get_attr", "value": name}]))
            .collect();
        let state = serde_json::json!({
            "version": 4,
            "terraform_version": "1.0.3",
            "serial": 1,
            "lineage": "5b0a4f0e-7c3e-4c21-9f6a-0d6c3f2b9a11",
            "outputs": {},
            "resources": [{
                "mode": mode,
                "type": type_name,
                "name": name,
                "provider": format!("provider[\"{PROVIDER_ADDRESS}\"]"),
                "instances": [{
                    "schema_version": schema_version,
                    "attributes": attributes,
                    "sensitive_attributes": marks
                }]
            }]
        });
        self.write_file("terraform.tfstate", &state.to_string());
    }
}
