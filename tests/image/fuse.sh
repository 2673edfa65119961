# SPDX-License-Identifier: GPL-2.0-or-later
# fuse.sh - what the nilfs-fuse tests share, sourced after $fuse (the
# program), $mnt, $tmp and fail() are set:
#   fuse_require        skip (77) without nilfs-fuse, /dev/fuse or fusermount3
#   fuse_mount IMG [OPTION...]
#                       nilfs-fuse -f OPTION... IMG $mnt in the background
#                       ($fpid, standard error in $tmp/fuse-err); 1 if it
#                       refused
#   fuse_umount WHAT    the daemon still lives, unmounts, exits 0
#   fuse_cleanup        for the EXIT trap: unmount (lazily if need be) and
#                       remove $tmp only when nothing is mounted on $mnt
fuse_require() {
	if [ ! -x "$fuse" ]; then
		echo "SKIP: $0: nilfs-fuse not built (configure found no libfuse3: install libfuse3-dev)"
		exit 77
	fi
	if [ ! -c /dev/fuse ] || ! [ -r /dev/fuse ] || ! [ -w /dev/fuse ]; then
		echo "SKIP: $0: no usable /dev/fuse here"
		exit 77
	fi
	command -v fusermount3 >/dev/null || { echo "SKIP: $0: no fusermount3 (install fuse3)"; exit 77; }
}

# whether anything is mounted on $mnt, a dead FUSE mount too (which
# mountpoint(1) cannot stat)
fuse_mounted() {
	awk -v m="$mnt" '$2 == m { f = 1 } END { exit !f }' /proc/self/mounts
}

fuse_mount() {
	fuse_img=$1
	shift
	! fuse_mounted || fail "$mnt is mounted already"
	"$fuse" -f "$@" "$fuse_img" "$mnt" 2>"$tmp/fuse-err" &
	fpid=$!
	fuse_n=0
	while ! mountpoint -q "$mnt"; do
		kill -0 "$fpid" 2>/dev/null || { wait "$fpid"; fpid=; return 1; }
		[ $fuse_n -lt 100 ] || fail "nilfs-fuse $fuse_img neither mounted nor exited"
		sleep 0.1
		fuse_n=$((fuse_n + 1))
	done
}

fuse_umount() {
	kill -0 "$fpid" 2>/dev/null || fail "$1: nilfs-fuse died: $(cat "$tmp/fuse-err")"
	fusermount3 -u "$mnt" || fail "$1: fusermount3 -u"
	wait "$fpid"
	fuse_rc=$?
	fpid=
	[ $fuse_rc -eq 0 ] || fail "$1: nilfs-fuse exited $fuse_rc: $(tail -n 3 "$tmp/fuse-err")"
}

fuse_cleanup() {
	if fuse_mounted; then
		fusermount3 -u "$mnt" 2>/dev/null || fusermount3 -u -z "$mnt"
	fi
	[ -n "${fpid:-}" ] && kill "$fpid" 2>/dev/null
	fuse_mounted || rm -rf "$tmp"
}
