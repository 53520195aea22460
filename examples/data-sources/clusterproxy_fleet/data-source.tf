# The clusters whose artifacts a directory holds, keyed by
# `<folder>/<cluster name>`: here this folder, whose one artifact is a node's
# drop-in (`http-proxy.conf`). Point `directory` at a GitOps repository's
# folder of cluster manifests; examples/fleet-lifecycle creates and imports
# one clusterproxy_profile per cluster.
data "clusterproxy_fleet" "this" {
  directory = path.module
  include   = ["*.conf"]
  kinds = {
    "*.conf" = "systemd"
  }
}

# Each cluster's import ID, and whether its proxy takes a password (never
# the password itself).
output "import_ids" {
  value = { for key, cluster in data.clusterproxy_fleet.this.clusters : key => cluster.import_id }
}

output "password_required" {
  value = { for key, cluster in data.clusterproxy_fleet.this.clusters : key => cluster.password_required }
}

# The fingerprint is the one clusterproxy_profile and
# clusterproxy_artifact_settings compute: a drift check compares them.
data "clusterproxy_artifact_settings" "node" {
  kind    = "systemd"
  content = file("${path.module}/http-proxy.conf")
}

output "same_fingerprint" {
  value = one(values(data.clusterproxy_fleet.this.clusters)).fingerprint == data.clusterproxy_artifact_settings.node.fingerprint
}
