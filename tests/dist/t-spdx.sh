#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# t-spdx.sh - every source file of the checkout names its licence in an
# SPDX-License-Identifier line: LGPL-2.1-or-later in the library (lib/,
# include/), GPL-2.0-or-later everywhere else (COPYING, COPYING.LGPL).
# Data (images, expected outputs, manifests) and git plumbing need none.
# Outside a git checkout it skips.
set -u
. "$(dirname "$0")/checkout.sh"

fail=0 n=0
for f in $(git -C "$src" ls-files); do
	case $f in
	*.c | *.h | *.sh | *.am | configure.ac | *.sed | *.conf | *.service.in | \
	man[0-9]/*.[0-9] | .ci/run | bash-completion/* | debian/rules | debian/tests/smoke) ;;
	*) continue ;;
	esac
	case $f in
	lib/* | include/*) want=LGPL-2.1-or-later ;;
	*) want=GPL-2.0-or-later ;;
	esac
	n=$((n + 1))
	got=$(sed -n 's/.*SPDX-License-Identifier: *\([^ ]*\).*/\1/p' "$src/$f" | head -n 1)
	if [ "$got" != "$want" ]; then
		echo "FAIL: $f: SPDX-License-Identifier ${got:-missing}, want $want"
		fail=1
	fi
done
[ "$fail" -eq 0 ] && echo "ok: all $n source files name their licence"
exit "$fail"
