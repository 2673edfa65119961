#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-fsck-man.sh - fsck.nilfs2(8)'s PROBLEMS section must be what the problem
# table (sbin/fsck/problem.h) says: every code, its severity and pass, and
# whether -p and -y repair it and how.  A table edit without the man page
# regenerated fails here.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
prog=$top_builddir/tests/fsck/problems-man
page=$top_srcdir/man8/fsck.nilfs2.8
[ -x "$prog" ] || { echo "FAIL: $prog not built"; exit 1; }
"$prog" --check "$page"
rc=$?
if [ "$rc" -eq 0 ]; then
	echo "ok: the PROBLEMS section of fsck.nilfs2(8) matches the problem table"
	exit 0
fi
echo "FAIL: the PROBLEMS section of $page is not what the problem table says"
[ "$rc" -eq 1 ] && {
	tmp=$(mktemp "${TMPDIR:-/tmp}/t-fsck-man.XXXXXX") || exit 1
	cp "$page" "$tmp" && "$prog" --update "$tmp" && diff -u "$page" "$tmp" | head -n 40
	rm -f "$tmp"
}
echo "regenerate it, at the top of the build tree, and review the diff:"
echo "  make tests/fsck/problems-man && tests/fsck/problems-man --update $page"
exit 1
