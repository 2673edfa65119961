#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
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
for t in fuzz_open fuzz_writer fuzz_undo; do
	# shellcheck disable=SC2086
	if ! "$CLANG" -std=c11 -D_DEFAULT_SOURCE -g -O1 $san -I"$src/include" -I"$src/lib" \
		-o "$tmp/$t" "$src/tests/fuzz/$t.c" $libsrc -lz; then
		echo "FAIL: cannot build the fuzz target $t"
		exit 1
	fi
done
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
# ours, with a populated root and a second (offline) checkpoint
OURS=${top_builddir:-.}/mkfs.nilfs2
if [ -x "$OURS" ]; then
	truncate -s 1M "$tmp/corpus/ours-1k.img"
	mkdir -p "$tmp/tree/sub" && echo x >"$tmp/tree/sub/f" && ln -s f "$tmp/tree/l"
	"$OURS" -q -f -b 1024 -B 16 -d "$tmp/tree" "$tmp/corpus/ours-1k.img" >/dev/null 2>&1 ||
		rm -f "$tmp/corpus/ours-1k.img"
fi
for t in fuzz_open fuzz_writer fuzz_undo; do
	mkdir -p "$tmp/corpus-$t"
	cp "$tmp"/corpus/* "$tmp/corpus-$t/"
	"$tmp/$t" -max_total_time="${FUZZ_SECONDS:-60}" -timeout=30 -max_len=1100000 \
		-rss_limit_mb=2048 -print_final_stats=1 "$tmp/corpus-$t" 2>"$tmp/log"
	rc=$?
	tail -n 8 "$tmp/log"
	[ $rc -eq 0 ] || { echo "FAIL: $t found a crash (exit $rc)"; grep -A30 ERROR "$tmp/log" | head -50; exit 1; }
	echo "ok: $t ran ${FUZZ_SECONDS:-60}s without a finding"
done

# the checker, main() and all, on the same corpus
# fsck.nilfs2 links libnlfscmd: all of common/, as the targets link all of lib/
fsrc="$(ls "$src"/sbin/fsck/*.c "$src"/common/*.c)"
# shellcheck disable=SC2086
if ! "$CLANG" -std=c11 -D_DEFAULT_SOURCE -g -O1 $san -Dmain=fsck_main -DPACKAGE_VERSION='"fuzz"' \
	-I"$src/include" -I"$src/lib" -I"$src/common" -I"$src/sbin/fsck" -o "$tmp/fuzz_fsck" \
	"$src/tests/fuzz/fuzz_fsck.c" $fsrc $libsrc -lz; then
	echo "FAIL: cannot build the fsck fuzz target"
	exit 1
fi
rm -rf "$tmp/corpus.fsck" && cp -r "$tmp/corpus" "$tmp/corpus.fsck"
ASAN_OPTIONS=allocator_may_return_null=1 "$tmp/fuzz_fsck" -max_total_time="${FUZZ_SECONDS:-60}" -timeout=30 \
	-max_len=1100000 -rss_limit_mb=2048 -print_final_stats=1 "$tmp/corpus.fsck" 2>"$tmp/log"
rc=$?
tail -n 15 "$tmp/log"
[ $rc -eq 0 ] || { echo "FAIL: fuzz_fsck found a crash (exit $rc)"; exit 1; }
echo "ok: fuzz_fsck ran ${FUZZ_SECONDS:-60}s without a finding"
