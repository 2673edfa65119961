# SPDX-License-Identifier: GPL-2.0-or-later
# diffnorm.awk - one comparable form of nilfs-diff -H output and of
# diffexpect.awk's: a rename is its old path removed and its new created,
# and a path both removed and created (an inode number reused there, which
# only nilfs-diff can tell by the inode's generation) is modified.
BEGIN { FS = "[\t ]" }
$1 == "R" { rm[$2] = 1; mk[$3] = 1; next }
$1 == "-" { rm[$2] = 1; next }
$1 == "+" { mk[$2] = 1; next }
$1 == "M" { md[$2] = 1; next }
END {
	for (p in rm) if (p in mk) { md[p] = 1; delete mk[p]; delete rm[p] }
	for (p in rm) print "- " p
	for (p in mk) print "+ " p
	for (p in md) print "M " p
}
