#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# distcheck.sh - the release check, too slow for make check: make distcheck
# (the tarball unpacked read-only, built out of tree, make check there with
# the qemu tests skipped, install, uninstall, and a tarball made again),
# timed.  Run it from a configured build tree: bench/distcheck.sh [-jN]
set -u
top_builddir=${top_builddir:-.}
[ -f "$top_builddir/Makefile" ] || {
	echo "distcheck.sh: run it in a configured build tree" >&2; exit 2; }
start=$(date +%s)
cd "$top_builddir" && nice make "$@" distcheck
rc=$?
echo "distcheck: exit $rc after $(($(date +%s) - start)) s"
exit "$rc"
