# The clusters whose artifacts a directory holds, keyed by
# `<folder>/<cluster name>`. Here the example's own folder, which holds no
# artifact (an empty map); point `directory` at a GitOps repository's folder
# of cluster manifests, and see examples/fleet-lifecycle for the profiles and
# imports of a whole fleet.
data "clusterproxy_fleet" "this" {
  directory = path.module
  exclude   = ["*.tf"]
  facts = {
    "prod/**" = "pod_cidrs=10.244.0.0/16;service_cidrs=10.96.0.0/12;cloud=aws"
  }
}

# Each cluster's import ID and whether its proxy takes a password (never
# the password itself).
output "import_ids" {
  value = { for key, cluster in data.clusterproxy_fleet.this.clusters : key => cluster.import_id }
}

output "password_required" {
  value = [for key, cluster in data.clusterproxy_fleet.this.clusters : key if cluster.password_required]
}
