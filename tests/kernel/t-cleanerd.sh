#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-cleanerd.sh - our nilfs_cleanerd and nilfs-clean under the real kernel.
# In the guest: a volume made by our mkfs.nilfs2 gets a tree, two
# snapshots taken between rewrites, and a lot of garbage; our daemon
# (protection period 0 via -p, fast steps) runs with the timestamp policy
# until the clean segments reach a target, then, after more garbage and a
# SIGHUP that switches to cost-benefit, again.  nilfs-clean checks status,
# suspend/resume, a manual pass with --wait, stop, reload and quit; a second
# daemon on the volume is refused.  The latest tree and both snapshots
# (mounted ro,cp=N) must read back as before the cleaning, nilfs-tools' lscp
# and lssu must work, the kernel must not complain.  Back on the host
# dump.nilfs2 reads the cleaned volume: logs with good checksums, and the
# latest tree and the snapshots extract to the same manifests.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=${top_builddir:-$here/../..}
mkfs=$top/mkfs.nilfs2
dump=$top/dump.nilfs2
cleanerd=$top/nilfs_cleanerd
clean=$top/nilfs-clean

"$guest" require || exit
for p in "$mkfs" "$dump" "$cleanerd" "$clean"; do
	[ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-cleanerd.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	echo "--- guest output (last 80 lines) ---"
	tail -n 80 "$tmp/out"
	exit 1
}

. "$here/manifest.sh"

# 128 MiB of 1 MiB segments: 127 segments, 8 of them reserved
img=$tmp/img
truncate -s 128M "$img" || exit 1
"$mkfs" -q -f -b 4096 -B 256 -L cleaner "$img" || fail "mkfs"
# 64 MiB for the full-volume case
full=$tmp/full
truncate -s 64M "$full" || exit 1
"$mkfs" -q -f -b 4096 -B 256 -L full "$full" || fail "mkfs (full)"

{
	cat "$here/manifest.sh"
	cat <<'GUEST'
# runs inside the guest under busybox sh
export TZ=UTC PATH=/ktest/bin:$PATH
sock=/run/nilfs_cleanerd/254:0.sock
syslogd -n -O /tmp/messages &
sleep 0.3
mount -t nilfs2 /dev/vda /mnt || { echo "MOUNT FAILED"; exit 1; }

clean_segs() {
	nilfs-clean -l -v /dev/vda | sed -n 's/^clean segments: //p'
}
# wait until at least $1 segments are clean (at most $2 s)
wait_clean() {
	t=0
	while [ $t -lt "$2" ]; do
		c=$(clean_segs)
		[ -n "$c" ] && [ "$c" -ge "$1" ] && { echo "REACHED $1 ($c) after ${t}s"; return 0; }
		sleep 1
		t=$((t + 1))
	done
	echo "CLEAN TIMEOUT FAILED: $(clean_segs) < $1"
	nilfs-clean -l -v /dev/vda
	return 1
}
churn() {   # $1 rounds of a $2 MiB scratch file rewritten, then deleted
	r=0
	while [ $r -lt "$1" ]; do
		dd if=/dev/urandom of=/mnt/scratch bs=1M count="$2" 2>/dev/null
		echo "round $r" >>/mnt/tree/b/log
		sync
		r=$((r + 1))
	done
	rm -f /mnt/scratch
	sync
}

# the tree, then snapshot 1
mkdir -p /mnt/tree/a /mnt/tree/b
i=0
while [ $i -lt 120 ]; do
	head -c $((i * 977 % 20000 + 1)) /dev/urandom >/mnt/tree/a/f$i
	i=$((i + 1))
done
dd if=/dev/urandom of=/mnt/tree/m1 bs=64k count=64 2>/dev/null
dd if=/dev/urandom of=/mnt/tree/m2 bs=64k count=64 2>/dev/null
ln -s a/f7 /mnt/tree/link
sync
s1=$(mkcp -s -p /dev/vda) || echo "MKCP FAILED"
echo "SNAPSHOT1 $s1"
manifest /mnt | sed 's/^/SNAP1 /'

# every other 64 KiB of the big files, a third of the small files; snapshot 2
c=0
while [ $c -lt 64 ]; do
	dd if=/dev/urandom of=/mnt/tree/m1 bs=64k count=1 seek=$c conv=notrunc 2>/dev/null
	dd if=/dev/urandom of=/mnt/tree/m2 bs=64k count=1 seek=$((c + 1)) conv=notrunc 2>/dev/null
	c=$((c + 2))
done
i=0
while [ $i -lt 40 ]; do rm /mnt/tree/a/f$i; i=$((i + 1)); done
echo appended >>/mnt/tree/a/f50
sync
s2=$(mkcp -s -p /dev/vda) || echo "MKCP FAILED"
echo "SNAPSHOT2 $s2"
manifest /mnt | sed 's/^/SNAP2 /'

# garbage: plain checkpoints that only the cleaner will delete
c=1
while [ $c -lt 64 ]; do
	dd if=/dev/urandom of=/mnt/tree/m1 bs=64k count=1 seek=$c conv=notrunc 2>/dev/null
	c=$((c + 8))
done
churn 8 6
echo "BEFORE $(lssu /dev/vda | awk 'NR > 1' | wc -l) dirty"

cat >/tmp/c.conf <<'CONF'
# test configuration
protection_period	3600	# overridden by -p 0
min_clean_segments	0
clean_check_interval	0.5
cleaning_interval	0.1
nsegments_per_clean	8
selection_policy	timestamp
use_set_suinfo
min_reclaimable_blocks	5%
bad_key_here	1
log_priority	info
CONF
nilfs_cleanerd -p 0 -c /tmp/c.conf /dev/vda 2>/tmp/err1 || echo "START FAILED"
sed 's/^/ERR1 /' /tmp/err1
nilfs_cleanerd -p 0 -c /tmp/c.conf /dev/vda 2>/tmp/err2 && echo "SECOND DAEMON FAILED: started"
sed 's/^/ERR2 /' /tmp/err2
[ -S $sock ] || echo "SOCKET FAILED"
pid=$(cat /run/nilfs_cleanerd/254:0.lock)
echo "PID $pid"
nsegs=$(nilfs-clean -l -v | sed -n 's/^segments: //p')
echo "NSEGS $nsegs"
wait_clean $((nsegs - 34)) 100
nilfs-clean -l -v /dev/vda | sed 's/^/STATUS1 /'

# SIGHUP switches to cost-benefit; more garbage
sed -i 's/^selection_policy.*/selection_policy cost-benefit/' /tmp/c.conf
kill -HUP "$pid"
sleep 0.5
nilfs-clean -l -v | grep -q '^selection policy: cost-benefit' || echo "SIGHUP RELOAD FAILED"
churn 6 5
wait_clean $((nsegs - 34)) 100
nilfs-clean -l -v | sed 's/^/STATUS2 /'

# nilfs-clean against the running daemon
nilfs-clean -s /dev/vda || echo "SUSPEND FAILED"
[ "$(nilfs-clean -l /mnt)" = suspended ] || echo "SUSPENDED STATE FAILED"
nilfs-clean -r || echo "RESUME FAILED"
[ "$(nilfs-clean -l)" != suspended ] || echo "RESUMED STATE FAILED"
churn 3 4
nilfs-clean -v --wait -S 8/0.1 -p 0 /dev/vda | sed 's/^/PASS /' || echo "MANUAL PASS FAILED"
nilfs-clean -b /dev/vda || echo "STOP FAILED"
nilfs-clean -c /dev/vda || echo "RELOAD FAILED"
nilfs-clean -l -v | sed 's/^/STATUS3 /'
nilfs-clean -q /dev/vda || echo "QUIT FAILED"
i=0
while [ -e $sock ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -e $sock ] && echo "DAEMON EXIT FAILED"
# gone, or a zombie (our init does not reap while the script runs)
running() {
	st=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' /proc/$1/status 2>/dev/null)
	[ -n "$st" ] && [ "$st" != Z ]
}
i=0
while running "$pid" && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
running "$pid" && echo "DAEMON STILL RUNNING FAILED"
nilfs-clean -l /dev/vda 2>&1 | sed 's/^/NODAEMON /'
# in the foreground, logging to stderr too; SIGTERM stops it cleanly
nilfs_cleanerd -n --stderr -p 0 -c /tmp/c.conf /dev/vda 2>/tmp/fg.err &
fg=$!
i=0
while [ ! -S $sock ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
[ -S $sock ] || echo "FOREGROUND START FAILED"
kill -TERM $fg
wait $fg
echo "FGRC $?"
sed 's/^/FGERR /' /tmp/fg.err
[ -e $sock ] && echo "SOCKET AFTER SIGTERM FAILED"

# a full volume (vdb, no cleaner running): writes fail with ENOSPC; the
# daemon, with nilfs-utils' thresholds, must get it writable again, then
# pause; it exits by itself when the volume is unmounted
mkdir -p /mnt3
mount -t nilfs2 /dev/vdb /mnt3 || echo "MOUNT FAILED vdb"
dd if=/dev/urandom of=/mnt3/keep bs=1M count=16 2>/dev/null
sync
r=0
while [ $r -lt 40 ]; do
	dd if=/dev/urandom of=/mnt3/hot bs=1M count=8 2>/dev/null && sync || break
	r=$((r + 1))
done
# the kernel refuses a write once it would leave too few clean segments;
# small files fill the rest
sync
sleep 1
f=0
while [ $f -lt 40 ]; do
	dd if=/dev/urandom of=/mnt3/small$f bs=256k count=1 2>/dev/null && sync || break
	f=$((f + 1))
done
echo "FULL after $r rounds and $f small files"
dd if=/dev/urandom of=/mnt3/hot bs=1M count=8 2>/dev/null && sync && echo "ENOSPC EXPECTED FAILED"
cat >/tmp/full.conf <<'CONF'
cleaning_interval 0.5
mc_cleaning_interval 0.2
clean_check_interval 0.5
mc_nsegments_per_clean 8
CONF
nilfs_cleanerd -p 0 -c /tmp/full.conf /dev/vdb /mnt3 || echo "START FAILED vdb"
sleep 4
ok=0
t=0
while [ $t -lt 60 ]; do
	if dd if=/dev/urandom of=/mnt3/hot bs=1M count=8 2>/dev/null && sync; then ok=1; break; fi
	sleep 1
	t=$((t + 1))
done
[ $ok = 1 ] || echo "STILL FULL FAILED"
t=0
while ! grep -q '/dev/vdb: pause:' /tmp/messages && [ $t -lt 60 ]; do sleep 0.5; t=$((t + 1)); done
sha256sum /mnt3/keep | sed 's/^/KEEP /'
nilfs-clean -l -v /dev/vdb | sed 's/^/FULLSTATUS /'
i=0
until umount /mnt3 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 20 ] || { echo "UMOUNT FAILED vdb"; break; }
	sleep 0.2
done
i=0
while [ -e /run/nilfs_cleanerd/254:16.sock ] && [ $i -lt 60 ]; do sleep 0.1; i=$((i + 1)); done
[ -e /run/nilfs_cleanerd/254:16.sock ] && echo "EXIT ON UMOUNT FAILED"

manifest /mnt | sed 's/^/FINAL /'
for s in $s1 $s2; do
	mkdir -p /mnt2
	mount -t nilfs2 -o ro,cp=$s /dev/vda /mnt2 || echo "SNAPSHOT MOUNT FAILED $s"
	manifest /mnt2 | sed "s/^/CP$s /"
	umount /mnt2
done
lscp /dev/vda | sed 's/^/LSCP /' || echo "LSCP FAILED"
lssu /dev/vda >/tmp/lssu || echo "LSSU FAILED"
echo "AFTER $(awk 'NR > 1' /tmp/lssu | wc -l) dirty"
umount /mnt || echo "UMOUNT FAILED"
grep nilfs_cleanerd /tmp/messages | sed 's/^/LOG /'
dmesg | grep -i nilfs | grep -iE 'error|warn|corrupt|invalid|crit' | sed 's/^/KMSG /'
echo "ALL DONE"
GUEST
} >"$tmp/guest-script"

t0=$(date +%s)
NILFS_KTEST_EXTRA="$cleanerd $clean" NILFS_KTEST_TIMEOUT=${NILFS_KTEST_TIMEOUT:-420} \
	"$guest" run "$tmp/guest-script" "$img" "$full" >"$tmp/out" 2>&1
rc=$?
t1=$(date +%s)
[ $rc -eq 0 ] || fail "guest script exited $rc"
grep -qx "ALL DONE" "$tmp/out" || fail "missing ALL DONE"
! grep -q 'FAILED' "$tmp/out" || fail "a guest step failed: $(grep FAILED "$tmp/out" | head -n 3)"
! grep -q '^KMSG ' "$tmp/out" || fail "kernel complained: $(grep '^KMSG ' "$tmp/out" | head -n 5)"

# the configuration message names file and line; the second daemon is refused
grep -q '^ERR1 nilfs_cleanerd: /tmp/c.conf:10: bad_key_here: unknown keyword' "$tmp/out" ||
	fail "no file:line message for the invalid configuration line"
grep -q '^ERR2 .*already cleaning this volume' "$tmp/out" || fail "second daemon not refused clearly"
grep -q '^NODAEMON nilfs-clean: /dev/vda: no nilfs_cleanerd is running' "$tmp/out" ||
	fail "nilfs-clean without a daemon"
grep -q '^PASS /dev/vda: cleaning pass [0-9]* finished' "$tmp/out" || fail "manual pass did not finish"
grep -qx 'FGRC 0' "$tmp/out" || fail "foreground daemon: exit status after SIGTERM"
grep -q '^FGERR nilfs_cleanerd\[[0-9]*\]: /dev/vda: Terminated: stopping' "$tmp/out" ||
	fail "foreground daemon: no log on stderr, or SIGTERM not logged"
grep -q '^LOG .*daemon\.info nilfs_cleanerd\[[0-9]*\]: /dev/vda: cleaned segment' "$tmp/out" ||
	fail "nothing cleaned according to syslog"
grep -q '^LOG .*configuration reloaded' "$tmp/out" || fail "no reload in the log"
grep -q '^LOG .*/dev/vdb: volume nearly full' "$tmp/out" || fail "full volume: no emergency"
grep -q '^LOG .*/dev/vdb: pause: ' "$tmp/out" || fail "full volume: no pause above max_clean_segments"
grep -q '^LOG .*/dev/vdb: no longer mounted; exiting' "$tmp/out" || fail "no exit on umount"
grep -q '^LOG .*manual run 1 completed' "$tmp/out" || fail "manual run not logged"
moved=$(sed -n 's/^STATUS3 blocks moved: //p' "$tmp/out")
cleaned=$(sed -n 's/^STATUS3 segments cleaned: //p' "$tmp/out")
ranges=$(sed -n 's/^STATUS3 checkpoint ranges deleted: //p' "$tmp/out")
[ "${moved:-0}" -gt 0 ] || fail "no live block was moved: relocation not exercised"
c1=$(sed -n 's/^STATUS1 segments cleaned: //p' "$tmp/out")
c2=$(sed -n 's/^STATUS2 segments cleaned: //p' "$tmp/out")
[ "${c2:-0}" -gt "${c1:-0}" ] || fail "nothing cleaned after the switch to cost-benefit"
[ "${ranges:-0}" -gt 0 ] || fail "no checkpoint was deleted"
before=$(sed -n 's/^BEFORE \([0-9]*\) dirty/\1/p' "$tmp/out")
after=$(sed -n 's/^AFTER \([0-9]*\) dirty/\1/p' "$tmp/out")

# snapshots and the latest tree as they were before cleaning
s1=$(sed -n 's/^SNAPSHOT1 //p' "$tmp/out")
s2=$(sed -n 's/^SNAPSHOT2 //p' "$tmp/out")
sed -n 's/^SNAP1 //p' "$tmp/out" >"$tmp/want1"
sed -n 's/^SNAP2 //p' "$tmp/out" >"$tmp/want2"
sed -n 's/^FINAL //p' "$tmp/out" >"$tmp/final"
sed -n "s/^CP$s1 //p" "$tmp/out" >"$tmp/got1"
sed -n "s/^CP$s2 //p" "$tmp/out" >"$tmp/got2"
for n in 1 2; do
	[ -s "$tmp/want$n" ] || fail "no manifest of snapshot $n"
	if ! cmp -s "$tmp/want$n" "$tmp/got$n"; then
		diff -u "$tmp/want$n" "$tmp/got$n" | head -n 30
		fail "snapshot $n reads differently after cleaning (- before, + after)"
	fi
done
grep -q '^H .*  ./tree/m1$' "$tmp/final" || fail "latest tree lost m1"
for s in $s1 $s2; do
	awk -v c="$s" '$1 == "LSCP" && $2 == c && $5 == "ss"' "$tmp/out" | grep -q . ||
		awk -v c="$s" '$1 == "LSCP" && $2 == c && $6 == "ss"' "$tmp/out" | grep -q . ||
		fail "lscp does not list snapshot $s"
done

# our reader on the cleaned volume
"$dump" "$img" logs >"$tmp/logs" 2>&1 || { cat "$tmp/logs"; fail "dump.nilfs2 logs"; }
# our checker calls the cleaned, unmounted volume clean, every checkpoint of it
"$top/fsck.nilfs2" -n --checkpoints=all "$img" >"$tmp/fsck" 2>&1 ||
	{ cat "$tmp/fsck"; fail "fsck.nilfs2 on the volume the daemon cleaned"; }
! grep -q 'BAD-' "$tmp/logs" || fail "bad checksums after cleaning"
for which in final 1 2; do
	x=$tmp/x.$which
	case $which in
	final) "$dump" "$img" extract / "$x" ;;
	1) "$dump" -c "$s1" "$img" extract / "$x" ;;
	2) "$dump" -c "$s2" "$img" extract / "$x" ;;
	esac >"$tmp/err" 2>&1 || { cat "$tmp/err"; fail "dump.nilfs2 extract ($which)"; }
	TZ=UTC manifest "$x" >"$tmp/got"
	want=$tmp/final
	[ $which = final ] || want=$tmp/want$which
	if ! cmp -s "$want" "$tmp/got"; then
		diff -u "$want" "$tmp/got" | head -n 30
		fail "dump.nilfs2 reads $which differently from the kernel"
	fi
	rm -rf "$x"
done
echo "ours: $before dirty segments before, $after after; $cleaned cleaned, $moved blocks moved," \
	"$ranges checkpoint ranges deleted; guest took $((t1 - t0)) s"
echo "PASS: $0"
exit 0
