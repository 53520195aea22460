//! `clusterproxy_systemd_dropin`: systemd drop-ins that give services the proxy environment.

use crate::domain::render::systemd;
use crate::framework::data_source::DataSource;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::schema::{Attribute, Schema};
use crate::framework::value::{Type, Value};
use crate::provider::{convert, inputs};

/// The data source.
#[derive(Debug, Clone, Copy)]
pub struct SystemdDropin;

const FILE_ATTRIBUTES: [&str; 5] = ["unit", "path", "owner", "permissions", "content"];
const CA_FILE_ATTRIBUTES: [&str; 4] = ["path", "owner", "permissions", "content"];

fn files(dropins: Vec<systemd::Dropin>) -> Value {
    convert::objects(dropins.into_iter().map(|d| {
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
            inputs::os_family_attribute(),
            Attribute::computed(
                "dropins",
                file_type.clone(),
                "One drop-in per unit: `unit`, `path` (`/etc/systemd/system/<unit>.d/http-proxy.conf`), `owner` (`root:root`), `permissions` (`0600` when the proxy URLs carry credentials, `0644` otherwise) and `content`: a `[Service]` section with `HTTP_PROXY`, `http_proxy`, `HTTPS_PROXY`, `https_proxy`, `NO_PROXY` and `no_proxy` as `Environment=` assignments (`\\` and `\"` escaped, `%` doubled). Holds the credentials.",
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
                "ca_files",
                Type::list(convert::string_object_type(&CA_FILE_ATTRIBUTES)),
                "With `trusted_ca`, the bundle file to write for `os_family` (`path`, `owner` `root:root`, `permissions` `0644`, `content`: the canonical PEM); empty without it. Write it before running `commands`.",
            ),
            Attribute::computed(
                "commands",
                Type::list(Type::String),
                "Commands that apply the files, in order: with `trusted_ca` the trust store update of `os_family` (e.g. `update-ca-certificates`), `systemctl daemon-reload`, then `systemctl restart -- '<unit>'` for each unit (`--` and single quotes, so that no name is read as an option and escapes reach systemctl intact through `sh`).",
            ),
        ]);
        Schema::new(
            "Renders systemd drop-ins that set the proxy environment (upper- and lowercase variables, the merged NO_PROXY) for containerd, kubelet or any other unit, and with `trusted_ca` the CA bundle file and the command that makes the node's OS trust it. A drop-in line of 1 MiB or more (systemd's `LONG_LINE_MAX`) or a variable of 128 KiB or more (Linux's `MAX_ARG_STRLEN`) is an error, a line over 64 KiB a warning. Known at plan time whenever its inputs are.",
            attributes,
        )
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        inputs::validate_ca_only_inputs(config, &["os_family"], diags);
    }

    fn read(&self, config: &Value, diags: &mut Diagnostics) -> Option<Value> {
        let (proxy, units) = inputs::read_proxy_and_units(config, diags)?;
        let renderer = systemd::Systemd {
            units,
            os: inputs::read_os_family(config),
        };
        let (secret, redacted) = inputs::render_both(&renderer, &proxy, diags)?;
        let ca_files = convert::objects(secret.ca_files.into_iter().map(|file| {
            vec![
                ("path", Value::string(file.path)),
                ("owner", Value::string(file.owner)),
                ("permissions", Value::string(file.permissions)),
                ("content", Value::string(file.content)),
            ]
        }));
        let mut state = config.clone();
        state.set_attr("ca_files", ca_files);
        state.set_attr("dropins", files(secret.dropins));
        state.set_attr("dropins_redacted", files(redacted.dropins));
        state.set_attr(
            "default_environment",
            Value::string(secret.default_environment),
        );
        state.set_attr("commands", convert::string_list(&secret.commands));
        Some(state)
    }
}
