#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-resize-fault.sh - nilfs-resize offline and nilfs-tune under
# NILFS_TEST_FAULT (common/io_open.c), no kernel needed.  Each job runs
# once to count its writes, then again on a copy of the volume with the
# power cut at every one of them, torn and lost:
#   shrink   nilfs-resize of an image whose segments in use lie past the
#            new end (moved by the writer, then the size set)
#   shrink-at-cursor  the same with the new end right after the segment
#            the log writer is in (its logs name a cut segment as the next)
#   grow     nilfs-resize of an image to a larger size (the file extended
#            first, given back if the volume keeps its old size)
#   label    nilfs-tune -L -U (both superblock copies rewritten)
#   count    nilfs-tune -O block_count on the kernel's volume whose latest
#            block count is wrong (a recount checkpoint, then the bit)
# Every cut volume holds the tree of the volume before (dump.nilfs2
# extract), every checkpoint it had, and the old size or the new one in a
# file that holds it; fsck.nilfs2 -fn --checkpoints=all finds it clean.
# The one exception is a cut between the two superblock writes of a
# resize or tune: the copy the kernel uses has the values it mounts, the
# other copy the other ones, as after a crash in the kernel's own resize;
# fsck names the difference and -y mends it, which is checked here
# (tests/kernel/t-tune-offline.sh mounts such volumes).
set -u
top=${top_builddir:-.}
srcdir=${top_srcdir:-.}
for p in mkfs.nilfs2 fsck.nilfs2 lscp lssu chcp rmcp dump.nilfs2 nilfs_cleanerd nilfs-resize \
	nilfs-tune tests/fsck/corrupt; do
	[ -x "$top/$p" ] || { echo "FAIL: $top/$p not built"; exit 1; }
done
command -v xz >/dev/null || { echo "SKIP: xz is not installed"; exit 77; }
export TZ=UTC LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-resize-fault.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=$((fail + 1)); }
. "$srcdir/tests/image/fault.sh"
field() { "$top/nilfs-tune" -l "$1" 2>/dev/null | sed -n "s/^$2:[[:space:]]*//p"; }
# what the jobs change, as the superblock copy the kernel uses has it
sbkey() {
	"$top/nilfs-tune" -l "$1" 2>/dev/null |
		grep '^\(Filesystem volume name\|Filesystem UUID\|Filesystem features\|Number of segments\|Device size\):' |
		tr -s '\t\n' '  '
}

# 16 KiB segments: the tree fills the first 36, 60 checkpoints' logs the
# next ones; most checkpoints go and the cleaner frees their segments,
# writing what lives in them past segment 80
base=$tmp/base
truncate -s 8M "$base"
fault_volume "$base" 300000 -b 1024 -B 16
printf 'protection_period 0\nmax_clean_segments 100%%\nmin_reclaimable_blocks 0%%\nnsegments_per_clean 4\n' >"$tmp/conf"
"$top/nilfs_cleanerd" --offline -c "$tmp/conf" "$base" >/dev/null 2>&1 || { echo "FAIL: cleaner"; exit 1; }
high=$("$top/lssu" "$base" | awk 'NR > 1 { s = $1 } END { print s }')
[ "$high" -ge 60 ] || { echo "FAIL: no segment in use past 60 (highest $high)"; exit 1; }
"$top/fsck.nilfs2" -fn --checkpoints=all "$base" >"$tmp/out" 2>&1 || { cat "$tmp/out"; echo "FAIL: the base volume"; exit 1; }

# the kernel's volume, its latest block count made wrong
kbase=$tmp/kbase
xz -dc "$srcdir/tests/fsck/images/kernel-1k.img.xz" >"$kbase" || { echo "FAIL: xz"; exit 1; }
"$top/tests/fsck/corrupt" cp_blocks "$kbase" || { echo "FAIL: corrupt cp_blocks"; exit 1; }

errors() {  # fsck's problems on stdin, of image $1: no passes, summaries or warnings
	sed "s|$1|IMG|" | grep -v '^Pass\|inodes, .* directories\|error(s) found\|: warning: \|: clean' | sort
}

# a shrink whose new end is right after the segment the log writer is in:
# that segment's logs name a cut segment as the next one
cur=$(( $(field "$base" 'Last block address') / 16 ))
edge=$(( (cur + 1) * 16384 + 4096 ))

# name:image:command (IMG is the volume)
for job in "shrink:$base:$top/nilfs-resize -y IMG 983040" \
	"shrink-at-cursor:$base:$top/nilfs-resize -y IMG $edge" \
	"grow:$base:$top/nilfs-resize -y IMG 12M" \
	"label:$base:$top/nilfs-tune -L cut -U 11111111-2222-3333-4444-555555555555 IMG" \
	"count:$kbase:$top/nilfs-tune -O block_count IMG"; do
	name=${job%%:*} rest=${job#*:}
	img=${rest%%:*} cmd=${rest#*:}
	whole_run "$img" || continue
	"$top/fsck.nilfs2" -fn --checkpoints=all "$img" 2>&1 | errors "$img" >"$tmp/errs.b"
	"$top/fsck.nilfs2" -fn --checkpoints=all "$tmp/after" >"$tmp/fsck" 2>&1 ||
		{ bad "$name: not clean after the whole run"; cat "$tmp/fsck"; }
	old_segs=$(field "$img" 'Number of segments') new_segs=$(field "$tmp/after" 'Number of segments')
	old_key=$(sbkey "$img") new_key=$(sbkey "$tmp/after")
	[ "$old_key" != "$new_key" ] || bad "$name: the superblock did not change"
	old_size=$(stat -c %s "$img")
	case $name in
	shrink*) [ "$new_segs" -lt "$old_segs" ] || bad "$name: $old_segs -> $new_segs segments" ;;
	grow) [ "$new_segs" -gt "$old_segs" ] || bad "grow: $old_segs -> $new_segs segments" ;;
	esac
	echo "$name: $n writes; before: $old_key"
	echo "$name: after: $new_key"
	seen=
	for mode in crash tear; do
		k=0
		while [ $k -lt "$n" ]; do
			cut=$tmp/cut
			cp --sparse=always "$img" "$cut"
			run "$mode:$k" "$cut"
			at="$name $mode:$k of $n"
			grep -q 'fault fired' "$tmp/run" || bad "$at: the fault did not fire"
			devsize=$(field "$cut" 'Device size') key=$(sbkey "$cut")
			if [ "$key" = "$old_key" ]; then
				s=old
				[ "$(stat -c %s "$cut")" = "$old_size" ] || bad "$at: old size in a file of $(stat -c %s "$cut") bytes"
			elif [ "$key" = "$new_key" ]; then
				s=new
			else
				bad "$at: the superblock has neither the old values nor the new: $key"
				s=?
			fi
			[ "$devsize" -le "$(stat -c %s "$cut")" ] || bad "$at: the volume ($devsize bytes) does not fit its file"
			state "$cut" "$tmp/c"
			cmp -s "$tmp/c.tree" "$tmp/b.tree" || bad "$at: the tree differs"
			# every checkpoint there before is there with its mode; none is
			# there that the whole run did not make
			grep -v -x -F -f "$tmp/c.cps" "$tmp/b.cps" | sed "s/^/$at: lost checkpoint /" | grep . && fail=$((fail + 1))
			grep -v -x -F -f "$tmp/a.cps" "$tmp/c.cps" | sed "s/^/$at: stray checkpoint /" | grep . && fail=$((fail + 1))
			"$top/fsck.nilfs2" -fn --checkpoints=all "$cut" >"$tmp/fsck" 2>&1
			rc=$?
			errors "$cut" <"$tmp/fsck" >"$tmp/errs"
			if [ $rc = 0 ]; then
				s="$s-clean"
			elif [ -s "$tmp/errs.b" ] && cmp -s "$tmp/errs" "$tmp/errs.b"; then
				s="$s-as-before"
			elif ! grep -v 'copies differ in s_\|secondary superblock: log cursor' "$tmp/errs" | grep -q .; then
				# the window between the two superblock writes
				s="$s-other-copy-stale"
				"$top/fsck.nilfs2" -fy "$cut" >"$tmp/fsck.y" 2>&1
				"$top/fsck.nilfs2" -fn --checkpoints=all "$cut" >"$tmp/fsck" 2>&1 ||
					{ bad "$at: fsck -y did not mend the stale copy"; cat "$tmp/fsck.y" "$tmp/fsck"; }
				[ "$(sbkey "$cut")" = "$key" ] || bad "$at: fsck -y did not keep the values the kernel uses"
			else
				bad "$at: fsck.nilfs2 -fn is not clean:"
				grep -v '^Pass' "$tmp/fsck" | head -n 8
			fi
			seen="$seen $s"
			k=$((k + 1))
		done
	done
	summary
done
[ $fail = 0 ] && echo "PASS: $0"
[ $fail = 0 ]
