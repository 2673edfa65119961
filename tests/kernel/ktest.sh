# SPDX-License-Identifier: GPL-2.0-or-later
# ktest.sh - sourced first by kernel tests: the preamble they share.  The
# test sets here (its own directory) before it sources this file, which
# sets guest (guest.sh) and top (the build: $top_builddir, else ../..).
#
#   ktest_require PROG...  guest.sh require (77 skip, 99 under CI when the
#                          guest's dependencies are missing), then each PROG
#                          (a path below $top) must be built: exit 1 if not
#   ktest_tmp NAME [KEEP]  tmp: a new directory NAME.XXXXXX, removed at exit
#                          unless the variable named KEEP is set
#   fail MESSAGE           prints "FAIL: MESSAGE", then the last $ktest_tail
#                          lines of each file in $ktest_outs (names in $tmp;
#                          "out" is headed "guest output") that exists;
#                          exit 1
#   ktest_pass N [IMG...]  the guest runs $tmp/scriptN on IMG... (with the
#                          host programs in $ktest_extra), its output goes
#                          to $tmp/outN, which must hold the line "PASSN
#                          DONE" and no FAILED line nor nilfs2 warning
#                          (KMSG line); fail otherwise

guest=$here/guest.sh
top=${top_builddir:-$here/../..}
ktest_outs="out1 out2"
ktest_tail=40
ktest_extra=

ktest_require() {
	"$guest" require || exit
	for _kt_p in "$@"; do
		[ -x "$top/$_kt_p" ] || { echo "FAIL: $top/$_kt_p not built"; exit 1; }
	done
}

ktest_tmp() {
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX") || exit 1
	if [ -n "${2:-}" ]; then
		eval "[ -n \"\${$2:-}\" ]" || trap 'rm -rf "$tmp"' EXIT
	else
		trap 'rm -rf "$tmp"' EXIT
	fi
}

fail() {
	echo "FAIL: $*"
	for _kt_f in $ktest_outs; do
		[ -f "$tmp/$_kt_f" ] || continue
		if [ "$_kt_f" = out ]; then
			echo "--- guest output (last $ktest_tail lines) ---"
		else
			echo "--- $_kt_f (last $ktest_tail lines) ---"
		fi
		tail -n "$ktest_tail" "$tmp/$_kt_f"
	done
	exit 1
}

ktest_pass() {
	_kt_n=$1
	shift
	(
		[ -z "$ktest_extra" ] || export NILFS_KTEST_EXTRA="$ktest_extra"
		exec "$guest" run "$tmp/script$_kt_n" "$@"
	) >"$tmp/out$_kt_n" 2>&1 || fail "guest pass $_kt_n exited $?"
	grep -qx "PASS$_kt_n DONE" "$tmp/out$_kt_n" || fail "pass $_kt_n did not finish"
	! grep -q FAILED "$tmp/out$_kt_n" || fail "pass $_kt_n: $(grep FAILED "$tmp/out$_kt_n" | head -n 3)"
	! grep -q '^KMSG ' "$tmp/out$_kt_n" ||
		fail "kernel complained: $(grep '^KMSG ' "$tmp/out$_kt_n" | head -n 5)"
}
