#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-writers-layouts.sh - our offline writers (nilfs-resize grow and shrink,
# nilfs-tune, mkcp/chcp/rmcp, the offline cleaner, fsck.nilfs2 -y) on
# volumes of several layouts: block sizes of 1, 2 and 4 KiB, several
# segment sizes, trees whose size puts the entry of the writer's segment in
# a later sufile block or its DAT entries in a later DAT group, checkpoints
# that put the next one in a later cpfile block, and volumes the kernel
# wrote.  Each layout is checked to be what it claims, each writer's result
# must check clean, and then the kernel mounts it, reads the files, fills
# the free space it reports to about 80 %, and after a remount every byte
# must be there (tests/kernel/fill.sh).  A few layouts here;
# bench/writers-layouts.sh runs the whole matrix (LAYOUTS=full).
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=${top_builddir:-$here/../..}
"$guest" require || exit
for p in mkfs.nilfs2 nilfs-resize nilfs-tune fsck.nilfs2 dump.nilfs2 mkcp chcp rmcp lscp \
	nilfs-clean tests/fsck/corrupt; do
	[ -x "$top/$p" ] || { echo "FAIL: $top/$p not built"; exit 1; }
done
FILL_TMP=$(mktemp -d "${TMPDIR:-/tmp}/t-writers-layouts.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$FILL_TMP"' EXIT
. "$here/fill.sh"
. "$here/layouts.sh"
tmp=$FILL_TMP
fails=0
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# name  block size  blocks per segment  MiB  tree KiB  offline checkpoints (layout_checkpoints)
# writer  what the layout must have (s: a later sufile block, c: a later
# cpfile block, d: a later DAT group, k: written by the kernel).  With no
# construction between mkfs and the resize, su1k's grow and su2k's shrink
# change only the sufile header's count after the layout: before the
# writer kept every header in the log, both lost it (issue 39).
short_layouts() {
	cat <<'EOF'
su1k   1024  16  24  1500   0  grow    s
su2k   2048  32  32  9000   0  shrink  s
cp1k   1024  16  16   200   8  cp      c
dat1k  1024  64  32  9216   0  tune    d
su4k   4096  16  40 17408   4  fsck    s
ker2k  2048  32  24     -   4  clean   k
EOF
}

# the whole matrix: every writer on every layout of every geometry
# (GEOMETRIES="BS:BPS ...", WRITERS="grow ..." pick a part)
full_layouts() {
	for geo in ${GEOMETRIES:-1024:16 1024:64 2048:32 4096:16 4096:64}; do
		set -- $(echo "$geo" | tr : ' ')
		bs=$1 bps=$2
		epb=$((bs / 16 - 2))                  # segments in the first sufile block
		seg_kib=$((bs * bps / 1024))
		su_kib=$(((epb + 4) * seg_kib))        # a tree past them
		dat_kib=$((bs * 8 * bs / 1024 * 11 / 10))   # past the first DAT group's entries
		ncp=$((bs / 192 + 2))                  # past the first cpfile block
		for w in ${WRITERS:-grow shrink tune cp clean fsck}; do
			mib=$(((su_kib * 2 / 1024) + 16))
			echo "small-$bs-$bps-$w $bs $bps 16 200 0 $w -"
			echo "su-$bs-$bps-$w $bs $bps $mib $su_kib 0 $w s"
			echo "cp-$bs-$bps-$w $bs $bps 16 200 $ncp $w c"
			mib=$(((dat_kib * 2 / 1024) + 16))
			echo "dat-$bs-$bps-$w $bs $bps $mib $dat_kib 0 $w d"
			echo "ker-$bs-$bps-$w $bs $bps 32 - 2 $w k"
		done
	done
}

if [ "${LAYOUTS:-short}" = full ]; then full_layouts; else short_layouts; fi >"$tmp/layouts"
# kernel-written volumes first, all in one guest
kimgs= nk=0
kernel_batch() {
	[ -n "$kimgs" ] || return 0
	# shellcheck disable=SC2086
	layout_kernel $kimgs || bad "the kernel's writes to:$kimgs"
	kimgs= nk=0
}
while read -r name bs bps mib kib ncp w want; do
	[ "$kib" = - ] || continue
	truncate -s "$mib"M "$tmp/$name.img" &&
		"$top/mkfs.nilfs2" -q -f -b "$bs" -B "$bps" "$tmp/$name.img" || bad "$name: mkfs"
	kimgs="$kimgs $tmp/$name.img" nk=$((nk + 1))
	[ $nk -lt "${BATCH:-8}" ] || kernel_batch
done <"$tmp/layouts"
kernel_batch

batch= nbatch=0
run_batch() {
	[ -n "$batch" ] || return 0
	# shellcheck disable=SC2086
	fill_run "$tmp/fill.out" $batch || bad "the kernel's fill of:$batch"
	batch= nbatch=0
}
while read -r name bs bps mib kib ncp w want; do
	img=$tmp/$name.img
	if [ "$kib" != - ]; then
		layout_make "$img" "$bs" "$bps" "$mib" "$kib" || { bad "$name: mkfs"; continue; }
	fi
	layout_checkpoints "$img" "$ncp" || bad "$name: chcp"
	set -- $(layout_where "$img" | tr -d ,)
	case $want in *s*) [ "$3" -ge 1 ] || bad "$name: the writer's sufile entry is in block $3" ;; esac
	case $want in *c*) [ "$6" -ge 1 ] || bad "$name: the next checkpoint is in cpfile block $6" ;; esac
	case $want in *d*) [ "$9" -gt 258 ] || bad "$name: the DAT has only $9 blocks" ;; esac
	layout_write "$img" "$w" || { bad "$name"; continue; }
	[ -n "${VERBOSE:-}" ] && echo "$name: $(layout_where "$img")"
	batch="$batch $img" nbatch=$((nbatch + 1))
	[ $nbatch -lt "${BATCH:-8}" ] || run_batch
done <"$tmp/layouts"
run_batch
echo "$(wc -l <"$tmp/layouts") layouts, $fails failure(s)"
[ $fails -eq 0 ] && echo "PASS: $0"
[ $fails -eq 0 ]
