#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-clean-offline.sh - nilfs-clean --offline against nilfs_cleanerd --offline.
# On the volume of volume.sh (dated a day ago, most segments clean):
# nilfs_cleanerd --offline with the default thresholds does nothing (more
# than max_clean_segments are clean), while nilfs-clean --offline cleans
# every reclaimable segment once whatever the thresholds, says what it
# freed, and leaves a volume fsck finds clean with the latest tree and the
# snapshots unchanged; a protection period covering every checkpoint, or a
# threshold no segment meets, leaves it alone; a segment whose log fails its
# data checksum is left as it is and named (exit 1); misuse is refused.
#
# Exit status follows automake conventions: 0 pass, 1 fail.

here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$here/../..}
. "$here/volume.sh"
gc_test_init t-clean-offline mkfs.nilfs2 lscp fsck.nilfs2 nilfs-clean nilfs_cleanerd
img=$tmp/img
gc_volume "$img" "$tmp/src"
trees() { "$gf" digest "$1" | sed 's/^latest [0-9]* /latest /'; }
trees "$img" >"$tmp/trees0" || fail "digest"
nss=$(grep -c '^snapshot ' "$tmp/trees0")
[ "$nss" -eq 2 ] || fail "expected 2 snapshots, got $nss"
clean_of() { sed -n 's/.*clean segments \([0-9]*\) -> \([0-9]*\) of.*/\1 \2/p' "$1"; }

# the daemon's thresholds: max_clean_segments (20 %) is met already
printf 'protection_period 0\n' >"$tmp/conf"
"$top/nilfs_cleanerd" --offline -c "$tmp/conf" "$img" >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/err"; fail "nilfs_cleanerd --offline"; }
grep -q ' 0 passes, 0 segments cleaned' "$tmp/out" ||
	fail "nilfs_cleanerd --offline cleaned past max_clean_segments: $(cat "$tmp/out")"

# every checkpoint is younger than a week: nothing is reclaimable
cp "$img" "$tmp/week.img"
"$top/nilfs-clean" --offline -p 1w "$tmp/week.img" >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; fail "nilfs-clean --offline -p 1w"; }
grep -q ' 0 segments cleaned' "$tmp/out" || fail "-p 1w cleaned: $(cat "$tmp/out")"
cmp -s "$img" "$tmp/week.img" || fail "-p 1w changed the volume"
# no segment has 128 reclaimable blocks
"$top/nilfs-clean" --offline -p 0 -m 100% "$tmp/week.img" >"$tmp/out" 2>&1 ||
	{ cat "$tmp/out"; fail "nilfs-clean --offline -m 100%"; }
grep -q ' 0 segments cleaned' "$tmp/out" || fail "-m 100% cleaned: $(cat "$tmp/out")"

cp "$img" "$tmp/damaged.img"
# the manual pass
"$top/nilfs-clean" --offline -p 0 "$img" >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/err"; fail "nilfs-clean --offline -p 0"; }
cat "$tmp/out"
set -- $(clean_of "$tmp/out")
[ $# -eq 2 ] && [ "$2" -gt "$1" ] || fail "no segment freed: $(cat "$tmp/out")"
before=$1 after=$2
grep -q ' [1-9][0-9]* checkpoints deleted' "$tmp/out" || fail "no checkpoint deleted"
"$top/fsck.nilfs2" -fn --checkpoints=all "$img" >"$tmp/fsck" 2>&1 ||
	{ grep -v '^Pass' "$tmp/fsck" | head -n 20; fail "fsck.nilfs2 after nilfs-clean --offline"; }
trees "$img" >"$tmp/trees1" || fail "digest after cleaning"
cmp -s "$tmp/trees0" "$tmp/trees1" || fail "the latest tree or a snapshot changed"
# what it found reclaimable is gone: a second pass frees little, if anything
"$top/nilfs-clean" --offline -p 0 "$img" >"$tmp/out2" 2>&1 ||
	{ cat "$tmp/out2"; fail "second nilfs-clean --offline"; }
set -- $(clean_of "$tmp/out2")
[ $# -eq 2 ] && [ "$2" -ge "$1" ] || fail "the second pass lost space: $(cat "$tmp/out2")"
"$top/fsck.nilfs2" -fn --checkpoints=all "$img" >"$tmp/fsck" 2>&1 ||
	{ grep -v '^Pass' "$tmp/fsck" | head -n 20; fail "fsck.nilfs2 after the second pass"; }

# misuse
for args in "--offline" "--offline -l $img" "--offline -S 2 $img" "--offline -s $img" \
	"--offline $tmp/nonexistent"; do
	# shellcheck disable=SC2086
	if "$top/nilfs-clean" $args >"$tmp/out" 2>&1; then
		fail "nilfs-clean $args succeeded: $(cat "$tmp/out")"
	fi
	grep -q . "$tmp/out" || fail "nilfs-clean $args failed without a message"
done
# a reclaimable segment with a damaged block (its log's data checksum
# fails): left as it is, named, the rest cleaned; copying its blocks would
# pass the damage on under new, valid checksums
# (one the pass above cleaned: dirty before it, gone or rewritten after)
"$top/lssu" "$tmp/damaged.img" | awk '$4 == "-d-" { print $1, $2, $3 }' >"$tmp/dirty0"
"$top/lssu" "$img" | awk '{ print $1, $2, $3 }' >"$tmp/dirty1"
seg=$(grep -vxF -f "$tmp/dirty1" "$tmp/dirty0" | awk '{ print $1; exit }')
nb=$("$top/lssu" "$tmp/damaged.img" | awk -v s="$seg" '$1 == s { print $5 }')
[ -n "$seg" ] && [ -n "$nb" ] || fail "no reclaimable segment to damage"
printf 'X' | dd of="$tmp/damaged.img" bs=1 seek=$(((seg * 128 + nb / 2) * 1024 + 100)) conv=notrunc 2>/dev/null
if "$top/nilfs-clean" --offline -p 0 "$tmp/damaged.img" >"$tmp/out" 2>"$tmp/err"; then
	fail "nilfs-clean --offline cleaned a segment with a damaged log: $(cat "$tmp/out")"
fi
grep -q "segment $seg left as it is" "$tmp/err" || fail "the damaged segment $seg not named: $(cat "$tmp/err")"
"$top/lssu" "$tmp/damaged.img" | awk -v s="$seg" '$1 == s && $4 ~ /d/ { f = 1 } END { exit !f }' ||
	fail "the damaged segment $seg was cleaned"
set -- $(clean_of "$tmp/out")
[ $# -eq 2 ] && [ "$2" -gt "$1" ] || fail "nothing else cleaned: $(cat "$tmp/out")"
"$top/fsck.nilfs2" -fn --check-data "$tmp/damaged.img" 2>&1 | grep -q "segment $seg: .*data checksum" ||
	fail "fsck --check-data no longer sees the damage in segment $seg"
echo "ours: nilfs_cleanerd --offline kept its thresholds; nilfs-clean --offline: clean segments $before -> $after, trees unchanged; a damaged segment ($seg) left as it is"
echo "PASS: $0"
exit 0
