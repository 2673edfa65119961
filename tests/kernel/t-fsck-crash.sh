#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-fsck-crash.sh - volumes the real kernel left behind when the machine
# died in the middle of heavy writing.  For each of several crash points
# the guest runs a mixed workload (creates, appends, overwrites made
# durable with fdatasync, fsync, renames, unlinks, directories, periodic
# sync) and reboots without unmounting after N operations.  On the host:
#   - fsck.nilfs2 -n -f must find no corruption (notes about the logs to
#     roll forward are fine);
#   - a copy recovered by fsck.nilfs2 -y (the kernel's recovery done
#     offline) must exit 0 (recovery is no correction), check clean with
#     nothing left to roll forward, have both superblocks marked cleanly
#     unmounted, and be taken by an offline writer (mkcp);
#   - a guest mounts the unrepaired volume (the kernel recovers it) and
#     the recovered copy, which the kernel must not need to recover; both
#     trees, and the tree our reader extracts from the recovered copy, must
#     be the same (paths, types, contents, links).  At crash point 110 the
#     superblocks name an older checkpoint than the latest super root.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).
here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=$(cd "${top_builddir:-$here/../..}" && pwd)
mkfs=$top/mkfs.nilfs2
fsck=$top/fsck.nilfs2
dump=$top/dump.nilfs2
# N or N:dsync (the first fdatasync at or after operation N, so that the
# volume has data-sync logs to roll forward)
POINTS=${CRASH_POINTS:-"25 60:dsync 90 110 140 170:dsync"}

"$guest" require || exit
mkcp=$top/mkcp
for p in "$mkfs" "$fsck" "$dump" "$mkcp"; do [ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }; done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-fsck-crash.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# crash after $1 operations; each operation is one step of a fixed plan
for pt in $POINTS; do
	n=${pt%%:*} kind=${pt#*:}
	[ "$kind" = "$pt" ] && kind=any
	truncate -s 96M "$tmp/c$n.img"
	"$mkfs" -q -f -b 1024 -B 512 "$tmp/c$n.img" || exit 1
	cat >"$tmp/crash$n" <<EOF2
N=$n KIND=$kind
EOF2
	cat >>"$tmp/crash$n" <<'GUEST'
mount -t nilfs2 /dev/vda /mnt || { echo "MOUNT FAILED"; exit 1; }
i=0
op() { i=$((i + 1)); [ $i -ge $N ] && [ "$KIND" = any ] && echo b >/proc/sysrq-trigger; }
dsync_op() { i=$((i + 1)); [ $i -ge $N ] && echo b >/proc/sysrq-trigger; }
while :; do
	d=/mnt/d$((i % 7))
	mkdir -p $d; op
	dd if=/dev/urandom of=$d/f$i bs=1k count=$((i % 13 + 1)) 2>/dev/null; op
	[ -f /mnt/db ] || dd if=/dev/zero of=/mnt/db bs=1k count=256 2>/dev/null
	dd if=/dev/urandom of=/mnt/db bs=1k seek=$((i * 5 % 250)) count=3 conv=notrunc 2>/dev/null
	sync -d /mnt/db; dsync_op
	echo "line $i" >>/mnt/log; sync -d /mnt/log; op
	[ $((i % 5)) -eq 0 ] && { mv $d/f$((i - 1)) $d/moved$i 2>/dev/null; op; }
	[ $((i % 6)) -eq 0 ] && { rm -f /mnt/d$(((i + 3) % 7))/f*; op; }
	[ $((i % 9)) -eq 0 ] && { sync; op; }
	dd if=/dev/urandom of=$d/g bs=1k count=20 2>/dev/null; fsync $d/g 2>/dev/null || sync -d $d/g; op
done
GUEST
	"$guest" run "$tmp/crash$n" "$tmp/c$n.img" >"$tmp/out" 2>&1
	rc=$?
	[ $rc -eq 125 ] || { tail -n 20 "$tmp/out"; echo "FAIL: crash point $n: the guest was to die, it exited $rc"; exit 1; }
done
POINTS=$(for pt in $POINTS; do printf '%s ' "${pt%%:*}"; done)
nimg=$(($(echo $POINTS | wc -w) * 2))

. "$here/manifest.sh"
imgs= script="$tmp/mount"
{
	cat "$here/manifest.sh"
	echo "k=0 nimg=$nimg"
	echo 'for dev in /dev/vd?; do'
	echo '	[ $nimg -gt 0 ] || break; nimg=$((nimg - 1))'
	echo '	mount -t nilfs2 -o ro $dev /mnt 2>/dev/null || { mount -t nilfs2 $dev /mnt || { echo "MOUNT FAILED $dev"; k=$((k + 1)); continue; }; }'
	echo '	dmesg | grep -q "($(basename $dev)): mounting unchecked" && echo "UNCHECKED $dev"'
	echo '	manifest /mnt | grep -v "^S " | sed "s|^|M$dev |"'
	echo '	find /mnt | sort | sed "s|^/mnt|P$dev |"'
	echo '	umount /mnt'
	echo 'done'
} >"$script"

for n in $POINTS; do
	img=$tmp/c$n.img
	"$fsck" -n -f "$img" >"$tmp/n$n" 2>&1
	rc=$?
	nrf=$(sed -n 's/.*roll-forward: at mount the kernel replays \([0-9]*\) data-sync.*/\1/p' "$tmp/n$n")
	if [ $rc -ne 0 ]; then
		bad "crash point $n: fsck.nilfs2 -n -f exits $rc on the kernel's volume:"
		grep -v '^Pass' "$tmp/n$n"
	fi
	cp --sparse=always "$img" "$tmp/r$n.img"
	"$fsck" -y "$tmp/r$n.img" >"$tmp/y$n" 2>&1
	rc=$?
	if [ $rc -ne 0 ]; then
		bad "crash point $n: fsck.nilfs2 -y exits $rc (the kernel's recovery alone corrects nothing):"
		grep -v '^Pass' "$tmp/y$n"
	fi
	"$dump" "$tmp/r$n.img" super | grep -q 's_state *0x0000' &&
		bad "crash point $n: a superblock copy is still unclean after -y"
	cp --sparse=always "$tmp/r$n.img" "$tmp/w.img"
	"$mkcp" "$tmp/w.img" >"$tmp/mkcp" 2>&1 || { bad "crash point $n: mkcp refuses the recovered copy:"; cat "$tmp/mkcp"; }
	rm -f "$tmp/w.img"
	"$fsck" -n -f "$tmp/r$n.img" >"$tmp/a$n" 2>&1 || { bad "crash point $n: not clean after -y:"; cat "$tmp/a$n"; }
	grep -q 'roll-forward' "$tmp/a$n" && bad "crash point $n: logs left to roll forward after -y"
	rm -rf "$tmp/x$n" && mkdir "$tmp/x$n"
	"$dump" "$tmp/r$n.img" extract / "$tmp/x$n" >/dev/null 2>&1 || bad "crash point $n: extract failed"
	echo "crash point $n: fsck -n exit 0, ${nrf:-0} data-sync log(s) to roll forward; fsck -y exit $rc:" \
		"$(sed -n 's/^[^:]*: [^:]*: recovery: //p' "$tmp/y$n" | head -n 1)"
	imgs="$imgs $img $tmp/r$n.img"
done
# shellcheck disable=SC2086
"$guest" run "$script" $imgs >"$tmp/out" 2>&1 || { tail -n 30 "$tmp/out"; echo "FAIL: the mount guest exited $?"; exit 1; }
grep -q "MOUNT FAILED" "$tmp/out" && bad "the kernel refused a volume: $(grep 'MOUNT FAILED' "$tmp/out")"
j=0
for n in $POINTS; do
	a=/dev/vd$(printf "\\$(printf %o $((97 + j)))")
	b=/dev/vd$(printf "\\$(printf %o $((98 + j)))")
	j=$((j + 2))
	grep -q "^UNCHECKED $a\$" "$tmp/out" || bad "crash point $n: the kernel did not say it recovers the original"
	grep -q "^UNCHECKED $b\$" "$tmp/out" && bad "crash point $n: the kernel still recovers the copy fsck -y recovered"
	sed -n "s|^M$a ||p" "$tmp/out" >"$tmp/kernel$n"
	sed -n "s|^M$b ||p" "$tmp/out" >"$tmp/repaired$n"
	sed -n "s|^P$a ||p" "$tmp/out" >"$tmp/kpaths$n"
	manifest "$tmp/x$n" | grep -v '^S ' >"$tmp/ours$n"
	(cd "$tmp/x$n" && find . | LC_ALL=C sort | sed 's|^\.||; s|^$||' | sed '/^$/d') >"$tmp/opaths$n"
	sed -i '/^$/d' "$tmp/kpaths$n"
	if [ ! -s "$tmp/kernel$n" ]; then
		bad "crash point $n: no tree from the kernel"
	elif ! cmp -s "$tmp/kernel$n" "$tmp/repaired$n"; then
		bad "crash point $n: the kernel reads the repaired copy differently from the rolled-forward original:"
		diff "$tmp/kernel$n" "$tmp/repaired$n" | head -20
	elif ! cmp -s "$tmp/kernel$n" "$tmp/ours$n"; then
		bad "crash point $n: our reader's tree of the repaired copy differs from the kernel's:"
		diff "$tmp/kernel$n" "$tmp/ours$n" | head -20
	elif ! diff -q "$tmp/kpaths$n" "$tmp/opaths$n" >/dev/null; then
		bad "crash point $n: the paths differ:"
		diff "$tmp/kpaths$n" "$tmp/opaths$n" | head -20
	else
		echo "ok: crash point $n: $(grep -c '^H ' "$tmp/kernel$n") files alike under the kernel, repaired and in our reader"
	fi
done
npoints=$(echo $POINTS | wc -w)
echo "$((npoints - fail < 0 ? 0 : npoints - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
