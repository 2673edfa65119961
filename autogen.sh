#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Generate configure and Makefile.in from a fresh checkout.
set -e
cd "$(dirname "$0")"
mkdir -p m4
autoreconf -fi
