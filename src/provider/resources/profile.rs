//! `clusterproxy_profile`: the proxy settings of an installation, normalised,
//! fingerprinted and ready to feed every renderer data source.

use crate::domain::import;
use crate::domain::profile::{next_revision, Profile, ProfileInput};
use crate::framework::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::framework::resource::Resource;
use crate::framework::schema::{Attribute, NotBlank, PlanModifier, Schema};
use crate::framework::value::{Type, Value};
use crate::provider::{convert, inputs};

/// The resource.
#[derive(Debug, Clone, Copy)]
pub struct ProfileResource;

/// Current schema version (v0 kept `no_proxy` as one comma-separated string
/// and had no computed settings).
const VERSION: i64 = 1;

/// Configurable attributes that make up the effective settings.
const INPUTS: [&str; 6] = [
    "http_proxy",
    "https_proxy",
    "username",
    "password",
    "no_proxy",
    "trusted_ca",
];

fn input(value: &Value) -> ProfileInput {
    ProfileInput {
        http_proxy: convert::string(value, "http_proxy"),
        https_proxy: convert::string(value, "https_proxy"),
        username: convert::string(value, "username"),
        password: convert::string(value, "password"),
        no_proxy: convert::strings(value, "no_proxy"),
        trusted_ca: convert::string(value, "trusted_ca"),
    }
}

/// Validates the inputs of `value`; findings become diagnostics.
fn profile(value: &Value, diags: &mut Diagnostics) -> Option<Profile> {
    Profile::new(&input(value))
        .map_err(|findings| convert::push_findings(&findings, &AttributePath::root(), diags))
        .ok()
}

/// Fills id and every computed attribute of `state` from its inputs.
fn compute(state: &mut Value, profile: &Profile, prior: Option<&Value>) {
    let prior_revision = prior.and_then(|p| {
        let revision = p.get_attr("revision")?.as_number()?.as_i64()?;
        Some((revision, convert::string(p, "fingerprint")?))
    });
    let revision = next_revision(
        prior_revision.as_ref().map(|(r, f)| (*r, f.as_str())),
        &profile.fingerprint,
    );
    let plain =
        |u: &Option<crate::domain::proxy_url::ProxyUrl>| u.as_ref().map(|u| u.to_plain_string());
    let secret =
        |u: &Option<crate::domain::proxy_url::ProxyUrl>| u.as_ref().map(|u| u.to_secret_string());
    let username = profile
        .http_proxy
        .as_ref()
        .or(profile.https_proxy.as_ref())
        .and_then(|u| u.credentials());
    let ca = profile.trusted_ca.as_ref().map(|c| c.to_pem());
    let settings = inputs::settings_value(
        plain(&profile.http_proxy).as_deref(),
        plain(&profile.https_proxy).as_deref(),
        username.map(|c| c.username()),
        username.and_then(|c| c.password()),
        &profile.no_proxy,
        ca.as_deref(),
    );
    let name = state.get_attr("name").cloned().unwrap_or_else(Value::null);
    state.set_attr("id", name);
    state.set_attr(
        "normalized_http_proxy",
        Value::opt_string(plain(&profile.http_proxy)),
    );
    state.set_attr(
        "normalized_https_proxy",
        Value::opt_string(plain(&profile.https_proxy)),
    );
    state.set_attr(
        "normalized_no_proxy",
        convert::string_list(&profile.no_proxy),
    );
    state.set_attr(
        "http_proxy_url",
        Value::opt_string(secret(&profile.http_proxy)),
    );
    state.set_attr(
        "https_proxy_url",
        Value::opt_string(secret(&profile.https_proxy)),
    );
    state.set_attr("fingerprint", Value::string(&profile.fingerprint));
    state.set_attr("revision", Value::int(revision));
    state.set_attr("settings", settings);
}

/// Parses an import ID (syntax in [`import::id`]) and reads its artifact.
fn parse_import_id(id: &str) -> Result<import::id::ImportId, crate::domain::Finding> {
    import::id::parse(id)
}

impl Resource for ProfileResource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_profile"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "The proxy settings of an installation: proxy URLs, credentials, installation-wide NO_PROXY entries and trusted CA. Everything is computed at plan time: normalised values, URLs with credentials, a content fingerprint and a `revision` that moves only when the effective settings change (for `replace_triggered_by`), and `settings` to pass to every renderer data source as `profile`. Importable from what existing clusters already have.",
            vec![
                Attribute::required("name", Type::String, "Name of the profile; changing it replaces the profile.").validator(NotBlank).plan_modifier(PlanModifier::RequiresReplace),
                Attribute::optional("description", Type::String, "Free text."),
                Attribute::optional("http_proxy", Type::String, "Proxy for `http://` destinations, e.g. `http://proxy.corp.example:3128`, without credentials."),
                Attribute::optional("https_proxy", Type::String, "Proxy for `https://` destinations; defaults to `http_proxy`."),
                Attribute::optional("username", Type::String, "Proxy user name."),
                Attribute::optional("password", Type::String, "Proxy password. Kept in state (the rendered artifacts need it); never shown in plans or logs. No write-only variant: every renderer must write it into node configuration, so it would reach the state through them anyway.").sensitive(),
                Attribute::optional("no_proxy", Type::list(Type::String), "Installation-wide NO_PROXY entries (registry, corporate domains and ranges). Cluster-specific ones come from the renderer data sources' inputs."),
                Attribute::optional("trusted_ca", Type::String, "PEM bundle of the CA certificates that sign the proxy's certificates."),
                Attribute::computed("id", Type::String, "The profile name."),
                Attribute::computed("normalized_http_proxy", Type::String, "`http_proxy` normalised, without credentials."),
                Attribute::computed("normalized_https_proxy", Type::String, "The HTTPS proxy normalised (`http_proxy` when `https_proxy` is not set), without credentials."),
                Attribute::computed("normalized_no_proxy", Type::list(Type::String), "`no_proxy` normalised, semantic duplicates and covered entries removed."),
                Attribute::computed("http_proxy_url", Type::String, "The HTTP proxy URL with percent-encoded credentials.").sensitive(),
                Attribute::computed("https_proxy_url", Type::String, "The HTTPS proxy URL with percent-encoded credentials.").sensitive(),
                Attribute::computed("fingerprint", Type::String, "SHA-256 of the effective settings (URLs with credentials, normalised NO_PROXY, canonical CA). `name` and `description` do not count."),
                Attribute::computed("revision", Type::Number, "1 on creation; one more each time `fingerprint` changes. Use it in `replace_triggered_by` to roll node pools only when the proxy settings really change."),
                Attribute::computed("settings", inputs::settings_type(), "The effective settings as one object, for the `profile` attribute of every renderer data source.").sensitive(),
            ],
        )
        .with_version(VERSION)
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        convert::null_elements(config, "no_proxy", diags);
        if INPUTS
            .iter()
            .all(|name| config.get_attr(name).is_none_or(Value::is_wholly_known))
        {
            profile(config, diags);
        }
    }

    fn modify_plan(
        &self,
        prior: Option<&Value>,
        _config: &Value,
        planned: &mut Value,
        diags: &mut Diagnostics,
    ) {
        if !INPUTS
            .iter()
            .chain(&["name"])
            .all(|name| planned.get_attr(name).is_none_or(Value::is_wholly_known))
        {
            return;
        }
        if let Some(profile) = profile(planned, diags) {
            compute(planned, &profile, prior);
        }
    }

    fn apply(
        &self,
        prior: Option<&Value>,
        _config: &Value,
        planned: &Value,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        let mut state = planned.clone();
        let profile = profile(planned, diags)?;
        compute(&mut state, &profile, prior);
        Some(state)
    }

    fn import(&self, id: &str, diags: &mut Diagnostics) -> Option<Value> {
        let root = AttributePath::root();
        let id = parse_import_id(id)
            .map_err(|f| convert::push_findings(&[f], &root, diags))
            .ok()?;
        let mut imported = import::parse_with(&id.kind, &id.text, &id.facts)
            .and_then(|mut i| {
                i.keep_meaning(id.https_through_proxy)
                    .map_err(|f| vec![f])?;
                Ok(i)
            })
            .map_err(|findings| convert::push_findings(&findings, &root, diags))
            .ok()?;
        let name = id
            .name
            .unwrap_or_else(|| std::mem::take(&mut imported.name));
        let no_proxy =
            (!imported.no_proxy.is_empty()).then(|| convert::string_list(&imported.no_proxy));
        let mut state = Value::object(
            [
                ("name", Value::string(&name)),
                ("description", Value::null()),
                ("http_proxy", Value::opt_string(imported.http_proxy.clone())),
                (
                    "https_proxy",
                    Value::opt_string(imported.https_proxy.clone()),
                ),
                ("username", Value::opt_string(imported.username.clone())),
                ("password", Value::opt_string(imported.password.clone())),
                ("no_proxy", no_proxy.unwrap_or_else(Value::null)),
                ("trusted_ca", Value::opt_string(imported.trusted_ca.clone())),
            ]
            .map(|(k, v)| (k.to_owned(), v)),
        );
        let profile = profile(&state, diags)?;
        compute(&mut state, &profile, None);
        diags.push(Diagnostic::warning(
            format!("Imported proxy settings from {} into {name:?}", id.kind),
            imported.note(),
        ));
        Some(state)
    }

    fn upgrade_state(&self, version: i64, json: &[u8], diags: &mut Diagnostics) -> Option<Value> {
        if version != 0 {
            diags.push(Diagnostic::error(
                "Unknown state version",
                format!("clusterproxy_profile has no schema version {version}."),
            ));
            return None;
        }
        let v0: serde_json::Value = serde_json::from_slice(json)
            .map_err(|e| {
                diags.push(Diagnostic::error(
                    "Unreadable state",
                    format!("The version 0 state is not JSON: {e}."),
                ))
            })
            .ok()?;
        let text = |key: &str| Value::opt_string(v0.get(key).and_then(serde_json::Value::as_str));
        let no_proxy: Vec<String> = v0
            .get("no_proxy")
            .and_then(serde_json::Value::as_str)
            .map(|s| {
                s.split(',')
                    .map(str::trim)
                    .filter(|e| !e.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        let mut state = Value::object(
            [
                ("name", text("name")),
                ("description", text("description")),
                ("http_proxy", text("http_proxy")),
                ("https_proxy", text("https_proxy")),
                ("username", text("username")),
                ("password", text("password")),
                (
                    "no_proxy",
                    if no_proxy.is_empty() {
                        Value::null()
                    } else {
                        convert::string_list(&no_proxy)
                    },
                ),
                ("trusted_ca", text("trusted_ca")),
            ]
            .map(|(k, v)| (k.to_owned(), v)),
        );
        let profile = profile(&state, diags)?;
        compute(&mut state, &profile, None);
        Some(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framework::value::Number;

    #[test]
    fn import_ids() {
        let id = parse_import_id("corp=systemd:[Service]").unwrap();
        assert_eq!(
            (id.name.as_deref(), id.kind.as_str()),
            (Some("corp"), "systemd")
        );
        assert!(parse_import_id("nope:x").is_err());
    }

    #[test]
    fn upgrades_version_0_without_losing_anything() {
        let v0 = br#"{"id":"corp","name":"corp","description":"d","http_proxy":"http://proxy.corp.example:3128","https_proxy":null,"username":"u","password":"p","no_proxy":"a.example, b.example,,10.0.0.0/8","trusted_ca":null}"#;
        let mut diags = Diagnostics::new();
        let state = ProfileResource.upgrade_state(0, v0, &mut diags).unwrap();
        assert!(!diags.has_errors());
        assert_eq!(
            convert::strings(&state, "no_proxy"),
            ["a.example", "b.example", "10.0.0.0/8"]
        );
        assert_eq!(convert::string(&state, "description").as_deref(), Some("d"));
        assert_eq!(convert::string(&state, "password").as_deref(), Some("p"));
        assert_eq!(
            convert::string(&state, "https_proxy_url").as_deref(),
            Some("http://u:p@proxy.corp.example:3128")
        );
        assert_eq!(
            state
                .get_attr("revision")
                .and_then(Value::as_number)
                .and_then(Number::as_i64),
            Some(1)
        );
        assert!(ProfileResource
            .upgrade_state(7, v0, &mut Diagnostics::new())
            .is_none());
    }

    #[test]
    fn computed_values_keep_the_revision_until_settings_change() {
        let config = Value::object(
            [
                ("name", Value::string("corp")),
                (
                    "http_proxy",
                    Value::string("http://proxy.corp.example:3128"),
                ),
                ("description", Value::string("one")),
            ]
            .map(|(k, v)| (k.to_owned(), v)),
        );
        let mut first = config.clone();
        let profile = Profile::new(&input(&config)).unwrap();
        compute(&mut first, &profile, None);
        let mut renamed = first.clone();
        renamed.set_attr("description", Value::string("two"));
        compute(&mut renamed, &profile, Some(&first));
        assert_eq!(renamed.get_attr("revision"), first.get_attr("revision"));
        let mut changed = renamed.clone();
        changed.set_attr(
            "http_proxy",
            Value::string("http://proxy2.corp.example:3128"),
        );
        let profile = Profile::new(&input(&changed)).unwrap();
        compute(&mut changed, &profile, Some(&renamed));
        assert_eq!(
            changed
                .get_attr("revision")
                .and_then(Value::as_number)
                .and_then(Number::as_i64),
            Some(2)
        );
    }
}
