#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-progress.sh - the long operations draw a progress bar on a terminal and
# nothing elsewhere: fsck.nilfs2 -C 0 (e2fsck's bar on standard output),
# mkfs.nilfs2 -d, dump.nilfs2 extract, nilfs-clean --offline and an offline
# nilfs-resize shrink (on standard error).  util-linux's script(1) gives
# each a terminal; run again into files, their output has no bar and no
# carriage return, and fsck -C 0 prints what fsck without -C prints.
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip.

here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$here/../..}
gc_here=$here/../gc
. "$gc_here/volume.sh"
gc_test_init t-progress mkfs.nilfs2 fsck.nilfs2 dump.nilfs2 nilfs-clean nilfs-resize
script -qec true /dev/null </dev/null >/dev/null 2>&1 ||
	{ echo "SKIP: no util-linux script(1) to run a command on a terminal"; exit 77; }
pass=0 nfail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { nfail=$((nfail + 1)); echo "FAIL: $*"; }

cr=$(printf '\r')
# on_tty OUT CMD...: CMD on a terminal, what the terminal showed in OUT
on_tty() {
	_out=$1
	shift
	_cmd=
	for _a in "$@"; do
		_cmd="$_cmd '$(printf '%s' "$_a" | sed "s/'/'\\\\''/g")'"
	done
	script -qec "$_cmd" /dev/null </dev/null >"$_out" 2>&1
}
# has_bar FILE LABEL: a frame of the bar ("LABEL: |=== ... | 12.5%")
has_bar() { grep -q "$cr$2: |[=|/\\ -]*| *[0-9]*\.[0-9]%" "$1"; }
# no_bar FILE...: no carriage return, no bar
no_bar() { ! grep -q "$cr\|: |.*[0-9]\.[0-9]%" "$@"; }

# a tree of a few MiB for mkfs -d and extract
mkdir "$tmp/tree"
for i in 1 2 3 4; do head -c $((3 * 1024 * 1024)) /dev/urandom >"$tmp/tree/f$i"; done
truncate -s 256M "$tmp/big.img"

# mkfs.nilfs2 -d
if on_tty "$tmp/tty" "$top/mkfs.nilfs2" -f -d "$tmp/tree" "$tmp/big.img" &&
	has_bar "$tmp/tty" copying; then ok "mkfs -d: bar on a terminal"
else bad "mkfs -d drew no bar on a terminal:"; cat -A "$tmp/tty" | head -n 10; fi
on_tty "$tmp/tty" "$top/mkfs.nilfs2" -q -f -d "$tmp/tree" "$tmp/big.img" ||
	bad "mkfs -q -d on a terminal failed"
no_bar "$tmp/tty" && ok "mkfs -q -d: no bar" || bad "mkfs -q -d drew a bar"
if "$top/mkfs.nilfs2" -f -d "$tmp/tree" "$tmp/big.img" >"$tmp/out" 2>"$tmp/err" &&
	no_bar "$tmp/out" "$tmp/err"; then ok "mkfs -d into files: no bar"
else bad "mkfs -d into files:"; cat -A "$tmp/out" "$tmp/err" | head -n 10; fi

# dump.nilfs2 extract
if on_tty "$tmp/tty" "$top/dump.nilfs2" "$tmp/big.img" extract / "$tmp/x1" &&
	has_bar "$tmp/tty" extracting && cmp -s "$tmp/tree/f4" "$tmp/x1/f4"
then ok "extract: bar on a terminal"
else bad "extract on a terminal:"; cat -A "$tmp/tty" | head -n 10; fi
if "$top/dump.nilfs2" "$tmp/big.img" extract / "$tmp/x2" >"$tmp/out" 2>"$tmp/err" &&
	[ ! -s "$tmp/out" ] && [ ! -s "$tmp/err" ]; then ok "extract into files: quiet"
else bad "extract into files printed:"; cat -A "$tmp/out" "$tmp/err" | head -n 10; fi

# fsck.nilfs2 -C 0: the bar on a terminal, labelled with the device
if on_tty "$tmp/tty" "$top/fsck.nilfs2" -fn -C 0 "$tmp/big.img" &&
	has_bar "$tmp/tty" "$tmp/big.img" && grep -q 'Pass 6' "$tmp/tty"
then ok "fsck -C 0: bar on a terminal"
else bad "fsck -C 0 on a terminal:"; cat -A "$tmp/tty" | head -n 20; fi
"$top/fsck.nilfs2" -fn "$tmp/big.img" >"$tmp/plain" 2>&1
"$top/fsck.nilfs2" -fn -C 0 "$tmp/big.img" >"$tmp/out" 2>&1
if cmp -s "$tmp/plain" "$tmp/out"; then ok "fsck -C 0 into a file: as without -C"
else bad "fsck -C 0 into a file differs from fsck:"; diff "$tmp/plain" "$tmp/out" | cat -A | head; fi
# the machine lines for other descriptors stay
"$top/fsck.nilfs2" -fn -C 3 "$tmp/big.img" >/dev/null 3>"$tmp/lines"
if grep -q "^6 [0-9]* [0-9]* $tmp/big.img\$" "$tmp/lines" && no_bar "$tmp/lines"
then ok "fsck -C 3: progress lines"
else bad "fsck -C 3:"; head -n 5 "$tmp/lines"; fi

# the offline cleaner and an offline shrink, on a volume with garbage
gc_volume "$tmp/vol.img" "$tmp/src"
cp "$tmp/vol.img" "$tmp/c.img"
if on_tty "$tmp/tty" "$top/nilfs-clean" --offline -p 0 "$tmp/c.img" &&
	has_bar "$tmp/tty" "$tmp/c.img" && grep -q ' [1-9][0-9]* segments cleaned' "$tmp/tty"
then ok "nilfs-clean --offline: bar on a terminal"
else bad "nilfs-clean --offline on a terminal:"; cat -A "$tmp/tty" | head -n 10; fi
cp "$tmp/vol.img" "$tmp/c.img"
if "$top/nilfs-clean" --offline -p 0 "$tmp/c.img" >"$tmp/out" 2>"$tmp/err" &&
	no_bar "$tmp/out" "$tmp/err"; then ok "nilfs-clean --offline into files: no bar"
else bad "nilfs-clean --offline into files:"; cat -A "$tmp/out" "$tmp/err" | head; fi

# the smallest size the volume shrinks to, moving its segments
min=$("$top/nilfs-resize" -y "$tmp/vol.img" 1M 2>&1 | sed -n 's/.*shrunk to now is \([0-9]*\) bytes.*/\1/p')
if [ -z "$min" ]; then
	bad "nilfs-resize named no smallest size"
else
	cp "$tmp/vol.img" "$tmp/r.img"
	if on_tty "$tmp/tty" "$top/nilfs-resize" -y "$tmp/r.img" "$min" &&
		has_bar "$tmp/tty" progress; then ok "nilfs-resize shrink: bar on a terminal"
	else bad "nilfs-resize shrink on a terminal:"; cat -A "$tmp/tty" | head -n 10; fi
	cp "$tmp/vol.img" "$tmp/r.img"
	if "$top/nilfs-resize" -y "$tmp/r.img" "$min" >"$tmp/out" 2>"$tmp/err" &&
		no_bar "$tmp/out" "$tmp/err"; then ok "nilfs-resize shrink into files: no bar"
	else bad "nilfs-resize shrink into files:"; cat -A "$tmp/out" "$tmp/err" | head; fi
fi

echo "$pass passed, $nfail failed"
[ "$nfail" -eq 0 ]
