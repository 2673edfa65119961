#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-fsck-random.sh - what "fsck.nilfs2 -y" repaired after a random fault,
# the real kernel must mount and read as the host did.
#
# tests/fsck/t-fsck-random.sh draws SEEDS (default 30) random faults on
# each of its bases (its own checks on the host included) and keeps every
# volume -y changed and called repaired, with the files and symlinks
# dump.nilfs2 read back from it.  Each such volume is mounted in a qemu
# guest (guest.sh), PER_GUEST (default 20) to a guest: every file's
# sha256 and every symlink's target, /lost+found left out, must be what the
# host read; a file is written and the volume unmounted; back on the host,
# "fsck.nilfs2 -fn" must still call it clean.  A failing draw is told with
# its reproducer (tests/fsck/corrupt --random SEED on that base).
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip
# (99 if CI=true and the kernel test dependencies are missing).
here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=$(cd "${top_builddir:-$here/../..}" && pwd)
fsck=$top/fsck.nilfs2
srcdir=$(cd "$here/../.." && pwd)
SEEDS=${SEEDS:-30}
FIRST=${FIRST:-1}
PER_GUEST=${PER_GUEST:-20}
NILFS_KTEST_TIMEOUT=${NILFS_KTEST_TIMEOUT:-900}
export NILFS_KTEST_TIMEOUT

"$guest" require || exit
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-fsck-random.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/kept"

fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

SEEDS=$SEEDS FIRST=$FIRST KEEP_REPAIRED=$tmp/kept KEEP=$tmp top_builddir=$top \
	sh "$srcdir/tests/fsck/t-fsck-random.sh" >"$tmp/host.out" 2>&1 ||
	{ bad "the host's checks of the draws:"; grep -A 3 '^FAIL' "$tmp/host.out" | head -n 40; }
tail -n 1 "$tmp/host.out"
ls "$tmp/kept" | sed -n 's/\.img$//p' | sort -n >"$tmp/names"
n=$(wc -l <"$tmp/names")
[ "$n" -ge 5 ] || bad "only $n repaired volumes to mount (expected at least 5)"

cat >"$tmp/guest-body" <<'GUEST'
export TZ=UTC
while read -r dev name; do
	if ! mount -t nilfs2 "$dev" /mnt 2>/tmp/err; then
		echo "MOUNT-FAILED $dev $(cat /tmp/err)"
		continue
	fi
	bad=0
	manifest /mnt 2>/tmp/err | grep -v '^S ' | grep -v ' \./lost+found' | sort >/tmp/got
	[ -s /tmp/err ] && { sed "s|^|READ-FAILED $dev |" /tmp/err | head -n 5; bad=1; }
	sed -n "/^BEGIN $name\$/,/^END $name\$/p" /tmp/want | sed '1d;$d' >/tmp/w
	if ! diff /tmp/w /tmp/got >/tmp/diff; then
		grep '^[-+][HL] ' /tmp/diff | head -n 8 | sed "s|^|CHANGED $dev |"
		bad=1
	fi
	echo "written after repair" >/mnt/after-repair || bad=1
	sync
	umount /mnt || bad=1
	[ $bad -eq 0 ] && echo "OK $dev $(grep -c '^H ' /tmp/w) files"
done </tmp/table
exit 0
GUEST

letter() { printf "\\$(printf %o $((97 + $1)))"; }
set -- $(cat "$tmp/names")
while [ $# -gt 0 ]; do
	batch= imgs= k=0
	: >"$tmp/btable"
	: >"$tmp/bwant"
	while [ $# -gt 0 ] && [ $k -lt "$PER_GUEST" ]; do
		batch="$batch $1"
		imgs="$imgs $tmp/kept/$1.img"
		echo "/dev/vd$(letter $k) $1" >>"$tmp/btable"
		{ echo "BEGIN $1"; cat "$tmp/kept/$1.files"; echo "END $1"; } >>"$tmp/bwant"
		shift
		k=$((k + 1))
	done
	{
		cat "$here/manifest.sh"
		echo "cat >/tmp/want <<'EOF_WANT'"
		cat "$tmp/bwant"
		echo "EOF_WANT"
		echo "cat >/tmp/table <<'EOF_TABLE'"
		cat "$tmp/btable"
		echo "EOF_TABLE"
		cat "$tmp/guest-body"
	} >"$tmp/script"
	# shellcheck disable=SC2086
	"$guest" run "$tmp/script" $imgs >"$tmp/out" 2>&1
	grk=$?
	if [ $grk -ne 0 ]; then
		bad "the guest exited $grk with:$batch"
		tail -n 40 "$tmp/out"
		continue
	fi
	j=0
	for name in $batch; do
		dev=/dev/vd$(letter $j)
		j=$((j + 1))
		if ! grep -q "^OK $dev " "$tmp/out"; then
			bad "$name ($(cat "$tmp/kept/$name.draw")): the kernel does not read the repaired volume as the host did:"
			grep " $dev " "$tmp/out" | head -n 10
			continue
		fi
		if ! "$fsck" -n -f "$tmp/kept/$name.img" >"$tmp/after" 2>&1; then
			bad "$name ($(cat "$tmp/kept/$name.draw")): not clean after the kernel wrote to the repaired volume:"
			grep -v '^Pass ' "$tmp/after" | head -n 20
			continue
		fi
		echo "ok: $name: mounted, $(grep "^OK $dev " "$tmp/out" | cut -d' ' -f3-) as the host read them, written"
	done
done
[ "$fail" -eq 0 ] && echo "$n repaired volumes passed" || echo "$fail failed"
[ "$fail" -eq 0 ]
