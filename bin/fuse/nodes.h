/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nodes.h - the objects nilfs-fuse has told the kernel of, by FUSE node id.
 * A file is (checkpoint, inode number): the names of one inode in one
 * checkpoint (hard links) are one node.  The mount's own entries (the root,
 * "latest", "snapshots" and its links) are nodes of their own kinds.  A
 * node lives while the kernel holds a lookup of it (FUSE's forget).
 */
#ifndef NILFS_FUSE_NODES_H
#define NILFS_FUSE_NODES_H

#include <stddef.h>
#include <stdint.h>

#include <nlfs/nlfs.h>

enum node_kind {
	NODE_ROOT,       /* the mount's root: @CNO..., latest, snapshots */
	NODE_SNAPDIR,    /* snapshots/ */
	NODE_LATEST,     /* latest -> @CNO */
	NODE_SNAPLINK,   /* snapshots/@CNO -> ../@CNO */
	NODE_FILE,       /* inode INO of checkpoint CNO */
};

struct node {
	struct node *next;       /* hash chain */
	enum node_kind kind;
	uint64_t cno, ino;
	uint64_t nlookup;        /* lookups the kernel holds */
	struct nlfs_file f;      /* NODE_FILE: the inode as read */
};

struct node_table {
	struct node **bucket;
	size_t nbuckets, count;
	struct node root;        /* FUSE_ROOT_ID; never forgotten */
};

int nodes_init(struct node_table *t);
void nodes_free(struct node_table *t);
/* the node of a FUSE node id (the root's is 1) */
struct node *nodes_get(struct node_table *t, uint64_t nodeid);
uint64_t nodes_id(const struct node_table *t, const struct node *n);
/* the node of KIND, CNO, INO, made if there is none yet; one more lookup
 * counted.  NULL on ENOMEM. */
struct node *nodes_ref(struct node_table *t, enum node_kind kind, uint64_t cno, uint64_t ino);
/* NLOOKUP fewer lookups; the node goes when none is left */
void nodes_forget(struct node_table *t, struct node *n, uint64_t nlookup);

#endif
