#!/bin/sh
# t-fsck-repair.sh - what "fsck.nilfs2 -y" repairs, the real kernel must
# take: each corruption case of tests/fsck/corrupt that -y reports fully
# repaired (exit 1), and a damaged latest log that -y --rollback steps
# back from, is mounted in a qemu guest (see guest.sh), every file
# is read, /lost+found is listed, a file is written and the volume is
# unmounted; back on the host, "fsck.nilfs2 -n -f" must still call it
# clean (the kernel's own writes on top of the repair included).
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).
here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=$(cd "${top_builddir:-$here/../..}" && pwd)
fsck=$top/fsck.nilfs2
corrupt=$top/tests/fsck/corrupt
srcdir=$(cd "$here/../.." && pwd)

"$guest" require || exit
mkfs=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v mkfs.nilfs2)
[ -n "$mkfs" ] || { echo "SKIP: $0: host mkfs.nilfs2 not found (install nilfs-tools)"; exit 77; }
[ -x "$fsck" ] && [ -x "$corrupt" ] || { echo "FAIL: fsck.nilfs2 or tests/fsck/corrupt not built"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-fsck-repair.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
truncate -s 256M "$tmp/mkfs.base" && "$mkfs" -q -f -L fsck-test "$tmp/mkfs.base" >/dev/null || exit 1
xz -dc "$srcdir/tests/fsck/images/kernel-1k.img.xz" >"$tmp/kernel.base" || exit 1
xz -dc "$srcdir/tests/fsck/images/kernel-rich.img.xz" >"$tmp/rich.base" || exit 1

# the repaired images, at most 20 to a guest (one virtio disk each)
names=
n=0
for line in $("$corrupt" --list | tr ' ' ':'); do
	name=${line%%:*} rest=${line#*:}
	base=${rest%%:*} opts=${rest#*:}
	[ "$opts" = - ] && opts=
	cp --sparse=always "$tmp/$base.base" "$tmp/$name.img"
	"$corrupt" "$name" "$tmp/$name.img" 2>/dev/null || { echo "FAIL: corrupt $name"; exit 1; }
	# shellcheck disable=SC2086
	"$fsck" -y $opts "$tmp/$name.img" >"$tmp/$name.y" 2>&1
	rc=$?
	if [ "$rc" -ne 1 ]; then
		rm -f "$tmp/$name.img"
		continue
	fi
	names="$names $name"
	n=$((n + 1))
done
[ "$n" -ge 15 ] || { echo "FAIL: only $n cases repaired (expected at least 15)"; exit 1; }
# the damaged latest super-root log -y alone cannot repair: --rollback
cp --sparse=always "$tmp/kernel.base" "$tmp/rollback.img"
"$corrupt" sr_latest_datasum "$tmp/rollback.img" 2>/dev/null || { echo "FAIL: corrupt sr_latest_datasum"; exit 1; }
"$fsck" -y --rollback "$tmp/rollback.img" >"$tmp/rollback.y" 2>&1
rc=$?
[ "$rc" -eq 1 ] || { echo "FAIL: fsck -y --rollback exited $rc:"; cat "$tmp/rollback.y"; exit 1; }
names="$names rollback"
n=$((n + 1))
echo "$n repaired images:$names"

cat >"$tmp/guest-script" <<'GUEST'
i=0
for dev in /dev/vd?; do
	[ "$dev" = "$SCRIPT_DISK" ] && continue
	if ! mount -t nilfs2 "$dev" /mnt 2>/tmp/err; then
		echo "MOUNT-FAILED $dev $(cat /tmp/err)"
		continue
	fi
	bad=0
	find /mnt -type f >/tmp/files
	while read -r f; do cat "$f" >/dev/null 2>&1 || { echo "READ-FAILED $dev $f"; bad=1; }; done </tmp/files
	ls /mnt/lost+found >/dev/null 2>&1 && echo "LOSTFOUND $dev $(ls /mnt/lost+found | tr '\n' ' ')"
	echo "written after repair" >/mnt/after-repair || bad=1
	sync
	umount /mnt || bad=1
	[ $bad -eq 0 ] && echo "OK $dev $(wc -l </tmp/files) files"
	i=$((i + 1))
done
GUEST

fail=0
set -- $names
while [ $# -gt 0 ]; do
	batch= imgs=
	k=0
	while [ $# -gt 0 ] && [ $k -lt 20 ]; do
		batch="$batch $1"
		imgs="$imgs $tmp/$1.img"
		shift
		k=$((k + 1))
	done
	# the script disk follows the images: tell the script which one it is
	last=$(printf "\\$(printf %o $((97 + k)))")
	sed "1i SCRIPT_DISK=/dev/vd$last" "$tmp/guest-script" >"$tmp/script"
	# shellcheck disable=SC2086
	"$guest" run "$tmp/script" $imgs >"$tmp/out" 2>&1
	grk=$?
	[ $grk -eq 0 ] || { echo "FAIL: guest exited $grk"; tail -n 40 "$tmp/out"; exit 1; }
	j=0
	for name in $batch; do
		dev=/dev/vd$(printf "\\$(printf %o $((97 + j)))")
		j=$((j + 1))
		if ! grep -q "^OK $dev " "$tmp/out"; then
			fail=$((fail + 1))
			echo "FAIL: $name: the kernel did not take the repaired volume ($dev):"
			grep " $dev" "$tmp/out"
			sed 's/^/  fsck -y: /' "$tmp/$name.y" | grep -v 'Pass '
			continue
		fi
		if ! "$fsck" -n -f "$tmp/$name.img" >"$tmp/after" 2>&1; then
			fail=$((fail + 1))
			echo "FAIL: $name: not clean after the kernel wrote to the repaired volume:"
			cat "$tmp/after"
			continue
		fi
		echo "ok: $name: mounted, read, written; $(grep "^OK $dev " "$tmp/out" | cut -d' ' -f3-)" \
			"$(grep "^LOSTFOUND $dev " "$tmp/out" | cut -d' ' -f3- | sed 's/^./lost+found: &/')"
	done
done
[ "$fail" -eq 0 ] && echo "$n passed, 0 failed" || echo "$((n - fail)) passed, $fail failed"
[ "$fail" -eq 0 ]
