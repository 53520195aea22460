# In a .tfquery.hcl file; `terraform query` lists, and
# `terraform query -generate-config-out=fleet.tf` writes a resource and an
# `import { identity = ... }` block per cluster.
list "clusterproxy_profile" "fleet" {
  provider = clusterproxy

  config {
    # Relative to the working directory: import from the same one.
    directory = "clusters"
    exclude   = ["archive/**"]

    # Drop-ins named `proxy` under nodes/ hold no section to tell them by.
    kinds = {
      "nodes/*/proxy" = "systemd"
    }

    # What the artifacts do not say about their cluster, in the import ID's syntax.
    facts = {
      "prod/**" = "pod_cidrs=10.244.0.0/16;service_cidrs=10.96.0.0/12;cloud=aws"
    }
  }
}
