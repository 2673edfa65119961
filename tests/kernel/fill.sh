# SPDX-License-Identifier: GPL-2.0-or-later
# fill.sh - sourced by kernel tests and bench scripts: the real kernel takes
# over volumes our offline writers left and must keep every byte.
#
#   fill_expect IMG DIR     the files of DIR (the tree IMG holds) are what
#                           the kernel must read on IMG
#   fill_expect_file IMG F  the same from F, lines "sha256  ./path"
#   fill_run OUT IMG...     one guest: each IMG (at most 20) is mounted and
#                           its files read back, then dd fills the free
#                           space the kernel reports to about 80 %, sync,
#                           unmount, mount again and read back every file,
#                           the old ones and what dd wrote; the kernel's
#                           free-block count must stay below its total and
#                           no nilfs2 error may be logged.  Then fsck.nilfs2
#                           -fn on the host must find each volume clean.
#                           Prints one line per failure; 0 if none.
# The caller sets top (the build) and guest (guest.sh), and FILL_TMP (a
# directory of its own).

fill_expect() {
	(cd "$2" && find . -type f | LC_ALL=C sort | xargs -r sha256sum) >"$1.expect"
}

fill_expect_file() {
	cp "$2" "$1.expect"
}

fill_run() {
	fill_out=$1
	shift
	fill_script=$FILL_TMP/fill-guest
	{
		echo 'bad() { echo "CHECK FAILED: $*"; }'
		fill_n=0
		for fill_img in "$@"; do
			fill_d=vd$(printf "\\$(printf %03o $((97 + fill_n)))")
			echo "cat >/tmp/expect.$fill_d <<'EXPECT'"
			cat "$fill_img.expect" 2>/dev/null
			echo "EXPECT"
			fill_n=$((fill_n + 1))
		done
		cat <<'GUEST'
mkdir -p /mnt
# random bytes are slow to make in an emulated guest: one odd-sized chunk,
# repeated behind a line naming the file, so that no two blocks of a
# file are alike
dd if=/dev/urandom of=/tmp/chunk bs=1021 count=1021 2>/dev/null
for d in $(ls /sys/block | grep '^vd' | sort); do
	[ -f /tmp/expect.$d ] || continue
	if ! mount -t nilfs2 /dev/$d /mnt; then bad "$d: mount"; continue; fi
	(cd /mnt && sha256sum -c -s /tmp/expect.$d) || bad "$d: the files the host wrote differ"
	set -- $(df -k /mnt | awk 'NR == 2 { print $2, $3, $4 }')
	total=$1 used=$2 avail=$3
	[ "$avail" -le "$total" ] && [ "$used" -le "$total" ] ||
		bad "$d: df says $used KiB used and $avail free of $total"
	: >/tmp/fill.$d
	# what df calls free also holds the logs' summaries, the DAT entries
	# and the block maps of what is written: about a tenth with 16-block
	# segments of 1 KiB blocks
	left=$((avail * 8 / 10)) i=0
	while [ $left -gt 0 ]; do
		k=$left
		[ $k -gt 8192 ] && k=8192
		{ echo "$d fill.$i"; j=0; while [ $j -le $((k / 1021)) ]; do cat /tmp/chunk; j=$((j + 1)); done; } |
			dd of=/mnt/fill.$i bs=65536 count=$((k * 1024)) iflag=fullblock,count_bytes 2>/dev/null || bad "$d: dd fill.$i"
		(cd /mnt && sha256sum ./fill.$i) >>/tmp/fill.$d
		left=$((left - k)) i=$((i + 1))
	done
	sync
	umount /mnt || bad "$d: umount"
	if ! mount -t nilfs2 /dev/$d /mnt; then bad "$d: mount again"; continue; fi
	(cd /mnt && sha256sum -c -s /tmp/expect.$d) || bad "$d: the host's files differ after the fill"
	(cd /mnt && sha256sum -c -s /tmp/fill.$d) || bad "$d: what dd wrote differs after a remount"
	echo "FILLED $d $(wc -l </tmp/fill.$d) files of $avail KiB free"
	umount /mnt || bad "$d: umount again"
done
dmesg | grep -i nilfs | grep -iE 'error|corrupt|invalid|fail' | sed 's/^/CHECK FAILED: kernel: /'
echo FILL DONE
GUEST
	} >"$fill_script"
	"$guest" run "$fill_script" "$@" >"$fill_out" 2>&1
	fill_rc=$?
	fill_fails=0
	if [ $fill_rc -ne 0 ] || ! grep -qx "FILL DONE" "$fill_out"; then
		echo "the guest exited $fill_rc without finishing"
		tail -n 20 "$fill_out"
		return 1
	fi
	grep "^CHECK FAILED" "$fill_out" && fill_fails=1
	fill_n=0
	for fill_img in "$@"; do
		fill_d=vd$(printf "\\$(printf %03o $((97 + fill_n)))")
		grep -q "^FILLED $fill_d " "$fill_out" || { echo "$fill_img ($fill_d): not filled"; fill_fails=1; }
		"$top/fsck.nilfs2" -fn "$fill_img" >"$FILL_TMP/fsck.out" 2>&1 ||
			{ echo "$fill_img: fsck.nilfs2 -fn after the kernel's fill:"; tail -n 5 "$FILL_TMP/fsck.out"; fill_fails=1; }
		fill_n=$((fill_n + 1))
	done
	return $fill_fails
}
