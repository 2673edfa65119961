# SPDX-License-Identifier: GPL-2.0-or-later
# sendcheck.sh - what tests/kernel/t-send.sh and bench/send-chain.sh share,
# sourced after manifest.sh, on the host and (the manifests) in the guest's
# busybox alike.
#
#   send_source_tree DIR     the first checkpoint's tree, for mkfs.nilfs2 -d:
#                            small files, a file of 4096 blocks of 4 KiB
#                            (a B-tree of three levels), a sparse file,
#                            a hard link across directories, a symlink, a
#                            FIFO, a directory four deep, a mode
#   plain_manifest DIR       manifest.sh's lines, the receiver's own
#                            directory left out (and the top's link count,
#                            which then counts one directory more)
#   send_manifest DIR [noblocks]
#                            plain_manifest, then which names share a file
#                            ("I name = first name") and, unless noblocks,
#                            the 512-byte blocks each regular file has
#                            allocated ("B name count", so that holes
#                            stay holes: comparable between two trees on
#                            the same kind of file system, as nilfs2's
#                            count includes its B-tree nodes), taken
#                            after a sync of DIR's file system

send_source_tree() {
	mkdir -p "$1/a/b" "$1/c" "$1/deep/x/y/z" || return 1
	for i in 1 2 3 4 5; do echo "file $i" >"$1/a/f$i"; done
	for i in 1 2 3; do echo "g $i" >"$1/a/b/g$i"; echo "h $i" >"$1/c/h$i"; done
	echo deep >"$1/deep/x/y/z/leaf"
	head -c 16777216 /dev/urandom >"$1/big" || return 1
	truncate -s 10M "$1/sparse" &&
		printf x | dd of="$1/sparse" bs=1 seek=5000000 conv=notrunc 2>/dev/null &&
		ln "$1/a/f1" "$1/c/f1link" && ln -s a/f1 "$1/sym" && mkfifo "$1/fifo" &&
		chmod 750 "$1/a/b"
}

plain_manifest() {
	manifest "$1" | grep -v '\./\.nilfs-receive' | sed 's/^\(S \.|[^|]*|\)[0-9]*/\1-/'
}

send_manifest() {
	plain_manifest "$1"
	(cd "$1" && find . ! -type d | grep -v '^\./\.nilfs-receive/' | LC_ALL=C sort |
		xargs -r stat -c '%i %n' |
		awk '{ if ($1 in first) print "I " $2 " = " first[$1]; else first[$1] = $2 }')
	[ "${2:-}" = noblocks ] && return
	# counted once written back: ext4 counts the block of an extent tree
	# (a file of five extents or more) only when it allocates the data
	sync -f "$1" 2>/dev/null || sync
	(cd "$1" && find . -type f | grep -v '^\./\.nilfs-receive/' | LC_ALL=C sort |
		xargs -r stat -c 'B %n %b')
}
