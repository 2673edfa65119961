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
# offline cleaners and a fault run each; TORTURE_SEEDS overrides.  Then
# seed 10 of 8 steps with TORTURE_HOST=all: two crashes, fsck -y -z and
# nilfs-undo on the crashed volume, nilfs-resize refusing to grow it before
# any write, nilfs-tune -U (TORTURE_HOST_SEEDS, TORTURE_HOST_STEPS override)
SEEDS=${TORTURE_SEEDS:-"1 2"}
STEPS=${TORTURE_STEPS:-10}
HOST_SEEDS=${TORTURE_HOST_SEEDS:-10}
HOST_STEPS=${TORTURE_HOST_STEPS:-8}
fail=0
one() {  # SEED STEPS [HOST]
	if TORTURE_HOST=${3:-} "$here/torture.sh" "$1" "$2" "$tmp/s$1"; then
		sed 's/^/  /' "$tmp/s$1/log"
	else
		rc=$?
		[ $rc = 77 ] && { rm -rf "$tmp"; exit 77; }
		fail=$((fail + 1))
		sed 's/^/  /' "$tmp/s$1/log"
		# keep the failing seed's volume for the reproducer
		keep=${TMPDIR:-/tmp}/t-torture-seed$1.$$
		mv "$tmp/s$1" "$keep" && echo "kept: $keep"
	fi
}
for seed in $SEEDS; do
	one "$seed" "$STEPS"
done
for seed in $HOST_SEEDS; do
	one "$seed" "$HOST_STEPS" all
done
rm -rf "$tmp"
[ $fail = 0 ] && echo "PASS: $0 (seeds $SEEDS, $STEPS steps each; $HOST_SEEDS, $HOST_STEPS steps, TORTURE_HOST=all)"
[ $fail = 0 ]
