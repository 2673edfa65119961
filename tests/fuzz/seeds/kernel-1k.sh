#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# How kernel-1k.img.xz was made (kept, not made afresh: the fuzz runs start
# from the same bytes each time): nilfs-tools-mkfs-1k.img mounted by the
# real kernel (tests/kernel/guest.sh), which wrote the lines below, so that
# the fuzzers start from logs, B-trees, directories and a snapshot as the
# kernel lays them out, across ten segments.
#   xz -dc nilfs-tools-mkfs-1k.img.xz >k.img && ../../kernel/guest.sh run kernel-1k.sh k.img
set -e
mkdir -p /mnt
mount -t nilfs2 /dev/vda /mnt
mkdir -p /mnt/d/e
i=0
while [ $i -lt 12 ]; do
	echo "file $i $(seq 1 $((i * 40)))" >/mnt/d/f$i
	i=$((i + 1))
done
dd if=/dev/urandom of=/mnt/d/e/big bs=1024 count=70 2>/dev/null
ln -s ../d/f3 /mnt/d/e/link
ln -s "$(seq 1 60 | tr '\n' x)" /mnt/longlink
ln /mnt/d/f1 /mnt/d/e/hard
sync
mkcp -s /dev/vda
rm /mnt/d/f2
mv /mnt/d/f4 /mnt/d/e/f4moved
echo changed >>/mnt/d/f5
sync
mkcp /dev/vda
umount /mnt
