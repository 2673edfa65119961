#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-cleanerd-snaprace.sh - a checkpoint becomes a snapshot between our
# online cleaner's plan and its ioctls, and no DAT entry may leak.
# The guest makes 120 checkpoints in a row whose old blocks are all dead
# (cpgen), so that a cleaning pass with no protection period deletes whole
# cpfile blocks of them.  Our nilfs_cleanerd runs with a test hook that,
# on its first plan only, turns the last checkpoint the plan deletes into a
# snapshot just before the plan goes to the kernel.  The kernel's
# CLEAN_SEGMENTS, given those checkpoints as periods, would delete all the
# others, emptied cpfile blocks included, then fail with EBUSY and put
# back only the DAT: the entries of the emptied blocks stay live for ever.
# The cleaner must say it met the snapshot, clean later, and our fsck -fn
# must find the volume clean, with the new snapshot still mountable.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
. "$here/ktest.sh"

ktest_require mkfs.nilfs2 nilfs_cleanerd nilfs-clean fsck.nilfs2 tests/kernel/cpgen
ktest_tmp t-cleanerd-snaprace T_KEEP
ktest_outs=out ktest_tail=60

img=$tmp/img
truncate -s 64M "$img" || exit 1
# 4 KiB blocks: 21 checkpoints to a cpfile block (the first holds 20)
"$top/mkfs.nilfs2" -q -f -b 4096 -B 256 "$img" || fail "mkfs"

cat >"$tmp/script" <<'GUEST'
export TZ=UTC
O=/ktest/bin
dev=/dev/vda
mount -t nilfs2 $dev /mnt || { echo "MOUNT FAILED"; exit 1; }
dd if=/dev/urandom of=/mnt/f bs=4096 count=64 2>/dev/null
sync
$O/cpgen sync /mnt 120 >/dev/null || echo "CPGEN FAILED"
dd if=/dev/urandom of=/mnt/f bs=4096 count=64 conv=notrunc 2>/dev/null
sync
lscp $dev | awk 'NR > 1' | wc -l | sed 's/^/NCP before /'
# the kernel keeps what it wrote since its last superblock write for
# recovery: a remount writes them, so that only the last segment is held
umount /mnt && mount -t nilfs2 $dev /mnt || { echo "REMOUNT FAILED"; exit 1; }

# the hook: once, the last plain checkpoint the plan deletes becomes a snapshot
cat >/tmp/hook.sh <<'HOOK'
[ -e /tmp/hook.done ] && exit 0
: >/tmp/hook.done
c=$(lscp /dev/vda | awk -v p="$NILFS_CLEANERD_PERIODS" '
	BEGIN { n = split(p, r, " "); for (i = 1; i <= n; i++) { split(r[i], x, "-"); s[i] = x[1]; e[i] = x[2] } }
	NR > 1 && $4 == "cp" { for (i = 1; i <= n; i++) if ($1 >= s[i] && $1 < e[i]) c = $1 }
	END { print c }')
echo "HOOK periods $NILFS_CLEANERD_PERIODS snapshot ${c:-none}" >>/tmp/hook.log
[ -n "$c" ] && chcp ss /dev/vda "$c"
HOOK
cat >/tmp/cl.conf <<'CONF'
min_clean_segments 0
max_clean_segments 100%
clean_check_interval 0.2
cleaning_interval 0.1
nsegments_per_clean 32
selection_policy timestamp
min_reclaimable_blocks 1
log_priority info
CONF
mkdir -p /run
NILFS_CLEANERD_TEST_HOOK='sh /tmp/hook.sh' \
	$O/nilfs_cleanerd -n --stderr -p 0 -c /tmp/cl.conf $dev /mnt 2>/tmp/cl.log &
pid=$!
# until a pass after the hook's has cleaned (at most 90 s)
t=0
while [ $t -lt 900 ]; do
	[ -e /tmp/hook.done ] && grep -q 'cleaned segment' /tmp/cl.log && break
	sleep 0.1
	t=$((t + 1))
done
kill -TERM $pid
wait $pid
echo "CLEANERD rc=$?"
sed 's/^/HOOKLOG /' /tmp/hook.log
sed 's/^/CLOG /' /tmp/cl.log
lscp $dev | sed 's/^/LSCP /'
snaps=$(lscp -s $dev | awk 'NR > 1 { print $1 }')
echo "SNAPSHOTS" $snaps
sync
umount /mnt || echo "UMOUNT FAILED"
for c in $snaps; do
	mount -t nilfs2 -o ro,cp=$c $dev /mnt || echo "SNAPMOUNT FAILED $c"
	umount /mnt 2>/dev/null
done
$O/fsck.nilfs2 -fn --checkpoints=all $dev >/tmp/fsck 2>&1
echo "FSCK rc=$?"
sed 's/^/FSCKOUT /' /tmp/fsck | tail -n 30
dmesg | grep -i nilfs | sed 's/^/DMESG /'
echo "GUEST DONE"
GUEST

NILFS_KTEST_EXTRA="$top/tests/kernel/cpgen $top/nilfs_cleanerd $top/nilfs-clean $top/fsck.nilfs2" \
	"$guest" run "$tmp/script" "$img" >"$tmp/out" 2>&1 || fail "guest exited $?"
grep -qx "GUEST DONE" "$tmp/out" || fail "the guest did not finish"
! grep -q FAILED "$tmp/out" || fail "$(grep FAILED "$tmp/out" | head -n 3)"
grep '^HOOKLOG\|^CLOG\|^FSCK rc\|^DMESG' "$tmp/out"
grep -q '^HOOKLOG .* snapshot [0-9]' "$tmp/out" || fail "the hook found no checkpoint to make a snapshot"
grep -q '^CLOG .*cannot be deleted.*became a snapshot' "$tmp/out" ||
	fail "the cleaner did not report the snapshot taken after its plan"
grep -q '^CLOG .*cleaned segment' "$tmp/out" || fail "the cleaner cleaned nothing afterwards"
snap=$(sed -n 's/^HOOKLOG .* snapshot \([0-9]*\)$/\1/p' "$tmp/out")
[ -n "$snap" ] && grep '^SNAPSHOTS' "$tmp/out" | grep -qw "$snap" || fail "checkpoint $snap is not a snapshot afterwards"
grep -qx 'FSCK rc=0' "$tmp/out" || fail "fsck.nilfs2 -fn finds the volume not clean after the cleaning"
echo "PASS"
