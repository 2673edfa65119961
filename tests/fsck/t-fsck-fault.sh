#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# fsck.nilfs2 -y cut by power loss at every write (NILFS_TEST_FAULT, see
# tests/kernel/README.md): on damaged volumes whose repair rewrites link
# counts and a whole block map, each cut volume is the damaged one (the
# check reports exactly what it reported before) or the repaired one (a
# check calls it clean), and a second -y then repairs it all the way.
# An orphan (dir_orphan_rmdir) checks clean before its release too, with a
# warning: there a cut must not leave its inode freed with its blocks'
# DAT entries still live, which a check calls leaked.
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
fsck=$(cd "$top_builddir" && pwd)/fsck.nilfs2
corrupt=$(cd "$top_builddir" && pwd)/tests/fsck/corrupt
command -v xz >/dev/null || { echo "SKIP: xz is not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-fsck-fault.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
xz -dc "$top_srcdir/tests/fsck/images/kernel-1k.img.xz" >"$tmp/base" || exit 1
xz -dc "$top_srcdir/tests/fsck/images/kernel-rich.img.xz" >"$tmp/rich" || exit 1

# the report of a check, the image named IMG, without the summary lines
# that count logs and checkpoints and without warnings: a cut after the
# repair's logs and before its superblocks leaves logs the kernel ignores
# (a warning), on a volume that is otherwise the damaged one
report() {
	"$fsck" -fn "$1" 2>&1 | sed "s|$1|IMG|" |
		grep -v -e '^Pass' -e 'logs in' -e 'error(s) found' -e ': warning: '
}

# CASE:BASE; an orphan's release ends its blocks' DAT entries in the same
# construction that frees the inode
for cb in ino_links:base bmap_key_order:base dir_orphan_rmdir:rich; do
	case=${cb%:*}
	cp --sparse=always "$tmp/${cb#*:}" "$tmp/bad"
	"$corrupt" "$case" "$tmp/bad" || { bad "$case: corrupt"; continue; }
	report "$tmp/bad" >"$tmp/before"
	cp --sparse=always "$tmp/bad" "$tmp/count"
	NILFS_TEST_FAULT=count "$fsck" -y "$tmp/count" >"$tmp/run" 2>&1
	n=$(sed -n 's/^nilfs-test-fault: \([0-9]*\) writes.*/\1/p' "$tmp/run")
	[ "${n:-0}" -gt 0 ] || { bad "$case: no writes counted"; cat "$tmp/run"; continue; }
	old=0 new=0
	for mode in crash tear; do
		k=0
		while [ "$k" -lt "$n" ]; do
			cp --sparse=always "$tmp/bad" "$tmp/cut"
			NILFS_TEST_FAULT=$mode:$k "$fsck" -y "$tmp/cut" >"$tmp/run" 2>&1
			if "$fsck" -fn "$tmp/cut" >/dev/null 2>&1; then
				new=$((new + 1))
			elif report "$tmp/cut" | cmp -s - "$tmp/before"; then
				old=$((old + 1))
			else
				bad "$case $mode:$k of $n: neither the damaged volume nor the repaired one:"
				report "$tmp/cut" | diff "$tmp/before" - | head -n 8
			fi
			"$fsck" -y "$tmp/cut" >/dev/null 2>&1
			"$fsck" -fn "$tmp/cut" >/dev/null 2>&1 || bad "$case $mode:$k: a second -y does not repair it"
			k=$((k + 1))
		done
	done
	echo "ok: $case: fsck -y cut at each of $n writes, torn and lost: $old damaged, $new repaired"
done
exit $fail
