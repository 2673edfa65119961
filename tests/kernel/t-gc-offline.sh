#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-gc-offline.sh - the offline cleaner on a volume the kernel filled.
# The guest writes, overwrites and deletes with snapshots in between and
# prints manifests of the latest tree and of every snapshot; on the host the
# offline cleaner frees segments; a second boot mounts the result, checks
# the latest tree and each snapshot (mount -o ro,cp=N) are unchanged, runs
# nilfs-tools' lscp/lssu, and writes more.  Then dump.nilfs2 reads it.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
. "$here/ktest.sh"
mkfs=$top/mkfs.nilfs2
dump=$top/dump.nilfs2
gc=$top/nilfs_cleanerd

ktest_require mkfs.nilfs2 dump.nilfs2 nilfs_cleanerd
ktest_tmp t-gc-offline

img=$tmp/img
truncate -s 160M "$img" || exit 1
mkdir -p "$tmp/src/etc"
echo "from mkfs" >"$tmp/src/etc/motd"
"$mkfs" -q -f -b 4096 -B 128 -d "$tmp/src" "$img" || fail "mkfs"

manifests() { cat <<'EOS'
report() {
	manifest /mnt | sed "s/^/M$1 latest /"
	for c in $(lscp -s /dev/vda | awk 'NR > 1 { print $1 }'); do
		mount -t nilfs2 -o ro,cp=$c /dev/vda /mnt2 || { echo "SNAPMOUNT FAILED $c"; continue; }
		manifest /mnt2 | sed "s/^/M$1 snap$c /"
		umount /mnt2
	done
	lssu /dev/vda | awk 'NR > 1 && $4 ~ /d/' | wc -l | sed "s/^/DIRTY$1 /"
	lscp /dev/vda | sed "s/^/LSCP$1 /"
}
mkdir -p /mnt2
EOS
}

{
	cat "$here/manifest.sh"
	manifests
	cat <<'GUEST'
export TZ=UTC
mount -t nilfs2 /dev/vda /mnt || { echo "MOUNT FAILED"; exit 1; }
# stop the kernel's own housekeeping from racing us: nothing else runs here
i=0
while [ $i -lt 30 ]; do
	dd if=/dev/urandom of=/mnt/f$i bs=4096 count=64 2>/dev/null
	i=$((i + 1))
done
mkdir -p /mnt/d/e
echo keep >/mnt/d/e/keep.txt
sync
mkcp -s /dev/vda || echo "MKCP FAILED"
# garbage: overwrite most files four times, delete some, a snapshot after
# the second round: rounds 1 and 3 are reachable from no kept checkpoint
for round in 1 2 3 4; do
	i=0
	while [ $i -lt 24 ]; do
		dd if=/dev/urandom of=/mnt/f$i bs=4096 count=64 conv=notrunc 2>/dev/null
		i=$((i + 1))
		sync
	done
	[ $round = 2 ] && { rm /mnt/f25 /mnt/f26; sync; mkcp -s /dev/vda || echo "MKCP FAILED"; }
done
rm /mnt/f27
dd if=/dev/urandom of=/mnt/f0 bs=4096 count=8 seek=100 2>/dev/null
sync
report 1
umount /mnt || echo "UMOUNT FAILED"
echo "PASS1 DONE"
GUEST
} >"$tmp/script1"

{
	cat "$here/manifest.sh"
	manifests
	cat <<'GUEST'
export TZ=UTC
mount -t nilfs2 /dev/vda /mnt || { echo "MOUNT FAILED"; exit 1; }
report 2
echo "after cleaning" >/mnt/new.txt
dd if=/dev/urandom of=/mnt/f1 bs=4096 count=16 conv=notrunc 2>/dev/null
sync
manifest /mnt | sed "s/^/M3 latest /"
umount /mnt || echo "UMOUNT FAILED"
dmesg | grep -i nilfs | grep -iE 'error|warn|corrupt|invalid|bad' | sed 's/^/KMSG /'
echo "PASS2 DONE"
GUEST
} >"$tmp/script2"

ktest_pass 1 "$img"

"$dump" "$img" segments >"$tmp/seg0" || fail "dump segments before cleaning"
# with no protection period only what is older than now is reclaimable, and
# the guest's clock may run ahead of ours: wait until ours is past its writes
last=$("$top/dump.nilfs2" "$img" segments | awk 'NR > 2 && $2 > m { m = $2 } END { print m + 0 }')
i=0; while [ "$(date +%s)" -le "$last" ] && [ $i -lt 120 ]; do sleep 1; i=$((i + 1)); done
cat >"$tmp/conf" <<'CONF'
# clean all that can be freed: no protection, every segment may be a victim
protection_period	0
selection_policy	cost-benefit
max_clean_segments	100%
nsegments_per_clean	4
min_reclaimable_blocks	1
CONF
"$gc" --offline -c "$tmp/conf" "$img" >"$tmp/gc.out" 2>&1 || { cat "$tmp/gc.out"; fail "nilfs_cleanerd --offline"; }
cat "$tmp/gc.out"
"$dump" "$img" segments >"$tmp/seg1" || fail "dump segments after cleaning"
# our checker agrees with the result, every checkpoint of it
"$top/fsck.nilfs2" -n --checkpoints=all "$img" >"$tmp/fsck" 2>&1 || { cat "$tmp/fsck"; fail "fsck.nilfs2 after offline cleaning"; }
clean0=$(sed -n '1s/^\([0-9]*\) clean.*/\1/p' "$tmp/seg0")
clean1=$(sed -n '1s/^\([0-9]*\) clean.*/\1/p' "$tmp/seg1")
# about 24 segments of garbage: most of it must come back
[ -n "$clean0" ] && [ -n "$clean1" ] && [ "$clean1" -ge $((clean0 + 12)) ] ||
	fail "clean segments did not rise enough: $clean0 -> $clean1"

ktest_pass 2 "$img"

# every tree the kernel showed before cleaning, it shows after
sed -n 's/^M1 //p' "$tmp/out1" >"$tmp/m1"
sed -n 's/^M2 //p' "$tmp/out2" >"$tmp/m2"
nsnap=$(grep -c '^snap[0-9]* S \.|' "$tmp/m1")
[ "$nsnap" -ge 2 ] || fail "expected 2 snapshots before cleaning, saw $nsnap"
if ! cmp -s "$tmp/m1" "$tmp/m2"; then
	diff -u "$tmp/m1" "$tmp/m2" | head -n 30
	fail "the latest tree or a snapshot changed across offline cleaning"
fi
# the snapshots are still listed by nilfs-tools' lscp
for c in $(sed -n 's/^LSCP1 *\([0-9][0-9]*\) .* ss .*/\1/p' "$tmp/out1"); do
	grep -q "^LSCP2 *$c .* ss " "$tmp/out2" || fail "snapshot $c gone from lscp"
done
d1=$(sed -n 's/^DIRTY1 //p' "$tmp/out1")
d2=$(sed -n 's/^DIRTY2 //p' "$tmp/out2")
[ "$d2" -lt "$d1" ] || fail "lssu: dirty segments $d1 before cleaning, $d2 after"

# and our reader follows the kernel's writes after our cleaning
sed -n 's/^M3 latest //p' "$tmp/out2" >"$tmp/want"
"$dump" "$img" extract / "$tmp/x" >"$tmp/err" 2>&1 || { cat "$tmp/err"; fail "dump extract"; }
. "$here/manifest.sh"
TZ=UTC manifest "$tmp/x" >"$tmp/got"
if ! cmp -s "$tmp/want" "$tmp/got"; then
	diff -u "$tmp/want" "$tmp/got" | head -n 20
	fail "dump.nilfs2 reads something other than the kernel wrote after cleaning"
fi
echo "ours: clean segments $clean0 -> $clean1 (lssu dirty $d1 -> $d2), $nsnap snapshots and the latest tree unchanged"
echo "PASS: $0"
exit 0
