variable "proxy_password" {
  type      = string
  sensitive = true
}

# The proxy settings of the whole installation, defined once.
resource "clusterproxy_profile" "corp" {
  name       = "corp"
  http_proxy = "http://proxy.corp.example:3128"
  username   = "svc-k8s"
  password   = var.proxy_password
  no_proxy   = ["registry.corp.example", ".corp.example", "10.96.0.0/12"]
}

# Every renderer takes the profile's settings, plus what is specific to the
# cluster. The settings never carry the password (the profile keeps it in its
# one sensitive attribute): merge it in where the proxy needs one.
# Terraform reads a data source that references a resource with pending changes
# at apply time: in the plan that creates or changes the profile, the rendered
# content shows as (known after apply). On Terraform >= 1.8 use the render
# function instead (examples/functions/render), which is known in that plan;
# before 1.8, give the renderers the profile's fields directly (http_proxy,
# installation...) to keep every plan fully known.
data "clusterproxy_systemd_dropin" "prod" {
  profile   = merge(clusterproxy_profile.corp.settings, { password = var.proxy_password })
  pod_cidrs = ["192.168.0.0/16"]
}

output "revision" {
  # Moves only when the effective settings change: use it in
  # `replace_triggered_by` to roll node pools.
  value = clusterproxy_profile.corp.revision
}

output "containerd_dropin" {
  value = data.clusterproxy_systemd_dropin.prod.dropins_redacted[0].content
}
