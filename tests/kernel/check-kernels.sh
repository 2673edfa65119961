#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# check-kernels.sh - run the real-kernel tests on each kernel users run:
# the host's (Debian 12's 6.1 on CI) and the newest of Debian suites
# (trixie's 6.12, sid's newest), fetched by fetch-kernels.sh.  Run from the
# build tree by "make check-kernels" (which sets MAKE, KERNEL_TESTS and
# KERNEL_TESTS_SHORT).
#
# Usage: check-kernels.sh [--short] [SUITE...]   (default: host trixie sid)
#   host     the kernel guest.sh boots by default (the newest /boot/vmlinuz-*)
#   SUITE    a Debian suite; skipped, with the reason, when it cannot be
#            fetched and none is cached
#   --short  KERNEL_TESTS_SHORT instead of KERNEL_TESTS, and fewer, shorter
#            torture seeds (CI's time)
#
# Each suite runs through automake's harness ($MAKE check TESTS=...) with
# its kernel in NILFS_KTEST_KERNEL/NILFS_KTEST_MODDIR; its summary goes to
# tests/kernel/check-SUITE.log (the failed tests' logs in it).  At the end
# one line per suite: the kernel, the counts and how long it took; each
# guest's kernel log is kept in tests/kernel/dmesg-SUITE.log and nilfs2's
# complaints in it are listed.  Exit 0
# when nothing failed (skipped suites included), 1 otherwise.

set -u

here=$(cd "$(dirname "$0")" && pwd)
MAKE=${MAKE:-make}
short=no
if [ "${1:-}" = --short ]; then
	short=yes
	shift
fi
[ $# -gt 0 ] || set -- host trixie sid
if [ $short = yes ]; then
	tests=${KERNEL_TESTS_SHORT:?KERNEL_TESTS_SHORT unset: run through make check-kernels}
	export TORTURE_SEEDS=${TORTURE_SEEDS:-"3 4"} TORTURE_STEPS=${TORTURE_STEPS:-6}
else
	tests=${KERNEL_TESTS:?KERNEL_TESTS unset: run through make check-kernels}
fi

# the second oracle, where it can be had (t-nilfs-tools-2.sh skips without)
if [ -z "${NILFS_KTEST_ORACLE:-}" ] && oracle=$("$here/fetch-kernels.sh" oracle sid); then
	export NILFS_KTEST_ORACLE=$oracle
fi
# The whole console logs of a suite's failed guests (make check leaves
# them beside each test's log, tests/kernel/T.console) renamed for suite $1,
# so that the next suite's run does not replace them; each guest's verdict
# goes to the summary.
keep_consoles() {
	for c in tests/kernel/t-*.console; do
		# a test's own, not one an earlier suite renamed
		[ -f "$c" ] && [ -f "$here/$(basename "${c%.console}").sh" ] || continue
		mv -f "$c" "${c%.console}-$1.console"
		# a test may pass over a guest it expected to fail or booted again
		passed=
		grep -q '^:test-result: \(PASS\|SKIP\|XFAIL\)' "${c%.console}.trs" 2>/dev/null &&
			passed=" (the test passed)"
		grep '^=== guest.sh: [0-9]' "${c%.console}-$1.console" | cut -d' ' -f4- |
			sed "s|^|console kept (${c%.console}-$1.console$passed): |"
	done | sort | uniq -c | sed 's/^ *\([0-9]*\) *\(.*\)/  \2 (x\1)/' >"tests/kernel/consoles-$1.notes"
	if [ -s "tests/kernel/consoles-$1.notes" ]; then
		echo "=== $1: failed guests, with their whole console logs:"
		cat "tests/kernel/consoles-$1.notes"
		summary="$summary$(cat "tests/kernel/consoles-$1.notes")\n"
	fi
}

summary=
failed=0
for suite in "$@"; do
	if [ "$suite" = host ]; then
		unset NILFS_KTEST_KERNEL NILFS_KTEST_MODDIR
		kver=$(find /boot -maxdepth 1 -name 'vmlinuz-*' 2>/dev/null | sort -V | tail -n 1)
		kver=${kver##*/vmlinuz-}
	else
		env=$("$here/fetch-kernels.sh" kernel "$suite")
		rc=$?
		if [ $rc = 77 ]; then
			echo "SKIP: $suite: no kernel (see above)"
			summary="$summary$suite: SKIP (no kernel)\n"
			continue
		fi
		[ $rc = 0 ] || { summary="$summary$suite: ERROR (fetch-kernels.sh exit $rc)\n"; failed=1; continue; }
		# shellcheck disable=SC1090  # written by fetch-kernels.sh
		. "$env"
		kver=$KTEST_KVER
	fi
	echo "=== $suite: $kver: $(echo "$tests" | wc -w) tests"
	# every guest's kernel log, searched below
	export NILFS_KTEST_DMESG=$PWD/tests/kernel/dmesg-$suite.log
	: >"$NILFS_KTEST_DMESG"
	start=$(date +%s)
	# shellcheck disable=SC2086  # word splitting wanted
	$MAKE check TESTS="$tests" TEST_SUITE_LOG="tests/kernel/check-$suite.log"
	rc=$?
	keep_consoles "$suite"
	# A guest that never reported (a hang of the emulated machine on a
	# loaded host: stuck after the firmware, or starved into soft lockups)
	# is run once more and named; a failure the test itself reported, or
	# the same again, stands.  So does a guest whose kernel crashed (its
	# console kept says so): it is run once more to tell whether it comes
	# again, but a kernel oops on our volumes is a finding, not noise
	# (6.12 oopsed in slab allocation twice in t-mkfs's and torture's
	# first mount and passed when run again; nothing explained it yet).
	if [ $rc != 0 ]; then
		again=$(awk '/^FAIL: tests\/kernel\/[^ ]*$/ { t = $2; next }
			t && /guest script exited 125|guest did not report/ { print t ".sh"; t = "" }' \
			"tests/kernel/check-$suite.log" | sort -u)
		failed_all=$(sed -n 's/^FAIL: \(tests\/kernel\/[^ ]*\)$/\1.sh/p' \
			"tests/kernel/check-$suite.log" | sort -u)
		if [ -n "$again" ] && [ "$again" = "$failed_all" ]; then
			crashed=$(grep -l '^=== guest.sh: [0-9].*: no status: the guest kernel crashed' \
				tests/kernel/t-*-"$suite".console 2>/dev/null |
				sed "s|.*/\(t-.*\)-$suite\.console\$|\1|" |
				while read -r t; do echo "$again" | grep -qx "tests/kernel/$t.sh" && echo "$t"; done | tr '\n' ' ')
			echo "=== $suite: once more, the guests that did not report: $(echo $again)"
			cp "tests/kernel/check-$suite.log" "tests/kernel/check-$suite-first.log"
			# shellcheck disable=SC2086  # word splitting wanted
			$MAKE check TESTS="$again" TEST_SUITE_LOG="tests/kernel/check-$suite-again.log"
			arc=$?
			keep_consoles "$suite-again"
			if [ -n "$crashed" ]; then
				summary="$summary$suite: FAIL: the guest kernel crashed in $crashed(run again: make exit $arc; the whole console logs: tests/kernel/t-*-$suite.console)\n"
			elif [ $arc = 0 ]; then
				rc=0
				summary="$summary$suite: run again after a guest that did not report: $(echo $again)\n"
			fi
		fi
	fi
	secs=$(($(date +%s) - start))
	counts=$(sed -n 's/^# \(PASS\|FAIL\|SKIP\|ERROR\|XFAIL\|XPASS\): *\([0-9]*\)$/\1 \2/p' \
		"tests/kernel/check-$suite.log" 2>/dev/null | tr '\n' ' ')
	[ $rc = 0 ] || failed=1
	summary="$summary$suite: $kver: ${counts:-no summary (make exit $rc)}in $((secs / 60))m$((secs % 60))s\n"
	# What the kernel said about nilfs2 (or its own warnings, not RCU
	# stalls: TCG on a loaded host has them at boot) during the runs,
	# with the guest script it came from: news on a new kernel.  Not a
	# verdict: tests that mount damaged volumes on purpose draw errors,
	# and each test judges its own guest's log.
	awk '/^=== guest.sh: / { from = $4; next }
		(tolower($0) ~ /nilfs/ && tolower($0) ~ /error|warn|corrupt|invalid|crit|bad|unable/) ||
		/WARNING:|BUG:|Oops/ {
			sub(/^\[ *[0-9.]*\] /, ""); n[from ": " $0]++ }
		END { for (k in n) printf "  %s (x%d)\n", k, n[k] }' "$NILFS_KTEST_DMESG" |
		sed 's|/tmp/\([a-z-]*\)\.[^/ ]*/[^: ]*|\1|' | sort >"tests/kernel/dmesg-$suite.notes"
	if [ -s "tests/kernel/dmesg-$suite.notes" ]; then
		echo "=== $suite: the kernel's complaints (tests/kernel/dmesg-$suite.log):"
		head -n 40 "tests/kernel/dmesg-$suite.notes"
	fi
done
printf "=== kernel matrix\n%b" "$summary"
exit $failed
