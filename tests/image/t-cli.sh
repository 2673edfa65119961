#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Every program of the suite has the same command-line conventions
# (util-linux's): --help prints the usage layout below on standard output
# and exits 0, --version prints "PROG from nilfsprogs VERSION", an unknown
# option prints "Try 'PROG --help' for more information." on standard error
# and exits with the suite's usage code (fsck.nilfs2: fsck(8)'s 16), and
# the man page --help names exists.
#
#   Usage:
#    PROG ...               (one or more synopsis lines)
#
#   What PROG does.         (one or more lines)
#   ...                     (dump.nilfs2: its views)
#   Options:
#    -x, --xxx  ...
#    -h, --help     display this help
#    -V, --version  display version
#
#   Available output columns:    (lscp, lssu: util-linux's column list)
#    ...
#
#   For more details see PROG(8).    (lscp, lssu: section 1)
set -u
top="${top_builddir:-.}"
src="${top_srcdir:-.}"
programs="${nlfs_programs:?the Makefile passes the list of programs}"
version="${PACKAGE_VERSION:?the Makefile passes the version}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
: >"$tmp/layout"
fail=0
bad() { echo "FAIL: $*"; fail=1; }

for prog in $programs; do
	exe="$top/$prog"
	[ -x "$exe" ] || { bad "$prog: not built"; continue; }
	usage_code=1
	[ "$prog" = fsck.nilfs2 ] && usage_code=16

	"$exe" --help >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 0 ] || bad "$prog --help: exit $rc"
	[ -s "$tmp/err" ] && bad "$prog --help wrote to standard error: $(cat "$tmp/err")"
	section=8
	[ -f "$src/man1/$prog.1" ] && section=1
	# a failed layout check is a line in $tmp/layout, read after the loop
	# (a failure recorded only in a variable here is lost if the loop ever
	# runs in a subshell)
	awk -v prog="$prog" -v section="$section" '
		function no(why) { print prog " --help: " why; exit 1 }
		{ line[NR] = $0 }
		END {
			if (line[1] != "Usage:") no("line 1 is not \"Usage:\"")
			if (index(line[2], " " prog " ") != 1 && line[2] != " " prog) no("line 2 is not \" " prog " ...\"")
			for (i = 2; line[i] != ""; i++)
				if (index(line[i], " " prog) != 1) no("synopsis line " i " does not start with \" " prog "\"")
			if (line[i + 1] == "" || line[i + 1] ~ /^ /) no("no description after the synopsis")
			for (o = i; o <= NR && line[o] != "Options:"; o++) ;
			if (o > NR) no("no \"Options:\" line")
			if (line[o - 1] != "") no("no blank line before \"Options:\"")
			man = "For more details see " prog "(" section ")."
			if (line[NR] != man) no("the last line is not \"" man "\"")
			if (line[NR - 1] != "") no("no blank line before the man page line")
			# the options end before the column list, if there is one
			end = NR - 1
			for (c = o + 1; c < NR; c++)
				if (line[c] == "Available output columns:") {
					end = c - 1
					if (line[end] != "") no("no blank line before the column list")
					for (k = c + 1; k < NR - 1; k++)
						if (line[k] !~ /^ +[A-Z%]+  [^ ]/) no("column line " k " is not \"  NAME  what\": " line[k])
					if (c + 1 >= NR - 1) no("an empty column list")
				}
			if (line[end - 1] !~ /^ -V, --version +display version$/) no("-V, --version is not the last option")
			if (line[end - 2] !~ /^ -h, --help +display this help$/) no("-h, --help is not before -V, --version")
			if (index(line[end - 1], "display") != index(line[end - 2], "display")) no("-h and -V are not aligned")
			for (k = o + 1; k < end; k++)
				if (line[k] !~ /^ /) no("option line " k " is not indented by a space: " line[k])
		}' "$tmp/out" >>"$tmp/layout"
	[ -f "$src/man$section/$prog.$section" ] ||
		bad "$prog --help names $prog($section), which is not in man$section/"

	"$exe" --version >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = 0 ] || bad "$prog --version: exit $rc"
	[ "$(cat "$tmp/out")" = "$prog from nilfsprogs $version" ] ||
		bad "$prog --version printed '$(cat "$tmp/out")'"
	"$exe" -V >"$tmp/out2" 2>/dev/null
	cmp -s "$tmp/out" "$tmp/out2" || bad "$prog -V differs from --version"

	"$exe" --no-such-option >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc = $usage_code ] || bad "$prog --no-such-option: exit $rc, not $usage_code"
	[ -s "$tmp/out" ] && bad "$prog --no-such-option wrote to standard output"
	grep -qx "Try '$prog --help' for more information." "$tmp/err" ||
		{ bad "$prog --no-such-option: no \"Try '$prog --help'\" line"; cat "$tmp/err"; }
done
if [ -s "$tmp/layout" ]; then
	sed 's/^/FAIL: /' "$tmp/layout"
	fail=1
fi

# one reading of numbers: decimal only, everywhere (dump's -c and lscp's -i)
truncate -s 256M "$tmp/img"
"$top/mkfs.nilfs2" -q -f -T 1 "$tmp/img" || bad "mkfs"
for cmd in "dump.nilfs2 -c 0x1 $tmp/img ls /" "lscp -i 0x1 $tmp/img" "lssu -n 0x1 $tmp/img" \
	   "mkfs.nilfs2 -n -q -b 0x1000 $tmp/img" "nilfs-tune -i 0x10 $tmp/img"; do
	$top/$cmd >"$tmp/out" 2>&1 && bad "accepted a hex number: $cmd"
	grep -q "invalid .*0x" "$tmp/out" || { bad "no 'invalid' message: $cmd"; cat "$tmp/out"; }
done
"$top/dump.nilfs2" -c 010 "$tmp/img" ls / >"$tmp/out" 2>&1
grep -q "checkpoint 10\b" "$tmp/out" || bad "dump.nilfs2 -c 010 is not checkpoint 10"
"$top/lscp" -i 1 "$tmp/img" >/dev/null || bad "lscp -i 1"
"$top/dump.nilfs2" -c 1 "$tmp/img" ls / >/dev/null || bad "dump.nilfs2 -c 1"
exit $fail
