#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-diff.sh - nilfs-diff and nilfs-history against the real kernel.  The
# guest writes a tree through many checkpoints (creations, appends,
# overwrites, truncations, renames of files and directories, hard links,
# deletions, an inode number reused), taking a manifest with inode
# numbers at chosen checkpoints; for several pairs of them nilfs-diff on
# the image equals the difference of the two manifests (diffexpect.awk,
# compared through diffnorm.awk).  One file's versions are recorded as
# the guest makes them: nilfs-history lists each at the checkpoint that
# holds it, and --extract restores each with the contents the guest saw.
# In the guest, nilfs-diff on the mounted volume holds two plain
# checkpoints as snapshots and gives them back.  Bad input: a checkpoint
# that does not exist, a path that is not there, a damaged image.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip.

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=${top_builddir:-$here/../..}
diff_cmd=$top/nilfs-diff
hist_cmd=$top/nilfs-history
mkfs=$top/mkfs.nilfs2

"$guest" require || exit
for p in "$diff_cmd" "$hist_cmd" "$mkfs"; do
	[ -x "$p" ] || { echo "FAIL: $p not built"; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-diff.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

fail() {
	echo "FAIL: $*"
	echo "--- guest output (last 40 lines) ---"
	tail -n 40 "$tmp/out"
	exit 1
}

img=$tmp/nilfs.img
truncate -s 256M "$img" || exit 1
"$mkfs" -q -f -b 4096 -B 512 "$img" || { echo "FAIL: mkfs.nilfs2"; exit 1; }

cat >"$tmp/guest-script" <<'GUEST'
export TZ=UTC
dev=/dev/vda
mount -t nilfs2 -o noatime $dev /mnt || { echo "MOUNT FAILED"; exit 1; }
echo "MOUNT OK"
# one line per path: ino|parent ino|path|type,links,uid,gid,size,mtime,ctime,digest
man() {
	(cd /mnt && find . | LC_ALL=C sort | while read -r p; do
		d=-
		[ -f "$p" ] && [ ! -L "$p" ] && d=$(sha256sum <"$p" | cut -c1-16)
		[ -L "$p" ] && d=$(readlink "$p")
		echo "$(stat -c '%i' "$p")|$(stat -c '%i' "$(dirname "$p")")|$p|$(stat -c '%f,%h,%u,%g,%s,%y,%z' "$p"),$d"
	done)
}
mk() {
	sync
	cno=$(mkcp -p $dev) || { echo "MKCP FAILED"; exit 1; }
	echo "CP $1 $cno"
	man | sed "s/^/MAN $1 /"
}
latest() { lscp $dev | tail -n 1 | awk '{ print $1 }'; }
# a version of the history file: the checkpoints that may hold it, its size and digest
hist() {
	before=$(latest)
	eval "$1"
	sync
	f=/mnt/t; [ -e "$f" ] || f=/mnt/a/t2
	echo "HIST $before $(latest) $(stat -c %s $f) $(sha256sum <$f | cut -c1-64)"
}
mkdir -p /mnt/a/b /mnt/c
for i in 1 2 3 4 5 6; do echo "file $i" >/mnt/a/f$i; done
for i in 1 2 3; do echo "g $i" >/mnt/a/b/g$i; echo "h $i" >/mnt/c/h$i; done
dd if=/dev/urandom of=/mnt/big bs=4096 count=300 2>/dev/null
ln -s a/f1 /mnt/sym
hist 'echo v1 >/mnt/t'
mk 1
echo more >>/mnt/a/f1
mv /mnt/a/f2 /mnt/c/f2m
ln /mnt/a/f3 /mnt/c/f3link
rm /mnt/a/f4
truncate -s 10000 /mnt/big
echo new >/mnt/a/new
mv /mnt/a/b /mnt/a/bb
hist 'echo v2 >>/mnt/t'
mk 2
rm /mnt/a/f5
echo reborn >/mnt/a/f5
rm /mnt/c/f3link
mkdir /mnt/d
mv /mnt/c/h1 /mnt/d/
chmod 600 /mnt/c/h2
rm -r /mnt/a/bb
rm /mnt/sym
ln -s c/h3 /mnt/sym
hist 'mv /mnt/t /mnt/a/t2'
mk 3
mkdir /mnt/d/many
i=0
while [ $i -lt 60 ]; do echo "n $i" >/mnt/d/many/n$i; i=$((i + 1)); done
hist "printf XY | dd of=/mnt/a/t2 conv=notrunc 2>/dev/null"
mk 4
i=0
while [ $i -lt 60 ]; do rm /mnt/d/many/n$i; i=$((i + 2)); done
dd if=/dev/urandom of=/mnt/big bs=512 seek=3 count=2 conv=notrunc 2>/dev/null
mv /mnt/d /mnt/c/dd
ln /mnt/a/f6 /mnt/a/f6b
hist 'truncate -s 3 /mnt/a/t2'
hist 'chmod 600 /mnt/a/t2'
mk 5
# online: two plain checkpoints held as snapshots while read, then given back
n1=$(mkcp -p $dev); echo x >/mnt/online; sync; n2=$(mkcp -p $dev)
/ktest/bin/nilfs-diff -H /mnt $n1 $n2 >/tmp/on 2>/tmp/onerr; echo "ONLINE RC $?"
sed 's/^/ONLINE /' /tmp/on; sed 's/^/ONLINE-ERR /' /tmp/onerr
lscp $dev | awk -v a=$n1 -v b=$n2 '$1 == a || $1 == b { print "ONLINE-MODE " $1 " " $4 }'
/ktest/bin/nilfs-history /mnt /a/t2 >/tmp/on 2>&1; echo "ONLINE-HIST RC $? $(wc -l </tmp/on)"
/ktest/bin/nilfs-diff /mnt 999999 >/dev/null 2>/tmp/onerr; echo "ONLINE-BAD RC $?"
sed 's/^/ONLINE-BAD /' /tmp/onerr
cd /
umount /mnt || { echo "UMOUNT FAILED"; exit 1; }
echo "ALL DONE"
GUEST

NILFS_KTEST_EXTRA="$diff_cmd $hist_cmd" "$guest" run "$tmp/guest-script" "$img" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "guest script exited $rc"
for l in "MOUNT OK" "ALL DONE"; do
	grep -qx "$l" "$tmp/out" || fail "missing line '$l'"
done
! grep -q 'FAILED' "$tmp/out" || fail "a guest step failed"

# the manifests, by checkpoint
for s in 1 2 3 4 5; do
	c=$(sed -n "s/^CP $s \([0-9][0-9]*\)$/\1/p" "$tmp/out")
	[ -n "$c" ] || fail "no checkpoint for stage $s"
	eval "cp$s=$c"
	sed -n "s/^MAN $s //p" "$tmp/out" >"$tmp/man.$s"
	[ -s "$tmp/man.$s" ] || fail "no manifest for stage $s"
done

npairs=0
nlines=0
for pair in 1:2 2:3 1:3 3:1 3:4 4:5 1:5 5:2 2:2; do
	a=${pair%:*} b=${pair#*:}
	eval "ca=\$cp$a cb=\$cp$b"
	awk -f "$here/diffexpect.awk" "$tmp/man.$a" "$tmp/man.$b" | awk -f "$here/diffnorm.awk" |
		LC_ALL=C sort >"$tmp/want.$a.$b"
	"$diff_cmd" -H "$img" "$ca" "$cb" >"$tmp/raw.$a.$b" 2>"$tmp/err" ||
		{ cat "$tmp/err"; fail "nilfs-diff $ca $cb exited $?"; }
	awk -f "$here/diffnorm.awk" "$tmp/raw.$a.$b" | LC_ALL=C sort >"$tmp/got.$a.$b"
	if ! cmp -s "$tmp/want.$a.$b" "$tmp/got.$a.$b"; then
		echo "--- nilfs-diff -H $ca $cb:"; cat "$tmp/raw.$a.$b"
		diff -u "$tmp/want.$a.$b" "$tmp/got.$a.$b"
		fail "stages $a..$b (checkpoints $ca..$cb): nilfs-diff differs from the manifests (- manifests, + nilfs-diff)"
	fi
	npairs=$((npairs + 1))
	nlines=$((nlines + $(wc -l <"$tmp/got.$a.$b")))
done
[ ! -s "$tmp/got.2.2" ] || fail "a checkpoint against itself shows changes"
# a rename is shown as one: R with both paths
grep -q "^R	/a/f2	/c/f2m$" "$tmp/raw.1.2" || fail "no rename line for a/f2 in 1..2"
grep -q "^R	/a/b	/a/bb$" "$tmp/raw.1.2" || fail "no rename line for directory a/b in 1..2"
! grep -q "/a/bb/g" "$tmp/raw.1.2" || fail "files below a renamed directory are listed"
# -F and -t and --json
"$diff_cmd" -F -t "$img" "$cp1" "$cp2" >"$tmp/ft" || fail "nilfs-diff -F -t"
grep -q "^[0-9]*\.[0-9]\{9\}	M	F	contents	/a/f1$" "$tmp/ft" || { cat "$tmp/ft"; fail "-F -t line of a/f1"; }
grep -q "	R	/	[a-z]*	/a/b -> /a/bb$" "$tmp/ft" || { cat "$tmp/ft"; fail "-F line of the renamed directory"; }
"$diff_cmd" --json "$img" "$cp1" "$cp2" >"$tmp/json" || fail "nilfs-diff --json"
grep -q '"change":"R","type":"F","path":"/a/f2","to":"/c/f2m"' "$tmp/json" || { cat "$tmp/json"; fail "--json rename"; }

# online, in the guest
grep -qx "ONLINE RC 0" "$tmp/out" || fail "online nilfs-diff failed: $(grep ONLINE "$tmp/out")"
grep -qx "ONLINE +	/online" "$tmp/out" || fail "online nilfs-diff: $(grep ONLINE "$tmp/out")"
grep -qx "ONLINE M	/" "$tmp/out" || fail "online nilfs-diff: $(grep ONLINE "$tmp/out")"
[ "$(grep -c '^ONLINE-MODE [0-9]* cp$' "$tmp/out")" -eq 2 ] ||
	fail "the held checkpoints were not given back: $(grep ONLINE-MODE "$tmp/out")"
grep -qx "ONLINE-BAD RC 1" "$tmp/out" || fail "online: a checkpoint that does not exist"
grep -q "^ONLINE-BAD nilfs-diff: /mnt: checkpoint 999999 does not exist$" "$tmp/out" ||
	fail "online: message for a checkpoint that does not exist: $(grep ONLINE-BAD "$tmp/out")"

# the history of t (a/t2 from stage 3 on)
grep '^HIST ' "$tmp/out" >"$tmp/hist.want"
"$hist_cmd" "$img" /a/t2 >"$tmp/hist" 2>"$tmp/err" || { cat "$tmp/err"; fail "nilfs-history"; }
awk 'NR > 1 { print $1, $4, $5 }' "$tmp/hist" >"$tmp/hist.got"
[ "$(wc -l <"$tmp/hist.got")" -eq "$(wc -l <"$tmp/hist.want")" ] ||
	{ cat "$tmp/hist" "$tmp/hist.want"; fail "nilfs-history: version count differs from the guest's"; }
i=0
while read -r _ before after size sum; do
	i=$((i + 1))
	set -- $(sed -n "${i}p" "$tmp/hist.got")
	[ "$1" -gt "$before" ] && [ "$1" -le "$after" ] ||
		{ cat "$tmp/hist" "$tmp/hist.want"; fail "version $i at checkpoint $1, not in $before..$after"; }
	[ "$2" = "$size" ] || fail "version $i: size $2, guest saw $size"
	rm -rf "$tmp/x"
	"$hist_cmd" --extract "$1" "$tmp/x" "$img" /a/t2 2>"$tmp/err" ||
		{ cat "$tmp/err"; fail "nilfs-history --extract $1"; }
	got=$(sha256sum "$tmp"/x/* | cut -c1-64)
	[ "$got" = "$sum" ] || fail "version $i (checkpoint $1): extracted contents differ"
done <"$tmp/hist.want"
"$hist_cmd" -d --json "$img" /a/t2 >"$tmp/hjson" || fail "nilfs-history -d --json"
grep -qx "ONLINE-HIST RC 0 $((i + 1))" "$tmp/out" || fail "online nilfs-history: $(grep ONLINE-HIST "$tmp/out")"
[ "$(grep -c '"crc32":"[0-9a-f]\{8\}"' "$tmp/hjson")" -eq "$i" ] || { cat "$tmp/hjson"; fail "--digest"; }

# bad input
"$diff_cmd" "$img" 1 999999 >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q "checkpoint 999999 does not exist" "$tmp/err" ||
	{ cat "$tmp/err"; fail "a checkpoint that does not exist: rc $rc"; }
"$hist_cmd" "$img" /no/such >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q "/no/such: not in checkpoint" "$tmp/err" ||
	{ cat "$tmp/err"; fail "a path that is not there: rc $rc"; }
"$hist_cmd" --extract 999999 "$tmp/y" "$img" /a/t2 >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] || { cat "$tmp/err"; fail "--extract of a checkpoint that does not exist: rc $rc"; }
# damage: a directory block both checkpoints' diff must read, garbled,
# is refused with a message; garbage over the metadata files' blocks and
# random blocks may or may not be noticed, but nothing crashes
dump=$top/dump.nilfs2
blocks_of() { "$dump" "$@" 2>/dev/null | sed -n 's/^data key [0-9]* ptr [0-9]* block \([0-9]*\)$/\1/p'; }
mdt_blocks() { "$dump" "$img" sr | awk '$1 == "dat" || $1 == "cpfile" { for (i = 6; i <= NF; i++) if ($i > 1) print $i }'; }
damage() {  # damage NAME MUST-REFUSE BLOCK...
	name=$1 must=$2
	shift 2
	[ $# -gt 0 ] || fail "damaged image '$name': no block to damage"
	cp "$img" "$tmp/bad.img"
	for blk in "$@"; do
		dd if=/dev/urandom of="$tmp/bad.img" bs=4096 seek="$blk" count=1 conv=notrunc 2>/dev/null
	done
	"$diff_cmd" "$tmp/bad.img" "$cp1" "$cp5" >/dev/null 2>"$tmp/err"; rc=$?
	[ $rc -le 1 ] || { cat "$tmp/err"; fail "damaged image '$name': nilfs-diff exited $rc"; }
	[ $rc -eq 0 ] || [ -s "$tmp/err" ] || fail "damaged image '$name': failure without a message"
	[ "$must" = no ] || [ $rc -eq 1 ] || fail "damaged image '$name': nilfs-diff did not notice"
	"$hist_cmd" -d "$tmp/bad.img" /a/t2 >/dev/null 2>"$tmp/err"; rc2=$?
	[ $rc2 -le 1 ] || { cat "$tmp/err"; fail "damaged image '$name': nilfs-history exited $rc2"; }
	[ $rc -eq 0 ] && [ $rc2 -eq 0 ] || ndamaged=$((ndamaged + 1))
}
ndamaged=0
damage "/a at checkpoint $cp5" yes $(blocks_of -c "$cp5" "$img" bmap /a)
damage "/a at checkpoint $cp1" yes $(blocks_of -c "$cp1" "$img" bmap /a)
damage "/ at checkpoint $cp5" yes $(blocks_of -c "$cp5" "$img" bmap /)
damage "DAT and cpfile" no $(mdt_blocks)
for seed in 1 2 3 4; do
	damage "random $seed" no $(for k in 1 2 3 4; do echo $(( (seed * 7919 + k * 104729) % 1500 + 1 )); done)
done

echo "ours: $npairs checkpoint pairs, $nlines changes equal to the manifests; $i versions by nilfs-history, each extracted; $ndamaged of 8 damaged images refused with a message (3 of them must be)"
echo "PASS: $0"
exit 0
