# SPDX-License-Identifier: GPL-2.0-or-later
# ours.sh - sourced by kernel tests and benchmarks that run nilfsprogs'
# own programs inside the guest (guest.sh only ships nilfs-tools).
#
# pack_ours TAR PROG...  writes a ustar archive of PROG... (into bin/) and
# the shared libraries they need except the C library and loader, which the
# guest already has (into lib/), padded to a whole MiB so that it can be
# attached as a disk.  In the guest:
#     mkdir -p /ours && tar -xf /dev/vdX -C /ours
#     LD_LIBRARY_PATH=/ours/lib /ours/bin/PROG ...
pack_ours() {
	_tar=$1
	shift
	_dir=$(mktemp -d "${TMPDIR:-/tmp}/ours.XXXXXX") || return 1
	mkdir -p "$_dir/bin" "$_dir/lib"
	for _p in "$@"; do
		cp -L "$_p" "$_dir/bin/" || { rm -rf "$_dir"; return 1; }
		ldd "$_p" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' |
		while read -r _l; do
			case ${_l##*/} in libc.so.*|ld-linux*) continue ;; esac
			cp -L "$_l" "$_dir/lib/"
		done
	done
	tar -cf "$_tar" --format=ustar -C "$_dir" bin lib || { rm -rf "$_dir"; return 1; }
	rm -rf "$_dir"
	_sz=$(stat -c %s "$_tar")
	truncate -s $(( (_sz + 1048575) / 1048576 * 1048576 )) "$_tar"
}
