#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-fuse-damage.sh - nilfs-fuse on images our mkfs -d and mkcp made, no
# kernel needed: the latest tree equals the source tree (diff -r) and each
# snapshot reads whole; then on copies with random blocks overwritten
# (seeded, though the bytes are random), a walk of every checkpoint (stat, readlink, cat of each file)
# gets data or errors, never a crash or a hang: the daemon lives until it
# is unmounted and exits 0, or refuses the image with a message.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip.
set -u
top=${top_builddir:-.}
fuse=$top/nilfs-fuse
SEEDS=${FUSE_DAMAGE_SEEDS:-12}
. "${top_srcdir:-.}/tests/image/fuse.sh"
fuse_require
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-fuse-damage.XXXXXX") || exit 1
mnt=$tmp/mnt
fpid=
trap fuse_cleanup EXIT
fail() { echo "FAIL: $*"; exit 1; }
mkdir -p "$mnt" "$tmp/src/a/b" "$tmp/src/c"
i=0
while [ $i -lt 60 ]; do echo "file $i" >"$tmp/src/a/f$i"; i=$((i + 1)); done
head -c 3000000 /dev/urandom >"$tmp/src/big"
head -c 5000 /dev/urandom >"$tmp/src/a/b/mid"
ln -s ../big "$tmp/src/c/link"
ln "$tmp/src/a/f1" "$tmp/src/c/hard"
truncate -s 256M "$tmp/img"
"$top/mkfs.nilfs2" -q -f -b 1024 -d "$tmp/src" "$tmp/img" || fail "mkfs.nilfs2 -d"
"$top/mkcp" -s "$tmp/img" && "$top/mkcp" "$tmp/img" || fail "mkcp"

fuse_mount "$tmp/img" || fail "nilfs-fuse refused the undamaged image: $(cat "$tmp/fuse-err")"
diff -r --no-dereference "$tmp/src" "$mnt/latest/" || fail "latest/ differs from the source tree"
snap=$(ls "$mnt/snapshots")
[ -n "$snap" ] || fail "no snapshot listed"
diff -r --no-dereference "$tmp/src" "$mnt/snapshots/$snap/" || fail "snapshots/$snap differs from the source tree"
[ "$(stat -c %i "$mnt/latest/a/f1")" = "$(stat -c %i "$mnt/latest/c/hard")" ] || fail "hard links differ in st_ino"
fuse_umount undamaged
echo "ok: the latest tree and snapshot $snap are the source tree"

bs=1024
nblocks=$(($(stat -c %b "$tmp/img") * $(stat -c %B "$tmp/img") / bs))
refused=0 eio=0
seed=1
while [ $seed -le "$SEEDS" ]; do
	cp --sparse=always "$tmp/img" "$tmp/bad.img"
	for b in $(awk -v s="$seed" -v n="$nblocks" 'BEGIN { srand(s); for (i = 0; i < 12; i++) print 2 + int(rand() * (n - 2)) }'); do
		head -c $bs /dev/urandom | dd of="$tmp/bad.img" bs=$bs seek="$b" conv=notrunc 2>/dev/null
	done
	if ! fuse_mount "$tmp/bad.img"; then
		grep -q "nilfs-fuse: " "$tmp/fuse-err" || fail "seed $seed: refused without a message"
		refused=$((refused + 1))
		seed=$((seed + 1))
		continue
	fi
	# every checkpoint, every path; errors are fine, hangs and crashes not
	timeout 120 sh -c '
		find "$1" >/dev/null 2>&1
		find "$1" -type l -exec readlink {} + >/dev/null 2>&1
		# by what stat says (a damaged inode may be a FIFO its entry calls
		# a file), at most 16 MiB (or a size near 2^63 reads for ever)
		find "$1" -type f -exec sh -c "for f; do [ -f \"\$f\" ] && head -c 16M \"\$f\"; done" sh {} + >/dev/null 2>"$2"
		find "$1" -exec stat -c "%i %h %s %y" {} + >/dev/null 2>&1
		exit 0' walk "$mnt/" "$tmp/walk-err"
	[ $? -eq 0 ] || fail "seed $seed: the walk hung or failed"
	grep -q "Input/output error" "$tmp/walk-err" && eio=$((eio + 1))
	fuse_umount "seed $seed"
	seed=$((seed + 1))
done
echo "ok: $SEEDS damaged copies: $refused refused with a message, $eio read with EIO somewhere, none crashed or hung"
echo "PASS: $0"
exit 0
