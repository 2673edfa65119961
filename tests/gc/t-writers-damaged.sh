#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-writers-damaged.sh - every offline writer refuses a volume the library's
# quick check (nlfs_fs_vet) calls damaged, before its first write, with one
# line that names the device and what is wrong and says to run fsck.nilfs2;
# not a byte of the volume changes.  --write-damaged writes anyway, as
# before.  The base is the volume the kernel wrote (tests/fsck/images),
# where each writer first succeeds untouched by the check; each damage is
# one of tests/fsck/corrupt's cases that leave a count disagreeing with
# what it counts.  Then draws of tests/fsck/corrupt --random (fixed seeds)
# in what the check reads: the superblock copies (which must agree) and the
# log at the cursor of the copy in use; each draw fsck.nilfs2 -n calls
# damaged must be refused by every writer, byte for byte unchanged, and
# --force (rmcp: --write-damaged; nilfs-tune: -f) writes as before.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip.
set -u
top=$(cd "${top_builddir:-.}" && pwd)
images=$(cd "${top_srcdir:-.}" && pwd)/tests/fsck/images
corrupt=$top/tests/fsck/corrupt
command -v xz >/dev/null || { echo "SKIP: xz is not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-writers-damaged.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export LC_ALL=C
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; [ -f out ] && sed 's/^/  | /' out; }

xz -dc "$images/kernel-1k.img.xz" >base.img || { echo "FAIL: xz"; exit 1; }
size=$(stat -c %s base.img)

# each writer as a command on IMG; OPT is where --write-damaged goes, and
# the writer's --force (what it takes instead of --write-damaged)
writers='mkcp-s|--force|mkcp -s OPT IMG
chcp|--force|chcp ss OPT IMG 2
rmcp|--write-damaged|rmcp OPT IMG 5
clean|--force|nilfs-clean --offline -p 0 OPT IMG
cleanerd|--force|nilfs_cleanerd --offline -c conf OPT IMG
resize|--force|nilfs-resize -y OPT IMG SHRINK
tune|-f|nilfs-tune OPT -O block_count IMG'
printf 'protection_period 0\nmax_clean_segments 100%%\n' >conf

run() {   # run NAME IMG OPT
	cmd=$(printf '%s\n' "$writers" | sed -n "s/^$1|[^|]*|//p" |
	      sed "s|OPT|$3|; s|IMG|$2|; s|SHRINK|$((size - 2 * 1048576))|")
	# shellcheck disable=SC2086
	(cd "$tmp" && "$top"/$cmd) >out 2>&1
}

names=$(printf '%s\n' "$writers" | cut -d'|' -f1)
# the intact volume: the check lets every writer through
for w in $names; do
	cp --sparse=always base.img w.img
	if run "$w" w.img ""; then ok "$w writes to the intact volume"
	else bad "$w refused the intact volume (exit $?)"; fi
	"$top/fsck.nilfs2" -fn w.img >out 2>&1 && ok "$w: fsck -fn clean after it" ||
		bad "$w: fsck -fn after it"
done

# damage VOL CASE LABEL: d.img, VOL.img with tests/fsck/corrupt's CASE,
# which fsck -n must call damaged
damage() {
	cp --sparse=always "$1.img" d.img && "$corrupt" "$2" d.img >/dev/null 2>&1 ||
		{ bad "corrupt $2 on $1"; return 1; }
	"$top/fsck.nilfs2" -n d.img >/dev/null 2>&1
	[ $? -ge 4 ] || bad "$3: fsck -n does not call it damaged"
}
# refuses LABEL WRITER: the writer refuses a copy of d.img with one line
# naming the damage, and changes nothing
refuses() {
	cp --sparse=always d.img w.img
	run "$2" w.img ""
	rc=$?
	if [ $rc = 1 ] && grep -q "w.img: .*run fsck.nilfs2" out; then
		ok "$1: $2 refuses: $(grep 'run fsck.nilfs2' out)"
	else
		bad "$1: $2 exits $rc without naming the damage"
	fi
	cmp -s d.img w.img && ok "$1: $2 changed nothing" || bad "$1: $2 wrote to it"
}

for case in su_nclean su_ndirty cp_ncheckpoints cp_nsnapshots dat_desc; do
	damage base "$case" "$case" || continue
	for w in $names; do
		refuses "$case" "$w"
		cp --sparse=always d.img w.img
		opt=--write-damaged
		[ "$w" = tune ] && opt=-f
		run "$w" w.img $opt && ok "$case: $w $opt writes" ||
			bad "$case: $w $opt exits $?"
	done
done

# the cpfile is read only where the writers read or change it: the header,
# the latest checkpoint's block and the blocks of the snapshot list.  On
# kernel-1k those are all its blocks, so these cases are refused by every
# writer; kernel-rich (69 checkpoints in 14 blocks, snapshots 11, 28 and 41)
# has 5 of them read and the others bounded by what they can hold: the
# checkpoint writers take it intact and refuse these damages to it
xz -dc "$images/kernel-rich.img.xz" >rich.img || { echo "FAIL: xz"; exit 1; }
for w in mkcp-s chcp rmcp clean cleanerd; do
	cp --sparse=always rich.img w.img
	if run "$w" w.img ""; then ok "$w writes to the intact kernel-rich"
	else bad "$w refused the intact kernel-rich (exit $?)"; fi
done
for spec in base:cp_snaplist base:cp_blkcount base:cp_cno base:cp_future base:cp_ifile_mode \
	    rich:cp_ncheckpoints rich:cp_nsnapshots rich:cp_snaplist rich:cp_snapflag rich:cp_cno; do
	vol=${spec%%:*} case=${spec#*:} on=$names
	[ "$vol" = rich ] && on="mkcp-s chcp rmcp"
	damage "$vol" "$case" "$case on $vol" || continue
	for w in $on; do
		refuses "$case on $vol" "$w"
	done
done

# a count in a cpfile block the check reads only for a writer that may
# delete from it (kernel-rich's block 6, checkpoints 30..34): too low for
# what is valid in it, or more than the block holds.  The offline cleaners
# may delete any checkpoint older than their protection, so the check reads
# those blocks and they refuse before their first write, naming the block,
# with not a byte changed (a later pass had refused after the first one was
# written); the checkpoint writers that neither read nor change the block
# write as before and leave its count as it was, fsck's only complaint.
# rmcp writes nothing (not the deletions before it either); fsck -y
# recounts it, and rmcp then deletes
for spec in 32:0:32 32:200:32 30:0:25..33; do
	cno=${spec%%:*} count=${spec#*:} range=${count#*:} count=${count%%:*}
	label="cpfile block count $count on kernel-rich, rmcp $range"
	cp --sparse=always rich.img d.img && "$corrupt" --cp-count "$cno" "$count" d.img ||
		{ bad "corrupt --cp-count $cno $count"; continue; }
	for w in clean cleanerd; do
		cp --sparse=always d.img w.img
		run "$w" w.img ""
		rc=$?
		if [ $rc = 1 ] && [ "$(grep -c 'run fsck.nilfs2' out)" = 1 ] &&
		   grep -q "w.img: cpfile block 6: count $count, but .*run fsck.nilfs2" out; then
			ok "cpfile block count $count on kernel-rich: $w refuses: $(grep 'run fsck.nilfs2' out)"
		else
			bad "cpfile block count $count on kernel-rich: $w exits $rc without naming the block"
		fi
		cmp -s d.img w.img && ok "cpfile block count $count on kernel-rich: $w changed nothing" ||
			bad "cpfile block count $count on kernel-rich: $w wrote to it"
	done
	for w in mkcp-s chcp; do
		cp --sparse=always d.img w.img
		run "$w" w.img "" && "$top/fsck.nilfs2" -fn w.img >out 2>&1
		[ $? = 4 ] && [ "$(grep -c ': cpfile block 6 (checkpoints 30..34): count '"$count"', but 5 are valid$' out)" = 1 ] &&
		grep -q ': 1 error(s) found' out &&
			ok "cpfile block count $count on kernel-rich: $w writes and carries it as it was" ||
			bad "cpfile block count $count on kernel-rich: $w"
	done
	cp --sparse=always d.img w.img
	"$top/rmcp" w.img "$range" >out 2>&1
	rc=$?
	if [ $rc = 1 ] && [ "$(grep -c 'run fsck.nilfs2' out)" = 1 ] &&
	   grep -q "w.img: cpfile block 6: count $count, but .*run fsck.nilfs2" out &&
	   grep -q 'no checkpoints were removed' out; then
		ok "$label: refused: $(grep 'run fsck.nilfs2' out)"
	else
		bad "$label: exits $rc without naming the block"
	fi
	cmp -s d.img w.img && ok "$label: changed nothing" || bad "$label: wrote to it"
	"$top/fsck.nilfs2" -y w.img >out 2>&1
	[ $? = 1 ] && grep -q 'cpfile: 1 count(s) recounted' out &&
		ok "$label: fsck -y recounts the block" || bad "$label: fsck -y"
	"$top/rmcp" w.img "$cno" >out 2>&1 && "$top/fsck.nilfs2" -fn w.img >out 2>&1 &&
		ok "$label: after fsck -y, rmcp $cno deletes, and fsck -fn is clean" ||
		bad "$label: rmcp $cno after fsck -y"
done

# random damage in what the check reads: the draws of kernel-1k.img that
# land in a superblock copy or the log at the cursor (tried: 150 seeds)
for seed in 3 6 27 29 38 89 103 131 149; do
	cp --sparse=always base.img d.img && "$corrupt" --random $seed d.img >draw 2>&1 ||
		{ bad "corrupt --random $seed"; continue; }
	"$top/fsck.nilfs2" -n d.img >out 2>&1
	if [ $? -lt 4 ]; then
		echo "skip: draw $seed, which fsck -n does not call damaged: $(cat draw)"
		continue
	fi
	for w in $names; do
		cp --sparse=always d.img w.img
		run "$w" w.img ""
		rc=$?
		n=$(grep -c 'run fsck.nilfs2' out)
		if [ $rc = 1 ] && [ "$n" = 1 ] && grep -q "w.img: .*damaged; run fsck.nilfs2" out; then
			ok "draw $seed: $w refuses: $(grep 'run fsck.nilfs2' out)"
		else
			bad "draw $seed ($(cat draw)): $w exits $rc without one line naming the damage"
		fi
		cmp -s d.img w.img && ok "draw $seed: $w changed nothing" || bad "draw $seed: $w wrote to it"
		force=$(printf '%s\n' "$writers" | sed -n "s/^$w|\([^|]*\)|.*/\1/p")
		cp --sparse=always d.img w.img
		run "$w" w.img "$force"
		rc=$?
		if ! grep -q 'run fsck.nilfs2 before' out && [ $rc -le 1 ]; then
			ok "draw $seed: $w $force is not refused (exit $rc)"
		else
			bad "draw $seed: $w $force exits $rc"
		fi
	done
done
# misuse: only the offline passes write
"$top/nilfs-clean" --write-damaged base.img >out 2>&1
[ $? = 1 ] && grep -q 'goes with --offline' out && ok "nilfs-clean --write-damaged alone is a usage error" ||
	bad "nilfs-clean --write-damaged without --offline"
"$top/nilfs-clean" --force base.img >out 2>&1
[ $? = 1 ] && grep -q 'goes with --offline' out && ok "nilfs-clean --force alone is a usage error" ||
	bad "nilfs-clean --force without --offline"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
