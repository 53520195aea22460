//! `clusterproxy_docker_daemon`: Docker Engine's `daemon.json` with the
//! daemon's proxies.

use crate::domain::render::docker_daemon::DockerDaemon;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::model::{self, Field, Maybe};
use crate::framework::schema::Schema;
use crate::framework::value::Value;
use crate::provider::inputs::{self, RendererInputs};
use crate::provider::platform::{Area, GuideRow, Platform, Versions};

#[derive(Debug, Clone, Copy)]
pub struct DockerDaemonDataSource;

crate::model! {
    pub struct Config {
        /// Proxy settings and cluster inputs.
        pub proxy: RendererInputs [embed],
        pub daemon_settings: Maybe<String> [optional("The rest of `daemon.json` as a JSON object, e.g. `jsonencode({ \"log-driver\" = \"json-file\" })` or `file(\"daemon.json\")`: the proxies are merged into it, its keys kept in their order. It must not hold `proxies` (in any case: dockerd matches keys without regard to case), nor `http-proxy`, `https-proxy` or `no-proxy` at the top, which dockerd accepts and ignores. Unset: a `daemon.json` of the proxies alone.")],
    }
}

crate::model! {
    pub struct State {
        pub daemon_json: String [computed("`daemon.json`: `daemon_settings` with the `proxies` object (`http-proxy`, `https-proxy`, `no-proxy`: the merged list, comma-separated, as Go reads it) last. Write it to `/etc/docker/daemon.json` and restart dockerd. Docker Engine >= 23.0 reads `proxies`; an older daemon (Debian 12's docker.io 20.10) refuses the whole file (\"the following directives don't match any configuration option\"). The proxies are the daemon's own (pulls, pushes, logins), not the containers'. Holds the credentials: `daemon.json` takes no Secret reference.").sensitive()],
        pub daemon_json_redacted: String [computed("`daemon_json` with the proxy password replaced by `***`, for review.")],
    }
}

impl DataSource for DockerDaemonDataSource {
    fn type_name(&self) -> &'static str {
        "clusterproxy_docker_daemon"
    }

    fn schema(&self) -> Schema {
        Schema::new(
            "Renders Docker Engine's `daemon.json` with the daemon's `proxies` (Docker Engine >= 23.0) and the merged NO_PROXY, merged into the given daemon settings. `daemon.json` has no place for a CA (a `trusted_ca` is an error): Docker trusts the OS store. Known at plan time whenever its inputs are.",
            model::attributes::<Config, State>(),
        )
    }

    fn read(&self, value: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let config = Config::get(value, diags)?;
        let proxy = config.proxy.resolve(diags)?;
        let renderer = DockerDaemon {
            settings: config.daemon_settings.known().cloned(),
        };
        let (secret, redacted) = inputs::render_both(&renderer, &proxy, diags)?;
        Some(model::computed(State {
            daemon_json: secret,
            daemon_json_redacted: redacted,
        }))
    }
}

impl Platform for DockerDaemonDataSource {
    fn area(&self) -> Area {
        Area::Nodes
    }

    fn guide_row(&self) -> GuideRow {
        GuideRow {
            platform: "Docker Engine",
            writes: "`daemon.json` `proxies`, merged into the given `daemon_settings`",
            pitfalls: "Docker >= 23.0 only (older daemons refuse the file); the daemon's own traffic, not the containers'; no CA in `daemon.json` (a `trusted_ca` is an error)",
        }
    }

    fn versions(&self) -> Versions {
        Versions {
            input: None,
            consumers: "Docker Engine >= 23.0 (`proxies` as in moby/moby v23.0.0 to v28.5.2 `daemon/config/config.go`)",
            differences: "one format; before 23.0 dockerd refuses the `proxies` key",
        }
    }

    fn summary(&self) -> &'static str {
        "Docker Engine `daemon.json` `proxies`, merged into the rest of the daemon's settings"
    }
}
