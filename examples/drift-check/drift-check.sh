#!/bin/sh
# A nightly drift check that is right on every Terraform version (1.0 to 1.15).
#
#   exit 0  nothing changed outside Terraform
#   exit 2  drift: one "drifted: <address> (<action>)" line per resource on stdout,
#           and one "drifted: ..." line per cluster a check block reports
#   exit 1  Terraform failed (its errors on stderr)
#
# Run in examples/fleet-lifecycle's folder (or any configuration with a
# `check` block whose failed assertion's message has "drifted: ..." lines,
# Terraform >= 1.5), it also names each adopted cluster whose artifact no
# longer says what its profile says: the check compares the fingerprint
# clusterproxy_fleet reads from the artifact with the profile's, and the
# failed assertion is a warning of `plan -refresh-only -json`. Passwords are
# not compared (none is given to the run, none is in the state).
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

if ! drift=$(jq -r 'select(.type == "resource_drift" and .change.action != "move") | .change | "drifted: \(.resource.addr) (\(.action))"' "$log") ||
  ! moved=$(jq -r 'select(.type == "diagnostic" and .diagnostic.severity == "warning" and .diagnostic.summary == "Check block assertion failed") | .diagnostic.detail | split("\n")[] | select(startswith("drifted: "))' "$log"); then
  echo "drift-check: cannot read the output of terraform plan -refresh-only -json" >&2
  exit 1
fi
drift=$(printf '%s\n%s' "$drift" "$moved" | sed '/^$/d')
if [ -n "$drift" ]; then
  printf '%s\n' "$drift"
  exit 2
fi
