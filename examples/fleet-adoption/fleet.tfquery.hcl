# One result per cluster whose artifacts ./clusters holds.
list "clusterproxy_profile" "fleet" {
  provider = clusterproxy

  config {
    directory = "clusters"
    # The drop-ins of the edge nodes name no cluster: tell the import the
    # node network, so that it is left out of the installation-wide list.
    facts = {
      "nodes/**" = "node_cidrs=192.168.10.0/24"
    }
  }
}
