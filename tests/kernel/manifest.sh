# SPDX-License-Identifier: GPL-2.0-or-later
# manifest.sh - one line per path of a tree, the same under the guest's
# busybox and the host's GNU tools, so trees can be compared across them.
#   S path|rawmode|nlink|uid|gid|size|mtime|major|minor  (size '-' for dirs)
#   H sha256  path                                       (regular files)
#   L path -> target                                     (symlinks)
manifest() {
	# $1: directory to describe; paths are printed relative to it
	(
	cd "$1" || exit 1
	find . | LC_ALL=C sort | xargs stat -c '%n|%f|%h|%u|%g|%s|%y|%t|%T' |
		awk -F'|' 'BEGIN { OFS = "|" }
			{ if (length($2) == 4 && substr($2, 1, 1) == "4") $6 = "-"
			  print "S " $0 }'
	find . -type f | LC_ALL=C sort | xargs -r sha256sum | sed 's/^/H /'
	find . -type l | LC_ALL=C sort | while read -r l; do
		echo "L $l -> $(readlink "$l")"
	done
	)
}
