//! Where each part of the provider works: the first Terraform, OpenTofu and
//! Pulumi (Any Terraform Provider, pulumi-terraform-bridge) release that has
//! each protocol capability and language feature the provider's resources,
//! data sources, list resources, ephemeral resources, actions and functions
//! need, each with the upstream source that says so. The one home of those
//! minimums: the E2E tests' `Feature::min_version` reads the Terraform ones,
//! and `docs/guides/compatibility.md` is generated from them
//! (`tests/suite/compatibility.rs`).

use std::fmt;

/// A version: major, minor, patch.
pub type Version = (u32, u32, u32);

/// A program that runs the provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tool {
    /// HashiCorp Terraform.
    Terraform,
    /// OpenTofu.
    OpenTofu,
    /// Pulumi through the Any Terraform Provider (`pulumi package add
    /// terraform-provider`), built from pulumi-terraform-bridge's `dynamic`.
    Pulumi,
}

impl Tool {
    /// Every tool, in the table's order.
    pub const ALL: [Tool; 3] = [Tool::Terraform, Tool::OpenTofu, Tool::Pulumi];

    /// The tool's name, as the docs write it.
    pub fn name(self) -> &'static str {
        match self {
            Tool::Terraform => "Terraform",
            Tool::OpenTofu => "OpenTofu",
            Tool::Pulumi => "Pulumi",
        }
    }

    /// The releases the table covers, and the newest one read.
    pub fn covered(self) -> &'static str {
        match self {
            Tool::Terraform => "1.0 to 1.16 (1.16 as of v1.16.0-rc2; 1.17 is in alpha)",
            Tool::OpenTofu => "1.7 to 1.12 (1.12 as of v1.12.6; 1.13 is unreleased)",
            Tool::Pulumi => "Pulumi >= 3.147.0 with the Any Terraform Provider, pulumi-terraform-bridge up to v3.136.0",
        }
    }
}

/// Where a fact comes from: a file of a repository at a tag or commit, or
/// a web page (`repository` empty, `path` the URL).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Source {
    /// `owner/name` on GitHub; empty for a web page.
    pub repository: &'static str,
    /// The file (with a line where one says it), or the URL.
    pub path: &'static str,
    /// The tag or commit the file was read at; empty for a web page.
    pub at: &'static str,
    /// What to read there, when the file alone does not say it.
    pub note: &'static str,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.repository.is_empty() {
            write!(f, "<{}>", self.path)?;
        } else {
            write!(f, "{} `{}` at `{}`", self.repository, self.path, self.at)?;
        }
        if !self.note.is_empty() {
            write!(f, ": {}", self.note)?;
        }
        Ok(())
    }
}

const fn at(repository: &'static str, path: &'static str, at: &'static str) -> Source {
    noted(repository, path, at, "")
}

const fn noted(
    repository: &'static str,
    path: &'static str,
    at: &'static str,
    note: &'static str,
) -> Source {
    Source {
        repository,
        path,
        at,
        note,
    }
}

const TERRAFORM: &str = "hashicorp/terraform";
const OPENTOFU: &str = "opentofu/opentofu";
const BRIDGE: &str = "pulumi/pulumi-terraform-bridge";

/// What the bridge translates: the plugin protocol, not HCL, so a
/// language feature of Terraform's is no Pulumi feature at all.
const BRIDGE_IS_NO_HCL: Source = noted(
    BRIDGE,
    "dynamic/README.md",
    "v3.136.0",
    "the bridge translates Pulumi's protocol into plugin protocol 6; Pulumi reads no HCL and plans itself",
);

/// The schemas the bridge passes on from a provider: resources, data
/// sources and functions, none of ephemeral resources, list resources or
/// actions.
const BRIDGE_SCHEMAS: Source = noted(
    BRIDGE,
    "dynamic/internal/shim/protov6/translate/tfplugin6.go:137",
    "v3.136.0",
    "`GetProviderSchemaResponse` passes on resources, data sources and functions only",
);

/// How far a tool goes with a capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Support {
    /// From `version` of `product` on (`product` the tool's name, or the
    /// component that is versioned, e.g. `pulumi-terraform-bridge`).
    Since {
        /// What the version is of.
        product: &'static str,
        /// The first release that has it.
        version: Version,
        /// Where that is said.
        source: Source,
    },
    /// In no release the table covers.
    Missing {
        /// Where that is said (the tracking issue, or the code without it).
        source: Source,
    },
    /// Not a notion of this tool (an HCL block under Pulumi).
    NotApplicable {
        /// Where that is said.
        source: Source,
    },
}

impl Support {
    /// The first version, when there is one.
    pub fn version(self) -> Option<Version> {
        match self {
            Support::Since { version, .. } => Some(version),
            Support::Missing { .. } | Support::NotApplicable { .. } => None,
        }
    }

    /// The source of the answer.
    pub fn source(self) -> Source {
        match self {
            Support::Since { source, .. }
            | Support::Missing { source }
            | Support::NotApplicable { source } => source,
        }
    }
}

/// A protocol capability or language feature some part of the provider,
/// or of its examples, needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Capability {
    /// Managed resources and data sources over plugin protocol 6, the only
    /// protocol the provider speaks.
    Protocol6,
    /// `moved {}` blocks.
    MovedBlock,
    /// The built-in `terraform_data` resource.
    TerraformData,
    /// `import {}` blocks and `-generate-config-out`.
    ImportBlock,
    /// `check {}` blocks.
    CheckBlock,
    /// A provider schema fetched once per run (`GetProviderSchemaOptional`).
    SchemaOnce,
    /// `for_each` in an `import {}` block.
    ImportForEach,
    /// Provider-defined functions (protocol 6.5).
    Functions,
    /// Ephemeral resources (protocol 6.7).
    Ephemeral,
    /// Write-only arguments (protocol 6.8).
    WriteOnly,
    /// Resource identity: `import { identity = {...} }` (protocol 6.9).
    Identity,
    /// List resources and `terraform query`.
    ListResources,
    /// `action` blocks, `action_trigger` and `apply -invoke` (protocol 6.10).
    Actions,
}

impl Capability {
    /// Every capability, oldest in Terraform first.
    pub const ALL: [Capability; 13] = [
        Capability::Protocol6,
        Capability::MovedBlock,
        Capability::TerraformData,
        Capability::ImportBlock,
        Capability::CheckBlock,
        Capability::SchemaOnce,
        Capability::ImportForEach,
        Capability::Functions,
        Capability::Ephemeral,
        Capability::WriteOnly,
        Capability::Identity,
        Capability::ListResources,
        Capability::Actions,
    ];

    /// What the capability is, for the table.
    pub fn name(self) -> &'static str {
        match self {
            Capability::Protocol6 => "resources and data sources (plugin protocol 6)",
            Capability::MovedBlock => "`moved` blocks",
            Capability::TerraformData => "`terraform_data` (used by examples)",
            Capability::ImportBlock => "`import` blocks, `-generate-config-out`",
            Capability::CheckBlock => "`check` blocks (the drift check of the fleet example)",
            Capability::SchemaOnce => "the provider schema fetched once per run",
            Capability::ImportForEach => "`for_each` in `import` blocks",
            Capability::Functions => "provider-defined functions (protocol 6.5)",
            Capability::Ephemeral => "ephemeral resources (protocol 6.7)",
            Capability::WriteOnly => "write-only arguments (protocol 6.8)",
            Capability::Identity => "resource identity, `import { identity }` (protocol 6.9)",
            Capability::ListResources => "list resources, `terraform query`",
            Capability::Actions => "actions, `action_trigger`, `apply -invoke` (protocol 6.10)",
        }
    }

    /// How far `tool` goes with this capability, and where that is said.
    pub fn support(self, tool: Tool) -> Support {
        match tool {
            Tool::Terraform => self.terraform(),
            Tool::OpenTofu => self.opentofu(),
            Tool::Pulumi => self.pulumi(),
        }
    }

    /// The first Terraform release that has this capability: every one has
    /// one.
    pub fn terraform_version(self) -> Version {
        self.terraform()
            .version()
            .expect("every capability is in some Terraform release")
    }

    fn terraform(self) -> Support {
        let since = |version, path, tag| Support::Since {
            product: "Terraform",
            version,
            source: at(TERRAFORM, path, tag),
        };
        match self {
            Capability::Protocol6 => since(
                (1, 0, 0),
                "docs/plugin-protocol/tfplugin6.0.proto",
                "v1.0.0",
            ),
            Capability::MovedBlock => since((1, 1, 0), "CHANGELOG.md:7", "v1.1.0"),
            Capability::TerraformData => since((1, 4, 0), "CHANGELOG.md:31", "v1.4.0"),
            Capability::ImportBlock => since((1, 5, 0), "CHANGELOG.md:13", "v1.5.0"),
            Capability::CheckBlock => since((1, 5, 0), "CHANGELOG.md:5", "v1.5.0"),
            Capability::SchemaOnce => since((1, 6, 0), "CHANGELOG.md:27", "v1.6.0"),
            Capability::ImportForEach => since((1, 7, 0), "CHANGELOG.md:51", "v1.7.0"),
            Capability::Functions => since((1, 8, 0), "CHANGELOG.md:8", "v1.8.0"),
            Capability::Ephemeral => since((1, 10, 0), "CHANGELOG.md:4", "v1.10.0"),
            Capability::WriteOnly => since((1, 11, 0), "CHANGELOG.md:6", "v1.11.0"),
            Capability::Identity => since((1, 12, 0), "CHANGELOG.md:29", "v1.12.0"),
            Capability::ListResources => since((1, 14, 0), "CHANGELOG.md:6", "v1.14.0"),
            Capability::Actions => since((1, 14, 0), "CHANGELOG.md:12", "v1.14.0"),
        }
    }

    fn opentofu(self) -> Support {
        let since = |version, path, tag| Support::Since {
            product: "OpenTofu",
            version,
            source: at(OPENTOFU, path, tag),
        };
        // OpenTofu 1.6.0, its first release, has what Terraform had by 1.6.
        let first = |path| since((1, 6, 0), path, "v1.6.0");
        match self {
            Capability::Protocol6 => first("internal/plugin6/grpc_provider.go"),
            Capability::MovedBlock => first("internal/configs/moved.go"),
            Capability::TerraformData => first("internal/builtin/providers/tf/resource_data.go"),
            Capability::ImportBlock => first("internal/configs/import.go"),
            Capability::CheckBlock => first("internal/configs/checks.go"),
            Capability::SchemaOnce => first("internal/plugin6/grpc_provider.go:88"),
            Capability::ImportForEach => since((1, 7, 0), "CHANGELOG.md:19", "v1.7.0"),
            Capability::Functions => since((1, 7, 0), "CHANGELOG.md:18", "v1.7.0"),
            Capability::Ephemeral | Capability::WriteOnly => {
                since((1, 11, 0), "CHANGELOG.md:46", "v1.11.0")
            }
            // Not in the 1.12.0 CHANGELOG.
            Capability::Identity => Support::Since {
                product: "OpenTofu",
                version: (1, 12, 0),
                source: noted(
                    OPENTOFU,
                    "internal/configs/import.go:73",
                    "v1.12.0",
                    "commit 19af81d28e, \"Implement resource identity support (#3671)\"",
                ),
            },
            // No `query` command (opentofu/opentofu#3787) and no `action`
            // block (opentofu/opentofu#3309) in the newest release.
            Capability::ListResources => Support::Missing {
                source: noted(
                    OPENTOFU,
                    "cmd/tofu/commands.go",
                    "v1.12.6",
                    "no `query` command; opentofu/opentofu#3787",
                ),
            },
            Capability::Actions => Support::Missing {
                source: noted(
                    OPENTOFU,
                    "internal/configs/parser_config.go",
                    "v1.12.6",
                    "no `action` block; opentofu/opentofu#3309",
                ),
            },
        }
    }

    fn pulumi(self) -> Support {
        let bridge = |version, path, tag| Support::Since {
            product: "pulumi-terraform-bridge",
            version,
            source: at(BRIDGE, path, tag),
        };
        match self {
            Capability::Protocol6 => Support::Since {
                product: "Pulumi",
                version: (3, 147, 0),
                source: at("", "https://www.pulumi.com/registry/packages/terraform-provider/", ""),
            },
            Capability::MovedBlock
            | Capability::TerraformData
            | Capability::ImportBlock
            | Capability::CheckBlock
            | Capability::ImportForEach
            | Capability::SchemaOnce => Support::NotApplicable {
                source: BRIDGE_IS_NO_HCL,
            },
            // Commit fab14997e (#3321): write-only fields pass validation.
            Capability::WriteOnly => bridge(
                (3, 120, 0),
                "dynamic/internal/shim/protov6/translate/tfplugin6.go:215",
                "v3.120.0",
            ),
            // Commit 68c725eca (#3510): functions of dynamically bridged
            // providers, as invokes.
            Capability::Functions => bridge(
                (3, 134, 0),
                "docs/guides/provider-functions.md",
                "v3.134.0",
            ),
            Capability::Identity => Support::Missing {
                source: noted(
                    BRIDGE,
                    "dynamic/internal/shim/protov6/provider.go:63",
                    "v3.136.0",
                    "no identity schemas (pulumi/pulumi-terraform-bridge#3106); `pulumi import` takes the import ID",
                ),
            },
            Capability::Ephemeral | Capability::ListResources | Capability::Actions => {
                Support::Missing {
                    source: BRIDGE_SCHEMAS,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A capability no Terraform has would make the E2E tests' minimum
    /// panic; the Terraform minimums only grow along [`Capability::ALL`].
    #[test]
    fn terraform_minimums_are_in_order() {
        let versions: Vec<Version> = Capability::ALL
            .iter()
            .map(|c| c.terraform_version())
            .collect();
        assert!(versions.windows(2).all(|w| w[0] <= w[1]), "{versions:?}");
    }

    /// Every answer names where it comes from.
    #[test]
    fn every_answer_has_a_source() {
        for capability in Capability::ALL {
            for tool in Tool::ALL {
                let source = capability.support(tool).source();
                assert!(!source.path.is_empty(), "{capability:?} on {tool:?}");
                assert_eq!(
                    source.repository.is_empty(),
                    source.at.is_empty(),
                    "{capability:?} on {tool:?}: a file needs its tag, a URL none"
                );
            }
        }
    }
}
