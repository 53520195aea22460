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

# What a node really has, e.g. fetched with `ssh node cat ...` into a file.
data "clusterproxy_artifact_settings" "node" {
  kind    = "systemd"
  content = file("${path.module}/http-proxy.conf")
}

output "in_sync" {
  value = data.clusterproxy_artifact_settings.node.fingerprint == clusterproxy_profile.corp.fingerprint
}

output "dropped" {
  value = data.clusterproxy_artifact_settings.node.dropped
}
