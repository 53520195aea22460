variable "proxy_password" {
  type      = string
  sensitive = true
}

# A build host's Docker Engine (>= 23.0): the daemon's own proxies (pulls,
# pushes, registry logins), merged into the rest of its daemon.json.
data "clusterproxy_docker_daemon" "build" {
  http_proxy  = "http://proxy.corp.example:3128"
  https_proxy = "http://proxy.corp.example:3128"
  username    = "svc-docker"
  password    = var.proxy_password

  installation = ["registry.corp.example", ".corp.example", "10.0.0.0/8"]

  daemon_settings = jsonencode({
    "log-driver"   = "json-file"
    "log-opts"     = { "max-size" = "10m", "max-file" = "3" }
    "live-restore" = true
  })
}

# Write to /etc/docker/daemon.json and restart dockerd.
output "daemon_json" {
  value     = data.clusterproxy_docker_daemon.build.daemon_json
  sensitive = true
}

output "daemon_json_redacted" {
  value = data.clusterproxy_docker_daemon.build.daemon_json_redacted
}
