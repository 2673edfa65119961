#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every error message the suite prints for the objects a new user gives it
# by mistake: a path that does not exist, a directory, a zero-filled file,
# a truncated image, another file system (ext4) and, as root, a busy
# device (a loop device another program holds exclusively).  Each program
# says it in one line on standard error that starts with its name and names
# the object once; the lines are compared with messages.golden (paths and
# the host's mounts replaced by names).  REGEN=1 rewrites the golden file.
set -u
top=${top_builddir:-.}
top=$(cd "$top" && pwd)
src=$(cd "${top_srcdir:-.}" && pwd)
golden=$src/tests/image/messages.golden
PATH=$PATH:/sbin:/usr/sbin
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-messages.XXXXXX") || exit 1
loop= holder=
cleanup() {
	[ -n "$holder" ] && kill "$holder" 2>/dev/null && wait "$holder" 2>/dev/null
	[ -n "$loop" ] && losetup -d "$loop"
	rm -rf "$tmp"
}
trap cleanup EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

T=$tmp/o
mkdir -p "$T/adir" "$T/fusemnt"
truncate -s 64M "$T/zero.img"
truncate -s 256M "$T/good.img"
"$top/mkfs.nilfs2" -q -f "$T/good.img" || { echo "FAIL: mkfs"; exit 1; }
head -c 1M "$T/good.img" >"$T/trunc.img"
objects="none adir zero.img trunc.img"
if command -v mkfs.ext4 >/dev/null && truncate -s 64M "$T/ext4.img" &&
	mkfs.ext4 -q -F "$T/ext4.img" >/dev/null 2>&1; then
	objects="$objects ext4.img"
else
	echo "SKIP part: mkfs.ext4 (wrong file system)"
fi
# busy: a loop device over a good volume that another process holds with
# O_EXCL, as a mount or an md array would
if [ "$(id -u)" -eq 0 ] && command -v perl >/dev/null &&
	loop=$(losetup -f --show "$T/good.img" 2>/dev/null); then
	perl -MFcntl -e 'sysopen(my $f, $ARGV[0], O_RDONLY | O_EXCL) or die "$!\n"; sleep 600' \
		"$loop" &
	holder=$!
	sleep 1
	ln -s "$loop" "$T/busy"
	objects="$objects busy"
else
	echo "SKIP part: a busy device (needs root, perl and a loop device)"
fi

# the commands, "@" the object, after a kind: r reads (a busy device is
# read as any other), w writes (a busy device is refused), c checks (a
# truncated volume gets fsck's report of its problems, not one line), m
# makes a volume (given only what it cannot make one on)
cat >"$tmp/cmds" <<'CMDS'
r dump.nilfs2 @ super
c fsck.nilfs2 -n @
c fsck.nilfs2 -fy @
r nilfs-tune -l @
w nilfs-tune -L x @
r nilfs-resize -y @ 64M
r lscp @
r lssu @
w mkcp @
w chcp ss @ 1
w rmcp @ 1
w nilfs-clean --offline -p 0 @
w nilfs_cleanerd --offline @
r nilfs-diff @ 1
r nilfs-history @ /f
r nilfs-fuse @ FUSEMNT
r nilfs-undo @ GOOD
m mkfs.nilfs2 -q -f @
CMDS

for obj in $objects; do
	while read -r kind prog args; do
		[ -x "$top/$prog" ] || continue
		case $obj:$kind in
		busy:[rc] | trunc.img:c | zero.img:m | trunc.img:m | ext4.img:m) continue ;;
		esac
		path=$T/$obj
		[ "$obj" = busy ] && path=$loop
		set -- $(echo "$args" | sed "s|@|$path|; s|FUSEMNT|$T/fusemnt|; s|GOOD|$T/good.img|")
		"$top/$prog" "$@" </dev/null >/dev/null 2>"$tmp/err"
		rc=$?
		what="$prog $*"
		[ $rc -ne 0 ] || bad "$what: succeeded"
		[ "$(wc -l <"$tmp/err")" -eq 1 ] || { bad "$what: not one line:"; cat "$tmp/err"; }
		grep -q "^$prog: " "$tmp/err" || bad "$what: the line does not start with '$prog: '"
		[ "$(grep -o "$path" "$tmp/err" | wc -l)" -eq 1 ] ||
			bad "$what: the object not named once: $(cat "$tmp/err")"
		printf '%s %s [%d] ' "$obj" "$prog $args" $rc
		head -1 "$tmp/err"
	done <"$tmp/cmds"
done | sed -e "s|$T/||g" -e "s|$loop|LOOP|g" \
	-e 's|a directory in the [^ ]* file system mounted on .* (.*), not NILFS2|a directory in the FSTYPE file system mounted on MOUNTPOINT (SOURCE), not NILFS2|' \
	>"$tmp/got"
if [ "${REGEN:-0}" = 1 ]; then
	cp "$tmp/got" "$golden"
	exit $fail
fi
# the rows this machine could make
want=$tmp/want
cut -d' ' -f1-2 "$tmp/got" | sort -u >"$tmp/made"
awk 'NR == FNR { made[$1 " " $2] = 1; next } ($1 " " $2) in made' "$tmp/made" "$golden" >"$want"
diff -u "$want" "$tmp/got" || bad "the messages differ from $golden"
exit $fail
