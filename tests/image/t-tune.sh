#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# nilfs-tune: "-l" prints what nilfs-tools' nilfs-tune -l prints, byte for
# byte (but the version line), on volumes from nilfs-tools' mkfs and ours,
# before and after our changes; -L, -U, -i, -m, -O change both superblock
# copies (checked by nilfs-tools' reader and blkid); bad input and a
# superblock that does not check out are refused with nothing written; a
# bad primary is named and the secondary used.  The comparison with
# nilfs-tools needs root and a loop device (nilfs-tools reads only block
# devices); the rest runs on image files.
set -u
top="${top_builddir:-.}"
top=$(cd "$top" && pwd)
tune="$top/nilfs-tune"
dump="$top/dump.nilfs2"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-tune.XXXXXX") || exit 1
loop=
cleanup() {
	[ -n "$loop" ] && losetup -d "$loop"
	rm -rf "$tmp"
}
trap cleanup EXIT
PATH=$PATH:/sbin:/usr/sbin
fail=0
bad() { echo "FAIL: $*"; fail=1; }
img=$tmp/img

expect_fail() { # pattern, then the command; nothing may be written
	pat=$1
	shift
	cp "$img" "$tmp/before"
	"$@" >"$tmp/out" 2>&1 && { bad "succeeded: $*"; return; }
	grep -q "$pat" "$tmp/out" || { bad "no '$pat' in the message of: $*"; cat "$tmp/out"; }
	cmp -s "$img" "$tmp/before" || bad "refused, yet wrote: $*"
}

# the long options every program has
"$tune" --help | grep -q -- '--version' || bad "nilfs-tune --help does not list --version"
"$tune" --version | grep -q 'nilfs-tune from nilfsprogs' || bad "nilfs-tune --version"
field() { # the value of "-l" field $1 of $img, as GParted cuts it
	"$tune" -l "$img" 2>/dev/null | sed -n "s/^$1:[[:space:]]*//p"
}
both() { # dump.nilfs2's value of superblock field $1 in both copies
	"$dump" "$img" super | awk -v f="$1" '$1 == f { print $2 }' | tr '\n' ' '
}

truncate -s 300M "$img"
"$top/mkfs.nilfs2" -q -f -L before -U 0f4e2a56-1c0b-4a8e-9a43-5c1d2e3f4a5b "$img" || exit 1
[ "$(field 'Filesystem volume name')" = before ] || bad "label not listed"
[ "$(field 'Filesystem UUID')" = 0f4e2a56-1c0b-4a8e-9a43-5c1d2e3f4a5b ] || bad "UUID not listed"
[ "$(field 'Block size')" = 4096 ] || bad "block size not listed"
[ "$(field 'Device size')" = 314572800 ] || bad "device size not listed"

# changes reach both copies, with good CRCs (dump.nilfs2 says "valid")
"$tune" -L after -U 11111111-2222-3333-4444-555555555555 -i 7 -m 300 -O block_count "$img" \
	>"$tmp/out" 2>&1 || { bad "nilfs-tune -L -U -i -m -O"; cat "$tmp/out"; }
[ "$(both s_volume_name)" = "after after " ] || bad "label in the copies: $(both s_volume_name)"
[ "$(both s_uuid)" = "11111111-2222-3333-4444-555555555555 11111111-2222-3333-4444-555555555555 " ] ||
	bad "UUID in the copies: $(both s_uuid)"
[ "$(both s_c_interval)" = "7 7 " ] || bad "commit interval in the copies: $(both s_c_interval)"
[ "$(both s_c_block_max)" = "300 300 " ] || bad "block max in the copies: $(both s_c_block_max)"
[ "$("$dump" "$img" super | grep -c ': valid')" = 2 ] || bad "a copy is not valid after the change"
[ "$(field 'Filesystem features')" = block_count ] || bad "-O block_count: $(field 'Filesystem features')"
"$tune" -O ^block_count "$img" >/dev/null 2>&1 || bad "-O ^block_count"
[ "$(field 'Filesystem features')" = "(none)" ] || bad "-O ^block_count: $(field 'Filesystem features')"
# KDE Partition Manager's form (QUuid::toString), braces around it
"$tune" -U '{0f4e2a56-1c0b-4a8e-9a43-5c1d2e3f4a5c}' "$img" >/dev/null 2>&1 || bad "-U {UUID}"
[ "$(field 'Filesystem UUID')" = 0f4e2a56-1c0b-4a8e-9a43-5c1d2e3f4a5c ] || bad "-U {UUID}: $(field 'Filesystem UUID')"
"$tune" -U clear "$img" >/dev/null 2>&1 || bad "-U clear"
[ "$(field 'Filesystem UUID')" = 00000000-0000-0000-0000-000000000000 ] || bad "-U clear"
"$tune" -U random "$img" >/dev/null 2>&1 || bad "-U random"
u1=$(field 'Filesystem UUID')
"$tune" -U time "$img" >/dev/null 2>&1 || bad "-U time"
u2=$(field 'Filesystem UUID')
[ "$u1" != "$u2" ] && [ "$u1" != 00000000-0000-0000-0000-000000000000 ] || bad "-U random/time: $u1 $u2"
"$tune" -L '' "$img" >/dev/null 2>&1 || bad "-L ''"
[ "$(field 'Filesystem volume name')" = "(none)" ] || bad "empty label not listed as (none)"
label80=$(printf '%080d' 0 | tr 0 x)
"$tune" -L "$label80" "$img" >/dev/null 2>&1 || bad "-L with 80 bytes"
[ "$(field 'Filesystem volume name')" = "$label80" ] || bad "80-byte label"
"$top/fsck.nilfs2" -n "$img" >"$tmp/fsck" 2>&1 || { bad "fsck after the changes"; cat "$tmp/fsck"; }

# -O block_count makes the block counts right: on the kernel's volume with
# the latest checkpoint's count damaged (tests/fsck/corrupt cp_blocks), the
# counts are set right in a new checkpoint before the bit; counts that are
# right are left alone (nothing written but the superblocks)
corrupt=$top/tests/fsck/corrupt
kimg=${top_srcdir:-$top}/tests/fsck/images/kernel-1k.img.xz
if [ -x "$corrupt" ] && [ -f "$kimg" ] && command -v xz >/dev/null; then
	xz -dc "$kimg" >"$tmp/k.img"
	"$tune" -O block_count "$tmp/k.img" >"$tmp/out" 2>&1 || { bad "-O block_count, right counts"; cat "$tmp/out"; }
	grep -q "Block counts" "$tmp/out" && bad "-O block_count rewrote right counts"
	"$top/lscp" -a "$tmp/k.img" | tail -n 1 | grep -q '^ *7 ' || bad "-O block_count on right counts made a checkpoint"
	"$tune" -O ^block_count "$tmp/k.img" >/dev/null 2>&1 || bad "-O ^block_count on the kernel's volume"
	"$corrupt" cp_blocks "$tmp/k.img" || bad "corrupt cp_blocks"
	"$top/fsck.nilfs2" -fn --checkpoints=all "$tmp/k.img" 2>&1 | grep -q 'checkpoint 7: cp_blocks_count 358, but its files hold 359' ||
		bad "the damaged count is not seen by fsck"
	"$tune" -O block_count "$tmp/k.img" >"$tmp/out" 2>&1 || { bad "-O block_count, damaged count"; cat "$tmp/out"; }
	grep -q "^Block counts of 1 of 7 checkpoints set to what their files hold (the latest: 358 -> 359), written as checkpoint 8" "$tmp/out" ||
		{ bad "-O block_count did not say it recounted"; cat "$tmp/out"; }
	"$top/fsck.nilfs2" -fn --checkpoints=all "$tmp/k.img" >"$tmp/fsck" 2>&1 ||
		{ bad "counts still wrong after -O block_count"; cat "$tmp/fsck"; }
	"$top/lscp" -a "$tmp/k.img" | awk 'NR > 1 && $1 >= 7 { print $1, $6 }' | tr '\n' ' ' | grep -qx '7 359 8 359 ' ||
		{ bad "lscp after the recount"; "$top/lscp" -a "$tmp/k.img"; }
	"$tune" -l "$tmp/k.img" 2>/dev/null | grep -q '^Filesystem features: *block_count$' || bad "block_count not set after the recount"
else
	echo "SKIP (part): -O block_count recount needs tests/fsck/corrupt and xz"
fi

# refused, nothing written
expect_fail "too long" "$tune" -L "${label80}y" "$img"
expect_fail "Invalid UUID" "$tune" -U 1234 "$img"
expect_fail "Invalid UUID" "$tune" -U '{0f4e2a56-1c0b-4a8e-9a43-5c1d2e3f4a5c' "$img"
# KDE Partition Manager's label command ("-l LABEL DEV") fails as with nilfs-tools
expect_fail "Try 'nilfs-tune --help'" "$tune" -l newlabel "$img"
expect_fail "not allowed to be set" "$tune" -O FEATURE_I3 "$img"
expect_fail "unknown feature" "$tune" -O bogus "$img"
expect_fail "invalid commit interval" "$tune" -i -5 "$img"
expect_fail "Try 'nilfs-tune --help'" "$tune" "$img"
expect_fail "invalid commit interval" "$tune" -i 0x10 "$img"
# a field beyond the format, both copies signed again with a good CRC:
# the block size (the CVE), the revision, the magic number
cp "$img" "$tmp/good"
resign() { # offset, struct format, value
	python3 - "$img" "$1" "$2" "$3" <<'PY'
import struct, sys, zlib
img, at, fmt, val = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4], 0)
with open(img, "r+b") as f:
    for off in (1024, 314572800 - 4096):
        f.seek(off)
        sb = bytearray(f.read(1024))
        struct.pack_into(fmt, sb, at, val)
        seed, = struct.unpack_from("<I", sb, 12)
        nbytes, = struct.unpack_from("<H", sb, 8)
        struct.pack_into("<I", sb, 16, 0)
        crc = ~zlib.crc32(bytes(sb[:nbytes]), ~seed & 0xffffffff) & 0xffffffff
        struct.pack_into("<I", sb, 16, crc)         # the kernel's crc32_le(seed)
        f.seek(off)
        f.write(sb)
PY
}
if command -v python3 >/dev/null; then
	resign 20 "<I" 40                               # s_log_block_size
	expect_fail "s_log_block_size 40 out of range" "$tune" -L x "$img"
	expect_fail "s_log_block_size 40 out of range" "$tune" -l "$img"
	cp "$tmp/good" "$img"
	resign 0 "<I" 1                                 # s_rev_level
	expect_fail "revision 1.0" "$tune" -L x "$img"
	expect_fail "revision 1.0" "$tune" -l "$img"
	cp "$tmp/good" "$img"
	resign 6 "<H" 0x3435                            # s_magic
	expect_fail "no valid NILFS2 superblock" "$tune" -U random "$img"
	expect_fail "no valid NILFS2 superblock" "$tune" -l "$img"
fi
cp "$tmp/good" "$img"
# a bad primary: named, the secondary used and listed, the primary left alone
printf 'XXXX' | dd of="$img" bs=1 seek=$((1024 + 64)) conv=notrunc 2>/dev/null
"$tune" -l "$img" >"$tmp/out" 2>"$tmp/err" || bad "-l with a bad primary"
grep -q "primary superblock is not valid (.*checksum" "$tmp/err" || { bad "bad primary not named"; cat "$tmp/err"; }
grep -q "using the secondary superblock" "$tmp/err" || bad "secondary's use not said"
grep -q "^Filesystem volume name:" "$tmp/out" || bad "nothing listed from the secondary"
"$tune" -L fromsecondary "$img" >/dev/null 2>"$tmp/err" || bad "-L with a bad primary"
grep -q "left unchanged" "$tmp/err" || bad "-L: the bad primary's fate not said"
[ "$(field 'Filesystem volume name')" = fromsecondary ] || bad "-L with a bad primary"
cp "$tmp/good" "$img"

# byte for byte against nilfs-tools, through a loop device
theirs_mkfs=$(ls /sbin/mkfs.nilfs2 /usr/sbin/mkfs.nilfs2 2>/dev/null | head -1)
if [ "$(id -u)" -ne 0 ] || ! command -v losetup >/dev/null || ! command -v nilfs-tune >/dev/null ||
	[ -z "$theirs_mkfs" ]; then
	echo "SKIP (part): nilfs-tools comparison needs root, losetup and nilfs-tools"
	[ $fail -eq 0 ] && echo "PASS: $0"
	exit $fail
fi
theirs_tune=$(command -v nilfs-tune)
loop=$(losetup -f --show "$img" 2>/dev/null) || { echo "SKIP (part): no loop device"; exit $fail; }
same() { # what is being compared
	"$tune" -l "$loop" 2>/dev/null | sed 1d >"$tmp/ours"
	"$theirs_tune" -l "$loop" 2>/dev/null | sed 1d >"$tmp/theirs"
	cmp -s "$tmp/ours" "$tmp/theirs" || { bad "-l differs from nilfs-tools' ($1)"; diff "$tmp/ours" "$tmp/theirs"; }
}
same "our mkfs, tuned"
"$tune" -O block_count -L 'two words' "$loop" >/dev/null 2>&1
same "our -O block_count and label"
"$theirs_tune" -L theirs -U 22222222-3333-4444-5555-666666666666 -i 9 "$loop" >/dev/null 2>&1
same "nilfs-tools' changes"
for args in "-b 4096 -B 2048" "-b 1024 -B 4096 -O block_count -L small" "-b 2048 -B 16 -m 10"; do
	# shellcheck disable=SC2086
	"$theirs_mkfs" -q -f $args "$loop" >/dev/null 2>&1 || { bad "nilfs-tools' mkfs $args"; continue; }
	same "nilfs-tools' mkfs $args"
	"$tune" -L ours -U random "$loop" >/dev/null 2>&1 || bad "-L on nilfs-tools' $args"
	same "our change of nilfs-tools' mkfs $args"
	blkid -p -o value -s LABEL "$loop" 2>/dev/null | grep -qx ours || bad "blkid does not see our label ($args)"
done
[ $fail -eq 0 ] && echo "PASS: $0"
exit $fail
