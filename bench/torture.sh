#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/torture.sh - the randomized torture test, long: seeds FIRST ..
# FIRST+SEEDS-1, STEPS steps each (tests/kernel/torture.sh).  Prints a line
# per seed, then seeds run, steps, failures and every failure's reproducer.
#
#   bench/torture.sh SEEDS=N [STEPS=M] [FIRST=K] [JOBS=J] [DIR=path] [HOST=all]
#
# HOST=all: half the host steps are nilfs-resize (grow, shrink), nilfs-tune
# (-L, -U, -O) or fsck.nilfs2 -y -z then nilfs-undo (TORTURE_HOST=all).
# Run from the build tree (or set top_builddir; HOST=all needs
# make tests/fsck/corrupt, a check program); the guests are slow under
# TCG: a seed of 20 steps takes a few minutes.  Failing seeds' directories
# are kept under DIR (default /tmp/torture.<pid>).
SEEDS=10 STEPS=20 FIRST=1 JOBS=1 DIR= HOST=
for a in "$@"; do
	case $a in
	SEEDS=*|STEPS=*|FIRST=*|JOBS=*|DIR=*|HOST=*) eval "${a%%=*}=\${a#*=}" ;;
	*) echo "usage: $0 SEEDS=N [STEPS=M] [FIRST=K] [JOBS=J] [DIR=path] [HOST=all]" >&2; exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$here/..}
export top_builddir
DIR=${DIR:-${TMPDIR:-/tmp}/torture.$$}
mkdir -p "$DIR/scripts" "$DIR/bin" || exit 1
# a private copy of the scripts and programs: rebuilding or editing the
# tree must not change a run
cp -p "$here/../tests/kernel/torture.sh" "$here/../tests/kernel/guest.sh" \
	"$here/../tests/kernel/manifest.sh" "$here/../tests/kernel/crashaccept.sh" "$DIR/scripts/" || exit 1
for p in fsck.nilfs2 lscp lssu mkcp chcp rmcp mkfs.nilfs2 dump.nilfs2 nilfs_cleanerd nilfs-clean \
	${HOST:+nilfs-resize nilfs-tune nilfs-undo tests/fsck/corrupt}; do
	[ -x "$top_builddir/$p" ] || { echo "$0: $top_builddir/$p is not built (make $p)" >&2; exit 1; }
	cp "$top_builddir/$p" "$DIR/bin/" || exit 1
done
[ -n "$HOST" ] && export TORTURE_HOST="$HOST"
top_builddir=$DIR/bin
t0=$(date +%s)

one() {  # $1 seed
	d=$DIR/s$1
	"$DIR/scripts/torture.sh" "$1" "$STEPS" "$d" >"$d.out" 2>&1
	rc=$?
	tail -n 1 "$d/log" 2>/dev/null || tail -n 1 "$d.out"
	[ $rc = 0 ] && rm -rf "$d" "$d.out"
	return 0
}

# JOBS workers, each on every JOBS-th seed, so a slow seed holds up only its own
last=$((FIRST + SEEDS - 1)) j=0
while [ $j -lt "$JOBS" ]; do
	(
		seed=$((FIRST + j))
		while [ $seed -le $last ]; do
			one $seed
			seed=$((seed + JOBS))
		done
	) &
	j=$((j + 1))
done | tee "$DIR/summary"
wait

nrun=$(grep -c '^seed [0-9]*: [0-9]* steps' "$DIR/summary")
nsteps=$(sed -n 's/^seed [0-9]*: \([0-9]*\) steps.*/\1/p' "$DIR/summary" | awk '{ n += $1 } END { print n + 0 }')
nfail=$(grep -c 'FAIL at step' "$DIR/summary")
nhang=$(sed -n 's/.*boots (\([0-9]*\) hung.*/\1/p' "$DIR/summary" | awk '{ n += $1 } END { print n + 0 }')
nx=$(sed -n 's/.*, \([0-9]*\) resize, tune or fsck-undo.*/\1/p' "$DIR/summary" | awk '{ n += $1 } END { print n + 0 }')
echo "seeds run: $nrun, steps: $nsteps${HOST:+ ($nx of them nilfs-resize, nilfs-tune or fsck -y -z and nilfs-undo)}, failures: $nfail, guests booted again after hanging before their script: $nhang ($(( $(date +%s) - t0 )) s)"
for f in "$DIR"/s*/REPRO; do
	[ -f "$f" ] || continue
	echo "--- $(dirname "$f")"
	cat "$f"
done
[ "$nfail" = 0 ]
