#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-tune-offline.sh - what the offline nilfs-tune and nilfs-resize leave,
# mounted by the real kernel:
#   vda  the kernel's volume (tests/fsck/images/kernel-1k) whose latest
#        block count is wrong, after our nilfs-tune -O block_count: the
#        kernel mounts it, carries the right count on (our fsck, which
#        checks every checkpoint's count, is clean after it wrote), and so
#        after -O ^block_count and -O block_count again in the guest; an
#        online shrink that does not fit is refused, the size it names works
#   vdb  the same damaged volume with the bit set as nilfs-tools sets it
#        (no recount): the kernel carries the wrong count on, which our
#        fsck names; this is what the recount is for
#   vdc  a grow of an image file cut between its two superblock writes,
#   vdd  a shrink cut the same way (the secondary at the device's end keeps
#        the old size): the kernel mounts the new size with every file, and
#        its unmount writes both copies, after which fsck.nilfs2 is clean
#   vdf  an offline shrink whose new end is right after the log writer's
#        segment (its logs name a cut segment as the next): the kernel
#        mounts it and writes, and fsck is clean after
#   vde  nilfs-tune -L cut between its two superblock writes: the kernel,
#        blkid and nilfs-tools' nilfs-tune -l see the old label (the copy
#        in use is written last)
# The cut volumes come from NILFS_TEST_FAULT (common/io_open.c).
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=${top_builddir:-$here/../..}
top=$(cd "$top" && pwd)
srcdir=${top_srcdir:-$here/../..}
srcdir=$(cd "$srcdir" && pwd)

"$guest" require || exit
for p in mkfs.nilfs2 nilfs-tune nilfs-resize fsck.nilfs2 lscp lssu chcp rmcp dump.nilfs2 \
	nilfs_cleanerd tests/fsck/corrupt; do
	[ -x "$top/$p" ] || { echo "FAIL: $top/$p not built"; exit 1; }
done
command -v xz >/dev/null || { echo "SKIP: xz is not installed"; exit 77; }
blkid=$(command -v blkid || ls /sbin/blkid /usr/sbin/blkid 2>/dev/null | head -1)
[ -n "$blkid" ] || { echo "SKIP: no blkid on the host"; exit 77; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-tune-offline.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	[ -f "$tmp/out" ] && { echo "--- guest output (last 60 lines) ---"; tail -n 60 "$tmp/out"; }
	exit 1
}
bad() { fail "$*"; }
. "$srcdir/tests/image/fault.sh"
field() { "$top/nilfs-tune" -l "$1" 2>/dev/null | sed -n "s/^$2:[[:space:]]*//p"; }
# the files of a volume, as the guest lists a mounted tree
files() {
	rm -rf "$tmp/x" && mkdir "$tmp/x" && "$top/dump.nilfs2" "$1" extract / "$tmp/x" >/dev/null 2>&1 ||
		fail "extract $1"
	(cd "$tmp/x" && find . -type f | sort | xargs md5sum)
}
# image $1 cut by NILFS_TEST_FAULT=crash:K at the write K that leaves the
# superblock copy in use with the new values (field $2 = $3) and the other
# copy stale; the command is the rest
cut_in_window() {
	out=$1 key=$2 want=$3
	shift 3
	cmd="$*" name="$*"
	whole_run "$out" || fail "$cmd"
	k=0
	while [ $k -lt "$n" ]; do
		cp --sparse=always "$out" "$tmp/cut"
		run "crash:$k" "$tmp/cut"
		# fsck names the stale copy (a warning: the kernel mends it)
		if [ "$(field "$tmp/cut" "$key")" = "$want" ] &&
			"$top/fsck.nilfs2" -fn "$tmp/cut" 2>&1 | grep -q 'copies differ in'; then
			mv "$tmp/cut" "$out"
			echo "$cmd: cut at write $k of $n"
			return 0
		fi
		k=$((k + 1))
	done
	fail "$cmd: no cut leaves $key $want with a stale copy"
}

# vda, vdb: the kernel's volume with its latest block count made wrong
xz -dc "$srcdir/tests/fsck/images/kernel-1k.img.xz" >"$tmp/a" || fail xz
"$top/tests/fsck/corrupt" cp_blocks "$tmp/a" || fail "corrupt cp_blocks"
"$top/nilfs-tune" -O ^block_count "$tmp/a" >/dev/null 2>&1 || fail "-O ^block_count"
cp "$tmp/a" "$tmp/b"
"$top/nilfs-tune" -O block_count "$tmp/a" >"$tmp/o" 2>&1 || { cat "$tmp/o"; fail "-O block_count"; }
grep -q "^Block counts of 1 of 7 checkpoints set" "$tmp/o" || { cat "$tmp/o"; fail "no recount"; }
# nilfs-tools' way: the bit alone (a copy of the bytes it would write)
python3 - "$tmp/b" <<'PY' || fail "setting the bit"
import struct, sys, zlib
with open(sys.argv[1], "r+b") as f:
    f.seek(0, 2)
    size = f.tell()
    for off in (1024, (size // 512 - 8) * 512):
        f.seek(off)
        sb = bytearray(f.read(1024))
        if sb[6:8] != b"\x34\x34":
            continue
        ro, = struct.unpack_from("<Q", sb, 0x108)
        struct.pack_into("<Q", sb, 0x108, ro | 1)
        seed, = struct.unpack_from("<I", sb, 12)
        nbytes, = struct.unpack_from("<H", sb, 8)
        struct.pack_into("<I", sb, 16, 0)
        struct.pack_into("<I", sb, 16, ~zlib.crc32(bytes(sb[:nbytes]), ~seed & 0xffffffff) & 0xffffffff)
        f.seek(off)
        f.write(sb)
PY
[ "$(field "$tmp/b" 'Filesystem features')" = block_count ] || fail "the bit on vdb"
"$top/fsck.nilfs2" -fn --checkpoints=all "$tmp/b" 2>&1 | grep -q 'checkpoint 7: cp_blocks_count 358, but its files hold 359' ||
	fail "vdb does not show the wrong count"

# vdc, vdd, vde: cut runs on a volume whose segments in use lie past 60
truncate -s 8M "$tmp/base"
fault_volume "$tmp/base" 300000 -b 1024 -B 16
printf 'protection_period 0\nmax_clean_segments 100%%\nmin_reclaimable_blocks 0%%\nnsegments_per_clean 4\n' >"$tmp/conf"
"$top/nilfs_cleanerd" --offline -c "$tmp/conf" "$tmp/base" >/dev/null 2>&1 || fail "cleaner"
files "$tmp/base" >"$tmp/base.files"
cp "$tmp/base" "$tmp/c"
cut_in_window "$tmp/c" 'Device size' 12582912 "$top/nilfs-resize" -y IMG 12M
cp "$tmp/base" "$tmp/d"
cut_in_window "$tmp/d" 'Device size' 983040 "$top/nilfs-resize" -y IMG 983040
[ "$(stat -c %s "$tmp/d")" = 8388608 ] || fail "the cut shrink cut the image"
cp "$tmp/base" "$tmp/e"
"$top/nilfs-tune" -L before "$tmp/e" >/dev/null 2>&1 || fail "-L before"
cut_in_window "$tmp/e" 'Filesystem volume name' before "$top/nilfs-tune" -L after IMG
"$top/dump.nilfs2" "$tmp/e" super | grep -q 's_volume_name *after' || fail "vde: no copy has the new label"
# vdf: a whole shrink whose new end is right after the log writer's segment
cp "$tmp/base" "$tmp/f"
cur=$(( $(field "$tmp/f" 'Last block address') / 16 ))
"$top/nilfs-resize" -y "$tmp/f" $(( (cur + 1) * 16384 + 4096 )) >"$tmp/o" 2>&1 || { cat "$tmp/o"; fail "shrink at the cursor"; }
truncate -s 8M "$tmp/f"   # the disk as long as the others; the volume ends before it

{
	cat <<GUEST
export TZ=UTC PATH=/ktest/bin:\$PATH
cat >/tmp/base.files <<'EOF'
$(cat "$tmp/base.files")
EOF
GUEST
	cat <<'GUEST'
bad() { echo "CHECK FAILED: $*"; }
sysfs() { cat /sys/fs/nilfs2/$1/$2 2>/dev/null; }
theirs() { /usr/sbin/nilfs-tune "$@" 2>/dev/null || /sbin/nilfs-tune "$@"; }
files() { (cd /mnt && find . -type f | sort | xargs md5sum); }
# our fsck on the unmounted device: every checkpoint's count
counts_ok() {
	fsck.nilfs2 -fn --checkpoints=all /dev/$1 >/tmp/fsck 2>&1 ||
		{ bad "$1 $2: fsck:"; grep -v '^Pass' /tmp/fsck | sed 's/^/FSCK /'; }
}
write_some() {
	mount -t nilfs2 /dev/$1 /mnt || { bad "$1: mount ($2)"; return 1; }
	dd if=/dev/urandom of=/mnt/new.$2 bs=4096 count=37 2>/dev/null
	mkdir -p /mnt/dir.$2 && echo x >/mnt/dir.$2/f
	sync
	umount /mnt
}

echo "== vda: recounted offline"
mount -t nilfs2 /dev/vda /mnt || bad "vda: mount"
lscp -a /dev/vda | awk 'NR > 1 && $1 >= 7 && $1 <= 8 { print $1, $6 }' | tr '\n' ' ' | grep -qx '7 359 8 359 ' ||
	{ bad "vda: nilfs-tools' lscp"; lscp -a /dev/vda; }
umount /mnt
write_some vda one && counts_ok vda "after the kernel wrote"
theirs -l /dev/vda | grep -q '^Filesystem features: *block_count$' || bad "vda: nilfs-tools' -l features"
nilfs-tune -O ^block_count /dev/vda >/dev/null 2>&1 || bad "vda: -O ^block_count"
theirs -l /dev/vda | grep -q '^Filesystem features: *(none)$' || bad "vda: features after ^block_count"
write_some vda two && counts_ok vda "after ^block_count"
nilfs-tune -O block_count /dev/vda >/tmp/o 2>&1 || bad "vda: -O block_count again"
grep -q "Block counts" /tmp/o && bad "vda: counts the kernel kept were rewritten"
write_some vda three && counts_ok vda "after block_count again"
mount -t nilfs2 /dev/vda /mnt && { lscp /dev/vda | tail -n 4 | sed 's/^/VDA /'; umount /mnt; }

echo "== vda: an online shrink that does not fit"
mount -t nilfs2 /dev/vda /mnt || bad "vda: mount"
size=$(sysfs vda device_size)
nilfs-resize -y /dev/vda 1M >/tmp/o 2>&1 && bad "vda: a shrink to 1M succeeded"
sed 's/^/NOSPACE /' /tmp/o
grep -q "^Error: the filesystem does not have enough free space.$" /tmp/o || bad "vda: no free-space error"
[ "$(grep -c '^Aborted.$' /tmp/o)" = 1 ] || bad "vda: 'Aborted.' not said once"
min=$(sed -n 's/.*smallest size it can be shrunk to now is \([0-9]*\) bytes.*/\1/p' /tmp/o)
[ "$(sysfs vda device_size)" = "$size" ] || bad "vda: the refused shrink changed the size"
# the size named works
nilfs-resize -y /dev/vda "$min" >/tmp/o 2>&1 || { bad "vda: the shrink to the size named ($min)"; cat /tmp/o; }
[ "$(sysfs vda device_size)" = "$min" ] || bad "vda: device_size $(sysfs vda device_size) after the shrink to $min"
umount /mnt
counts_ok vda "after the online shrink"

echo "== vdb: the bit without a recount"
write_some vdb one
fsck.nilfs2 -fn --checkpoints=all /dev/vdb >/tmp/fsck 2>&1
grep -q 'cp_blocks_count .*, but its files hold' /tmp/fsck || bad "vdb: the kernel did not carry the wrong count on"
grep 'cp_blocks_count' /tmp/fsck | sed 's/^/VDB /'

for d in vdc vdd; do
	echo "== $d: a resize cut between its superblock writes"
	nilfs-tune -l /dev/$d 2>&1 | grep -i 'using\|^Device size\|^Number of seg' | sed "s/^/$d /"
	mount -t nilfs2 /dev/$d /mnt || { bad "$d: mount"; continue; }
	size=$(sysfs $d device_size)
	echo "$d device_size $size"
	files | cmp -s - /tmp/base.files || bad "$d: the files differ"
	umount /mnt
	# the kernel's unmount writes both copies from the one it used
	fsck.nilfs2 -fn --checkpoints=all /dev/$d >/tmp/fsck 2>&1 ||
		{ bad "$d: fsck after the kernel's unmount"; grep -v '^Pass' /tmp/fsck; }
	[ "$(nilfs-tune -l /dev/$d 2>/dev/null | sed -n 's/^Device size:[[:space:]]*//p')" = "$size" ] ||
		bad "$d: the size listed after the unmount"
done
echo "== vdf: shrunk offline right after the log writer's segment"
mount -t nilfs2 /dev/vdf /mnt || bad "vdf: mount"
files | cmp -s - /tmp/base.files || bad "vdf: the files differ"
dd if=/dev/urandom of=/mnt/more bs=1024 count=100 2>/dev/null; sync
umount /mnt
fsck.nilfs2 -fn --checkpoints=all /dev/vdf >/tmp/fsck 2>&1 || { bad "vdf: fsck after the kernel wrote"; grep -v '^Pass' /tmp/fsck; }

echo "== vde: a label change cut between its superblock writes"
[ "$(blkid -p -o value -s LABEL /dev/vde)" = before ] || bad "vde: blkid: $(blkid -p -o value -s LABEL /dev/vde)"
theirs -l /dev/vde | grep -q '^Filesystem volume name:.*before$' || bad "vde: nilfs-tools' -l label"
mount -t nilfs2 /dev/vde /mnt || bad "vde: mount"
[ "$(sysfs vde volume_name)" = before ] || bad "vde: sysfs volume_name $(sysfs vde volume_name)"
files | cmp -s - /tmp/base.files || bad "vde: the files differ"
umount /mnt
dmesg | grep -i nilfs | grep -iE 'error|corrupt|invalid' | sed 's/^/KMSG /'
echo "GUEST DONE"
GUEST
} >"$tmp/guest-script"

NILFS_KTEST_EXTRA="$top/nilfs-tune $top/nilfs-resize $top/fsck.nilfs2 $blkid" \
	"$guest" run "$tmp/guest-script" "$tmp/a" "$tmp/b" "$tmp/c" "$tmp/d" "$tmp/e" "$tmp/f" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 77 ] && { echo "SKIP: guest"; exit 77; }
grep -qx "GUEST DONE" "$tmp/out" || fail "the guest did not finish (rc $rc)"
grep -q "CHECK FAILED\|^KMSG" "$tmp/out" && fail "$(grep "CHECK FAILED\|^KMSG" "$tmp/out" | head -n 5)"
grep -q '^vdc device_size 12582912$' "$tmp/out" || fail "vdc: the kernel did not mount the new size"
grep -q '^vdd device_size 983040$' "$tmp/out" || fail "vdd: the kernel did not mount the new size"
grep '^VD\|^vd' "$tmp/out"
echo "PASS: $0"
