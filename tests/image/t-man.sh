#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-man.sh - the manual pages against the programs:
#  - every page dated YYYY-MM-DD, in the section its directory and name say;
#    lscp and lssu (no privilege needed) in section 1, as nilfs-tools has
#    them, and their --help points there;
#  - every option a program's --help lists is in its page (short and long);
#  - the SYNOPSIS of every program that takes a device shows the other forms
#    it takes: an image file, UUID= and LABEL=;
#  - what rmcp(8) says of the latest checkpoint and of a missing one offline
#    is what rmcp prints.
set -u
top=${top_builddir:-.}
src=${top_srcdir:-.}
export LC_ALL=C TZ=UTC
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-man.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

for page in "$src"/man[158]/*.[158]; do
	name=$(basename "$page")
	dirsec=$(basename "$(dirname "$page")" | sed 's/^man//')
	set -- $(head -n 1 "$page")
	[ "$1" = .TH ] || { bad "$name: first line is not .TH"; continue; }
	[ "$3" = "$dirsec" ] && [ "$3" = "${name##*.}" ] || bad "$name: .TH section $3 in man$dirsec"
	echo "$4" | grep -Eqx '"?[0-9]{4}-[0-1][0-9]-[0-3][0-9]"?' || bad "$name: date $4 is not YYYY-MM-DD"
done
for p in lscp lssu; do
	[ -f "$src/man1/$p.1" ] || bad "$p(1) missing"
	[ -e "$src/man8/$p.8" ] && bad "$p(8) still there"
	grep -q "man1/$p.1" "$src/bin/lscp/Makemodule.am" || bad "$p.1 not installed in section 1"
	"$top/$p" --help | grep -qx "For more details see $p(1)." || bad "$p --help does not point at $p(1)"
done

# PAGE_OF PROG: its page
page_of() { ls "$src"/man[18]/"$1".[18] 2>/dev/null | head -n 1; }

# every option of --help in the page's source (\-x, \-\-long); nilfs-fuse
# where libfuse3 was found
fuse=
[ -x "$top/nilfs-fuse" ] && fuse=nilfs-fuse
for p in lscp lssu mkcp chcp rmcp nilfs-timeline dump.nilfs2 fsck.nilfs2 nilfs-tune nilfs-resize nilfs-undo \
	nilfs-clean nilfs_cleanerd mkfs.nilfs2 mount.nilfs2 umount.nilfs2 $fuse; do
	page=$(page_of "$p")
	[ -n "$page" ] || { bad "$p: no page"; continue; }
	"$top/$p" --help >"$tmp/help" 2>&1
	for o in $(grep -oE -- '(^|[ ,\[])--?[A-Za-z][A-Za-z0-9-]*' "$tmp/help" | sed 's/^[ ,[]//' | sort -u); do
		pat=$(echo "$o" | sed 's/-/\\\\-/g')
		grep -Eq -- "$pat([^A-Za-z0-9-]|$)" "$page" || bad "$p: $o (in --help) not in $(basename "$page")"
	done
done

# SYNOPSIS: the image and tag forms
synopsis() { awk '/^\.SH SYNOPSIS/ { s = 1; next } /^\.SH/ { s = 0 } s' "$1"; }
for p in lscp lssu mkcp chcp rmcp nilfs-timeline dump.nilfs2 fsck.nilfs2 nilfs-tune nilfs-resize nilfs-undo \
	nilfs-clean nilfs_cleanerd mkfs.nilfs2 $fuse; do
	syn=$(synopsis "$(page_of "$p")")
	echo "$syn" | grep -qi 'image' || bad "$p: SYNOPSIS shows no image form"
	[ "$p" = mkfs.nilfs2 ] && continue    # makes a volume: no tag yet
	echo "$syn" | grep -q 'UUID=' && echo "$syn" | grep -q 'LABEL=' ||
		bad "$p: SYNOPSIS shows no UUID= and LABEL= form"
done

# rmcp(8) quotes what rmcp says offline
rendered() { MANWIDTH=1000 man -l "$1" 2>/dev/null | tr -s ' ' | tr '\n' ' '; }
if command -v man >/dev/null; then
	truncate -s 64M "$tmp/img"
	"$top/mkfs.nilfs2" -q -f -B 256 "$tmp/img" || { bad "mkfs"; exit 1; }
	"$top/mkcp" "$tmp/img" 2>/dev/null
	latest=$("$top/lscp" -a "$tmp/img" | awk 'END { print $1 }')
	text=$(rendered "$src/man8/rmcp.8" | sed 's/cno/N/g; s/[“”]/"/g')
	"$top/rmcp" "$tmp/img" "$latest" 2>"$tmp/err" && bad "rmcp removed the latest checkpoint offline"
	msg=$(head -n 1 "$tmp/err" | sed "s/^rmcp: //; s/$latest/N/g")
	case $text in *"\"$msg\""*) echo "ok: rmcp(8) quotes: $msg" ;;
		*) bad "rmcp(8) does not say what rmcp says of the latest checkpoint: $msg" ;; esac
	"$top/rmcp" "$tmp/img" 1000 2>"$tmp/err" && bad "rmcp removed checkpoint 1000"
	msg=$(head -n 1 "$tmp/err" | sed "s/^rmcp: //; s/1000/N/g")
	case $text in *"\"$msg\""*) echo "ok: rmcp(8) quotes: $msg" ;;
		*) bad "rmcp(8) does not say what rmcp says of a missing checkpoint: $msg" ;; esac
	case $text in *"current checkpoint are refused"*) bad "rmcp(8) still says the current checkpoint is refused" ;; esac
else
	echo "no man(1): rmcp(8)'s messages not compared"
fi
[ $fail = 0 ] && echo "ok: manual pages"
exit $fail
