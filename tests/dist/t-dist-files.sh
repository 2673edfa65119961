#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-dist-files.sh - the release tarball holds every file of the checkout
# (sources, man pages, test data, benchmarks, completions), so a build and
# make check from the tarball work as from git.  It fills a distdir with
# make and compares it with git ls-files; outside a git checkout (in a
# tarball, under make distcheck) it skips.
set -u
top_builddir=${top_builddir:-.}
. "$(dirname "$0")/checkout.sh"

# files of the checkout a tarball needs not have: git and CI plumbing
not_shipped='^(\.gitignore|.*/\.gitignore|\.ci/.*|m4/\.keep)$'

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-dist-files.XXXXXX") || exit 99
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
d=$tmp/nilfsprogs
# a make of its own, not the jobserver of the make check that runs us
if ! (unset MAKEFLAGS MFLAGS; cd "$top_builddir" &&
	make -s distdir distdir="$d" top_distdir="$d") >"$tmp/make.log" 2>&1; then
	echo "FAIL: make distdir failed:"
	tail -n 20 "$tmp/make.log"
	exit 1
fi
git -C "$src" ls-files | grep -Ev "$not_shipped" | sort >"$tmp/git"
(cd "$d" && find . -type f -o -type l) | sed 's|^\./||' | sort >"$tmp/shipped"
comm -23 "$tmp/git" "$tmp/shipped" >"$tmp/missing"
n=$(wc -l <"$tmp/git")
if [ -s "$tmp/missing" ]; then
	echo "FAIL: in git but not in the tarball (add them to EXTRA_DIST):"
	sed 's/^/  /' "$tmp/missing"
	exit 1
fi
echo "ok: all $n files of the checkout are in the tarball"
