# SPDX-License-Identifier: GPL-2.0-or-later
# checkout.sh - sourced by the tests that compare the source tree with git:
# $src is the source tree; the test skips (77) unless it is the top of a
# git checkout (a tarball unpacked inside one, as make distcheck does, is not).
src=$(cd "${top_srcdir:-.}" && pwd -P) || exit 99
command -v git >/dev/null 2>&1 || { echo "SKIP: no git"; exit 77; }
toplevel=$(git -C "$src" rev-parse --show-toplevel 2>/dev/null) || toplevel=
[ -n "$toplevel" ] && [ "$(cd "$toplevel" && pwd -P)" = "$src" ] ||
	{ echo "SKIP: $src is not a git checkout"; exit 77; }
