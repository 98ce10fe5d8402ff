// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The coverage decoder (lwpt/pt_cov.h, Documentation/ptcov.rst).
 *
 * Packets (SDM 33.4.2) drive a walk over basic blocks of the image. A
 * block runs from an address to its first change-of-flow instruction
 * (SDM Table 33-1, classified by model/x86's x86_cofi_decode()), to the end
 * of the IP filter range it starts in (SDM 33.2.5.2), or to code the image
 * lacks. Blocks are cached with their successors, so a later decode of the
 * same code follows pointers: one TNT bit (33.4.2.1) is one step from a
 * conditional block to one of its two successors, one TIP (33.4.2.2) one
 * lookup of (branch, target). Direct jumps and calls need no packet and
 * are walked through.
 *
 * Edges get dense ids; a decode counts ids, and the map is written once at
 * the end from the touched ids (map[slot] += count, mod 256), so the walk
 * never hashes an address pair twice.
 *
 * The TNT-run path cache: for a conditional block and the next 8 TNT bits,
 * the block reached after them and the edges passed (libxdc's key: block
 * address + next TNT bits), so a warm decode consumes a whole TNT.8 byte in
 * one step.
 *
 * Flow semantics follow libipt 2.0.5's instruction-flow decoder (the test
 * reference, tests/libpt/cov_ref.c): an edge is counted once the decoder
 * goes on past its destination; a branch whose destination an OVF, a
 * suppressed IP or the end of the trace leaves unreached counts nothing.
 */
#include <lwpt/pt_cov.h>

#include <errno.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "libpt/cov_internal.h"
#include "libpt/cov_scan.h"
#include "libpt/pkt_internal.h"
#include "model/x86/x86_cofi.h"

/* Block kinds: what ends the block. */
enum cov_kind {
	BK_COND,	/* Jcc, JrCXZ, LOOPcc: one TNT bit */
	BK_JMP,		/* direct near JMP: no packet */
	BK_CALL,	/* direct near CALL: no packet, pushes */
	BK_IND,		/* indirect near JMP: TIP */
	BK_CALL_IND,	/* indirect near CALL: TIP, pushes */
	BK_RET,		/* near RET: TIP, or a TNT bit when compressed */
	BK_FAR,		/* far transfers (SDM Table 33-1): TIP */
	BK_LEAVE,	/* runs out of the filter ranges: TIP.PGD */
	BK_BAD,		/* no valid instruction at @cofi */
	BK_NOMAP,	/* the image has no code at @cofi */
};

#define COV_NO_EDGE	0u		/* edge id 0 is never used */
#define COV_IN		1u		/* id 1: "the edge pending before this
					 * path", while a path is recorded */
#define COV_WALK_MAX	(1u << 16)	/* direct transfers without a packet */
#define COV_RETSTACK	64		/* as libipt's pt_retstack */
#define COV_PATH_EDGES	62		/* edges a cached path can hold */
#define COV_PATH_TNT	8		/* TNT.8 bytes a cached path can hold */
#define COV_PCACHE	2048		/* direct-mapped cache of recent paths */
#define COV_PATH_PUSH	8		/* calls a cached path can hold */
#define COV_NX		4		/* successors a path remembers */
#define COV_HALT_RS	1u		/* a compressed return met: again with
					 * the return stack */
#define COV_HALT_RESYNC	2u		/* a decode error: next PSB */

struct cov_blk;

/*
 * A cached path: from a block, a run of TNT.8 bytes (SDM 33.4.2.1) and,
 * for a segment, the TIP that ends the run (33.4.2.2): what the walk did
 * the last time (edges counted, calls pushed, block reached).
 */
struct cov_path {
	/* first line: what following the chain reads */
	uint64_t k0;			/* key: the start block, @ntnt and @seg
					 * (path_k0()), */
	uint64_t tnt;			/* the TNT.8 bytes (byte i at bits 8i), */
	uint64_t ip;			/* the TIP's IP (segments) */
	struct cov_blk *end;		/* where the walk is after it */
	struct cov_path *nx[COV_NX];	/* paths that followed, by nx_slot()
					 * of their key (chain_link()) */
	/* second line: what applying it reads and writes */
	uint8_t ntnt;			/* the key's TNT.8 bytes */
	uint8_t seg;			/* 1: ends with the TIP at @ip, 2: with
					 * the TIP.PGD at @ip, 3: with a TIP.PGD
					 * without an IP (@ip 0) */
	uint8_t nedge;			/* counted edges in @ids */
	uint8_t npush;			/* return addresses pushed */
	uint8_t in_act;			/* the edge pending before: 0 kept,
					 * 1 counted, 2 dropped */
	uint8_t plain;			/* no @npush: seg_run() applies it */
	uint8_t pge_mode;		/* @pge_blk's mode */
	uint32_t hits;			/* uses in this decode */
	uint32_t pend;			/* the last edge, not yet counted */
	uint64_t *push;			/* @npush addresses */
	uint64_t pge_ip;		/* seg 2: the TIP.PGE that came after, */
	struct cov_blk *pge_blk;	/* and its block (NULL: none yet) */
	uint32_t ids[];			/* @nedge edge ids, in order */
};

_Static_assert(offsetof(struct cov_path, ntnt) == 64,
	       "following the chain reads one cache line");

/*
 * What a path records while it is walked the first time: @p (allocated
 * with the decoder: a struct with a flexible array member is not a member
 * of another in C11) and its edges and pushes.
 */
struct cov_path_rec {
	struct cov_path *p;
	uint32_t ids[COV_PATH_EDGES];
	uint64_t push[COV_PATH_PUSH];
};

/* A path table entry: the key inline, so a probe reads no path. */
struct cov_pent {
	uint64_t k0;			/* path_k0() */
	uint64_t tnt;
	uint64_t ip;
	struct cov_path *p;
};

struct cov_blk {
	uint64_t start;		/* first instruction */
	uint64_t cofi;		/* last instruction (the branch) */
	uint64_t next;		/* address after it (fall-through) */
	uint64_t target;	/* direct target (COND, JMP, CALL) */
	struct cov_blk *succ[2];/* cached: [0] fall-through, [1] target */
	uint32_t eid[2];	/* edge ids to succ[0], succ[1] */
	uint32_t ninsn;
	uint8_t kind;		/* enum cov_kind */
	uint8_t mode;		/* enum x86_mode */
	uint8_t tgt_out;	/* direct target outside the filter */
	uint8_t flags;		/* BLK_F_* */
	struct cov_path *lastp;	/* the last path looked up from here */
	const uint8_t *lens;	/* with the flow hooks: the @ninsn
				 * instructions' lengths */
};

/* cov_blk.flags */
#define BLK_F_VMENTRY	0x1u	/* the branch is VMLAUNCH/VMRESUME (SKD022) */
#define BLK_F_UD	0x2u	/* a UD0/UD1/UD2 before the end
				 * (lpt_cov_block.flags) */

struct cov_edge_ent {
	uint64_t src, dst;
	uint32_t id;
};

/* An edge with its id (edges_sorted()). */
struct cov_edge_id {
	uint64_t src, dst;
	uint32_t id, count;
};

struct lpt_cov {
	struct lpt_cov_config cfg;
	const struct lpt_cov_image *img;
	uint32_t pkt_flags;
	uint32_t errata;	/* LPT_ERRATUM_* of cfg.cpu */
	bool xdc_only;		/* LPT_COV_F_XDC without LPT_COV_F_EDGES */
	bool pext;		/* PEXT is there and fast (pext_fast()) */

	/* Block cache: open addressing on (start, mode). */
	struct cov_blk **btab;
	size_t bmask, nblk;
	/* Block arena. */
	struct cov_blk *arena;
	size_t arena_left;
	void **chunks;
	size_t nchunks, chunk_cap;
	size_t bytes;		/* cache memory, for the cap */
	/* Path cache: open addressing on (block, TNT.8 byte). */
	struct cov_pent *ptab;
	size_t pmask;
	uint8_t *parena;
	size_t parena_left;
	struct cov_path *last_path;	/* the path just applied */
	struct cov_path *pcache[COV_PCACHE];	/* recent paths by hash */
	struct cov_path **ptouched;	/* paths with hits this decode */
	size_t nptouched, ptouched_cap;
	/* Recording a path. */
	bool rec, rec_bad;
	struct cov_path_rec rp;
	uint64_t npaths, flushes;

	/* Edges: (src, dst) -> id, and per-id data. */
	struct cov_edge_ent *etab;
	size_t emask;
	uint32_t nedge, ecap;
	uint64_t *e_src, *e_dst;
	uint32_t *e_slot;
	uint8_t *e_cond;
	uint32_t *e_cnt;	/* this decode */
	uint32_t *touched;
	uint32_t ntouched;

	/* Decode state. */
	struct cov_blk *cur;	/* where execution goes on; NULL: no IP */
	uint32_t pend;		/* edge whose destination is cur->start */
	uint8_t mode, pend_mode;
	bool have_pend_mode;
	bool fup_pending, skip_fup, in_psb, ovf, psb_fup_valid;
	bool psb_mode_bad;	/* PSB+'s MODE.Exec is not the walk's mode */
	bool tsx_abort;		/* MODE.TSX with abort: the next FUP is its */
	bool fup_abort;		/* the pending FUP is a TSX abort's */
	bool trunc;		/* the buffer ends inside a packet */
	const uint8_t *tbegin;	/* the trace being decoded */
	uint64_t fup_ip, psb_fup, last_ip;
	uint64_t retstack[COV_RETSTACK];
	unsigned int rs_top, rs_n;
	bool use_rs;		/* keep the return stack (compressed returns
				 * seen): until then calls push nothing */
	uint8_t halt;		/* the packet loop stops: COV_HALT_* */
	int err;		/* first error of this decode */
	uint64_t fault;
	/* this decode's missing code, distinct pages in the order met
	 * (lpt_cov_faults()); nfault_all counts those not kept too */
	uint64_t faults[LPT_COV_MAX_FAULTS];
	unsigned int nfault, nfault_all;

	struct lpt_cov_stats st;
	struct lpt_cov_edge *out;
	size_t out_cap;
	/* cov_edges_dst(): per edge id, its destination's cached block
	 * (64-bit mode), NULL where not looked up (yet); @eblk_gen the
	 * @gen they were looked up in; per edge out, its destination's */
	const struct cov_blk **e_blk;
	size_t e_blk_cap;
	uint64_t eblk_gen;
	const struct cov_blk **out_blk;
	size_t out_blk_cap;
	struct cov_edge_id *out_id;	/* the edges with their ids, sorted
					 * (edges_sorted()), and its scratch */
	size_t out_id_cap;
	uint64_t gen;		/* new at each decode and flush (cov_gen()) */
	uint64_t gen_flush;	/* counts flushes: the blocks' lifetimes */

	/* The flow hooks (cov_internal.h): NULL for coverage alone. */
	const struct cov_flow_ops *fo;
	void *fctx;
	const uint8_t *fpos, *fend;	/* cov_flow_step()'s position */
	const uint8_t *fpkt;		/* the packet being decoded */
	uint8_t *lenbuf;		/* blk_build()'s lengths */
	size_t lenbuf_cap;
	uint8_t *larena;		/* where block lengths are kept */
	size_t larena_left;
	bool keep_lens;		/* the hooks or LPT_COV_F_LENS: blocks keep
				 * their instructions' lengths */
	bool fdone;
	uint32_t fitems;	/* blocks and events the step gave */
	uint64_t ferr_ip;	/* the instruction an error is at, or 0 */
	struct cov_flow_ahead fa;	/* libipt's read-ahead (flow_ahead.c) */
	bool fresynced;		/* the packet at fpos is where a sync went */
	uint8_t fmode;		/* a MODE.Exec outside PSB+: its mode, */
	bool fmode_set;		/* for the next TIP or TIP.PGE's event */
	const uint8_t *trunc_at;	/* the packet cut by the end */
	bool trunc_event;	/* the cut packet is not a TNT or TIP: libipt
				 * does not decode on up to it */
};

const char *lpt_cov_errstr(int err)
{
	switch (err) {
	case LPT_ERR_COV_NOMAP:
		return "code missing from the image";
	case LPT_ERR_COV_DESYNC:
		return "trace and code disagree";
	case LPT_ERR_COV_BADINSN:
		return "no valid instruction where the trace executes";
	case LPT_ERR_COV_NOT_REGULAR:
		return "not a regular file (a device, FIFO or directory): not read";
	case LPT_ERR_COV_BUILD_ID:
		return "another build-id than the capture recorded: not the binary traced";
	case LPT_ERR_COV_LOOP:
		return "no trace progress (endless loop of direct branches?)";
	default:
		return lpt_errstr(err);
	}
}

void lpt_cov_config_init(struct lpt_cov_config *cfg)
{
	if (!cfg)
		return;
	memset(cfg, 0, sizeof(*cfg));
	cfg->size = sizeof(*cfg);
	cfg->map_size = LPT_COV_MAP_SIZE;
	cfg->cache_max = LPT_COV_CACHE_MAX;
}

/* ---- cache memory -------------------------------------------------------- */

static void *cov_chunk(struct lpt_cov *c, size_t size)
{
	void *p;

	if (c->nchunks == c->chunk_cap) {
		size_t cap = c->chunk_cap ? 2 * c->chunk_cap : 64;
		void **n = realloc(c->chunks, cap * sizeof(*n));

		if (!n)
			return NULL;
		c->chunks = n;
		c->chunk_cap = cap;
	}
	p = malloc(size);
	if (!p)
		return NULL;
	c->chunks[c->nchunks++] = p;
	c->bytes += size;
	return p;
}

/* cov_gen()'s values: unique in the process (a decoder freed and another
 * allocated at its address never repeats one), from any thread. */
static _Atomic uint64_t cov_gens;

static uint64_t gen_next(void)
{
	return atomic_fetch_add_explicit(&cov_gens, 1, memory_order_relaxed) + 1;
}

static void cov_flush(struct lpt_cov *c)
{
	c->gen = gen_next();	/* the blocks go: cov_edges_dst()'s too */
	c->gen_flush++;
	for (size_t i = 0; i < c->nchunks; i++)
		free(c->chunks[i]);
	c->nchunks = 0;
	c->arena = NULL;
	c->arena_left = 0;
	memset(c->btab, 0, (c->bmask + 1) * sizeof(*c->btab));
	c->nblk = 0;
	memset(c->etab, 0, (c->emask + 1) * sizeof(*c->etab));
	memset(c->ptab, 0, (c->pmask + 1) * sizeof(*c->ptab));
	c->parena = NULL;
	c->parena_left = 0;
	c->larena = NULL;
	c->larena_left = 0;
	c->last_path = NULL;
	c->nptouched = 0;
	memset(c->pcache, 0, sizeof(c->pcache));
	c->nedge = 2;
	c->e_cond[COV_IN] = 0;
	c->e_cnt[COV_IN] = 0;
	c->npaths = 0;
	c->bytes = (c->bmask + 1) * sizeof(*c->btab) +
		   (c->pmask + 1) * sizeof(*c->ptab) +
		   (c->emask + 1) * sizeof(*c->etab) +
		   (size_t)c->ecap * (8 + 8 + 4 + 1 + 4 + 4);
	c->cur = NULL;
	c->pend = COV_NO_EDGE;
}

/* ---- edges --------------------------------------------------------------- */

static inline size_t hash2(uint64_t a, uint64_t b)
{
	uint64_t h = (a * 0x9e3779b97f4a7c15ull) ^ (b + 0x632be59bd9b4e019ull +
						    (a << 6) + (a >> 2));

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (size_t)(h ^ (h >> 32));
}

static int edge_grow_arrays(struct lpt_cov *c)
{
	uint32_t cap = c->ecap ? 2 * c->ecap : 256;

#define GROW(p) do {						\
		void *n_ = realloc(c->p, (size_t)cap * sizeof(*c->p));	\
		if (!n_)						\
			return LPT_ERR_NOMEM;				\
		c->p = n_;						\
	} while (0)
	GROW(e_src);
	GROW(e_dst);
	GROW(e_slot);
	GROW(e_cond);
	GROW(e_cnt);
	GROW(touched);
#undef GROW
	memset(c->e_cnt + c->ecap, 0, (size_t)(cap - c->ecap) * sizeof(*c->e_cnt));
	c->bytes += (size_t)(cap - c->ecap) * (8 + 8 + 4 + 1 + 4 + 4);
	c->ecap = cap;
	return 0;
}

static int edge_rehash(struct lpt_cov *c)
{
	size_t n = 2 * (c->emask + 1);
	struct cov_edge_ent *t = calloc(n, sizeof(*t));

	if (!t)
		return LPT_ERR_NOMEM;
	for (size_t i = 0; i <= c->emask; i++) {
		struct cov_edge_ent *e = &c->etab[i];
		size_t j;

		if (!e->id)
			continue;
		for (j = hash2(e->src, e->dst) & (n - 1); t[j].id; j = (j + 1) & (n - 1))
			;
		t[j] = *e;
	}
	free(c->etab);
	c->bytes += (n - (c->emask + 1)) * sizeof(*t);
	c->etab = t;
	c->emask = n - 1;
	return 0;
}

/* The id of edge (src, dst); created on first use. 0 on ENOMEM. */
static uint32_t edge_id(struct lpt_cov *c, uint64_t src, uint64_t dst, bool cond)
{
	size_t j;

	for (j = hash2(src, dst) & c->emask; c->etab[j].id; j = (j + 1) & c->emask)
		if (c->etab[j].src == src && c->etab[j].dst == dst)
			return c->etab[j].id;
	if (c->nedge >= c->ecap && edge_grow_arrays(c))
		return COV_NO_EDGE;
	if (2 * ((size_t)c->nedge + 1) > c->emask + 1) {
		if (edge_rehash(c))
			return COV_NO_EDGE;
		for (j = hash2(src, dst) & c->emask; c->etab[j].id;
		     j = (j + 1) & c->emask)
			;
	}
	uint32_t id = c->nedge++;

	c->etab[j] = (struct cov_edge_ent){ src, dst, id };
	c->e_src[id] = src;
	c->e_dst[id] = dst;
	c->e_slot[id] = lpt_cov_slot(src, dst, c->cfg.map_size);
	c->e_cond[id] = cond;
	c->e_cnt[id] = 0;
	return id;
}

static inline void count(struct lpt_cov *c, uint32_t id)
{
	if (!c->e_cnt[id]++)
		c->touched[c->ntouched++] = id;
	if (c->rec) {
		if (c->rp.p->nedge < COV_PATH_EDGES)
			c->rp.ids[c->rp.p->nedge++] = id;
		else
			c->rec_bad = true;
	}
}

/* The destination of the pending edge was reached: count it. */
static inline void commit(struct lpt_cov *c)
{
	if (c->pend) {
		if (c->pend == COV_IN)	/* recording: the path commits it */
			c->rp.p->in_act = 1;
		else
			count(c, c->pend);
		c->pend = COV_NO_EDGE;
	}
}

/*
 * @id is the edge of the branch just taken; it counts once the decoder
 * goes on past its destination (commit()). For the libxdc map alone
 * (LPT_COV_F_XDC without LPT_COV_F_EDGES) only conditional outcomes
 * count, and libxdc counts them at their TNT bit: count them now and keep
 * nothing pending.
 */
static inline void set_pend(struct lpt_cov *c, uint32_t id)
{
	if (c->xdc_only) {
		if (c->e_cond[id])
			count(c, id);
		return;
	}
	c->pend = id;
}

/* The pending edge's destination is not reached in the trace (OVF, end of
 * trace, suppressed IP): libipt shows no instruction there, so no edge;
 * libxdc counted a conditional outcome at its TNT bit already. */
static inline void drop(struct lpt_cov *c)
{
	if (c->pend == COV_IN)		/* recording: the path drops it */
		c->rp.p->in_act = 2;
	else if (c->pend && (c->cfg.flags & LPT_COV_F_XDC) && c->e_cond[c->pend])
		count(c, c->pend);
	c->pend = COV_NO_EDGE;
}

/* ---- blocks -------------------------------------------------------------- */

static bool in_filter(const struct lpt_cov *c, uint64_t ip, uint64_t *end)
{
	if (!c->cfg.nfilter) {
		*end = 0;	/* none */
		return true;
	}
	for (uint32_t i = 0; i < c->cfg.nfilter; i++) {
		const struct lpt_cov_range *r = &c->cfg.filter[i];

		if (ip >= r->start && ip < r->end) {
			*end = r->end;
			return true;
		}
	}
	return false;
}

static inline size_t hash1(uint64_t a, uint8_t mode)
{
	uint64_t h = (a ^ ((uint64_t)mode << 56)) * 0x9e3779b97f4a7c15ull;

	return (size_t)(h ^ (h >> 29));
}

static struct cov_blk *blk_lookup(const struct lpt_cov *c, uint64_t ip,
				  uint8_t mode)
{
	struct cov_blk *b;

	for (size_t j = hash1(ip, mode) & c->bmask; (b = c->btab[j]);
	     j = (j + 1) & c->bmask)
		if (b->start == ip && b->mode == mode)
			return b;
	return NULL;
}

static int blk_insert(struct lpt_cov *c, struct cov_blk *nb)
{
	size_t j;

	if (2 * (c->nblk + 1) > c->bmask + 1) {
		size_t n = 2 * (c->bmask + 1);
		struct cov_blk **t = calloc(n, sizeof(*t));

		if (!t)
			return LPT_ERR_NOMEM;
		for (size_t i = 0; i <= c->bmask; i++) {
			struct cov_blk *b = c->btab[i];

			if (!b)
				continue;
			for (j = hash1(b->start, b->mode) & (n - 1); t[j];
			     j = (j + 1) & (n - 1))
				;
			t[j] = b;
		}
		free(c->btab);
		c->bytes += (n - (c->bmask + 1)) * sizeof(*t);
		c->btab = t;
		c->bmask = n - 1;
	}
	for (j = hash1(nb->start, nb->mode) & c->bmask; c->btab[j];
	     j = (j + 1) & c->bmask)
		;
	c->btab[j] = nb;
	c->nblk++;
	return 0;
}

static enum cov_kind kind_of(enum x86_cofi_kind k)
{
	switch (k) {
	case X86_COFI_JCC:
		return BK_COND;
	case X86_COFI_JMP_REL:
		return BK_JMP;
	case X86_COFI_CALL_REL:
		return BK_CALL;
	case X86_COFI_JMP_IND:
		return BK_IND;
	case X86_COFI_CALL_IND:
		return BK_CALL_IND;
	case X86_COFI_RET:
		return BK_RET;
	default:
		return BK_FAR;
	}
}

/* The flow hooks: the length of a block's instruction @i (blk_build()). */
static bool blk_len(struct lpt_cov *c, uint32_t i, uint8_t len)
{
	if (i >= c->lenbuf_cap) {
		size_t cap = c->lenbuf_cap ? 2 * c->lenbuf_cap : 256;
		uint8_t *n = realloc(c->lenbuf, cap);

		if (!n) {
			c->err = c->err ? c->err : LPT_ERR_NOMEM;
			return false;
		}
		c->lenbuf = n;
		c->lenbuf_cap = cap;
	}
	c->lenbuf[i] = len;
	return true;
}

/* The flow hooks: keep the lengths blk_len() recorded with @b. */
static bool blk_lens(struct lpt_cov *c, struct cov_blk *b)
{
	if (!b->ninsn)
		return true;
	if (c->larena_left < b->ninsn) {
		size_t sz = b->ninsn > 16384 ? b->ninsn : 16384;

		c->larena = cov_chunk(c, sz);
		if (!c->larena) {
			c->err = c->err ? c->err : LPT_ERR_NOMEM;
			return false;
		}
		c->larena_left = sz;
	}
	memcpy(c->larena, c->lenbuf, b->ninsn);
	b->lens = c->larena;
	c->larena += b->ninsn;
	c->larena_left -= b->ninsn;
	return true;
}

/*
 * Decode the block at @ip in the current mode (the cold path). NULL with
 * c->err set when code is missing (LPT_ERR_COV_NOMAP, c->fault) or memory
 * runs out.
 */
static struct cov_blk *blk_build(struct lpt_cov *c, uint64_t ip)
{
	uint8_t buf[256];
	size_t have = 0, off = 0;
	uint64_t a = ip, fend;
	struct cov_blk *b;
	bool inside = in_filter(c, ip, &fend);

	if (!c->arena_left) {
		c->arena = cov_chunk(c, 256 * sizeof(*b));
		if (!c->arena) {
			c->err = c->err ? c->err : LPT_ERR_NOMEM;
			return NULL;
		}
		c->arena_left = 256;
	}
	b = c->arena;
	memset(b, 0, sizeof(*b));
	b->start = ip;
	b->mode = c->mode;
	if (!inside) {
		b->kind = BK_LEAVE;
		b->cofi = ip;
		b->next = ip;
		goto done;
	}
	for (;;) {
		struct x86_cofi x;
		int r;

		if (fend && a >= fend) {	/* ran out of the range */
			b->kind = BK_LEAVE;
			b->cofi = a;
			b->next = a;
			break;
		}
		if (have - off < X86_MAX_INSN_LEN) {
			memmove(buf, buf + off, have - off);
			have -= off;
			off = 0;
			have += lpt_cov_image_read(c->img, a + have, buf + have,
						   sizeof(buf) - have);
		}
		r = have == off ? -EAGAIN :
		    x86_cofi_decode(buf + off, have - off, (enum x86_mode)c->mode, &x);
		if (r == -EAGAIN) {
			/* code missing: the walk fails when it gets here */
			b->kind = BK_NOMAP;
			b->cofi = a;
			b->next = a + (have - off);
			break;
		}
		if (r < 0) {
			b->kind = BK_BAD;
			b->cofi = a;
			b->next = a;
			break;
		}
		if (c->keep_lens && !blk_len(c, b->ninsn, x.len))
			return NULL;
		b->ninsn++;
		if (x.kind == X86_COFI_UD)
			b->flags |= BLK_F_UD;
		if (x.kind != X86_COFI_NONE && x.kind != X86_COFI_UD) {
			b->kind = (uint8_t)kind_of(x.kind);
			if (x.kind == X86_COFI_VMENTRY)
				b->flags |= BLK_F_VMENTRY;
			b->cofi = a;
			b->next = a + x.len;
			if (c->mode != X86_MODE_64)
				b->next &= c->mode == X86_MODE_32 ? 0xffffffffull : 0xffffull;
			if (b->kind <= BK_CALL) {
				uint64_t e;

				b->target = x86_cofi_target(&x, a);
				b->tgt_out = !in_filter(c, b->target, &e);
			}
			break;
		}
		a += x.len;
		off += x.len;
	}
done:
	if (c->keep_lens && !blk_lens(c, b))
		return NULL;
	if (blk_insert(c, b)) {
		c->err = c->err ? c->err : LPT_ERR_NOMEM;
		return NULL;
	}
	c->arena++;
	c->arena_left--;
	return b;
}

static inline struct cov_blk *blk_get(struct lpt_cov *c, uint64_t ip)
{
	struct cov_blk *b = blk_lookup(c, ip, c->mode);

	return b ? b : blk_build(c, ip);
}

/* Successor @i of @b (0 fall-through, 1 direct target), cached in @b. */
static struct cov_blk *succ_slow(struct lpt_cov *c, struct cov_blk *b, int i)
{
	uint8_t mode = c->mode;
	struct cov_blk *s;

	if (!b->eid[i]) {
		b->eid[i] = edge_id(c, b->cofi, i ? b->target : b->next,
				    b->kind == BK_COND);
		if (!b->eid[i]) {
			c->err = c->err ? c->err : LPT_ERR_NOMEM;
			return NULL;
		}
	}
	c->mode = b->mode;
	s = blk_get(c, i ? b->target : b->next);
	c->mode = mode;
	b->succ[i] = s;
	return s;
}

static inline struct cov_blk *succ(struct lpt_cov *c, struct cov_blk *b, int i)
{
	struct cov_blk *s = b->succ[i];

	return s ? s : succ_slow(c, b, i);
}

/* ---- the walk ------------------------------------------------------------ */

static void retstack_push(struct lpt_cov *c, uint64_t a)
{
	if (!c->use_rs)		/* no compressed return seen yet */
		return;
	if (c->rec) {
		if (c->rp.p->npush < COV_PATH_PUSH)
			c->rp.push[c->rp.p->npush++] = a;
		else
			c->rec_bad = true;
	}
	c->rs_top = (c->rs_top + 1) % COV_RETSTACK;
	c->retstack[c->rs_top] = a;
	if (c->rs_n < COV_RETSTACK)
		c->rs_n++;
}

/* ---- the flow hooks (cov_internal.h) ------------------------------------ */

/* The trace offset of the packet being decoded. */
static inline uint64_t flow_off(const struct lpt_cov *c)
{
	return c->fpkt ? (uint64_t)(c->fpkt - c->tbegin) : 0;
}

static inline void flow_event(struct lpt_cov *c, enum cov_flow_ev type,
			      uint64_t from, uint64_t ip, bool suppressed, int err)
{
	if (c->fo) {
		c->fo->event(c->fctx, type, from, ip, suppressed, err, flow_off(c));
		c->fitems++;
	}
}

/* The exec mode event a MODE.Exec binds to a TIP or TIP.PGE (libipt). */
static inline void flow_exec_mode(struct lpt_cov *c)
{
	if (c->fmode_set) {
		c->fmode_set = false;
		flow_event(c, COV_EV_EXEC_MODE, 0, c->fmode, false, 0);
	}
}

/* The first @n instructions of @b ran; @whole: with its branch. */
static inline void flow_insns(struct lpt_cov *c, const struct cov_blk *b,
			      uint32_t n, bool whole)
{
	if (c->fo && n) {
		/* a whole block that ends at a branch: its last instruction
		 * is the branch; the sum is libipt's in 64-bit mode (no wrap
		 * at 4 GiB there) */
		uint64_t last = n == b->ninsn && b->kind <= BK_FAR &&
				b->mode == X86_MODE_64 ? b->cofi : 0;

		c->fo->insns(c->fctx, b->start, last, b->lens, n, b->mode,
			     whole && b->kind <= BK_FAR ? b->kind + 1u : COV_END_NONE);
		c->fitems++;
	}
}

/* All of @b ran, its branch too. */
static inline void flow_all(struct lpt_cov *c, const struct cov_blk *b)
{
	flow_insns(c, b, b->ninsn, true);
}

/* @b's instructions before its branch (or before the missing code, the
 * invalid instruction, the end of the filter range) ran. */
static inline void flow_pre(struct lpt_cov *c, const struct cov_blk *b)
{
	flow_insns(c, b, b->kind <= BK_FAR ? b->ninsn - 1 : b->ninsn, false);
}

/* @b's instructions before the one at @ip ran. */
static void flow_before(struct lpt_cov *c, const struct cov_blk *b, uint64_t ip)
{
	uint64_t a = b->start;
	uint32_t n = 0;

	if (!c->fo)
		return;
	while (n < b->ninsn && a < ip)
		a += b->lens[n++];
	flow_insns(c, b, n, false);
}

static void fail(struct lpt_cov *c, int err)
{
	if (!c->err)
		c->err = err;
	c->st.errors++;
	drop(c);
	c->cur = NULL;
	if (c->fo) {
		/* libipt's user goes on at the next PSB */
		flow_event(c, COV_EV_ERROR, 0, c->ferr_ip, !c->ferr_ip, err);
		c->halt |= COV_HALT_RESYNC;
	}
}

/* Remember a missing page once per decode, the first met first. */
static void note_fault(struct lpt_cov *c, uint64_t addr)
{
	uint64_t page = addr & ~(uint64_t)0xfff;

	for (unsigned int i = 0; i < c->nfault; i++)
		if ((c->faults[i] & ~(uint64_t)0xfff) == page)
			return;
	if (c->nfault < LPT_COV_MAX_FAULTS)
		c->faults[c->nfault++] = addr;
	c->nfault_all++;
}

/* The walk needs a packet at @b that the trace does not give, or code
 * the image lacks: the error for it. */
static void fail_at(struct lpt_cov *c, const struct cov_blk *b)
{
	flow_pre(c, b);
	if (b->kind == BK_NOMAP || b->kind == BK_BAD)
		c->ferr_ip = b->cofi;	/* the instruction libipt fails at */
	if (b->kind == BK_NOMAP) {
		c->fault = b->next;
		note_fault(c, b->next);
		fail(c, LPT_ERR_COV_NOMAP);
	} else {
		fail(c, b->kind == BK_BAD ? LPT_ERR_COV_BADINSN : LPT_ERR_COV_DESYNC);
	}
	c->ferr_ip = 0;
}

/* @b's instructions before its branch ran: the pending edge reached. */
static inline void enter(struct lpt_cov *c, const struct cov_blk *b)
{
	if (b->ninsn)
		commit(c);
	else
		drop(c);
}

/*
 * Walk through blocks ending in a direct JMP or CALL (no packet needed)
 * until a block that needs trace data; returns it (also in c->cur), or
 * NULL after an error.
 */
static inline struct cov_blk *advance(struct lpt_cov *c)
{
	struct cov_blk *b = c->cur;
	unsigned int n = 0;

	while (b->kind == BK_JMP || b->kind == BK_CALL) {
		struct cov_blk *s;

		if (b->tgt_out)
			break;		/* the branch leaves: TIP.PGD */
		if (++n > COV_WALK_MAX) {
			fail(c, c->fo ? LPT_ERR_COV_LOOP : LPT_ERR_COV_DESYNC);
			return NULL;
		}
		s = succ(c, b, 1);
		if (!s) {
			fail(c, c->err);
			return NULL;
		}
		commit(c);
		c->st.insns += b->ninsn;
		flow_all(c, b);
		set_pend(c, b->eid[1]);
		if (b->kind == BK_CALL && b->target != b->next)
			retstack_push(c, b->next);
		b = s;
	}
	c->cur = b;
	return b;
}

/* Go to @ip as an indirect branch (TIP) or resume (no edge, @src = 0). */
static void jump_to(struct lpt_cov *c, uint64_t ip)
{
	if (c->have_pend_mode) {
		c->mode = c->pend_mode;
		c->have_pend_mode = false;
	}
	c->cur = blk_get(c, ip);
	if (!c->cur)
		fail(c, c->err);
}

/* One TNT bit (SDM 33.4.2.1). */
static inline void tnt_bit(struct lpt_cov *c, int bit)
{
	struct cov_blk *b;

	c->st.tnt_bits++;
	if (!c->cur || c->ovf)
		return;
	b = advance(c);
	if (!b)
		return;
	enter(c, b);	/* b's instructions run before the branch */
	if (b->kind == BK_COND) {
		struct cov_blk *s = succ(c, b, bit);

		if (!s) {
			fail(c, c->err);
			return;
		}
		c->st.insns += b->ninsn;
		flow_all(c, b);
		set_pend(c, b->eid[bit]);
		c->cur = s;
		return;
	}
	if (b->kind == BK_RET && bit && !c->use_rs) {
		/*
		 * The first compressed return this decoder meets: the calls
		 * before it were not pushed. lpt_cov_decode() decodes the
		 * trace again with the return stack kept (and from then on).
		 */
		c->halt |= COV_HALT_RS;
		c->cur = NULL;
		return;
	}
	if (b->kind == BK_RET && bit && c->rs_n) {
		/* compressed return (SDM 33.4.2.1 "RET compression") */
		uint64_t ra = c->retstack[c->rs_top];
		uint32_t id;

		c->rs_top = (c->rs_top + COV_RETSTACK - 1) % COV_RETSTACK;
		c->rs_n--;
		c->rec_bad = true;	/* depends on the return stack */
		c->st.insns += b->ninsn;
		flow_all(c, b);
		id = edge_id(c, b->cofi, ra, false);
		if (!id) {
			fail(c, LPT_ERR_NOMEM);
			return;
		}
		set_pend(c, id);
		jump_to(c, ra);
		return;
	}
	fail_at(c, b);
}

static inline size_t hash_path(uint64_t k0, uint64_t tnt, uint64_t ip)
{
	uint64_t h = k0 * 0x9e3779b97f4a7c15ull;

	h ^= (tnt + (h >> 29)) * 0xbf58476d1ce4e5b9ull;
	h ^= (ip + (h >> 31)) * 0x94d049bb133111ebull;
	return (size_t)(h ^ (h >> 32));
}

/* A path's key word: its start block (a user-space pointer, below bit
 * 56), and the TNT.8 bytes' count and how it ends in the top byte. */
static inline uint64_t path_k0(const struct cov_blk *from, unsigned int ntnt,
			       unsigned int seg)
{
	return (uint64_t)(uintptr_t)from | (uint64_t)(ntnt | seg << 6) << 56;
}

static inline bool path_is(const struct cov_path *p, uint64_t k0, uint64_t tnt,
			   uint64_t ip)
{
	/* one branch: the key's parts are as likely to differ */
	return !((p->k0 ^ k0) | (p->tnt ^ tnt) | (p->ip ^ ip));
}

static struct cov_path *path_insert(struct lpt_cov *c, const struct cov_path_rec *rp)
{
	const struct cov_path *k = rp->p;
	size_t sz = sizeof(*k) + k->nedge * sizeof(uint32_t), j;
	struct cov_path *p;

	sz = (sz + 63) & ~(size_t)63;	/* the chain's fields in one cache line */
	if (2 * (c->npaths + 1) > c->pmask + 1) {
		size_t n = 2 * (c->pmask + 1);
		struct cov_pent *t = calloc(n, sizeof(*t));

		if (!t)
			return NULL;	/* not cached: correct, only slower */
		for (size_t i = 0; i <= c->pmask; i++) {
			struct cov_path *q = c->ptab[i].p;

			if (!q)
				continue;
			for (j = hash_path(q->k0, q->tnt, q->ip) & (n - 1);
			     t[j].p; j = (j + 1) & (n - 1))
				;
			t[j] = c->ptab[i];
		}
		free(c->ptab);
		c->bytes += (n - (c->pmask + 1)) * sizeof(*t);
		c->ptab = t;
		c->pmask = n - 1;
	}
	if (c->parena_left < sz + k->npush * sizeof(uint64_t) + 64) {
		c->parena = cov_chunk(c, 16384);
		if (!c->parena)
			return NULL;
		c->parena_left = 16384;
	}
	{	/* align to a cache line */
		size_t mis = (size_t)((uintptr_t)c->parena & 63);

		if (mis) {
			c->parena += 64 - mis;
			c->parena_left -= 64 - mis;
		}
	}
	if (c->npaths + 1 > c->ptouched_cap) {
		size_t cap = c->ptouched_cap ? 2 * c->ptouched_cap : 1024;
		struct cov_path **n = realloc(c->ptouched, cap * sizeof(*n));

		if (!n)
			return NULL;
		c->ptouched = n;
		c->bytes += (cap - c->ptouched_cap) * sizeof(*n);
		c->ptouched_cap = cap;
	}
	p = (struct cov_path *)(void *)c->parena;
	*p = *k;
	memcpy(p->ids, rp->ids, k->nedge * sizeof(uint32_t));
	c->parena += sz;
	c->parena_left -= sz;
	p->push = NULL;
	if (k->npush) {
		p->push = (uint64_t *)(void *)c->parena;
		memcpy(p->push, rp->push, k->npush * sizeof(uint64_t));
		c->parena += k->npush * sizeof(uint64_t);
		c->parena_left -= k->npush * sizeof(uint64_t);
	}
	for (j = hash_path(p->k0, p->tnt, p->ip) & c->pmask; c->ptab[j].p;
	     j = (j + 1) & c->pmask)
		;
	c->ptab[j] = (struct cov_pent){ p->k0, p->tnt, p->ip, p };
	c->npaths++;
	return p;
}

/* Apply a cached path: one count for the path, expanded at the end. */
static inline void path_apply(struct lpt_cov *c, struct cov_path *p, int nbits)
{
	(void)nbits;
	if (p->in_act == 1)
		commit(c);
	else if (p->in_act == 2)
		drop(c);
	if (!p->hits++)
		c->ptouched[c->nptouched++] = p;
	for (unsigned int i = 0; i < p->npush; i++) {
		c->rs_top = (c->rs_top + 1) % COV_RETSTACK;
		c->retstack[c->rs_top] = p->push[i];
	}
	if (p->npush)
		c->rs_n = c->rs_n + p->npush < COV_RETSTACK ? c->rs_n + p->npush :
							     COV_RETSTACK;
	if (p->pend != COV_IN)
		c->pend = p->pend;
	c->cur = p->end;
	c->last_path = p;
	c->st.path_hits++;
}

/* Where a path with this key is remembered among its predecessor's
 * successors: direct-mapped, so a lookup reads one candidate. The start
 * block is mostly the same for all (the predecessor's end): the TNT.8
 * bytes and the IP tell them apart. */
static inline unsigned int nx_slot(uint64_t k0, uint64_t tnt, uint64_t ip)
{
	return (unsigned int)(((tnt ^ ip ^ (k0 >> 56)) * 0x9e3779b97f4a7c15ull) >> 62);
}

/*
 * @p followed @prev: remembered in its slot of @prev's successors (the
 * one there before is forgotten). Any path that came next is linked, also
 * across a TIP.PGE or a packet the path cache does not take (the key
 * check makes it only a guess).
 */
static inline void chain_link(struct cov_path *prev, struct cov_path *p)
{
	prev->nx[nx_slot(p->k0, p->tnt, p->ip)] = p;
}

/* path_find() when the last path applied does not know the key as a
 * successor. */
static struct cov_path *path_find_slow(struct lpt_cov *c, uint64_t k0,
				       uint64_t tnt, uint64_t ip)
{
	struct cov_path *p, *prev = c->last_path;
	const struct cov_pent *e;

	if ((p = c->cur->lastp) && path_is(p, k0, tnt, ip))
		goto found;

	size_t h = hash_path(k0, tnt, ip);
	struct cov_path **slot = &c->pcache[h & (COV_PCACHE - 1)];

	if ((p = *slot) && path_is(p, k0, tnt, ip))
		goto found;
	for (size_t j = h & c->pmask; (e = &c->ptab[j])->p; j = (j + 1) & c->pmask) {
		if (e->k0 == k0 && e->tnt == tnt && e->ip == ip) {
			p = e->p;
			c->cur->lastp = p;
			*slot = p;
			goto found;
		}
	}
	return NULL;
found:
	if (prev)
		chain_link(prev, p);
	return p;
}

/* The cached path for a key, through the chain of the last one applied,
 * else the hash table; links the last one to it. NULL: not cached. */
static inline struct cov_path *path_find(struct lpt_cov *c, uint64_t tnt,
					 uint64_t ip, unsigned int ntnt, unsigned int seg)
{
	struct cov_path *p, *prev = c->last_path;
	uint64_t k0 = path_k0(c->cur, ntnt, seg);

	if (prev && (p = prev->nx[nx_slot(k0, tnt, ip)]) && path_is(p, k0, tnt, ip))
		return p;
	return path_find_slow(c, k0, tnt, ip);
}

static inline void tnt8_bits(struct lpt_cov *c, uint8_t b0)
{
	for (int i = 30 - __builtin_clz(b0); i >= 1; i--)
		tnt_bit(c, (b0 >> i) & 1);
}

static void tip_ip(struct lpt_cov *c, uint64_t ip);
static void on_pgd(struct lpt_cov *c, uint64_t ip, bool suppressed);

/*
 * @ntnt TNT.8 bytes (@tnt) from c->cur, and with @seg the TIP to @ip after
 * them, walked once with recording on; cached when the walk was clean.
 */
static void path_record(struct lpt_cov *c, uint64_t tnt, uint64_t ip,
			unsigned int ntnt, unsigned int seg)
{
	struct cov_blk *from = c->cur;
	struct cov_path *prev = c->last_path, *p;
	uint64_t errors = c->st.errors;
	uint32_t in = c->pend, out;

	c->pend = COV_IN;
	c->rec = true;
	c->rec_bad = false;
	c->rp.p->nedge = 0;
	c->rp.p->npush = 0;
	c->rp.p->in_act = 0;
	for (unsigned int i = 0; i < ntnt && c->cur; i++)
		tnt8_bits(c, (uint8_t)(tnt >> (8 * i)));
	if (seg == 1 && c->cur)
		tip_ip(c, ip);
	else if (seg >= 2 && c->cur)
		on_pgd(c, ip, seg == 3);
	c->rec = false;
	c->last_path = NULL;
	/* now the real pending edge: as the walk treated it */
	out = c->pend;
	c->pend = in;
	if (c->rp.p->in_act == 1)
		commit(c);
	else if (c->rp.p->in_act == 2)
		drop(c);
	if (out != COV_IN)
		c->pend = out;
	if (c->rec_bad || c->ovf || c->st.errors != errors || (seg < 2 && !c->cur))
		return;
	c->rp.p->k0 = path_k0(from, ntnt, seg);
	c->rp.p->tnt = tnt;
	c->rp.p->ip = ip;
	c->rp.p->ntnt = (uint8_t)ntnt;
	c->rp.p->seg = (uint8_t)seg;
	c->rp.p->end = c->cur;
	c->rp.p->pend = out;
	memset(c->rp.p->nx, 0, sizeof(c->rp.p->nx));
	c->rp.p->hits = 0;
	c->rp.p->plain = !c->rp.p->npush;
	c->rp.p->pge_ip = 0;
	c->rp.p->pge_blk = NULL;
	c->rp.p->pge_mode = 0;
	p = path_insert(c, &c->rp);
	if (p)
		from->lastp = p;
	if (p && prev)
		chain_link(prev, p);
	c->last_path = p;
}

/* Whether the decoder is in the plain state a cached path starts from. */
static inline bool path_ok(const struct lpt_cov *c)
{
	/* one branch for the flags, not one each */
	return c->cur && !(c->ovf | c->fup_pending | c->have_pend_mode |
			   !!(c->cfg.flags & LPT_COV_F_NO_PATHS));
}

/* One TNT.8 byte, through the path cache when it can. */
static inline void tnt8(struct lpt_cov *c, uint8_t b0)
{
	if (path_ok(c)) {
		struct cov_path *p = path_find(c, b0, 0, 1, 0);

		if (p)
			path_apply(c, p, 29 - __builtin_clz(b0));
		else
			path_record(c, b0, 0, 1, 0);
		return;
	}
	tnt8_bits(c, b0);
}

/*
 * Walk to @ip, where an asynchronous event (FUP, SDM 33.4.2.6) happened:
 * the instructions before it executed, the one at it did not. The edge
 * into a block @ip starts counts with @at_start (an asynchronous branch
 * leaves from there); without, it does not (an event that binds before
 * the instruction at @ip: libipt decodes no instruction after the edge).
 */
static void walk_to_at(struct lpt_cov *c, uint64_t ip, bool at_start)
{
	struct cov_blk *b = c->cur;
	unsigned int n = 0;

	while (b) {
		if (ip >= b->start && ip <= b->cofi) {
			if (at_start || ip > b->start)
				commit(c);
			else
				drop(c);
			c->st.insns += ip - b->start ? b->ninsn : 0;
			flow_before(c, b, ip);
			return;
		}
		if ((b->kind != BK_JMP && b->kind != BK_CALL) || b->tgt_out ||
		    ++n > COV_WALK_MAX) {
			if (c->fo && n > COV_WALK_MAX)
				fail(c, LPT_ERR_COV_LOOP);
			else
				fail_at(c, b);
			return;
		}
		struct cov_blk *s = succ(c, b, 1);

		if (!s) {
			fail(c, c->err);
			return;
		}
		commit(c);
		c->st.insns += b->ninsn;
		flow_all(c, b);
		set_pend(c, b->eid[1]);
		if (b->kind == BK_CALL && b->target != b->next)
			retstack_push(c, b->next);
		c->cur = b = s;
	}
}

/* walk_to_at() for a FUP's asynchronous event. */
static void walk_to(struct lpt_cov *c, uint64_t ip)
{
	walk_to_at(c, ip, true);
}

/* ---- errata that change the flow (libipt 2.0.5 pt_insn_decoder.c) ------- */

#define COV_BDM64_STEPS	0x100	/* libipt's bdm64_max_steps */
#define COV_OUT_STEPS	1024	/* pgd_walk_out()'s bound (libipt has none:
				 * it decodes a jmp-to-itself forever) */

/*
 * Whether @to is reached from @from by instructions that need no trace
 * (no branch, or a direct JMP/CALL) in at most COV_BDM64_STEPS steps, as
 * libipt's pt_insn_range_is_contiguous(): 1 yes, 0 not within the steps,
 * -1 a branch that needs trace or code missing on the way (libipt: error).
 */
/* The instruction at @a (slow path, no cache); false when it is missing
 * or invalid. *@next: where a direct transfer or no branch goes on. */
static bool insn_at(const struct lpt_cov *c, uint64_t a, struct x86_cofi *x,
		    uint64_t *next)
{
	uint8_t buf[X86_MAX_INSN_LEN];
	size_t have = lpt_cov_image_read(c->img, a, buf, sizeof(buf));

	if (!have || x86_cofi_decode(buf, have, (enum x86_mode)c->mode, x) < 0)
		return false;
	*next = x->kind == X86_COFI_JMP_REL || x->kind == X86_COFI_CALL_REL ?
		x86_cofi_target(x, a) : a + x->len;
	if (c->mode != X86_MODE_64)
		*next &= c->mode == X86_MODE_32 ? 0xffffffffull : 0xffffull;
	return true;
}

static int contiguous(struct lpt_cov *c, uint64_t from, uint64_t to)
{
	uint64_t a = from;

	for (unsigned int n = 0; a != to; n++) {
		struct x86_cofi x;

		if (n == COV_BDM64_STEPS)
			return 0;
		if (!insn_at(c, a, &x, &a) || (x.kind != X86_COFI_NONE &&
					       x.kind != X86_COFI_JMP_REL &&
					       x.kind != X86_COFI_CALL_REL))
			return -1;
	}
	return 1;
}

/*
 * Erratum BDM64 (libipt handle_erratum_bdm64()): a TSX abort right after
 * a branch whose destination cannot reach the abort's FUP IP without
 * trace: the branch's trace was corrupted; as libipt, the branch went to
 * the FUP IP. Counts that edge and returns true; false when the erratum
 * does not apply (the caller walks to the FUP IP).
 */
static bool erratum_bdm64(struct lpt_cov *c)
{
	uint32_t id;

	if (!(c->errata & LPT_ERRATUM_BDM64) || !c->fup_abort || !c->pend ||
	    c->pend == COV_IN || contiguous(c, c->cur->start, c->fup_ip) != 0)
		return false;
	id = edge_id(c, c->e_src[c->pend], c->fup_ip, c->e_cond[c->pend]);
	if (!id) {
		fail(c, LPT_ERR_NOMEM);
		return true;
	}
	c->pend = COV_NO_EDGE;
	count(c, id);
	return true;
}

/*
 * Erratum SKD022 (libipt handle_erratum_skd022()): FUP + TIP.PGD at a
 * VMLAUNCH/VMRESUME is the VM entry, not an asynchronous disable: the
 * instruction executed, its edge goes to the TIP.PGD's IP (none when
 * suppressed). Called after walk_to() reached the FUP IP.
 */
static void erratum_skd022(struct lpt_cov *c, uint64_t ip, bool suppressed)
{
	const struct cov_blk *b = c->cur;
	uint32_t id;

	if (!(c->errata & LPT_ERRATUM_SKD022) || !b || !(b->flags & BLK_F_VMENTRY) ||
	    b->cofi != c->fup_ip)
		return;
	c->st.insns++;
	if (c->fo) {
		c->fo->insns(c->fctx, b->cofi, b->cofi, b->lens + b->ninsn - 1,
			     1, b->mode, COV_END_FAR);
		c->fitems++;
	}
	if (suppressed)
		return;
	id = edge_id(c, b->cofi, ip, false);
	if (!id) {
		fail(c, LPT_ERR_NOMEM);
		return;
	}
	if (!c->xdc_only)
		count(c, id);
}

/*
 * Erratum SKL014 (libipt pt_insn_at_skl014()): with IP filtering, a
 * TIP.PGD with suppressed IP belongs to a direct JMP/CALL whose target
 * is outside the filter ranges: the branch executed.
 */
static inline bool erratum_skl014(const struct lpt_cov *c, const struct cov_blk *b)
{
	return (c->errata & LPT_ERRATUM_SKL014) && c->cfg.nfilter &&
	       (b->kind == BK_JMP || b->kind == BK_CALL) && b->tgt_out;
}

/*
 * A TIP.PGD with suppressed IP after the direct JMP/CALL @b out of the
 * filter, without SKL014's workaround: as libipt, the branch does not
 * disable tracing; decoding follows it out of the filter, counting edges,
 * until a far transfer (that disabled tracing) or an instruction that
 * needs trace or code missing (libipt fails: resynchronise at a PSB).
 */
static void pgd_walk_out(struct lpt_cov *c, const struct cov_blk *b)
{
	uint64_t a = b->target, src = b->cofi, next;

	enter(c, b);
	c->st.insns += b->ninsn;
	flow_all(c, b);
	for (unsigned int n = 0; n < COV_OUT_STEPS; n++) {
		struct x86_cofi x;

		if (!insn_at(c, a, &x, &next) ||
		    !(x.kind == X86_COFI_NONE || x.kind == X86_COFI_JMP_REL ||
		      x.kind == X86_COFI_CALL_REL || x86_cofi_is_far(x.kind)))
			break;
		c->st.insns++;
		if (c->fo) {
			uint8_t len = x.len;

			c->fo->insns(c->fctx, a, a, &len, 1, c->mode,
				     x.kind == X86_COFI_NONE ? COV_END_NONE :
				     x.kind == X86_COFI_JMP_REL ? COV_END_JMP :
				     x.kind == X86_COFI_CALL_REL ? COV_END_CALL :
				     COV_END_FAR);
			c->fitems++;
		}
		if (src) {	/* the instruction at @a is decoded */
			uint32_t id = edge_id(c, src, a, false);

			if (!id) {
				fail(c, LPT_ERR_NOMEM);
				return;
			}
			if (!c->xdc_only)
				count(c, id);
		}
		if (x86_cofi_is_far(x.kind))
			return;
		src = x.kind == X86_COFI_NONE ? 0 : a;
		a = next;
	}
	fail(c, LPT_ERR_COV_DESYNC);
	c->halt |= COV_HALT_RESYNC;
}

/* TIP (SDM 33.4.2.2): an indirect branch, or the target of an async event. */
static void on_tip(struct lpt_cov *c, uint64_t ip)
{
	if (c->fup_pending) {
		bool on = c->cur;

		c->fup_pending = false;
		if (c->cur && !erratum_bdm64(c))
			walk_to(c, c->fup_ip);
		if (c->halt & COV_HALT_RESYNC)
			return;		/* the flow hooks' error */
		if (on)
			flow_event(c, COV_EV_ASYNC_BRANCH, c->fup_ip, ip, false, 0);
		flow_exec_mode(c);
		c->pend = COV_NO_EDGE;
		jump_to(c, ip);
		return;
	}
	if (!c->cur || c->ovf)
		return;
	tip_ip(c, ip);
}

/* The indirect branch ahead of c->cur goes to @ip (SDM 33.4.2.2). */
static void tip_ip(struct lpt_cov *c, uint64_t ip)
{
	struct cov_blk *b;
	uint32_t id;

	b = advance(c);
	if (!b)
		return;
	if (b->kind < BK_IND || b->kind > BK_FAR) {
		enter(c, b);
		fail_at(c, b);
		return;
	}
	commit(c);
	c->st.insns += b->ninsn;
	flow_all(c, b);
	id = edge_id(c, b->cofi, ip, false);
	if (!id) {
		fail(c, LPT_ERR_NOMEM);
		return;
	}
	set_pend(c, id);
	if (b->kind == BK_CALL_IND)
		retstack_push(c, b->next);
	flow_exec_mode(c);
	jump_to(c, ip);
}

/* TIP.PGD (SDM 33.4.2.5): tracing stops. */
static void on_pgd(struct lpt_cov *c, uint64_t ip, bool suppressed)
{
	struct cov_blk *b;
	enum cov_flow_ev ev = COV_EV_DISABLED;
	bool on = c->cur && !c->ovf;

	if (c->fup_pending) {	/* asynchronous: at the FUP's IP */
		c->fup_pending = false;
		on = c->cur;
		ev = COV_EV_ASYNC_DISABLED;
		if (c->cur && !erratum_bdm64(c)) {
			walk_to(c, c->fup_ip);
			if (c->cur && (c->errata & LPT_ERRATUM_SKD022) &&
			    (c->cur->flags & BLK_F_VMENTRY) && c->cur->cofi == c->fup_ip)
				ev = COV_EV_DISABLED;	/* the VM entry */
			erratum_skd022(c, ip, suppressed);
		}
		goto off;
	}
	if (!c->cur || c->ovf)
		goto off;
	b = advance(c);
	if (!b)
		goto off;
	if (b->kind == BK_LEAVE && !b->ninsn) {
		/* the pending branch itself left the range */
		if (suppressed)
			drop(c);
		else
			commit(c);
		goto off;
	}
	if (suppressed && (b->kind == BK_JMP || b->kind == BK_CALL) && b->tgt_out &&
	    c->cfg.nfilter) {
		if (erratum_skl014(c, b)) {
			/* the direct branch out of the filter disabled tracing */
			enter(c, b);
			c->st.insns += b->ninsn;
			flow_all(c, b);
		} else {
			pgd_walk_out(c, b);
		}
		goto off;
	}
	if (suppressed && b->kind != BK_FAR) {
		/*
		 * No IP and no far branch to blame (SDM 33.4.2.5: a suppressed
		 * IP means a CPL change or a disable by software): as libipt,
		 * tracing stopped before @b's branch executed.
		 */
		if (b->cofi > b->start)
			commit(c);
		else
			drop(c);
		if (b->kind == BK_NOMAP)
			fail_at(c, b);
		else
			flow_pre(c, b);
		goto off;
	}
	enter(c, b);
	c->st.insns += b->ninsn;
	if (b->kind == BK_NOMAP || b->kind == BK_BAD) {
		fail_at(c, b);
		goto off;
	}
	flow_all(c, b);
	if (b->kind != BK_LEAVE && !suppressed) {
		uint32_t id = edge_id(c, b->cofi, ip, b->kind == BK_COND);

		if (!id) {
			fail(c, LPT_ERR_NOMEM);
			goto off;
		}
		if (!c->xdc_only || c->e_cond[id])
			count(c, id);
	}
off:
	drop(c);
	c->cur = NULL;
	if (on && !(c->halt & COV_HALT_RESYNC))
		flow_event(c, ev, ev == COV_EV_ASYNC_DISABLED ? c->fup_ip : 0,
			   suppressed ? 0 : ip, suppressed, 0);
}

static void on_fup(struct lpt_cov *c, uint64_t ip)
{
	if (c->in_psb) {
		c->psb_fup = ip;
		c->psb_fup_valid = true;
		return;
	}
	if (c->skip_fup) {	/* FUP of a PTWRITE, EXSTOP, TSX begin/commit */
		c->skip_fup = false;
		return;
	}
	if (c->ovf) {		/* tracing resumes here after an overflow */
		c->ovf = false;
		c->pend = COV_NO_EDGE;
		flow_event(c, COV_EV_OVERFLOW, 0, ip, false, 0);
		jump_to(c, ip);
		return;
	}
	c->fup_pending = true;
	c->fup_ip = ip;
	c->fup_abort = c->tsx_abort;
	c->tsx_abort = false;
}

/* ---- packets ------------------------------------------------------------- */

/*
 * IP compression (SDM 33.4.2.2, Table 33-18, lpt_ip_reconstruct()): the
 * IP of the payload at @p (its bytes before @end) into c->last_ip and
 * *@ip; false for a suppressed or reserved IPBytes.
 */
static inline bool ip_decode(struct lpt_cov *c, const uint8_t *p, const uint8_t *end,
			     unsigned int ipb, uint64_t *ip)
{
	uint64_t v = 0;

	if (!lpt_ip_payload_bits(ipb))
		return false;
	if (LPT_LIKELY(end - p >= 8)) {
		v = lpt_ld64(p);
	} else {	/* the trace's last bytes: those of the payload */
		for (unsigned int i = 0; i < PT_IPBYTES_PAYLOAD_SIZE(ipb); i++)
			v |= (uint64_t)p[i] << (8 * i);
	}
	*ip = c->last_ip = lpt_ip_reconstruct(c->last_ip, ipb, v);
	return true;
}

static const uint8_t *next_psb(const uint8_t *begin, const uint8_t *end,
			       const uint8_t *p);

static void decode_reset(struct lpt_cov *c)
{
	c->cur = NULL;
	c->pend = COV_NO_EDGE;
	c->mode = X86_MODE_64;
	c->have_pend_mode = false;
	c->fup_pending = c->skip_fup = c->in_psb = c->ovf = c->trunc = false;
	c->trunc_at = NULL;
	c->trunc_event = false;
	c->fmode_set = false;
	c->halt &= (uint8_t)~COV_HALT_RESYNC;
	c->tsx_abort = false;
	c->psb_fup_valid = c->psb_mode_bad = false;
	c->last_ip = 0;
	c->rs_n = 0;
	c->rs_top = 0;
}

static uint8_t exec_mode(const struct lpt_pkt_mode_exec *m)
{
	if (m->csl)
		return X86_MODE_64;	/* CS.D=1 with CS.L=1 is reserved */
	return m->csd ? X86_MODE_32 : X86_MODE_16;
}

/* ---- OVF: what it binds to (libipt 2.0.5 pt_qry_decode_ovf()) ------------ */

enum ovf_scan {
	OVF_FUP,		/* a FUP resumes (c->ovf: on_fup()) */
	OVF_OFF,		/* tracing was off: wait for the resume */
	OVF_BAD_CONTEXT,	/* TNT, TIP, TIP.PGD or PSBEND came first */
	OVF_ERROR,		/* libipt fails: resynchronise at a PSB */
	OVF_EOS,		/* the trace ends */
	OVF_HANDLED,		/* an erratum workaround resumed */
	OVF_NOT_HANDLED,	/* the erratum does not apply */
};

/* The packet at @q (lpt_pkt_decode()); OVF_EOS or OVF_ERROR when none. */
static int ovf_packet(const struct lpt_cov *c, const uint8_t *q, const uint8_t *end,
		      struct lpt_packet *pkt)
{
	int n = q < end ? lpt_pkt_decode(q, (size_t)(end - q), NULL, pkt, c->pkt_flags) :
			  LPT_ERR_EOS;

	if (n == LPT_ERR_EOS)
		return -OVF_EOS;
	/* packets newer than libipt 2.0.5 are bad opcodes to it */
	if (n < 0 || pkt->type >= LPT_PKT_BBP || pkt->type == LPT_PKT_INVALID)
		return -OVF_ERROR;
	return n;
}

static bool ovf_timing(enum lpt_pkt_type t)
{
	return t == LPT_PKT_PAD || t == LPT_PKT_MNT || t == LPT_PKT_CBR ||
	       t == LPT_PKT_TSC || t == LPT_PKT_TMA || t == LPT_PKT_MTC ||
	       t == LPT_PKT_CYC;
}

/* pt_pkt_find_ovf_fup(): the first packet after the OVF that tells. */
static enum ovf_scan ovf_find_fup(const struct lpt_cov *c, const uint8_t *q,
				  const uint8_t *end)
{
	struct lpt_packet pkt;
	int n;

	for (; (n = ovf_packet(c, q, end, &pkt)) > 0; q += n) {
		switch (pkt.type) {
		case LPT_PKT_FUP:
			return OVF_FUP;
		case LPT_PKT_PSBEND: case LPT_PKT_TIP: case LPT_PKT_TIP_PGD:
		case LPT_PKT_TNT_8: case LPT_PKT_TNT_64:
			return OVF_BAD_CONTEXT;
		default:
			if (!ovf_timing(pkt.type))
				return OVF_OFF;
		}
	}
	return (enum ovf_scan)-n;
}

/* Resume at the IP packet at @q (a TIP or FUP; header byte + payload). */
static enum ovf_scan ovf_resume(struct lpt_cov *c, const uint8_t *q,
				const uint8_t *end)
{
	uint64_t ip;

	if (!ip_decode(c, q + 1, end, *q >> PT_IPBYTES_SHIFT, &ip))
		return OVF_ERROR;	/* suppressed: libipt needs an IP */
	c->ovf = false;
	c->pend = COV_NO_EDGE;
	flow_event(c, COV_EV_OVERFLOW, 0, ip, false, 0);
	jump_to(c, ip);
	return OVF_HANDLED;
}

/*
 * Erratum SKD010 (libipt skd010_scan_for_ovf_resume()): the FUP after the
 * OVF may be lost. A TIP resumes at its IP, a FUP at its own (decoded
 * again from the MODE.TSX before it, if any), a TIP.PGD means tracing is
 * off after it. *@pos: where decoding goes on when handled.
 */
static enum ovf_scan ovf_skd010(struct lpt_cov *c, const uint8_t *q,
				const uint8_t *end, const uint8_t **pos)
{
	const uint8_t *tsx = NULL;
	struct lpt_packet pkt;
	int n;

	for (; (n = ovf_packet(c, q, end, &pkt)) > 0; q += n) {
		switch (pkt.type) {
		case LPT_PKT_TIP_PGE: case LPT_PKT_TNT_8: case LPT_PKT_TNT_64:
		case LPT_PKT_OVF: case LPT_PKT_TRACESTOP: case LPT_PKT_MWAIT:
			return OVF_NOT_HANDLED;
		case LPT_PKT_TIP_PGD:
			*pos = q + n;
			return OVF_HANDLED;	/* c->ovf: off until resumed */
		case LPT_PKT_MODE_TSX:
			if (tsx)
				return OVF_NOT_HANDLED;
			tsx = q;
			break;
		case LPT_PKT_FUP:
			*pos = tsx ? tsx : q;
			return ovf_resume(c, q, end);
		case LPT_PKT_TIP:
			*pos = q + n;
			return ovf_resume(c, q, end);
		case LPT_PKT_PSB:
			/* resumes at the PSB+'s FUP, if any: as without */
			*pos = q;
			return OVF_HANDLED;
		case LPT_PKT_PSBEND:
			return OVF_ERROR;
		case LPT_PKT_EXSTOP:
			if (pkt.payload.exstop.ip)
				return OVF_NOT_HANDLED;
			break;
		case LPT_PKT_PTW:
			if (pkt.payload.ptw.ip)
				return OVF_NOT_HANDLED;
			break;
		default:	/* PIP, VMCS, MODE.Exec, power, timing */
			break;
		}
	}
	return -n == OVF_EOS ? OVF_NOT_HANDLED : OVF_ERROR;
}

/*
 * Erratum APL11 (libipt apl11_apply()): a TIP.PGD after the OVF: tracing
 * is off after it.
 */
static enum ovf_scan ovf_apl11(const struct lpt_cov *c, const uint8_t *q,
			       const uint8_t *end, const uint8_t **pos)
{
	struct lpt_packet pkt;
	int n;

	for (; (n = ovf_packet(c, q, end, &pkt)) > 0; q += n) {
		switch (pkt.type) {
		case LPT_PKT_TIP_PGD:
			*pos = q + n;
			return OVF_HANDLED;
		case LPT_PKT_PSBEND: case LPT_PKT_TIP: case LPT_PKT_TNT_8:
		case LPT_PKT_TNT_64:
			return OVF_ERROR;
		default:
			if (!ovf_timing(pkt.type))
				return OVF_NOT_HANDLED;
		}
	}
	return OVF_ERROR;
}

/*
 * After the OVF at @q - 2: where decoding goes on. As libipt: a FUP (after
 * timing packets only) resumes; otherwise SKD010's and APL11's
 * workarounds when the CPU has them; a TNT, TIP, TIP.PGD or PSBEND first
 * is an error (resynchronise at the next PSB), anything else means
 * tracing was off (wait for TIP.PGE, PSB+). APL12 (a FUP although
 * tracing was off) changes no edge: the TIP.PGE after it moves on.
 */
static const uint8_t *ovf_resolve(struct lpt_cov *c, const uint8_t *q,
				  const uint8_t *end)
{
	enum ovf_scan st = ovf_find_fup(c, q, end), r = OVF_NOT_HANDLED;
	const uint8_t *pos = q;

	if (st == OVF_FUP)
		return q;
	if (st == OVF_EOS) {
		flow_event(c, COV_EV_OVERFLOW, 0, 0, true, 0);
		return q;
	}
	if (st != OVF_ERROR && (c->errata & LPT_ERRATUM_SKD010))
		r = ovf_skd010(c, q, end, &pos);
	if (r == OVF_NOT_HANDLED && st == OVF_BAD_CONTEXT &&
	    (c->errata & LPT_ERRATUM_APL11))
		r = ovf_apl11(c, q, end, &pos);
	if (r == OVF_HANDLED) {
		if (c->ovf)	/* tracing off after it */
			flow_event(c, COV_EV_OVERFLOW, 0, 0, true, 0);
		return pos;
	}
	if (r == OVF_NOT_HANDLED && st == OVF_OFF) {
		flow_event(c, COV_EV_OVERFLOW, 0, 0, true, 0);
		return q;
	}
	/* libipt's decode fails here; it goes on at the next PSB */
	if (!c->err)
		c->err = LPT_ERR_BAD_CONTEXT;
	c->st.errors++;
	flow_event(c, COV_EV_ERROR, 0, 0, true, LPT_ERR_BAD_CONTEXT);
	decode_reset(c);
	return next_psb(c->tbegin, end, q);
}

/* Every packet but PAD, TNT.8 and the TIP family (the hot ones). */
static const uint8_t *other_packet(struct lpt_cov *c, const uint8_t *p,
				   const uint8_t *end)
{
	struct lpt_packet pkt;
	int n = lpt_pkt_decode(p, (size_t)(end - p), NULL, &pkt, c->pkt_flags);

	if (n == LPT_ERR_EOS) {	/* cut at the end of the buffer */
		c->trunc = true;
		c->trunc_at = p;
		return end;
	}
	if (n < 0)
		return NULL;
	switch (pkt.type) {
	case LPT_PKT_TNT_64: {
		uint64_t bits = pkt.payload.tnt.bits;

		for (int i = pkt.payload.tnt.count - 1; i >= 0; i--)
			tnt_bit(c, (int)((bits >> i) & 1));
		break;
	}
	case LPT_PKT_PSB:
		c->in_psb = true;
		c->psb_fup_valid = c->psb_mode_bad = false;
		c->fup_pending = false;
		c->skip_fup = false;
		c->last_ip = 0;		/* SDM 33.4.2.17: PSB resets last IP */
		break;
	case LPT_PKT_PSBEND:
		c->in_psb = false;
		if (c->psb_mode_bad) {
			/*
			 * libipt binds the status update to the FUP's IP
			 * (at once without one) and fails there
			 * (pt_insn_process_exec_mode(): -pte_bad_status_update);
			 * decoding goes on at the next PSB.
			 */
			c->psb_mode_bad = false;
			if (c->psb_fup_valid && c->cur)
				walk_to_at(c, c->psb_fup, false);
			fail(c, LPT_ERR_COV_DESYNC);
			c->halt |= COV_HALT_RESYNC;
			break;
		}
		if (c->psb_fup_valid && (!c->cur || c->ovf)) {
			c->ovf = false;
			c->pend = COV_NO_EDGE;
			jump_to(c, c->psb_fup);
		} else if ((c->cfg.flags & LPT_COV_F_CHUNK) && p + n == end &&
			   c->psb_fup_valid && c->cur) {
			/* the next chunk's PSB+ ends the trace: the code up
			 * to its FUP ran in this chunk (pt_chunk.h) */
			walk_to_at(c, c->psb_fup, true);
		} else if (c->fo && c->psb_fup_valid && c->cur) {
			/*
			 * The flow hooks: libipt binds the PSB+'s status
			 * updates to its FUP's IP (SDM 33.4.2.17: the next
			 * instruction then) and runs the code up to it
			 * before the events that follow the PSB+ (a CBR):
			 * the walk goes on from there.
			 */
			walk_to_at(c, c->psb_fup, true);
			if (c->cur)
				jump_to(c, c->psb_fup);
		}
		break;
	case LPT_PKT_MODE_EXEC:
		c->pend_mode = exec_mode(&pkt.payload.mode_exec);
		c->have_pend_mode = true;
		if (c->fo && !c->in_psb) {	/* libipt's exec mode event */
			c->fmode = c->pend_mode;
			c->fmode_set = true;
		}
		if (c->in_psb && c->cur && c->cur->mode != c->pend_mode) {
			/*
			 * A status update unlike the mode the walk is in
			 * while tracing is on (a corrupt trace): an error at
			 * the PSBEND, as libipt's. The mode stays, so c->mode
			 * always is c->cur's where path_ok() lets a cached
			 * path run (a path's key is its start block, the mode
			 * its TIP's block was built in).
			 */
			c->psb_mode_bad = true;
			c->have_pend_mode = false;
			break;
		}
		if (c->in_psb || !c->cur) {
			c->mode = c->pend_mode;
			c->have_pend_mode = false;
		}
		break;
	case LPT_PKT_MODE_TSX:
		/* begin/commit: the FUP that follows only names the
		 * XBEGIN/XEND; an abort's FUP + TIP is an async branch */
		if (!c->in_psb && !pkt.payload.mode_tsx.abrt)
			c->skip_fup = true;
		c->tsx_abort = !c->in_psb && pkt.payload.mode_tsx.abrt;
		break;
	case LPT_PKT_OVF:
		drop(c);
		c->cur = NULL;
		c->ovf = true;
		c->fup_pending = c->skip_fup = c->tsx_abort = false;
		c->rs_n = 0;
		return ovf_resolve(c, p + n, end);
	case LPT_PKT_PTW:
		if (pkt.payload.ptw.ip)
			c->skip_fup = true;
		break;
	case LPT_PKT_EXSTOP:
		if (pkt.payload.exstop.ip)
			c->skip_fup = true;
		break;
	case LPT_PKT_CBR:
		if (!c->in_psb)		/* libipt's cbr event */
			flow_event(c, COV_EV_CBR, 0, pkt.payload.cbr.ratio, false, 0);
		break;
	case LPT_PKT_PIP:
		/*
		 * libipt's paging event (pt_qry_decode_pip(): standalone
		 * without an async branch in flight), reported at once by
		 * its instruction decoder while tracing is off
		 * (pt_insn_check_ip_event()). While tracing is on it binds
		 * to a MOV CR3 and is not reported here (Documentation/
		 * ptflow.rst, Engines); in PSB+ it is a status update.
		 */
		if (!c->in_psb && !c->cur && !c->fup_pending)
			flow_event(c, COV_EV_PAGING, pkt.payload.pip.nr ? 1 : 0,
				   pkt.payload.pip.cr3, false, 0);
		break;
	case LPT_PKT_VMCS:	/* libipt's vmcs event: as PIP's */
		if (!c->in_psb && !c->cur && !c->fup_pending)
			flow_event(c, COV_EV_VMCS, 0, pkt.payload.vmcs.base, false, 0);
		break;
	default:
		break;		/* timing, power, ...: no flow */
	}
	return p + n;
}

/* Start of the next PSB at or after @p, or @end. */
static const uint8_t *next_psb(const uint8_t *begin, const uint8_t *end,
			       const uint8_t *p)
{
	const uint8_t *q = lpt_psb_find_forward(begin, end, p);

	return q ? q : end;
}

/*
 * How a segment ends at the packet whose first byte is @b: 1 at a TIP with
 * an IP, 2 at a TIP.PGD with an IP, 3 at one without (its key's IP is
 * then 0: any IP can be a trace's, also one in page 0), else 0 (no segment
 * ends there; also a reserved IPBytes, SDM Table 33-18).
 */
static inline unsigned int seg_end(uint8_t b)
{
	unsigned int opc = b & PT_OPM_IP, ipb = b >> PT_IPBYTES_SHIFT;
	bool ip = lpt_ip_payload_bits(ipb);

	if (opc == PT_OPC_TIP)
		return ip ? 1 : 0;
	if (opc == PT_OPC_TIP_PGD)
		return ip ? 2 : ipb == PT_IPBYTES_SUPPRESSED ? 3 : 0;
	return 0;
}

/*
 * Up to COV_PATH_TNT TNT.8 bytes at @p (PADs before and between them
 * skipped: they mean nothing) and the TIP or TIP.PGD after them as one
 * cached path (a "segment", libxdc's unit of caching: the walk from a
 * block through a TNT run to the next indirect branch), or a run of at
 * least two TNT.8 bytes without one. Returns the packet after them; when
 * @p starts neither, the first packet that is not a PAD, or NULL when
 * that is @p itself: the caller then goes on packet by packet.
 */
static inline __attribute__((always_inline))
const uint8_t *segment(struct lpt_cov *c, const uint8_t *p, const uint8_t *end)
{
	uint64_t ip = 0;
	unsigned int ipb, seg;
	const uint8_t *q;
	struct cov_run r;
	size_t pl;
	struct cov_path *path;

	cov_tnt_run(p, end, COV_PATH_TNT, c->pext, &r);
	q = r.q;
	if (q >= end)
		goto bytes;
	seg = seg_end(*q);
	ipb = *q >> PT_IPBYTES_SHIFT;
	pl = PT_IPBYTES_PAYLOAD_SIZE(ipb);
	if (!seg || (size_t)(end - q) < 1 + pl)
		goto bytes;
	if (!ip_decode(c, q + 1, end, ipb, &ip))
		ip = 0;		/* TIP.PGD without an IP (seg_end()) */
	path = path_find(c, r.tnt, ip, r.n, seg);
	if (path)
		path_apply(c, path, 0);
	else
		path_record(c, r.tnt, ip, r.n, seg);
	return q + 1 + pl;
bytes:				/* Last IP untouched */
	if (r.n < 2) {
		/* no path: on from the first packet that is not a PAD (the
		 * run's end when it holds no TNT.8) */
		if (r.n)
			for (q = p; q < end && *q == PT_OPC_PAD; q++)
				;
		return q > p ? q : NULL;
	}
	/* a run of TNT.8 bytes without a TIP after it */
	path = path_find(c, r.tnt, 0, r.n, 0);
	if (path)
		path_apply(c, path, 0);
	else
		path_record(c, r.tnt, 0, r.n, 0);
	return q;
}

/* TIP.PGE (SDM 33.4.2.3): tracing resumes at @ip. */
static inline void on_pge(struct lpt_cov *c, uint64_t ip)
{
	c->fup_pending = false;
	c->ovf = false;
	c->pend = COV_NO_EDGE;
	flow_event(c, COV_EV_ENABLED, 0, ip, false, 0);
	flow_exec_mode(c);
	jump_to(c, ip);
}

/* The first byte at or after @p that is not a PAD (SDM 33.4.2.14), or
 * @end: eight bytes a load. */
static inline const uint8_t *skip_pads(const uint8_t *p, const uint8_t *end)
{
	for (; end - p >= 8; p += 8) {
		uint64_t w = lpt_ld64(p);

		if (w)
			return p + (__builtin_ctzll(w) >> 3);
	}
	while (p < end && *p == PT_OPC_PAD)
		p++;
	return p;
}

/*
 * Whether @q is a TIP.PGE with an IP, its payload readable 8 bytes wide
 * (the fast paths after a TIP.PGD): then its IP after Last IP @last_ip
 * into *@ip, and the packet after it into *@after.
 */
static inline bool pge_at(const uint8_t *q, const uint8_t *end, uint64_t last_ip,
			  uint64_t *ip, const uint8_t **after)
{
	unsigned int ipb;

	if (end - q < 9 || (*q & PT_OPM_IP) != PT_OPC_TIP_PGE)
		return false;
	ipb = *q >> PT_IPBYTES_SHIFT;
	if (!lpt_ip_payload_bits(ipb))
		return false;	/* suppressed, reserved */
	*ip = cov_ip_fast(q + 1, ipb, last_ip);
	*after = q + 1 + PT_IPBYTES_PAYLOAD_SIZE(ipb);
	return true;
}

/*
 * The fast part of segments(): segments with a cached path that pushes no
 * return address (the common case of a warm decode; found as a successor
 * of the path before, else by path_find_slow()), and the TIP.PGE after a
 * TIP.PGD when it goes where it went the last time. The decoder's state
 * is kept in locals and written back at the end. Stops before anything
 * else (a path not cached yet, another packet, the last 16 bytes of the
 * trace), which segment() then takes; returns where it stopped.
 */
static const uint8_t *seg_run(struct lpt_cov *c, const uint8_t *p,
			      const uint8_t *end)
{
	struct cov_path *prev = c->last_path, **touched = c->ptouched;
	const struct cov_blk *cur = c->cur;
	uint64_t last_ip = c->last_ip, hits = 0;
	uint32_t pend = c->pend;
	size_t nt = c->nptouched;
	const bool pext = c->pext;
	const uint8_t mode = c->mode;

	if (!prev)
		return p;	/* the first segment: segment() */
	while (end - p >= 17) {
		const uint8_t *q, *after;
		struct cov_path *np;
		struct cov_run r;
		unsigned int ipb, seg;
		uint64_t ip, bits, k0;

		cov_tnt_run(p, end, COV_PATH_TNT, pext, &r);
		q = r.q;
		if (end - q < 9)
			break;
		if (r.hdr > 0xff)
			r.hdr = *q;
		ipb = r.hdr >> PT_IPBYTES_SHIFT;
		bits = lpt_ip_payload_bits(ipb);
		seg = seg_end((uint8_t)r.hdr);
		if (!seg) {
			if (r.n < 2)
				break;
			bits = 0;	/* TNT.8 bytes alone */
		}
		ip = bits ? cov_ip_fast(q + 1, ipb, last_ip) : 0;
		k0 = path_k0(cur, r.n, seg);
		np = prev->nx[nx_slot(k0, r.tnt, ip)];
		if (!np || !path_is(np, k0, r.tnt, ip)) {
			c->cur = (struct cov_blk *)cur;
			c->last_path = prev;
			np = path_find_slow(c, k0, r.tnt, ip);
			if (!np)
				break;	/* segment() records it */
		}
		if (!np->plain)
			break;
		/* path_apply() of a plain path */
		if (np->in_act) {
			if (pend) {	/* not in a libxdc map's decode */
				c->pend = pend;
				if (np->in_act == 1)
					commit(c);
				else
					drop(c);
			}
			pend = COV_NO_EDGE;
		}
		if (!np->hits++)
			touched[nt++] = np;
		if (np->pend != COV_IN)
			pend = np->pend;
		hits++;
		if (bits)
			last_ip = ip;
		after = seg ? q + 1 + PT_IPBYTES_PAYLOAD_SIZE(ipb) : q;
		cur = np->end;
		prev = np;
		p = after;
		if (cur)
			continue;
		/* after TIP.PGD: PADs, then the TIP.PGE it was followed by? */
		if (!pge_at(skip_pads(after, end), end, last_ip, &ip, &after) ||
		    !np->pge_blk || np->pge_ip != ip || np->pge_mode != mode)
			break;		/* segments() decodes it */
		last_ip = ip;
		pend = COV_NO_EDGE;	/* on_pge() */
		cur = np->pge_blk;
		p = after;
	}
	c->cur = (struct cov_blk *)cur;
	c->last_path = prev;
	c->last_ip = last_ip;
	c->pend = pend;
	c->nptouched = nt;
	c->st.path_hits += hits;
	return p;
}

/*
 * Segments one after another while the decoder stays in the state cached
 * paths start from, and the TIP.PGE after a segment that ends with a
 * TIP.PGD (code outside the filter ranges ran): the decode of a fuzzing
 * loop's trace is mostly this. Returns where it stopped, @p when no
 * segment starts there.
 */
static const uint8_t *segments(struct lpt_cov *c, const uint8_t *p,
			       const uint8_t *end)
{
	for (;;) {
		const uint8_t *q = seg_run(c, p, end);
		struct cov_path *lp;
		uint64_t ip;

		if (c->cur) {
			p = q;
			q = segment(c, p, end);
			if (!q)
				return p;
			p = q;
			if (c->cur || c->halt)
				goto next;
		}
		/* after TIP.PGD: PADs, then the TIP.PGE? */
		q = skip_pads(q, end);
		if (!pge_at(q, end, c->last_ip, &ip, &p))
			return q;
		lp = c->last_path;	/* the TIP.PGD's path */
		c->last_ip = ip;
		on_pge(c, ip);
		if (lp && lp->seg >= 2 && c->cur) {	/* for seg_run() */
			lp->pge_ip = ip;
			lp->pge_blk = c->cur;
			lp->pge_mode = c->mode;
		}
next:
		if (p >= end || !path_ok(c) || c->halt)
			return p;
	}
}

/* PAD, TNT.8, TIP or TIP.PGD: what a segment starts with. */
static inline bool seg_start(uint8_t b)
{
	uint8_t opc = b & PT_OPM_IP;

	return (!(b & PT_OPM_TNT_8) && b != PT_OPC_EXT) || opc == PT_OPC_TIP ||
	       opc == PT_OPC_TIP_PGD;
}

/*
 * One packet at @p (or a run of them: PADs, cached segments), before
 * @end: returns where decoding goes on. A packet cut by the end of the
 * buffer sets c->trunc and returns @end.
 */
static inline __attribute__((always_inline))
const uint8_t *decode_one(struct lpt_cov *c, const uint8_t *p, const uint8_t *end)
{
	uint8_t b0 = *p;

	if (seg_start(b0) && path_ok(c)) {
		const uint8_t *q = segments(c, p, end);

		if (q != p)
			return q;
	}
	if (b0 == PT_OPC_PAD)
		return skip_pads(p, end);
	uint8_t opc = b0 & PT_OPM_IP;

	if (!(b0 & PT_OPM_TNT_8) && b0 != PT_OPC_EXT) {
		tnt8(c, b0);	/* TNT.8 */
		return p + 1;
	}

	if (opc == PT_OPC_TIP || opc == PT_OPC_TIP_PGE ||
	    opc == PT_OPC_TIP_PGD || opc == PT_OPC_FUP) {
		unsigned int ipb = b0 >> PT_IPBYTES_SHIFT;
		size_t pl = PT_IPBYTES_PAYLOAD_SIZE(ipb);
		uint64_t ip = 0;
		bool supp = ipb == PT_IPBYTES_SUPPRESSED;

		if (ipb == PT_IPBYTES_RSVD_5 || ipb == PT_IPBYTES_RSVD_7)
			goto bad;
		if ((size_t)(end - p) < 1 + pl) {
			c->trunc = true;	/* cut at the end */
			c->trunc_at = p;
			return end;
		}
		if (!supp)
			ip_decode(c, p + 1, end, ipb, &ip);
		p += 1 + pl;
		switch (opc) {
		case PT_OPC_TIP:
			if (supp) {	/* e.g. far branch out of context */
				c->fup_pending = false;
				drop(c);
				c->cur = NULL;
			} else {
				on_tip(c, ip);
			}
			break;
		case PT_OPC_TIP_PGE:
			if (supp) {
				c->fup_pending = false;
				c->ovf = false;
				c->pend = COV_NO_EDGE;
			} else {
				on_pge(c, ip);
			}
			break;
		case PT_OPC_TIP_PGD:
			on_pgd(c, ip, supp);
			break;
		default:
			if (!supp)
				on_fup(c, ip);
			break;
		}
		return p;
	}
	const uint8_t *q = other_packet(c, p, end);

	if (q)
		return q;
bad:
	if (!c->err)
		c->err = LPT_ERR_BAD_PACKET;
	c->st.errors++;
	flow_event(c, COV_EV_ERROR, 0, 0, true, LPT_ERR_BAD_PACKET);
	drop(c);
	decode_reset(c);
	return next_psb(c->tbegin, end, p + 1);
}

/* The end of the trace: what libipt decodes after the last packet. */
static void decode_end(struct lpt_cov *c)
{
	if (c->trunc && c->cur && !c->ovf && !c->fup_pending && !c->trunc_event) {
		/*
		 * A buffer cut inside a packet is no clean end for libipt: it
		 * decodes on until an instruction needs trace data. So the
		 * destination of the last branch runs, and the direct jumps
		 * and calls after it, but not the branch that needs a packet.
		 */
		struct cov_blk *b = advance(c);

		if (b && (b->cofi > b->start ||
			  ((b->kind == BK_LEAVE || b->kind == BK_NOMAP) && b->ninsn))) {
			commit(c);
			flow_pre(c, b);
		}
		if (b)
			flow_event(c, COV_EV_ERROR, 0, 0, true, LPT_ERR_EOS);
	}
	drop(c);
}

static int decode_trace(struct lpt_cov *c, const uint8_t *trace, size_t len)
{
	const uint8_t *end = trace + len, *p;

	decode_reset(c);
	c->tbegin = trace;
	p = next_psb(trace, end, trace);
	if (p == end)
		return LPT_ERR_NOSYNC;
again:
	while (p < end && !c->halt)
		p = decode_one(c, p, end);
	if (c->halt == COV_HALT_RESYNC) {	/* as libipt after an error */
		decode_reset(c);
		p = next_psb(trace, end, p);
		goto again;
	}
	decode_end(c);
	return 0;
}

int cov_flow_begin(struct lpt_cov *c, const uint8_t *trace, size_t len,
		   const struct cov_flow_ops *ops, void *ctx)
{
	const uint8_t *end = trace + len;

	c->gen = gen_next();
	c->fo = ops;
	c->fctx = ctx;
	c->keep_lens = true;
	c->use_rs = true;	/* a flow decode is never decoded again */
	c->halt = 0;
	c->err = 0;
	c->last_path = NULL;
	decode_reset(c);
	c->tbegin = trace;
	c->fend = end;
	c->fpkt = NULL;
	c->fa = (struct cov_flow_ahead){ c->pkt_flags, trace, end, 0, NULL };
	c->fpos = next_psb(trace, end, trace);
	c->fresynced = true;	/* as libipt's first sync */
	c->fdone = c->fpos == end;
	return c->fdone ? LPT_ERR_NOSYNC : 0;
}

/* A decode error of the flow hooks at c->fpkt: on at the next PSB. */
static void flow_fail(struct lpt_cov *c, const uint8_t *from)
{
	const uint8_t *psb = c->fa.bad_psb;

	flow_event(c, COV_EV_ERROR, 0, 0, true, c->fa.err);
	drop(c);
	decode_reset(c);
	if (psb) {
		/* libipt goes back to the PSB it could not read, syncs there,
		 * fails again, and goes on after it */
		flow_event(c, COV_EV_ERROR, 0, 0, true, c->fa.err);
		c->fpos = next_psb(c->tbegin, c->fend, psb + 1);
		c->fresynced = true;
		return;
	}
	c->fpos = cov_flow_resync(&c->fa, from);
	c->fresynced = true;
}

int cov_flow_step(struct lpt_cov *c)
{
	if (c->fdone)
		return 0;
	if (c->fpos < c->fend && !c->halt) {
		const uint8_t *p = c->fpos;
		enum cov_flow_loss loss;
		bool resynced = c->fresynced;
		int err;

		c->fpkt = p;
		c->fresynced = false;
		c->fa.bad_psb = NULL;
		if (*p == PT_OPC_EXT && p + 1 < c->fend && p[1] == PT_EXT_PSB &&
		    (err = cov_flow_psb_bad(&c->fa, p, c->fend))) {
			/* a PSB+ libipt cannot read: its read-ahead fails
			 * there, then its sync; one error when the sync was
			 * the way here */
			flow_event(c, COV_EV_ERROR, 0, 0, true, err);
			if (!resynced)
				flow_event(c, COV_EV_ERROR, 0, 0, true, err);
			drop(c);
			decode_reset(c);
			c->fpos = next_psb(c->tbegin, c->fend, p + 1);
			c->fresynced = true;
			return 1;
		}
		if (!c->in_psb && !c->fup_pending && !c->ovf && !c->cur &&
		    (*p & PT_OPM_IP) == PT_OPC_TIP_PGD &&
		    (*p >> PT_IPBYTES_SHIFT) != PT_IPBYTES_RSVD_5 &&
		    (*p >> PT_IPBYTES_SHIFT) != PT_IPBYTES_RSVD_7 &&
		    c->fend - p >= 1 + (long)PT_IPBYTES_PAYLOAD_SIZE(*p >> PT_IPBYTES_SHIFT)) {
			/* a TIP.PGD while tracing is off: libipt's
			 * pt_insn_event() fails (-pte_bad_context) */
			const uint8_t *after = p + 1 + PT_IPBYTES_PAYLOAD_SIZE(*p >> PT_IPBYTES_SHIFT);

			flow_event(c, COV_EV_ERROR, 0, 0, true, LPT_ERR_BAD_CONTEXT);
			drop(c);
			decode_reset(c);
			c->fpos = cov_flow_resync(&c->fa, after);
			c->fresynced = true;
			return 1;
		}
		if (!c->cur && !c->fup_pending && !c->in_psb &&
		    cov_flow_class(&c->fa, p, c->fend) == FC_BRANCH) {
			/* a TNT or TIP while tracing is off: libipt's
			 * pt_insn_next() fails (-pte_no_enable) */
			flow_event(c, COV_EV_ERROR, 0, 0, true, LPT_ERR_BAD_CONTEXT);
			drop(c);
			decode_reset(c);
			c->fpos = cov_flow_resync(&c->fa, p);
			c->fresynced = true;
			return 1;
		}
		loss = cov_flow_loss(&c->fa, c->in_psb, p, c->fend);
		if (loss == FL_BEFORE) {
			flow_fail(c, p + 1);
			return 1;
		}
		c->fitems = 0;
		c->fpos = decode_one(c, p, c->fend);
		if (loss == FL_LAST && !(c->halt & COV_HALT_RESYNC)) {
			if (c->fitems)
				c->fo->retract(c->fctx);
			flow_fail(c, c->fpos);
		}
		return 1;
	}
	if (c->halt == COV_HALT_RESYNC) {
		decode_reset(c);
		c->fpos = cov_flow_resync(&c->fa, c->fpos);
		c->fresynced = true;
		return 1;
	}
	c->fpkt = c->fend;
	if (c->trunc && c->trunc_at)	/* libipt decodes on only to the query
					 * of a cut TNT or TIP (flow_ahead_bad()) */
		c->trunc_event = cov_flow_class(&c->fa, c->trunc_at, c->fend) != FC_BRANCH;
	decode_end(c);
	c->fdone = true;
	return 0;
}

uint64_t cov_flow_offset(const struct lpt_cov *c)
{
	return (uint64_t)(c->fpos - c->tbegin);
}

/* ---- API ----------------------------------------------------------------- */

/*
 * Whether cov_scan.h may use PEXT: the CPU has BMI2 (CPUID.(EAX=07H,
 * ECX=0):EBX[8]) and is not an AMD one before family 19h, whose PEXT is
 * microcoded (Zen 2: about 250 cycles; AMD's Software Optimization Guide
 * for family 17h, instruction latencies).
 */
static bool pext_probe(void)
{
#if defined(__x86_64__)
	unsigned int a, b, cx, d, fam;

	if (__get_cpuid_max(0, NULL) < 7)
		return false;
	__cpuid_count(7, 0, a, b, cx, d);
	if (!(b & (1u << 8)))		/* BMI2 */
		return false;
	__cpuid(0, a, b, cx, d);
	if (b != 0x68747541)		/* not "AuthenticAMD" */
		return true;
	__cpuid(1, a, b, cx, d);
	fam = (a >> 8) & 0xf;
	if (fam == 0xf)
		fam += (a >> 20) & 0xff;
	return fam >= 0x19;
#else
	return false;
#endif
}

/* pext_probe() once per process: CPUID traps to the hypervisor in a VM
 * (tens of microseconds for the four, a cold decode's whole set-up). */
static bool pext_fast(void)
{
	static int known = -1;	/* a race computes the same value twice */
	int v = __atomic_load_n(&known, __ATOMIC_RELAXED);

	if (v < 0) {
		v = pext_probe();
		__atomic_store_n(&known, v, __ATOMIC_RELAXED);
	}
	return v;
}

struct lpt_cov *lpt_cov_alloc(const struct lpt_cov_config *cfg,
			      const struct lpt_cov_image *img)
{
	struct lpt_cov *c;

	if (!cfg || !img || cfg->size < offsetof(struct lpt_cov_config, cpu) ||
	    (cfg->flags & ~LPT_COV_F_ALL) || cfg->nfilter > LPT_COV_MAX_FILTERS) {
		errno = EINVAL;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->gen = gen_next();
	lpt_cov_config_init(&c->cfg);
	memcpy(&c->cfg, cfg, cfg->size < sizeof(*cfg) ? cfg->size : sizeof(*cfg));
	c->cfg.size = sizeof(c->cfg);
	if (!c->cfg.map_size)
		c->cfg.map_size = LPT_COV_MAP_SIZE;
	if (!c->cfg.cache_max)
		c->cfg.cache_max = LPT_COV_CACHE_MAX;
	if (c->cfg.map_size < 2 || (c->cfg.map_size & (c->cfg.map_size - 1)) ||
	    c->cfg.map_size > (1ull << 32)) {
		free(c);
		errno = EINVAL;
		return NULL;
	}
	for (uint32_t i = 0; i < c->cfg.nfilter; i++) {
		if (c->cfg.filter[i].start >= c->cfg.filter[i].end) {
			free(c);
			errno = EINVAL;
			return NULL;
		}
	}
	c->img = img;
	c->pkt_flags = lpt_cpu_errata(&c->cfg.cpu);
	c->errata = lpt_cpu_errata_all(&c->cfg.cpu);
	c->xdc_only = (c->cfg.flags & (LPT_COV_F_XDC | LPT_COV_F_EDGES)) == LPT_COV_F_XDC;
	c->keep_lens = c->cfg.flags & LPT_COV_F_LENS;
	c->pext = pext_fast();
	c->bmask = 255;
	c->emask = 255;
	c->btab = calloc(c->bmask + 1, sizeof(*c->btab));
	c->etab = calloc(c->emask + 1, sizeof(*c->etab));
	c->pmask = 255;
	c->ptab = calloc(c->pmask + 1, sizeof(*c->ptab));
	c->rp.p = calloc(1, sizeof(*c->rp.p));
	if (!c->btab || !c->etab || !c->ptab || !c->rp.p || edge_grow_arrays(c)) {
		lpt_cov_free(c);
		errno = ENOMEM;
		return NULL;
	}
	cov_flush(c);
	return c;
}

void lpt_cov_free(struct lpt_cov *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nchunks; i++)
		free(c->chunks[i]);
	free(c->chunks);
	free(c->btab);
	free(c->etab);
	free(c->ptab);
	free(c->rp.p);
	free(c->ptouched);
	free(c->e_src);
	free(c->e_dst);
	free(c->e_slot);
	free(c->e_cond);
	free(c->e_cnt);
	free(c->touched);
	free(c->out);
	free(c->e_blk);
	free(c->out_blk);
	free(c->out_id);
	free(c->lenbuf);
	free(c);
}

int lpt_cov_decode(struct lpt_cov *c, const uint8_t *trace, size_t len,
		   uint8_t *map)
{
	uint64_t flushes, npaths;
	int ret;

	if (!c || (!trace && len))
		return LPT_ERR_INVALID;
	c->gen = gen_next();
	if (c->bytes > c->cfg.cache_max) {
		cov_flush(c);
		c->flushes++;
	}
	flushes = c->flushes;
	npaths = c->npaths;
	memset(&c->st, 0, sizeof(c->st));
	c->st.flushes = flushes;
	c->st.paths = npaths;
	c->err = 0;
	c->nfault = 0;
	c->nfault_all = 0;
	for (uint32_t i = 0; i < c->ntouched; i++)	/* counts not read */
		c->e_cnt[c->touched[i]] = 0;
	c->ntouched = 0;
	c->last_path = NULL;
	ret = len ? decode_trace(c, trace, len) : LPT_ERR_NOSYNC;
	if (c->halt & COV_HALT_RS) {
		/* again, with the return stack; cached paths lack pushes */
		cov_flush(c);
		memset(c->e_cnt, 0, c->ecap * sizeof(*c->e_cnt));
		c->ntouched = 0;
		c->nptouched = 0;
		c->use_rs = true;
		c->halt = 0;
		memset(&c->st, 0, sizeof(c->st));
		c->st.flushes = flushes;
		c->err = 0;
		c->nfault = 0;
		c->nfault_all = 0;
		ret = decode_trace(c, trace, len);
	}

	/* Path hits into edge counts. */
	for (size_t i = 0; i < c->nptouched; i++) {
		struct cov_path *p = c->ptouched[i];

		for (unsigned int k = 0; k < p->nedge; k++) {
			uint32_t id = p->ids[k];

			if (!c->e_cnt[id])
				c->touched[c->ntouched++] = id;
			c->e_cnt[id] += p->hits;
		}
		p->hits = 0;
	}
	c->nptouched = 0;

	/* The map, from the touched edges (8-bit counters wrap). */
	bool xdc = c->cfg.flags & LPT_COV_F_XDC;
	uint64_t branches = 0;

	for (uint32_t i = 0; i < c->ntouched; i++) {
		uint32_t id = c->touched[i];

		branches += c->e_cnt[id];
		if (map && (!xdc || c->e_cond[id]))
			map[c->e_slot[id]] += (uint8_t)c->e_cnt[id];
	}
	c->st.branches = branches;
	if (ret < 0)
		return ret;
	return c->err;
}

/*
 * This decode's edges with their ids into c->out_id, sorted by (src, dst)
 * (distinct: one id per pair): an LSD radix sort, a byte a pass, dst's
 * bytes then src's, the histograms of all sixteen counted in one read and
 * the passes where every edge has the same byte skipped (addresses share
 * their high bytes: a program's edges take five or six passes), rather
 * than qsort()'s comparisons (a few edges: by insertion). c->out has room
 * for them. 0 or LPT_ERR_NOMEM.
 */
static int edges_sorted(struct lpt_cov *c)
{
	uint32_t n = c->ntouched, cnt[16][256];
	struct cov_edge_id *a, *b;

	if (!n)			/* nothing to sort; c->out_id may be NULL */
		return 0;
	if (c->out_cap < n) {
		struct lpt_cov_edge *o = realloc(c->out, n * sizeof(*o));

		if (!o)
			return LPT_ERR_NOMEM;
		c->out = o;
		c->out_cap = n;
	}
	if (c->out_id_cap < n) {
		struct cov_edge_id *o = realloc(c->out_id, 2 * (size_t)n * sizeof(*o));

		if (!o)
			return LPT_ERR_NOMEM;
		c->out_id = o;
		c->out_id_cap = n;
	}
	a = c->out_id;
	b = a + n;
	if (n <= 32) {		/* few: by insertion (no histograms to clear) */
		for (uint32_t i = 0; i < n; i++) {
			uint32_t id = c->touched[i], j = i;
			struct cov_edge_id x = { c->e_src[id], c->e_dst[id], id, c->e_cnt[id] };

			for (; j > 0 && (a[j - 1].src > x.src ||
					 (a[j - 1].src == x.src && a[j - 1].dst > x.dst)); j--)
				a[j] = a[j - 1];
			a[j] = x;
		}
		return 0;
	}
	memset(cnt, 0, sizeof(cnt));
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = c->touched[i];
		uint64_t s = c->e_src[id], d = c->e_dst[id];

		a[i] = (struct cov_edge_id){ s, d, id, c->e_cnt[id] };
		for (unsigned int k = 0; k < 8; k++) {
			cnt[k][(d >> (8 * k)) & 0xff]++;
			cnt[8 + k][(s >> (8 * k)) & 0xff]++;
		}
	}
	for (unsigned int k = 0; k < 16; k++) {
		unsigned int sh = 8 * (k & 7);
		uint32_t pos = 0;
		bool one = false;

		for (unsigned int v = 0; v < 256; v++) {
			uint32_t x = cnt[k][v];

			one |= x == n;
			cnt[k][v] = pos;
			pos += x;
		}
		if (one)
			continue;
		for (uint32_t i = 0; i < n; i++) {
			uint64_t key = k < 8 ? a[i].dst : a[i].src;

			b[cnt[k][(key >> sh) & 0xff]++] = a[i];
		}
		struct cov_edge_id *t = a;

		a = b;
		b = t;
	}
	if (a != c->out_id)
		memcpy(c->out_id, a, n * sizeof(*a));
	return 0;
}

long lpt_cov_edges(struct lpt_cov *c, const struct lpt_cov_edge **out)
{
	const struct cov_edge_id *t;

	if (!c || !out || !(c->cfg.flags & LPT_COV_F_EDGES))
		return LPT_ERR_INVALID;
	if (edges_sorted(c))
		return LPT_ERR_NOMEM;
	t = c->out_id;
	for (uint32_t i = 0; i < c->ntouched; i++)
		c->out[i] = (struct lpt_cov_edge){ t[i].src, t[i].dst, t[i].count };
	*out = c->out;
	return (long)c->ntouched;
}

long cov_edges_dst(struct lpt_cov *c, const struct lpt_cov_edge **out,
		   const struct cov_blk *const **dst, uint64_t *gen)
{
	const struct cov_edge_id *t;
	uint32_t n;

	if (!c || !out || !dst || !gen || !(c->cfg.flags & LPT_COV_F_EDGES))
		return LPT_ERR_INVALID;
	n = c->ntouched;
	if (edges_sorted(c))
		return LPT_ERR_NOMEM;
	if (c->out_blk_cap < n) {
		const struct cov_blk **o = realloc(c->out_blk, n * sizeof(*o));

		if (!o)
			return LPT_ERR_NOMEM;
		c->out_blk = o;
		c->out_blk_cap = n;
	}
	if (c->e_blk_cap < c->ecap) {
		const struct cov_blk **o = realloc(c->e_blk, c->ecap * sizeof(*o));

		if (!o)
			return LPT_ERR_NOMEM;
		memset(o + c->e_blk_cap, 0, (c->ecap - c->e_blk_cap) * sizeof(*o));
		c->e_blk = o;
		c->e_blk_cap = c->ecap;
	}
	if (c->eblk_gen != c->gen_flush) {	/* the blocks they named are gone */
		if (c->e_blk_cap)
			memset(c->e_blk, 0, c->e_blk_cap * sizeof(*c->e_blk));
		c->eblk_gen = c->gen_flush;
	}
	t = c->out_id;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = t[i].id;
		const struct cov_blk *b = c->e_blk[id];

		/* looked up once per edge while the cache lives (the same
		 * lookup as lpt_cov_block_lens(), 64-bit mode); none yet:
		 * again next time */
		if (!b) {
			b = blk_lookup(c, t[i].dst, 64);
			c->e_blk[id] = b;
		}
		c->out_blk[i] = b;
		c->out[i] = (struct lpt_cov_edge){ t[i].src, t[i].dst, t[i].count };
	}
	*out = c->out;
	*dst = c->out_blk;
	*gen = c->gen;
	return (long)n;
}

long lpt_cov_faults(const struct lpt_cov *c, const uint64_t **addrs,
		    unsigned long *total)
{
	if (!c || !addrs)
		return LPT_ERR_INVALID;
	*addrs = c->faults;
	if (total)
		*total = c->nfault_all;
	return c->nfault;
}

uint64_t lpt_cov_fault_addr(const struct lpt_cov *c)
{
	return c ? c->fault : 0;
}

long lpt_cov_invalidate(struct lpt_cov *c, uint64_t start, uint64_t end)
{
	long n = 0;

	if (!c || start >= end)
		return LPT_ERR_INVALID;
	for (size_t i = 0; i <= c->bmask; i++) {
		const struct cov_blk *b = c->btab[i];

		/* a block reads up to X86_MAX_INSN_LEN bytes past @cofi */
		if (b && b->start < end && b->cofi + X86_MAX_INSN_LEN > start)
			n++;
	}
	if (n)
		cov_flush(c);
	return n;
}

int lpt_cov_stats(const struct lpt_cov *c, struct lpt_cov_stats *st)
{
	if (!c || !st)
		return LPT_ERR_INVALID;
	*st = c->st;
	st->blocks = c->nblk;
	st->edges = c->nedge - 2;
	st->paths = c->npaths;
	st->cache_bytes = c->bytes;
	st->flushes = c->flushes;
	return 0;
}

/* ---- the cache, for tools (lpt_cov_block_at(), lpt_cov_blocks()) -------- */

static void blk_export(const struct cov_blk *b, struct lpt_cov_block *o)
{
	static const uint8_t insn_kind[] = {
		[BK_COND] = LPT_COV_INSN_JCC,
		[BK_JMP] = LPT_COV_INSN_JMP,
		[BK_CALL] = LPT_COV_INSN_CALL,
		[BK_IND] = LPT_COV_INSN_JMP_IND,
		[BK_CALL_IND] = LPT_COV_INSN_CALL_IND,
		[BK_RET] = LPT_COV_INSN_RET,
		[BK_FAR] = LPT_COV_INSN_FAR,
	};

	memset(o, 0, sizeof(*o));
	o->start = b->start;
	o->ninsn = b->ninsn;
	o->mode = b->mode;
	o->flags = b->flags & BLK_F_UD ? LPT_COV_BLOCK_F_UD : 0;
	switch (b->kind) {
	case BK_LEAVE:
		o->stop = LPT_COV_STOP_FILTER;
		o->end = b->cofi;
		break;
	case BK_NOMAP:
		o->stop = LPT_COV_STOP_NOMAP;
		o->end = b->cofi;
		break;
	case BK_BAD:
		o->stop = LPT_COV_STOP_BADINSN;
		o->end = b->cofi;
		break;
	default:
		o->stop = LPT_COV_STOP_BRANCH;
		o->kind = insn_kind[b->kind];
		o->branch = b->cofi;
		o->end = b->next;
		if (b->kind <= BK_CALL)
			o->target = b->target;
		break;
	}
}

int lpt_cov_block_at(const struct lpt_cov *c, uint64_t addr, unsigned int mode,
		     struct lpt_cov_block *out)
{
	const struct cov_blk *b;

	if (!c || !out || (mode != 16 && mode != 32 && mode != 64))
		return LPT_ERR_INVALID;
	b = blk_lookup(c, addr, (uint8_t)mode);
	if (!b)
		return 0;
	blk_export(b, out);
	return 1;
}

int lpt_cov_block_lens(const struct lpt_cov *c, uint64_t addr, unsigned int mode,
		       struct lpt_cov_block *out, const uint8_t **lens)
{
	const struct cov_blk *b;

	if (!c || !out || !lens || (mode != 16 && mode != 32 && mode != 64))
		return LPT_ERR_INVALID;
	b = blk_lookup(c, addr, (uint8_t)mode);
	if (!b)
		return 0;
	blk_export(b, out);
	*lens = b->ninsn ? b->lens : NULL;
	return 1;
}

uint64_t cov_gen(const struct lpt_cov *c)
{
	return c->gen;
}

void cov_blk_lens(const struct cov_blk *b, struct lpt_cov_block *out,
		  const uint8_t **lens)
{
	blk_export(b, out);
	*lens = b->ninsn ? b->lens : NULL;
}

long lpt_cov_blocks(const struct lpt_cov *c,
		    int (*fn)(void *ctx, const struct lpt_cov_block *b), void *ctx)
{
	struct lpt_cov_block o;
	long n = 0;

	if (!c || !fn)
		return LPT_ERR_INVALID;
	for (size_t i = 0; i <= c->bmask; i++) {
		if (!c->btab[i])
			continue;
		blk_export(c->btab[i], &o);
		n++;
		if (fn(ctx, &o))
			break;
	}
	return n;
}
