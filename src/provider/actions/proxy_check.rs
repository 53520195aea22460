//! `action "clusterproxy_proxy_check"`: the check of the ephemeral resource
//! of the same name (`ephemeral_resources::proxy_check`, the one home of
//! its arguments, request and verdict), run at the moment Terraform
//! invokes the action: before the node pool or control plane it triggers
//! on changes (`action_trigger { events = [before_update] }`), or on demand
//! (`terraform apply -invoke=action.clusterproxy_proxy_check.<name>`). A
//! failed check is an error that halts the apply before the triggering
//! resource changes, unless `fail_on_error` is false.

use crate::framework::action::Action;
use crate::framework::diagnostics::Diagnostics;
use crate::framework::model::{Field, Model};
use crate::framework::schema::Schema;
use crate::framework::value::Value;
use crate::provider::ephemeral_resources::proxy_check::{self as check, Config};

/// The action.
#[derive(Debug, Clone, Copy)]
pub struct ProxyCheckAction;

impl Action for ProxyCheckAction {
    fn type_name(&self) -> &'static str {
        "clusterproxy_proxy_check"
    }

    fn schema(&self) -> Schema {
        let mut attributes = Config::attributes();
        // Also write-only here: an action's configuration is no result to
        // keep, and Terraform shows a write-only value in no plan.
        for attribute in &mut attributes {
            if attribute.name == Config::password {
                attribute.write_only = true;
            }
        }
        Schema::new(include_str!("proxy_check.md"), attributes)
    }

    fn validate(&self, config: &Value, diags: &mut Diagnostics) {
        check::validate(config, diags);
    }

    fn invoke(&self, value: &Value, progress: &mut dyn FnMut(String), diags: &mut Diagnostics) {
        let Some(config) = Config::get(value, diags) else {
            return;
        };
        check::check(&config, progress, diags);
    }
}
