# SPDX-License-Identifier: GPL-2.0-or-later
# volume.sh - sourced by the tests in tests/gc (after setting $here and $top).
# gc_test_init NAME PROG...: the programs (and tests/gc/gcfault, as $gf) are
# built, $tmp is a new directory (removed at exit unless T_KEEP is set),
# fail() says FAIL and exits 1.
gc_test_init() {
	_name=$1
	shift
	gf=$top/tests/gc/gcfault
	for _p in "$@" tests/gc/gcfault; do
		[ -x "$top/$_p" ] || { echo "FAIL: $top/$_p not built"; exit 1; }
	done
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/$_name.XXXXXX") || exit 1
	[ -n "${T_KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT
}
fail() { echo "FAIL: $*"; exit 1; }

# gc_volume IMG SRCDIR makes a 16 MiB volume (1 KiB blocks, 128 per
# segment, dated a day ago) from our mkfs and offline writes through
# gcfault: a file /g whose versions each live through a dozen checkpoints
# (so that cleaning them deletes whole cpfile blocks, 5 checkpoints each),
# rewrites of /f1../f3 and two snapshots.
gc_volume() {
	_img=$1 _src=$2
	mkdir -p "$_src"
	for _i in 0 1 2 3 4 5; do
		head -c $((24 * 1024)) /dev/urandom >"$_src/f$_i"
	done
	head -c 16384 /dev/urandom >"$_src/g"
	truncate -s 16M "$_img"
	"$top/mkfs.nilfs2" -q -f -b 1024 -B 128 -T $(($(date +%s) - 86400)) -d "$_src" "$_img" ||
		fail "mkfs"
	"$gf" snapshot "$_img" || fail "snapshot"
	for _round in 1 2 3; do
		"$gf" rewrite "$_img" /g 16 "$_round" || fail "rewrite /g"
		"$gf" checkpoints "$_img" 12 || fail "checkpoints"
		"$gf" rewrite "$_img" "/f$_round" 8 "$_round" || fail "rewrite /f$_round"
		[ $_round = 2 ] && { "$gf" snapshot "$_img" || fail "snapshot"; }
	done
	"$gf" rewrite "$_img" /g 16 9 || fail "rewrite /g"
}
