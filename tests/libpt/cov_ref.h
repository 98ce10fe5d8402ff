/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test-side reference for ptcov's edges: the edge multiset derived from
 * libipt's instruction-flow decoder (pt_insn_next(), Debian libipt 2.0.5)
 * over the same code, independent of libpt's coverage decoder.
 *
 * Edge definition (Documentation/ptcov.rst "Edges"): for every executed
 * branch instruction libipt reports (iclass cond_jump, jump, call, return,
 * far_call, far_return, far_jump) the pair (its address, the address
 * control went to): the next instruction's address, or the address an
 * asynchronous event (interrupt, TSX abort, async disable) found the
 * decoder at, or a TIP.PGD's IP when the branch left the traced range. A
 * branch whose destination the trace does not give (OVF, a suppressed IP,
 * end of trace, a decode error) makes no edge.
 */
#ifndef LWPT_TESTS_COV_REF_H
#define LWPT_TESTS_COV_REF_H

#include <stddef.h>
#include <stdint.h>

struct cov_ref_edge {
	uint64_t src, dst, count;
};

/* A kAFL/Nyx page cache, loaded by the test itself (PREFIX.addr/.dump). */
struct cov_ref_pages {
	size_t n;
	uint64_t *addr;		/* page addresses, first entry wins */
	uint8_t *data;		/* n pages of 4 KiB */
};

/**
 * cov_ref_slurp() - a whole file in memory, 64 zero bytes after its end
 * (libipt's PSB search reads on).
 * @path: the file.
 * @len:  receives its size in bytes.
 *
 * Return: the malloc()ed bytes, or NULL with errno set.
 */
uint8_t *cov_ref_slurp(const char *path, size_t *len);

/**
 * cov_ref_load_pages() - the page cache @prefix.addr, @prefix.dump.
 *
 * Return: 0, or a negative errno.
 */
int cov_ref_load_pages(struct cov_ref_pages *pc, const char *prefix);
void cov_ref_free_pages(struct cov_ref_pages *pc);

struct pt_config;
struct pt_asid;

/**
 * cov_ref_read() - libipt's read_memory_callback_t over a page cache
 * (@ctx: a struct cov_ref_pages).
 *
 * Return: the bytes read from @ip on, or -pte_nomap.
 */
int cov_ref_read(uint8_t *buf, size_t size, const struct pt_asid *asid,
		 uint64_t ip, void *ctx);

/**
 * cov_ref_config() - a libipt decoder configuration for @trace: @len bytes,
 * the ADDR0 filter [fstart, fend) (none for 0, 0), the errata of CPU
 * @family/@model/@stepping (none for family 0).
 *
 * Return: 0, or libipt's error from pt_cpu_errata().
 */
int cov_ref_config(struct pt_config *cfg, const uint8_t *trace, size_t len,
		   uint64_t fstart, uint64_t fend, int family, int model, int stepping);

/**
 * cov_ref_edges() - libipt's edges of a trace.
 * @trace, @len:  raw PT.
 * @pc:           code.
 * @fstart, @fend: the ADDR0 filter range [fstart, fend) or 0, 0 for none.
 * @family, @model, @stepping: CPU for libipt's errata (0: none).
 * @out, @nout:   receive a malloc()ed array sorted by (src, dst).
 * @ninsn:        receives the number of instructions decoded (may be NULL).
 *
 * Return: 0, or a negative libipt error code on set-up failure.
 */
int cov_ref_edges(const uint8_t *trace, size_t len, const struct cov_ref_pages *pc,
		  uint64_t fstart, uint64_t fend, int family, int model, int stepping,
		  struct cov_ref_edge **out, size_t *nout, uint64_t *ninsn);

#endif
