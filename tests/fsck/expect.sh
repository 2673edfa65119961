# SPDX-License-Identifier: GPL-2.0-or-later
# expect.sh - sourced by the fsck interface tests.  Counts in $pass and
# $fail; each check's output is left in ./out.
#
# expect WANT-STATUS PATTERN DESCRIPTION -- COMMAND...: the command exits
# WANT-STATUS and (if PATTERN is not empty) prints a line matching it
expect() {
	want=$1 pat=$2 what=$3
	shift 4
	"$@" >out 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ] && { [ -z "$pat" ] || grep -q -- "$pat" out; }; then
		pass=$((pass + 1))
		echo "ok: $what"
	else
		fail=$((fail + 1))
		echo "FAIL: $what: exit $rc (want $want), output:"
		cat out
	fi
}
