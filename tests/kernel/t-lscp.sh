#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-lscp.sh - lscp, lssu, mkcp, chcp and rmcp against nilfs-tools 2.2.9 under
# a real kernel (qemu guest, see guest.sh).
#
# In the guest: a volume made by nilfs-tools' mkfs gets a few hundred
# checkpoints (file writes, fast kernel syncs), snapshots, deletions that
# leave holes in the cpfile, minor checkpoints and a mounted snapshot.  Then
#  - our lscp/lssu and nilfs-tools' print the same bytes, on stdout and
#    stderr (but for the suite's "Try 'X --help'" line after a usage
#    error), with the same exit status, for many option combinations;
#  - errors (no such checkpoint, snapshots, bad ranges, bad modes, not a
#    volume, permission denied) match nilfs-tools' messages and status;
#  - our mkcp/chcp/rmcp make the changes nilfs-tools' lscp then shows;
#  - UUID= and LABEL= name the volume, mounted and not;
#  - after umount our offline lscp/lssu on the device print what the
#    mounted volume showed, and lssu -l offline matches nilfs-tools' on a
#    fresh read-only mount.
# On the host, our offline lscp/lssu on the image file must print the same
# as the guest did on the mounted volume.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=${top_builddir:-$here/../..}

"$guest" require || exit
mkfs=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v mkfs.nilfs2)
if [ -z "$mkfs" ]; then
	echo "SKIP: $0: host mkfs.nilfs2 not found (install nilfs-tools)"
	exit 77
fi
for p in lscp lssu mkcp chcp rmcp tests/kernel/cpgen; do
	[ -x "$top/$p" ] || { echo "FAIL: $top/$p not built"; exit 1; }
done
. "$here/ours.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-lscp.XXXXXX") || exit 1
[ -n "${T_LSCP_KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	echo "--- guest output (last 80 lines) ---"
	tail -n 80 "$tmp/out"
	exit 1
}

img=$tmp/nilfs.img
truncate -s 512M "$img" || exit 1
"$mkfs" -f -q -L t-lscp "$img" || { echo "FAIL: host mkfs.nilfs2"; exit 1; }
img2=$tmp/small.img
truncate -s 64M "$img2" || exit 1
"$mkfs" -f -q -b 1024 -B 256 -m 20 "$img2" || { echo "FAIL: host mkfs.nilfs2 (small)"; exit 1; }
pack_ours "$tmp/ours.tar" "$top/lscp" "$top/lssu" "$top/mkcp" "$top/chcp" "$top/rmcp" \
	"$top/tests/kernel/cpgen" || { echo "FAIL: packing our programs"; exit 1; }

# The option sets whose output must survive umount, offline (guest and host).
LSCP_SETS=": -a -s -r -a_-r -s_-r -g_-a -i_40_-n_30 -r_-i_150_-n_7 -a_-r_-n_5"
LSSU_SETS=": -a -i_3_-n_4 -a_-i_60"

cat >"$tmp/guest-script" <<GUEST
LSCP_SETS="$LSCP_SETS"
LSSU_SETS="$LSSU_SETS"
GUEST
cat >>"$tmp/guest-script" <<'GUEST'
# runs inside the guest under busybox sh
export TZ=UTC
mkdir -p /ours && tar -xf /dev/vdb -C /ours || { echo "NO TOOLS"; exit 1; }
export LD_LIBRARY_PATH=/ours/lib
O=/ours/bin
dev=/dev/vda
ndiff=0 nsame=0

# both TOOL ARGS...: nilfs-tools' TOOL and ours, same stdout, stderr, status
# (run through $AS if set); after a usage error ours adds the suite's
# "Try 'TOOL --help' for more information." line, and only that

AS=
both() {
	t=$1
	shift
	$AS $t "$@" >/tmp/t.out 2>/tmp/t.err
	trc=$?
	$AS $O/$t "$@" >/tmp/o.out 2>/tmp/o.all
	orc=$?
	grep -vx "Try '$t --help' for more information." /tmp/o.all >/tmp/o.err
	if [ $trc = $orc ] && cmp -s /tmp/t.out /tmp/o.out && cmp -s /tmp/t.err /tmp/o.err; then
		nsame=$((nsame + 1))
		echo "SAME rc=$trc $(wc -l </tmp/t.out) lines: $AS $t $*"
	else
		ndiff=$((ndiff + 1))
		echo "DIFF: $AS $t $* (status: nilfs-tools $trc, ours $orc)"
		diff /tmp/t.out /tmp/o.out | head -n 20
		diff /tmp/t.err /tmp/o.err | head -n 10
	fi
}

# check WHAT COND...: a test of ours against what nilfs-tools shows
check() {
	what=$1
	shift
	if "$@"; then
		nsame=$((nsame + 1))
		echo "OK: $what"
	else
		ndiff=$((ndiff + 1))
		echo "DIFF: $what"
	fi
}

# normalized stderr and status of a command, for changes that cannot run twice
outcome() {
	"$@" >/tmp/x.out 2>/tmp/x.err
	echo "rc=$? $(sed 's/[0-9][0-9]*/N/g' /tmp/x.out /tmp/x.err | tr '\n' '|')"
}

latest() { lscp -a -r -n 1 $dev | awk 'NR == 2 { print $1 }'; }

mount -t nilfs2 $dev /mnt || { echo "MOUNT FAILED"; exit 1; }
# checkpoints with real files, then many fast ones
mkdir /mnt/d
i=0
while [ $i -lt 10 ]; do
	echo "file $i" >/mnt/d/f$i
	sync
	i=$((i + 1))
done
$O/cpgen sync /mnt 150 >/dev/null || { echo "CPGEN FAILED"; exit 1; }
mkcp -s $dev
$O/cpgen sync /mnt 100 >/dev/null
chcp ss $dev 30 60 61 62 100 130 170 || echo "CHCP FAILED"
# a deleted range wide enough to leave whole cpfile blocks as holes
rmcp -f $dev 120..200 || echo "RMCP FAILED"
mkcp $dev               # a minor checkpoint: only the cpfile changed
$O/cpgen sync /mnt 40 >/dev/null
rmcp $dev 3 4 5
mkcp $dev
# more than 512 snapshots, then a gap of 1200 deleted checkpoints: both
# take the windowed paths of lscp -r and lscp -s -r
L=$(latest)
$O/cpgen sync /mnt 1900 >/dev/null
chcp ss $dev $(seq $((L + 1)) $((L + 600))) || echo "CHCP FAILED"
rmcp $dev $((L + 601))..$((L + 1800)) || echo "RMCP FAILED"
mkcp $dev
G=$((L + 1000))         # inside the gap
echo "checkpoints: $(lscp -a $dev | awk 'NR > 1' | wc -l), snapshots: $(lscp -s $dev | awk 'NR > 1' | wc -l), minor: $(lscp -a $dev | awk '$5 == "i"' | wc -l)"
mkdir -p /mnt2
mount -t nilfs2 -o ro,cp=60 $dev /mnt2 || echo "SNAPSHOT MOUNT FAILED"
sync                    # nothing left for the kernel's timer to write
sleep 2

echo "=== listing"
for o in "" -a -s -r "-a -r" "-s -r" -g "-g -a" -b "-a -b -g" \
	"-i 1" "-i 40" "-i 121" "-i 150" "-i 100000" "-n 1" "-n 7" "-n 0" \
	"-i 40 -n 30" "-a -i 199 -n 3" "-r -i 150" "-r -i 150 -n 7" "-r -i 1" \
	"-r -n 3" "-a -r -n 5" "-r -i 100000 -n 2" "-s -i 61" "-s -i 131 -n 2" \
	"-s -r -i 100" "-s -r -n 2" "-s -r -i 61 -n 1" "-s -n 0" "-s -i 100000" \
	"--all --reverse --lines=4" "--snapshot --index=62" \
	"-i $G" "-i $G -n 3" "-r -i $G" "-r -i $G -n 3" "-s -i $G" "-s -r -i $G -n 3" \
	"-s -r -i $((L + 300)) -n 20" "-s -r -n 700" "-s -i $((L + 550)) -n 100" \
	"-a -r -i $((L + 1801))"; do
	both lscp $o $dev
done
both lscp
for o in "" -a "-i 3" "-n 2" "-a -i 3 -n 5" "-a -i 60" "-i 64" "-a -n 0" \
	-l "-l -a -n 6" "-l -i 2 -n 3" "-l -p 1h" "-l -p 0" "-l -p 30d -a -n 5"; do
	both lssu $o $dev
done
both lssu
# a mount point, or any directory of the volume, names it too
for o in -a "-s -r" "lssu -a"; do
	case $o in lssu*) t=lssu; o=${o#lssu } ;; *) t=lscp ;; esac
	$t $o $dev >/tmp/t.out 2>&1
	for d in /mnt /mnt/d /mnt2; do
		$O/$t $o $d >/tmp/o.out 2>&1
		check "$t $o $d prints what nilfs-tools prints for $dev" cmp -s /tmp/t.out /tmp/o.out
	done
done
# UUID= and LABEL= name it as well (libblkid scans the guest's disks)
uuid=$(nilfs-tune -l $dev | sed -n 's/^Filesystem UUID:[[:space:]]*//p')
lscp -a $dev >/tmp/t.out 2>&1
$O/lscp -a LABEL=t-lscp >/tmp/o.out 2>&1
check "lscp -a LABEL=t-lscp prints what nilfs-tools prints for $dev" cmp -s /tmp/t.out /tmp/o.out
lssu -a $dev >/tmp/t.out 2>&1
$O/lssu -a UUID=$uuid >/tmp/o.out 2>&1
check "lssu -a UUID=$uuid prints what nilfs-tools prints for $dev" cmp -s /tmp/t.out /tmp/o.out
# a second volume: no argument is then an error that names both
mkdir -p /mnt3
mount -t nilfs2 /dev/vdc /mnt3 || echo "SECOND MOUNT FAILED"
$O/lscp >/tmp/o.out 2>/tmp/o.err
rc=$?
two_volumes() {
	[ $rc = 1 ] && [ ! -s /tmp/o.out ] && [ "$(cat /tmp/o.err)" = \
		"lscp: cannot open NILFS on device: 2 NILFS2 volumes are mounted, name one of: /dev/vda on /mnt, /dev/vdc on /mnt3" ]
}
check "no argument with two volumes: $(cat /tmp/o.err)" two_volumes
both lscp -a /dev/vdc
both lssu -a /dev/vdc
$O/lssu -a /mnt3 >/tmp/o.out
check "lssu /mnt3" cmp -s /tmp/t.out /tmp/o.out
umount /mnt3

echo "=== errors"
both lscp -x $dev
both lscp $dev $dev
both lscp /nonexistent
both chcp ss $dev 99999
both chcp cp $dev 99999 100
both chcp ss $dev 1 2
both chcp cp $dev 60          # mounted snapshot: busy
both chcp xx $dev 10
both chcp ss $dev abc
both chcp ss $dev 0
both chcp
both rmcp $dev 60             # a snapshot
both rmcp -f $dev 60
both rmcp $dev 99999
both rmcp $dev 5..3
both rmcp $dev 0
both rmcp $dev abc
both rmcp $dev 3..5           # already gone
both rmcp $dev ..2
both rmcp
both mkcp /nonexistent
both lssu -p 5q $dev
both lssu $dev $dev
# destructive: the same kind of call on two look-alike checkpoint sets
$O/cpgen sync /mnt 30 >/dev/null
b=$(latest)
chcp ss $dev $((b - 25)) $((b - 10))
t=$(outcome rmcp $dev $((b - 29))..$((b - 20)))
o=$(outcome $O/rmcp $dev $((b - 14))..$((b - 5)))
check "rmcp over a snapshot: $t" [ "$t" = "$o" ]
t=$(outcome rmcp $dev $(latest))
o=$(outcome $O/rmcp $dev $(latest))
check "rmcp of the latest checkpoint: $t" [ "$t" = "$o" ]
mkcp -s $dev     # as root: the cleaner's semaphore exists, mode 0700
AS="$O/cpgen asuser 1000"
for c in "lscp -n 2 $dev" "lssu -n 2 $dev" "lssu -l -n 2 $dev" "mkcp $dev" "mkcp -s $dev" \
	"chcp ss $dev 10" "rmcp $dev 10"; do
	both $c
done
AS=
t=$(outcome $O/cpgen asuser 1000 rmcp $dev 10 11)
o=$(outcome $O/cpgen asuser 1000 $O/rmcp $dev 10 11)
check "rmcp as a user: $t" [ "$t" = "$o" ]

echo "=== our changes, seen by nilfs-tools"
$O/cpgen sync /mnt 5 >/dev/null
n=$($O/mkcp -p $dev)
check "mkcp -p prints the latest checkpoint ($n)" [ "$n" = "$(latest)" ]
echo more >/mnt/d/more
s=$($O/mkcp -s -p /mnt)
check "mkcp -s -p on the mount point makes snapshot $s" \
	[ "$(lscp -s -r -n 1 $dev | awk 'NR == 2 { print $1 " " $4 }')" = "$s ss" ]
$O/chcp ss $dev 11 12 13
check "chcp ss 11 12 13" [ "$(lscp -s -i 11 -n 3 $dev | awk 'NR > 1 { printf "%s ", $1 }')" = "11 12 13 " ]
$O/chcp cp /mnt 12
check "chcp cp 12" [ "$(lscp -s -i 11 -n 2 $dev | awk 'NR > 1 { printf "%s ", $1 }')" = "11 13 " ]
$O/rmcp $dev 14..19 12
check "rmcp 14..19 12" [ "$(lscp -a -i 12 -n 3 $dev | awk 'NR > 1 { printf "%s ", $1 }')" = "13 20 21 " ]
$O/rmcp -f /mnt 11..13
check "rmcp -f 11..13 spares the snapshots" \
	[ "$(lscp -a -i 11 -n 2 $dev | awk 'NR > 1 { printf "%s ", $1 }')" = "11 13 " ]
echo y >/tmp/yes
$O/rmcp -i $dev 20 </tmp/yes 2>/dev/null
echo n >/tmp/no
$O/rmcp -i $dev 21 </tmp/no 2>/dev/null
check "rmcp -i removes on y only" \
	[ "$(lscp -a -i 20 -n 1 $dev | awk 'NR > 1 { print $1 }')" = 21 ]

echo "=== offline"
umount /mnt2
sync
sleep 2
run_sets() { # PREFIX TOOL SETS DEVICE
	for s in $3; do
		o=$(echo "$s" | tr '_' ' ')
		[ "$o" = : ] && o=
		$2 $o $4 | sed "s/^/$1 $(basename $2) $s|/"
	done
}
run_sets MNT $O/lscp "$LSCP_SETS" $dev >/tmp/mnt.txt
run_sets MNT $O/lssu "$LSSU_SETS" $dev >>/tmp/mnt.txt
run_sets MNT lscp "$LSCP_SETS" $dev >/tmp/theirs.txt
run_sets MNT lssu "$LSSU_SETS" $dev >>/tmp/theirs.txt
check "ours and nilfs-tools agree before umount" cmp -s /tmp/mnt.txt /tmp/theirs.txt
umount /mnt || { echo "UMOUNT FAILED"; exit 1; }
$O/lscp -a $dev >/tmp/t.out 2>&1
$O/lscp -a LABEL=t-lscp >/tmp/o.out 2>&1
check "offline lscp -a LABEL=t-lscp prints what lscp -a $dev prints" cmp -s /tmp/t.out /tmp/o.out
$O/lscp LABEL=no-such-label >/tmp/o.out 2>&1
check "LABEL= of no volume: $(cat /tmp/o.out)" [ "$(cat /tmp/o.out)" = \
	"lscp: cannot open NILFS on LABEL=no-such-label: no device has this label" ]
run_sets MNT $O/lscp "$LSCP_SETS" $dev >/tmp/off.txt
run_sets MNT $O/lssu "$LSSU_SETS" $dev >>/tmp/off.txt
if cmp -s /tmp/mnt.txt /tmp/off.txt; then
	check "offline output equals the mounted one ($(wc -l </tmp/off.txt) lines)" true
else
	diff /tmp/mnt.txt /tmp/off.txt | head -n 20
	check "offline output equals the mounted one" false
fi
$O/lssu -l -a $dev >/tmp/off-l.txt
$O/lssu -l -p 1h $dev >>/tmp/off-l.txt
echo "JSON $($O/lscp -J -a -n 2 $dev | tr -d ' \n')"
echo "JSON $($O/lssu -J -l -n 3 $dev | tr -d ' \n')"
mount -t nilfs2 -o ro $dev /mnt || { echo "RO MOUNT FAILED"; exit 1; }
lssu -l -a $dev >/tmp/ro-l.txt
lssu -l -p 1h $dev >>/tmp/ro-l.txt
if cmp -s /tmp/ro-l.txt /tmp/off-l.txt; then
	check "offline lssu -l equals nilfs-tools' on a read-only mount" true
else
	diff /tmp/ro-l.txt /tmp/off-l.txt | head -n 20
	check "offline lssu -l equals nilfs-tools' on a read-only mount" false
fi
both lssu -l -a $dev
umount /mnt
cat /tmp/mnt.txt
echo "RESULT same=$nsame diff=$ndiff"
[ $ndiff = 0 ]
GUEST

t0=$(date +%s)
NILFS_KTEST_TIMEOUT=${NILFS_KTEST_TIMEOUT:-900} \
	"$guest" run "$tmp/guest-script" "$img" "$tmp/ours.tar" "$img2" >"$tmp/out" 2>&1
rc=$?
t1=$(date +%s)
grep -E '^(DIFF|OK|SAME|RESULT|checkpoints:|JSON)' "$tmp/out" | grep -v '^SAME' | head -n 60
result=$(sed -n 's/^RESULT //p' "$tmp/out")
[ -n "$result" ] || fail "the guest script did not finish (exit $rc)"
[ $rc -eq 0 ] || fail "guest: $result"

# on the host: our offline reader on the image file
export TZ=UTC
sed -n 's/^MNT //p' "$tmp/out" >"$tmp/want"
: >"$tmp/got"
for s in $LSCP_SETS; do
	o=$(echo "$s" | tr '_' ' '); [ "$o" = : ] && o=
	"$top/lscp" $o "$img" | sed "s/^/lscp $s|/" >>"$tmp/got"
done
for s in $LSSU_SETS; do
	o=$(echo "$s" | tr '_' ' '); [ "$o" = : ] && o=
	"$top/lssu" $o "$img" | sed "s/^/lssu $s|/" >>"$tmp/got"
done
if ! cmp -s "$tmp/want" "$tmp/got"; then
	diff "$tmp/want" "$tmp/got" | head -n 30
	fail "host offline lscp/lssu on the image differ from the mounted volume"
fi
echo "host: offline output on the image equals the mounted volume's ($(wc -l <"$tmp/got") lines)"
echo "guest: $result; took $((t1 - t0)) s"
echo "PASS: $0"
exit 0
