#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-fsck-cases.sh - e2fsprogs-style golden tests for fsck.nilfs2.
#
# Three good images (nilfs-tools' mkfs.nilfs2; kernel-1k.img.xz that the
# real kernel wrote; kernel-rich.img.xz, the kernel's volume of many
# checkpoints, snapshots and file shapes that images/make-rich.sh made) must
# check clean, every checkpoint of them.  Then each case of tests/fsck/corrupt
# damages a copy of its base image, "fsck.nilfs2 -n" runs on it, and the
# output, normalised by filter.sed and ended with "Exit status is N", must
# equal tests/fsck/cases/NAME/expect.1 (a few cases add options, such as
# --checkpoints=snapshots for damage only a snapshot shows).  Then
# "fsck.nilfs2 -y" on the same damage must print expect.2; when it says it
# repaired everything (exit 1) a second "fsck.nilfs2 -n -f" must exit 0,
# and when it leaves errors (exit 4 set) the second check must still find
# them.  FSCK_REPAIRED_DIR=DIR keeps the repaired images there (the kernel
# test t-fsck-repair.sh mounts them).  UPDATE_EXPECT=1 rewrites the
# expected files instead (review the diff before committing).
set -u
top_builddir=${top_builddir:-.}
top_srcdir=${top_srcdir:-.}
here=$top_srcdir/tests/fsck
fsck=$(cd "$top_builddir" && pwd)/fsck.nilfs2
corrupt=$(cd "$top_builddir" && pwd)/tests/fsck/corrupt
MKFS=$(PATH=/usr/sbin:/sbin:$PATH command -v mkfs.nilfs2 || true)
if [ -z "$MKFS" ]; then
	echo "SKIP: nilfs-tools' mkfs.nilfs2 is not installed"
	exit 77
fi
command -v xz >/dev/null || { echo "SKIP: xz is not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-fsck-cases.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C TZ=UTC

truncate -s 256M "$tmp/mkfs.base" && "$MKFS" -q -f -L fsck-test "$tmp/mkfs.base" >/dev/null ||
	{ echo "FAIL: mkfs.nilfs2"; exit 1; }
xz -dc "$here/images/kernel-1k.img.xz" >"$tmp/kernel.base" || { echo "FAIL: xz"; exit 1; }
xz -dc "$here/images/kernel-rich.img.xz" >"$tmp/rich.base" || { echo "FAIL: xz"; exit 1; }

pass=0 fail=0
for base in mkfs kernel rich; do
	cp --sparse=always "$tmp/$base.base" "$tmp/test.img"
	if (cd "$tmp" && "$fsck" -n --checkpoints=all test.img >out 2>&1); then
		pass=$((pass + 1))
		echo "ok: the $base image checks clean"
	else
		fail=$((fail + 1))
		echo "FAIL: the $base image does not check clean:"
		cat "$tmp/out"
	fi
done

ncases=0
"$corrupt" --list >"$tmp/list" || { echo "FAIL: corrupt --list"; exit 1; }
# shellcheck disable=SC2034  # lost: t-fsck-repair.sh's field
while read -r name base opts lost <&3; do
	[ "$opts" = - ] && opts= || opts=$(echo "$opts" | tr , ' ')
	ncases=$((ncases + 1))
	expect=$here/cases/$name/expect.1
	cp --sparse=always "$tmp/$base.base" "$tmp/test.img"
	if ! "$corrupt" "$name" "$tmp/test.img" 2>"$tmp/err"; then
		fail=$((fail + 1))
		echo "FAIL: $name: corrupt: $(cat "$tmp/err")"
		continue
	fi
	# shellcheck disable=SC2086
	(cd "$tmp" && "$fsck" -n $opts test.img >raw 2>&1; echo "Exit status is $?" >>raw)
	sed -f "$here/filter.sed" "$tmp/raw" >"$tmp/out"
	if [ "${UPDATE_EXPECT:-0}" = 1 ]; then
		mkdir -p "$here/cases/$name"
		cp "$tmp/out" "$expect"
	fi
	if [ -f "$expect" ] && cmp -s "$expect" "$tmp/out"; then
		pass=$((pass + 1))
		echo "ok: $name"
	else
		fail=$((fail + 1))
		echo "FAIL: $name (- expected, + got)"
		[ -f "$expect" ] && diff -u "$expect" "$tmp/out" || cat "$tmp/out"
	fi
	# a damaged volume must never check clean (a good_* case is a valid
	# volume of an unusual shape, which must)
	case $name in good_*) ;; *)
	grep -q '^Exit status is 0$' "$tmp/out" && ! grep -q 'warning:' "$tmp/out" && {
		fail=$((fail + 1))
		echo "FAIL: $name: fsck found nothing"
	} ;;
	esac

	# -y on the same damage: expect.2; what it calls repaired must then
	# check clean, and what it leaves must still be reported
	expect2=$here/cases/$name/expect.2
	# shellcheck disable=SC2086
	(cd "$tmp" && "$fsck" -y $opts test.img >raw 2>&1; echo "Exit status is $?" >>raw)
	sed -f "$here/filter.sed" "$tmp/raw" >"$tmp/out"
	[ "${UPDATE_EXPECT:-0}" = 1 ] && cp "$tmp/out" "$expect2"
	if [ -f "$expect2" ] && cmp -s "$expect2" "$tmp/out"; then
		pass=$((pass + 1))
		echo "ok: $name -y"
	else
		fail=$((fail + 1))
		echo "FAIL: $name -y (- expected, + got)"
		[ -f "$expect2" ] && diff -u "$expect2" "$tmp/out" || cat "$tmp/out"
	fi
	ystatus=$(sed -n 's/^Exit status is //p' "$tmp/out")
	# shellcheck disable=SC2086
	(cd "$tmp" && "$fsck" -n -f $opts test.img >after 2>&1)
	nstatus=$?
	if [ "$ystatus" -le 1 ] && [ "$nstatus" -ne 0 ]; then
		fail=$((fail + 1))
		echo "FAIL: $name: -y exited $ystatus, but a second check exits $nstatus:"
		cat "$tmp/after"
	elif [ $((ystatus & 4)) -ne 0 ] && [ "$nstatus" -eq 0 ]; then
		fail=$((fail + 1))
		echo "FAIL: $name: -y exited $ystatus (errors left), but a second check is clean"
	fi
	if [ -n "${FSCK_REPAIRED_DIR:-}" ] && [ "$ystatus" = 1 ]; then
		cp --sparse=always "$tmp/test.img" "$FSCK_REPAIRED_DIR/$name.img"
	fi
done 3<"$tmp/list"
echo "$ncases corruption cases"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
