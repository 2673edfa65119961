/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mounts.h - the one mount lookup of the commands, through libmount: what
 * a device, an image file (through the loop devices it backs) or a
 * directory is mounted as, with the file system type, so that no command
 * acts on a mount that is not NILFS2.  Loop devices are found by their
 * backing files in sysfs (libmount keeps that lookup private).
 */
#ifndef NLFS_COMMON_MOUNTS_H
#define NLFS_COMMON_MOUNTS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct mnt_entry {
	char *mountpoint;     /* the target */
	char *source;         /* the device as mount(8) named it */
	char *fstype;         /* "nilfs2", "ext4", ... */
	dev_t dev;            /* major:minor of the file system */
	bool rw;
};

/*
 * The mount of what PATH names, of any file system type: a block device
 * (by device number, or by name for file systems whose numbers are
 * anonymous, such as btrfs; symlinks and tags resolved by libmount's
 * cache), a regular file through every loop device backed by it, or a
 * directory (the mount holding it).  With DIR, only a mount at that
 * directory counts.  A mount that is not nilfs2 wins (a refusal is the safe
 * answer), then a read-write one over a read-only one.  TABLE is a
 * mountinfo file, NULL for this process's mounts.  Returns 0 with OUT
 * filled (mnt_free() it), -ENOENT if nothing is mounted, or -errno (stat,
 * the table, ENOMEM).
 */
int mnt_lookup(const char *table, const char *path, const char *dir, struct mnt_entry *out);
/* The same for the block device numbered DEV (nilfs_cleanerd's key). */
int mnt_lookup_dev(const char *table, dev_t dev, const char *dir, struct mnt_entry *out);
void mnt_free(struct mnt_entry *m);
static inline bool mnt_is_nilfs(const struct mnt_entry *m)
{
	return m->fstype && !__builtin_strcmp(m->fstype, "nilfs2");
}

/* Every mount of FSTYPE (NULL: any) in TABLE (NULL: ours), in its order:
 * 0 (*N may be 0), or -errno.  mnt_list_free() frees them. */
int mnt_list(const char *table, const char *fstype, struct mnt_entry **out, size_t *n);
void mnt_list_free(struct mnt_entry *m, size_t n);

/* Is PATH mounted at all (a device, or an image file behind a mounted loop
 * device)?  For writers that refuse any mount (mkfs, offline cleaning). */
bool mnt_path_mounted(const char *path);
/* The same, with the mount found in OUT (mnt_free() it; zeroed if none). */
bool mnt_path_mount(const char *path, struct mnt_entry *out);

/*
 * The check before every online path: 0 if PATH is not mounted or is a
 * nilfs2 mount; -EMEDIUMTYPE if it is mounted as another file system, with
 * "mounted on DIR as TYPE, not NILFS2" in MSG (for an image file the loop
 * device too, for a directory the mount holding it).  Other lookup failures count as not
 * mounted: the caller's own open reports them.
 */
int mnt_check_nilfs(const char *path, char *msg, size_t len);
/* The same check and the mount it found, in one lookup: 0 with OUT filled
 * (mnt_free() it; its mountpoint NULL if PATH is not mounted, or the lookup
 * failed), or -EMEDIUMTYPE with MSG as above. */
int mnt_lookup_nilfs(const char *path, struct mnt_entry *out, char *msg, size_t len);
/* The same, with the lookup's failures told apart: 0 with OUT a nilfs2
 * mount (mnt_free() it); -ENOENT if PATH is not mounted; -EMEDIUMTYPE with
 * MSG as above; or -errno (stat, the table, ENOMEM). */
int mnt_find_nilfs(const char *path, struct mnt_entry *out, char *msg, size_t len);
/* The same, where only a mount at the directory DIR (NULL: any) counts
 * (nilfs_cleanerd DEVICE DIR). */
int mnt_find_nilfs_at(const char *path, const char *dir, struct mnt_entry *out, char *msg,
		      size_t len);
/* mnt_find_nilfs(), but a mount that is not nilfs2 is "prog: PATH: MSG;
 * nothing done" and exit with the program's failure code (1; fsck.nilfs2's
 * 8): the one lookup of a command that acts on a mounted volume online and
 * on an unmounted one offline. */
int cmd_mount_of(const char *path, struct mnt_entry *out);
/* cmd_mount_of(), for a command that needs only the refusal */
void cmd_refuse_foreign_mount(const char *path);

#endif /* NLFS_COMMON_MOUNTS_H */
