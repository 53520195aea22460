variable "proxy_password" {
  type      = string
  sensitive = true
}

resource "clusterproxy_profile" "corp" {
  name        = "corp"
  http_proxy  = "http://proxy.corp.example:3128"
  https_proxy = "http://proxy.corp.example:3128"
  username    = "svc-k8s"
  password    = var.proxy_password
  no_proxy    = ["registry.corp.example", ".corp.example", "10.96.0.0/12"]
}

# What a node really has, e.g. fetched with `ssh node cat ...` into a file,
# compared with what the renderers write from the profile for this cluster:
# give the same cluster inputs as the renderer (here the pod CIDR), so that
# the entries the renderer adds never count as drift.
data "clusterproxy_artifact_settings" "node" {
  kind      = "systemd"
  content   = file("${path.module}/http-proxy.conf")
  profile   = merge(clusterproxy_profile.corp.settings, { password = var.proxy_password })
  pod_cidrs = ["192.168.0.0/16"]
}

output "in_sync" {
  value = data.clusterproxy_artifact_settings.node.in_sync
}

# One line per field that differs, e.g. "password differs." (never the value).
output "differences" {
  value = data.clusterproxy_artifact_settings.node.differences
}

output "dropped" {
  value = data.clusterproxy_artifact_settings.node.dropped
}
