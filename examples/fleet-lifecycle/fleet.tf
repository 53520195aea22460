# A fleet that keeps changing: one clusterproxy_profile per cluster whose
# artifacts var.directory holds, imported from its artifact by import.tf
# (by identity, Terraform >= 1.12 or OpenTofu >= 1.12; by ID in ./by-id,
# Terraform and OpenTofu 1.11). A new artifact plans exactly one import, a removed one exactly
# its destroy; the other clusters stay as they are. The check block below is
# what examples/drift-check/drift-check.sh reports a cluster's move from.
terraform {
  required_providers {
    clusterproxy = {
      source = "registry.terraform.io/clusterproxy/clusterproxy"
    }
  }
}

provider "clusterproxy" {}

variable "directory" {
  type        = string
  description = "The directory of the fleet's artifacts, relative to this working directory."
  default     = "clusters"
}

variable "passwords" {
  type        = map(string)
  description = "Proxy passwords by cluster key (TF_VAR_passwords='{\"tkg/tkg-prod/tkg-prod\" = \"...\"}'), decoded; none is needed to plan: a cluster imported with a password keeps it until one is given."
  default     = {}
  ephemeral   = true
}

variable "password_versions" {
  type        = map(number)
  description = "The version of each password given in var.passwords; change it with the password to roll it out."
  default     = {}
}

data "clusterproxy_fleet" "this" {
  directory = var.directory
}

# The clusters, through a local: a `for_each` that reads the data source
# directly makes Terraform re-read all of it for every instance, quadratic in
# the fleet's size (docs/dev/performance.md).
locals {
  clusters = data.clusterproxy_fleet.this.clusters
}

resource "clusterproxy_profile" "fleet" {
  for_each = local.clusters

  name                = each.value.name
  http_proxy          = each.value.http_proxy
  https_proxy         = each.value.https_proxy
  username            = each.value.username
  no_proxy            = each.value.no_proxy
  trusted_ca          = each.value.trusted_ca
  password_wo         = lookup(var.passwords, each.key, null)
  password_wo_version = lookup(var.password_versions, each.key, null)
}

# The clusters whose artifact no longer says what their profile says
# (URLs, NO_PROXY set, CA, user): in `terraform plan -refresh-only` each
# profile is what was applied, so their fingerprints differ. A cluster not
# imported yet is no drift (try). Passwords are not compared.
locals {
  moved = [
    for key, cluster in local.clusters : key
    if try(clusterproxy_profile.fleet[key].fingerprint != cluster.fingerprint, false)
  ]
}

check "fleet_drift" {
  assert {
    condition     = length(local.moved) == 0
    error_message = join("\n", [for key in local.moved : "drifted: cluster ${key} (its artifact no longer says what its profile says; password not compared)"])
  }
}
