#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/read.sh: time of `dump.nilfs2 extract /` of a kernel-written tree of
# at least 1 GiB, against reading the image file sequentially once (the
# physical floor), in the same run.  Prints the ratio.
#
# The tree is written by the real kernel in the qemu guest (tests/kernel):
# SIZE_MIB (default 1100) MiB in 4 MiB files spread over directories, plus a
# few thousand small files.  Page caches are dropped before each timing
# when we may (root); otherwise both timings run warm.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
dump=${DUMP:-$top/dump.nilfs2}
guest=$top/tests/kernel/guest.sh
SIZE_MIB=${SIZE_MIB:-1100}
work=$(mktemp -d "${TMPDIR:-/var/tmp}/nilfs-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

[ -x "$dump" ] || { echo "build first: $dump missing" >&2; exit 1; }
"$guest" check-deps >/dev/null || { echo "kernel harness dependencies missing" >&2; exit 1; }
mkfs=$(PATH=/usr/sbin:/sbin:$PATH command -v mkfs.nilfs2)

img=$work/tree.img
truncate -s $((SIZE_MIB * 2))M "$img"
"$mkfs" -q -f "$img"
nbig=$((SIZE_MIB / 4))
cat >"$work/script" <<GUEST
mount -t nilfs2 /dev/vda /mnt || exit 1
dd if=/dev/urandom of=/tmp/seed bs=1M count=4 2>/dev/null
i=0
while [ \$i -lt $nbig ]; do
	d=/mnt/big/d\$((i % 16)); mkdir -p \$d
	{ echo \$i; cat /tmp/seed; } > \$d/f\$i
	i=\$((i + 1))
done
i=0
while [ \$i -lt 3000 ]; do
	d=/mnt/small/d\$((i % 30)); mkdir -p \$d
	echo "small file \$i" > \$d/s\$i
	i=\$((i + 1))
done
sync
umount /mnt || exit 1
echo WRITTEN
GUEST
echo "writing ${SIZE_MIB} MiB with the kernel in the guest..." >&2
NILFS_KTEST_TIMEOUT=${NILFS_KTEST_TIMEOUT:-3000} NILFS_KTEST_MEM=1024 \
	"$guest" run "$work/script" "$img" | grep -q WRITTEN

drop() { sync; [ -w /proc/sys/vm/drop_caches ] && echo 3 >/proc/sys/vm/drop_caches || true; }
now() { date +%s.%N; }

drop
t0=$(now); cat "$img" >/dev/null; t1=$(now)
drop
t2=$(now); "$dump" "$img" extract / "$work/out"; t3=$(now)
bytes=$(du -sb "$work/out" | cut -f1)
awk -v t0="$t0" -v t1="$t1" -v t2="$t2" -v t3="$t3" -v b="$bytes" \
	-v s="$(stat -c %s "$img")" 'BEGIN {
	r = t1 - t0; e = t3 - t2
	printf "image %.0f MiB read sequentially: %.2f s (%.0f MiB/s)\n", s / 1048576, r, s / 1048576 / r
	printf "extract of %.0f MiB: %.2f s (%.0f MiB/s)\n", b / 1048576, e, b / 1048576 / e
	printf "ratio extract/sequential-read: %.2f\n", e / r
}'
