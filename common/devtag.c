/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * devtag.c - device tags through libblkid's evaluation (udev's
 * /dev/disk/by-* links, else a scan of the block devices), so a volume can
 * be named by what mkfs.nilfs2 -L/-U gave it, whatever device it sits on
 * today.  Only the tags libblkid knows are taken as tags: any other
 * argument is a path, even with '=' in it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <blkid.h>

#include "cli.h"
#include "devtag.h"

static const struct {
	const char *prefix, *unmatched;
} tags[] = {
	{ "UUID=", "no device has this UUID" },
	{ "LABEL=", "no device has this label" },
	{ "PARTUUID=", "no partition has this UUID" },
	{ "PARTLABEL=", "no partition has this label" },
};

/* the resolved names, reachable until exit (a command resolves one or two) */
static char *resolved[4];

static int tag_of(const char *arg)
{
	for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++)
		if (!strncmp(arg, tags[i].prefix, strlen(tags[i].prefix)))
			return (int)i;
	return -1;
}

int dev_lookup(const char *arg, const char **dev)
{
	char *name;
	size_t i;

	if (tag_of(arg) < 0) {
		*dev = arg;
		return 0;
	}
	name = blkid_evaluate_tag(arg, NULL, NULL);
	if (!name)
		return -ENODEV;
	for (i = 0; i < sizeof(resolved) / sizeof(resolved[0]) && resolved[i]; i++)
		;
	if (i == sizeof(resolved) / sizeof(resolved[0])) {
		free(name);
		return -ENOMEM;
	}
	resolved[i] = name;
	*dev = name;
	return 0;
}

const char *dev_lookup_reason(const char *arg, int rc)
{
	int t = tag_of(arg);

	return rc == -ENODEV && t >= 0 ? tags[t].unmatched : strerror(-rc);
}

const char *dev_resolve(const char *arg)
{
	const char *dev;
	int rc = dev_lookup(arg, &dev);

	if (rc) {
		cli_warnx("%s: %s", arg, dev_lookup_reason(arg, rc));
		return NULL;
	}
	return dev;
}
