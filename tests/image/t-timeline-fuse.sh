#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-timeline-fuse.sh - the timeline's snapshots are snapshots like any
# other: on an image whose file /big is rewritten daily for ten days
# (gcfault dated-rewrite) and whose latest checkpoint a user made a
# snapshot (mkcp -s), nilfs-timeline keeps five days: the user's and the
# last checkpoints of four days before it, made snapshots; nilfs-fuse must list under snapshots/ exactly the snapshots
# lscp -s lists, the timeline's and the user's, and read each day's /big
# through snapshots/@CNO as dump.nilfs2 -c CNO reads it; nilfs-diff
# between two of the timeline's snapshots must name /big modified and
# nothing else, and between the user's and a timeline snapshot too.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip.
set -u
top=${top_builddir:-.}
fuse=$top/nilfs-fuse
for p in mkfs.nilfs2 lscp mkcp dump.nilfs2 nilfs-diff nilfs-timeline tests/gc/gcfault; do
	[ -x "$top/$p" ] || { echo "FAIL: $top/$p not built"; exit 1; }
done
export TZ=UTC0 LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-timeline-fuse.XXXXXX") || exit 1
mnt=$tmp/mnt
mkdir "$mnt"
fail() { echo "FAIL: $*"; exit 1; }
. "${top_srcdir:-.}/tests/image/fuse.sh"
trap fuse_cleanup EXIT
[ -n "${T_TIMELINE_KEEP:-}" ] && trap - EXIT
fuse_require

img=$tmp/img
t0=1759276800          # 2025-10-01 00:00 UTC
truncate -s 64M "$img"
mkdir "$tmp/src" && echo "kept as it is" >"$tmp/src/other" && head -c 1000 /dev/urandom >"$tmp/src/big"
"$top/mkfs.nilfs2" -q -f -b 1024 -B 128 -T $t0 -d "$tmp/src" "$img" || fail "mkfs"
times=
i=1
while [ $i -le 10 ]; do times="$times $((t0 + i * 86400))"; i=$((i + 1)); done
"$top/tests/gc/gcfault" dated-rewrite "$img" /big 20 $times || fail "gcfault dated-rewrite"
"$top/mkcp" -s "$img" >/dev/null || fail "mkcp -s"
user=$("$top/lscp" -s "$img" | awk 'NR > 1 { print $1 }')
[ "$(echo "$user" | wc -w)" = 1 ] || fail "no user snapshot"
"$top/nilfs-timeline" -q -S "$tmp/state" -H 0 -d 5 -w 0 -m 0 --now=$((t0 + 11 * 86400 + 100)) "$img" ||
	fail "nilfs-timeline"
tl=$(awk '/^[0-9]/ { print $1 }' "$tmp/state"/* | sort -n)
[ "$(echo "$tl" | wc -w)" = 4 ] || fail "the timeline made $(echo "$tl" | wc -w) snapshots, not 4"
want=$("$top/lscp" -s "$img" | awk 'NR > 1 { print "@" $1 }' | sort)
[ "$(printf '%s\n' $tl $user | sort -n | sed 's/^/@/' | sort)" = "$want" ] ||
	fail "lscp -s: $want, not the timeline's and the user's"

fuse_mount "$img" || fail "nilfs-fuse refused: $(cat "$tmp/fuse-err")"
[ "$(ls "$mnt/snapshots" | sort)" = "$want" ] ||
	fail "snapshots/ holds $(ls "$mnt/snapshots" | tr '\n' ' '), not $(echo $want)"
prev=
for c in $tl; do
	[ "$(readlink "$mnt/snapshots/@$c")" = "../@$c" ] || fail "snapshots/@$c does not point at @$c"
	"$top/dump.nilfs2" -c "$c" "$img" cat /big >"$tmp/want" || fail "dump.nilfs2 -c $c cat /big"
	cmp -s "$tmp/want" "$mnt/snapshots/@$c/big" || fail "snapshots/@$c/big is not checkpoint $c's /big"
	[ -z "$prev" ] || ! cmp -s "$tmp/want" "$tmp/prev" || fail "/big is the same at $prev and $c"
	cp "$tmp/want" "$tmp/prev"
	prev=$c
done
fuse_umount "reading the timeline's snapshots"

# nilfs-diff between the first two of the timeline's, and from the last
# of the timeline's to the user's (the last rewrite)
set -- $tl
"$top/nilfs-diff" "$img" "$1" "$2" >"$tmp/diff" 2>&1 || { cat "$tmp/diff"; fail "nilfs-diff $1 $2"; }
[ "$(cat "$tmp/diff")" = "$(printf 'M\t/big')" ] || { cat "$tmp/diff"; fail "nilfs-diff $1 $2: not /big modified"; }
"$top/nilfs-diff" "$img" "$4" "$user" >"$tmp/diff" 2>&1 || { cat "$tmp/diff"; fail "nilfs-diff $4 $user"; }
[ "$(cat "$tmp/diff")" = "$(printf 'M\t/big')" ] || { cat "$tmp/diff"; fail "nilfs-diff $4 $user: not /big modified"; }
echo "ok: snapshots/ and nilfs-diff see the timeline's snapshots $(echo $tl) beside the user's $user"
echo "PASS: $0"
