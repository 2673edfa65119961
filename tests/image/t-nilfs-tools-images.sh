#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Images made by nilfs-tools' mkfs.nilfs2 with non-default options must be
# read as that mkfs described them: geometry from the superblock, the one
# super-root log at the cursor with valid checksums, and the five files
# mkfs writes (root, ifile, cpfile, sufile, DAT) in the summary.
set -u
dump="${top_builddir:-.}/dump.nilfs2"
MKFS=$(command -v mkfs.nilfs2 || echo /sbin/mkfs.nilfs2)
if [ ! -x "$MKFS" ]; then
	echo "SKIP: nilfs-tools' mkfs.nilfs2 is not installed"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

check() { # blocksize blocks-per-segment reserved-pct size
	img="$tmp/img"
	rm -f "$img"
	truncate -s "$4" "$img"
	if ! "$MKFS" -q -f -b "$1" -B "$2" -m "$3" "$img" >/dev/null 2>&1; then
		echo "FAIL: mkfs.nilfs2 -b $1 -B $2 -m $3 refused a $4 image"
		fail=1
		return
	fi
	j=$("$dump" --json "$img" super) || { echo "FAIL: dump super ($1/$2/$3)"; fail=1; return; }
	for kv in "\"s_log_block_size\":$(( $1 == 1024 ? 0 : $1 == 2048 ? 1 : 2 ))" \
		  "\"s_blocks_per_segment\":$2" "\"s_r_segments_percentage\":$3" \
		  '"used":"primary"'; do
		case "$j" in *"$kv"*) ;; *) echo "FAIL: -b $1 -B $2 -m $3: missing $kv"; fail=1 ;; esac
	done
	s=$("$dump" "$img" summaries) || { echo "FAIL: dump summaries ($1/$2/$3)"; fail=1; return; }
	case "$s" in *BAD-*) echo "FAIL: checksum errors: $s"; fail=1 ;; esac
	case "$s" in *"flags BES--"*) ;; *) echo "FAIL: no LOGBGN|LOGEND|SR log: $s"; fail=1 ;; esac
	for ino in 2 3 4 5 6; do
		case "$s" in *"finfo: ino $ino "*) ;; *) echo "FAIL: no finfo for inode $ino"; fail=1 ;; esac
	done
	"$dump" "$img" sr >/dev/null || { echo "FAIL: dump sr ($1/$2/$3)"; fail=1; }
	# mkfs allocates segments 0 (its log) and 1 (the kernel's next segment)
	nsegs=$(echo "$j" | sed -n 's/.*"s_nsegments":\([0-9]*\).*/\1/p')
	seg=$("$dump" "$img" segments | head -n 1)
	[ "$seg" = "$((nsegs - 2)) clean, 2 dirty, last allocated $((nsegs - 1))" ] ||
		{ echo "FAIL: -b $1 -B $2 -m $3: segments: $seg"; fail=1; }
	echo "ok: -b $1 -B $2 -m $3 ($4)"
}

check 1024 2048 5 256M
check 2048 1024 5 256M
check 4096 2048 5 256M
check 4096 512 10 160M
check 1024 256 20 64M
check 4096 4096 1 1G

# a corrupt image gives a clear message and exit 1, never a crash
img="$tmp/img"
truncate -s 256M "$img"
"$MKFS" -q -f "$img" >/dev/null 2>&1
printf '\377\377\377\377' | dd of="$img" bs=1 seek=$((4096 * 1 + 100)) conv=notrunc 2>/dev/null
dd if=/dev/zero of="$img" bs=1 seek=1040 count=8 conv=notrunc 2>/dev/null
out=$("$dump" "$img" sr 2>&1); rc=$?
if [ $rc -ne 1 ]; then echo "FAIL: corrupt image: exit $rc: $out"; fail=1; fi
case "$out" in *"$img"*block*) echo "ok: corrupt image: $out" ;;
	*) echo "FAIL: message lacks device and block: $out"; fail=1 ;; esac
exit $fail
