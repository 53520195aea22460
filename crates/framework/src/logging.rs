//! hclog-compatible JSON logging on stderr, and the panic hook.
//!
//! Each line is one JSON object with `@level`, `@message`, `@module`,
//! `@timestamp` (2006-01-02T15:04:05.000000Z07:00 layout) and the event's
//! and spans' fields. The level comes from `TF_LOG_PROVIDER_<TYPE>` (e.g.
//! TF_LOG_PROVIDER_CLUSTERPROXY), else TF_LOG_PROVIDER, else TF_LOG; unset
//! means no logs. Values of proxy settings are never logged.

use std::fmt::Write as _;
use std::io::Write as _;

use serde_json::{Map, Value as Json};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::{Context, SubscriberExt};
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

/// The level configured by the environment for the provider at
/// `provider_address`, or `None` for no logging.
pub fn level_from_env(provider_address: &str) -> Option<Level> {
    level_from(provider_address, |name| std::env::var(name).ok())
}

/// The level from the first set variable of TF_LOG_PROVIDER_<TYPE> (TYPE is
/// the address's last segment, upper-cased), TF_LOG_PROVIDER and TF_LOG, as
/// read by `lookup`.
fn level_from(provider_address: &str, lookup: impl Fn(&str) -> Option<String>) -> Option<Level> {
    let provider_type = provider_address.rsplit('/').next().unwrap_or_default();
    let specific = format!("TF_LOG_PROVIDER_{}", provider_type.to_ascii_uppercase());
    [specific.as_str(), "TF_LOG_PROVIDER", "TF_LOG"]
        .iter()
        .find_map(|name| lookup(name).filter(|v| !v.is_empty()))
        .and_then(|value| parse_level(&value))
}

/// Parses a Terraform log level name (case-insensitive); `JSON` means trace.
pub fn parse_level(value: &str) -> Option<Level> {
    match value.trim().to_ascii_uppercase().as_str() {
        "TRACE" | "JSON" => Some(Level::TRACE),
        "DEBUG" => Some(Level::DEBUG),
        "INFO" => Some(Level::INFO),
        "WARN" => Some(Level::WARN),
        "ERROR" => Some(Level::ERROR),
        _ => None,
    }
}

/// Formats a time as hclog does: microseconds and a `Z`/offset suffix.
pub fn timestamp(now: time::OffsetDateTime) -> String {
    let utc = now.to_offset(time::UtcOffset::UTC);
    let mut out = String::with_capacity(27);
    let _ = write!(
        out,
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
        utc.year(),
        u8::from(utc.month()),
        utc.day(),
        utc.hour(),
        utc.minute(),
        utc.second(),
        utc.microsecond()
    );
    out
}

/// Installs the JSON logger (when a level is configured for the provider at
/// `provider_address`) and the panic hook.
pub fn init(provider_address: &str) {
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".to_owned());
        let location = info
            .location()
            .map(|l| format!("{}:{}", l.file(), l.line()))
            .unwrap_or_default();
        eprintln!("panic: {message}\n\ngoroutine 1 [running]:\n{location}");
    }));
    if let Some(level) = level_from_env(provider_address) {
        let subscriber = tracing_subscriber::registry()
            .with(HclogLayer)
            .with(filter(level));
        let _ = tracing::subscriber::set_global_default(subscriber);
    }
}

/// The provider's own events at `level`; the libraries' (HTTP/2, gRPC, TLS)
/// at warning and above only: their debug and trace events give message
/// sizes and frame lengths, which follow the length of the password in a
/// request or response.
fn filter(level: Level) -> Targets {
    Targets::new()
        .with_target(env!("CARGO_CRATE_NAME"), level)
        .with_default(Level::WARN.min(level))
}

struct JsonFields(Map<String, Json>);

impl Visit for JsonFields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().to_owned(), Json::String(format!("{value:?}")));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0
            .insert(field.name().to_owned(), Json::String(value.to_owned()));
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().to_owned(), Json::from(value));
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().to_owned(), Json::from(value));
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name().to_owned(), Json::from(value));
    }
}

/// The tracing layer writing hclog JSON lines.
struct HclogLayer;

impl<S: Subscriber + for<'a> LookupSpan<'a>> Layer<S> for HclogLayer {
    fn on_new_span(
        &self,
        attrs: &tracing::span::Attributes<'_>,
        id: &tracing::span::Id,
        ctx: Context<'_, S>,
    ) {
        let mut fields = JsonFields(Map::new());
        attrs.record(&mut fields);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(fields);
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut line = Map::new();
        line.insert(
            "@level".into(),
            Json::from(event.metadata().level().as_str().to_ascii_lowercase()),
        );
        line.insert("@module".into(), Json::from("provider"));
        line.insert(
            "@timestamp".into(),
            Json::from(timestamp(time::OffsetDateTime::now_utc())),
        );
        if let Some(scope) = ctx.event_scope(event) {
            for span in scope.from_root() {
                if let Some(fields) = span.extensions().get::<JsonFields>() {
                    line.extend(fields.0.clone());
                }
            }
        }
        let mut fields = JsonFields(Map::new());
        event.record(&mut fields);
        let message = fields.0.remove("message").unwrap_or(Json::from(""));
        line.extend(fields.0);
        line.insert("@message".into(), message);
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "{}", Json::Object(line));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamp_has_the_hclog_layout() {
        let t = time::macros::datetime!(2026-11-22 14:03:05.123456789 UTC);
        assert_eq!(timestamp(t), "2026-11-22T14:03:05.123456Z");
        let t = time::macros::datetime!(2026-01-02 03:04:05 +02:00);
        assert_eq!(timestamp(t), "2026-01-02T01:04:05.000000Z");
    }

    #[test]
    fn levels_parse_like_terraform() {
        assert_eq!(parse_level("trace"), Some(Level::TRACE));
        assert_eq!(parse_level("JSON"), Some(Level::TRACE));
        assert_eq!(parse_level("Warn"), Some(Level::WARN));
        assert_eq!(parse_level("off"), None);
    }

    #[test]
    fn provider_specific_variable_wins_over_generic_ones() {
        let address = "registry.terraform.io/clusterproxy/clusterproxy";
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                vars.iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        let all = env(&[
            ("TF_LOG", "error"),
            ("TF_LOG_PROVIDER", "info"),
            ("TF_LOG_PROVIDER_CLUSTERPROXY", "trace"),
        ]);
        assert_eq!(level_from(address, all), Some(Level::TRACE));
        let generic = env(&[("TF_LOG", "error"), ("TF_LOG_PROVIDER", "info")]);
        assert_eq!(level_from(address, generic), Some(Level::INFO));
        let empty_specific = env(&[("TF_LOG", "warn"), ("TF_LOG_PROVIDER_CLUSTERPROXY", "")]);
        assert_eq!(level_from(address, empty_specific), Some(Level::WARN));
        let other_provider = env(&[("TF_LOG_PROVIDER_AZURERM", "trace")]);
        assert_eq!(level_from(address, other_provider), None);
    }
}
