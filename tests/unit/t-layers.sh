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
#     header).
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

# the calls, from the built objects (libtool's non-PIC ones beside the sources)
objs=$(find "$build/lib" -name 'libnlfs_la-*.o' -not -path '*/.libs/*' 2>/dev/null | sort)
if [ -z "$objs" ] || ! command -v nm >/dev/null; then
	echo "note: no objects or no nm under $build/lib: calls not checked"
	exit $fail
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
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
