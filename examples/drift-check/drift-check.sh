#!/bin/sh
# A nightly drift check that is right on every Terraform version (1.0 to 1.15).
#
#   exit 0  nothing changed outside Terraform
#   exit 2  drift: one "drifted: <address> (<action>)" line per resource on stdout
#   exit 1  Terraform failed (its errors on stderr)
#
# It lists the `resource_drift` messages of `terraform plan -refresh-only -json`
# that update or delete a resource (a `moved` block's pending move, action
# "move", changed nothing outside Terraform) instead of trusting
# `terraform plan -refresh-only -detailed-exitcode`:
# Terraform 1.15.x exits 2 ("No changes") there for every configuration with a
# data source (upstream commit 659d5e2218, first in v1.15.0; see
# https://github.com/hashicorp/terraform/issues/37406).
#
# Usage: drift-check.sh [plan options, e.g. -var-file=prod.tfvars]
# Needs jq. TERRAFORM names the Terraform binary (default: terraform on PATH).
set -eu

log=$(mktemp)
trap 'rm -f "$log"' EXIT

status=0
"${TERRAFORM:-terraform}" plan -refresh-only -json -input=false "$@" >"$log" || status=$?
if [ "$status" -ne 0 ]; then
  jq -r 'select(.type == "diagnostic") | .diagnostic | "\(.severity): \(.summary)\n\(.detail)"' \
    "$log" >&2 2>/dev/null || cat "$log" >&2
  echo "drift-check: terraform plan -refresh-only failed (exit $status)" >&2
  exit 1
fi

if ! drift=$(jq -r 'select(.type == "resource_drift" and .change.action != "move") | .change | "drifted: \(.resource.addr) (\(.action))"' "$log"); then
  echo "drift-check: cannot read the output of terraform plan -refresh-only -json" >&2
  exit 1
fi
if [ -n "$drift" ]; then
  printf '%s\n' "$drift"
  exit 2
fi
