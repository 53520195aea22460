# Terraform >= 1.12: import the profile by its identity, the source it was
# imported from, instead of an import ID. It reads the same file, so it gives
# the same profile and first plan as the ID
# "corp=systemd:file:/etc/systemd/system/containerd.service.d/http-proxy.conf".
# A profile imported by ID shows its identity in `terraform show -json`; one
# created in configuration (or imported from `inline:` content, which no
# identity holds) has the name only and is imported by ID.
import {
  to = clusterproxy_profile.corp
  identity = {
    name = "corp"
    kind = "systemd"
    path = "/etc/systemd/system/containerd.service.d/http-proxy.conf"
    # The import ID's cluster facts, if it gave any, e.g.
    # facts = "service_cidrs=10.96.0.0/12;cloud=aws"
  }
}
