output "merged" {
  # ["registry.corp.example", "10.0.0.0/8", "fd00::/8"]: the second spelling of
  # the registry is a duplicate, b.registry.corp.example and 10.1.0.0/16 are
  # covered for both clients.
  value = provider::clusterproxy::merge_no_proxy(
    [
      ["Registry.Corp.Example", "10.0.0.0/8"],
      ["registry.corp.example.", "b.registry.corp.example", "10.1.0.0/16", "fd00::/8"],
    ],
    ["go", "curl"],
  )
}
