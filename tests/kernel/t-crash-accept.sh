#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-crash-accept.sh - the torture harness's judge of what a crash may leave
# (crashaccept.sh), on made-up crash logs: no guest.  It must accept what
# the kernel may leave after an fsync or fdatasync of a name re-pointed since
# the last sync (torture seed 9014: the rename is not durable, the file's
# data is), and name the file when data a completed fsync made durable is
# lost, under the old name or the new.
#
# Exit status follows automake conventions: 0 pass, 1 fail.
here=$(cd "$(dirname "$0")" && pwd)
. "$here/crashaccept.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-crash-accept.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0

# tree lines for "path=hash" (regular files of 4 bytes, in the root)
tree() {
	echo "S .|41ed|2|0|0|-|2026-12-07 00:00:00|0|0"
	for f in "$@"; do echo "S ./${f%=*}|81a4|1|0|0|4|2026-12-07 00:00:00|0|0"; done
	for f in "$@"; do echo "H ${f#*=}  ./${f%=*}"; done
}
# inode lines for "path=ino"
inos() { for f in "$@"; do echo "I ${f#*=} ./${f%=*}"; done; }
# a crash log record: $1 sync point, then tree and inode lines on stdin
rec() { sed "s/^/P$1 /"; }
# a tree seen after the crash: $1 name; tree and inode lines on stdin
seen() { cat >"$tmp/$1.all"; grep -v '^I ' "$tmp/$1.all" >"$tmp/$1"; sed -n 's/^I //p' "$tmp/$1.all" >"$tmp/$1.ino"; }

# expect CASE LOG TREE accept|lost|reject [candidate]
expect() {
	got=$(crash_accept "$tmp/$3" "$tmp/$2" "$tmp/model" "$tmp/$3.ino" "$tmp/d")
	rc=$?
	if [ $rc = 0 ]; then r=accept; elif [ -f "$tmp/d/lost" ]; then r=lost; else r=reject; fi
	if [ "$r" = "$4" ] && { [ -z "${5:-}" ] || [ "$got" = "$5" ]; }; then
		echo "ok: $1: $r${got:+ (candidate $got)}"
	else
		echo "FAIL: $1: expected $4${5:+ (candidate $5)}, got $r${got:+ (candidate $got)}$([ -f "$tmp/d/lost" ] && echo ": $(cat "$tmp/d/lost")")"
		fail=1
	fi
}

a0=aaaa0000 b0=bbbb0000 b1=bbbb1111 c0=cccc0000
# f held A (inode 12), q held B (inode 13); sync 1 completed; then
# mv -f q f, B overwritten in place, fdatasync f completed (point 2)
{
	{ tree f=$a0 q=$b0; inos f=12 q=13; } | rec 1
	echo "D1 sync"
	{ tree f=$b1; inos f=13; } | rec 2
	echo "D2 file /mnt/f"
} >"$tmp/repoint"

# the rename did not reach the disk, B's data did (rolled forward)
{ tree f=$a0 q=$b1; inos f=12 q=13; } | seen t1
expect "re-pointed name holds its old file, the fdatasynced file its new data under its old name" repoint t1 accept 1
# both reached the disk
{ tree f=$b1; inos f=13; } | seen t2
expect "the rename and the data durable" repoint t2 accept 2
# the rename reached the disk, the data did not
{ tree f=$b0; inos f=13; } | seen t3
expect "rename durable, fdatasynced data lost" repoint t3 lost
# neither: B under its old name with the data of before the fdatasync
{ tree f=$a0 q=$b0; inos f=12 q=13; } | seen t4
expect "rename not durable, fdatasynced data lost under the old name" repoint t4 lost
# B gone, though it had a name at the sync and still had one after
{ tree f=$a0; inos f=12; } | seen t5
expect "the fdatasynced file gone" repoint t5 lost
# f holding data it never held
{ tree f=$c0 q=$b1; inos f=12 q=13; } | seen t6
expect "a name holding contents no state had" repoint t6 reject

# the same without the re-pointing: f fdatasynced in place
{
	{ tree f=$a0 q=$b0; inos f=12 q=13; } | rec 1
	echo "D1 sync"
	{ tree f=$b1 q=$b0; inos f=12 q=13; } | rec 2
	echo "D2 file /mnt/f"
} >"$tmp/inplace"
{ tree f=$b1 q=$b0; inos f=12 q=13; } | seen t7
expect "fdatasync in place, data durable" inplace t7 accept
{ tree f=$a0 q=$b0; inos f=12 q=13; } | seen t8
expect "fdatasync in place, data lost" inplace t8 lost

# no sync completed: the model is the first candidate, inode numbers from
# the log's I0 lines; q made after it and fsynced (point 1), then removed
tree f=$a0 >"$tmp/model"
{
	echo "I0 12 ./f"
	{ tree f=$a0 q=$b0; inos f=12 q=13; } | rec 1
	echo "D1 file /mnt/q"
	{ tree f=$a0; inos f=12; } | rec 2
} >"$tmp/nosync"
{ tree f=$a0; inos f=12; } | seen t9
expect "a file with no name at the last sync may be missing" nosync t9 accept 0
{ tree f=$a0 q=$c0; inos f=12 q=13; } | seen t10
expect "a file fsynced with no name at the last sync keeps its data if present" nosync t10 lost

[ $fail = 0 ] && echo "PASS: $0"
[ $fail = 0 ]
