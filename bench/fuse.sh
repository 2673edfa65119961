#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/fuse.sh: reading a big file through nilfs-fuse (cat of
# MNT/latest/FILE) against `dump.nilfs2 cat` of the same file, both from a
# warm page cache of the image, best of RUNS each.  Prints the ratio (the
# target: within 1.5).  Each FUSE run is a fresh mount, so that none is
# served from the previous run's page cache of the file.
#   SIZE_MIB  size of the file (default 512)
#   RUNS      timings of each (default 5)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$(cd "$here/.." && pwd)}
dump=$top/dump.nilfs2
fuse=$top/nilfs-fuse
mkfs=$top/mkfs.nilfs2
SIZE_MIB=${SIZE_MIB:-512}
RUNS=${RUNS:-5}
[ -x "$fuse" ] || { echo "nilfs-fuse not built (libfuse3-dev missing?)" >&2; exit 77; }
[ -c /dev/fuse ] || { echo "no /dev/fuse" >&2; exit 77; }
work=$(mktemp -d "${TMPDIR:-/var/tmp}/nilfs-bench-fuse.XXXXXX")
mnt=$work/mnt
cleanup() {
	fusermount3 -u "$mnt" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/src" "$mnt"
dd if=/dev/urandom of="$work/src/big" bs=1M count="$SIZE_MIB" 2>/dev/null
truncate -s $((SIZE_MIB * 2 + 256))M "$work/img"
"$mkfs" -q -f -d "$work/src" "$work/img"
rm -rf "$work/src"

now() { date +%s.%N; }
best() { awk 'NR == 1 || $1 < m { m = $1 } END { printf "%.3f", m }'; }

cat "$work/img" >/dev/null   # warm: both read from the page cache
: >"$work/dump.t"
: >"$work/fuse.t"
i=0
while [ $i -lt "$RUNS" ]; do
	t0=$(now)
	"$dump" "$work/img" cat /big >/dev/null
	t1=$(now)
	echo "$t1 - $t0" | bc >>"$work/dump.t"
	"$fuse" "$work/img" "$mnt"
	t0=$(now)
	cat "$mnt/latest/big" >/dev/null
	t1=$(now)
	fusermount3 -u "$mnt"
	echo "$t1 - $t0" | bc >>"$work/fuse.t"
	i=$((i + 1))
done
d=$(best <"$work/dump.t")
f=$(best <"$work/fuse.t")
echo "dump.nilfs2 cat: ${d} s, nilfs-fuse: ${f} s for $SIZE_MIB MiB (best of $RUNS)"
echo "ratio: $(echo "scale=2; $f / $d" | bc)"
