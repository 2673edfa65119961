#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-fsck-repair-sb.sh - the superblock repairs of fsck.nilfs2: a bad copy
# rewritten from the good one (-y and -p), and --rollback for a volume
# whose latest super-root log is damaged under both copies' cursors (the
# kernel reports "error -22 while searching super root" and does not mount).
set -u
top_builddir=${top_builddir:-.}
fsck_tests=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-.}
fsck=$(cd "$top_builddir" && pwd)/fsck.nilfs2
dump=$(cd "$top_builddir" && pwd)/dump.nilfs2
ourmkfs=$(cd "$top_builddir" && pwd)/mkfs.nilfs2
undo=$(cd "$top_builddir" && pwd)/nilfs-undo
corrupt=$(cd "$top_builddir" && pwd)/tests/fsck/corrupt
images=$(cd "$top_srcdir" && pwd)/tests/fsck/images
MKFS=$(PATH=/usr/sbin:/sbin:$PATH command -v mkfs.nilfs2 || true)
[ -n "$MKFS" ] || { echo "SKIP: nilfs-tools' mkfs.nilfs2 is not installed"; exit 77; }
command -v xz >/dev/null || { echo "SKIP: xz is not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-fsck-repair-sb.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export LC_ALL=C
pass=0 fail=0

ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; [ -f out ] && cat out; }

. "$fsck_tests/expect.sh"

# the fields of one copy in "dump.nilfs2 super", without the ones the
# kernel lets differ between the copies (cursor, free blocks, times, state, CRC)
fixed_fields() {
	"$dump" "$1" super | awk -v copy="$2" '
		/superblock at byte/ { on = ($1 == copy) ; next }
		on && $1 ~ /^s_/ && $1 !~ /^s_(sum|last_cno|last_pseg|last_seq|free_blocks_count|wtime|state)$/'
}
# the same fields in both copies
same_copies() {
	fixed_fields "$1" primary >p.fields && fixed_fields "$1" secondary >s.fields &&
		[ -s p.fields ] && cmp -s p.fields s.fields
}
# one field of one copy
field() {
	"$dump" "$1" super | awk -v copy="$2" -v f="$3" '
		/superblock at byte/ { on = ($1 == copy); next }
		on && $1 == f { print $2 }'
}

# ---- a bad superblock copy, from the good one ----
truncate -s 256M good.img && "$MKFS" -q -f good.img >/dev/null || exit 1
for case in sb_primary_crc sb_primary_magic sb_secondary_crc; do
	for mode in -y -p; do
		cp --sparse=always good.img sb.img && "$corrupt" "$case" sb.img || exit 1
		expect 4 'superblock' "$case: -n reports it" -- "$fsck" -n sb.img
		# -p prints the problems and one summary line
		pat='superblocks: both copies rewritten from the'
		[ "$mode" = -p ] && pat='^sb.img: repaired, '
		expect 1 "$pat" "$case: $mode repairs it" -- "$fsck" "$mode" sb.img
		expect 0 'clean$' "$case: -n after $mode" -- "$fsck" -n -f sb.img
		if same_copies sb.img; then ok "$case: $mode: both copies hold the same fixed fields"
		else bad "$case: $mode: the copies differ:"; diff p.fields s.fields; fi
	done
done

# ---- --rollback ----
xz -dc "$images/kernel-1k.img.xz" >kernel.img || { echo "FAIL: xz"; exit 1; }
cp --sparse=always kernel.img rb.img && "$corrupt" sr_latest_datasum rb.img || exit 1
cp --sparse=always rb.img rb.orig
expect 4 'cannot open the volume as the kernel mounts it: log data checksum (block 492' \
	"rollback: -n reports the broken latest super-root log" -- "$fsck" -n rb.img
grep -q "'fsck.nilfs2 -y --rollback -z FILE rb.img' would point" out &&
	ok "rollback: -n suggests --rollback" || bad "rollback: -n does not suggest --rollback"
expect 4 'the check could not go on' "rollback: -y alone cannot repair it" -- "$fsck" -y rb.img
cmp -s rb.img rb.orig && ok "rollback: ... and changes nothing" || bad "rollback: -y changed the volume"
expect 16 'needs -y' "rollback: --rollback with -n" -- "$fsck" -n --rollback rb.img
expect 16 'needs -y' "rollback: --rollback with -p" -- "$fsck" -p --rollback rb.img
expect 1 'log data checksum' "rollback: dump.nilfs2 cannot read it" -- "$dump" rb.img ls /
expect 1 'rolled back from checkpoint 7 (block 492) to checkpoint 6 (block 476): 1 logs discarded' \
	"rollback: -y --rollback -z" -- "$fsck" -y --rollback -z rb.undo rb.img
grep -q 'repaired$' out && ok "rollback: ... and says repaired" || bad "rollback: not called repaired"
expect 0 'clean$' "rollback: -n after it" -- "$fsck" -n -f rb.img
for copy in primary secondary; do
	got="$(field rb.img $copy s_last_cno) $(field rb.img $copy s_last_pseg) $(field rb.img $copy s_last_seq)"
	if [ "$got" = "6 476 1" ]; then ok "rollback: the $copy copy points at checkpoint 6"
	else bad "rollback: the $copy copy has cursor $got, want 6 476 1"; fi
	# (the damage changed only the cursors, and the damaged image cannot be read)
	fixed_fields kernel.img $copy >before && fixed_fields rb.img $copy >after
	cmp -s before after && ok "rollback: the $copy copy keeps its other fields" ||
		{ bad "rollback: the $copy copy changed other fields:"; diff before after; }
done
# a volume with a single super root has nothing older to roll back to:
# fsck names the damage and does not suggest what would then refuse
truncate -s 256M one.img && "$ourmkfs" -q -f one.img &&
	"$corrupt" sr_latest_datasum one.img || exit 1
expect 4 'cannot open the volume as the kernel mounts it' \
	"rollback: -n on a volume with one super root" -- "$fsck" -n one.img
grep -q -- '--rollback' out && bad "rollback: suggested with no older super root" ||
	ok "rollback: not suggested with no older super root"
expect 4 'rollback: not possible' "rollback: ... and -y --rollback says why not" -- \
	"$fsck" -y --rollback one.img
# our reader sees checkpoint 6's tree as the intact image holds it
"$dump" -c 6 kernel.img extract / want >/dev/null 2>&1 && "$dump" rb.img extract / got >/dev/null 2>&1
if [ -d want ] && [ -d got ] &&
	[ "$(cd want && find . | sort)" = "$(cd got && find . | sort)" ] &&
	[ "$(cd want && find . -type f -exec md5sum {} + | sort)" = \
	  "$(cd got && find . -type f -exec md5sum {} + | sort)" ]; then
	ok "rollback: dump.nilfs2 reads checkpoint 6's tree ($(cd got && find . | wc -l) entries)"
else
	bad "rollback: the tree after the rollback is not checkpoint 6's"
fi
"$dump" rb.img checkpoints >out 2>&1
grep -q '^ *7 ' out && bad "rollback: checkpoint 7 is still listed" || ok "rollback: checkpoint 7 is gone"
expect 0 'nothing to roll back' "rollback: again on the repaired volume" -- "$fsck" -y --rollback rb.img
expect 0 '' "rollback: nilfs-undo" -- "$undo" rb.undo rb.img
cmp -s rb.img rb.orig && ok "rollback: nilfs-undo gives the damaged volume back" ||
	bad "rollback: after nilfs-undo the volume differs"
cp --sparse=always kernel.img k.img
expect 0 'nothing to roll back' "rollback: a good volume" -- "$fsck" -y --rollback k.img
cmp -s k.img kernel.img && ok "rollback: ... is left as it was" || bad "rollback: a good volume was changed"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
