/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Names found near the inode's number (diffP.h), before the scan of every
 * directory: inode numbers are handed out in the order files are made,
 * and trees are made a directory at a time, so a file's directory is mostly among the directories numbered just below
 * it, their parents, and those parents' subdirectories numbered below it.
 * Every candidate is checked by its entries (and its path is then found
 * upwards, each step checked), so a wrong guess costs a directory read;
 * the candidates of all the inodes sought are read together, round by
 * round, and past a budget of directories the scan does the work.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "diffP.h"

#define SEEK_WINDOW 512      /* inode numbers looked back for the first candidate */
#define SEEK_PER_ROUND 8     /* candidates an unnamed inode has read per round */
#define SEEK_BUDGET 16       /* directories read per inode sought, past SEEK_BASE */
#define SEEK_BASE 256
#define SEEK_ROUNDS 64
#define SEEK_MAXCAND 64      /* candidates an inode may have in all */

struct seeker {
	struct ent *e;
	uint64_t need, got;
	struct seek_cand {
		uint64_t dir;
		bool taken;
	} cand[SEEK_MAXCAND];        /* directories to look in */
	size_t ncand;
	uint64_t took[SEEK_PER_ROUND];   /* those taken in this round */
	size_t ntook;
};

struct seek {
	struct dctx *c;
	int side;
	struct seeker *s;
	size_t n, cap;
	size_t *of;                  /* per changed inode: its seeker + 1, 0 for none */
	struct found *hits;
	size_t nhits, hcap;
};

/* how far directory DIR is from S's inode: those numbered below it first */
static uint64_t seek_distance(const struct seeker *s, uint64_t dir)
{
	return dir < s->e->ino ? s->e->ino - dir : UINT64_MAX / 2 + (dir - s->e->ino);
}

/* DIR a candidate of S; when S has all it may hold, in place of the
 * farthest one not yet taken, if DIR is nearer */
static void seek_push(struct seeker *s, uint64_t dir)
{
	size_t far = SIZE_MAX;

	for (size_t i = 0; i < s->ncand; i++) {
		if (s->cand[i].dir == dir)
			return;
		if (!s->cand[i].taken &&
		    (far == SIZE_MAX || seek_distance(s, s->cand[i].dir) > seek_distance(s, s->cand[far].dir)))
			far = i;
	}
	if (s->ncand < SEEK_MAXCAND)
		s->cand[s->ncand++] = (struct seek_cand){ dir, false };
	else if (far != SIZE_MAX && seek_distance(s, dir) < seek_distance(s, s->cand[far].dir))
		s->cand[far].dir = dir;
}

/* the nearest candidate of S not yet taken, taken now; false if none */
static bool seek_take(struct seeker *s, uint64_t *dir)
{
	size_t best = SIZE_MAX;

	for (size_t i = 0; i < s->ncand; i++)
		if (!s->cand[i].taken &&
		    (best == SIZE_MAX || seek_distance(s, s->cand[i].dir) < seek_distance(s, s->cand[best].dir)))
			best = i;
	if (best == SIZE_MAX)
		return false;
	s->cand[best].taken = true;
	*dir = s->cand[best].dir;
	return true;
}

/* a seeker's look down the ifile for its first candidate */
struct seek_down {
	size_t s;                    /* the seeker */
	uint64_t next, lo;           /* the next inode number to look at; the lowest */
	uint64_t blkoff;             /* the ifile block NEXT is in */
};

static int cmp_seek_down(const void *a, const void *b)
{
	const struct seek_down *x = a, *y = b;

	return x->blkoff < y->blkoff ? -1 : x->blkoff > y->blkoff;
}

/*
 * The first candidates of every seeker: the directory numbered nearest
 * below its inode (within SEEK_WINDOW), else the root.  Cold, looking one
 * seeker after another would wait for the disk at every ifile block: the
 * seekers go down together instead, a block each per round, and a round's
 * blocks are asked for at once and read once each, in disk order.
 */
static int seek_start(struct seek *sk, uint8_t *buf)
{
	struct dctx *c = sk->c;
	struct seek_down *dn = sk->n ? malloc(sk->n * sizeof(*dn)) : NULL;
	struct fblk *fb = sk->n ? malloc(sk->n * sizeof(*fb)) : NULL;
	size_t n = 0;
	int rc = sk->n && (!dn || !fb) ? -ENOMEM : 0;

	for (size_t i = 0; !rc && i < sk->n; i++) {
		uint64_t ino = sk->s[i].e->ino, lo = ino > SEEK_WINDOW ? ino - SEEK_WINDOW : 0;
		uint32_t off;

		if (lo < c->first_ino)
			lo = c->first_ino;
		if (ino <= lo) {
			seek_push(&sk->s[i], NLFS_ROOT_INO);
			continue;
		}
		dn[n] = (struct seek_down){ .s = i, .next = ino - 1, .lo = lo };
		nlfs_palloc_locate(c->bs, c->isz, dn[n].next, &dn[n].blkoff, &off);
		n++;
	}
	while (!rc && n) {
		size_t nfb = 0, k = 0, b = 0;
		uint64_t loaded = UINT64_MAX;
		bool readable = false;

		nlfs_sort(dn, n, sizeof(*dn), cmp_seek_down);
		for (size_t i = 0; i < n; i++)
			if (!i || dn[i].blkoff != dn[i - 1].blkoff)
				fb[nfb++] = (struct fblk){ &c->ifile[sk->side], dn[i].blkoff, 0, 0 };
		diff_locate_blocks(c, fb, nfb);
		for (size_t i = 0; i < n; i++) {
			struct seek_down d = dn[i];
			bool found = false, gone = false;

			while (fb[b].blkoff != d.blkoff)
				b++;
			if (fb[b].blkoff != loaded) {
				loaded = fb[b].blkoff;
				readable = !fb[b].rc &&
					   (!fb[b].phys || !nlfs_io_read(nlfs_fs_io(c->fs), buf, c->bs,
									 fb[b].phys * c->bs));
			}
			/* unreadable: the scan will say what is wrong */
			gone = !readable;
			/* this block's records, downwards (a hole has none) */
			while (!gone && !found) {
				uint64_t blkoff;
				uint32_t off;

				nlfs_palloc_locate(c->bs, c->isz, d.next, &blkoff, &off);
				if (blkoff != d.blkoff)
					break;
				if (fb[b].phys) {
					struct nlfs_inode rec;

					memcpy(&rec, buf + off, sizeof(rec));
					found = is_dir(&rec) && nlfs_le16(rec.i_links_count);
				}
				if (found)
					seek_push(&sk->s[d.s], d.next);
				else if (d.next == d.lo)
					gone = true;
				else
					d.next--;
			}
			if (gone)
				seek_push(&sk->s[d.s], NLFS_ROOT_INO);
			if (found || gone)
				continue;
			nlfs_palloc_locate(c->bs, c->isz, d.next, &d.blkoff, &(uint32_t){ 0 });
			dn[k++] = d;   /* k <= i: the rounds' entries move down */
		}
		n = k;
	}
	free(dn);
	free(fb);
	return rc;
}

/* the entries of D that name an inode sought: links found */
static int seek_check(struct seek *sk, struct dc_dir *d)
{
	struct dctx *c = sk->c;

	if (!d->ok || d->checked[sk->side])
		return 0;
	d->checked[sk->side] = true;
	for (size_t i = 0; i < d->n; i++) {
		struct ent *e = diff_find_ent(c, d->v[i].ino);
		struct seeker *s = e ? (sk->of[e - c->ents] ? &sk->s[sk->of[e - c->ents] - 1] : NULL) :
			NULL;
		char *name;

		if (!s)
			continue;
		name = strdup(d->v[i].name);
		if (!name || NLFS_GROW(sk->hits, sk->hcap, sk->nhits + 1)) {
			free(name);
			return -ENOMEM;
		}
		sk->hits[sk->nhits++] = (struct found){ e, d->ino, name };
		s->got++;
	}
	return 0;
}

/* more candidates from D, read for S: its parent, its subdirectories
 * numbered below the inode sought (the nearest first) */
static void seek_expand(struct seeker *s, const struct dc_dir *d)
{
	if (!d->ok)
		return;
	if (d->parent && d->parent != d->ino)
		seek_push(s, d->parent);
	for (size_t i = 0; i < d->n; i++)
		if (d->v[i].type == NLFS_FT_DIR && d->v[i].ino < s->e->ino)
			seek_push(s, d->v[i].ino);
}

/* a seeker for every changed inode of SK's side whose names are not all
 * known (directories aside: found upwards) */
static int seek_init(struct seek *sk)
{
	struct dctx *c = sk->c;

	sk->of = calloc(c->nents ? c->nents : 1, sizeof(*sk->of));
	if (!sk->of)
		return -ENOMEM;
	for (size_t i = 0; i < c->nents; i++) {
		struct ent *e = &c->ents[i];
		uint64_t known = diff_links_known(c, e->ino, sk->side);
		uint64_t need = diff_links_needed(e, sk->side);

		if (known == need || (known == 0 && e->alive[sk->side] && is_dir(&e->rec[sk->side])))
			continue;
		if (NLFS_GROW(sk->s, sk->cap, sk->n + 1))
			return -ENOMEM;
		sk->s[sk->n] = (struct seeker){ .e = e, .need = need };
		sk->of[i] = ++sk->n;
	}
	return 0;
}

/* One round's candidates: up to SEEK_PER_ROUND taken by every seeker
 * still short of names, those not read yet into *BATCH (*NB, sorted,
 * each once).  *LEFT: the seekers short of names; *EXHAUSTED: one of them
 * has no candidate left. */
static int seek_round(struct seek *sk, uint64_t **batch, size_t *bcap, size_t *nb, size_t *left,
		      bool *exhausted)
{
	int rc = 0;

	*nb = *left = 0;
	*exhausted = false;
	for (size_t i = 0; !rc && i < sk->n; i++) {
		struct seeker *s = &sk->s[i];

		s->ntook = 0;
		if (s->got >= s->need)
			continue;
		++*left;
		while (!rc && s->ntook < SEEK_PER_ROUND && seek_take(s, &s->took[s->ntook])) {
			if (!diff_dc_get(sk->c, sk->side, s->took[s->ntook])) {
				if (NLFS_GROW(*batch, *bcap, *nb + 1))
					rc = -ENOMEM;
				else
					(*batch)[(*nb)++] = s->took[s->ntook];
			}
			s->ntook++;
		}
		*exhausted |= !s->ntook;
	}
	*nb = nlfs_sort_unique_u64(*batch, *nb);
	return rc;
}

/* Every name found, placed in its directory's path (the directories and
 * all above them read first, a level a round).  *LEFT set where a
 * directory is not reached from the root (a damaged volume: the scan
 * decides, and says what is wrong), the paths found dropped. */
static int seek_place(struct seek *sk, size_t *left)
{
	struct dctx *c = sk->c;
	int side = sk->side;
	uint64_t *dirs = sk->nhits ? malloc(sk->nhits * sizeof(*dirs)) : NULL;
	int rc = sk->nhits && !dirs ? -ENOMEM : 0;

	for (size_t i = 0; dirs && i < sk->nhits; i++)
		dirs[i] = sk->hits[i].dir;
	if (!rc)
		rc = diff_dc_load_up(c, side, dirs, sk->nhits);
	free(dirs);
	for (size_t i = 0; !rc && i < sk->nhits; i++) {
		const char *dp;

		rc = diff_dir_path(c, side, sk->hits[i].dir, &dp);
		if (rc && rc != -ENOMEM) {
			nlfs_err_clear(c->err);
			for (size_t k = 0; k < sk->n; k++) {
				for (size_t j = 0; j < sk->s[k].e->npaths[side]; j++)
					free(sk->s[k].e->paths[side][j].path);
				sk->s[k].e->npaths[side] = 0;
			}
			*left = 1;
			return 0;
		}
		if (!rc)
			rc = diff_push_path(sk->hits[i].e, side, sk->hits[i].dir,
					    diff_join(dp, sk->hits[i].name, strlen(sk->hits[i].name)));
	}
	for (size_t i = 0; !rc && i < sk->n; i++)
		sk->s[i].e->searched[side] = true;
	return rc;
}

/* Every link of the changed inodes of SIDE whose names are not all known
 * (directories aside, which are found upwards) by the search above: 0
 * with their paths added and e->searched[SIDE] set, 1 where the search
 * gave up (nothing added), or a negative errno. */
int diff_seek_names(struct dctx *c, int side)
{
	struct seek sk = { .c = c, .side = side };
	uint64_t *batch = NULL, loaded = 0, budget;
	size_t bcap = 0, left = 0;
	uint8_t *buf = malloc(c->bs);
	int rc = buf ? seek_init(&sk) : -ENOMEM;

	budget = SEEK_BASE + SEEK_BUDGET * (uint64_t)sk.n;
	if (!rc)
		rc = seek_start(&sk, buf);
	for (unsigned round = 0; !rc; round++) {
		size_t nb;
		bool exhausted;

		rc = seek_round(&sk, &batch, &bcap, &nb, &left, &exhausted);
		if (rc || !left || exhausted || round == SEEK_ROUNDS || loaded + nb > budget)
			break;
		loaded += nb;
		rc = diff_dc_load(c, side, batch, nb, &c->st->dirs_sought);
		for (size_t i = 0; !rc && i < sk.n; i++) {
			struct seeker *s = &sk.s[i];

			for (size_t k = 0; !rc && k < s->ntook; k++) {
				struct dc_dir *d = diff_dc_get(c, side, s->took[k]);

				rc = seek_check(&sk, d);
				if (!rc)
					seek_expand(s, d);
			}
		}
	}
	if (!rc && !left)
		rc = seek_place(&sk, &left);
	for (size_t i = 0; i < sk.nhits; i++)
		free(sk.hits[i].name);
	free(sk.hits);
	free(sk.s);
	free(sk.of);
	free(batch);
	free(buf);
	return rc ? rc : left != 0;
}
