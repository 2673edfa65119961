# SPDX-License-Identifier: GPL-2.0-or-later
# timeline.sh - sourced by the snapshot timeline's tests (t-timeline.sh,
# tests/kernel/t-timeline.sh): the bucket rule of nilfs-timeline(8) read a
# second time, in UTC, from GNU date's period names rather than from the
# C code: a period has ended when its name sorts before that of now, its
# checkpoint is the highest number with its name, and a bucket of N takes
# the N greatest ended names.
#
# tl_expect CPS NOW H D W M Y: CPS is a file of "CNO SECONDS" lines; prints
# the checkpoints the buckets keep, one a line, by number.
tl_expect() {
	_cps=$1 _now=$2
	shift 2
	_fmt='+%Y-%m-%d %H|%Y-%m-%d|%G-W%V|%Y-%m|%Y'
	_names=$(awk '{ print "@" $2 }' "$_cps" | TZ=UTC0 date -f - "$_fmt" |
		paste -d'|' "$_cps" - | sed 's/^\([0-9]*\) [0-9-]*|/\1|/')
	_nown=$(TZ=UTC0 date -d "@$_now" "$_fmt")
	_b=2
	for _n in "$@"; do
		_nb=$(echo "$_nown" | cut -d'|' -f$((_b - 1)))
		echo "$_names" | awk -F'|' -v b="$_b" -v now="$_nb" 'NF > 1 && ($b "") < now { print $b "|" $1 }' |
			sort -t'|' -k1,1r -k2,2nr | awk -F'|' '!seen[$1]++ { print $2 }' | head -n "$_n"
		_b=$((_b + 1))
	done | sort -nu
}

# tl_cps IMG: the "CNO SECONDS" lines of every checkpoint of IMG (offline
# lscp -a in UTC)
tl_cps() {
	TZ=UTC0 "$top/lscp" -a "$1" | awk 'NR > 1 { print $1 }' >"$1.cno"
	TZ=UTC0 "$top/lscp" -a "$1" | awk 'NR > 1 { print $2, $3 }' | TZ=UTC0 date -f - +%s |
		paste -d' ' "$1.cno" -
	rm -f "$1.cno"
}
