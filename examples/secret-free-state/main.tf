# Terraform >= 1.11. The proxy password is an ephemeral value: it reaches the
# profile and the Secret through write-only arguments and lands in no state
# and no plan. Ephemeral without `sensitive`: on Terraform 1.11 a sensitive
# value in `password_wo` makes `plan -refresh-only -detailed-exitcode` exit 2
# at random (see the guide); Terraform shows an ephemeral value nowhere anyway.
# Check for drift with examples/drift-check/drift-check.sh, which reads the
# `resource_drift` messages of `plan -refresh-only -json`: on Terraform 1.15
# that exit code is 2 for this configuration (it has a data source) even
# when nothing drifted (hashicorp/terraform#37406).
variable "proxy_password" {
  type      = string
  ephemeral = true
}

resource "clusterproxy_profile" "corp" {
  name                = "corp"
  http_proxy          = "http://proxy.corp.example:3128"
  username            = "svc-apps"
  password_wo         = var.proxy_password
  password_wo_version = 1 # bump on every rotation
  no_proxy            = ["registry.corp.example", ".corp.example"]
}

locals {
  cluster = {
    pod_cidrs     = ["192.168.0.0/16"]
    service_cidrs = ["10.96.0.0/12"]
  }
  secret_ref = {
    credentials_secret           = "proxy-credentials"
    credentials_secret_namespace = "apps"
  }

  # Ephemeral, because the password is: only write-only arguments,
  # provisioners and other ephemeral contexts can take it.
  with_password = provider::clusterproxy::render(
    "pod_env",
    merge(clusterproxy_profile.corp.settings, { password = var.proxy_password }),
    merge(local.cluster, local.secret_ref),
  )
}

# Without the password: the env reads the Secret and holds no credential, so
# it can go into pod specs (and the state). Fed the profile's proxy URLs, not
# its settings: nothing here needs the credentials.
data "clusterproxy_pod_env" "apps" {
  http_proxy         = clusterproxy_profile.corp.settings.http_proxy
  https_proxy        = clusterproxy_profile.corp.settings.https_proxy
  installation       = clusterproxy_profile.corp.settings.no_proxy
  pod_cidrs          = local.cluster.pod_cidrs
  service_cidrs      = local.cluster.service_cidrs
  credentials_secret = local.secret_ref.credentials_secret
}

# Stands in for kubernetes_secret_v1.data_wo (see the guide): a write-only
# sink for the Secret's data, re-sent when the profile's revision moves.
resource "terraform_data" "proxy_credentials" {
  triggers_replace = clusterproxy_profile.corp.revision

  provisioner "local-exec" {
    command = "printf '%s' \"$SECRET_DATA\" > proxy-credentials.json"
    environment = {
      SECRET_DATA = jsonencode(local.with_password.credentials_secret_data)
    }
  }
}

output "env_secret_refs" {
  value = data.clusterproxy_pod_env.apps.env_secret_refs
}

output "env_yaml" {
  value = data.clusterproxy_pod_env.apps.env_yaml_redacted
}

output "revision" {
  value = clusterproxy_profile.corp.revision
}
