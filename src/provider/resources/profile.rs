//! `clusterproxy_profile`: the proxy settings of an installation, normalised,
//! fingerprinted and ready to feed every renderer data source.

use crate::domain::import;
use crate::domain::profile::{PasswordVerifier, Profile, ProfileInput, StoredRevision};
use crate::domain::proxy_url::ProxyUrl;
use crate::domain::InputField;
use crate::framework::diagnostics::{AttributePath, Diagnostic, Diagnostics};
use crate::framework::identity::{IdentitySchema, ImportTarget};
use crate::framework::model::{self, Field, Maybe, Model, Object, Set};
use crate::framework::resource::{Carried, Change, Private, Resource};
use crate::framework::schema::{NoNullElements, NotBlank, PlanModifier, Schema, WholeNumber};
use crate::framework::value::Value;
use crate::provider::attributes::ProfileRevision;
use crate::provider::convert::{self, SettingsAt};
use crate::provider::inputs::Settings;

mod artifact;
pub(crate) mod identity;
mod stored;

#[derive(Debug, Clone, Copy)]
pub struct ProfileResource;

/// Current schema version. v0 kept `no_proxy` as one comma-separated string
/// and had no computed settings; v1 had `no_proxy` as a list and a
/// fingerprint over the credentials; v2 had `no_proxy` as a set and a
/// fingerprint over public settings only, with the CA certificates in the
/// order written; v3 has them in canonical order (same attributes); v4 adds
/// `password_wo`, `password_wo_version`, and in `settings`
/// `password_required` and `revision`, and drops `http_proxy_url` and
/// `https_proxy_url` (the password stays in `password` only, the one
/// sensitive attribute).
const VERSION: i64 = 4;

crate::model! {
    /// The configurable attributes.
    pub struct Inputs {
        pub name: Option<String> [required("Name of the profile; changing it replaces the profile.").validator(NotBlank).plan_modifier(PlanModifier::RequiresReplace)],
        pub description: Option<String> [optional("Free text.")],
        pub http_proxy: Option<String> [optional("Proxy for `http://` destinations, e.g. `http://proxy.corp.example:3128`, without credentials.")],
        pub https_proxy: Option<String> [optional("Proxy for `https://` destinations; defaults to `http_proxy`.")],
        pub username: Option<String> [optional("Proxy user name.")],
        pub password: Option<String> [optional("Proxy password. Kept in state in this attribute only (never shown in plans or logs): `settings` carries none, so give it to the renderers with `merge(clusterproxy_profile.x.settings, { password = <the same value> })`. On Terraform >= 1.11 use `password_wo` to keep it out of the state.").sensitive()],
        pub password_wo: Option<String> [optional("Proxy password, write-only (Terraform >= 1.11; older versions get an error, since they would store it): read from the configuration at plan and apply, never stored nor shown. Give it to the renderers from an ephemeral value with `provider::clusterproxy::render(\"...\", merge(clusterproxy_profile.x.settings, { password = <ephemeral value> }), {...})`: a renderer data source cannot take an ephemeral value. For the password, `revision` moves only when `password_wo_version` changes. Moving from `password` to `password_wo` with the same password keeps the revision. Not marked sensitive: Terraform shows a write-only value in no plan. On Terraform 1.11 give it an ephemeral value that is not marked sensitive (an `ephemeral = true` variable without `sensitive`, or `nonsensitive(...)` around a sensitive ephemeral source) to keep `plan -refresh-only -detailed-exitcode` at 0: a sensitive value adds a second sensitive path next to `password`, and Terraform 1.11 lists sensitive paths in a random order and compares the list, so the drift check reports changes on about half the runs. Terraform >= 1.12 sorts them.").write_only().conflicts_with(&[Self::password]).requires(&[Self::password_wo_version, Self::username])],
        pub password_wo_version: Option<i64> [optional("Version of `password_wo`: change it with the password to roll the new password out (it moves `revision`).").validator(WholeNumber).requires(&[Self::password_wo])],
        pub no_proxy: Option<Set<String>> [optional("Installation-wide NO_PROXY entries (registry, corporate domains and ranges). A set: order carries no meaning for any client, so reordering changes nothing. Cluster-specific ones come from the renderer data sources' inputs.").validator(NoNullElements)],
        pub trusted_ca: Option<String> [optional("PEM bundle of the CA certificates that sign the proxy's certificates. Rendered with each certificate once, in one canonical order (by DER encoding), so reordering or repeating certificates changes no rendered byte.")],
    }
}

crate::model! {
    pub struct Computed {
        pub id: Option<String> [computed("The profile name.")],
        pub normalized_http_proxy: Option<String> [computed("`http_proxy` normalised, without credentials.")],
        pub normalized_https_proxy: Option<String> [computed("The HTTPS proxy normalised (`http_proxy` when `https_proxy` is not set), without credentials.")],
        pub normalized_no_proxy: Vec<String> [computed("`no_proxy` normalised, semantic duplicates and covered entries removed.")],
        pub fingerprint: String [computed("SHA-256 of the public settings: URLs without credentials, user name, the set of normalised NO_PROXY entries, canonical CA. The password never enters it (nor anything else derived from a secret), so it cannot be used to check a password guess. `name` and `description` do not count.")],
        /// The revision.
        pub revision: ProfileRevision [embed],
        pub settings: Settings [computed("The effective settings as one object, for the `profile` attribute of every renderer data source. Never holds the password (`password` is null, `password_required` says whether the proxy takes one), so it is not sensitive and plans show it: pass `merge(clusterproxy_profile.x.settings, { password = ... })` where the renderers need the credentials.")],
    }
}

impl Inputs {
    /// The profile input.
    pub(crate) fn input(&self) -> ProfileInput {
        ProfileInput {
            http_proxy: self.http_proxy.clone(),
            https_proxy: self.https_proxy.clone(),
            username: self.username.clone(),
            password: self.password.clone(),
            no_proxy: self.no_proxy.clone().unwrap_or_default().0,
            trusted_ca: self.trusted_ca.clone(),
        }
    }

    /// The same inputs as stored from version 2 on: an empty stored string
    /// was always taken as unset, and is null from version 2 on (empty
    /// strings are errors in configuration now).
    fn without_blank_strings(self) -> Self {
        let text = |s: Option<String>| s.filter(|s| !s.trim().is_empty());
        Self {
            name: text(self.name),
            description: self.description,
            http_proxy: text(self.http_proxy),
            https_proxy: text(self.https_proxy),
            username: text(self.username),
            password: text(self.password),
            password_wo: None,
            password_wo_version: self.password_wo_version,
            no_proxy: self.no_proxy,
            trusted_ca: text(self.trusted_ca),
        }
    }
}

/// True when every input that makes up the settings (and `name` if
/// `with_name`) is wholly known in `value`.
fn inputs_known(value: &Value, with_name: bool) -> bool {
    Inputs::attributes()
        .iter()
        .filter(|a| a.name != Inputs::description && (with_name || a.name != Inputs::name))
        .all(|a| value.get_attr(&a.name).is_none_or(Value::is_wholly_known))
}

/// The configuration's write-only password (unknown until known).
fn password_wo(config: &Value, diags: &mut Diagnostics) -> Maybe<String> {
    model::attribute(config, Inputs::password_wo, diags)
}

/// A user name without a password plans, but every renderer refuses the
/// settings (they would write `http://user@host`, which authenticates no
/// one): a warning on `username` that names the fix. Not an error: the
/// configuration a fleet import generates has the user name and no
/// password until one is added.
fn warn_username_alone(config: &Value, diags: &mut Diagnostics) {
    let Some(inputs) = Inputs::get_planned(config, &mut Diagnostics::new()) else {
        return;
    };
    if inputs
        .username
        .as_deref()
        .is_some_and(|u| !u.trim().is_empty())
        && inputs.password.is_none()
    {
        diags.push(
            Diagnostic::warning(
                "Proxy user name without a password",
                "The profile names a proxy user but gives no password, so every renderer refuses its settings. Add the password: `password_wo` (an ephemeral value) with `password_wo_version` on Terraform >= 1.11, or `password`; or remove `username` if the proxy takes no credentials.",
            )
            .at(AttributePath::attribute(Inputs::username)),
        );
    }
}

/// The `password_wo_version` of `value` when `password_wo` is given: the
/// password is then write-only.
fn write_only_version(
    value: &Value,
    password_wo: Option<&str>,
    diags: &mut Diagnostics,
) -> Option<i64> {
    let version = |_| model::attribute(value, Inputs::password_wo_version, diags);
    password_wo.map(version).map(Option::unwrap_or_default)
}

/// Whether `profile`'s proxy URLs carry a password (`password` or
/// `password_wo`).
pub(crate) fn gives_password(profile: &Profile) -> bool {
    profile.credentials().and_then(|c| c.password()).is_some()
}

/// Warns when the stored profile has a password (stored or write-only) and
/// the configuration gives none: what generated configuration does, since
/// Terraform writes `password = null` for a sensitive value. Not for a
/// profile imported with a password that no configuration gave yet (its
/// verifier still in the private state): that password still stands.
fn warn_on_dropped_password(
    prior: Option<&Value>,
    imported: Option<&PasswordVerifier>,
    config: &Value,
    diags: &mut Diagnostics,
) {
    let Some(prior) = prior.filter(|_| imported.is_none()) else {
        return;
    };
    let Some(stored) = Computed::get(prior, diags) else {
        return;
    };
    let had_password = stored.settings.password_required;
    let gives_password = [Inputs::password, Inputs::password_wo]
        .iter()
        .any(|name| config.get_attr(name).is_some_and(|v| !v.is_null()));
    if had_password && !gives_password {
        diags.push(
            Diagnostic::warning(
                "Proxy credentials dropped",
                "The proxy of this profile had credentials (a user name and password), and this configuration gives no password: the plan removes it, `revision` moves and the renderers would write proxy URLs without credentials. Configuration generated by `-generate-config-out` holds `password = null` because Terraform never writes sensitive values. Set `password_wo` (Terraform >= 1.11, with `password_wo_version`) or `password` to keep them.",
            )
            .at(AttributePath::attribute(Inputs::password)),
        );
    }
}

/// The imported password, when the configured one (`password_wo` when
/// given, else `password`) is it percent-encoded as the artifact's proxy URL
/// writes it (`S3cr3t%23Bank` for `S3cr3t#Bank`), with a warning on that
/// attribute naming the fix: the renderers percent-encode a password
/// themselves, so the proxy would get the encoded text. The revision is then
/// decided with the decoded password, as if it had been given. Only while
/// the verifier of an imported password stands; nothing is kept of it.
fn encoded_imported_password(
    value: &Value,
    password_wo: Option<&str>,
    imported: Option<&PasswordVerifier>,
    diags: &mut Diagnostics,
) -> Option<String> {
    let imported = imported?;
    let (attribute, configured) = match password_wo {
        Some(password) => (Inputs::password_wo, password.to_owned()),
        None => (
            Inputs::password,
            model::attribute::<Option<String>>(value, Inputs::password, diags)?,
        ),
    };
    let decoded = imported.decoded_match(&configured)?;
    diags.push(
        Diagnostic::warning(
            "Proxy password given percent-encoded",
            "This password is the imported one as the artifact's proxy URL writes it, percent-encoded (`%23` for `#`, `%40` for `@`...). Give it decoded: the renderers percent-encode the password themselves, so as given the proxy would get the encoded text. This plan takes it as the decoded password (the revision stays); the next one, once the verifier of the imported password is gone, compares what is given.",
        )
        .at(AttributePath::attribute(attribute)),
    );
    Some(decoded)
}

/// Validates the inputs of `value`, with `password_wo` (the configuration's
/// write-only password) as the password when given; findings become
/// diagnostics.
fn profile(value: &Value, password_wo: Option<&str>, diags: &mut Diagnostics) -> Option<Profile> {
    let mut input = Inputs::get_planned(value, diags)?.input();
    if let Some(password) = password_wo {
        input.password = Some(password.to_owned());
    }
    Profile::new(&input)
        .map_err(|findings| {
            for finding in findings {
                // A finding on the password is about `password_wo` when that
                // is where the password came from.
                let (finding, at) = match finding.location {
                    Some(l) if password_wo.is_some() && l.field == InputField::Password => (
                        crate::domain::Finding {
                            location: None,
                            ..finding
                        },
                        AttributePath::attribute(Inputs::password_wo),
                    ),
                    _ => (finding, AttributePath::root()),
                };
                convert::push_findings(&[finding], &at, SettingsAt::Profile, diags);
            }
        })
        .ok()
}

/// What `prior` holds about its revision; a revision that is not an integer
/// is an error on `revision`.
fn stored_revision(prior: &Value, diags: &mut Diagnostics) -> Option<(Computed, i64)> {
    let stored = Computed::get(prior, diags)?;
    let Some(revision) = stored.revision.revision else {
        diags.push(
            Diagnostic::error(
                "Invalid stored revision",
                "The stored revision is not an integer. Remove the resource from the state and import it again.",
            )
            .at(AttributePath::attribute(ProfileRevision::revision)),
        );
        return None;
    };
    Some((stored, revision))
}

/// The proxy URLs with the credentials that the stored inputs give (the
/// stored `password`; none for a write-only one), to tell whether the
/// credentials changed without storing anything derived from them. Inputs
/// that no longer validate give none, so the revision moves.
fn stored_secret_urls(stored: &Inputs) -> [Option<String>; 2] {
    Profile::new(&stored.input()).map_or_else(|_| [None, None], |p| p.secret_urls())
}

/// Fills id and every computed attribute of `state` from its inputs; `prior`
/// (with the verifier of the password it was imported with, if any) decides
/// the revision. `write_only_version` is `password_wo_version` when
/// the password is write-only (`profile` then holds it). No computed
/// attribute holds a credential. False (with an error) when the revision
/// cannot be set.
fn compute(
    state: &mut Value,
    profile: &Profile,
    write_only_version: Option<i64>,
    prior: Option<(&Value, Option<&PasswordVerifier>)>,
    diags: &mut Diagnostics,
) -> bool {
    let (prior, imported_password) = prior.unzip();
    let imported_password = imported_password.flatten();
    let stored = match prior {
        Some(prior) => match stored_revision(prior, diags) {
            Some(stored) => Some(stored),
            None => return false,
        },
        None => None,
    };
    let Ok(stored_inputs) = prior.map(|p| Inputs::get(p, diags).ok_or(())).transpose() else {
        return false;
    };
    let [http_proxy_url, https_proxy_url] = stored_inputs
        .as_ref()
        .map(stored_secret_urls)
        .unwrap_or_default();
    let stored = stored.as_ref().map(|(computed, revision)| StoredRevision {
        revision: *revision,
        fingerprint: &computed.fingerprint,
        http_proxy_url: http_proxy_url.as_deref(),
        https_proxy_url: https_proxy_url.as_deref(),
        write_only_version: stored_inputs.as_ref().and_then(|i| i.password_wo_version),
        imported_password,
    });
    let revision = match profile.revision(stored.as_ref(), write_only_version) {
        Ok(revision) => revision,
        Err(finding) => {
            convert::push_findings(
                &[finding],
                &AttributePath::root(),
                SettingsAt::Profile,
                diags,
            );
            return false;
        }
    };
    let plain = |u: &Option<ProxyUrl>| u.as_ref().map(ProxyUrl::to_plain_string);
    let credentials = profile.credentials();
    let settings = Settings {
        http_proxy: plain(&profile.http_proxy),
        https_proxy: plain(&profile.https_proxy),
        username: credentials.map(|c| c.username().to_owned()),
        password: None,
        no_proxy: profile.no_proxy.clone(),
        trusted_ca: profile.trusted_ca.as_ref().map(|c| c.to_pem()).into(),
        // A profile imported with a password that no configuration gave yet
        // still takes one: the renderers ask for it.
        password_required: gives_password(profile)
            || (credentials.is_some() && imported_password.is_some()),
        revision: Some(revision),
    };
    let computed = Computed {
        id: model::attribute(state, Inputs::name, diags),
        normalized_http_proxy: plain(&profile.http_proxy),
        normalized_https_proxy: plain(&profile.https_proxy),
        normalized_no_proxy: profile.no_proxy.clone(),
        fingerprint: profile.fingerprint.clone(),
        revision: ProfileRevision {
            revision: Some(revision),
        },
        settings,
    };
    computed.write_attributes(state);
    true
}

/// The private-state key of the verifier of an imported password.
const IMPORTED_PASSWORD: &str = "imported_password";

/// The verifier of the imported password in `private`, if any (one that
/// does not decode verifies nothing, so the revision moves).
fn imported_password(private: &Private) -> Option<PasswordVerifier> {
    private
        .get(IMPORTED_PASSWORD)
        .and_then(PasswordVerifier::decode)
}

/// Parses an import ID (syntax in [`import::id`]); the artifact is read by
/// [`artifact::text`].
fn parse_import_id(id: &str) -> Result<import::id::ImportId, crate::domain::Finding> {
    import::id::parse(id)
}

/// The inputs a profile imported from `imported` has, password included
/// (the import keeps only its verifier): what a configuration writes for the
/// import to plan no change (no NO_PROXY entries are `null`, as unset).
pub(crate) fn imported_inputs(imported: &import::Imported) -> Inputs {
    let input = imported.input();
    Inputs {
        name: Some(imported.name.clone()),
        description: None,
        http_proxy: input.http_proxy,
        https_proxy: input.https_proxy,
        username: input.username,
        password: input.password,
        password_wo: None,
        password_wo_version: None,
        no_proxy: (!input.no_proxy.is_empty()).then_some(Set(input.no_proxy)),
        trusted_ca: input.trusted_ca,
    }
}

/// Imports the artifact's settings without its password: the state
/// gets none (nor the plan that imports it); a salted, slow verifier of
/// it goes into the private state, so that the first plan tells whether
/// the configured password is the imported one (revision kept) or not
/// (revision moves). Returns the state and the profile name.
fn import_profile(
    id: &import::id::ImportId,
    private: &mut Private,
    diags: &mut Diagnostics,
) -> Option<(Value, String)> {
    let root = AttributePath::root();
    let text = artifact::text(&id.artifact)
        .map_err(|f| convert::push_findings(&[f], &root, SettingsAt::Profile, diags))
        .ok()?;
    let imported = id
        .import(&text)
        .map_err(|findings| convert::push_findings(&findings, &root, SettingsAt::Profile, diags))
        .ok()?;
    let name = imported.name.clone();
    let inputs = imported_inputs(&imported);
    let password = inputs.password.clone();
    let mut state = inputs.value();
    let profile = profile(&state, None, diags)?;
    if !compute(&mut state, &profile, None, None, diags) {
        return None;
    }
    if let Some(password) = password {
        state.set_attr(Inputs::password, Value::null());
        private.set(IMPORTED_PASSWORD, PasswordVerifier::new(&password).encode());
    }
    diags.push(Diagnostic::warning(
        format!("Imported proxy settings from {} into {name:?}", id.kind),
        imported.note(),
    ));
    Some((state, name))
}

impl Resource for ProfileResource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_profile"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "The proxy settings of an installation: proxy URLs, credentials, installation-wide NO_PROXY entries and trusted CA. Everything is computed at plan time: normalised values, URLs with credentials, a content fingerprint and a `revision` that moves only when the effective settings change (for `replace_triggered_by`), and `settings` to pass to every renderer data source as `profile`. Importable from what existing clusters already have.",
            model::attributes::<Inputs, Computed>(),
        )
        .with_version(VERSION)
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        if inputs_known(config, false) {
            let password_wo = password_wo(config, diags);
            profile(config, password_wo.known().map(String::as_str), diags);
            if password_wo.is_null() {
                warn_username_alone(config, diags);
            }
        }
    }

    fn modify_plan(&self, change: Change<'_>, planned: &mut Value, diags: &mut Diagnostics) {
        let Change {
            prior,
            config,
            private: prior_private,
        } = change;
        let imported = imported_password(prior_private);
        warn_on_dropped_password(prior, imported.as_ref(), config, diags);
        let password_wo = password_wo(config, diags);
        if password_wo.is_unknown() || !inputs_known(planned, true) {
            return;
        }
        let password_wo = password_wo.known().map(String::as_str);
        let decoded = encoded_imported_password(planned, password_wo, imported.as_ref(), diags);
        if let Some(profile) = profile(planned, decoded.as_deref().or(password_wo), diags) {
            let version = write_only_version(planned, password_wo, diags);
            let prior = prior.map(|p| (p, imported.as_ref()));
            compute(planned, &profile, version, prior, diags);
        }
    }

    /// Applies, and drops the verifier of an imported password from the
    /// private state once the configuration gives a password: the new state
    /// holds the configured credentials. Until then the imported password
    /// still stands, and its verifier stays.
    fn apply(&self, change: Change<'_>, planned: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let Change {
            prior,
            config,
            private,
        } = change;
        let mut state = planned.clone();
        let password_wo = password_wo(config, diags);
        let password_wo = password_wo.known().map(String::as_str);
        let imported = imported_password(private);
        // As planned; the plan gave the warning.
        let decoded = encoded_imported_password(
            planned,
            password_wo,
            imported.as_ref(),
            &mut Diagnostics::new(),
        );
        let profile = profile(planned, decoded.as_deref().or(password_wo), diags)?;
        let version = write_only_version(planned, password_wo, diags);
        let prior = prior.map(|p| (p, imported.as_ref()));
        let applied = compute(&mut state, &profile, version, prior, diags);
        if gives_password(&profile) {
            private.remove(IMPORTED_PASSWORD);
        }
        applied.then_some(state)
    }

    /// Imports the artifact an import ID, or the identity of a profile
    /// imported from a file, names (an identity designates the same import
    /// as its ID, so both give the same profile and first plan); the
    /// identity stored is that of the import ([`identity::of_import`]).
    fn import(
        &self,
        target: ImportTarget<'_>,
        carried: &mut Carried,
        diags: &mut Diagnostics,
    ) -> Option<Value> {
        let id = match target {
            ImportTarget::Id(id) => parse_import_id(id)
                .map_err(|f| {
                    convert::push_findings(&[f], &AttributePath::root(), SettingsAt::Profile, diags)
                })
                .ok()?,
            ImportTarget::Identity(given) => identity::to_import(given, diags)?,
        };
        let (state, name) = import_profile(&id, &mut carried.private, diags)?;
        carried.identity = identity::of_import(&id, &name);
        Some(state)
    }

    fn identity_schema(&self) -> Option<IdentitySchema> {
        Some(identity::schema())
    }

    fn identity(&self, state: &Value, prior: &Value, diags: &mut Diagnostics) -> Value {
        identity::of_state(state, prior, diags)
    }

    fn upgrade_state(&self, version: i64, json: &[u8], diags: &mut Diagnostics) -> Option<Value> {
        // Versions 1 to 3 keep their revision: only the fingerprint's format,
        // the order of the normalised list or of the CA certificates, and
        // the attributes `settings` gained change, which is no change of
        // settings. Version 0 had no revision: it
        // starts at 1.
        let (inputs, prior) = stored::read(version, json, diags)?;
        let mut state = inputs.without_blank_strings().value();
        let profile = profile(&state, None, diags)?;
        // The stored revision is carried over as if nothing changed (it did
        // not: only the fingerprint's format, the order of the normalised
        // list or of the CA certificates and the spelling of URLs may
        // differ), after the same checks as every stored revision.
        let carried = match &prior {
            Some(prior) => {
                let (mut stored, _) = stored_revision(prior, diags)?;
                stored.fingerprint = profile.fingerprint.clone();
                Some(model::with(&state, stored))
            }
            None => None,
        };
        compute(
            &mut state,
            &profile,
            None,
            carried.as_ref().map(|c| (c, None)),
            diags,
        )
        .then_some(state)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framework::value::json;

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

    fn revision(state: &Value) -> Option<i64> {
        computed(state).revision.revision
    }

    /// The inputs of a known `state`.
    fn inputs(state: &Value) -> Inputs {
        Inputs::get(state, &mut Diagnostics::new()).unwrap()
    }

    /// The computed attributes of a known `state`.
    fn computed(state: &Value) -> Computed {
        Computed::get(state, &mut Diagnostics::new()).unwrap()
    }

    #[test]
    fn upgrades_version_1_keeping_the_revision_and_every_input() {
        let mut diags = Diagnostics::new();
        let state = ProfileResource
            .upgrade_state(1, &v1_state("7", ""), &mut diags)
            .unwrap();
        assert!(!diags.has_errors(), "{diags:?}");
        assert_eq!(revision(&state), Some(7));
        assert_eq!(
            inputs(&state).no_proxy,
            Some(Set(vec!["10.0.0.0/8".to_owned(), "B.example".to_owned()]))
        );
        assert_eq!(inputs(&state).description.as_deref(), Some("d"));
        assert_eq!(inputs(&state).password.as_deref(), Some("p w"));
        let profile = Profile::new(&inputs(&state).input()).unwrap();
        assert_eq!(
            Some(computed(&state).fingerprint),
            Some(profile.fingerprint.clone())
        );
        // The upgraded state plans as unchanged: the revision stays.
        let mut planned = state.clone();
        compute(
            &mut planned,
            &profile,
            None,
            Some((&state, None)),
            &mut diags,
        );
        assert_eq!(planned, state);
    }

    /// A version-2 state (the previous release) whose CA bundle is not in
    /// the canonical order: its CA file, `settings` and fingerprint followed
    /// the order written. The upgrade puts the bundle in canonical order and
    /// keeps the revision, since no setting changed: nothing downstream rolls
    /// on a `revision` trigger, and reordering the bundle afterwards plans no
    /// new revision either.
    #[test]
    fn upgrades_version_2_to_the_canonical_ca_order_keeping_the_revision() {
        use crate::domain::profile::{fingerprint, PublicSettings};
        use crate::domain::trusted_ca::{testing::bundle, TrustedCa};
        let (a, b) = (bundle(true), bundle(false));
        let pem = |text: &str| TrustedCa::parse(text).unwrap().to_pem();
        let canonical = pem(&format!("{a}{b}"));
        let written = if canonical.starts_with(&pem(&a)) {
            format!("{b}{a}")
        } else {
            format!("{a}{b}")
        };
        // What version 2 stored: each certificate re-encoded, in written order.
        let stored_pem = match written.starts_with(&b) {
            true => format!("{}{}", pem(&b), pem(&a)),
            false => format!("{}{}", pem(&a), pem(&b)),
        };
        assert_ne!(stored_pem, canonical);
        let url = "http://proxy.corp.example:3128";
        let v2_fingerprint = fingerprint(&PublicSettings {
            http_proxy: Some(url),
            https_proxy: Some(url),
            username: None,
            no_proxy: &[],
            trusted_ca: Some(&stored_pem),
        });
        let v2 = serde_json::json!({
            "id": "corp", "name": "corp", "description": null, "http_proxy": url,
            "https_proxy": null, "username": null, "password": null, "no_proxy": null,
            "trusted_ca": written, "normalized_http_proxy": url, "normalized_https_proxy": url,
            "normalized_no_proxy": [], "http_proxy_url": url, "https_proxy_url": url,
            "fingerprint": v2_fingerprint, "revision": 4,
            "settings": {"http_proxy": url, "https_proxy": url, "username": null,
                "password": null, "no_proxy": [], "trusted_ca": stored_pem},
        });
        let mut diags = Diagnostics::new();
        let state = ProfileResource
            .upgrade_state(2, v2.to_string().as_bytes(), &mut diags)
            .unwrap();
        assert!(!diags.has_errors(), "{diags:?}");
        assert_eq!(revision(&state), Some(4));
        assert_eq!(
            computed(&state).settings.trusted_ca.known().cloned(),
            Some(canonical)
        );
        let profile = Profile::new(&inputs(&state).input()).unwrap();
        assert_ne!(profile.fingerprint, v2_fingerprint);
        assert_eq!(computed(&state).fingerprint, profile.fingerprint);
        let mut planned = state.clone();
        compute(
            &mut planned,
            &profile,
            None,
            Some((&state, None)),
            &mut diags,
        );
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
            inputs(&state).no_proxy.unwrap().0,
            ["a.example", "b.example", "10.0.0.0/8"]
        );
        assert_eq!(inputs(&state).description.as_deref(), Some("d"));
        assert_eq!(inputs(&state).password.as_deref(), Some("p"));
        let settings = computed(&state).settings;
        assert!(settings.password_required);
        assert_eq!(settings.password, None);
        assert_eq!(revision(&state), Some(1));
        assert!(ProfileResource
            .upgrade_state(7, v0, &mut Diagnostics::new())
            .is_none());
    }

    /// A version-3 state: the password also in `http_proxy_url`,
    /// `https_proxy_url` and `settings.password`, `settings` without
    /// `password_required` and `revision`. The upgrade keeps every input and
    /// the revision, which `settings` now repeats, and the password only in
    /// `password`.
    #[test]
    fn upgrades_version_3_keeping_everything_and_adding_the_settings_revision() {
        let mut diags = Diagnostics::new();
        let v1 = ProfileResource
            .upgrade_state(1, &v1_state("5", ""), &mut diags)
            .unwrap();
        let mut v3 = serde_json::from_slice::<serde_json::Value>(
            &json::encode(&v1, &ProfileResource.schema().object_type()).unwrap(),
        )
        .unwrap();
        let settings = v3["settings"].as_object_mut().unwrap();
        settings.remove("password_required").unwrap();
        settings.remove("revision").unwrap();
        settings.insert("password".into(), "p w".into());
        let top = v3.as_object_mut().unwrap();
        top.remove("password_wo").unwrap();
        top.remove("password_wo_version").unwrap();
        for url in ["http_proxy_url", "https_proxy_url"] {
            top.insert(url.into(), "http://u:p%20w@proxy.corp.example:3128".into());
        }
        let state = ProfileResource
            .upgrade_state(3, v3.to_string().as_bytes(), &mut diags)
            .unwrap();
        assert!(!diags.has_errors(), "{diags:?}");
        assert_eq!(state, v1);
        let settings = computed(&state).settings;
        assert_eq!(settings.revision, Some(5));
        assert!(settings.password_required);
        assert_eq!(settings.password, None);
        assert_eq!(inputs(&state).password.as_deref(), Some("p w"));
    }

    /// The state, private state and diagnostics of an import of a drop-in
    /// whose proxy URL holds the password `imp0rted-pw`, from a file (an
    /// inline artifact with a password is refused).
    fn imported_with_password() -> (Value, Private, Diagnostics) {
        imported_with("imp0rted-pw")
    }

    /// As [`imported_with_password`], the drop-in's URL writing the
    /// password `written` (systemd's `%%` for `%`).
    fn imported_with(written: &str) -> (Value, Private, Diagnostics) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("proxy.conf");
        std::fs::write(
            &path,
            format!("[Service]\nEnvironment=\"HTTP_PROXY=http://svc:{written}@proxy.corp.example:3128\"\n"),
        )
        .unwrap();
        let id = format!(
            "corp=systemd(https_through_proxy=true):file:{}",
            path.display()
        );
        let mut carried = Carried::default();
        let mut diags = Diagnostics::new();
        let state = ProfileResource
            .import(ImportTarget::Id(&id), &mut carried, &mut diags)
            .unwrap_or_else(|| panic!("{diags:?}"));
        (state, carried.private, diags)
    }

    /// `state` configured with `password` in `password`, or in
    /// `password_wo` (version 1) when `write_only`; and that attribute.
    fn configured(state: &Value, password: &str, write_only: bool) -> (Value, &'static str) {
        let mut config = state.clone();
        let attribute = match write_only {
            true => Inputs::password_wo,
            false => Inputs::password,
        };
        config.set_attr(attribute, Value::string(password));
        if write_only {
            config.set_attr(Inputs::password_wo_version, Value::int(1));
        }
        (config, attribute)
    }

    /// The plan of `config` over `prior` (Terraform plans a write-only
    /// value as null) with `private`, and its diagnostics.
    fn plan(prior: &Value, config: &Value, private: &mut Private) -> (Value, Diagnostics) {
        let mut planned = config.clone();
        planned.set_attr(Inputs::password_wo, Value::null());
        let mut diags = Diagnostics::new();
        let change = Change {
            prior: Some(prior),
            config,
            private,
        };
        ProfileResource.modify_plan(change, &mut planned, &mut diags);
        (planned, diags)
    }

    /// The apply of `planned` (from `config`) over `prior` with `private`.
    fn apply(prior: &Value, config: &Value, planned: &Value, private: &mut Private) -> Value {
        let change = Change {
            prior: Some(prior),
            config,
            private,
        };
        let mut diags = Diagnostics::new();
        let applied = ProfileResource.apply(change, planned, &mut diags);
        applied.unwrap_or_else(|| panic!("{diags:?}"))
    }

    /// Configuration generated from an import gives no password (Terraform
    /// never writes one): its plan changes nothing (revision kept, the
    /// password still required, no "credentials dropped" warning) and its
    /// apply keeps the verifier, until a configuration gives the password.
    #[test]
    fn an_imported_password_stands_until_the_configuration_gives_one() {
        let (state, imported, _) = imported_with_password();
        let mut diags = Diagnostics::new();
        let mut private = imported.clone();
        let mut planned = state.clone();
        let change = Change {
            prior: Some(&state),
            config: &state,
            private: &mut private,
        };
        ProfileResource.modify_plan(change, &mut planned, &mut diags);
        assert!(diags.is_empty(), "{diags:?}");
        assert_eq!(planned, state);
        let change = Change {
            prior: Some(&state),
            config: &state,
            private: &mut private,
        };
        let applied = ProfileResource.apply(change, &planned, &mut diags).unwrap();
        assert_eq!(applied, state);
        assert_eq!(
            private, imported,
            "the verifier went before a password came"
        );
        let mut config = state.clone();
        config.set_attr(Inputs::password, Value::string("imp0rted-pw"));
        let mut planned = config.clone();
        let change = Change {
            prior: Some(&applied),
            config: &config,
            private: &mut private,
        };
        ProfileResource.modify_plan(change, &mut planned, &mut diags);
        assert_eq!(revision(&planned), Some(1));
        let change = Change {
            prior: Some(&applied),
            config: &config,
            private: &mut private,
        };
        ProfileResource.apply(change, &planned, &mut diags).unwrap();
        assert!(!diags.has_errors(), "{diags:?}");
        assert_eq!(private, Private::default());
    }

    /// A configured password that is the imported one as the artifact's URL
    /// writes it, percent-encoded (`S3cr3t%23Bank` for `S3cr3t#Bank`), gets
    /// a warning on its attribute naming the fix, never the password, and
    /// plans the revision the decoded password plans; the decoded password,
    /// or another one, gets no warning.
    #[test]
    fn an_encoded_imported_password_is_told_and_planned_as_decoded() {
        let (state, private, _) = imported_with("S3cr3t%%23Bank");
        for write_only in [false, true] {
            for (password, warned, expected) in [
                ("S3cr3t%23Bank", true, 1),
                ("S3cr3t#Bank", false, 1),
                ("S3cr3t%2523Bank", false, 2),
            ] {
                let (config, attribute) = configured(&state, password, write_only);
                let mut planned_private = private.clone();
                let (planned, diags) = plan(&state, &config, &mut planned_private);
                assert!(!diags.has_errors(), "{diags:?}");
                assert_eq!(revision(&planned), Some(expected), "{password}");
                let warnings: Vec<_> = diags
                    .iter()
                    .filter(|d| d.summary.contains("percent-encoded"))
                    .collect();
                assert_eq!(warnings.len(), usize::from(warned), "{password}: {diags:?}");
                for warning in warnings {
                    assert_eq!(
                        warning.path,
                        Some(AttributePath::attribute(attribute)),
                        "{warning:?}"
                    );
                    assert!(warning.detail.contains("decoded"), "{warning:?}");
                    assert!(!format!("{warning:?}").contains("S3cr3t"), "{warning:?}");
                }
                let applied = apply(&state, &config, &planned, &mut planned_private);
                assert_eq!(revision(&applied), Some(expected), "{password}");
                assert!(!format!("{planned_private:?}").contains("S3cr3t"));
            }
        }
    }

    /// An import stores no password: the state has none, the private state
    /// a verifier that decides the first plan's revision and that apply
    /// drops.
    #[test]
    fn import_stores_no_password_and_plans_the_revision_from_the_verifier() {
        let (state, private, diags) = imported_with_password();
        assert!(!diags.has_errors(), "{diags:?}");
        assert_eq!(inputs(&state).password, None);
        assert!(!format!("{state:?}{private:?}").contains("imp0rted"));
        assert!(computed(&state).settings.password_required);
        assert_eq!(revision(&state), Some(1));
        let verifier = PasswordVerifier::decode(private.get(IMPORTED_PASSWORD).unwrap());
        assert!(verifier.is_some_and(|v| v.matches("imp0rted-pw")));
        for write_only in [false, true] {
            for (password, expected) in [("imp0rted-pw", 1), ("rotated-pw", 2)] {
                let (config, _) = configured(&state, password, write_only);
                let mut planned_private = private.clone();
                let (planned, diags) = plan(&state, &config, &mut planned_private);
                assert_eq!(planned_private, private);
                assert!(!diags.has_errors(), "{diags:?}");
                assert_eq!(revision(&planned), Some(expected), "{password}");
                let applied = apply(&state, &config, &planned, &mut planned_private);
                assert_eq!(revision(&applied), Some(expected));
                assert_eq!(planned_private, Private::default());
            }
        }
        // Without the verifier (a plain import would have stored the
        // password), the same password would move the revision.
        let (config, _) = configured(&state, "imp0rted-pw", false);
        let (planned, _) = plan(&state, &config, &mut Private::default());
        assert_eq!(revision(&planned), Some(2));
    }

    #[test]
    fn import_errors_name_the_source_never_the_content() {
        let mut diags = Diagnostics::new();
        let id = r#"corp=aks:inline:{"httpProxyConfig": {"httpProxy": "ftp://u:hunter2@x"}}"#;
        assert!(ProfileResource
            .import(ImportTarget::Id(id), &mut Carried::default(), &mut diags)
            .is_none());
        let text = format!("{diags:?}");
        assert!(
            text.contains("Import kind `aks`, from inline content (55 bytes)."),
            "{text}"
        );
        assert!(!text.contains("hunter2"), "{text}");
    }

    #[test]
    fn computed_values_keep_the_revision_until_settings_change() {
        let config = Inputs {
            name: Some("corp".to_owned()),
            http_proxy: Some("http://proxy.corp.example:3128".to_owned()),
            description: Some("one".to_owned()),
            ..Inputs::default()
        }
        .value();
        let mut diags = Diagnostics::new();
        let mut first = config.clone();
        let profile = Profile::new(&inputs(&config).input()).unwrap();
        compute(&mut first, &profile, None, None, &mut diags);
        let mut renamed = first.clone();
        renamed.set_attr(Inputs::description, Value::string("two"));
        compute(
            &mut renamed,
            &profile,
            None,
            Some((&first, None)),
            &mut diags,
        );
        assert_eq!(revision(&renamed), revision(&first));
        let mut changed = renamed.clone();
        changed.set_attr(
            Inputs::http_proxy,
            Value::string("http://proxy2.corp.example:3128"),
        );
        let profile = Profile::new(&inputs(&changed).input()).unwrap();
        compute(
            &mut changed,
            &profile,
            None,
            Some((&renamed, None)),
            &mut diags,
        );
        assert_eq!(revision(&changed), Some(2));
        assert!(!diags.has_errors(), "{diags:?}");
    }
}
