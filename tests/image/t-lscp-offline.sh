#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-lscp-offline.sh - lscp and lssu on images made by nilfs-tools'
# mkfs.nilfs2 (no kernel needed): the one checkpoint and the two segments mkfs
# writes, in nilfs-tools' columns and in util-linux's tables (-o, --raw,
# --noheadings, -J), with the kernel's ACTIVE flag;
# and the errors: no such file, not a NILFS2 volume, permission denied, a
# damaged volume, too many arguments, offline changes (mkcp, chcp, rmcp).
set -u
top=${top_builddir:-.}
MKFS=$(PATH=/usr/sbin:/sbin:$PATH command -v mkfs.nilfs2)
if [ -z "$MKFS" ]; then
	echo "SKIP: nilfs-tools' mkfs.nilfs2 is not installed"
	exit 77
fi
export TZ=UTC LC_ALL=C
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-lscp-offline.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

LSCP_HEADER="                 CNO        DATE     TIME  MODE  FLG      BLKCNT       ICNT"
LSSU_HEADER="              SEGNUM        DATE     TIME STAT     NBLOCKS"

check_image() { # blocksize
	img=$tmp/img-$1
	truncate -s 256M "$img"
	"$MKFS" -q -f -b "$1" "$img" >/dev/null 2>&1 || { bad "mkfs -b $1"; return; }
	# the checkpoint mkfs writes: number 1, plain, 4 blocks, its inodes
	out=$("$top/lscp" "$img") || bad "-b $1: lscp exit $?"
	[ "$(echo "$out" | head -n 1)" = "$LSCP_HEADER" ] || bad "-b $1: lscp header: $out"
	echo "$out" | awk 'NR == 2 && $1 == 1 && $4 == "cp" && $5 == "-" && $6 > 0 &&
		$2 ~ /^20[0-9][0-9]-[01][0-9]-[0-3][0-9]$/ && $3 ~ /^[0-2][0-9]:[0-5][0-9]:[0-5][0-9]$/ { ok = 1 }
		END { exit !(ok && NR == 2) }' || bad "-b $1: lscp: $out"
	line=$(echo "$out" | sed -n 2p)
	printf '%s\n' "$line" | grep -Eq '^ {19}1  [0-9-]{10} [0-9:]{8}   cp    - {12}[0-9] {9,10}[0-9]+$' ||
		bad "-b $1: lscp columns: '$line'"
	for o in -a -r -s "-s -r" "-i 2" "-r -n 1" -g; do
		"$top/lscp" $o "$img" >"$tmp/o" || bad "-b $1: lscp $o exit $?"
	done
	[ "$("$top/lscp" -s "$img")" = "$LSCP_HEADER" ] || bad "-b $1: lscp -s lists something"
	[ "$("$top/lscp" -i 2 "$img")" = "$LSCP_HEADER" ] || bad "-b $1: lscp -i 2 lists something"
	"$top/lscp" -g "$img" | head -n 1 | grep -q ' NBLKINC ' || bad "-b $1: lscp -g header"
	# mkfs's log in segment 0, segment 1 reserved: both ACTIVE for the kernel
	out=$("$top/lssu" "$img") || bad "-b $1: lssu exit $?"
	[ "$(echo "$out" | head -n 1)" = "$LSSU_HEADER" ] || bad "-b $1: lssu header: $out"
	echo "$out" | awk 'NR == 2 && $1 == 0 && $4 == "ad-" && $5 > 0 { a = 1 }
		NR == 3 && $0 == "                   1  ---------- --:--:--  ad-           0" { b = 1 }
		END { exit !(a && b && NR == 3) }' || bad "-b $1: lssu: $out"
	out=$("$top/lssu" -a -i 1 -n 3 "$img")
	[ "$(echo "$out" | sed -n 3p)" = "                   2  ---------- --:--:--  ---           0" ] ||
		bad "-b $1: lssu -a -i 1 -n 3: $out"
	[ "$(echo "$out" | wc -l)" = 4 ] || bad "-b $1: lssu -a -i 1 -n 3: $out"
	out=$("$top/lssu" -l "$img") || bad "-b $1: lssu -l exit $?"
	echo "$out" | awk 'NR == 2 && $4 == "ad-p" && $7 == "(100%)" { ok = 1 } END { exit !ok }' ||
		bad "-b $1: lssu -l: $out"
	# util-linux's tables (libsmartcols) carry the same numbers: JSON,
	# raw, chosen columns, no headings
	blk=$("$top/lscp" "$img" | awk 'NR == 2 { print $6 }')
	j=$("$top/lscp" --json "$img" | tr -d ' \n')
	[ "$j" = "$("$top/lscp" -J "$img" | tr -d ' \n')" ] || bad "-b $1: lscp -J is not --json"
	case $j in '{"checkpoints":[{"cno":1,"date":"'*'","time":"'*'","mode":"cp","flg":"-","blkcnt":'$blk',"icnt":'[0-9]*'}]}') ;;
		*) bad "-b $1: lscp --json: $j" ;; esac
	j=$("$top/lssu" -J -a -n 3 -o segnum,date,stat,nblocks,lastmod "$img" | tr -d ' \n')
	case $j in '{"segments":[{"segnum":0,"date":"'*'","stat":"ad-","nblocks":'[1-9]*',"lastmod":'[1-9]*'},{"segnum":1,"date":null,"stat":"ad-","nblocks":0,"lastmod":0},{"segnum":2,"date":null,"stat":"---","nblocks":0,"lastmod":0}]}') ;;
		*) bad "-b $1: lssu --json: $j" ;; esac
	out=$("$top/lscp" --raw -o cno,mode,flg,blkcnt "$img")
	[ "$out" = "$(printf 'CNO MODE FLG BLKCNT\n1 cp - %s' "$blk")" ] || bad "-b $1: lscp --raw -o: $out"
	out=$("$top/lscp" --raw --noheadings -o +CREATE "$img")
	echo "$out" | awk -v b="$blk" 'NR == 1 && NF == 8 && $1 == 1 && $4 == "cp" && $6 == b && $8 > 1600000000 { ok = 1 }
		END { exit !(ok && NR == 1) }' || bad "-b $1: lscp --raw --noheadings -o +CREATE: $out"
	out=$("$top/lscp" -g -o CNO,NBLKINC "$img")
	echo "$out" | awk 'NR == 1 && $1 == "CNO" && $2 == "NBLKINC" { h = 1 } NR == 2 && $1 == 1 && $2 > 0 { r = 1 }
		END { exit !(h && r && NR == 2) }' || bad "-b $1: lscp -o CNO,NBLKINC: $out"
	# --noheadings alone keeps nilfs-tools' layout
	[ "$("$top/lscp" --noheadings "$img")" = "$("$top/lscp" "$img" | sed 1d)" ] || bad "-b $1: lscp --noheadings"
	[ "$("$top/lssu" --noheadings -a "$img")" = "$("$top/lssu" -a "$img" | sed 1d)" ] || bad "-b $1: lssu --noheadings"
	# live counts are -l's: asking for them is asking for -l
	out=$("$top/lssu" --raw -o SEGNUM,STAT,NLIVEBLOCKS,LIVE% "$img")
	[ "$(echo "$out" | sed -n 2p)" = "0 ad-p $("$top/lssu" "$img" | awk 'NR == 2 { print $5 }') 100" ] ||
		bad "-b $1: lssu -o NLIVEBLOCKS: $out"
	[ $fail = 0 ] && echo "ok: -b $1"
}

check_image 1024
check_image 2048
check_image 4096

# expect STATUS MESSAGE CMD...: exit status and the first line of stderr
expect() {
	want_rc=$1 want_msg=$2
	shift 2
	"$@" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	msg=$(head -n 1 "$tmp/stderr")
	if [ $rc != "$want_rc" ] || [ "$msg" != "$want_msg" ]; then
		bad "$*: exit $rc, '$msg' (expected $want_rc, '$want_msg')"
	else
		echo "ok: $* -> $rc${msg:+, $msg}"
	fi
}
img=$tmp/img-4096
expect 1 "lscp: cannot open NILFS on $tmp/none: No such file or directory" "$top/lscp" "$tmp/none"
head -c 1000000 /dev/zero >"$tmp/zero"
expect 1 "lscp: cannot open NILFS on $tmp/zero: not a NILFS2 volume" "$top/lscp" "$tmp/zero"
expect 1 "lssu: cannot open NILFS on $tmp/zero: not a NILFS2 volume" "$top/lssu" "$tmp/zero"
: >"$tmp/empty"
expect 1 "lscp: cannot open NILFS on $tmp/empty: not a NILFS2 volume" "$top/lscp" "$tmp/empty"
# a directory on another file system: named, with its type and mount
if command -v findmnt >/dev/null; then
	set -- $(findmnt -n -o FSTYPE,TARGET,SOURCE -T "$tmp")
	expect 1 "lscp: cannot open NILFS on $tmp: a directory in the $1 file system mounted on $2 ($3), not NILFS2" \
		"$top/lscp" "$tmp"
fi
expect 1 "lscp: too many arguments" "$top/lscp" "$img" "$img"
expect 1 "lssu: too many arguments" "$top/lssu" "$img" "$img"
expect 1 "lscp: invalid option -- x" "$top/lscp" -x "$img"
grep -qx "Try 'lscp --help' for more information." "$tmp/stderr" || bad "lscp -x: no 'Try' line"
expect 1 "lscp: invalid index: 0x10" "$top/lscp" -i 0x10 "$img"
expect 1 "lscp: invalid index: 1x" "$top/lscp" -i 1x "$img"
expect 1 "lssu: invalid protection period: 5q" "$top/lssu" -p 5q "$img"
expect 1 "lscp: unknown column: FOO" "$top/lscp" -o CNO,FOO "$img"
expect 1 "lssu: unknown column: X" "$top/lssu" --output=+X "$img"
# --help lists the columns and points at section 1
for p in lscp lssu; do
	"$top/$p" --help >"$tmp/help"
	grep -q '^Available output columns:$' "$tmp/help" || bad "$p --help: no columns"
	grep -q "^For more details see $p(1).$" "$tmp/help" || bad "$p --help: not $p(1)"
done
grep -Eq '^ +NBLKINC  ' "$tmp/help" && bad "lssu --help lists lscp's columns"
grep -Eq '^ +NLIVEBLOCKS  ' "$tmp/help" || bad "lssu --help: no NLIVEBLOCKS"
# offline changes: one construction per command, through the log writer
w=$tmp/w.img
cp "$img" "$w"
expect 0 "" "$top/mkcp" "$w"
[ "$("$top/mkcp" -p "$w")" = 1 ] || bad "mkcp -p on a clean image: no new checkpoint expected"
expect 0 "" "$top/chcp" ss "$w" 1
"$top/lscp" -s "$w" | awk 'NR > 1 { print $1, $4 }' >"$tmp/ss"
[ "$(cat "$tmp/ss")" = "1 ss" ] || bad "chcp ss offline: lscp -s shows '$(cat "$tmp/ss")'"
# the change itself made checkpoint 2, minor as the kernel makes it
"$top/lscp" -a "$w" | awk 'NR > 1 { print $1, $4, $5 }' >"$tmp/all"
[ "$(tail -n 1 "$tmp/all")" = "2 cp i" ] || bad "after chcp: lscp -a ends with '$(tail -n 1 "$tmp/all")'"
expect 1 "chcp: 9: no checkpoint" "$top/chcp" ss "$w" 9
"$top/rmcp" "$w" 1 >/dev/null 2>&1 && bad "rmcp removed a snapshot"
"$top/lscp" -s "$w" | grep -q '^ *1 ' || bad "snapshot 1 gone after a refused rmcp"
expect 0 "" "$top/chcp" cp "$w" 1
expect 0 "" "$top/rmcp" "$w" 1
"$top/lscp" -a "$w" | awk 'NR > 1 { print $1 }' | grep -qx 1 && bad "rmcp 1 offline: still listed"
latest=$("$top/lscp" -a "$w" | awk 'END { print $1 }')
expect 1 "rmcp: $latest: cannot remove checkpoint: checkpoint $latest is the latest of the unmounted volume; mount it to remove it" \
	"$top/rmcp" "$w" "$latest"
# a checkpoint that does not exist is named so, as nilfs-tools' rmcp says
# on a mounted volume (it is not "a snapshot")
expect 1 "rmcp: invalid checkpoint: 1000" "$top/rmcp" "$w" 1000
expect 1 "rmcp: invalid checkpoint: 1" "$top/rmcp" "$w" 1
"$top/mkcp" -s "$w" || bad "mkcp -s offline"
"$top/lscp" -s "$w" | awk 'NR > 1 { print $1 }' | grep -qx "$latest" || bad "mkcp -s did not snapshot $latest"
"$top/dump.nilfs2" "$w" logs | grep -q 'BAD-' && bad "offline changes wrote a bad log"
expect 1 "chcp: xx: invalid checkpoint mode" "$top/chcp" xx "$img" 1
expect 1 "chcp: too few arguments" "$top/chcp" ss
expect 1 "rmcp: too few arguments" "$top/rmcp"
expect 1 "mkcp: cannot open NILFS on $tmp/zero: not a NILFS2 volume" "$top/mkcp" "$tmp/zero"
expect 0 "" "$top/lscp" --help
expect 0 "" "$top/rmcp" -V
# an image the caller may not read
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	chmod 600 "$img"
	expect 1 "lscp: cannot open NILFS on $img: Permission denied" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$top/lscp" "$img"
elif [ "$(id -u)" != 0 ]; then
	chmod 000 "$img"
	expect 1 "lscp: cannot open NILFS on $img: Permission denied" "$top/lscp" "$img"
fi
chmod 644 "$img"
# a damaged cpfile block is an error naming the place, not a crash or a short list
cp "$img" "$tmp/bad"
blk=$("$top/dump.nilfs2" "$tmp/bad" summaries |
	awk '/finfo: ino 4 / { getline; sub(":", "", $1); print $1; exit }')
if [ -n "$blk" ]; then
	# a wrong checkpoint number in cpfile entry 1
	printf '\007' | dd of="$tmp/bad" bs=1 seek=$((blk * 4096 + 192 + 24)) conv=notrunc 2>/dev/null
	"$top/lscp" "$tmp/bad" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	msg=$(cat "$tmp/stderr")
	case "$rc $msg" in
	"1 lscp: cannot open NILFS on $tmp/bad: "*block*) echo "ok: damaged cpfile: $msg" ;;
	*) bad "damaged cpfile: exit $rc, '$msg'" ;;
	esac
else
	bad "no cpfile block in the mkfs summary"
fi
exit $fail
