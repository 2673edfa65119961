#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-fsck-random.sh - random faults that nobody chose: for each seed,
# "corrupt --random SEED" damages one block a checker reads (a summary,
# super root, superblock, metadata file block, B-tree node, directory or
# symlink block; live three times in four; checksums mostly made to fit
# the damage) of a copy of a base, and fsck.nilfs2 must keep its promises:
#   - no crash, and an exit status of fsck(8) (0, 1, 4 or 8) from -n and -y;
#   - a volume -n calls clean, -y leaves byte for byte as it was;
#   - after -y says it repaired (0 or 1), a second -fn is clean;
#   - a file of the base's latest tree that -y takes away (contents, target
#     or presence differ; /lost+found left out), though the damaged volume
#     still read it back whole, is named in what -y printed: by its path
#     or inode number, or a directory's above it;
#   - where -y gives up (4 or 8) it leaves the volume as it was, or one
#     on which -fn tells no more problems than before, and what the
#     damaged volume still read back whole reads back the same, unless
#     named.
# Bases: kernel (tests/fsck/images/kernel-1k.img.xz), rich
# (kernel-rich.img.xz, 69 checkpoints, snapshots) and ours (our mkfs.nilfs2
# -d of tests/fsck/cases: files in git, so the draws are the same on every
# machine).  The files are read on the host with dump.nilfs2 extract;
# tests/kernel/t-fsck-random.sh has the kernel read them too.  A failing
# seed is kept under $KEEP (default the build tree's random-fail.SEED/) and
# named with its reproducer.
#   SEEDS (default 40) FIRST (default 1) BASES ("kernel rich ours")
#   KEEP_REPAIRED=DIR keeps each volume -y changed and repaired, as
#   SEED-BASE.img, with the files read back on the host (SEED-BASE.files)
#   and the draw (SEED-BASE.draw), for tests/kernel/t-fsck-random.sh.
# bench/repair.sh runs it long.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip.
set -u
top=$(cd "${top_builddir:-.}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/../.." && pwd)
fsck=$top/fsck.nilfs2 corrupt=$top/tests/fsck/corrupt dump=$top/dump.nilfs2 mkfs=$top/mkfs.nilfs2
SEEDS=${SEEDS:-40}
FIRST=${FIRST:-1}
BASES=${BASES:-kernel rich ours}
KEEP=${KEEP:-$top}
. "$here/../kernel/manifest.sh"
for p in "$fsck" "$corrupt" "$dump" "$mkfs"; do
	[ -x "$p" ] || { echo "build first: $p missing"; exit 1; }
done
command -v xz >/dev/null || { echo "SKIP: no xz"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/fsck-random.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export TZ=UTC LC_ALL=C

# the files and symlinks of a tree: "H sum path" and "L path -> target";
# 1 if it cannot be extracted, 2 if it holds a file of more than 64 MiB or
# one the host cannot make (a damaged i_size the check cannot tell from a
# sparse file, extracted as a hole of up to exabytes; the bases hold none),
# which is not hashed
files() {
	rm -rf "$tmp/x"
	if ! "$dump" "$1" extract / "$tmp/x" >/dev/null 2>"$tmp/x.err"; then
		grep -q 'File too large' "$tmp/x.err" && return 2   # past the host's limit
		return 1
	fi
	[ -z "$(find "$tmp/x" -type f -size +64M | head -n 1)" ] || return 2
	manifest "$tmp/x" | grep -v '^S ' | grep -v ' \./lost+found' | sort
}
# the path of a files() line
path_of() { awk '{ p = $1 == "H" ? $3 : $2; sub(/^\./, "", p); print p }'; }

for b in $BASES; do
	case $b in
	kernel) xz -dc "$here/images/kernel-1k.img.xz" >"$tmp/$b.base" ;;
	rich) xz -dc "$here/images/kernel-rich.img.xz" >"$tmp/$b.base" ;;
	ours) truncate -s 160M "$tmp/$b.base" &&
		"$mkfs" -q -f -T 1700000000 -U 0c4a2e6a-41a4-4c57-9a2f-35d0b9c4f0e1 \
			-d "$srcdir/tests/fsck/cases" "$tmp/$b.base" >/dev/null ;;
	*) echo "unknown base $b"; exit 1 ;;
	esac || { echo "cannot make base $b"; exit 1; }
	files "$tmp/$b.base" >"$tmp/$b.files" || { echo "base $b does not read back"; exit 1; }
done

fails=0 n=0 undetected=0 repaired=0 gaveup=0
fail() {
	echo "FAIL seed $seed ($base): $1"
	echo "  $(cat "$tmp/draw")"
	echo "  reproduce: corrupt --random $seed on base $base, then fsck.nilfs2 -y"
	sed 's/^/  | /' "$2" | head -n 40
	mkdir -p "$KEEP/random-fail.$seed" && cp --sparse=always "$tmp/$base.base" "$KEEP/random-fail.$seed/base.img" &&
		cp --sparse=always "$tmp/d.img" "$KEEP/random-fail.$seed/after.img" &&
		cp "$tmp"/*.out "$tmp/draw" "$KEEP/random-fail.$seed/" 2>/dev/null
	fails=$((fails + 1))
}
# the status of a fsck run: a crash or a status fsck(8) does not have fails
status_ok() {
	[ "$1" -lt 128 ] && [ $(($1 & ~47)) -eq 0 ] || return 1
	! grep -q 'AddressSanitizer\|runtime error\|LeakSanitizer' "$2"
}
# the count of errors a -n run found (its last line says)
errors_of() { sed -n 's/.*: \([0-9][0-9]*\) error(s) found.*/\1/p' "$1" | tail -n 1 | grep . || echo 0; }
# the lost paths of $1 not in the damaged volume's losses and not named in $2
unnamed() {
	while read -r p; do
		[ -s "$tmp/d.files" ] && ! grep -qxF "$p" "$tmp/d.intact" && continue
		q=$p named=
		while [ -n "$q" ]; do
			grep -qF "$q" "$2" && { named=1; break; }
			ino=$("$dump" "$tmp/$base.base" inode "$q" 2>/dev/null | awk 'NR == 1 { print $2 }')
			[ -n "$ino" ] && grep -qE "inode $ino([^0-9]|\$)" "$2" && { named=1; break; }
			q=${q%/*}
		done
		[ -n "$named" ] || echo "$p"
	done <"$1"
}

seed=$FIRST
while [ "$seed" -lt $((FIRST + SEEDS)) ]; do
	for base in $BASES; do
		n=$((n + 1))
		rm -f "$tmp"/*.out
		cp --sparse=always "$tmp/$base.base" "$tmp/d.img"
		"$corrupt" --random "$seed" "$tmp/d.img" >"$tmp/draw" 2>&1 || { fail "corrupt failed" "$tmp/draw"; continue; }
		"$fsck" -fn "$tmp/d.img" >"$tmp/n.out" 2>&1
		rc=$?
		status_ok $rc "$tmp/n.out" || { fail "fsck -fn exit $rc" "$tmp/n.out"; continue; }
		if [ $rc -eq 0 ] && ! grep -q ': warning: ' "$tmp/n.out"; then
			undetected=$((undetected + 1))
			cp --sparse=always "$tmp/d.img" "$tmp/d0.img"
			"$fsck" -y "$tmp/d.img" >"$tmp/y.out" 2>&1
			rc=$?
			[ $rc -eq 0 ] || { fail "-n found nothing, -y exit $rc" "$tmp/y.out"; continue; }
			cmp -s "$tmp/d.img" "$tmp/d0.img" || fail "-y changed a volume -n calls clean" "$tmp/y.out"
			continue
		fi
		files "$tmp/d.img" >"$tmp/d.files" 2>/dev/null || : >"$tmp/d.files"
		comm -12 "$tmp/$base.files" "$tmp/d.files" | path_of | sort -u >"$tmp/d.intact"
		cp --sparse=always "$tmp/d.img" "$tmp/d0.img"
		"$fsck" -y "$tmp/d.img" >"$tmp/y.out" 2>&1
		rc=$?
		status_ok $rc "$tmp/y.out" || { fail "fsck -y exit $rc" "$tmp/y.out"; continue; }
		case $rc in
		0|1)
			repaired=$((repaired + 1))
			"$fsck" -fn "$tmp/d.img" >"$tmp/n2.out" 2>&1
			rc2=$?
			[ $rc2 -eq 0 ] || { fail "-y exit $rc, then -fn exit $rc2" "$tmp/n2.out"; continue; }
			files "$tmp/d.img" >"$tmp/r.files" 2>/dev/null
			case $? in
			0) ;;
			2) continue ;;   # a huge i_size: nothing to compare
			*) fail "the repaired volume does not read back" "$tmp/y.out"; continue ;;
			esac
			# for tests/kernel/t-fsck-random.sh: the kernel must read the same
			if [ -n "${KEEP_REPAIRED:-}" ] && ! cmp -s "$tmp/d.img" "$tmp/d0.img"; then
				cp --sparse=always "$tmp/d.img" "$KEEP_REPAIRED/$seed-$base.img" &&
					cp "$tmp/r.files" "$KEEP_REPAIRED/$seed-$base.files" &&
					cp "$tmp/draw" "$KEEP_REPAIRED/$seed-$base.draw"
			fi
			;;
		*)
			gaveup=$((gaveup + 1))
			# left as it was: nothing taken, nothing made worse
			cmp -s "$tmp/d.img" "$tmp/d0.img" && continue
			# changed: no more problems than before
			"$fsck" -fn "$tmp/d.img" >"$tmp/n2.out" 2>&1
			before=$(errors_of "$tmp/n.out")
			after=$(errors_of "$tmp/n2.out")
			[ "$after" -le "$before" ] ||
				{ fail "-y (exit $rc) changed the volume, and -fn then tells $after problems, not $before" "$tmp/n2.out"; continue; }
			files "$tmp/d.img" >"$tmp/r.files" 2>/dev/null || : >"$tmp/r.files"
			;;
		esac
		comm -23 "$tmp/$base.files" "$tmp/r.files" | path_of | sort -u >"$tmp/lost"
		unnamed "$tmp/lost" "$tmp/y.out" >"$tmp/unnamed"
		[ -s "$tmp/unnamed" ] && fail "-y (exit $rc) took away, unnamed: $(head -n 5 "$tmp/unnamed" | paste -sd ' ' -)" "$tmp/y.out"
	done
	seed=$((seed + 1))
done
echo "$n draws (seeds $FIRST to $((FIRST + SEEDS - 1)), bases $BASES): $undetected undetected," \
	"$repaired repaired, $gaveup left to the user (exit 4 or 8), $fails failed"
[ $fails -eq 0 ]
