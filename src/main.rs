//! The provider binary: Terraform starts it as a go-plugin.

use std::process::ExitCode;

fn main() -> ExitCode {
    clusterproxy::framework::plugin::run(
        clusterproxy::provider::ADDRESS,
        clusterproxy::provider::routes(),
    )
}
