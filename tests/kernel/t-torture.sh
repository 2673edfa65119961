#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-torture.sh - a CI-sized run of the randomized torture test (torture.sh):
# a few seeds of a few steps each, every writer of ours and the kernel's on
# one volume per seed, the invariants checked after every step.  Longer
# runs: bench/torture.sh SEEDS=N.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).
here=$(cd "$(dirname "$0")" && pwd)
"$here/guest.sh" require || exit
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-torture.XXXXXX") || exit 1
# seeds chosen to cover a crash, fsck -y's roll-forward, the online and
# offline cleaners and a fault run each; TORTURE_SEEDS overrides
SEEDS=${TORTURE_SEEDS:-"1 2"}
STEPS=${TORTURE_STEPS:-10}
fail=0
for seed in $SEEDS; do
	if "$here/torture.sh" "$seed" "$STEPS" "$tmp/s$seed"; then
		sed 's/^/  /' "$tmp/s$seed/log"
	else
		rc=$?
		[ $rc = 77 ] && { rm -rf "$tmp"; exit 77; }
		fail=$((fail + 1))
		sed 's/^/  /' "$tmp/s$seed/log"
		# keep the failing seed's volume for the reproducer
		keep=${TMPDIR:-/tmp}/t-torture-seed$seed.$$
		mv "$tmp/s$seed" "$keep" && echo "kept: $keep"
	fi
done
rm -rf "$tmp"
[ $fail = 0 ] && echo "PASS: $0 (seeds $SEEDS, $STEPS steps each)"
[ $fail = 0 ]
