//! `clusterproxy_profile`: the proxy settings of an installation, normalised,
//! fingerprinted and ready to feed every renderer data source.

use crate::domain::import;
use crate::domain::profile::{Profile, ProfileInput, StoredRevision};
use crate::domain::proxy_url::ProxyUrl;
use crate::framework::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::framework::resource::Resource;
use crate::framework::schema::{Attribute, NoNullElements, NotBlank, PlanModifier, Schema};
use crate::framework::value::{json, Type, Value};
use crate::provider::{convert, inputs};

/// The resource.
#[derive(Debug, Clone, Copy)]
pub struct ProfileResource;

/// Current schema version. v0 kept `no_proxy` as one comma-separated string
/// and had no computed settings; v1 had `no_proxy` as a list and a
/// fingerprint over the credentials; v2 has `no_proxy` as a set and a
/// fingerprint over public settings only.
const VERSION: i64 = 2;

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

/// What `prior` holds about its revision; a revision that is not an integer
/// is an error on `revision`.
fn stored_revision<'a>(prior: &'a Value, diags: &mut Diagnostics) -> Option<StoredRevision<'a>> {
    let text = |name: &str| prior.get_attr(name).and_then(Value::as_str);
    let Some(revision) = prior
        .get_attr("revision")
        .and_then(Value::as_number)
        .and_then(|n| n.as_i64())
    else {
        diags.push(
            Diagnostic::error(
                "Invalid stored revision",
                "The stored revision is not an integer. Remove the resource from the state and import it again.",
            )
            .at(AttributePath::attribute("revision")),
        );
        return None;
    };
    Some(StoredRevision {
        revision,
        fingerprint: text("fingerprint").unwrap_or_default(),
        http_proxy_url: text("http_proxy_url"),
        https_proxy_url: text("https_proxy_url"),
    })
}

/// Fills id and every computed attribute of `state` from its inputs; `prior`
/// decides the revision. False (with an error) when the revision cannot be set.
fn compute(
    state: &mut Value,
    profile: &Profile,
    prior: Option<&Value>,
    diags: &mut Diagnostics,
) -> bool {
    let stored = match prior {
        Some(prior) => match stored_revision(prior, diags) {
            Some(stored) => Some(stored),
            None => return false,
        },
        None => None,
    };
    let revision = match profile.revision(stored.as_ref()) {
        Ok(revision) => revision,
        Err(finding) => {
            convert::push_findings(&[finding], &AttributePath::root(), diags);
            return false;
        }
    };
    let plain = |u: &Option<ProxyUrl>| u.as_ref().map(ProxyUrl::to_plain_string);
    let [http_secret, https_secret] = profile.secret_urls();
    let credentials = profile
        .http_proxy
        .as_ref()
        .or(profile.https_proxy.as_ref())
        .and_then(ProxyUrl::credentials);
    let ca = profile.trusted_ca.as_ref().map(|c| c.to_pem());
    let settings = inputs::settings_value(
        plain(&profile.http_proxy).as_deref(),
        plain(&profile.https_proxy).as_deref(),
        credentials.map(|c| c.username()),
        credentials.and_then(|c| c.password()),
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
    state.set_attr("http_proxy_url", Value::opt_string(http_secret));
    state.set_attr("https_proxy_url", Value::opt_string(https_secret));
    state.set_attr("fingerprint", Value::string(&profile.fingerprint));
    state.set_attr("revision", Value::int(revision));
    state.set_attr("settings", settings);
    true
}

/// The schema of state version 1, read by the upgrader.
fn v1_type() -> Type {
    let mut ty = ProfileResource.schema().object_type();
    if let Type::Object(attributes) = &mut ty {
        attributes.insert("no_proxy".to_owned(), Type::list(Type::String));
    }
    ty
}

/// The schema of state version 0: every attribute a string.
fn v0_type() -> Type {
    Type::object(
        [
            "id",
            "name",
            "description",
            "http_proxy",
            "https_proxy",
            "username",
            "password",
            "no_proxy",
            "trusted_ca",
        ]
        .map(|name| (name, Type::String)),
    )
}

/// Decodes stored JSON against the type of its schema version: a value of
/// the wrong type or an unknown attribute is an error, never dropped.
fn decode_stored(version: i64, raw: &[u8], ty: &Type, diags: &mut Diagnostics) -> Option<Value> {
    json::decode(raw, ty)
        .map_err(|error| {
            diags.push(Diagnostic::error(
                "Cannot upgrade the stored state",
                format!("The clusterproxy_profile state of schema version {version} does not match that version's schema: {error}. Nothing was changed."),
            ))
        })
        .ok()
}

/// The version-2 inputs of a stored object. An empty stored string was
/// always taken as unset, and is null from version 2 on (empty strings are
/// errors in configuration now).
fn stored_inputs(stored: &Value, no_proxy: Value) -> Value {
    let text = |name: &str| {
        Value::opt_string(convert::string(stored, name).filter(|s| !s.trim().is_empty()))
    };
    Value::object(
        [
            ("name", text("name")),
            (
                "description",
                stored
                    .get_attr("description")
                    .cloned()
                    .unwrap_or_else(Value::null),
            ),
            ("http_proxy", text("http_proxy")),
            ("https_proxy", text("https_proxy")),
            ("username", text("username")),
            ("password", text("password")),
            ("no_proxy", no_proxy),
            ("trusted_ca", text("trusted_ca")),
        ]
        .map(|(k, v)| (k.to_owned(), v)),
    )
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
                Attribute::optional("no_proxy", Type::set(Type::String), "Installation-wide NO_PROXY entries (registry, corporate domains and ranges). A set: order carries no meaning for any client, so reordering changes nothing. Cluster-specific ones come from the renderer data sources' inputs.").validator(NoNullElements),
                Attribute::optional("trusted_ca", Type::String, "PEM bundle of the CA certificates that sign the proxy's certificates."),
                Attribute::computed("id", Type::String, "The profile name."),
                Attribute::computed("normalized_http_proxy", Type::String, "`http_proxy` normalised, without credentials."),
                Attribute::computed("normalized_https_proxy", Type::String, "The HTTPS proxy normalised (`http_proxy` when `https_proxy` is not set), without credentials."),
                Attribute::computed("normalized_no_proxy", Type::list(Type::String), "`no_proxy` normalised, semantic duplicates and covered entries removed."),
                Attribute::computed("http_proxy_url", Type::String, "The HTTP proxy URL with percent-encoded credentials.").sensitive(),
                Attribute::computed("https_proxy_url", Type::String, "The HTTPS proxy URL with percent-encoded credentials.").sensitive(),
                Attribute::computed("fingerprint", Type::String, "SHA-256 of the public settings: URLs without credentials, user name, the set of normalised NO_PROXY entries, canonical CA. The password never enters it (nor anything else derived from a secret), so it cannot be used to check a password guess. `name` and `description` do not count."),
                Attribute::computed("revision", Type::Number, "1 on creation; one more each time the effective settings change: `fingerprint`, or the credentials (compared with the stored ones, never through a digest). Reordering or respelling `no_proxy` entries does not count. Use it in `replace_triggered_by` to roll node pools only when the proxy settings really change."),
                Attribute::computed("settings", inputs::settings_type(), "The effective settings as one object, for the `profile` attribute of every renderer data source.").sensitive(),
            ],
        )
        .with_version(VERSION)
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
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
            compute(planned, &profile, prior, diags);
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
        compute(&mut state, &profile, prior, diags).then_some(state)
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
            (!imported.no_proxy.is_empty()).then(|| convert::string_set(&imported.no_proxy));
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
        if !compute(&mut state, &profile, None, diags) {
            return None;
        }
        diags.push(Diagnostic::warning(
            format!("Imported proxy settings from {} into {name:?}", id.kind),
            imported.note(),
        ));
        Some(state)
    }

    fn upgrade_state(&self, version: i64, json: &[u8], diags: &mut Diagnostics) -> Option<Value> {
        // Version 1 keeps its revision: only the fingerprint's format and the
        // order of the normalised list change, which is no change of settings.
        // Version 0 had no revision: it starts at 1.
        let (inputs, prior) = match version {
            0 => {
                let v0 = decode_stored(0, json, &v0_type(), diags)?;
                let entries: Vec<String> = convert::string(&v0, "no_proxy")
                    .unwrap_or_default()
                    .split(',')
                    .map(str::trim)
                    .filter(|e| !e.is_empty())
                    .map(str::to_owned)
                    .collect();
                let no_proxy = if entries.is_empty() {
                    Value::null()
                } else {
                    convert::string_set(&entries)
                };
                (stored_inputs(&v0, no_proxy), None)
            }
            1 => {
                let v1 = decode_stored(1, json, &v1_type(), diags)?;
                let no_proxy = match v1.get_attr("no_proxy") {
                    Some(list) if !list.is_null() => {
                        convert::string_set(&convert::strings(&v1, "no_proxy"))
                    }
                    _ => Value::null(),
                };
                (stored_inputs(&v1, no_proxy), Some(v1))
            }
            _ => {
                diags.push(Diagnostic::error(
                    "Unknown state version",
                    format!("clusterproxy_profile has no schema version {version}."),
                ));
                return None;
            }
        };
        let mut state = inputs;
        let profile = profile(&state, diags)?;
        // The stored revision is carried over as if nothing changed (it did
        // not: only the fingerprint's format, the order of the normalised
        // list and the spelling of URLs may differ), after the same checks
        // as every stored revision.
        let carried = match &prior {
            Some(v1) => {
                let stored = stored_revision(v1, diags)?;
                let [http, https] = profile.secret_urls();
                let mut unchanged = state.clone();
                unchanged.set_attr("revision", Value::int(stored.revision));
                unchanged.set_attr("fingerprint", Value::string(&profile.fingerprint));
                unchanged.set_attr("http_proxy_url", Value::opt_string(http));
                unchanged.set_attr("https_proxy_url", Value::opt_string(https));
                Some(unchanged)
            }
            None => None,
        };
        compute(&mut state, &profile, carried.as_ref(), diags).then_some(state)
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

    /// A version-1 state as the previous release wrote it: `no_proxy` a
    /// list, the fingerprint over the credentials.
    fn v1_state(revision: &str, extra: &str) -> Vec<u8> {
        format!(
            r#"{{"id":"corp","name":"corp","description":"d","http_proxy":"http://proxy.corp.example:3128","https_proxy":null,"username":"u","password":"p w","no_proxy":["B.example","10.0.0.0/8"],"trusted_ca":null,"normalized_http_proxy":"http://proxy.corp.example:3128","normalized_https_proxy":"http://proxy.corp.example:3128","normalized_no_proxy":["b.example","10.0.0.0/8"],"http_proxy_url":"http://u:p%20w@proxy.corp.example:3128","https_proxy_url":"http://u:p%20w@proxy.corp.example:3128","fingerprint":"0000000000000000000000000000000000000000000000000000000000000000","revision":{revision},"settings":{{"http_proxy":"http://proxy.corp.example:3128","https_proxy":"http://proxy.corp.example:3128","username":"u","password":"p w","no_proxy":["b.example","10.0.0.0/8"],"trusted_ca":null}}{extra}}}"#
        )
        .into_bytes()
    }

    fn number(state: &Value, name: &str) -> Option<i64> {
        state
            .get_attr(name)
            .and_then(Value::as_number)
            .and_then(Number::as_i64)
    }

    #[test]
    fn upgrades_version_1_keeping_the_revision_and_every_input() {
        let mut diags = Diagnostics::new();
        let state = ProfileResource
            .upgrade_state(1, &v1_state("7", ""), &mut diags)
            .unwrap();
        assert!(!diags.has_errors(), "{diags:?}");
        assert_eq!(number(&state, "revision"), Some(7));
        assert_eq!(
            state.get_attr("no_proxy"),
            Some(&convert::string_set(&["10.0.0.0/8", "B.example"]))
        );
        assert_eq!(convert::string(&state, "description").as_deref(), Some("d"));
        assert_eq!(convert::string(&state, "password").as_deref(), Some("p w"));
        let profile = Profile::new(&input(&state)).unwrap();
        assert_eq!(
            convert::string(&state, "fingerprint"),
            Some(profile.fingerprint.clone())
        );
        // The upgraded state plans as unchanged: the revision stays.
        let mut planned = state.clone();
        compute(&mut planned, &profile, Some(&state), &mut diags);
        assert_eq!(planned, state);
    }

    #[test]
    fn upgrades_refuse_what_they_cannot_convert_losslessly() {
        let cases: [(i64, Vec<u8>, &str); 8] = [
            (1, v1_state("0", ""), "Invalid stored revision"),
            (1, v1_state("-2", ""), "Invalid stored revision"),
            (1, v1_state("1.5", ""), "Invalid stored revision"),
            (1, v1_state("9223372036854775808", ""), "Invalid stored revision"),
            (1, v1_state("\"seven\"", ""), "Cannot upgrade the stored state"),
            (1, v1_state("1", r#","surprise":true"#), "Cannot upgrade the stored state"),
            (
                0,
                br#"{"id":"corp","name":"corp","http_proxy":"http://p:1","no_proxy":["a.example"]}"#.to_vec(),
                "Cannot upgrade the stored state",
            ),
            (
                0,
                br#"{"id":"corp","name":"corp","http_proxy":"http://p:1","password":5}"#.to_vec(),
                "Cannot upgrade the stored state",
            ),
        ];
        for (version, json, summary) in cases {
            let mut diags = Diagnostics::new();
            let upgraded = ProfileResource.upgrade_state(version, &json, &mut diags);
            assert!(upgraded.is_none(), "{}", String::from_utf8_lossy(&json));
            assert!(
                diags.iter().any(|d| d.summary == summary),
                "{}: {diags:?}",
                String::from_utf8_lossy(&json)
            );
        }
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
        assert_eq!(number(&state, "revision"), Some(1));
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
        let mut diags = Diagnostics::new();
        let mut first = config.clone();
        let profile = Profile::new(&input(&config)).unwrap();
        compute(&mut first, &profile, None, &mut diags);
        let mut renamed = first.clone();
        renamed.set_attr("description", Value::string("two"));
        compute(&mut renamed, &profile, Some(&first), &mut diags);
        assert_eq!(renamed.get_attr("revision"), first.get_attr("revision"));
        let mut changed = renamed.clone();
        changed.set_attr(
            "http_proxy",
            Value::string("http://proxy2.corp.example:3128"),
        );
        let profile = Profile::new(&input(&changed)).unwrap();
        compute(&mut changed, &profile, Some(&renamed), &mut diags);
        assert_eq!(number(&changed, "revision"), Some(2));
        assert!(!diags.has_errors(), "{diags:?}");
    }
}
