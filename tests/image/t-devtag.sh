#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-devtag.sh - UUID= and LABEL= name a device wherever a command takes one
# (common/devtag.c, libblkid's tag evaluation): lscp, lssu, mkcp, chcp,
# rmcp, dump.nilfs2, fsck.nilfs2, nilfs-tune, nilfs-resize, nilfs-clean and
# nilfs_cleanerd --offline, nilfs-undo.  A tag no device carries is an error
# that says so; a file whose name looks like a tag is named as ./NAME.
# libblkid finds tags on block devices only: needs root and a free loop
# device (skipped otherwise).
set -u
top="${top_builddir:-.}"
top=$(cd "$top" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-devtag.XXXXXX") || exit 1
loop=
cleanup() {
	[ -n "$loop" ] && losetup -d "$loop"
	rm -rf "$tmp"
}
trap cleanup EXIT
PATH=$PATH:/sbin:/usr/sbin
export TZ=UTC LC_ALL=C
[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root for a loop device"; exit 77; }
command -v losetup >/dev/null || { echo "SKIP: losetup not found"; exit 77; }
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# a label and UUID no other volume on the machine has
label=tag$$
uuid=$(cat /proc/sys/kernel/random/uuid)
truncate -s 256M "$tmp/img"
"$top/mkfs.nilfs2" -q -f -L "$label" -U "$uuid" "$tmp/img" || { echo "FAIL: mkfs"; exit 1; }
loop=$(losetup -f --show "$tmp/img" 2>/dev/null) || { echo "SKIP: no loop device"; exit 77; }

# ARGS with @ replaced by WHAT, one a line (no argument here has blanks)
subst() {
	what=$1
	shift
	for a in "$@"; do [ "$a" = @ ] && echo "$what" || echo "$a"; done
}

# read-only: the same output through the tag as through the device
for t in "LABEL=$label" "UUID=$uuid"; do
	for cmd in "lscp -a" "lssu -a" "dump.nilfs2 @ super" "nilfs-tune -l" "fsck.nilfs2 -fn"; do
		case $cmd in
		*@*) set -- $cmd ;;
		*) set -- $cmd @ ;;
		esac
		prog=$1
		shift
		"$top/$prog" $(subst "$loop" "$@") >"$tmp/want" 2>&1
		want=$?
		"$top/$prog" $(subst "$t" "$@") >"$tmp/got" 2>&1
		got=$?
		if [ $got != $want ] || ! cmp -s "$tmp/want" "$tmp/got"; then
			bad "$prog $* with $t: status $got, expected $want"
			diff "$tmp/want" "$tmp/got" | head -n 5
		else
			echo "ok: $prog $* with $t (status $got)"
		fi
	done
done

# offline changes through the tag reach the device
"$top/mkcp" "LABEL=$label" || bad "mkcp LABEL=: status $?"
"$top/chcp" ss "UUID=$uuid" 1 || bad "chcp ss UUID=: status $?"
[ "$("$top/lscp" -s "$loop" | awk 'NR > 1 { print $1 }')" = 1 ] || bad "chcp ss through UUID= made no snapshot"
"$top/chcp" cp "LABEL=$label" 1 || bad "chcp cp LABEL=: status $?"
"$top/rmcp" "LABEL=$label" 1 || bad "rmcp LABEL=: status $?"
"$top/lscp" -a "$loop" | awk 'NR > 1 { print $1 }' | grep -qx 1 && bad "rmcp through LABEL= left checkpoint 1"
"$top/nilfs-clean" --offline "LABEL=$label" >"$tmp/out" 2>&1 || bad "nilfs-clean --offline LABEL=: $(cat "$tmp/out")"
grep -q "^$loop: clean segments" "$tmp/out" || bad "nilfs-clean --offline LABEL= did not clean $loop: $(cat "$tmp/out")"
"$top/nilfs_cleanerd" --offline -c /dev/null "UUID=$uuid" >"$tmp/out" 2>&1 ||
	bad "nilfs_cleanerd --offline UUID=: $(cat "$tmp/out")"
grep -q "^$loop: clean segments" "$tmp/out" || bad "nilfs_cleanerd --offline UUID= did not clean $loop: $(cat "$tmp/out")"
"$top/nilfs-resize" -y "LABEL=$label" 200M >"$tmp/out" 2>&1 || bad "nilfs-resize LABEL=: $(cat "$tmp/out")"
"$top/nilfs-tune" -l "$loop" | grep -q "^Device size:[[:space:]]*209715200$" ||
	bad "nilfs-resize through LABEL= did not shrink $loop: $("$top/nilfs-tune" -l "$loop" | grep "^Device size")"
"$top/nilfs-tune" -L "re$label" "LABEL=$label" >/dev/null 2>&1 || bad "nilfs-tune -L LABEL=: status $?"
"$top/lscp" "LABEL=re$label" >/dev/null || bad "lscp with the new label: status $?"
# nilfs-undo opens the device before the undo file: the error is the file's
"$top/nilfs-undo" -n "$tmp/none.undo" "UUID=$uuid" >"$tmp/out" 2>&1
grep -q "none.undo" "$tmp/out" || bad "nilfs-undo UUID=: $(cat "$tmp/out")"
"$top/fsck.nilfs2" -fn "UUID=$uuid" >/dev/null 2>&1 || bad "fsck after the changes: status $?"

# a tag no device carries
nolabel=none$$
nouuid=00000000-0000-0000-0000-00000000$$
nouuid=$(echo "$nouuid" | cut -c1-36)
expect() { # STATUS MESSAGE CMD...
	want_rc=$1 want_msg=$2
	shift 2
	"$@" >/dev/null 2>"$tmp/err"
	rc=$?
	msg=$(head -n 1 "$tmp/err")
	if [ $rc != "$want_rc" ] || [ "$msg" != "$want_msg" ]; then
		bad "$*: status $rc, '$msg' (expected $want_rc, '$want_msg')"
	else
		echo "ok: $* -> $rc, $msg"
	fi
}
for p in lscp lssu mkcp; do
	expect 1 "$p: cannot open NILFS on LABEL=$nolabel: no device has this label" "$top/$p" "LABEL=$nolabel"
done
expect 1 "chcp: cannot open NILFS on UUID=$nouuid: no device has this UUID" "$top/chcp" ss "UUID=$nouuid" 1
expect 1 "rmcp: cannot open NILFS on LABEL=$nolabel: no device has this label" "$top/rmcp" "LABEL=$nolabel" 1
expect 1 "dump.nilfs2: LABEL=$nolabel: no device has this label" "$top/dump.nilfs2" "LABEL=$nolabel" super
expect 8 "fsck.nilfs2: UUID=$nouuid: no device has this UUID" "$top/fsck.nilfs2" -n "UUID=$nouuid"
expect 1 "nilfs-tune: LABEL=$nolabel: no device has this label" "$top/nilfs-tune" -l "LABEL=$nolabel"
expect 1 "nilfs-resize: LABEL=$nolabel: no device has this label" "$top/nilfs-resize" -y "LABEL=$nolabel" 100M
expect 1 "nilfs-clean: LABEL=$nolabel: no device has this label" "$top/nilfs-clean" --offline "LABEL=$nolabel"
expect 1 "nilfs_cleanerd: LABEL=$nolabel: no device has this label" "$top/nilfs_cleanerd" --offline "LABEL=$nolabel"
expect 1 "nilfs-undo: PARTLABEL=$nolabel: no partition has this label" "$top/nilfs-undo" -n "$tmp/u" "PARTLABEL=$nolabel"

# a file named like a tag is a path when named ./NAME
cp --sparse=always "$tmp/img" "$tmp/LABEL=$label"
(cd "$tmp" && "$top/lscp" "./LABEL=$label") >/dev/null || bad "lscp ./LABEL=...: a file, status $?"
exit $fail
