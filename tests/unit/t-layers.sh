#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The library's layers (README, Layout): each folder of lib/ uses only
# itself and the folders below it,
#     lib/ (root: errors, arrays, CRC, nlfsP.h) < io < format < read < write < gc < repair
# so that no file of the reading layers (io, format, read) includes the
# writer's private header (write/writerP.h) or anything else above it.
#  1. every quoted #include of a file under lib/ names a file of its own
#     layer or a lower one (public headers, <nlfs/...>, go everywhere);
#  2. where the objects are built, no object calls a function or uses data
#     that only a higher layer's object defines (nm).
# And the rules of the commands (README, Layout):
#  3. a private header (*P.h) is included only from its own folder or the
#     folders below it (util-linux's rule), in lib/ as in the commands;
#  4. no command compiles another command's source: every source a
#     Makemodule.am under sbin/ or bin/ names is in its own folder or in
#     common/ (what two commands share lives there, once);
#  5. a command's or common/'s quoted #include names a file of its own
#     folder or of common/ (never "../other/..." nor a library's private
#     header);
#  6. where the objects are built, no file of sbin/fsck calls, through a
#     chain of other files, back into itself (nm): its passes share the
#     context (fsck.h) and the helpers below them, and what one part must
#     learn from another that calls it goes through a callback, as in
#     e2fsck.
set -u
src=$(cd "${top_srcdir:-.}" && pwd) || exit 1
build=$(cd "${top_builddir:-.}" && pwd) || exit 1
fail=0

rank() { # a folder under lib/ -> its layer's rank; empty if it is none
	case $1 in
	lib) echo 0 ;;
	lib/io) echo 1 ;;
	lib/format) echo 2 ;;
	lib/read) echo 3 ;;
	lib/write) echo 4 ;;
	lib/gc) echo 5 ;;
	lib/repair) echo 6 ;;
	esac
}

# the quoted #includes of file $1
quoted_includes() {
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$1"
}

cd "$src" || exit 1
files=$(find lib -name '*.[ch]' | sort)
[ -n "$files" ] || { echo "FAIL: no sources under $src/lib"; exit 1; }
for f in $files; do
	dir=$(dirname "$f")
	r=$(rank "$dir")
	if [ -z "$r" ]; then
		echo "FAIL: $f: $dir is no layer (add it to README's Layout and to this test)"
		fail=1
		continue
	fi
	for inc in $(quoted_includes "$f"); do
		target=$(realpath -m --relative-to=. "$dir/$inc")
		tr=$(rank "$(dirname "$target")")
		if [ ! -e "$target" ]; then
			echo "FAIL: $f includes \"$inc\", which is not $target"
			fail=1
		elif [ -z "$tr" ]; then
			echo "FAIL: $f includes $target, which is in no layer of lib/"
			fail=1
		elif [ "$tr" -gt "$r" ]; then
			echo "FAIL: $f includes $target, a file of a higher layer"
			fail=1
		fi
	done
done
[ $fail -eq 0 ] && echo "ok: every include under lib/ stays in its layer or below"

# 3. private headers stay in their folder (the writer's, write/writerP.h,
# too: gc/ and repair/ use write/construction.h)
pfail=0
for f in $(find lib sbin bin common tests -name '*.[ch]' | sort); do
	dir=$(dirname "$f")
	for inc in $(quoted_includes "$f" | grep 'P\.h$'); do
		target=$(realpath -m --relative-to=. "$dir/$inc")
		hdir=$(dirname "$target")
		case $dir/ in "$hdir"/*) continue ;; esac
		echo "FAIL: $f includes $target, private to $hdir/"
		pfail=1
	done
done
[ $pfail -eq 0 ] && echo "ok: every private header (*P.h) is included from its own folder only"
[ $pfail -eq 0 ] || fail=1

# 4. no command compiles another command's source
cfail=0
for mk in $(find sbin bin -name Makemodule.am | sort); do
	own=$(dirname "$mk")
	for used in $(grep -v '^[[:space:]]*#' "$mk" | grep -oE '[A-Za-z0-9_./-]+\.[ch]\b' | sort -u); do
		case $used in "$own"/*|common/*) ;; *)
			echo "FAIL: $mk compiles $used, which is not in $own/ nor in common/"
			cfail=1 ;;
		esac
	done
done
[ $cfail -eq 0 ] && echo "ok: every command compiles only its own sources and common/"
[ $cfail -eq 0 ] || fail=1

# 5. a command includes only its own folder's headers and common/'s
ifail=0
for f in $(find sbin bin common -name '*.[ch]' | sort); do
	dir=$(dirname "$f")
	for inc in $(quoted_includes "$f"); do
		target=$(realpath -m --relative-to=. "$dir/$inc")
		if [ -e "$target" ]; then
			[ "$(dirname "$target")" = "$dir" ] && continue
		elif [ -e "common/$inc" ]; then
			continue
		fi
		echo "FAIL: $f includes \"$inc\", which is neither in $dir/ nor in common/"
		ifail=1
	done
done
[ $ifail -eq 0 ] && echo "ok: every command includes only its own headers and common/'s"
[ $ifail -eq 0 ] || fail=1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# 6. no file-level call loop inside sbin/fsck: the graph of which file uses
# which other's symbols, and which files each reaches through it (its
# closure, Warshall's); an arrow A -> B is on a loop where B reaches A
fobjs=$(find "$build/sbin/fsck" -name 'fsck_nilfs2-*.o' 2>/dev/null | sort)
if [ -z "$fobjs" ] || ! command -v nm >/dev/null; then
	echo "note: no objects or no nm under $build/sbin/fsck: its calls not checked"
else
	: >"$tmp/fdefs"
	: >"$tmp/fuses"
	for o in $fobjs; do
		f=${o##*/fsck_nilfs2-}
		f=sbin/fsck/${f%.o}.c
		[ -e "$src/$f" ] || continue   # left from a source that moved or went
		nm -g --defined-only "$o" | awk -v f="$f" 'NF == 3 { print $3, f }' >>"$tmp/fdefs"
		nm -u "$o" | awk -v f="$f" '{ print $NF, f }' >>"$tmp/fuses"
	done
	awk 'NR == FNR { at[$1] = $2; next }
	     ($1 in at) && at[$1] != $2 {
		e = $2 SUBSEP at[$1]
		if (!(e in sym)) { from[++n] = $2; to[n] = at[$1]; reach[e]; node[$2]; node[at[$1]] }
		sym[e] = sym[e] " " $1 }
	     END {
		for (k in node) for (i in node) if ((i, k) in reach)
			for (j in node) if ((k, j) in reach) reach[i, j]
		for (i = 1; i <= n; i++)
			if ((to[i], from[i]) in reach) {
				printf "FAIL: %s -> %s (%s ) is on a loop of calls between files of sbin/fsck\n",
				       from[i], to[i], sym[from[i], to[i]]
				bad = 1
			}
		exit bad
	     }' "$tmp/fdefs" "$tmp/fuses" && echo "ok: no loop of calls between the files of sbin/fsck" || fail=1
fi

# the calls, from the built objects (libtool's non-PIC ones beside the sources)
objs=$(find "$build/lib" -name 'libnlfs_la-*.o' -not -path '*/.libs/*' 2>/dev/null | sort)
if [ -z "$objs" ] || ! command -v nm >/dev/null; then
	echo "note: no objects or no nm under $build/lib: calls not checked"
	exit $fail
fi
for o in $objs; do
	d=$(dirname "$o")
	r=$(rank "lib${d#"$build"/lib}")
	name=${o#"$build"/}
	# an object left from a source that moved or went is no longer linked
	c=${name%.o}.c
	[ -e "$src/$(dirname "$c")/${c##*/libnlfs_la-}" ] || continue
	[ -n "$r" ] || { echo "FAIL: object $name is in no layer"; fail=1; continue; }
	nm -g --defined-only "$o" | awk -v r="$r" -v o="$name" 'NF == 3 { print $3, r, o }' >>"$tmp/defs"
	nm -u "$o" | awk -v r="$r" -v o="$name" '{ print $NF, r, o }' >>"$tmp/uses"
done
awk 'NR == FNR { rank[$1] = $2; at[$1] = $3; next }
     ($1 in rank) && rank[$1] > $2 {
	printf "FAIL: %s uses %s of %s, a higher layer\n", $3, $1, at[$1]; bad = 1 }
     END { exit bad }' "$tmp/defs" "$tmp/uses" || fail=1
[ $fail -eq 0 ] && echo "ok: no object under lib/ uses a higher layer's function"
exit $fail
