//! `clusterproxy_systemd_dropin`: systemd drop-ins that give services the proxy environment.

use crate::domain::render::{systemd, Secrets};
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::schema::{Attribute, Schema};
use crate::framework::value::{Type, Value};
use crate::provider::{convert, inputs};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct SystemdDropin;

const FILE_ATTRIBUTES: [&str; 5] = ["unit", "path", "owner", "permissions", "content"];

fn files(
    settings: &crate::domain::render::ProxySettings,
    units: &[String],
    secrets: Secrets,
) -> Value {
    convert::objects(units.iter().map(|unit| {
        let d = systemd::dropin(settings, unit, secrets);
        vec![
            ("unit", Value::string(d.unit)),
            ("path", Value::string(d.path)),
            ("owner", Value::string(d.owner)),
            ("permissions", Value::string(d.permissions)),
            ("content", Value::string(d.content)),
        ]
    }))
}

impl DataSource for SystemdDropin {
    fn type_name(&self) -> &'static str {
        "clusterproxy_systemd_dropin"
    }

    fn schema(&self) -> Schema {
        let file_type = Type::list(convert::string_object_type(&FILE_ATTRIBUTES));
        let mut attributes = inputs::proxy_attributes();
        attributes.extend([
            inputs::units_attribute(),
            Attribute::computed(
                "dropins",
                file_type.clone(),
                "One drop-in per unit: `unit`, `path` (`/etc/systemd/system/<unit>.d/http-proxy.conf`), `owner` (`root:root`), `permissions` (`0640`) and `content`: a `[Service]` section with `HTTP_PROXY`, `http_proxy`, `HTTPS_PROXY`, `https_proxy`, `NO_PROXY` and `no_proxy` as `Environment=` assignments (`\\` and `\"` escaped, `%` doubled). Holds the credentials.",
            )
            .sensitive(),
            Attribute::computed("dropins_redacted", file_type, "`dropins` with the proxy password replaced by `***`, for review."),
            Attribute::computed(
                "default_environment",
                Type::String,
                "The same variables as a `[Manager] DefaultEnvironment=` drop-in for `/etc/systemd/system.conf.d/http-proxy.conf`, which gives them to every service. `%` is doubled, which needs systemd 249 or later (older versions take `DefaultEnvironment=` verbatim; use `dropins` there when a value contains `%`). Holds the credentials.",
            )
            .sensitive(),
            Attribute::computed(
                "commands",
                Type::list(Type::String),
                "Commands that apply the drop-ins: `systemctl daemon-reload`, then a restart of each unit.",
            ),
        ]);
        Schema::new(
            "Renders systemd drop-ins that set the proxy environment (upper- and lowercase variables, the merged NO_PROXY) for containerd, kubelet or any other unit. Known at plan time whenever its inputs are.",
            attributes,
        )
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let (proxy, units) = inputs::read_proxy_and_units(config, diags)?;
        let settings = &proxy.settings;
        let mut state = config.clone();
        state.set_attr("dropins", files(settings, &units, Secrets::Include));
        state.set_attr("dropins_redacted", files(settings, &units, Secrets::Redact));
        state.set_attr(
            "default_environment",
            Value::string(systemd::default_environment(settings, Secrets::Include)),
        );
        state.set_attr(
            "commands",
            convert::string_list(&systemd::apply_commands(&units)),
        );
        Some(state)
    }
}
