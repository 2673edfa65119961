#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The byte-order contract, checked by sparse (Debian's sparse package).
# The on-disk integers are nlfs_le16_t, nlfs_le32_t and nlfs_le64_t
# (<nlfs/endian.h>): to sparse each is a restricted (bitwise) type that only
# nlfs_le16/32/64() turn into a number and nlfs_cpu_to_le16/32/64() back,
# as the kernel's __le64.  Every C file of lib/, common/, sbin/, bin/,
# tests/ and bench/ is checked; a warning about a restricted type (a field
# read or written without its conversion, a conversion applied to a
# number that is already in host order) fails, and so does any error, as
# sparse checks nothing further in a file once it has one.  The library's
# public getters return host-order types of their own (struct nlfs_cpinfo,
# nlfs_cphead, nlfs_suinfo, nlfs_suhead, nlfs_datinfo), so a caller
# converts nothing.  Skips (77) without sparse.
set -u
src=$(cd "${top_srcdir:-.}" && pwd) || exit 1
command -v sparse >/dev/null || { echo "skip: no sparse (apt-get install sparse)"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT

# the build's flags, and the definitions some programs get from their
# Makemodule.am (any value will do for a check)
flags="-std=c11 -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64 -I$src/include -I$src/common"
flags="$flags -I$src/sbin/fsck -I$src/tests/unit"
flags="$flags -DPACKAGE_VERSION=\"0\" -DSYSCONFDIR=\"/etc\" -DROOT_SBINDIR=\"/sbin\""
skip=
for pc in blkid mount smartcols uuid zlib fuse3 check; do
	if pkg-config --exists "$pc" 2>/dev/null; then
		flags="$flags $(pkg-config --cflags "$pc")"
	else   # what needs it is not built either
		case $pc in
		fuse3) skip="$skip bin/fuse/" ;;
		check) skip="$skip tests/unit/check_ tests/unit/testimg" ;;
		esac
	fi
done

# first a line that mixes them up must be seen, or this check checks nothing
cat >"$tmp/canary.c" <<'EOF'
#include <nlfs/ondisk.h>
uint64_t canary(const struct nlfs_checkpoint *cp);
uint64_t canary(const struct nlfs_checkpoint *cp) { return cp->cp_cno; }
EOF
# shellcheck disable=SC2086
if ! sparse $flags "$tmp/canary.c" 2>&1 | grep -q 'restricted nlfs_le64_t'; then
	echo "FAIL: sparse does not see cp_cno's type as restricted (NLFS_BITWISE, <nlfs/endian.h>)"
	exit 1
fi

n=0
for f in $(cd "$src" && find lib common sbin bin tests bench -name '*.c' | LC_ALL=C sort); do
	for s in $skip; do
		case $f in "$s"*) continue 2 ;; esac
	done
	# shellcheck disable=SC2086
	(cd "$src" && sparse $flags "$f") >>"$tmp/out" 2>&1
	n=$((n + 1))
done
# a message starts "FILE:LINE:COL: warning: " (or error); its
# "expected"/"got" lines follow, indented after the position
if awk '
/: (warning|error): / {
	show = / error: / || /restricted|different base types|invalid assignment|bitwise/
	if (show) bad++
}
!/: (warning|error): / && !/:[0-9]+:[0-9]+:    / { show = 0 }
show { print }
END { exit bad ? 0 : 1 }' "$tmp/out"; then
	echo "FAIL: sparse: byte-order or type errors above (in $n files)"
	exit 1
fi
echo "ok: sparse: $n files, no byte-order or type warnings"
