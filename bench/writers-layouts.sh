#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/writers-layouts.sh: the whole matrix of tests/kernel/t-writers-layouts.sh
# (LAYOUTS=full): every offline writer (nilfs-resize grow and shrink,
# nilfs-tune, mkcp/chcp/rmcp, the offline cleaner, fsck.nilfs2 -y) on every
# layout (a small tree; a tree past the first sufile block's segments;
# checkpoints past the first cpfile block; a tree past the first DAT
# group; a volume the kernel wrote) of five geometries (1 KiB blocks with
# 16- and 64-block segments, 2 KiB with 32, 4 KiB with 16 and 64), each
# result filled by the kernel to about 80 % and read back after a remount;
# GEOMETRIES="1024:16 ..." and WRITERS="grow ..." run a part.
# Then, as bench/writers-layouts.sh's own part, kernel-rich (tests/fsck/
# images) with its two superblocks swapped so that the secondary is the
# newer, grown offline and filled the same way.  BATCH=N volumes per
# guest (default 8).  Prints the layouts run, the failures, and the time.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
export top_builddir="$top"
start=$(date +%s)
rc=0
LAYOUTS=full sh "$top/tests/kernel/t-writers-layouts.sh" || rc=1

# the swapped kernel-rich volume
guest=$top/tests/kernel/guest.sh
FILL_TMP=$(mktemp -d "${TMPDIR:-/tmp}/writers-layouts.XXXXXX") || exit 1
trap 'rm -rf "$FILL_TMP"' EXIT
. "$top/tests/kernel/fill.sh"
img=$FILL_TMP/rich.img
xz -dc "$top/tests/fsck/images/kernel-rich.img.xz" >"$img" || exit 1
sb2=$(($(stat -c %s "$img") / 4096 * 4096 - 4096))
dd if="$img" of="$FILL_TMP/sb1" bs=1024 skip=1 count=1 2>/dev/null
dd if="$img" of="$FILL_TMP/sb2" bs=1 skip=$sb2 count=1024 2>/dev/null
dd if="$FILL_TMP/sb2" of="$img" bs=1024 seek=1 conv=notrunc 2>/dev/null
dd if="$FILL_TMP/sb1" of="$img" bs=1 seek=$sb2 conv=notrunc 2>/dev/null
sed -n 's/^H //p' "$top/tests/fsck/images/kernel-rich.manifest" >"$FILL_TMP/sums"
fill_expect_file "$img" "$FILL_TMP/sums"
if "$top/nilfs-resize" -y "$img" 96M >"$FILL_TMP/out" 2>&1 &&
	fill_run "$FILL_TMP/fill.out" "$img"; then
	echo "kernel-rich, secondary newer, grown offline: filled and read back"
else
	cat "$FILL_TMP/out"
	echo "FAIL: kernel-rich, secondary newer, grown offline"
	rc=1
fi
echo "elapsed $(($(date +%s) - start)) s, load $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
