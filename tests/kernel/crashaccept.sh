# SPDX-License-Identifier: GPL-2.0-or-later
# crashaccept.sh - which trees a crash may leave, judged from the crash log
# the torture guest writes (torture.sh sources this; t-crash-accept.sh
# tests it on made-up logs, no guest needed).
#
# The crash log: "P<n> <manifest line>" and "P<n> I <ino> <path>" (the tree
# and the regular files' inode numbers, recorded before sync point n),
# "D<n> sync" or "D<n> file /mnt/<path>" (sync point n completed: a sync,
# or an fsync or fdatasync of that path), "I0 <ino> <path>" (the inode
# numbers when the crash step began, before any of its operations).
#
# A file is known by its inode number as well as by its name: an fsync or
# fdatasync makes a file's data durable, not the name it was reached by
# (rename and link reach the disk with the directory, at the next sync), so
# after the crash a name re-pointed since the last sync may hold the file it
# held then.  The kernel rolls an fdatasync's log forward by inode number
# into the tree of the last super root, and writes such a log (no super
# root) only for a file already in that tree; a number therefore stands for
# one file in every state a crash can leave, though a later file may reuse it.

# the tree with the mtime left out (crash acceptance compares contents)
strip_time() { awk -F'|' 'BEGIN { OFS = "|" } /^S / { $7 = "" } { print }' "$@"; }

# "ino hash path" for each regular file of tree $1 with inode numbers $2
# ("ino path"); ino "-" where unknown
ino_hashes() {
	awk 'FILENAME == ARGV[1] { ino[$2] = $1; next }
		/^H / { print (($3 in ino) ? ino[$3] : "-") " " $2 " " $3 }' "$2" "$1"
}

# does "ino hash path" list $2 hold inode number $1?
has_ino() { awk -v i="$1" '$1 == i { n++ } END { exit !n }' "$2"; }

# Is tree $1 (inode numbers $4) a state the crash log $2 allows?  $3: the
# model before the crash boot; $5: a directory to work in.  Only a completed
# sync makes the whole tree durable: the candidates are the model (if no
# sync completed) and the states recorded before each sync point at or after
# the last completed sync.  The tree must equal a candidate except for files
# whose contents are those of a later candidate, found by name or by inode
# number (an fdatasync after it, rolled forward).  And a file whose fsync or
# fdatasync completed holds, under every name it has in the tree, its
# contents of then or later; it is missing only if it had no name at the
# last sync or a later candidate lacks it.  Prints the candidate matched;
# on a lost file, 1 and $5/lost names it.
crash_accept() {
	t=$1 clog=$2 m0=$3 tino=$4 d=$5
	rm -rf "$d" && mkdir -p "$d"
	last=$(sed -n 's/^D\([0-9]*\) sync$/\1/p' "$clog" | tail -n 1)
	last=${last:-0}
	cands=
	if [ "$last" = 0 ]; then
		strip_time "$m0" >"$d/c0"
		sed -n 's/^I0 //p' "$clog" >"$d/c0.ino"
		cands=0
	fi
	for j in $(sed -n 's/^P\([0-9]*\) .*/\1/p' "$clog" | uniq); do
		[ "$j" -ge "$last" ] || continue
		sed -n "s/^P$j //p" "$clog" | strip_time >"$d/all"
		grep -v '^I ' "$d/all" >"$d/c$j"
		sed -n 's/^I //p' "$d/all" >"$d/c$j.ino"
		cands="$cands $j"
	done
	rm -f "$d/all"
	for j in $cands; do ino_hashes "$d/c$j" "$d/c$j.ino" >"$d/c$j.ih"; done
	strip_time "$t" >"$d/t"
	ino_hashes "$d/t" "$tino" >"$d/t.ih"
	grep -v '^H ' "$d/t" >"$d/tmeta"
	base=$d/c$last.ih   # the model, or the state recorded before sync $last
	sed -n 's/^D\([0-9]*\) file \/mnt\(.*\)$/\1 .\2/p' "$clog" | while read -r k f; do
		[ "$k" -gt "$last" ] || continue
		# the file the name held then (none: no such file, or a symlink)
		i=$(awk -v f="$f" '$3 == f { print $1 }' "$d/c$k.ih")
		[ -n "$i" ] && [ "$i" != - ] || continue
		want=
		for l in $cands; do [ "$l" -ge "$k" ] && want="$want $d/c$l.ih"; done
		if has_ino "$i" "$d/t.ih"; then
			# shellcheck disable=SC2086
			awk -v i="$i" -v tf="$d/t.ih" 'FILENAME != tf { if ($1 == i) ok[$2] = 1; next }
				$1 == i && !($2 in ok) { bad = 1 } END { exit bad }' $want "$d/t.ih" && continue
		else
			has_ino "$i" "$base" || continue   # no name at the last sync
			for l in $want; do has_ino "$i" "$l" || continue 2; done
		fi
		echo "$f (fsync or fdatasync $k completed)" >"$d/lost"
	done
	[ -f "$d/lost" ] && return 1
	for j in $cands; do
		grep -v '^H ' "$d/c$j" | cmp -s - "$d/tmeta" || continue
		later=
		for l in $cands; do [ "$l" -ge "$j" ] && later="$later $d/c$l.ih"; done
		# each file's contents those of candidate j or later, under its
		# name, or under its inode number if the name held that number in j
		# shellcheck disable=SC2086
		if awk -v jf="$d/c$j.ino" -v tf="$d/t.ih" '
			FILENAME == jf { jino[$2] = $1; next }
			FILENAME != tf { name[$3 " " $2] = 1; num[$1 " " $2] = 1; next }
			!(($3 " " $2) in name) && !($1 != "-" && jino[$3] == $1 && ($1 " " $2) in num) { bad = 1 }
			END { exit bad }' "$d/c$j.ino" $later "$d/t.ih"; then
			echo "$j"
			return 0
		fi
	done
	return 1
}
