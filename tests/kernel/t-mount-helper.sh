#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-mount-helper.sh - our mount.nilfs2 and umount.nilfs2 under the real
# kernel, called as mount(8) calls them ("mount.nilfs2 DEV DIR -o OPTS"),
# with our nilfs_cleanerd in /sbin where nilfs-tools' helper looks for it.
# In the guest: a read-write mount with pp= starts the cleaner with that
# period and records gcpid=,pp= in utab; a second read-write mount is
# refused; a ro,cp=N snapshot mount beside the live one works and starts
# no cleaner; remounts: rw->rw without pp= keeps the cleaner, with a new
# pp= restarts it with the new period, rw->ro stops it, ro->rw starts it
# with the recorded period, a failed rw->ro (a file open for writing)
# restarts it; umount stops it before the unmount, starts it again when
# the unmount fails (busy), and with -r leaves it stopped on the volume
# remounted read-only; nogc starts none.
# busybox mount -t nilfs2 and an fstab line are tried (whether busybox
# runs the helper is reported).  nilfs-tools' mount.nilfs2 starts our
# daemon and records its pid, which our umount.nilfs2 stops (and the other
# way round).  Last, a fill-and-delete under the cleaner the helper
# started: the clean segments come back with no manual step.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=${top_builddir:-$here/../..}
mkfs=$top/mkfs.nilfs2

"$guest" require || exit
for p in "$mkfs" "$top/mount.nilfs2" "$top/umount.nilfs2" "$top/nilfs_cleanerd" \
	"$top/nilfs-clean"; do
	[ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }
done
# nilfs-tools' helpers, to check that either suite reads the other's state
theirs_mount=$(PATH=/usr/sbin:/sbin:$PATH command -v mount.nilfs2)
theirs_umount=$(PATH=/usr/sbin:/sbin:$PATH command -v umount.nilfs2)
[ -n "$theirs_mount" ] && [ -n "$theirs_umount" ] ||
	{ echo "FAIL: nilfs-tools' mount.nilfs2 and umount.nilfs2 not found"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-mount-helper.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	echo "--- guest output (last 80 lines) ---"
	tail -n 80 "$tmp/out"
	exit 1
}

. "$here/ours.sh"

# bad command lines: mount(8)'s "incorrect invocation" (1), nothing done
usage_case() {   # WANT_MESSAGE ARGS...
	want=$1
	shift
	"$top/mount.nilfs2" "$@" >"$tmp/usage" 2>&1
	rc=$?
	[ $rc = 1 ] && grep -q "$want" "$tmp/usage" ||
		{ cat "$tmp/usage"; echo "FAIL: mount.nilfs2 $*: exit $rc"; exit 1; }
}
usage_case 'invalid option "pp=1h"' /dev/null /mnt -o noatime,pp=1h
usage_case 'invalid option "gcpid=5"' -o gcpid=5 /dev/null /mnt
usage_case 'invalid option "nogc=1"' /dev/null -o nogc=1 /mnt
usage_case 'this helper mounts nilfs2 only' -t ext4 /dev/null /mnt
usage_case 'DEVICE and DIR are needed' /dev/null
usage_case 'one argument too many' /dev/null /mnt /x
usage_case 'unknown option' /dev/null /mnt -q
"$top/umount.nilfs2" >"$tmp/usage" 2>&1
[ $? = 1 ] || { cat "$tmp/usage"; echo "FAIL: umount.nilfs2 without arguments"; exit 1; }

# non-root use is refused before anything is done
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$top/mount.nilfs2" /dev/null /mnt \
		>"$tmp/nonroot" 2>&1
	rc=$?
	[ $rc = 1 ] && grep -q 'only root can mount' "$tmp/nonroot" ||
		{ cat "$tmp/nonroot"; echo "FAIL: non-root mount.nilfs2: exit $rc"; exit 1; }
	setpriv --reuid=65534 --regid=65534 --clear-groups "$top/umount.nilfs2" /mnt \
		>"$tmp/nonroot" 2>&1
	rc=$?
	[ $rc = 1 ] && grep -q 'only root can unmount' "$tmp/nonroot" ||
		{ cat "$tmp/nonroot"; echo "FAIL: non-root umount.nilfs2: exit $rc"; exit 1; }
fi

# 128 MiB of 1 MiB segments
img=$tmp/img
truncate -s 128M "$img" || exit 1
"$mkfs" -q -f -b 4096 -B 256 -L helper "$img" || fail "mkfs"
pack_ours "$tmp/ours.tar" "$top/mount.nilfs2" "$top/umount.nilfs2" "$top/nilfs_cleanerd" \
	"$top/nilfs-clean" || fail "pack_ours"

cat >"$tmp/guest-script" <<'GUEST'
# runs inside the guest under busybox sh
export TZ=UTC
mkdir -p /ours /run/mount /mnt2 && tar -xf /dev/vdb -C /ours || { echo "NO TOOLS FAILED"; exit 1; }
export LD_LIBRARY_PATH=/ours/lib
# ours in /sbin: where mount(8) and nilfs-tools' helper look
for p in mount.nilfs2 umount.nilfs2 nilfs_cleanerd nilfs-clean; do cp /ours/bin/$p /sbin/$p; done
# nilfs-tools' helpers under other names
cp /ktest/bin/mount.nilfs2 /sbin/theirs-mount.nilfs2
cp /ktest/bin/umount.nilfs2 /sbin/theirs-umount.nilfs2
syslogd -n -O /tmp/messages &
sleep 0.3

# the attributes utab holds for mount point $1 (empty if no entry)
attrs() {
	sed -n "s|.* TARGET=$1 .*ATTRS=\([^ ]*\).*|\1|p; s|.* TARGET=$1 [^A]*$|-|p" \
		/run/mount/utab 2>/dev/null | tail -n 1
}
# gcpid= of $1's attributes
gcpid() {
	attrs "$1" | sed -n 's/.*gcpid=\([0-9]*\).*/\1/p'
}
running() {   # $1 is a live nilfs_cleanerd (not a zombie)
	[ -n "$1" ] && [ "$(cat /proc/$1/comm 2>/dev/null)" = nilfs_cleanerd ] &&
		! grep -q '^State:[[:space:]]*Z' /proc/$1/status
}
ncleaners() {
	n=0
	for c in /proc/[0-9]*/comm; do
		[ "$(cat "$c" 2>/dev/null)" = nilfs_cleanerd ] || continue
		p=${c#/proc/}
		p=${p%/comm}
		grep -q '^State:[[:space:]]*Z' /proc/$p/status || n=$((n + 1))
	done
	echo $n
}
args_of() {   # the command line of pid $1, spaces between words
	tr '\0' ' ' </proc/$1/cmdline
}
period_of() {   # the protection period pid $1 logged when it started
	sed -n "s/.*nilfs_cleanerd\[$1\]: .*start on .*protection period \([0-9]*\) s.*/\1/p" \
		/tmp/messages | tail -n 1
}
mnt_mode() {   # rw or ro, as /proc/mounts has $1
	awk -v d="$1" '$2 == d { split($4, o, ","); m = o[1] } END { print m }' /proc/mounts
}
is_mounted() {
	awk -v d="$1" '$2 == d { f = 1 } END { exit !f }' /proc/mounts
}
wait_log() {   # wait up to 10 s for a line matching $1 in the log
	i=0
	while ! grep -q "$1" /tmp/messages && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
}
check() {   # check NAME WANT GOT
	if [ "$2" = "$3" ]; then echo "OK $1: $3"; else echo "$1 FAILED: want '$2', got '$3'"; fi
}

# 1. pp= after the positional arguments, as mount(8) passes it
mount.nilfs2 /dev/vda /mnt -v -o noatime,pp=60
check "mount rc" 0 $?
check "mount mode" rw "$(mnt_mode /mnt)"
grep -q ' /mnt .*noatime' /proc/mounts || echo "NOATIME FAILED: $(grep ' /mnt ' /proc/mounts)"
grep ' /mnt ' /proc/mounts | grep -q 'pp=' && echo "PP REACHED THE KERNEL FAILED"
p1=$(gcpid /mnt)
echo "UTAB1 $(attrs /mnt)"
check "utab after mount" "gcpid=$p1,pp=60" "$(attrs /mnt)"
running "$p1" || echo "CLEANER1 NOT RUNNING FAILED"
check "cleaner1 argv" "/sbin/nilfs_cleanerd -p 60 /dev/vda /mnt " "$(args_of "$p1")"
wait_log "nilfs_cleanerd\[$p1\]: .*start on"
check "cleaner1 period" 60 "$(period_of "$p1")"
check "lock file pid" "$p1" "$(cat /run/nilfs_cleanerd/254:0.lock)"
check "oom score" -1000 "$(cat /proc/$p1/oom_score_adj)"

# 2. a second read-write mount of the device
mount.nilfs2 /dev/vda /mnt2 2>/tmp/err
check "second rw mount rc" 32 $?
sed 's/^/ERR2 /' /tmp/err
is_mounted /mnt2 && echo "SECOND RW MOUNTED FAILED"

# 3. a snapshot read-only beside the live mount: no cleaner
echo data >/mnt/file
sync
cno=$(mkcp -s -p /dev/vda)
mount.nilfs2 -o ro,cp=$cno /dev/vda /mnt2
check "snapshot mount rc" 0 $?
check "snapshot mode" ro "$(mnt_mode /mnt2)"
check "snapshot content" data "$(cat /mnt2/file)"
check "cleaners beside snapshot" 1 "$(ncleaners)"
check "snapshot utab" "" "$(gcpid /mnt2)"
umount.nilfs2 /mnt2
check "snapshot umount rc" 0 $?
running "$p1" || echo "SNAPSHOT UMOUNT STOPPED THE CLEANER FAILED"

# 4. rw->rw without pp=: the same cleaner, the same period
mount.nilfs2 /dev/vda /mnt -o remount
check "remount rw rc" 0 $?
check "utab after remount rw" "gcpid=$p1,pp=60" "$(attrs /mnt)"
running "$p1" || echo "REMOUNT KEPT CLEANER FAILED"

# 5. rw->rw with a new pp=: restarted with it
mount.nilfs2 /dev/vda /mnt -o remount,pp=30
check "remount pp rc" 0 $?
p2=$(gcpid /mnt)
check "utab after remount pp" "gcpid=$p2,pp=30" "$(attrs /mnt)"
[ "$p2" != "$p1" ] || echo "NOT RESTARTED FAILED"
running "$p1" && echo "OLD CLEANER STILL RUNNING FAILED"
running "$p2" || echo "CLEANER2 NOT RUNNING FAILED"
wait_log "nilfs_cleanerd\[$p2\]: .*start on"
check "cleaner2 period" 30 "$(period_of "$p2")"
check "cleaners after restart" 1 "$(ncleaners)"

# 6. rw->ro: stopped first
mount.nilfs2 /dev/vda /mnt -o remount,ro
check "remount ro rc" 0 $?
check "mode after remount ro" ro "$(mnt_mode /mnt)"
running "$p2" && echo "CLEANER RUNS ON RO FAILED"
check "cleaners on ro" 0 "$(ncleaners)"
check "utab after remount ro" "pp=30" "$(attrs /mnt)"
grep -q "nilfs_cleanerd\[$p2\]: .*Terminated: stopping" /tmp/messages ||
	echo "CLEANER2 NOT STOPPED BY SIGTERM FAILED"

# 7. ro->rw: started, with the recorded period
mount.nilfs2 /dev/vda /mnt -o remount,rw
check "remount rw again rc" 0 $?
p3=$(gcpid /mnt)
running "$p3" || echo "CLEANER3 NOT RUNNING FAILED"
check "utab after ro->rw" "gcpid=$p3,pp=30" "$(attrs /mnt)"
wait_log "nilfs_cleanerd\[$p3\]: .*start on"
check "cleaner3 period" 30 "$(period_of "$p3")"

# 8. a remount that fails (a file open for writing keeps it rw): the
# cleaner is back as it was
exec 3>/mnt/busy
mount.nilfs2 /dev/vda /mnt -o remount,ro 2>/tmp/err
check "failed remount rc" 32 $?
sed 's/^/ERR8 /' /tmp/err
check "mode after failed remount" rw "$(mnt_mode /mnt)"
p4=$(gcpid /mnt)
running "$p4" || echo "CLEANER NOT RESTORED FAILED"
check "utab after failed remount" "gcpid=$p4,pp=30" "$(attrs /mnt)"
wait_log "nilfs_cleanerd\[$p4\]: .*start on"
check "restored period" 30 "$(period_of "$p4")"
exec 3>&-

# 8b. an unmount that fails (busy): the cleaner runs again, recorded
(cd /mnt && exec sleep 600) &
busy=$!
sleep 0.3
umount.nilfs2 /mnt 2>/tmp/err
check "busy umount rc" 32 $?
sed 's/^/ERR8B /' /tmp/err
check "mode after busy umount" rw "$(mnt_mode /mnt)"
pb=$(gcpid /mnt)
[ "$pb" != "$p4" ] || echo "NOT RESTARTED AFTER BUSY UMOUNT FAILED"
running "$pb" || echo "CLEANER NOT BACK AFTER BUSY UMOUNT FAILED"
check "utab after busy umount" "gcpid=$pb,pp=30" "$(attrs /mnt)"
# 8c. -r: remounted read-only instead, the cleaner stays stopped
umount.nilfs2 -r /mnt 2>/tmp/err
check "umount -r rc" 0 $?
sed 's/^/ERR8C /' /tmp/err
check "mode after umount -r" ro "$(mnt_mode /mnt)"
running "$pb" && echo "CLEANER RUNS AFTER UMOUNT -R FAILED"
check "cleaners after umount -r" 0 "$(ncleaners)"
check "utab after umount -r" "pp=30" "$(attrs /mnt)"
kill $busy
wait $busy 2>/dev/null
mount.nilfs2 /dev/vda /mnt -o remount,rw
p4=$(gcpid /mnt)
running "$p4" || echo "CLEANER AFTER UMOUNT -R AND REMOUNT FAILED"

# 9. umount: the cleaner is stopped by SIGTERM before the unmount
umount.nilfs2 -v /mnt
check "umount rc" 0 $?
is_mounted /mnt && echo "STILL MOUNTED FAILED"
running "$p4" && echo "CLEANER SURVIVED UMOUNT FAILED"
wait_log "nilfs_cleanerd\[$p4\]: .*stopping"
grep -q "nilfs_cleanerd\[$p4\]: .*Terminated: stopping" /tmp/messages ||
	echo "CLEANER4 NOT STOPPED BEFORE THE UNMOUNT FAILED"
grep -q "nilfs_cleanerd\[$p4\]: .*no longer mounted" /tmp/messages &&
	echo "CLEANER4 OUTLIVED THE MOUNT FAILED"
check "utab after umount" "" "$(attrs /mnt)"
umount.nilfs2 /mnt 2>/tmp/err
check "umount of nothing rc" 32 $?
sed 's/^/ERR9 /' /tmp/err

# 10. nogc: no cleaner
mount.nilfs2 /dev/vda /mnt -o nogc
check "nogc mount rc" 0 $?
check "nogc cleaners" 0 "$(ncleaners)"
check "nogc utab" nogc "$(attrs /mnt)"
umount.nilfs2 /mnt
check "nogc umount rc" 0 $?

# 11. busybox mount: does it run the helper?  (it tries the kernel first)
mount -t nilfs2 -o pp=45 /dev/vda /mnt 2>/tmp/err
rc=$?
p=$(gcpid /mnt)
if [ $rc = 0 ] && running "$p"; then
	echo "BUSYBOX RUNS THE HELPER: yes"
	wait_log "nilfs_cleanerd\[$p\]: .*start on"
	check "busybox pp" 45 "$(period_of "$p")"
	umount.nilfs2 /mnt
	# an fstab line with pp=, then one with nogc
	echo "/dev/vda /mnt nilfs2 pp=20 0 0" >/etc/fstab
	mount /mnt
	p=$(gcpid /mnt)
	running "$p" || echo "FSTAB CLEANER FAILED"
	wait_log "nilfs_cleanerd\[$p\]: .*start on"
	check "fstab pp" 20 "$(period_of "$p")"
	umount.nilfs2 /mnt
	echo "/dev/vda /mnt nilfs2 nogc 0 0" >/etc/fstab
	mount /mnt
	check "fstab nogc cleaners" 0 "$(ncleaners)"
	check "fstab nogc utab" nogc "$(attrs /mnt)"
	umount.nilfs2 /mnt
	rm /etc/fstab
else
	echo "BUSYBOX RUNS THE HELPER: no (rc $rc: $(cat /tmp/err))"
	is_mounted /mnt && umount /mnt
fi

# 12. nilfs-tools' helper starts our daemon (from /sbin) and records it;
# our umount stops it
theirs-mount.nilfs2 /dev/vda /mnt -o pp=50
check "theirs mount rc" 0 $?
p5=$(gcpid /mnt)
check "theirs utab" "gcpid=$p5,pp=50" "$(attrs /mnt)"
running "$p5" || echo "THEIR HELPER DID NOT START OURS FAILED"
wait_log "nilfs_cleanerd\[$p5\]: .*start on"
check "theirs period" 50 "$(period_of "$p5")"
nilfs-clean -l /dev/vda >/dev/null || echo "OUR DAEMON NOT ANSWERING FAILED"
umount.nilfs2 /mnt
check "ours umount of theirs rc" 0 $?
running "$p5" && echo "OUR UMOUNT DID NOT STOP IT FAILED"
# and ours mounted, theirs unmounted
mount.nilfs2 /dev/vda /mnt -o pp=40
p6=$(gcpid /mnt)
running "$p6" || echo "CLEANER6 FAILED"
theirs-umount.nilfs2 /mnt
check "theirs umount of ours rc" 0 $?
running "$p6" && echo "THEIR UMOUNT DID NOT STOP OURS FAILED"
is_mounted /mnt && echo "THEIR UMOUNT FAILED"

# 13. fill and delete under the cleaner the helper started (the default
# configuration, pp=0): the clean segments come back by themselves
mount.nilfs2 /dev/vda /mnt -o pp=0
p7=$(gcpid /mnt)
running "$p7" || echo "CLEANER7 FAILED"
nsegs=$(nilfs-clean -l -v /dev/vda | sed -n 's/^segments: //p')
clean_segs() {   # from the kernel now (the daemon's status is its last pass)
	echo $((nsegs - $(lssu /dev/vda | awk 'NR > 1' | wc -l)))
}
i=0
while [ $i -lt 14 ]; do
	dd if=/dev/urandom of=/mnt/fill$i bs=1M count=8 2>/dev/null && sync || break
	i=$((i + 1))
done
echo "FILLED $i x 8 MiB; clean $(clean_segs) of $nsegs"
low=$(clean_segs)
rm -f /mnt/fill*
sync
target=$((nsegs / 5))
t=0
while [ "$(clean_segs)" -lt $target ] && [ $t -lt 180 ]; do sleep 1; t=$((t + 1)); done
c=$(clean_segs)
echo "RECOVERED clean $low -> $c (target $target) after ${t}s"
[ "$c" -ge $target ] || echo "CLEAN SEGMENTS NOT RECOVERED FAILED"
[ "$low" -lt $target ] || echo "FILL LEFT TOO MANY CLEAN SEGMENTS FAILED"
umount.nilfs2 /mnt
check "final umount rc" 0 $?
check "cleaners at the end" 0 "$(ncleaners)"
grep nilfs_cleanerd /tmp/messages | grep -E 'err|warn|crit' | sed 's/^/LOG /'
dmesg | grep -i nilfs | grep -iE 'error|warn|corrupt|invalid|crit' | sed 's/^/KMSG /'
echo "ALL DONE"
GUEST

t0=$(date +%s)
NILFS_KTEST_EXTRA="$theirs_mount $theirs_umount" NILFS_KTEST_TIMEOUT=${NILFS_KTEST_TIMEOUT:-420} \
	"$guest" run "$tmp/guest-script" "$img" "$tmp/ours.tar" >"$tmp/out" 2>&1
rc=$?
t1=$(date +%s)
[ -n "${VERBOSE:-}" ] && cat "$tmp/out"
[ $rc -eq 0 ] || fail "guest script exited $rc"
grep -qx "ALL DONE" "$tmp/out" || fail "missing ALL DONE"
! grep -q 'FAILED' "$tmp/out" || fail "a guest step failed: $(grep FAILED "$tmp/out" | head -n 5)"
! grep -q '^KMSG ' "$tmp/out" || fail "kernel complained: $(grep '^KMSG ' "$tmp/out" | head -n 5)"
grep -q '^ERR2 mount.nilfs2: /dev/vda is already mounted read-write on /mnt' "$tmp/out" ||
	fail "second rw mount: no clear message"
grep -q '^ERR8 mount.nilfs2: .*restarted' "$tmp/out" || fail "failed remount: no restart message"
grep -q '^ERR8B umount.nilfs2: /mnt: target is busy' "$tmp/out" || fail "busy umount: no message"
grep -q '^ERR8C umount.nilfs2: /mnt: target is busy; remounted read-only, nilfs_cleanerd stays stopped' \
	"$tmp/out" || fail "umount -r: no message"
grep '^BUSYBOX\|^RECOVERED\|^FILLED' "$tmp/out"
echo "ours: $(grep -c '^OK ' "$tmp/out") checks; guest took $((t1 - t0)) s"
echo "PASS: $0"
exit 0
