variable "proxy_password" {
  type      = string
  sensitive = true
}

# The one pattern for Terraform >= 1.8 (OpenTofu >= 1.7): the profile holds the
# settings, and render() turns them into what each platform reads. Functions
# run while Terraform plans, so in the plan that changes the profile every
# render is already known and every platform rule already checked; a data
# source that references the profile would only be read at apply.
resource "clusterproxy_profile" "corp" {
  name       = "corp"
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-k8s"
  password   = var.proxy_password
  no_proxy   = ["registry.corp.example", ".corp.example"]
}

locals {
  # The profile keeps the password in its one sensitive attribute: its
  # settings carry none, so merge it in where the renders need it.
  settings = merge(clusterproxy_profile.corp.settings, { password = var.proxy_password })
  # The result holds the credentials, so Terraform marks all of it sensitive.
  dropins = provider::clusterproxy::render("systemd_dropin", local.settings, {
    pod_cidrs     = ["192.168.0.0/16"]
    service_cidrs = ["10.96.0.0/12"]
  })
  kubeadm = provider::clusterproxy::render("capi_kubeadm", local.settings, {
    pod_cidrs = ["192.168.0.0/16"]
  })
}

# The redacted twins carry no secret: show them to reviewers.
output "containerd_dropin" {
  value = nonsensitive(local.dropins.dropins_redacted[0].content)
}

output "kubeadm_yaml" {
  value = nonsensitive(local.kubeadm.yaml_redacted)
}

output "revision" {
  # Roll node pools with replace_triggered_by on this, not on the render.
  value = clusterproxy_profile.corp.revision
}
