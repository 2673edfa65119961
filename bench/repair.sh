#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/repair.sh - the random-fault campaign of fsck.nilfs2 -y, long:
# SEEDS draws from FIRST on each base (tests/fsck/t-fsck-random.sh, host
# checks), then, with KERNEL=1, the kernel mounts every volume -y repaired
# (tests/kernel/t-fsck-random.sh, which runs the host checks itself).
#   bench/repair.sh [SEEDS=N] [FIRST=K] [KERNEL=1]      (defaults 1000, 1, 0)
# Failing draws are kept under the build tree's random-fail.SEED/.
SEEDS=1000 FIRST=1 KERNEL=0
for a in "$@"; do
	case $a in
	SEEDS=*|FIRST=*|KERNEL=*) eval "${a%%=*}=\${a#*=}" ;;
	*) echo "usage: $0 [SEEDS=N] [FIRST=K] [KERNEL=1]" >&2; exit 2 ;;
	esac
done
here=$(cd "$(dirname "$0")" && pwd)
top_builddir=${top_builddir:-$here/..}
export top_builddir SEEDS FIRST
if [ "$KERNEL" = 1 ]; then
	PER_GUEST=${PER_GUEST:-20} sh "$here/../tests/kernel/t-fsck-random.sh"
else
	sh "$here/../tests/fsck/t-fsck-random.sh"
fi
