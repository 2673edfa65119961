#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-fsck-cli.sh - fsck.nilfs2's interface: options, fsck(8) exit codes,
# preen and yes repairs, the undo file (-z) and nilfs-undo, --json, -C
# progress lines.
set -u
top_builddir=${top_builddir:-.}
fsck_tests=$(cd "$(dirname "$0")" && pwd)
fsck=$(cd "$top_builddir" && pwd)/fsck.nilfs2
corrupt=$(cd "$top_builddir" && pwd)/tests/fsck/corrupt
undo=$(cd "$top_builddir" && pwd)/nilfs-undo
MKFS=$(PATH=/usr/sbin:/sbin:$PATH command -v mkfs.nilfs2 || true)
[ -n "$MKFS" ] || { echo "SKIP: nilfs-tools' mkfs.nilfs2 is not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-fsck-cli.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
pass=0 fail=0

. "$fsck_tests/expect.sh"

truncate -s 256M good.img && "$MKFS" -q -f good.img >/dev/null || exit 1
cp --sparse=always good.img bad.img && "$corrupt" dat_desc bad.img || exit 1
: >empty.img && truncate -s 64M empty.img

expect 0 '^Usage:' "--help" -- "$fsck" --help
expect 0 'fsck.nilfs2 from nilfsprogs' "--version" -- "$fsck" -V
expect 16 "Try 'fsck.nilfs2 --help'" "unknown option" -- "$fsck" --bogus good.img
expect 16 'only one of' "-n with -y" -- "$fsck" -n -y good.img
expect 16 'only one of' "-p with -n" -- "$fsck" -p -n good.img
expect 16 'no device' "no device" -- "$fsck" -n
expect 16 'more than one' "two devices" -- "$fsck" -n good.img bad.img
expect 16 'latest, snapshots or all' "bad --checkpoints" -- "$fsck" -n --checkpoints=some good.img
expect 16 'invalid progress' "bad -C" -- "$fsck" -n -C x good.img
expect 8 'no-such.img: No such file or directory' "missing device" -- "$fsck" -n no-such.img
expect 8 'no NILFS2 superblock' "not a NILFS2 volume" -- "$fsck" -n empty.img
expect 0 'clean$' "-n on a good volume" -- "$fsck" -n good.img
expect 0 'clean$' "-y on a good volume" -- "$fsck" -y good.img
expect 0 '^good.img: clean, 2 inodes, 1 checkpoints$' "-p on a good volume" -- "$fsck" -p good.img
expect 0 'clean$' "-f -v on a good volume" -- "$fsck" -n -f -v good.img
# --stats: each pass's time and reads, and the total with the read-ahead's
expect 0 'pass 3: [0-9.]* s, [1-9][0-9]* reads, [1-9][0-9]* system calls for' "--stats, a pass" -- "$fsck" -n --stats good.img
expect 0 'total: .* read-ahead: [0-9]* requests .* max RSS [0-9.]* MiB$' "--stats, the total" -- "$fsck" -n --stats good.img
expect 4 'nothing changed (-n)' "-n on a damaged volume" -- "$fsck" -n bad.img
# mkfs writes one log, at the log cursor: its data checksum is verified either way
expect 0 '"logs":1,.*"logs_data_checksum_verified":1,' "--json: data checksums verified" -- "$fsck" -n --json good.img
expect 0 '"logs_data_checksum_verified":1,' "--check-data --json" -- "$fsck" -n --check-data --json good.img
# a volume the kernel wrote: its cursor's segment holds twelve logs of older
# checkpoints before the cursor, which the kernel's mount never reads; by
# default only the cursor's log is verified, with --check-data all 80
xz -dc "$fsck_tests/images/kernel-rich.img.xz" >rich.img || exit 1
expect 0 '"logs":80,.*"logs_data_checksum_verified":1,' "--json: the cursor's checkpoint alone" -- "$fsck" -n --json rich.img
expect 0 '"logs_data_checksum_verified":80,' "--check-data --json, a kernel's volume" -- "$fsck" -n --check-data --json rich.img
# repairs: -y fixes, -p fixes what is safe, and refuses the rest untouched
cp --sparse=always bad.img y.img
expect 1 'repaired$' "-y on a damaged volume" -- "$fsck" -y y.img
expect 0 'clean$' "-n after -y" -- "$fsck" -n y.img
cp --sparse=always bad.img p.img
expect 1 '^p.img: DAT: group 0' "-p lines start with the device" -- "$fsck" -p p.img
if grep -q '^Pass ' out; then fail=$((fail + 1)); echo "FAIL: -p prints pass headers"; fi
grep -q '^p.img: repaired, 2 inodes, 2 checkpoints$' out ||
	{ fail=$((fail + 1)); echo "FAIL: -p does not say it repaired"; cat out; }
expect 0 'clean$' "-n after -p" -- "$fsck" -n p.img
cp --sparse=always good.img links.img && "$corrupt" ino_unattached links.img || exit 1
cp --sparse=always links.img links.orig
expect 4 '^links.img: UNEXPECTED INCONSISTENCY; RUN fsck MANUALLY.' "-p on damage only -y repairs" -- "$fsck" -a links.img
if cmp -s links.img links.orig; then pass=$((pass + 1)); echo "ok: -p left it untouched"
else fail=$((fail + 1)); echo "FAIL: -p changed a volume it could not repair"; fi
expect 1 'repaired$' "-y on the same" -- "$fsck" -y links.img
# both on one volume: -p repairs nothing (not even the safe one), exit 4
cp --sparse=always bad.img mixed.img && "$corrupt" ino_unattached mixed.img || exit 1
cp --sparse=always mixed.img mixed.orig
expect 4 '^mixed.img: UNEXPECTED INCONSISTENCY' "-p on safe damage beside damage only -y repairs" -- "$fsck" -p mixed.img
grep -q 'DAT: group 0' out && grep -q 'is in no directory' out ||
	{ fail=$((fail + 1)); echo "FAIL: -p does not name both problems"; cat out; }
if cmp -s mixed.img mixed.orig; then pass=$((pass + 1)); echo "ok: -p left it untouched"
else fail=$((fail + 1)); echo "FAIL: -p changed a volume it could not fully repair"; fi
expect 1 'repaired$' "-y on the same" -- "$fsck" -y mixed.img
# an orphan a crash left (unlinked while open; no name refers to it) is
# released by -p unasked, as e2fsck's preen mode releases its orphans
cp --sparse=always good.img orphan.img && "$corrupt" ino_orphan orphan.img || exit 1
expect 1 '^orphan.img: repaired' "-p releases an orphan" -- "$fsck" -p orphan.img
expect 0 'clean$' "... and -fn finds it clean" -- "$fsck" -fn orphan.img
grep -q 'warning' out && { fail=$((fail + 1)); echo "FAIL: -p left the orphan"; cat out; }
# a volume cut short (superblock problems, no volume to open): -y must not
# try the repairs that need it open (it crashed); nor suggest --rollback,
# which cannot give back the segments cut off
cp --sparse=always good.img short.img && truncate -s 200M short.img
expect 4 "the check could not go on" "-y on a volume that cannot be opened" -- "$fsck" -y short.img
grep -q 'repairing' out && { fail=$((fail + 1)); echo "FAIL: -y tried to repair a volume it cannot open"; }
grep -q -- '--rollback' out && { fail=$((fail + 1)); echo "FAIL: --rollback suggested for a cut volume"; }

# -z: what the repairs overwrite is saved first; nilfs-undo puts it back
expect 16 'needs -y or -p' "-z with -n" -- "$fsck" -n -z u.undo bad.img
cp --sparse=always links.orig z.img
expect 1 'nilfs-undo u.undo z.img puts them back' "-y -z" -- "$fsck" -y -z u.undo z.img
cp --sparse=always links.orig z2.img
expect 8 'it exists; it is not overwritten' "-z refuses an existing undo file" -- "$fsck" -y -z u.undo z2.img
cmp -s z2.img links.orig && { pass=$((pass + 1)); echo "ok: ... and changes nothing"; } ||
	{ fail=$((fail + 1)); echo "FAIL: -z with an existing undo file changed the volume"; }
expect 1 'another device' "nilfs-undo refuses another device" -- "$undo" u.undo empty.img
expect 0 'would be put back' "nilfs-undo -n" -- "$undo" -n u.undo z.img
expect 0 '' "nilfs-undo" -- "$undo" u.undo z.img
if cmp -s z.img links.orig; then pass=$((pass + 1)); echo "ok: nilfs-undo restores the volume byte for byte"
else fail=$((fail + 1)); echo "FAIL: after nilfs-undo the volume differs from before the repair"; fi
expect 1 "Try 'nilfs-undo --help'" "nilfs-undo with one argument" -- "$undo" u.undo

# --json: one document on stdout, the human lines on stderr
"$fsck" -n --json bad.img >json 2>human
rc=$?
if [ $rc -eq 4 ] && grep -q '"status":"errors"' json && grep -q '"code":"PR_DAT_DESC"' json &&
	grep -q '"exit_code":4' json && ! grep -q '^Pass' json && grep -q '^Pass 1' human; then
	pass=$((pass + 1)); echo "ok: --json"
else
	fail=$((fail + 1)); echo "FAIL: --json (exit $rc):"; cat json human
fi
if command -v python3 >/dev/null && ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' json; then
	fail=$((fail + 1)); echo "FAIL: --json output does not parse"
fi

# -C FD: "pass current max device" lines; a negative FD starts silent
"$fsck" -n -C 3 good.img >/dev/null 3>progress
if [ -s progress ] && ! grep -qv '^[1-6] [0-9][0-9]* [0-9][0-9]* good.img$' progress &&
	grep -q '^6 ' progress; then
	pass=$((pass + 1)); echo "ok: -C 3 ($(wc -l <progress) lines)"
else
	fail=$((fail + 1)); echo "FAIL: -C 3:"; cat progress
fi
"$fsck" -n -C -3 good.img >/dev/null 3>progress
if [ ! -s progress ]; then
	pass=$((pass + 1)); echo "ok: -C -3 starts silent"
else
	fail=$((fail + 1)); echo "FAIL: -C -3 wrote progress"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
