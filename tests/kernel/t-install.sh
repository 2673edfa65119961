#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-install.sh - "make install" as configured (by default: the mount helpers
# in /sbin, the rest under /usr/local) gives a system on which mount(8)
# runs our mount.nilfs2 and everything else is found in PATH: the build is
# installed with DESTDIR into a scratch tree, which the guest gets in
# nilfs-tools' place (installed.sh says what is checked there).  Helpers
# configured into a directory mount(8) does not search skip the test.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$here/../..}

"$here/guest.sh" require || exit
. "$here/installed.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-install.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT

# a make of its own, not the jobserver of the make check that runs us
if ! (unset MAKEFLAGS MFLAGS; cd "$top" && make -s install DESTDIR="$tmp/root") >"$tmp/install.log" 2>&1; then
	echo "FAIL: make install DESTDIR=... failed:"
	tail -n 20 "$tmp/install.log"
	exit 1
fi
helper=$(cd "$tmp/root" && find . -name mount.nilfs2 -type f -perm -u+x | sed 's|^\.||')
case $helper in
/sbin/mount.nilfs2 | /sbin/fs.d/mount.nilfs2 | /sbin/fs/mount.nilfs2) ;;
*)
	echo "SKIP: mount.nilfs2 is configured into ${helper%/*}, where mount(8) does not look"
	exit 77
	;;
esac
check_installed "$tmp/root" "$tmp" || exit 1
echo "PASS: $0"
