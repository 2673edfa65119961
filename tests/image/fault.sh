# SPDX-License-Identifier: GPL-2.0-or-later
# fault.sh - sourced by the tests that cut a command's writes with
# NILFS_TEST_FAULT (t-fault-cmd.sh, t-resize-fault.sh).  They set $top,
# $tmp, bad() and, per job, $name and $cmd (IMG stands for the volume).

# A volume on image $1 (already of its size) made by our mkfs.nilfs2 -d,
# with the options after $2, from a tree of 40 small files, a symlink and a
# file of $2 bytes; then 60 checkpoints from offline chcp (every
# construction is one), 15, 30 and 45 kept as snapshots, and 2..50 removed
# but those, so that whole cpfile blocks empty and old metadata blocks
# die.  Exits the test on failure.
fault_volume() {
	fv_img=$1 fv_big=$2
	shift 2
	mkdir -p "$tmp/src/d/e"
	fv_i=0
	while [ $fv_i -lt 40 ]; do
		head -c $((fv_i * 997 % 9000)) /dev/urandom >"$tmp/src/d/f$fv_i"
		fv_i=$((fv_i + 1))
	done
	head -c "$fv_big" /dev/urandom >"$tmp/src/big"
	ln -sf d/f1 "$tmp/src/link"
	"$top/mkfs.nilfs2" -q -f "$@" -d "$tmp/src" "$fv_img" || { echo "FAIL: mkfs"; exit 1; }
	fv_i=0
	while [ $fv_i -lt 30 ]; do
		"$top/chcp" ss "$fv_img" 1 >/dev/null && "$top/chcp" cp "$fv_img" 1 >/dev/null ||
			{ echo "FAIL: chcp round $fv_i"; exit 1; }
		fv_i=$((fv_i + 1))
	done
	"$top/chcp" ss "$fv_img" 15 30 45 || { echo "FAIL: chcp ss"; exit 1; }
	"$top/rmcp" "$fv_img" 2..50 >/dev/null 2>&1   # the snapshots stay
}

# the checkpoints (number and mode) and the tree of image $1 into $2.cps
# and $2.tree
state() {
	"$top/lscp" -a "$1" | awk 'NR > 1 { print $1, $4 }' >"$2.cps"
	rm -rf "$2.x" && mkdir "$2.x"
	"$top/dump.nilfs2" "$1" extract / "$2.x" >/dev/null 2>&1 || echo "extract failed" >>"$2.cps"
	(cd "$2.x" && find . -type f | sort | xargs -r sha256sum; find . | sort) >"$2.tree"
	rm -rf "$2.x"
}

# $cmd on image $2 with NILFS_TEST_FAULT=$1, its output in $tmp/run
run() { eval "NILFS_TEST_FAULT=$1 $(echo "$cmd" | sed "s|IMG|$2|")" >"$tmp/run" 2>&1; }

# The whole run of $cmd on a copy of image $1 ($tmp/after), counting its
# writes into $n; the states before ($tmp/b.*) and after ($tmp/a.*), the
# same tree in both.  Non-zero (said) when the run fails or writes nothing.
whole_run() {
	cp --sparse=always "$1" "$tmp/after"
	run count "$tmp/after" || { cat "$tmp/run"; bad "$name: exit $?"; return 1; }
	n=$(sed -n 's/^nilfs-test-fault: \([0-9]*\) writes.*/\1/p' "$tmp/run")
	[ "${n:-0}" -gt 0 ] || { bad "$name: no writes counted"; return 1; }
	state "$1" "$tmp/b"
	state "$tmp/after" "$tmp/a"
	cmp -s "$tmp/a.tree" "$tmp/b.tree" || bad "$name: the tree changed"
}

# the line that ends a job: its name, writes and the states seen ($seen)
summary() {
	echo "ok: $name: cut at each of $n writes, torn and lost: ${1:-}$(echo $seen | tr ' ' '\n' | sort | uniq -c | awk '{ printf " %s %s", $2, $1 }')"
}
