#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# An open-ended fuzz campaign: the smoke tests' targets and seeds (the
# on-disk parsers', the checker's, the send stream's), with a new seed per
# round and SCALE times their input counts (or FUZZ_RUNS inputs per
# target), until ROUNDS rounds are done or one finds something (its log is
# kept in the build tree).  Beside the kept seeds, the corpus holds
# FUZZ_DRAWS (default 16) damaged copies of each kernel-written seed
# (tests/fuzz/seeds/kernel-*.img.xz), each with the one fault that
# `tests/fsck/corrupt --random ROUND_SEED*1000+K` draws, so that the
# fuzzers also start from what a bad disk or a buggy writer leaves
# (t-fuzz-smoke.sh cuts every image to its input form, fuzz_image.h).
#   bench/fuzz.sh [ROUNDS [SCALE]]     (defaults: 10 rounds, scale 20)
#   FUZZ_TARGETS="fuzz_open fuzz_writer fuzz_undo fuzz_diff fuzz_fsck fuzz_stream"
#                 (the default) runs only those; FUZZ_SECONDS caps each
#                 target's run (default SCALE * 120 s); FUZZ_KEEP_CORPUS=DIR
#                 keeps each target's grown corpus in DIR/TARGET
# Run it in a build tree (tests/fsck/corrupt is built by `make check` or
# `make tests/fsck/corrupt`).
set -u
src=${top_srcdir:-$(dirname "$0")/..}
rounds=${1:-10}
scale=${2:-20}
first=${FUZZ_FIRST_SEED:-$(date +%s)}
targets=${FUZZ_TARGETS:-fuzz_open fuzz_writer fuzz_undo fuzz_diff fuzz_fsck fuzz_stream}
draws=${FUZZ_DRAWS:-16}
corrupt=${CORRUPT:-./tests/fsck/corrupt}
smoke_targets=
stream=
for t in $targets; do
	case $t in
	fuzz_stream) stream=1 ;;
	*) smoke_targets="$smoke_targets $t" ;;
	esac
done
if [ "$draws" -gt 0 ] && [ -n "$smoke_targets" ] && [ ! -x "$corrupt" ]; then
	echo "bench/fuzz.sh: $corrupt is not built (make tests/fsck/corrupt), or set FUZZ_DRAWS=0"
	exit 1
fi
extra=$(mktemp -d)
trap 'rm -rf "$extra"' EXIT
i=0
while [ "$i" -lt "$rounds" ]; do
	seed=$((first + i))
	echo "round $((i + 1))/$rounds: seed $seed, scale $scale, targets $targets"
	rm -f "$extra"/*
	for k in $(seq 1 "$draws"); do
		for base in "$src"/tests/fuzz/seeds/kernel-*.img.xz; do
			[ -f "$base" ] && [ -n "$smoke_targets" ] || continue
			img="$extra/$(basename "$base" .img.xz)-random-$((seed * 1000 + k)).img"
			xz -dc "$base" >"$img" || exit 1
			"$corrupt" --random $((seed * 1000 + k)) "$img" >>"$extra/draws.txt" ||
				rm -f "$img"
		done
	done
	[ -f "$extra/draws.txt" ] && { echo "  $(grep -c . "$extra/draws.txt") damaged kernel-written seeds:"; sed 's/^/    /' "$extra/draws.txt"; rm -f "$extra/draws.txt"; }
	for t in ${smoke_targets:+t-fuzz-smoke} ${stream:+t-fuzz-stream}; do
		# a log of its own: two campaigns may share the build tree
		log=fuzz-$seed-$t.$$.log
		start=$(date +%s)
		if ! FUZZ_SEED=$seed FUZZ_SCALE=$scale FUZZ_SECONDS=${FUZZ_SECONDS:-$((scale * 120))} \
			FUZZ_TARGETS="$smoke_targets" FUZZ_EXTRA_CORPUS="$extra" \
			top_srcdir="$src" sh "$src/tests/fuzz/$t.sh" >"$log" 2>&1; then
			echo "FINDING with seed $seed ($t): see $log"
			tail -n 40 "$log"
			exit 1
		fi
		grep -E '^ok:|^Done|stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$log"
		# the load beside the rates: a campaign shares the machine
		echo "  $t: $(($(date +%s) - start)) s, load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
		rm -f "$log"
	done
	i=$((i + 1))
done
