#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/timeline-budget.sh: tests/kernel/t-timeline-budget.sh run long:
# DAYS (default 90) of a FILE_MIB (default 16) file overwritten daily on
# VOL_MIB (default 96) volumes, with the timeline's space budget of 30%
# (A), the free-space limit of min_clean_segments 40% alone (B), and
# without a limit (C, counted).  It fails as the test does if a volume
# fills or the budget is exceeded after a run, and prints what the
# timeline's snapshots held on each and how much space stayed available.
# The guest's time limit grows with the days and the size.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
DAYS=${DAYS:-90} FILE_MIB=${FILE_MIB:-16} VOL_MIB=${VOL_MIB:-96}
export DAYS FILE_MIB VOL_MIB
echo "load $(cut -d' ' -f1-3 /proc/loadavg)"
exec sh "$here/../tests/kernel/t-timeline-budget.sh"
