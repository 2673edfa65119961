#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# torture.sh - one seed of the randomized torture run: a seeded sequence of
# steps on one volume, every step followed by the invariant checks; the
# first check that fails stops the seed and leaves a reproducer.
#
# Usage: torture.sh SEED STEPS WORKDIR
#   exit 0: every step passed; 1: a check failed (WORKDIR/REPRO says where
#   and how to replay it; WORKDIR is kept); 77/99: no kernel guest.
#
# Steps (all drawn from SEED; see tests/kernel/README.md):
#   G  the kernel writes: a random workload on the mounted volume (files
#      from empty to 3-level B-trees, appends, in-place overwrites,
#      truncates, punches, renames, links, symlinks, unlinks, mkdir/rmdir,
#      fdatasync, fsync, sync, mkcp -s, chcp, rmcp; in some steps our
#      nilfs_cleanerd runs online).  Consecutive G steps share a boot.
#   C  the kernel writes and the machine dies (sysrq b) at a random
#      operation, some of them in the middle of a sync or fsync.
#   H  offline on the host: our cleaner (random policy, protection period,
#      target), our mkcp/chcp/rmcp, or our fsck.nilfs2 -y; half of them
#      also on a copy under NILFS_TEST_FAULT at a random write.  With
#      TORTURE_HOST=all, half the host steps are instead nilfs-resize (grow
#      or shrink), nilfs-tune (-L, -U, -O) or fsck.nilfs2 -y -z followed by
#      nilfs-undo (on the volume, and on a copy damaged by corrupt --random:
#      both must come back byte for byte).
# Checks after every step: the kernel mounts the volume (after C with its
# roll-forward); our fsck.nilfs2 -fn --checkpoints=all is clean; nilfs-tools'
# lscp -a and lssu -a on the mounted volume print what ours print offline;
# every snapshot mounts and holds the tree recorded when it was taken; the
# latest tree is the model (what the kernel showed after the last sync of
# a G step; after C any state recorded at or after the last completed sync,
# a file's contents possibly from a later fdatasync, and a file whose fsync
# or fdatasync completed holding its contents of then or later under every
# name it has: crashaccept.sh).  Host steps: our fsck
# and lscp on the host after each; fsck -y leaves every byte alone; a fault
# run leaves the state before the step or after it.
#
# Environment: top_builddir (our programs), NILFS_KTEST_* (guest.sh),
# TORTURE_VERBOSE=1 (say every step), TORTURE_HOST=all (the host steps
# above; needs nilfs-resize, nilfs-tune, nilfs-undo and corrupt).

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=$(cd "${top_builddir:-$here/../..}" && pwd)
SEED=${1:?usage: torture.sh SEED STEPS WORKDIR}
STEPS=${2:?usage: torture.sh SEED STEPS WORKDIR}
W=${3:?usage: torture.sh SEED STEPS WORKDIR}
OURS="$top/fsck.nilfs2 $top/lscp $top/lssu $top/nilfs_cleanerd $top/nilfs-clean"
export TZ=UTC LC_ALL=C

"$guest" require >/dev/null || exit
for p in $OURS "$top/mkfs.nilfs2" "$top/mkcp" "$top/chcp" "$top/rmcp" "$top/dump.nilfs2"; do
	[ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }
done
HOSTX=0
if [ "${TORTURE_HOST:-}" = all ]; then
	HOSTX=1
	corrupt=$top/tests/fsck/corrupt
	[ -x "$corrupt" ] || corrupt=$top/corrupt
	for p in "$top/nilfs-resize" "$top/nilfs-tune" "$top/nilfs-undo" "$corrupt"; do
		[ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }
	done
fi
mkdir -p "$W" && rm -rf "${W:?}"/* && mkdir -p "$W/cps" "$W/keep" || exit 1
. "$here/manifest.sh"
. "$here/crashaccept.sh"
img=$W/img
LOG=$W/log

# --- the seeded generators: 31-bit LCGs; rnd N sets RV to 0..N-1 ---
# The plan (which kind each step is) has a stream of its own, and each
# step's contents one seeded by (SEED, step), so that a seed replayed with
# fewer steps does the same steps.
R=$((SEED % 2147483647 + 1))
PR=$(( (SEED * 7 + 3) % 2147483647 + 1 ))
rnd() {
	R=$(( (R * 1103515245 + 12345) % 2147483648 ))
	RV=$(( (R / 65536) % $1 ))
}
plan_rnd() {
	PR=$(( (PR * 1103515245 + 12345) % 2147483648 ))
	RV=$(( (PR / 65536) % $1 ))
}
step_seed() { R=$(( (SEED * 1000003 + $1 * 7919) % 2147483647 + 1 )); rnd 2; }
say() { echo "$*" >>"$LOG"; [ "${TORTURE_VERBOSE:-0}" = 1 ] && echo "seed $SEED: $*" >&2; return 0; }

# --- failure: the reproducer ---
FAILED=
fail() {  # $1 step, $2 what; $3 optional file with details
	FAILED=$1
	{
		echo "seed $SEED, step $1 of $STEPS: $2"
		[ -n "${3:-}" ] && [ -f "$3" ] && head -n 60 "$3"
		# what our online cleaner logged during the step, if it ran
		[ -f "$W/out" ] && grep "^W$1 CLOG " "$W/out" | tail -n 30
		# and what the kernel said (nilfs2's lines)
		[ -s "$W/dmesg.$1" ] && grep -i 'nilfs' "$W/dmesg.$1" | tail -n 20 | sed 's/^/kernel: /'
		echo "kept: $W (img: the volume after the step; keep/: before it; G steps: dmesg.N the kernel's messages, cleaner.N our nilfs_cleanerd's log)"
		[ -n "${REPLAY:-}" ] && echo "replay the step: $REPLAY"
		echo "replay the seed: top_builddir=$top $here/torture.sh $SEED $1 $W.replay"
	} >"$W/REPRO"
	cat "$W/REPRO"
}

# --- volume geometry and first contents ---
rnd 3; BS=$((1024 << RV))
rnd 3; SEGBYTES=$((262144 << RV))       # 256 KiB .. 1 MiB segments
BPS=$((SEGBYTES / BS))
rnd 3; SIZE=$((96 + 32 * RV))M
truncate -s "$SIZE" "$img" || exit 1
rnd 2
if [ $RV = 1 ]; then
	src=$W/src
	mkdir -p "$src/a/c" "$src/b"
	i=0
	while [ $i -lt 12 ]; do
		rnd 5000
		head -c $RV /dev/urandom >"$src/a/f$i"
		i=$((i + 1))
	done
	rnd 300
	head -c $(((RV + 200) * BS)) /dev/urandom >"$src/b/g0"
	ln "$src/a/f1" "$src/b/f1"
	ln -s ../a/f2 "$src/b/f2"
	: >"$src/a/c/f0"
	touch -d @1700000000 "$src/a/c"
	"$top/mkfs.nilfs2" -q -f -b $BS -B $BPS -d "$src" "$img" || { fail 0 "mkfs.nilfs2 -d"; exit 1; }
	manifest "$src" >"$W/model"
	cp "$W/model" "$W/cps/1"
	say "step 0: mkfs.nilfs2 -b $BS -B $BPS -d (${SIZE}B)"
else
	"$top/mkfs.nilfs2" -q -f -b $BS -B $BPS "$img" || { fail 0 "mkfs.nilfs2"; exit 1; }
	: >"$W/model"   # the first boot's verification records it
	say "step 0: mkfs.nilfs2 -b $BS -B $BPS (${SIZE}B)"
fi

# --- the guest side: functions every boot script starts with ---
guest_prelude() {
	cat "$here/manifest.sh"
	cat <<'EOS'
echo "SCRIPT BEGINS"
export TZ=UTC PATH=/usr/sbin:/usr/bin:/sbin:/bin
O=/ktest/bin
SEEN=
mkdir -p /mnt2
# no periodic or watermark flushes: the kernel writes a checkpoint only when
# asked (sync, fsync, mkcp), so that every state it can be left in after a
# crash is one the workload recorded
nilfs-tune -i 86400 -m 4000000 /dev/vda >/dev/null 2>&1 || echo "TUNE FAILED"
verify() {
	v=$1
	mount -t nilfs2 /dev/vda /mnt 2>/tmp/merr || { echo "$v MOUNTFAIL $(cat /tmp/merr)"; return 1; }
	umount /mnt || { echo "$v MOUNTFAIL umount"; return 1; }
	$O/fsck.nilfs2 -fn --checkpoints=all /dev/vda >/tmp/fsck 2>&1
	rc=$?
	[ $rc = 0 ] || { echo "$v FSCKFAIL exit $rc"; sed "s/^/$v F /" /tmp/fsck | head -n 40; }
	$O/lscp -a /dev/vda >/tmp/olscp 2>&1
	$O/lssu -a /dev/vda >/tmp/olssu 2>&1
	mount -t nilfs2 /dev/vda /mnt 2>/tmp/merr || { echo "$v MOUNTFAIL $(cat /tmp/merr)"; return 1; }
	lscp -a /dev/vda >/tmp/tlscp 2>&1
	lssu -a /dev/vda >/tmp/tlssu 2>&1
	for t in lscp lssu; do
		cmp -s /tmp/o$t /tmp/t$t && continue
		echo "$v DIFF $t"
		diff /tmp/o$t /tmp/t$t | head -n 20 | sed "s/^/$v D /"
	done
	manifest /mnt | sed "s/^/$v T /"
	inodes /mnt | sed "s/^/$v /"
	# $2 = new: only the snapshots not seen yet (nothing but the kernel
	# wrote since the last verification, and it leaves snapshots alone)
	for c in $(lscp -s /dev/vda | awk 'NR > 1 { print $1 }'); do
		if [ "${2:-}" = new ]; then
			case " $SEEN " in *" $c "*) continue ;; esac
		fi
		SEEN="$SEEN $c"
		mount -t nilfs2 -o ro,cp=$c /dev/vda /mnt2 || { echo "$v SNAPMOUNTFAIL $c"; continue; }
		manifest /mnt2 | sed "s/^/$v S$c /"
		umount /mnt2
	done
	echo "$v VERIFIED"
}
# the regular files' inode numbers: after a crash a file is known by it
inodes() { (cd "$1" && find . -type f | LC_ALL=C sort | xargs -r stat -c 'I %i %n'); }
latest() { lscp -a /dev/vda | awk 'END { print $1 }'; }
# a checkpoint whose tree is known: the state right after a sync
known() {
	c=$(latest)
	manifest /mnt | sed "s/^/$1 K$c /"
	KNOWN="$KNOWN $c"
}
pick() {  # $1: index; the rest: list; prints one of the list or nothing
	i=$1
	shift
	[ $# -gt 0 ] || return 0
	shift $((i % $#))
	echo "$1"
}
# crash boots: the log of recorded states goes to a disk, flushed before
# each sync so that it survives the crash
clog() { echo "$*" >>/tmp/clog; }
cflush() { dd if=/tmp/clog of=$CLOGDEV bs=64k conv=notrunc,fsync 2>/dev/null; }
pre() { { manifest /mnt; inodes /mnt; } | sed "s/^/P$1 /" >>/tmp/clog; cflush; }
done_() { n=$1; shift; clog "D$n $*"; cflush; }
EOS
}

# one random path
rpath() {
	rnd 5
	case $RV in 0) d=/mnt ;; 1) d=/mnt/a ;; 2) d=/mnt/b ;; 3) d=/mnt/a/c ;; 4) d=/mnt/b/d ;; esac
	rnd 8
	case $RV in 6) P=$d/g0 ;; 7) P=$d/g1 ;; *) P=$d/f$RV ;; esac
}

# N random operations as shell lines; $2 = normal|crash; $3 = step (for the
# crash log's sync-point numbers: SP counts them)
gen_ops() {
	n=$1 mode=$2 k=0
	while [ $k -lt "$n" ]; do
		k=$((k + 1))
		rpath
		rnd 100
		op=$RV
		if [ "$mode" = crash ] && [ $op -ge 94 ]; then op=$((op - 10)); fi
		case $op in
		[0-9]|1[0-4])
			rnd 3; if [ $RV = 0 ]; then echo "head -c 0 /dev/urandom >$P"; else rnd 6000; echo "head -c $RV /dev/urandom >$P"; fi ;;
		1[5-9])
			rnd 700; echo "dd if=/dev/urandom of=$P bs=$BS count=$((RV + 200)) 2>/dev/null" ;;
		2[0-9]|3[01])
			rnd 9000; echo "head -c $RV /dev/urandom >>$P" ;;
		3[2-9]|4[0-3])
			rnd 100000; a=$RV; rnd 8
			echo "z=\$((\$(stat -c %s $P 2>/dev/null || echo 0) / $BS)); [ \$z -gt 0 ] && dd if=/dev/urandom of=$P bs=$BS seek=\$(($a % z)) count=$((RV + 1)) conv=notrunc 2>/dev/null" ;;
		4[4-9])
			rnd 400; echo "[ -f $P ] && truncate -s $((RV * BS + RV)) $P" ;;
		5[0-3])
			rnd 7; echo "[ -f $P ] && { z=\$(stat -c %s $P); truncate -s \$((z * $RV / 8)) $P; truncate -s \$z $P; }" ;;
		5[4-9])
			q=$P; rpath; echo "mv -f $q $P 2>/dev/null" ;;
		6[0-3])
			q=$P; rpath; echo "ln -f $q $P 2>/dev/null" ;;
		6[4-6])
			rnd 3; echo "ln -sfn ../a/f$RV $P 2>/dev/null" ;;
		6[7-9]|7[0-3])
			echo "rm -f $P" ;;
		7[4-6])
			echo "mkdir -p /mnt/a/c /mnt/b/d" ;;
		7[7-9])
			rnd 2; if [ $RV = 0 ]; then echo "rmdir /mnt/a/c 2>/dev/null"; else echo "rmdir /mnt/b/d 2>/dev/null"; fi ;;
		8[0-9]|9[0-3])
			# busybox: sync -d FILE is fdatasync, sync FILE fsync (no fsync applet)
			case $op in 8[0-3]) c="sync -d $P" ;; 8[4-7]) c="sync $P" ;; *) c=sync ;; esac
			if [ "$mode" = crash ]; then
				SP=$((SP + 1))
				case $c in sync) f=sync ;; *) f="file $P" ;; esac
				# completed only if it succeeded (the file may not exist)
				echo "pre $SP; $c 2>/dev/null && done_ $SP $f"
			elif [ "$c" = sync ]; then
				echo "sync; known W$3"
			else
				echo "$c 2>/dev/null"
			fi ;;
		9[4-6])
			echo "manifest /mnt >/tmp/pre; c=\$(mkcp -s -p /dev/vda) && { sed \"s/^/W$3 K\$c /\" /tmp/pre; KNOWN=\"\$KNOWN \$c\"; }" ;;
		97)
			rnd 1000; echo "c=\$(pick $RV \$KNOWN); [ -n \"\$c\" ] && chcp ss /dev/vda \$c 2>/dev/null" ;;
		98)
			rnd 1000; echo "c=\$(pick $RV \$(lscp -s /dev/vda | awk 'NR > 1 { print \$1 }')); [ -n \"\$c\" ] && chcp cp /dev/vda \$c" ;;
		99)
			rnd 1000; echo "c=\$(pick $RV \$(lscp /dev/vda | awk 'NR > 1 && \$4 == \"cp\" { print \$1 }')); [ -n \"\$c\" ] && rmcp /dev/vda \$c 2>/dev/null" ;;
		esac
	done
}

# --- checks of what a boot printed ---
OUT=$W/out
# lines of verification V with tag T (T, S<cno>, ...), prefix removed
vlines() { sed -n "s/^$1 $2 //p" "$OUT"; }

# verification V: everything the guest reported for it.  $2: crash log (or
# empty).  Sets the model to the tree seen.  0 or fail.
check_verify() {
	v=$1 crashlog=${2:-}
	vs=${v#V}
	grep -q "^$v MOUNTFAIL" "$OUT" && { fail "$vs" "the kernel cannot mount the volume: $(grep "^$v MOUNTFAIL" "$OUT" | head -n 1)"; return 1; }
	if grep -q "^$v FSCKFAIL" "$OUT"; then
		grep "^$v F " "$OUT" >"$W/detail"
		fail "$vs" "fsck.nilfs2 -fn --checkpoints=all (ours) is not clean: $(grep "^$v FSCKFAIL" "$OUT")" "$W/detail"
		return 1
	fi
	if grep -q "^$v DIFF" "$OUT"; then
		grep "^$v D " "$OUT" >"$W/detail"
		fail "$vs" "nilfs-tools on the mounted volume and ours offline differ: $(grep "^$v DIFF" "$OUT" | tr '\n' ' ')(< ours, > nilfs-tools)" "$W/detail"
		return 1
	fi
	grep -q "^$v VERIFIED" "$OUT" || { { tail -n 30 "$OUT"; cat "$W/guest.err"; } >"$W/detail"; fail "$vs" "the guest did not finish the checks" "$W/detail"; return 1; }
	vlines "$v" T >"$W/tree"
	if [ -n "$crashlog" ]; then
		last=$(sed -n 's/^D\([0-9]*\) sync$/\1/p' "$crashlog" | tail -n 1)
		last=${last:-0}
		vlines "$v" I >"$W/tree.ino"
		if j=$(crash_accept "$W/tree" "$crashlog" "$W/model" "$W/tree.ino" "$W/crash"); then
			say "  after the crash: the state before sync point $j (last sync completed: $last)"
		else
			if [ -f "$W/crash/lost" ]; then
				fail "$vs" "after the crash a file lost what a completed fsync or fdatasync made durable: $(cat "$W/crash/lost")"
			else
				diff "$W/crash/c$last" "$W/crash/t" >"$W/detail"
				fail "$vs" "after the crash the tree is no state recorded at or after the last completed sync (diff: the state before sync point $last, tree)" "$W/detail"
			fi
			return 1
		fi
	elif [ -s "$W/model" ] && ! cmp -s "$W/model" "$W/tree"; then
		diff "$W/model" "$W/tree" >"$W/detail"
		fail "$vs" "the latest tree is not the model (diff: model, tree)" "$W/detail"
		return 1
	fi
	cp "$W/tree" "$W/model"
	for c in $(sed -n "s/^$v S\([0-9]*\) .*/\1/p" "$OUT" | uniq); do
		vlines "$v" "S$c" >"$W/snap"
		if [ ! -f "$W/cps/$c" ]; then
			fail "$vs" "snapshot $c: no tree was recorded for this checkpoint"
			return 1
		fi
		cmp -s "$W/cps/$c" "$W/snap" && continue
		diff "$W/cps/$c" "$W/snap" >"$W/detail"
		fail "$vs" "snapshot $c does not hold the tree recorded when it was taken (diff: recorded, mounted)" "$W/detail"
		return 1
	done
	if grep -q "^$v SNAPMOUNTFAIL" "$OUT"; then
		fail "$vs" "a snapshot does not mount: $(grep "^$v SNAPMOUNTFAIL" "$OUT" | head -n 1)"
		return 1
	fi
	return 0
}

# --- boots ---
# Boot plan: PRE_V (verification id to run first, or empty), the G steps
# (GSTEPS), then optionally a crash step (CSTEP).
run_boot() {
	script=$W/boot.sh
	disks=$img
	{
		guest_prelude
		echo 'KNOWN="'"$(ls "$W/cps" | sort -n | tail -n 40 | tr '\n' ' ')"'"'
		[ -n "$PRE_V" ] && echo "verify $PRE_V || exit 0"
		for g in $GSTEPS; do
			[ -z "$PRE_V" ] && [ "$g" = "${GSTEPS%% *}" ] && {
				echo "mount -t nilfs2 /dev/vda /mnt || { echo 'V$g MOUNTFAIL first'; exit 0; }"
			}
			echo "mkdir -p /mnt/a /mnt/b"
			step_seed "$g"
			rnd 4
			if [ $RV = 0 ]; then
				rnd 3; pp=$((RV * 2))
				rnd 3; case $RV in 0) pol=timestamp ;; 1) pol=cost-benefit ;; 2) pol=greedy ;; esac
				rnd 4; nseg=$((RV * 2 + 1))
				cat <<EOS
cat >/tmp/cl.conf <<'CONF'
min_clean_segments 0
max_clean_segments 100%
clean_check_interval 0.2
cleaning_interval 0.1
nsegments_per_clean $nseg
selection_policy $pol
min_reclaimable_blocks 1
CONF
mkdir -p /run
# the daemon logs to syslog: keep what it says for a failing step's report
pidof syslogd >/dev/null || { syslogd -O /tmp/messages; sleep 0.2; }
\$O/nilfs_cleanerd -p $pp -c /tmp/cl.conf /dev/vda /mnt 2>/tmp/clerr || { echo "V$g CLEANERD FAILED"; cat /tmp/clerr; }
EOS
				say "step $g: G (our nilfs_cleanerd online, -p $pp, $pol, $nseg per clean)"
				cl=1
			else
				say "step $g: G"
				cl=0
			fi
			rnd 30
			gen_ops $((RV + 15)) normal "$g"
			[ $cl = 1 ] && {
				echo '$O/nilfs-clean -q /dev/vda 2>/dev/null; i=0; while [ -e /run/nilfs_cleanerd/254:0.sock ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done'
				echo "grep nilfs_cleanerd /tmp/messages | sed 's/^/W$g CLOG /'; : >/tmp/messages"
			}
			# the kernel's messages of the step (dmesg -c: each step its own)
			echo "dmesg -c 2>/dev/null | sed 's/^/W$g DMESG /'"
			echo "sync; known W$g; manifest /mnt | sed 's/^/W$g MODEL /'"
			echo "umount /mnt || echo 'V$g MOUNTFAIL busy'"
			if [ $cl = 1 ]; then echo "verify V$g || exit 0"; else echo "verify V$g new || exit 0"; fi
		done
		if [ -n "$CSTEP" ]; then
			rm -f "$W/clog.disk" && truncate -s 4M "$W/clog.disk"
			disks="$img $W/clog.disk"
			echo "CLOGDEV=/dev/vdb"
			[ -z "$PRE_V" ] && [ -z "$GSTEPS" ] && echo "mount -t nilfs2 /dev/vda /mnt || { echo 'MOUNTFAIL'; exit 0; }"
			echo "mkdir -p /mnt/a /mnt/b"
			echo "inodes /mnt | sed 's/^I /I0 /' >>/tmp/clog; cflush"
			step_seed "$CSTEP"
			SP=0
			rnd 40; nops=$((RV + 10))
			rnd "$nops"; at=$((RV + 1))
			gen_ops $nops crash "$CSTEP" >"$W/cops"
			# the crash: before operation AT; if that is a sync, while it runs
			# (sed's range 1,0 would still print line 1: seed 7412 ran it twice)
			[ "$at" -gt 1 ] && sed -n "1,$((at - 1))p" "$W/cops"
			line=$(sed -n "${at}p" "$W/cops")
			# on the log disk: the guest got here (and did not hang before)
			echo 'clog CRASHPOINT; cflush'
			rnd 4
			case $line in
			pre*)
				rest=${line#pre }; n=${rest%%;*}; c=${rest#*; }; c=${c%% && done_*}
				echo "pre $n; ($c) &"
				echo "sleep 0.0$RV" ;;
			*) [ $RV -gt 1 ] && { echo "($line) &"; echo "sleep 0.0$RV"; } ;;
			esac
			echo "echo b >/proc/sysrq-trigger"
			echo "sleep 10"
			say "step $CSTEP: C (crash before operation $at of $nops)"
		else
			echo "umount /mnt 2>/dev/null; echo BOOT DONE"
		fi
	} >"$script"
	[ -f "$W/keep/boot.img" ] && mv -f "$W/keep/boot.img" "$W/keep/prevboot.img"
	cp --sparse=always "$img" "$W/keep/boot.img"
	REPLAY="cp --sparse=always $W/keep/boot.img $img && NILFS_KTEST_EXTRA='$OURS' $guest run $script $disks"
	try=1
	while :; do
		# shellcheck disable=SC2086
		NILFS_KTEST_EXTRA="$OURS" NILFS_KTEST_TIMEOUT=${NILFS_KTEST_TIMEOUT:-900} \
			"$guest" run "$script" $disks >"$OUT" 2>"$W/guest.err"
		grc=$?
		BOOTS=$((BOOTS + 1))
		# a guest that never got to the script (now and then qemu under TCG
		# idles for ever after the firmware): the volume is untouched, boot again
		[ $grc = 125 ] && ! grep -q '^SCRIPT BEGINS' "$OUT" && [ $try -lt 3 ] || break
		say "  the guest did not reach the script (exit $grc: $(grep '^guest.sh: ' "$W/guest.err" | tail -n 1 | cut -c 11-)): booting again"
		HANGS=$((HANGS + 1))
		cp --sparse=always "$W/keep/boot.img" "$img"
		[ -n "$CSTEP" ] && rm -f "$W/clog.disk" && truncate -s 4M "$W/clog.disk"
		try=$((try + 1))
	done
	# each G step's kernel messages and cleaner log, kept for the report
	for g in $GSTEPS; do
		sed -n "s/^W$g DMESG //p" "$OUT" >"$W/dmesg.$g"
		sed -n "s/^W$g CLOG //p" "$OUT" >"$W/cleaner.$g"
		[ -s "$W/cleaner.$g" ] || rm -f "$W/cleaner.$g"
	done
	[ -n "$PRE_V" ] && { check_verify "$PRE_V" "$PRE_CLOG" || return 1; }
	for g in $GSTEPS; do
		grep -q "^V$g CLEANERD FAILED" "$OUT" && { fail "$g" "our nilfs_cleanerd did not start online"; return 1; }
		for c in $(sed -n "s/^W$g K\([0-9]*\) .*/\1/p" "$OUT" | uniq); do
			# a checkpoint recorded twice (a sync with nothing to write): once
			sed -n "s/^W$g K$c //p" "$OUT" | awk '/^S \.\|/ { n++ } n == 1' >"$W/cps/$c"
		done
		sed -n "s/^W$g MODEL //p" "$OUT" >"$W/model"
		if [ ! -s "$W/model" ]; then
			tail -n 40 "$OUT" >"$W/detail"; cat "$W/guest.err" >>"$W/detail"
			fail "$g" "the workload did not finish (guest exit $grc)" "$W/detail"
			return 1
		fi
		check_verify "V$g" || return 1
	done
	if [ -n "$CSTEP" ]; then
		[ $grc = 125 ] || { cat "$W/guest.err" >>"$OUT"; fail "$CSTEP" "the crash guest was to die; it exited $grc" "$OUT"; return 1; }
		if grep -q 'timed out' "$W/guest.err" || ! tr -d '\000' <"$W/clog.disk" | grep -q '^CRASHPOINT$'; then
			{ tail -n 20 "$OUT"; cat "$W/guest.err"; } >"$W/detail"
			fail "$CSTEP" "the guest did not reach the crash point (hung or died before it)" "$W/detail"
			return 1
		fi
	fi
	if [ -n "$CSTEP" ]; then
		tr -d '\000' <"$W/clog.disk" >"$W/clog"
		# the volume as the crash left it, before anything rolls it forward
		cp --sparse=always "$img" "$W/keep/crash$CSTEP.img"
		# our fsck on what the crash left, before anything rolls it forward
		"$top/fsck.nilfs2" -fn "$img" >"$W/detail" 2>&1 ||
			{ fail "$CSTEP" "fsck.nilfs2 -fn (ours) on the crashed volume is not clean" "$W/detail"; return 1; }
		rnd 2
		if [ $RV = 1 ]; then
			"$top/fsck.nilfs2" -y "$img" >"$W/detail" 2>&1
			rc=$?
			[ $rc -le 1 ] || { fail "$CSTEP" "fsck.nilfs2 -y (ours, the roll-forward offline) exits $rc" "$W/detail"; return 1; }
			"$top/fsck.nilfs2" -fn "$img" >"$W/detail" 2>&1 ||
				{ fail "$CSTEP" "not clean after fsck.nilfs2 -y" "$W/detail"; return 1; }
			say "  the crashed volume rolled forward offline by fsck.nilfs2 -y"
			CRASH_FSCKED=1
		fi
	fi
	return 0
}

# --- host steps ---
# the state a fault run may leave: lscp -a and the tree by our reader
state_of() {  # $1 image, $2 out prefix
	"$top/lscp" -a "$1" 2>&1 | awk 'NR > 1 { print $1, $4 }' >"$2.cps"
	rm -rf "$2.x" && mkdir "$2.x"
	"$top/dump.nilfs2" "$1" extract / "$2.x" >/dev/null 2>&1 || echo "EXTRACT FAILED" >>"$2.cps"
	manifest "$2.x" | strip_time >"$2.tree"
	rm -rf "$2.x"
}

host_step() {
	s=$1
	step_seed "$s"
	rnd 10
	kv=$RV
	if [ $HOSTX = 1 ]; then rnd 2; [ $RV = 1 ] && kv=x; fi
	case $kv in
	x)
		# the volume's other writers: a new size, a new label, UUID or
		# feature, and a repair taken back
		HOSTXN=$((HOSTXN + 1))
		sz=$(stat -c %s "$img")
		rnd 4
		case $RV in
		0)
			rnd 8; kind=resize-grow cmd="$top/nilfs-resize -y IMG $(( (sz + (RV + 1) * SEGBYTES + RV * BS) / 1024 ))K" ;;
		1)
			rnd 8; kind=resize-shrink cmd="$top/nilfs-resize -y IMG $(( (sz - (RV + 1) * SEGBYTES - RV * BS) / 1024 ))K" ;;
		2)
			rnd 4
			case $RV in
			0) kind=tune-L cmd="$top/nilfs-tune -L torture$s IMG" ;;
			1) kind=tune-U cmd="$top/nilfs-tune -U random IMG" ;;
			2) kind=tune-O cmd="$top/nilfs-tune -O block_count IMG" ;;
			3) kind=tune-O cmd="$top/nilfs-tune -O ^block_count IMG" ;;
			esac ;;
		3)
			rnd 100000
			kind=fsck-undo undo=$W/keep/undo$s draw=$((SEED * 100000 + RV))
			cmd="rm -f $undo; $top/fsck.nilfs2 -y -z $undo IMG; echo \"fsck.nilfs2 -y exit \$?\"; [ ! -f $undo ] || $top/nilfs-undo $undo IMG" ;;
		esac ;;
	[0-3])
		rnd 3; case $RV in 0) pol=timestamp ;; 1) pol=cost-benefit ;; 2) pol=greedy ;; esac
		# the kernel's checkpoints are minutes old at most: mostly no protection
		rnd 20; case $RV in 1[0-4]) pp=1 ;; 1[5-7]) pp=60 ;; 1[89]) pp=86400 ;; *) pp=0 ;; esac
		rnd 20; case $RV in 1[0-2]) mx=95% ;; 1[3-5]) mx=20% ;; *) mx=100% ;; esac
		rnd 4; nseg=$((1 << RV))
		rnd 3; mrb=$((RV * 5))
		printf 'protection_period %s\nselection_policy %s\nmax_clean_segments %s\nnsegments_per_clean %s\nmin_reclaimable_blocks %s%%\n' \
			$pp $pol $mx $nseg $mrb >"$W/keep/clean$s.conf"
		kind=clean cmd="$top/nilfs_cleanerd --offline -c $W/keep/clean$s.conf" ;;
	4)
		rnd 2; if [ $RV = 0 ]; then kind=mkcp cmd="$top/mkcp"; else kind=mkcp-s cmd="$top/mkcp -s"; fi ;;
	5)
		set -- $("$top/lscp" "$img" | awk 'NR > 1 { print $1 }' | while read -r c; do [ -f "$W/cps/$c" ] && echo "$c"; done)
		rnd 1000
		if [ $# -gt 0 ]; then shift $((RV % $#)); kind=chcp-ss cmd="$top/chcp ss IMG $1"; else kind=mkcp-s cmd="$top/mkcp -s"; fi ;;
	6)
		set -- $("$top/lscp" -s "$img" | awk 'NR > 1 { print $1 }')
		rnd 1000
		if [ $# -gt 0 ]; then shift $((RV % $#)); kind=chcp-cp cmd="$top/chcp cp IMG $1"; else kind=mkcp cmd="$top/mkcp"; fi ;;
	7|8)
		set -- $("$top/lscp" "$img" | awk 'NR > 1 && $4 == "cp" { print $1 }')
		rnd 1000; a=$RV; rnd 4
		if [ $# -gt 1 ]; then
			shift $((a % $#)); lo=$1; shift $((RV < $# ? RV : $# - 1)); kind=rmcp cmd="$top/rmcp IMG $lo..$1"
		else
			kind=mkcp cmd="$top/mkcp"
		fi ;;
	9)
		# -p on odd steps: what it repairs unasked (an orphan a crash
		# left) must be what -y repairs; the seed's draws stay the same
		if [ $((s % 2)) = 1 ]; then kind=fsck-p cmd="$top/fsck.nilfs2 -p"
		else kind=fsck-y cmd="$top/fsck.nilfs2 -y"; fi ;;
	esac
	# a crashed volume the kernel has not seen: its tree is not known yet
	[ -n "$PRE_CLOG" ] && [ "$kind" = mkcp-s ] && kind=mkcp cmd="$top/mkcp"
	case $cmd in *IMG*) ;; *) cmd="$cmd IMG" ;; esac
	run() { eval "$(echo "$cmd" | sed "s|IMG|$1|g")"; }
	cp --sparse=always "$img" "$W/keep/before$s.img"
	REPLAY="cp --sparse=always $W/keep/before$s.img $img && $(echo "$cmd" | sed "s|IMG|$img|g")"
	NILFS_TEST_FAULT=count run "$img" >"$W/detail" 2>&1
	rc=$?
	nw=$(sed -n 's/^nilfs-test-fault: \([0-9]*\) writes.*/\1/p' "$W/detail" | tail -n 1)
	nw=${nw:-0}
	say "step $s: H $kind: $(echo "$cmd" | sed "s|$top/||g; s|$W/||g") (exit $rc, $nw writes)"
	# a crashed volume nothing has rolled forward: writers must refuse it
	if [ -n "$PRE_CLOG" ] && [ $rc != 0 ] && grep -q 'not cleanly unmounted' "$W/detail"; then
		[ "$nw" = 0 ] || { fail "$s" "$kind refused the crashed volume after $nw writes" "$W/detail"; return 1; }
		say "  refused: the volume was not cleanly unmounted"
		return 0
	fi
	case $kind in
	clean) [ $rc = 0 ] || { fail "$s" "nilfs_cleanerd --offline exits $rc" "$W/detail"; return 1; } ;;
	resize-*)
		# a shrink into space in use is refused, and then nothing changed
		if [ $rc != 0 ]; then
			cmp -s "$W/keep/before$s.img" "$img" ||
				{ cmp "$W/keep/before$s.img" "$img" >>"$W/detail" 2>&1; fail "$s" "$kind exits $rc and changed the volume" "$W/detail"; return 1; }
			say "  refused: $(grep -v '^nilfs-test-fault' "$W/detail" | tail -n 1)"
			return 0
		fi ;;
	tune-*) [ $rc = 0 ] || { fail "$s" "nilfs-tune exits $rc" "$W/detail"; return 1; } ;;
	fsck-undo)
		# the repair taken back: every byte as before
		[ $rc = 0 ] && cmp -s "$W/keep/before$s.img" "$img" ||
			{ cmp "$W/keep/before$s.img" "$img" >>"$W/detail" 2>&1; fail "$s" "fsck.nilfs2 -y -z then nilfs-undo (exit $rc) did not give back the volume" "$W/detail"; return 1; }
		say "  $(grep '^fsck.nilfs2 -y exit' "$W/detail"), nilfs-undo gave back every byte"
		# and on a copy that a drawn fault damaged, which -y repairs
		f=$W/keep/damaged$s.img
		cp --sparse=always "$img" "$f" && "$corrupt" --random $draw "$f" >"$W/draw" 2>&1 ||
			{ fail "$s" "corrupt --random $draw" "$W/draw"; return 1; }
		cp --sparse=always "$f" "$f.orig"
		REPLAY="cp --sparse=always $f.orig $f && $(echo "$cmd" | sed "s|IMG|$f|g")"
		run "$f" >"$W/detail" 2>&1
		rc=$?
		[ $rc = 0 ] && cmp -s "$f.orig" "$f" ||
			{ cat "$W/draw" >>"$W/detail"; cmp "$f.orig" "$f" >>"$W/detail" 2>&1; fail "$s" "on a copy damaged by corrupt --random $draw: fsck.nilfs2 -y -z then nilfs-undo (exit $rc) did not give back the damaged volume" "$W/detail"; return 1; }
		say "  on a copy, $(cat "$W/draw"): $(grep '^fsck.nilfs2 -y exit' "$W/detail"), nilfs-undo gave back every byte"
		rm -f "$f" "$f.orig"
		return 0 ;;
	fsck-y|fsck-p)
		# a crashed volume the kernel has not mounted yet: rolled forward
		[ -n "$PRE_CLOG" ] && { CRASH_FSCKED=1; return 0; }
		# warnings -y mends (an orphan the kernel left after a crash): it
		# writes, and they are gone after; otherwise not a byte changes
		if [ $rc = 1 ] && "$top/fsck.nilfs2" -fn "$W/keep/before$s.img" 2>&1 | grep -q ': warning: '; then
			"$top/fsck.nilfs2" -fn "$img" >"$W/after-y" 2>&1 && ! grep -q ': warning: ' "$W/after-y" ||
				{ cat "$W/after-y" >>"$W/detail"; fail "$s" "fsck.nilfs2 ${kind#fsck} left warnings it repairs" "$W/detail"; return 1; }
			say "  fsck.nilfs2 ${kind#fsck} mended warnings"
		else
			[ $rc = 0 ] || { fail "$s" "fsck.nilfs2 ${kind#fsck} exits $rc on a volume that checked clean" "$W/detail"; return 1; }
			cmp -s "$W/keep/before$s.img" "$img" || { cmp "$W/keep/before$s.img" "$img" >>"$W/detail"; fail "$s" "fsck.nilfs2 ${kind#fsck} changed a clean volume" "$W/detail"; return 1; }
		fi ;;
	mkcp*) [ $rc = 0 ] || { fail "$s" "offline $kind exits $rc" "$W/detail"; return 1; } ;;
	esac
	"$top/fsck.nilfs2" -fn --checkpoints=all "$img" >"$W/detail" 2>&1 ||
		{ fail "$s" "fsck.nilfs2 -fn --checkpoints=all (ours) is not clean after $kind" "$W/detail"; return 1; }
	if [ "$kind" = mkcp-s ]; then
		# the snapshot is the latest checkpoint before the step (a new log
		# then records the change, as the kernel writes one after chcp)
		c=$("$top/lscp" -a "$W/keep/before$s.img" | awk 'END { print $1 }')
		cp "$W/model" "$W/cps/$c"
	fi
	# the same step under a power cut at a random write
	rnd 2
	if [ $RV = 1 ] && [ "$nw" -gt 0 ]; then
		rnd "$nw"; at=$RV
		rnd 2; mode=crash; [ $RV = 1 ] && mode=tear
		f=$W/keep/fault$s.img
		cp --sparse=always "$W/keep/before$s.img" "$f"
		NILFS_TEST_FAULT=$mode:$at run "$f" >"$W/detail" 2>&1
		FAULTS=$((FAULTS + 1))
		REPLAY="cp --sparse=always $W/keep/before$s.img $f && NILFS_TEST_FAULT=$mode:$at $(echo "$cmd" | sed "s|IMG|$f|g")"
		"$top/fsck.nilfs2" -fn --checkpoints=all "$f" >"$W/detail" 2>&1 ||
			{ fail "$s" "under NILFS_TEST_FAULT=$mode:$at of $nw writes: fsck.nilfs2 -fn (ours) is not clean" "$W/detail"; return 1; }
		state_of "$W/keep/before$s.img" "$W/sb"
		state_of "$img" "$W/sa"
		state_of "$f" "$W/sf"
		cmp -s "$W/sf.tree" "$W/sa.tree" || cmp -s "$W/sf.tree" "$W/sb.tree" ||
			{ diff "$W/sa.tree" "$W/sf.tree" >"$W/detail"; fail "$s" "under NILFS_TEST_FAULT=$mode:$at: the tree is neither the one before nor after (diff: after, fault)" "$W/detail"; return 1; }
		ok=0
		cmp -s "$W/sf.cps" "$W/sa.cps" && ok=1
		cmp -s "$W/sf.cps" "$W/sb.cps" && ok=1
		if [ $ok = 0 ] && { [ "$kind" = clean ] || [ "$kind" = resize-shrink ]; }; then
			# the cleaner commits pass by pass, each a new checkpoint: of the
			# checkpoints there before, the cut volume keeps some (modes
			# unchanged), among them all that the whole run kept
			maxb=$(awk 'END { print $1 }' "$W/sb.cps")
			if ! awk -v m="$maxb" '$1 <= m' "$W/sf.cps" | grep -v -x -F -f "$W/sb.cps" >/dev/null &&
			   ! awk -v m="$maxb" '$1 <= m' "$W/sa.cps" | grep -v -x -F -f "$W/sf.cps" >/dev/null; then
				ok=1
			fi
		fi
		[ $ok = 1 ] || { diff "$W/sb.cps" "$W/sf.cps" >"$W/detail"; fail "$s" "under NILFS_TEST_FAULT=$mode:$at: the checkpoints are neither those before nor after (diff: before, fault)" "$W/detail"; return 1; }
		st=between
		cmp -s "$W/sf.cps" "$W/sa.cps" && st=after
		cmp -s "$W/sf.cps" "$W/sb.cps" && st=before
		say "  again under NILFS_TEST_FAULT=$mode:$at: state $st the step"
		# now and then the volume goes on from the cut
		rnd 3
		if [ $RV = 0 ]; then
			cp --sparse=always "$f" "$img"
			say "  the seed goes on from the cut volume"
		fi
		rm -f "$f"
	fi
	return 0
}

# A verification boot on each volume a host step left, to find the first
# of a batch of host steps that the kernel's checks reject.
bisect_host() {
	first=$FAILED
	cp "$W/REPRO" "$W/REPRO.batch"
	for h in $HBATCH; do
		[ -f "$W/keep/after$h.img" ] || continue
		cp --sparse=always "$W/keep/after$h.img" "$img"
		cp "$W/keep/model$h" "$W/model"
		FAILED=
		PRE_V=V$h PRE_CLOG= GSTEPS= CSTEP=
		[ -f "$W/keep/clog$h" ] && PRE_CLOG=$W/keep/clog$h
		run_boot || return 0
	done
	# not reproduced one step at a time: the batch's failure stands
	FAILED=$first
	mv "$W/REPRO.batch" "$W/REPRO"
}

# --- the seed ---
BOOTS=0 FAULTS=0 HOSTN=0 HOSTXN=0 CRASH_FSCKED=0 HANGS=0
s=1
# the first boot verifies the fresh volume (and records its tree)
PRE_V=V0 PRE_CLOG= GSTEPS= CSTEP= HBATCH=
boot() {
	run_boot
	r=$?
	if [ $r != 0 ] && [ -n "$HBATCH" ] && [ "$FAILED" = "${PRE_V#V}" ] && [ "$HBATCH" != "${PRE_V#V}" ]; then
		say "  the kernel's checks failed after host steps $HBATCH: one boot each"
		bisect_host
	fi
	HBATCH= GSTEPS=
	if [ -n "$CSTEP" ]; then PRE_V=V$CSTEP PRE_CLOG=$W/clog; else PRE_V= PRE_CLOG=; fi
	CSTEP=
	return $r
}
while [ $s -le "$STEPS" ]; do
	plan_rnd 100
	if [ $RV -lt 50 ]; then
		GSTEPS="${GSTEPS:+$GSTEPS }$s"
		s=$((s + 1))
		[ "$(echo $GSTEPS | wc -w)" -lt 4 ] && [ $s -le "$STEPS" ] && continue
	elif [ $RV -lt 62 ]; then
		CSTEP=$s
		s=$((s + 1))
	else
		# a crashed volume fsck.nilfs2 -y recovered is mounted by the kernel
		# before a host step writes to it: that boot checks the recovered
		# tree against the states the crash log recorded
		if [ -n "$GSTEPS" ] || [ "$PRE_V" = V0 ] || [ "$CRASH_FSCKED" = 1 ]; then
			boot || break
			CRASH_FSCKED=0
		fi
		host_step $s || break
		cp --sparse=always "$img" "$W/keep/after$s.img"
		cp "$W/model" "$W/keep/model$s"
		[ -n "$PRE_CLOG" ] && cp "$PRE_CLOG" "$W/keep/clog$s"
		HOSTN=$((HOSTN + 1))
		HBATCH="${HBATCH:+$HBATCH }$s"
		[ -n "$PRE_CLOG" ] || PRE_V=V$s
		s=$((s + 1))
		continue
	fi
	boot || break
done
# the last steps' checks by the kernel
if [ -z "$FAILED" ] && { [ -n "$PRE_V" ] || [ -n "$GSTEPS" ]; }; then
	CSTEP=
	boot
fi
echo "seed $SEED: $((s - 1)) steps, $BOOTS boots ($HANGS hung before the script), $HOSTN host steps ($FAULTS under faults$([ $HOSTX = 1 ] && echo ", $HOSTXN resize, tune or fsck-undo")): $([ -n "$FAILED" ] && echo "FAIL at step $FAILED" || echo ok)" | tee -a "$LOG"
[ -z "$FAILED" ]
