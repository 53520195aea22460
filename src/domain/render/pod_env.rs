//! Pod environment: the `env` list of a container spec, also usable as Helm `env` values.

use serde_json::{json, Value};

use super::{ProxySettings, Secrets};

/// The env entries (`name`, `value`) in the fixed variable order.
pub fn env(settings: &ProxySettings, secrets: Secrets) -> Vec<(String, String)> {
    settings
        .variables(secrets)
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value))
        .collect()
}

/// The env list as a JSON value: `[{"name": ..., "value": ...}, ...]`.
pub fn env_json(settings: &ProxySettings, secrets: Secrets) -> Value {
    Value::Array(
        env(settings, secrets)
            .into_iter()
            .map(|(name, value)| json!({"name": name, "value": value}))
            .collect(),
    )
}

/// The env list as a YAML document (`env:` key), for Helm values and manifests.
pub fn env_yaml(settings: &ProxySettings, secrets: Secrets) -> String {
    serde_yaml_ng::to_string(&json!({ "env": env_json(settings, secrets) })).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::render::tests::{golden, settings};

    #[test]
    fn yaml_parses_back_to_the_values() {
        let s = settings();
        let yaml = env_yaml(&s, Secrets::Include);
        golden("pod_env/env.yaml", &yaml);
        let parsed: Value = serde_yaml_ng::from_str(&yaml).unwrap();
        let pairs: Vec<(String, String)> = parsed["env"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                (
                    e["name"].as_str().unwrap().to_owned(),
                    e["value"].as_str().unwrap().to_owned(),
                )
            })
            .collect();
        assert_eq!(pairs, env(&s, Secrets::Include));
    }
}
