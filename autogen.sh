#!/bin/sh
# Generate configure and Makefile.in from a fresh checkout.
set -e
cd "$(dirname "$0")"
mkdir -p m4
autoreconf -fi
