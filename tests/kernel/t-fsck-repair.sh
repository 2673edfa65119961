#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-fsck-repair.sh - what "fsck.nilfs2 -y" repairs, the real kernel must
# take, with every file the damage did not touch intact.
#
# On the host, every case of tests/fsck/corrupt damages a copy of its base;
# "fsck.nilfs2 -n" must flag it, and "-y" must repair it (exit 1) whenever
# its expect.2 says so (a repair that regressed fails here, not silently
# drops out).  Each copy -y repaired, and a damaged latest log that
# -y --rollback steps back from, is mounted in a qemu guest (see guest.sh),
# many to a guest, each as one virtio disk:
#   - the manifest of the repaired tree (tests/kernel/manifest.sh: every
#     path, mode, size, link count, mtime, every file's sha256, symlink
#     targets) must equal the manifest of the base before the damage, minus
#     the paths the case may lose (corrupt --list, 4th field) and minus
#     /lost+found, and new names only where a lost path was (a salvaged
#     entry renamed); directories are compared by mode and owner only (a
#     repair that links into /lost+found changes their link counts and
#     times).  The base manifests: mkfs and kernel from good copies mounted
#     in the same guest, rich from tests/fsck/images/kernel-rich.manifest;
#   - /lost+found is listed, a file is written, the volume unmounted;
#   (the rich base unchanged goes along, so a manifest that no longer fits
#   its image is told apart from a repair that lost something)
# back on the host, "fsck.nilfs2 -n -f" must still call it clean (the
# kernel's own writes on top of the repair included).
#
# FSCK_CASES="NAME..." runs only those cases (with rollback and the rich
# base); PER_GUEST sets how many volumes share a guest (20).
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).
here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=$(cd "${top_builddir:-$here/../..}" && pwd)
fsck=$top/fsck.nilfs2
corrupt=$top/tests/fsck/corrupt
srcdir=$(cd "$here/../.." && pwd)
cases=$srcdir/tests/fsck/cases
# disks per guest besides the two good copies and the script
PER_GUEST=${PER_GUEST:-20}
# twenty volumes read through under TCG on a loaded host take minutes
NILFS_KTEST_TIMEOUT=${NILFS_KTEST_TIMEOUT:-900}
export NILFS_KTEST_TIMEOUT

"$guest" require || exit
mkfs=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v mkfs.nilfs2)
[ -n "$mkfs" ] || { echo "SKIP: $0: host mkfs.nilfs2 not found (install nilfs-tools)"; exit 77; }
[ -x "$fsck" ] && [ -x "$corrupt" ] || { echo "FAIL: fsck.nilfs2 or tests/fsck/corrupt not built"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-fsck-repair.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
truncate -s 256M "$tmp/mkfs.base" && "$mkfs" -q -f -L fsck-test "$tmp/mkfs.base" >/dev/null || exit 1
xz -dc "$srcdir/tests/fsck/images/kernel-1k.img.xz" >"$tmp/kernel.base" || exit 1
xz -dc "$srcdir/tests/fsck/images/kernel-rich.img.xz" >"$tmp/rich.base" || exit 1

fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# the repaired images; table: NAME BASE LOST
: >"$tmp/table"
"$corrupt" --list >"$tmp/list" || { echo "FAIL: corrupt --list"; exit 1; }
while read -r name base opts lost <&3; do
	# FSCK_CASES="a b": only those (to look into one)
	case " ${FSCK_CASES:-$name} " in *" $name "*) ;; *) continue ;; esac
	[ "$opts" = - ] && opts= || opts=$(echo "$opts" | tr , ' ')
	cp --sparse=always "$tmp/$base.base" "$tmp/$name.img"
	"$corrupt" "$name" "$tmp/$name.img" 2>/dev/null || { bad "corrupt $name"; continue; }
	# shellcheck disable=SC2086
	"$fsck" -n $opts "$tmp/$name.img" >"$tmp/$name.n" 2>&1
	nrc=$?
	case $name in good_*)
		# a valid volume of an unusual shape: clean, and mounted as it is
		[ "$nrc" -eq 0 ] || bad "$name: a good volume does not check clean"
		echo "$name $base $lost" >>"$tmp/table"
		continue ;;
	esac
	[ "$nrc" -ne 0 ] || grep -q 'warning:' "$tmp/$name.n" || bad "$name: fsck -n found nothing"
	# shellcheck disable=SC2086
	"$fsck" -y $opts "$tmp/$name.img" >"$tmp/$name.y" 2>&1
	rc=$?
	if [ "$rc" -ne 1 ]; then
		if grep -q '^Exit status is 1$' "$cases/$name/expect.2" 2>/dev/null; then
			bad "$name: expect.2 says -y repairs it, but -y exited $rc:"
			sed 's/^/  fsck -y: /' "$tmp/$name.y" | grep -v 'Pass '
		fi
		rm -f "$tmp/$name.img"
		continue
	fi
	echo "$name $base $lost" >>"$tmp/table"
done 3<"$tmp/list"
# the damaged latest super-root log -y alone cannot repair: --rollback
# (back to the log before it: /last, written last, goes with it)
cp --sparse=always "$tmp/kernel.base" "$tmp/rollback.img"
"$corrupt" sr_latest_datasum "$tmp/rollback.img" 2>/dev/null || { echo "FAIL: corrupt sr_latest_datasum"; exit 1; }
"$fsck" -y --rollback "$tmp/rollback.img" >"$tmp/rollback.y" 2>&1
rc=$?
if [ "$rc" -eq 1 ]; then
	echo "rollback kernel /last" >>"$tmp/table"
else
	bad "fsck -y --rollback exited $rc:"
	cat "$tmp/rollback.y"
fi
# the rich base itself, unchanged: its committed manifest must hold in the
# kernel (else every rich case would fail for the manifest, not the repair)
cp --sparse=always "$tmp/rich.base" "$tmp/rich-unchanged.img"
echo "rich-unchanged rich -" >>"$tmp/table"
n=$(wc -l <"$tmp/table")
[ "$n" -ge 15 ] || [ -n "${FSCK_CASES:-}" ] || bad "only $n cases repaired (expected at least 15)"
echo "$n repaired images: $(cut -d' ' -f1 "$tmp/table" | tr '\n' ' ')"

# the guest's part: $GOOD_MKFS and $GOOD_KERNEL are good copies of the
# bases, /tmp/base.rich the committed manifest, /tmp/table "DEV NAME BASE LOST"
cat >"$tmp/guest-body" <<'GUEST'
export TZ=UTC
# keep(LOST): the manifest lines of the paths a repair must keep, with
# directories reduced to path, mode, owner
keep() {
	awk -v lost="$1" '
	BEGIN { n = split(lost == "-" ? "" : lost, l, ",") }
	{
		if ($1 == "S") { p = substr($2, 1, index($2, "|") - 1) }
		else if ($1 == "H") { p = $3 } else { p = $2 }
		if (p == "./lost+found" || index(p, "./lost+found/") == 1)
			next
		for (i = 1; i <= n; i++) {
			q = "." l[i]
			if (p == q || index(p, q "/") == 1)
				next
		}
		if ($1 == "S") {
			split($2, f, "|")
			if (length(f[2]) == 4 && substr(f[2], 1, 1) == "4") {
				print "S " f[1] "|" f[2] "|dir|" f[4] "|" f[5]
				next
			}
		}
		print
	}'
}
# unexpected(LOST): the lines of a manifest diff a repair may not cause: a
# path gone or changed, or a new one beside none of the lost paths (a
# salvaged entry may come back renamed in the directory that held it)
unexpected() {
	awk -v lost="$1" '
	BEGIN {
		n = split(lost == "-" ? "" : lost, l, ",")
		for (i = 1; i <= n; i++) { d = "." l[i]; sub(/\/[^\/]*$/, "", d); dirs[d] = 1 }
	}
	/^-/ { print; next }
	{
		if ($1 == "+S") { p = substr($2, 1, index($2, "|") - 1) }
		else if ($1 == "+H") { p = $3 } else { p = $2 }
		d = p; sub(/\/[^\/]*$/, "", d)
		if (!(d in dirs))
			print
	}'
}
for b in mkfs kernel; do
	eval dev=\$GOOD_$(echo $b | tr a-z A-Z)
	mount -t nilfs2 -o ro "$dev" /mnt || { echo "GOOD-MOUNT-FAILED $b"; exit 1; }
	manifest /mnt >/tmp/base.$b
	umount /mnt
done
while read -r dev name base lost; do
	if ! mount -t nilfs2 "$dev" /mnt 2>/tmp/err; then
		echo "MOUNT-FAILED $dev $(cat /tmp/err)"
		continue
	fi
	bad=0
	manifest /mnt >/tmp/got 2>/tmp/err
	[ -s /tmp/err ] && { sed "s|^|READ-FAILED $dev |" /tmp/err | head -n 5; bad=1; }
	keep "$lost" </tmp/base.$base >/tmp/want
	keep "$lost" </tmp/got >/tmp/have
	if ! diff /tmp/want /tmp/have >/tmp/diff; then
		grep '^[-+][SHL] ' /tmp/diff | unexpected "$lost" >/tmp/bad
		if [ -s /tmp/bad ]; then
			head -n 12 /tmp/bad | sed "s|^|CHANGED $dev |"
			bad=1
		fi
	fi
	ls /mnt/lost+found >/dev/null 2>&1 && echo "LOSTFOUND $dev $(ls /mnt/lost+found | tr '\n' ' ')"
	echo "written after repair" >/mnt/after-repair || bad=1
	sync
	umount /mnt || bad=1
	[ $bad -eq 0 ] && echo "OK $dev $(grep -c '^H ' /tmp/want) files intact"
done </tmp/table
exit 0
GUEST

letter() { printf "\\$(printf %o $((97 + $1)))"; }
set -- $(cut -d' ' -f1 "$tmp/table")
while [ $# -gt 0 ]; do
	batch= imgs="$tmp/good-mkfs.img $tmp/good-kernel.img"
	cp --sparse=always "$tmp/mkfs.base" "$tmp/good-mkfs.img"
	cp --sparse=always "$tmp/kernel.base" "$tmp/good-kernel.img"
	k=2
	: >"$tmp/btable"
	while [ $# -gt 0 ] && [ $k -lt $((PER_GUEST + 2)) ]; do
		batch="$batch $1"
		imgs="$imgs $tmp/$1.img"
		echo "/dev/vd$(letter $k) $(grep "^$1 " "$tmp/table")" >>"$tmp/btable"
		shift
		k=$((k + 1))
	done
	{
		echo "GOOD_MKFS=/dev/vda GOOD_KERNEL=/dev/vdb"
		cat "$here/manifest.sh"
		echo "cat >/tmp/base.rich <<'EOF_RICH'"
		cat "$srcdir/tests/fsck/images/kernel-rich.manifest"
		echo "EOF_RICH"
		echo "cat >/tmp/table <<'EOF_TABLE'"
		cat "$tmp/btable"
		echo "EOF_TABLE"
		cat "$tmp/guest-body"
	} >"$tmp/script"
	t0=$(date +%s)
	# shellcheck disable=SC2086
	"$guest" run "$tmp/script" $imgs >"$tmp/out" 2>&1
	grk=$?
	if [ $grk -ne 0 ]; then
		# 125: a panic, hang or timeout; these volumes fail, the next go on
		bad "the guest exited $grk with:$batch"
		tail -n 40 "$tmp/out"
		continue
	fi
	echo "guest: $(echo $batch | wc -w) volumes in $(($(date +%s) - t0)) s"
	j=2
	for name in $batch; do
		dev=/dev/vd$(letter $j)
		j=$((j + 1))
		if ! grep -q "^OK $dev " "$tmp/out"; then
			if grep -q "^MOUNT-FAILED $dev " "$tmp/out"; then
				bad "$name: the kernel did not mount the repaired volume ($dev):"
			elif grep -q "^READ-FAILED $dev " "$tmp/out"; then
				bad "$name: the kernel could not read back every file ($dev):"
			elif grep -q "^CHANGED $dev " "$tmp/out"; then
				bad "$name: files the damage did not touch differ from the manifest (- before, + after -y; a loss the damage makes unavoidable goes in the case's LOST field, corrupt.c's KL) ($dev):"
			else
				bad "$name: the kernel could not write to or unmount the repaired volume ($dev):"
			fi
			grep " $dev " "$tmp/out"
			sed 's/^/  fsck -y: /' "$tmp/$name.y" | grep -v 'Pass '
			continue
		fi
		if ! "$fsck" -n -f "$tmp/$name.img" >"$tmp/after" 2>&1; then
			bad "$name: not clean after the kernel wrote to the repaired volume:"
			cat "$tmp/after"
			continue
		fi
		echo "ok: $name: mounted, $(grep "^OK $dev " "$tmp/out" | cut -d' ' -f3-), written" \
			"$(grep "^LOSTFOUND $dev " "$tmp/out" | cut -d' ' -f3- | sed 's/^./lost+found: &/')"
	done
done
[ "$fail" -eq 0 ] && echo "$n passed, 0 failed" || echo "$fail failed"
[ "$fail" -eq 0 ]
