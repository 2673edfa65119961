# SPDX-License-Identifier: GPL-2.0-or-later
# filter.sed - what differs between two runs on equal damage: 32-bit
# checksums (the CRC seed is random per mkfs run)
s/0x[0-9a-f]\{8\}\([^0-9a-f]\|$\)/0xXXXXXXXX\1/g
