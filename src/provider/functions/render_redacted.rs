//! `provider::clusterproxy::render_redacted(platform, settings, options)`:
//! the redacted outputs of `render`, which need no password, for reviewers.

use crate::framework::function::{Function, FunctionError, Signature};
use crate::framework::value::Value;
use crate::provider::functions::render::{self, Outputs, Render};

#[derive(Debug, Clone, Copy)]
pub struct RenderRedacted;

impl Function for RenderRedacted {
    fn name(&self) -> &'static str {
        "render_redacted"
    }

    fn signature(&self) -> Signature {
        Signature {
            summary: "Render the redacted outputs of a platform, without the password",
            description: "Returns the `*_redacted` attributes of `render` with the same arguments (e.g. `dropins_redacted` for `systemd_dropin`, `yaml_redacted` and `secret_manifest_redacted` for `capi_kubeadm`) and `warnings`, acknowledged the same way. It never needs the password: a profile whose `password_required` is true (`password` or `password_wo`) renders with `***` in the password's place, exactly as the redacted twins show it. Pass the profile's `settings` as they are: they carry no secret, so the result is not sensitive and plans and outputs show it without `nonsensitive()`, so that reviewers see what a change of the profile (a rotation moves `revision`) changes in each platform's configuration. A settings object with a password merged in makes Terraform mark the result sensitive. Like `render`, it refuses a user name without a password where the profile takes none. Needs Terraform >= 1.8 (OpenTofu >= 1.7).",
            ..Render.signature()
        }
    }

    fn call(&self, arguments: &[Value]) -> Result<Value, FunctionError> {
        render::render(arguments, Outputs::Redacted)
    }
}
