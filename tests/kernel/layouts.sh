# SPDX-License-Identifier: GPL-2.0-or-later
# layouts.sh - sourced after fill.sh: volumes of many layouts, each changed
# by one of our offline writers, for the kernel to fill and read back
# (t-writers-layouts.sh runs a few, bench/writers-layouts.sh all).
#
#   layout_make IMG BS BPS SIZE_MIB TREE_KIB
#       our mkfs -d of a tree of about TREE_KIB KiB (a few random files):
#       a tree past the first sufile block's segments, or past the first DAT
#       group's entries, puts the writers' entries in later blocks (and so
#       do checkpoints past the first cpfile block; layout_where says where
#       they are)
#   layout_kernel IMG...
#       the kernel writes a tree into each (already made) volume in one
#       guest, with a few checkpoints and a snapshot; IMG.expect is what it
#       wrote
#   layout_write IMG WRITER
#       WRITER: grow, shrink, tune, cp, clean, fsck (see below); 0 if it
#       succeeded and fsck.nilfs2 -fn finds the result clean
#   layout_where IMG
#       "sufile block S, cpfile block C, DAT blocks D": where the entries the
#       next construction changes lie
# The caller sets top, guest and FILL_TMP, as for fill.sh.

layout_tree() { # DIR KIB: a few files, the largest most of it
	mkdir -p "$1/sub"
	lay_big=$(($2 * 3 / 4)) lay_rest=$(($2 - $2 * 3 / 4))
	head -c $((lay_big * 1024)) /dev/urandom >"$1/big"
	head -c $((lay_rest * 512)) /dev/urandom >"$1/sub/half"
	lay_i=0
	while [ $lay_i -lt 8 ]; do
		head -c $((lay_rest * 64 + lay_i)) /dev/urandom >"$1/sub/small.$lay_i"
		lay_i=$((lay_i + 1))
	done
}

layout_make() {
	rm -rf "$1.tree" "$1"
	layout_tree "$1.tree" "$5"
	truncate -s "$4"M "$1" || return 1
	"$top/mkfs.nilfs2" -q -f -b "$2" -B "$3" -d "$1.tree" "$1" || return 1
	fill_expect "$1" "$1.tree"
}

# N more checkpoints, made offline: each change of checkpoint 1's mode is
# a construction of its own
layout_checkpoints() {
	lay_i=0
	while [ $lay_i -lt "$2" ]; do
		if [ $((lay_i % 2)) = 0 ]; then
			"$top/chcp" ss "$1" 1
		else
			"$top/chcp" cp "$1" 1
		fi >/dev/null || return 1
		lay_i=$((lay_i + 1))
	done
}

layout_kernel() {
	lay_script=$FILL_TMP/kernel-write
	cat >"$lay_script" <<'GUEST'
mkdir -p /mnt
dd if=/dev/urandom of=/tmp/chunk bs=1021 count=1021 2>/dev/null
put() { # FILE KIB
	{ echo "$1"; j=0; while [ $j -le $(($2 / 1021)) ]; do cat /tmp/chunk; j=$((j + 1)); done; } |
		dd of="$1" bs=65536 count=$(($2 * 1024)) iflag=fullblock,count_bytes 2>/dev/null
}
for d in $(ls /sys/block | grep '^vd' | sort); do
	mount -t nilfs2 /dev/$d /mnt 2>/dev/null || continue
	free=$(df -k /mnt | awk 'NR == 2 { print $4 }')
	mkdir -p /mnt/k/a /mnt/k/b
	put /mnt/k/a/one $((free / 8)); sync
	put /mnt/k/b/two $((free / 16)); sync
	mkcp -s /dev/$d >/dev/null
	put /mnt/k/a/one $((free / 10)); sync
	i=0
	while [ $i -lt 20 ]; do echo "$d $i" >/mnt/k/b/s.$i; i=$((i + 1)); done
	rm -f /mnt/k/b/s.3 /mnt/k/b/s.7
	sync
	(cd /mnt && find . -type f | sort | xargs sha256sum) | sed "s/^/SUM $d /"
	umount /mnt
done
echo KERNEL DONE
GUEST
	"$guest" run "$lay_script" "$@" >"$FILL_TMP/kernel-write.out" 2>&1 &&
		grep -qx "KERNEL DONE" "$FILL_TMP/kernel-write.out" || {
		echo "the kernel's writes failed:"
		tail -n 20 "$FILL_TMP/kernel-write.out"
		return 1
	}
	lay_n=0
	for lay_img in "$@"; do
		lay_d=vd$(printf "\\$(printf %03o $((97 + lay_n)))")
		sed -n "s/^SUM $lay_d //p" "$FILL_TMP/kernel-write.out" >"$lay_img.expect"
		[ -s "$lay_img.expect" ] || { echo "$lay_img: the kernel wrote nothing"; return 1; }
		lay_n=$((lay_n + 1))
	done
}

layout_field() { "$top/nilfs-tune" -l "$1" 2>/dev/null | sed -n "s/^$2:[[:space:]]*//p"; }

layout_write() {
	lay_img=$1
	lay_size=$(stat -c %s "$lay_img")
	case $2 in
	grow)   # by half: the new segments counted clean
		"$top/nilfs-resize" -y "$lay_img" $((lay_size / 2 * 3)) ;;
	shrink) # by a quarter, or as far as the free space allows
		"$top/nilfs-resize" -y "$lay_img" $((lay_size / 4 * 3)) >"$FILL_TMP/w1.out" 2>&1 || {
			lay_min=$(sed -n 's/.*smallest size it can be shrunk to now is \([0-9]*\) bytes.*/\1/p' \
				"$FILL_TMP/w1.out")
			[ -n "$lay_min" ] && [ "$lay_min" -lt "$lay_size" ] &&
				"$top/nilfs-resize" -y "$lay_img" "$lay_min"
		} ;;
	tune)   # a label, and the block-count feature's recount (a construction)
		"$top/nilfs-tune" -L layouts "$lay_img" &&
			"$top/nilfs-tune" -O ^block_count "$lay_img" &&
			"$top/nilfs-tune" -O block_count "$lay_img" ;;
	cp)     # a snapshot made, one plain checkpoint made a snapshot, one removed
		layout_checkpoints "$lay_img" 4 && "$top/mkcp" -s "$lay_img" &&
			set -- $("$top/lscp" -a "$lay_img" | awk 'NR > 1 && $4 == "cp" { print $1 }') &&
			"$top/chcp" ss "$lay_img" "$1" && "$top/rmcp" "$lay_img" "$2" &&
			"$top/chcp" cp "$lay_img" "$1" ;;
	clean)  # one offline cleaner pass that takes every reclaimable segment
		"$top/mkcp" "$lay_img" && "$top/nilfs-clean" --offline -p 0 "$lay_img" ;;
	fsck)   # a wrong sufile count and free-block count repaired by -y
		"$top/tests/fsck/corrupt" su_nclean "$lay_img" && "$top/tests/fsck/corrupt" sb_free "$lay_img" &&
			{ "$top/fsck.nilfs2" -fy "$lay_img"; [ $? -le 1 ]; } ;;
	*) echo "layout_write: no writer $2"; return 1 ;;
	esac >"$FILL_TMP/w.out" 2>&1 || { echo "$lay_img: $2 failed:"; tail -n 5 "$FILL_TMP/w.out"; return 1; }
	"$top/fsck.nilfs2" -fn "$lay_img" >"$FILL_TMP/w.out" 2>&1 ||
		{ echo "$lay_img: fsck.nilfs2 -fn after $2:"; tail -n 5 "$FILL_TMP/w.out"; return 1; }
}

# the entries the next construction changes: the sufile block of the
# segment of the latest log, the cpfile block of the next checkpoint, and
# the DAT's blocks (past 258, a DAT group after the first: a descriptor
# block, a bitmap and 256 entry blocks make the first)
layout_where() {
	"$top/dump.nilfs2" "$1" super 2>/dev/null | awk -v dat="$("$top/dump.nilfs2" "$1" stats 2>/dev/null |
		sed -n 's/^DAT blocks: \([0-9]*\).*/\1/p')" '
		/^using the/ { used = ($3 == "secondary") ? 2 : 1 }
		/superblock at byte/ { copy++ }
		{ v[copy, $1] = $2 }
		END {
			bs = 1024 * 2 ^ v[used, "s_log_block_size"]
			seg = int(v[used, "s_last_pseg"] / v[used, "s_blocks_per_segment"])
			printf "sufile block %d, cpfile block %d, DAT blocks %d\n", int((seg + 2) / (bs / 16)),
				int(v[used, "s_last_cno"] / int(bs / 192)), dat
		}'
}
