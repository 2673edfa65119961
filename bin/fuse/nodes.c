/* SPDX-License-Identifier: GPL-2.0-or-later */
/* nodes.c - the node table of nilfs-fuse, see nodes.h. */
#include <stdlib.h>
#include <string.h>

#include "nodes.h"

#define ROOT_ID 1   /* FUSE_ROOT_ID */

static size_t slot(const struct node_table *t, enum node_kind kind, uint64_t cno, uint64_t ino)
{
	return nlfs_hash_slot(nlfs_hash64(nlfs_hash64(cno) ^ ino) ^ (uint64_t)kind, t->nbuckets);
}

int nodes_init(struct node_table *t)
{
	memset(t, 0, sizeof(*t));
	t->nbuckets = 1024;
	t->bucket = calloc(t->nbuckets, sizeof(*t->bucket));
	if (!t->bucket)
		return -1;
	t->root.kind = NODE_ROOT;
	t->root.nlookup = 1;
	return 0;
}

void nodes_free(struct node_table *t)
{
	for (size_t i = 0; i < t->nbuckets; i++) {
		struct node *n = t->bucket[i];

		while (n) {
			struct node *next = n->next;

			free(n);
			n = next;
		}
	}
	free(t->bucket);
	t->bucket = NULL;
}

struct node *nodes_get(struct node_table *t, uint64_t nodeid)
{
	return nodeid == ROOT_ID ? &t->root : (struct node *)(uintptr_t)nodeid;
}

uint64_t nodes_id(const struct node_table *t, const struct node *n)
{
	return n == &t->root ? ROOT_ID : (uint64_t)(uintptr_t)n;
}

/* twice the buckets when there are more nodes than buckets */
static void grow(struct node_table *t)
{
	size_t n = t->nbuckets * 2;
	struct node **b = calloc(n, sizeof(*b));
	struct node **old = t->bucket;
	size_t oldn = t->nbuckets;

	if (!b)
		return;   /* longer chains, still right */
	t->bucket = b;
	t->nbuckets = n;
	for (size_t i = 0; i < oldn; i++) {
		struct node *x = old[i];

		while (x) {
			struct node *next = x->next;
			size_t s = slot(t, x->kind, x->cno, x->ino);

			x->next = b[s];
			b[s] = x;
			x = next;
		}
	}
	free(old);
}

struct node *nodes_ref(struct node_table *t, enum node_kind kind, uint64_t cno, uint64_t ino)
{
	struct node *n;
	size_t s;

	if (kind == NODE_ROOT) {
		t->root.nlookup++;
		return &t->root;
	}
	s = slot(t, kind, cno, ino);
	for (n = t->bucket[s]; n; n = n->next)
		if (n->kind == kind && n->cno == cno && n->ino == ino) {
			n->nlookup++;
			return n;
		}
	n = calloc(1, sizeof(*n));
	if (!n)
		return NULL;
	n->kind = kind;
	n->cno = cno;
	n->ino = ino;
	n->nlookup = 1;
	n->next = t->bucket[s];
	t->bucket[s] = n;
	if (++t->count > t->nbuckets)
		grow(t);
	return n;
}

void nodes_forget(struct node_table *t, struct node *n, uint64_t nlookup)
{
	struct node **p;

	if (n == &t->root)
		return;
	n->nlookup = nlookup < n->nlookup ? n->nlookup - nlookup : 0;
	if (n->nlookup)
		return;
	for (p = &t->bucket[slot(t, n->kind, n->cno, n->ino)]; *p; p = &(*p)->next)
		if (*p == n) {
			*p = n->next;
			t->count--;
			free(n);
			return;
		}
}
