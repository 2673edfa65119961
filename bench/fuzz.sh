#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# An open-ended fuzz campaign: the smoke tests' targets and seeds (the
# on-disk parsers', the send stream's), with a
# new seed per round and SCALE times its input counts, until ROUNDS rounds
# are done or one finds something (its log is kept in the build tree).
#   bench/fuzz.sh [ROUNDS [SCALE]]     (defaults: 10 rounds, scale 20)
set -u
src=${top_srcdir:-$(dirname "$0")/..}
rounds=${1:-10}
scale=${2:-20}
first=${FUZZ_FIRST_SEED:-$(date +%s)}
i=0
while [ "$i" -lt "$rounds" ]; do
	seed=$((first + i))
	echo "round $((i + 1))/$rounds: seed $seed, scale $scale"
	for t in t-fuzz-smoke t-fuzz-stream; do
		if ! FUZZ_SEED=$seed FUZZ_SCALE=$scale FUZZ_SECONDS=$((scale * 120)) \
			top_srcdir="$src" sh "$src/tests/fuzz/$t.sh" >"fuzz-$seed.log" 2>&1; then
			echo "FINDING with seed $seed ($t): see fuzz-$seed.log"
			tail -n 40 "fuzz-$seed.log"
			exit 1
		fi
		grep '^ok:' "fuzz-$seed.log"
		rm -f "fuzz-$seed.log"
	done
	i=$((i + 1))
done
