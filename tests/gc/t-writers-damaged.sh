#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-writers-damaged.sh - every offline writer refuses a volume the library's
# quick check (nlfs_fs_vet) calls damaged, before its first write, with one
# line that names the device and what is wrong and says to run fsck.nilfs2;
# not a byte of the volume changes.  --write-damaged writes anyway, as
# before.  The base is the volume the kernel wrote (tests/fsck/images),
# where each writer first succeeds untouched by the check; each damage is
# one of tests/fsck/corrupt's cases that leave a count disagreeing with
# what it counts.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip.
set -u
top=$(cd "${top_builddir:-.}" && pwd)
images=$(cd "${top_srcdir:-.}" && pwd)/tests/fsck/images
corrupt=$top/tests/fsck/corrupt
command -v xz >/dev/null || { echo "SKIP: xz is not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-writers-damaged.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
export LC_ALL=C
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok: $1"; }
bad() { fail=$((fail + 1)); echo "FAIL: $1"; [ -f out ] && sed 's/^/  | /' out; }

xz -dc "$images/kernel-1k.img.xz" >base.img || { echo "FAIL: xz"; exit 1; }
size=$(stat -c %s base.img)

# each writer as a command on IMG; OPT is where --write-damaged goes
writers='mkcp-s|mkcp -s OPT IMG
chcp|chcp ss OPT IMG 2
rmcp|rmcp OPT IMG 5
clean|nilfs-clean --offline -p 0 OPT IMG
cleanerd|nilfs_cleanerd --offline -c conf OPT IMG
resize|nilfs-resize -y OPT IMG SHRINK'
printf 'protection_period 0\nmax_clean_segments 100%%\n' >conf

run() {   # run NAME IMG OPT
	cmd=$(printf '%s\n' "$writers" | sed -n "s/^$1|//p" |
	      sed "s|OPT|$3|; s|IMG|$2|; s|SHRINK|$((size - 2 * 1048576))|")
	# shellcheck disable=SC2086
	(cd "$tmp" && "$top"/$cmd) >out 2>&1
}

names=$(printf '%s\n' "$writers" | cut -d'|' -f1)
# the intact volume: the check lets every writer through
for w in $names; do
	cp --sparse=always base.img w.img
	if run "$w" w.img ""; then ok "$w writes to the intact volume"
	else bad "$w refused the intact volume (exit $?)"; fi
	"$top/fsck.nilfs2" -fn w.img >out 2>&1 && ok "$w: fsck -fn clean after it" ||
		bad "$w: fsck -fn after it"
done

for case in su_nclean su_ndirty cp_ncheckpoints cp_nsnapshots dat_desc; do
	cp --sparse=always base.img d.img && "$corrupt" "$case" d.img >/dev/null 2>&1 ||
		{ bad "corrupt $case"; continue; }
	"$top/fsck.nilfs2" -n d.img >/dev/null 2>&1
	[ $? -ge 4 ] || bad "$case: fsck -n does not call it damaged"
	for w in $names; do
		cp --sparse=always d.img w.img
		run "$w" w.img ""
		rc=$?
		if [ $rc = 1 ] && grep -q "w.img: .*run fsck.nilfs2" out; then
			ok "$case: $w refuses ($(grep -c . out) line(s))"
		else
			bad "$case: $w exits $rc without naming the damage"
		fi
		cmp -s d.img w.img && ok "$case: $w changed nothing" || bad "$case: $w wrote to it"
		cp --sparse=always d.img w.img
		run "$w" w.img --write-damaged && ok "$case: $w --write-damaged writes" ||
			bad "$case: $w --write-damaged exits $?"
	done
done
# misuse: only the offline passes write
"$top/nilfs-clean" --write-damaged base.img >out 2>&1
[ $? = 1 ] && grep -q 'goes with --offline' out && ok "nilfs-clean --write-damaged alone is a usage error" ||
	bad "nilfs-clean --write-damaged without --offline"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
