#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# lost-paths.sh - what "fsck.nilfs2 -y" takes away in each case it repairs,
# read on the host with dump.nilfs2 extract (no kernel): the files and
# symlinks of the base's latest tree whose contents, target or presence
# differ after -y (/lost+found left out), beside what the case declares
# (corrupt --list, 4th field).  A case whose losses its LOST field does not
# cover is marked "UNDECLARED"; t-fsck-repair.sh then fails it in the
# kernel too.  A helper for writing cases, not a test:
#   top_builddir=. tests/fsck/lost-paths.sh [CASE...]
set -u
top=$(cd "${top_builddir:-.}" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
fsck=$top/fsck.nilfs2 corrupt=$top/tests/fsck/corrupt dump=$top/dump.nilfs2
MKFS=$(PATH=/usr/sbin:/sbin:$PATH command -v mkfs.nilfs2) || { echo "no mkfs.nilfs2" >&2; exit 1; }
. "$here/../kernel/manifest.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lost-paths.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export TZ=UTC LC_ALL=C

# the files and symlinks of a tree: "H sum path" and "L path -> target"
files() { rm -rf "$tmp/x" && "$dump" "$1" extract / "$tmp/x" >/dev/null 2>&1 &&
	manifest "$tmp/x" | grep -v '^S ' | grep -v ' \./lost+found' | sort; }

truncate -s 256M "$tmp/mkfs.base" && "$MKFS" -q -f -L fsck-test "$tmp/mkfs.base" >/dev/null || exit 1
xz -dc "$here/images/kernel-1k.img.xz" >"$tmp/kernel.base" || exit 1
xz -dc "$here/images/kernel-rich.img.xz" >"$tmp/rich.base" || exit 1
for b in mkfs kernel rich; do files "$tmp/$b.base" >"$tmp/$b.files" || exit 1; done
"$corrupt" --list >"$tmp/list" || exit 1
while read -r name base opts lost <&3; do
	[ $# -eq 0 ] || case " $* " in *" $name "*) ;; *) continue ;; esac
	[ "$opts" = - ] && opts= || opts=$(echo "$opts" | tr , ' ')
	cp --sparse=always "$tmp/$base.base" "$tmp/t.img"
	"$corrupt" "$name" "$tmp/t.img" 2>/dev/null || continue
	# shellcheck disable=SC2086
	"$fsck" -y $opts "$tmp/t.img" >/dev/null 2>&1
	[ $? -eq 1 ] || continue
	files "$tmp/t.img" >"$tmp/t.files" || { echo "$name: dump.nilfs2 cannot extract the repaired tree"; continue; }
	gone=$(comm -23 "$tmp/$base.files" "$tmp/t.files" | awk '{ print $1 == "H" ? $3 : $2 }' |
		sed 's/^\.//' | sort -u)
	[ -n "$gone" ] || continue
	undeclared=$(echo "$gone" | awk -v lost="$lost" '
		BEGIN { n = split(lost == "-" ? "" : lost, l, ",") }
		{ for (i = 1; i <= n; i++) if ($0 == l[i] || index($0, l[i] "/") == 1) next; print }')
	echo "$name $base lost: $(echo "$gone" | paste -sd, -)${undeclared:+  UNDECLARED: $(echo "$undeclared" | paste -sd, -)}"
done 3<"$tmp/list"
