/* SPDX-License-Identifier: GPL-2.0 */
/*
 * From the coverage decoder's edges to what coverage formats count:
 * the edges of several decodes summed, every executed instruction with its
 * execution count, and the blocks (an edge's destination to the first
 * branch after it) with theirs. Documentation/ptcov.rst "Blocks, lines".
 */
#ifndef LWPT_TOOLS_PTCOV_FLOW_H
#define LWPT_TOOLS_PTCOV_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <lwpt/pt_cov.h>

struct cov_blk;

/* Edges summed over decodes (a test suite traced test by test). */
struct cov_edges {
	struct lpt_cov_edge *e;	/* sorted by (src, dst) after cov_edges_sort() */
	size_t n, cap;
	size_t sorted;		/* e[0..sorted) sorted and distinct */
	/* the sum is one decode's edges (cov_edges_add_dst()): per edge its
	 * destination's block in @dcov's cache (cov_edges_dst(), libpt's
	 * cov_internal.h), good while cov_gen(@dcov) is @dgen; else NULL */
	const struct cov_blk *const *dblk;
	const struct lpt_cov *dcov;
	uint64_t dgen;
};

/**
 * cov_edges_add() - add one decode's edges (lpt_cov_edges()): merged into
 * the sum when both are sorted (linear), else appended for
 * cov_edges_sort().
 * @acc: the sum; zero-initialised before the first call.
 * @e:   edges; @n of them.
 *
 * Return: 0, or -1 when out of memory (errno ENOMEM).
 */
int cov_edges_add(struct cov_edges *acc, const struct lpt_cov_edge *e, size_t n);

/**
 * cov_edges_add_dst() - cov_edges_add() of the edges of libpt's
 * cov_edges_dst() (@e, @n; @dst, @gen) of the decoder @c: when they are
 * the sum's first, the sum keeps their destination blocks, and
 * cov_flow_build() with @c, while @c has not decoded again, finds the
 * destinations' blocks without a lookup in @c's cache.
 *
 * Return: 0, or -1 when out of memory (errno ENOMEM).
 */
int cov_edges_add_dst(struct cov_edges *acc, const struct lpt_cov_edge *e, size_t n,
		      const struct cov_blk *const *dst, const struct lpt_cov *c,
		      uint64_t gen);

/**
 * cov_edges_sort() - sort by (src, dst), summing the counts of equal edges
 * (a radix sort: linear in the edges).
 * @acc: the sum.
 *
 * Return: 0, or -1 when out of memory (errno ENOMEM; @acc unchanged).
 */
int cov_edges_sort(struct cov_edges *acc);

/**
 * cov_sorted_idx() - the indices 0..@n-1 of the elements at @base (each
 * @size bytes) in the order of the uint64_t key at byte @off of each,
 * stably (equal keys keep their order): a radix sort, linear in @n.
 *
 * Return: the @n indices (free() them), or NULL (errno ENOMEM).
 */
uint32_t *cov_sorted_idx(size_t n, const void *base, size_t size, size_t off);

/** cov_edges_free() - release @acc's memory; it is left empty. */
void cov_edges_free(struct cov_edges *acc);

/* One executed instruction. */
struct cov_insn {
	uint64_t addr;
	uint64_t target;	/* direct branches: target */
	uint64_t count;		/* times executed */
	uint64_t in_call;	/* entries by CALL edges (function entry) */
	uint64_t in_jump;	/* entries by other edges but RET */
	uint64_t in_label;	/* of those, jumps (not a JCC's not taken) */
	uint8_t len, kind;	/* enum lpt_cov_insn_kind */
	uint32_t line;		/* the caller's (cov_lcov.c): a line index */
};

/* One block: an edge's destination to the first branch after it. */
struct cov_block {
	uint64_t start, end;	/* [start, end): its instructions */
	uint64_t count;		/* times entered: the edges into @start */
	uint32_t ninsn;
	uint8_t kind;		/* enum lpt_cov_insn_kind of its last
				 * instruction (OTHER: no branch ends it) */
	uint8_t blen;		/* that branch's length (it is at end - blen) */
	uint64_t target;	/* that branch's direct target, else 0 */
	const uint8_t *lens;	/* inside cov_flow_build() only: the
				 * decoder's lengths of its instructions
				 * (lpt_cov_block_lens()), or NULL; NULL
				 * once it returns */
};

struct cov_flow {
	struct cov_insn *insn;	/* sorted by address, distinct (want_insns) */
	size_t ninsn;
	struct cov_block *blk;	/* sorted by start */
	size_t nblk;
	unsigned long nomap;	/* blocks cut short by missing code */
	/* per edge of the sum cov_flow_build() was given (want_insns): the
	 * index in @insn of its source and of its destination, COV_NO_INSN
	 * where none ran there; the lines and functions of a tracefile are
	 * counted per edge without a search per edge */
	uint32_t *e_src, *e_dst;
};

#define COV_NO_INSN	UINT32_MAX

/**
 * cov_flow_build() - instructions and blocks from edges.
 * @f:    filled; release with cov_flow_free().
 * @img:  the code the edges were decoded from.
 * @cfg:  the decoder's configuration: its filter ranges end blocks.
 * @acc:  the edges, cov_edges_sort()ed.
 * @entries: the programs' entry points (where a trace of an exec starts),
 *        @nentries of them; may be NULL.
 * @cov:  a decoder of @img with @cfg's filter that decoded (some of) the
 *        edges, or NULL: the blocks its cache holds are taken from there
 *        (lpt_cov_block_at()) instead of decoding the code again; the
 *        result is the same either way.
 * @want_insns: fill f->insn, f->e_src and f->e_dst (lcov); false: the
 *        blocks only (drcov), no instruction of a cached block is decoded.
 *        The instructions of a block the decoder cached with its lengths
 *        (LPT_COV_F_LENS, lpt_cov_block_lens()) are not decoded again.
 *
 * Every edge's destination starts a block that runs to its first branch
 * (or to missing code, an invalid instruction, the end of a filter range);
 * each of its instructions executes the edge's count. Code entered by
 * trace enable (TIP.PGE: no edge) is found from @entries and the
 * instruction after every executed far transfer (in address order): such
 * a block counts the times edges leave its branch beyond the times the
 * other blocks reached it. A branch executes at least as often as its
 * edges leave it. Work is per distinct edge, block and instruction, never
 * per execution.
 *
 * Return: 0, or -1 when out of memory (errno ENOMEM).
 */
int cov_flow_build(struct cov_flow *f, const struct lpt_cov_image *img,
		   const struct lpt_cov_config *cfg, const struct cov_edges *acc,
		   const uint64_t *entries, size_t nentries, const struct lpt_cov *cov,
		   bool want_insns);

/**
 * cov_flow_find() - the instruction at @addr.
 * Return: it, or NULL when @addr starts no executed instruction.
 */
struct cov_insn *cov_flow_find(const struct cov_flow *f, uint64_t addr);

/** cov_flow_free() - release @f's memory. */
void cov_flow_free(struct cov_flow *f);

#endif /* LWPT_TOOLS_PTCOV_FLOW_H */
