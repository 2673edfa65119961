#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-nilfs-tools-2.sh - a second oracle: the nilfs-tools of another release
# (sid's, 2.2.11 when written; fetch-kernels.sh oracle, NILFS_KTEST_ORACLE)
# beside the host's (Debian 12's 2.2.9), which the other kernel tests hold
# ours to.
#
# In the guest, on a mounted volume with a few hundred checkpoints,
# snapshots and deleted ranges: lscp and lssu of both releases with the
# option sets t-lscp.sh uses, their errors, and nilfs-tune -l; unmounted,
# lscp, lssu and nilfs-tune -l again.  Each output (stdout, stderr, status)
# of the second release must equal the host release's, or differ only in
# the ways named in KNOWN below (printed as KNOWN lines); anything else is
# a new difference and fails, so that a new release's change is seen and
# decided on.  Ours follows the host's release: our nilfs-tune -l prints
# what its -l prints but the version line (t-tune-resize.sh and t-lscp.sh
# hold the rest of ours to it).
#
# The known differences of 2.2.11 from 2.2.9:
#   nilfs-tune -l  no "nilfs-tune VERSION" line before the listing;
#                  "CRC check data size:" in 4 hex digits (0x0118), not 8
#   lscp, lssu on a device that is not mounted: the error names ENXIO
#                  ("No such device or address"), not ENOENT; an unknown
#                  option is quoted ("invalid option -- 'Z'")
#
# Skipped (77) without NILFS_KTEST_ORACLE (make check-kernels and
# check-kernels-short set it).  Exit status follows automake conventions.

here=$(cd "$(dirname "$0")" && pwd)
guest=$here/guest.sh
top=${top_builddir:-$here/../..}

"$guest" require || exit
if [ -z "${NILFS_KTEST_ORACLE:-}" ] || [ ! -x "$NILFS_KTEST_ORACLE/bin/lscp" ]; then
	echo "SKIP: no second nilfs-tools (NILFS_KTEST_ORACLE; tests/kernel/fetch-kernels.sh oracle)"
	exit 77
fi
mkfs=$(PATH=/usr/sbin:/usr/bin:/sbin:/bin command -v mkfs.nilfs2)
[ -n "$mkfs" ] || { echo "SKIP: host mkfs.nilfs2 not found (install nilfs-tools)"; exit 77; }
for p in nilfs-tune tests/kernel/cpgen; do
	[ -x "$top/$p" ] || { echo "FAIL: $top/$p not built"; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-nilfs-tools-2.XXXXXX") || exit 1
trap '[ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	echo "--- guest output (last 60 lines) ---"
	tail -n 60 "$tmp/out"
	exit 1
}

img=$tmp/img
truncate -s 256M "$img" || exit 1
"$mkfs" -f -q -L second-oracle "$img" || fail "host mkfs.nilfs2"

cat >"$tmp/guest-script" <<'GUEST'
# runs inside the guest under busybox sh
export TZ=UTC
OURS=/ktest/bin
B=/ktest/oracle/bin
D=/dev/vda
echo "RELEASES $(lscp -V 2>&1 | head -n 1) / $($B/lscp -V 2>&1 | head -n 1)"
ndiff=0

# The known differences, applied to the host release's output (A) to give
# the second release's (B).
known() { # TOOL STATE(mounted|unmounted) FILE
	case $1 in
	nilfs-tune) sed -e '1{/^nilfs-tune [0-9.]*$/d}' \
		-e 's/^\(CRC check data size:[[:space:]]*0x\)0000\([0-9a-f]\{4\}\)$/\1\2/' "$3" ;;
	lscp | lssu) if [ "$2" = unmounted ]; then
			sed 's/: No such file or directory$/: No such device or address/' "$3"
		else
			sed "s/: invalid option -- \(.\)\$/: invalid option -- '\1'/" "$3"
		fi ;;
	esac
}

# both STATE TOOL ARGS...: the two releases' outputs, equal or equal after
# the known differences
both() {
	state=$1 t=$2
	shift 2
	$t "$@" >/tmp/a.out 2>/tmp/a.err; arc=$?
	$B/$t "$@" >/tmp/b.out 2>/tmp/b.err; brc=$?
	if [ $arc = $brc ] && cmp -s /tmp/a.out /tmp/b.out && cmp -s /tmp/a.err /tmp/b.err; then
		echo "SAME rc=$arc $(wc -l </tmp/a.out) lines: $t $*"
		return
	fi
	known $t $state /tmp/a.out >/tmp/ka.out
	known $t $state /tmp/a.err >/tmp/ka.err
	if [ $arc = $brc ] && cmp -s /tmp/ka.out /tmp/b.out && cmp -s /tmp/ka.err /tmp/b.err; then
		echo "KNOWN rc=$arc: $t $* ($state):"
		diff /tmp/a.out /tmp/b.out | grep '^[-+][^-+]' | sed 's/^/KNOWN   /'
		diff /tmp/a.err /tmp/b.err | grep '^[-+][^-+]' | sed 's/^/KNOWN   /'
		return
	fi
	ndiff=$((ndiff + 1))
	echo "NEW DIFFERENCE: $t $* ($state; status $arc / $brc)"
	diff /tmp/a.out /tmp/b.out | head -n 20
	diff /tmp/a.err /tmp/b.err | head -n 10
}

mount -t nilfs2 $D /mnt || { echo "MOUNT FAILED"; exit 1; }
mkdir /mnt/d
i=0
while [ $i -lt 8 ]; do
	echo "file $i" >/mnt/d/f$i
	sync
	i=$((i + 1))
done
$OURS/cpgen sync /mnt 150 >/dev/null || { echo "CPGEN FAILED"; exit 1; }
mkcp -s $D
$OURS/cpgen sync /mnt 100 >/dev/null
chcp ss $D 30 60 61 100 130 || echo "CHCP FAILED"
rmcp -f $D 120..200 || echo "RMCP FAILED"
mkcp $D
$OURS/cpgen sync /mnt 20 >/dev/null

for set in : -a -s -r -a_-r -s_-r -g_-a -i_40_-n_30 -r_-i_150_-n_7 -a_-r_-n_5 -b -i_99999 -n_0 -i_x -Z; do
	both mounted lscp $(echo $set | tr _ ' ' | sed 's/^:$//') $D
done
for set in : -a -l -i_3_-n_4 -a_-i_60 -i_99999 -n_x; do
	both mounted lssu $(echo $set | tr _ ' ' | sed 's/^:$//') $D
done
both mounted nilfs-tune -l $D
# our listing follows the host release's
$OURS/nilfs-tune -l $D 2>/dev/null | sed 1d >/tmp/o.l
nilfs-tune -l $D 2>/dev/null | sed 1d >/tmp/a.l
sed 's/^\(Last write time\|Last mount time\):.*/\1: T/' /tmp/o.l >/tmp/o.n
sed 's/^\(Last write time\|Last mount time\):.*/\1: T/' /tmp/a.l >/tmp/a.n
cmp -s /tmp/o.n /tmp/a.n || { ndiff=$((ndiff + 1)); echo "OURS DIFFER from the host release's nilfs-tune -l"; diff /tmp/a.n /tmp/o.n; }
umount /mnt
both unmounted lscp $D
both unmounted lssu $D
both unmounted nilfs-tune -l $D
both unmounted lscp /dev/vdz
echo "NEW DIFFERENCES: $ndiff"
dmesg | grep -i nilfs | grep -iE 'error|warn|corrupt|invalid|crit' | sed 's/^/KMSG /'
echo "GUEST DONE"
GUEST

NILFS_KTEST_EXTRA="$top/nilfs-tune $top/tests/kernel/cpgen" \
	"$guest" run "$tmp/guest-script" "$img" >"$tmp/out" 2>&1
rc=$?
[ $rc -eq 77 ] && { echo "SKIP: guest"; exit 77; }
cat "$tmp/out"
grep -qx "GUEST DONE" "$tmp/out" || fail "the guest did not finish (rc $rc)"
grep -qx "NEW DIFFERENCES: 0" "$tmp/out" || fail "$(grep -A3 '^NEW DIFFERENCE:\|^OURS DIFFER' "$tmp/out" | head -n 12)"
grep -q '^KMSG' "$tmp/out" && fail "kernel complained: $(grep '^KMSG' "$tmp/out" | head -n 5)"
# the known differences did show (else KNOWN describes a release that is
# not the one fetched: update it)
grep -q '^KNOWN rc=0: nilfs-tune -l' "$tmp/out" || fail "nilfs-tune -l has none of the known differences"
echo "PASS: $0"
