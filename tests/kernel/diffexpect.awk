# SPDX-License-Identifier: GPL-2.0-or-later
# diffexpect.awk OLD NEW - what nilfs-diff should print between two trees
# the guest described (t-diff.sh: "ino|parent ino|./path|record" lines),
# zfs diff's way: by inode number, a link (parent, name) that went and one
# that came are a rename, a kept link of an inode whose record changed is
# modified, and what sits below a renamed directory is not listed.
BEGIN { FS = "|" }
{
	s = FNR == NR ? 0 : 1
	ino = $1; path = $3; rec = $4
	sub(/^\./, "", path)
	if (path == "") path = "/"
	name = path; sub(/.*\//, "", name)
	have[s, ino] = 1; recs[s, ino] = rec; inos[ino] = 1
	k = ++n[s, ino]
	key[s, ino, k] = $2 "/" name; lp[s, ino, k] = path
}
END {
	for (ino in inos) {
		if (!have[1, ino]) { for (k = 1; k <= n[0, ino]; k++) print "- " lp[0, ino, k]; continue }
		if (!have[0, ino]) { for (k = 1; k <= n[1, ino]; k++) print "+ " lp[1, ino, k]; continue }
		changed = recs[0, ino] != recs[1, ino]
		if (lp[1, ino, 1] == "/") { if (changed) print "M /"; continue }
		for (k = 1; k <= n[0, ino]; k++) {
			found = 0
			for (j = 1; j <= n[1, ino]; j++)
				if (key[0, ino, k] == key[1, ino, j]) found = j
			if (found && changed) print "M " lp[1, ino, found]
			if (!found) print "- " lp[0, ino, k]
		}
		for (j = 1; j <= n[1, ino]; j++) {
			found = 0
			for (k = 1; k <= n[0, ino]; k++)
				if (key[0, ino, k] == key[1, ino, j]) found = 1
			if (!found) print "+ " lp[1, ino, j]
		}
	}
}
