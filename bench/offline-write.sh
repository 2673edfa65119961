#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/offline-write.sh: what one offline construction costs as a volume's
# history grows.  On kernel-written volumes of 1k, 10k and 100k checkpoints
# (SIZES, bench/lscp.sh's images: the kernel in the qemu guest, one dirty
# block and one sync a checkpoint, 1 KiB blocks), bench/offline-write.c
# makes RUNS constructions of each kind on a copy of the image: a
# checkpoint made a snapshot or back (what mkcp -s and chcp do offline),
# then the offline cleaner cleaning one segment (nilfs-clean --offline).
# Prints the median blocks written, time and CPU time of each, and their
# ratios to the 1k volume's: a construction's writes should follow the
# change, not the history (nilfs-tools has no offline writer to compare
# with).  OLD=DIR, a build tree of another revision (its .libs/libnlfs.a),
# measures it in the same run, on its own copies, and prints the ratio of
# ours to it.
#
# Images are kept in DIR (default /var/tmp/nilfs-offline-write) as
# cpN.img and made when missing: 1k and 10k take minutes under TCG, 100k
# about an hour.  IMG_N=path takes an image made before (e.g.
# IMG_100000=/var/tmp/timeline/cp100k.img).  Not part of make check.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
SIZES=${SIZES:-1000 10000 100000}
RUNS=${RUNS:-5}
DIR=${DIR:-/var/tmp/nilfs-offline-write}
OLD=${OLD:-}
work=$(mktemp -d "${TMPDIR:-/var/tmp}/nilfs-bench-ow.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$DIR"

[ -f "$top/.libs/libnlfs.a" ] || { echo "build first: $top/.libs/libnlfs.a missing" >&2; exit 1; }
cflags="-O2 -std=c11 -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64"
cc $cflags -I"$top/include" -o "$work/ours" "$here/offline-write.c" "$top/.libs/libnlfs.a" -lz
if [ -n "$OLD" ]; then
	[ -f "$OLD/.libs/libnlfs.a" ] || { echo "OLD=$OLD has no .libs/libnlfs.a" >&2; exit 1; }
	cc $cflags -I"$OLD/include" -o "$work/old" "$here/offline-write.c" "$OLD/.libs/libnlfs.a" -lz
fi

image() {
	n=$1
	eval "img=\${IMG_$n:-}"
	if [ -z "$img" ]; then
		img=$DIR/cp$n.img
		if [ ! -f "$img" ]; then
			echo "making $n checkpoints with the kernel (bench/lscp.sh)..." >&2
			NCP=$n NSEG=$((n + n / 5 + 1000)) RUNS=1 KEEP_IMAGE=$img \
				sh "$here/lscp.sh" >"$work/lscp-$n.log" 2>&1 ||
				{ cat "$work/lscp-$n.log" >&2; exit 1; }
		fi
	fi
	echo "$img"
}

# median of column COL of FILE
median() {
	sort -n -k"$2" "$1" | awk -v c="$2" '{ v[NR] = $c } END { print v[int((NR + 1) / 2)] }'
}

# measure PROG N KIND: RUNS constructions on a fresh copy, medians into $w.$KIND
measure() {
	cp --sparse=always "$img" "$work/img"
	"$work/$1" "$work/img" "$3" "$RUNS" >"$work/out"
	echo "$(median "$work/out" 1) $(median "$work/out" 2) $(median "$work/out" 3)" \
		>"$work/$1.$2.$3"
	rm -f "$work/img"
}

for n in $SIZES; do
	img=$(image "$n")
	for kind in cp clean; do
		measure ours "$n" $kind
		[ -z "$OLD" ] || measure old "$n" $kind
	done
done

base=$(echo "$SIZES" | awk '{ print $1 }')
echo "load: $(cut -d' ' -f1-3 /proc/loadavg); medians of $RUNS constructions each"
for kind in cp clean; do
	[ $kind = cp ] && what="snapshot toggle (mkcp -s, chcp)" || what="offline clean of one segment"
	echo "$what:"
	for n in $SIZES; do
		set -- $(cat "$work/ours.$n.$kind")
		b=$1 t=$2 c=$3
		set -- $(cat "$work/ours.$base.$kind")
		printf '  %7s checkpoints: %6s blocks (ratio %5.2f to %s), %7.3f s (%5.2f), CPU %7.3f s (%5.2f)' \
			"$n" "$b" "$(echo "$b / $1" | bc -l)" "$base" "$t" "$(echo "$t / $2" | bc -l)" \
			"$c" "$(echo "$c / ($3 + 0.0001)" | bc -l)"
		if [ -n "$OLD" ]; then
			set -- $(cat "$work/old.$n.$kind")
			printf '; OLD %6s blocks, %7.3f s, CPU %7.3f s: ours/OLD blocks %.3f, time %.2f, CPU %.2f' \
				"$1" "$2" "$3" "$(echo "$b / $1" | bc -l)" "$(echo "$t / $2" | bc -l)" \
				"$(echo "$c / ($3 + 0.0001)" | bc -l)"
		fi
		echo
	done
done
