# SPDX-License-Identifier: GPL-2.0-or-later
# ours.sh - sourced by kernel tests and benchmarks that run nilfsprogs'
# own programs inside the guest (guest.sh only ships nilfs-tools).
#
# pack_ours TAR PROG...  writes a ustar archive of PROG... (into bin/) and
# the shared libraries they need except the C library and loader, which the
# guest already has (into lib/), padded to a whole MiB so that it can be
# attached as a disk.  The libraries a program loads on first use
# (common/lazylib.h: it names their sonames) come along with theirs.  In
# the guest:
#     mkdir -p /ours && tar -xf /dev/vdX -C /ours
#     LD_LIBRARY_PATH=/ours/lib /ours/bin/PROG ...
pack_ours() {
	_tar=$1
	shift
	_dir=$(mktemp -d "${TMPDIR:-/tmp}/ours.XXXXXX") || return 1
	mkdir -p "$_dir/bin" "$_dir/lib"
	for _p in "$@"; do
		cp -L "$_p" "$_dir/bin/" || { rm -rf "$_dir"; return 1; }
		for _o in "$_p" $(strings -a "$_p" | grep -E '^lib[a-z0-9_]+\.so\.[0-9]+$' | grep -v '^libc\.so' |
				   while read -r _so; do
					   ldconfig -p | awk -v so="$_so" '$1 == so && /x86-64|64bit/ { print $NF; exit }'
				   done); do
			[ "$_o" = "$_p" ] || cp -L "$_o" "$_dir/lib/"
			ldd "$_o" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }'
		done |
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
