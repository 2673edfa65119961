#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# t-completion.sh - the bash completions (bash-completion/nilfsprogs): every
# program the build installs has one, and a few of them, run as bash runs
# them (COMP_WORDS, COMP_CWORD, the function, COMPREPLY), offer options,
# option values, dump.nilfs2's views and the paths inside an image, and the
# checkpoint numbers lscp lists (snapshots only where chcp cp wants them).
#
# Exit status follows automake conventions: 0 pass, 1 fail, 77 skip.
if [ -z "${BASH_VERSION:-}" ]; then
	# make check runs tests with sh
	command -v bash >/dev/null 2>&1 || { echo "SKIP: no bash"; exit 77; }
	exec bash "$0" "$@"
fi
set -u
top=$(cd "${top_builddir:-$(dirname "$0")/../..}" && pwd)
src=$(cd "${top_srcdir:-$(dirname "$0")/../..}" && pwd)
comp=$src/bash-completion/nilfsprogs
for p in mkfs.nilfs2 lscp dump.nilfs2 tests/gc/gcfault; do
	[ -x "$top/$p" ] || { echo "FAIL: $top/$p not built"; exit 1; }
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-completion.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# the completions run our lscp and dump.nilfs2
PATH=$top:$PATH
# shellcheck source=/dev/null
. "$comp" || { echo "FAIL: sourcing $comp"; exit 1; }
pass=0 nfail=0
ok() { pass=$((pass + 1)); echo "ok: $*"; }
bad() { nfail=$((nfail + 1)); echo "FAIL: $*"; }

# complete_line LINE: COMPREPLY for the cursor at the end of LINE (a
# trailing space starts a new word), one word a line, sorted, in $tmp/got
complete_line() {
	local fn
	read -r -a COMP_WORDS <<<"$1"
	[[ $1 == *" " ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMP_LINE=$1 COMP_POINT=${#1}
	fn=$(complete -p "${COMP_WORDS[0]}" 2>/dev/null | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
	COMPREPLY=()
	[[ -n $fn ]] && "$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" \
		"${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort >"$tmp/got"
}
# expect LINE WORD...: exactly these words are offered
expect() {
	local line=$1
	shift
	complete_line "$line"
	printf '%s\n' "$@" | sort >"$tmp/want"
	if cmp -s "$tmp/got" "$tmp/want"; then
		ok "'$line' -> $(tr '\n' ' ' <"$tmp/got")"
	else
		bad "'$line': got [$(tr '\n' ' ' <"$tmp/got")], want [$(tr '\n' ' ' <"$tmp/want")]"
	fi
}
# offers LINE WORD...: these words are among those offered
offers() {
	local line=$1 w
	shift
	complete_line "$line"
	for w in "$@"; do
		grep -qxF -- "$w" "$tmp/got" || {
			bad "'$line' does not offer '$w' (got: $(tr '\n' ' ' <"$tmp/got"))"
			return
		}
	done
	ok "'$line' offers $*"
}

# every installed program has a completion
progs=$(sed -n 's/^\(s\{0,1\}bin\)_PROGRAMS *+= *//p' "$src"/*/*/Makemodule.am "$src"/*/Makemodule.am |
	tr -s ' \t' '\n' | sed '/^$/d' | sort -u)
[ -n "$progs" ] || bad "no programs found in the Makemodule.am files"
for p in $progs; do
	complete -p "$p" >/dev/null 2>&1 || bad "no completion for $p"
done
ok "a completion for each of: ${progs//$'\n'/ }"

# an image with checkpoints 1..4 (2 and 4 minor ones, which lscp shows only
# with -a), 3 a snapshot, and a small tree
mkdir -p "$tmp/tree/dir"
echo a >"$tmp/tree/file"
echo b >"$tmp/tree/dir/inner"
img=$tmp/vol.img
truncate -s 64M "$img"
"$top/mkfs.nilfs2" -q -f -b 1024 -B 256 -d "$tmp/tree" "$img" || { bad "mkfs"; exit 1; }
"$top/tests/gc/gcfault" checkpoints "$img" 2 && "$top/tests/gc/gcfault" snapshot "$img" ||
	{ bad "checkpoints on the image"; exit 1; }

expect "fsck.nilfs2 --check" --checkpoints --check-data
expect "fsck.nilfs2 --checkpoints " latest snapshots all
expect "mkfs.nilfs2 -b 6" 65536
offers "dump.nilfs2 $img " super logs summaries segment sr checkpoints segments \
	inode bmap ls cat stats extract
expect "dump.nilfs2 $img ls /" /dir/ /file
expect "dump.nilfs2 $img cat /dir/" /dir/inner
expect "dump.nilfs2 $img -c " 1 2 3 4
expect "rmcp $img " 1 2 3 4
expect "nilfs-timeline --dry" --dry-run
offers "nilfs-timeline -H 24 -n $tmp/vol" "$img"
for line in "nilfs-timeline -H " "nilfs-timeline $img "; do
	complete_line "$line"
	[ -s "$tmp/got" ] && bad "'$line' offers $(tr '\n' ' ' <"$tmp/got")" || ok "'$line' offers nothing"
done
expect "chcp cp $img " 3
expect "lscp $img -i " 1 2 3 4
expect "chcp " cp ss
expect "mount.nilfs2 -o ro,no" ro,nogc ro,nobarrier ro,nodiscard ro,norecovery
offers "nilfs-clean --of" --offline
offers "nilfs-undo -" --dry-run --force

echo "$pass passed, $nfail failed"
[ "$nfail" -eq 0 ]
