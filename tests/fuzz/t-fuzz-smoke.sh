#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Bounded fuzz smoke run of every on-disk parser under ASan and UBSan.
# Deterministic: a fixed seed and a fixed number of inputs per target, so
# that a slower machine runs a prefix of the same inputs and a pass here
# means a pass in CI (FUZZ_SECONDS, default 180, only caps a slow run).
# FUZZ_SEED and FUZZ_SCALE (a multiplier of the input counts) vary it;
# open-ended campaigns are bench/fuzz.sh's, which may also name the targets
# (FUZZ_TARGETS), set the inputs per target (FUZZ_RUNS) and add the files
# of a directory to every target's corpus (FUZZ_EXTRA_CORPUS), and keep
# what each target's corpus grew to in FUZZ_KEEP_CORPUS/TARGET, to start
# a later campaign from.
set -u
src=${top_srcdir:-.}
CLANG=$(command -v clang || true)
if [ -z "$CLANG" ]; then
	echo "SKIP: clang (libFuzzer) is not installed"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
libsrc=$(find "$src/lib" -name '*.c' | sort)
san="-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
targets=${FUZZ_TARGETS:-fuzz_open fuzz_writer fuzz_undo fuzz_diff fuzz_fsck}
lib_targets=
for t in $targets; do
	case $t in
	fuzz_open | fuzz_writer | fuzz_undo | fuzz_diff) lib_targets="$lib_targets $t" ;;
	esac
done
for t in $lib_targets; do
	# shellcheck disable=SC2086
	if ! "$CLANG" -std=c11 -D_DEFAULT_SOURCE -g -O1 $san -I"$src/include" -I"$src/lib" \
		-o "$tmp/$t" "$src/tests/fuzz/$t.c" $libsrc -lz; then
		echo "FAIL: cannot build the fuzz target $t"
		exit 1
	fi
done
# shellcheck disable=SC2086
"$CLANG" -std=c11 -D_DEFAULT_SOURCE -I"$src/include" -o "$tmp/mkseed" \
	"$src/tests/fuzz/mkseed.c" "$src/tests/unit/testimg.c" "$src/tests/unit/diffimg.c" \
	$libsrc -lz || exit 1
mkdir -p "$tmp/corpus"
# the diff walk's seed: five checkpoints the writer made (tests/unit/diffimg.c)
"$tmp/mkseed" "$tmp/corpus/minimal.img" "$tmp/diff-3cp.img" || exit 1
# kept images, not made afresh, so that every run starts from the same bytes
# (a fresh mkfs has a new UUID, CRC seed and times): nilfs-tools' mkfs.nilfs2
# -b 1024 -B 16 on 1 MiB, ours with -d of a small tree (a root with a
# directory, a file and a symlink), and the first after the kernel wrote
# files, links, a snapshot, removals and a rename in it (seeds/kernel-1k.sh);
# they reach the cpfile, ifile, DAT, B-tree and directory parsers.  Inputs
# that found a bug stay as seeds too (fsck-leak-notes: fsck's notes of an
# older checkpoint's directories leaked; fsck-remap-iblocks: a rebuilt map
# took a damaged i_blocks off the checkpoint's count in signed arithmetic
# that overflowed; both bench/fuzz.sh's campaigns)
for seed in "$src"/tests/fuzz/seeds/*.img.xz; do
	xz -dc "$seed" >"$tmp/corpus/$(basename "$seed" .xz)" || exit 1
done
for extra in "${FUZZ_EXTRA_CORPUS:-/nonexistent}"/*; do
	[ -f "$extra" ] && { cp "$extra" "$tmp/corpus/" || exit 1; }
done
# the images without their zero middle (fuzz_image.h): a mutation lands in
# bytes in use, and an execution copies and hashes a sixth of a kernel
# seed's megabyte; the targets grow them back to the very same images
"$tmp/mkseed" --trim "$tmp"/corpus/* "$tmp/diff-3cp.img" || exit 1
# the undo target's own seed: an undo file of a few writes
"$tmp/mkseed" --undo "$tmp/undo-writes" || exit 1
# inputs per target: about 30 s each on an idle core here (fuzz_diff: 10000
# in about 60 s, most of them refused before the walk by a checksum)
runs() {
	[ -n "${FUZZ_RUNS:-}" ] && { echo "$FUZZ_RUNS"; return; }
	case $1 in
	fuzz_open) echo $((30000 * ${FUZZ_SCALE:-1})) ;;
	fuzz_writer) echo $((16000 * ${FUZZ_SCALE:-1})) ;;
	fuzz_undo) echo $((7000 * ${FUZZ_SCALE:-1})) ;;
	fuzz_fsck) echo $((1000 * ${FUZZ_SCALE:-1})) ;;
	fuzz_diff) echo $((10000 * ${FUZZ_SCALE:-1})) ;;
	esac
}
# the corpus DIR of target T, kept where FUZZ_KEEP_CORPUS says
keep() {
	[ -n "${FUZZ_KEEP_CORPUS:-}" ] || return 0
	mkdir -p "$FUZZ_KEEP_CORPUS/$2" && cp "$1"/* "$FUZZ_KEEP_CORPUS/$2/"
}
# what libFuzzer says it ran: FUZZ_SECONDS may have stopped it early
executed() {
	sed -n 's/^stat::number_of_executed_units: *//p' "$tmp/log"
}
limits="-seed=${FUZZ_SEED:-1} -max_total_time=${FUZZ_SECONDS:-180} -timeout=30"
for t in $lib_targets; do
	mkdir -p "$tmp/corpus-$t"
	cp "$tmp"/corpus/* "$tmp/corpus-$t/"
	[ $t = fuzz_diff ] && cp "$tmp/diff-3cp.img" "$tmp/corpus-$t/"
	[ $t = fuzz_undo ] && cp "$tmp/undo-writes" "$tmp/corpus-$t/"
	# shellcheck disable=SC2086
	"$tmp/$t" $limits -runs="$(runs $t)" -max_len=1100000 -dict="$src/tests/fuzz/nilfs.dict" \
		-rss_limit_mb=2048 -print_final_stats=1 "$tmp/corpus-$t" 2>"$tmp/log"
	rc=$?
	keep "$tmp/corpus-$t" "$t"
	tail -n 8 "$tmp/log"
	[ $rc -eq 0 ] || { echo "FAIL: $t found a crash (exit $rc)"; grep -A30 ERROR "$tmp/log" | head -50; exit 1; }
	echo "ok: $t ran $(executed) of $(runs $t) inputs (seed ${FUZZ_SEED:-1}) without a finding"
done

# the checker, main() and all, on the same corpus
case " $targets " in
*" fuzz_fsck "*) ;;
*) exit 0 ;;
esac
# fsck.nilfs2 links libnlfscmd: all of common/, as the targets link all of lib/
# (devtag.c and volerr.c: libblkid; mounts.c: libmount; timeline_state.c: libuuid);
# its readahead threads run in turn (fuzz_fsck.c says why)
fsrc="$(ls "$src"/sbin/fsck/*.c "$src"/common/*.c)"
blkid="$(pkg-config --cflags --libs blkid mount uuid 2>/dev/null || echo -lblkid -lmount -luuid)"
# shellcheck disable=SC2086
if ! "$CLANG" -std=c11 -D_DEFAULT_SOURCE -g -O1 $san -Dmain=fsck_main -DPACKAGE_VERSION='"fuzz"' \
	-Dpthread_create=fuzz_pthread_create -Dpthread_join=fuzz_pthread_join \
	-I"$src/include" -I"$src/lib" -I"$src/common" -I"$src/sbin/fsck" -o "$tmp/fuzz_fsck" \
	"$src/tests/fuzz/fuzz_fsck.c" $fsrc $libsrc -lz $blkid; then
	echo "FAIL: cannot build the fsck fuzz target"
	exit 1
fi
rm -rf "$tmp/corpus.fsck" && cp -r "$tmp/corpus" "$tmp/corpus.fsck"
# shellcheck disable=SC2086
ASAN_OPTIONS=allocator_may_return_null=1 "$tmp/fuzz_fsck" $limits -runs="$(runs fuzz_fsck)" \
	-max_len=1100000 -dict="$src/tests/fuzz/nilfs.dict" -rss_limit_mb=2048 -print_final_stats=1 \
	"$tmp/corpus.fsck" 2>"$tmp/log"
rc=$?
keep "$tmp/corpus.fsck" fuzz_fsck
tail -n 15 "$tmp/log"
[ $rc -eq 0 ] || { echo "FAIL: fuzz_fsck found a crash (exit $rc)"; exit 1; }
echo "ok: fuzz_fsck ran $(executed) of $(runs fuzz_fsck) inputs (seed ${FUZZ_SEED:-1}) without a finding"
