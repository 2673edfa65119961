#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bounded fuzz run of the send stream's reader (tests/fuzz/fuzz_stream.c)
# under ASan and UBSan, from a stream holding every command.  As
# t-fuzz-smoke.sh: a fixed seed and input count (FUZZ_SEED, FUZZ_SCALE, or
# FUZZ_RUNS inputs), FUZZ_SECONDS only caps a slow run.
set -u
src=${top_srcdir:-.}
CLANG=$(command -v clang || true)
if [ -z "$CLANG" ]; then
	echo "SKIP: clang (libFuzzer) is not installed"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
san="-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
cc_stream() {  # OUTPUT FLAGS...
	out=$1
	shift
	"$CLANG" -std=c11 -D_DEFAULT_SOURCE -g -O1 -I"$src/include" -I"$src/common" "$@" -o "$out" \
		"$src/tests/fuzz/fuzz_stream.c" "$src/common/sendstream.c" "$src/common/crc32c.c"
}
# shellcheck disable=SC2086
cc_stream "$tmp/fuzz_stream" $san || { echo "FAIL: cannot build fuzz_stream"; exit 1; }
cc_stream "$tmp/mkseed" -DFUZZ_STREAM_SEED -Dmain=main || { echo "FAIL: cannot build the seed maker"; exit 1; }
mkdir -p "$tmp/corpus"
"$tmp/mkseed" "$tmp/corpus/every-command" || { echo "FAIL: seed"; exit 1; }
runs=${FUZZ_RUNS:-$((1000000 * ${FUZZ_SCALE:-1}))}
"$tmp/fuzz_stream" -seed="${FUZZ_SEED:-1}" -max_total_time="${FUZZ_SECONDS:-120}" -timeout=30 \
	-runs="$runs" -max_len=4096 -print_final_stats=1 "$tmp/corpus" 2>"$tmp/log"
rc=$?
tail -n 6 "$tmp/log"
[ $rc -eq 0 ] || { echo "FAIL: fuzz_stream found a crash (exit $rc)"; grep -A30 ERROR "$tmp/log" | head -50; exit 1; }
echo "ok: fuzz_stream ran $(sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/log") of $runs inputs (seed ${FUZZ_SEED:-1}) without a finding"
