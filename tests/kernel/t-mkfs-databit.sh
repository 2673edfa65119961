#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-mkfs-databit.sh - one flipped bit in a file's data costs that file, not
# the volume.  mkfs -d writes the files' data in logs of their own and the
# super root with the metadata files in a small final log, whose data
# checksum is what the kernel verifies when it mounts.  One bit is flipped
# in a block of one file (found with dump.nilfs2 bmap); the real kernel
# must still mount the volume and read every other file as mkfs copied it,
# and fsck.nilfs2 -n must name the damaged file.  The same bit flipped in
# the super root's log must still be refused by both (the check that the
# test can fail).
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=${top_builddir:-$here/../..}
mkfs=$top/mkfs.nilfs2
dump=$top/dump.nilfs2
fsck=$top/fsck.nilfs2

"$guest" require || exit
[ -x "$mkfs" ] && [ -x "$dump" ] && [ -x "$fsck" ] || { echo "FAIL: mkfs, dump or fsck not built"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-mkfs-databit.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C TZ=UTC

fail() {
	echo "FAIL: $*"
	[ -f "$tmp/out" ] && { echo "--- guest output (last 40 lines) ---"; tail -n 40 "$tmp/out"; }
	exit 1
}

. "$here/manifest.sh"

src=$tmp/src
mkdir -p "$src/sub" || exit 1
for n in 1 2 3 4; do
	head -c $((n * 9000)) /dev/urandom >"$src/file-$n"
done
head -c 300000 /dev/urandom >"$src/sub/bigger"
echo small >"$src/sub/small"
victim=file-3

img=$tmp/good.img
truncate -s 256M "$img" || exit 1
"$mkfs" -q -f -b 4096 -B 2048 -T 1700000000 -U 0c0ffee0-0000-4000-8000-000000000001 \
	-d "$src" "$img" || fail "mkfs -d"
"$fsck" -n "$img" >"$tmp/fsck" 2>&1 || { cat "$tmp/fsck"; fail "fsck.nilfs2 on the new volume"; }

# the victim's first block, and the super root's log
blk=$("$dump" "$img" bmap "/$victim" | awk '$1 == "data" && $3 == 0 { print $NF; exit }')
[ -n "$blk" ] || fail "no block for /$victim in dump.nilfs2 bmap"
srlog=$("$dump" "$img" super | awk '$1 == "s_last_pseg" { print $2; exit }')
[ -n "$srlog" ] || fail "no s_last_pseg in dump.nilfs2 super"
[ "$blk" -lt "$srlog" ] || fail "/$victim's block $blk lies in or after the super root's log at $srlog"

flip_bit() { # image, block: one bit in the middle of the block

	off=$(($2 * 4096 + 1000))
	old=$(dd if="$1" bs=1 skip=$off count=1 2>/dev/null | od -An -tu1 | tr -d ' ')
	new=$((old ^ 1))
	printf "\\$(printf '%03o' $new)" | dd of="$1" bs=1 seek=$off conv=notrunc 2>/dev/null
}

bad=$tmp/bad.img
cp --sparse=always "$img" "$bad" && flip_bit "$bad" "$blk"
cmp -s "$img" "$bad" && fail "the bit was not flipped"
# the super root's log: the first block after its summary
srbad=$tmp/srbad.img
cp --sparse=always "$img" "$srbad" && flip_bit "$srbad" $((srlog + 1))

# (b) fsck names the file (and says the volume has an error)
"$fsck" -n "$bad" >"$tmp/fsck.bad" 2>&1
rc=$?
[ $rc -eq 4 ] || { cat "$tmp/fsck.bad"; fail "fsck.nilfs2 -n exited $rc on the flipped bit, not 4"; }
grep -q "(/$victim): .*data checksum is wrong" "$tmp/fsck.bad" ||
	{ cat "$tmp/fsck.bad"; fail "fsck.nilfs2 -n does not name /$victim"; }
"$fsck" -n "$srbad" >"$tmp/fsck.srbad" 2>&1 && fail "fsck.nilfs2 calls a bad super-root log clean"

manifest "$src" >"$tmp/want.all"

{
	cat "$here/manifest.sh"
	cat <<'GUEST'
export TZ=UTC
for dev in vda vdb; do
	if mount -t nilfs2 -o ro /dev/$dev /mnt; then
		echo "MOUNT OK $dev"
		manifest /mnt | sed "s/^/MANIFEST $dev /"
		umount /mnt || echo "UMOUNT FAILED $dev"
	else
		echo "MOUNT REFUSED $dev"
	fi
	echo "DONE $dev"
done
echo "ALL DONE"
GUEST
} >"$tmp/guest-script"

"$guest" run "$tmp/guest-script" "$bad" "$srbad" >"$tmp/out" 2>&1 || fail "guest script failed"
grep -qx "ALL DONE" "$tmp/out" || fail "missing ALL DONE"
! grep -q 'FAILED' "$tmp/out" || fail "a guest step failed"
# (a) the kernel mounts the volume with the flipped bit
grep -qx "MOUNT OK vda" "$tmp/out" || fail "the kernel does not mount a volume with one bad data bit"
grep -qx "MOUNT REFUSED vdb" "$tmp/out" || fail "the kernel mounts a volume whose super-root log is bad"
sed -n "s/^MANIFEST vda //p" "$tmp/out" >"$tmp/got"
# every file but the victim reads as mkfs copied it; the victim differs
grep -v "$victim" "$tmp/want.all" >"$tmp/want.others"
grep -v "$victim" "$tmp/got" >"$tmp/got.others"
if ! cmp -s "$tmp/want.others" "$tmp/got.others"; then
	diff -u "$tmp/want.others" "$tmp/got.others" | head -n 30
	fail "the kernel reads other files differently (- source, + kernel)"
fi
grep "$victim" "$tmp/want.all" >"$tmp/want.victim"
grep "$victim" "$tmp/got" >"$tmp/got.victim"
cmp -s "$tmp/want.victim" "$tmp/got.victim" && fail "the kernel reads /$victim unchanged: the bit missed it"
echo "PASS: $0 ($(grep -c . "$tmp/want.others") manifest lines of other files identical)"
exit 0
