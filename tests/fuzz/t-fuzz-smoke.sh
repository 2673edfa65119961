#!/bin/sh
# Bounded fuzz smoke run of every on-disk parser under ASan and UBSan.
# FUZZ_SECONDS (default 60) sets the time per target.
set -u
src=${top_srcdir:-.}
CLANG=$(command -v clang || true)
if [ -z "$CLANG" ]; then
	echo "SKIP: clang (libFuzzer) is not installed"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libsrc=$(ls "$src"/lib/*.c)
san="-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
# shellcheck disable=SC2086
if ! "$CLANG" -std=c11 -D_DEFAULT_SOURCE -g -O1 $san -I"$src/include" -I"$src/lib" \
	-o "$tmp/fuzz_open" "$src/tests/fuzz/fuzz_open.c" $libsrc -lz; then
	echo "FAIL: cannot build the fuzz target"
	exit 1
fi
# shellcheck disable=SC2086
"$CLANG" -std=c11 -D_DEFAULT_SOURCE -I"$src/include" -o "$tmp/mkseed" \
	"$src/tests/fuzz/mkseed.c" "$src/tests/unit/testimg.c" $libsrc -lz || exit 1
mkdir -p "$tmp/corpus"
"$tmp/mkseed" "$tmp/corpus/minimal.img" || exit 1
# a real mkfs image reaches the cpfile, ifile, DAT and directory parsers
MKFS=$(PATH=/usr/sbin:/sbin:$PATH command -v mkfs.nilfs2 || true)
if [ -n "$MKFS" ]; then
	truncate -s 1M "$tmp/corpus/mkfs-1k.img"
	"$MKFS" -q -f -b 1024 -B 16 "$tmp/corpus/mkfs-1k.img" >/dev/null 2>&1 ||
		rm -f "$tmp/corpus/mkfs-1k.img"
fi
"$tmp/fuzz_open" -max_total_time="${FUZZ_SECONDS:-60}" -max_len=1100000 \
	-rss_limit_mb=2048 -print_final_stats=1 "$tmp/corpus" 2>"$tmp/log"
rc=$?
tail -n 15 "$tmp/log"
[ $rc -eq 0 ] || { echo "FAIL: fuzz_open found a crash (exit $rc)"; exit 1; }
echo "ok: fuzz_open ran ${FUZZ_SECONDS:-60}s without a finding"

# the checker, main() and all, on the same corpus
fsrc=$(ls "$src"/sbin/fsck/*.c)
# shellcheck disable=SC2086
if ! "$CLANG" -std=c11 -D_DEFAULT_SOURCE -g -O1 $san -Dmain=fsck_main -DPACKAGE_VERSION='"fuzz"' \
	-I"$src/include" -I"$src/lib" -I"$src/sbin/fsck" -o "$tmp/fuzz_fsck" \
	"$src/tests/fuzz/fuzz_fsck.c" $fsrc $libsrc -lz; then
	echo "FAIL: cannot build the fsck fuzz target"
	exit 1
fi
rm -rf "$tmp/corpus.fsck" && cp -r "$tmp/corpus" "$tmp/corpus.fsck"
ASAN_OPTIONS=allocator_may_return_null=1 "$tmp/fuzz_fsck" -max_total_time="${FUZZ_SECONDS:-60}" \
	-max_len=1100000 -rss_limit_mb=2048 -print_final_stats=1 "$tmp/corpus.fsck" 2>"$tmp/log"
rc=$?
tail -n 15 "$tmp/log"
[ $rc -eq 0 ] || { echo "FAIL: fuzz_fsck found a crash (exit $rc)"; exit 1; }
echo "ok: fuzz_fsck ran ${FUZZ_SECONDS:-60}s without a finding"
