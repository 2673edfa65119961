#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Names with control characters and bytes that are not UTF-8, copied into
# an image by mkfs.nilfs2 -d: dump.nilfs2 ls escapes them for a terminal
# (a bidirectional override, U+202E, too) and keeps them exact in --json,
# JSON that a strict parser accepts (no lone surrogates).
set -u
top=$(cd "${top_builddir:-.}" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/t-names.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

mkdir -p "$tmp/src"
esc=$(printf 'a\033[2Jb')
nl=$(printf 'two\nlines')
: >"$tmp/src/$esc"
: >"$tmp/src/$nl"
: >"$tmp/src/$(printf 'bad\377')"
: >"$tmp/src/$(printf 'caf\303\251')"
: >"$tmp/src/$(printf 'evil\342\200\256txt.exe')"
truncate -s 256M "$tmp/img"
"$top/mkfs.nilfs2" -q -f -d "$tmp/src" "$tmp/img" || { echo "FAIL: mkfs -d"; exit 1; }
"$top/dump.nilfs2" "$tmp/img" ls / >"$tmp/ls" || bad "dump ls"
LC_ALL=C grep -q "$(printf '\033')" "$tmp/ls" && bad "a raw ESC byte reached the output"
for want in 'a\\033\[2Jb' 'two\\nlines' 'bad\\377' "$(printf 'caf\303\251')" \
	'evil\\342\\200\\256txt.exe'; do
	grep -q " $want\$" "$tmp/ls" || bad "no escaped name '$want' in: $(cat "$tmp/ls")"
done
[ "$(wc -l <"$tmp/ls")" -eq 7 ] || bad "a name was split over lines: $(cat "$tmp/ls")"
"$top/dump.nilfs2" --json "$tmp/img" ls / >"$tmp/json" || bad "dump --json ls"
if command -v python3 >/dev/null; then
	python3 - "$tmp/json" <<'PY' || bad "the JSON names do not give the bytes back"
import json, sys
# strict: a lone surrogate (\udcXX) is refused; the bytes of a name that
# is not UTF-8 are in name_bytes
def refuse(s):
    raise ValueError(s)
entries = json.load(open(sys.argv[1]), parse_constant=refuse)
for e in entries:
    e["name"].encode("utf-8")        # no lone surrogate
names = {bytes.fromhex(e["name_bytes"]) if "name_bytes" in e else e["name"].encode()
         for e in entries}
want = {b"a\x1b[2Jb", b"two\nlines", b"bad\xff", "café".encode(),
        "evil\u202etxt.exe".encode()}
sys.exit(0 if want <= names else 1)
PY
fi
exit $fail
