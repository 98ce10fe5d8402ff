/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptafl's one door to the coverage decoder (issue 25, libpt): "decode this
 * trace of this program into this AFL map". Everything else in ptafl
 * (fork server, capture, per-run bookkeeping) knows nothing of decoding.
 * Documentation/ptafl.rst, "Edges and the map".
 */
#ifndef LWPT_TOOLS_PTAFL_COV_H
#define LWPT_TOOLS_PTAFL_COV_H

#include <stddef.h>
#include <stdint.h>

#include "../ptcap/symfilter.h"	/* struct ptcap_vma, struct ptcap_range */

struct ptafl_cov;

/**
 * struct ptafl_cov_setup - what the decoder needs to know once.
 * @vma:	PROGRAM's file-backed mappings (at its exec, ASLR off), @nvma
 * @nvma:	number of @vma
 * @filter:	the IP filter ranges the trace is recorded with (ADDRn,
 *		inclusive), @nfilter of them; 0: none
 * @nfilter:	number of @filter
 * @cpu:	"F/M[/S]" of the traced processor (errata), NULL: this one
 * @map_size:	bytes of the AFL map (a power of two)
 */
struct ptafl_cov_setup {
	const struct ptcap_vma *vma;
	size_t nvma;
	const struct ptcap_range *filter;
	size_t nfilter;
	const char *cpu;
	uint32_t map_size;
};

/**
 * ptafl_cov_new() - a decoder for many traces of one program.
 * @cp:		out: the decoder (ptafl_cov_free())
 * @s:		the setup (copied)
 * @err:	out: what is wrong, on error
 * @errlen:	bytes at @err
 * Return: 0; -ENOSYS this ptafl was built without the coverage decoder;
 * -EINVAL a bad @s (a --cpu it cannot parse); -ENOMEM; the decoder's errors
 * reading PROGRAM's files (negative errno).
 */
int ptafl_cov_new(struct ptafl_cov **cp, const struct ptafl_cov_setup *s, char *err,
		  size_t errlen);

/**
 * ptafl_cov_decode() - add the edges of one thread's trace to @map.
 * @c:		decoder
 * @trace:	the thread's trace bytes, oldest first, @len of them
 * @len:	bytes
 * @map:	the AFL map (8-bit counters, wrapping), map_size bytes
 * Return: 0; a negative errno if the trace could not be decoded to its end
 * (-EBADMSG corrupt, -ENOENT code not in the image): @map then holds
 * partial counts and the caller clears it (ptafl.rst, "Lost traces").
 */
int ptafl_cov_decode(struct ptafl_cov *c, const void *trace, size_t len, uint8_t *map);

/** ptafl_cov_free() - free @c (NULL: nothing). */
void ptafl_cov_free(struct ptafl_cov *c);

/**
 * ptafl_edge_slot() - the map byte of the edge (@src, @dst).
 * @src:	the branch instruction's address
 * @dst:	the address of the next instruction executed
 * @map_size:	bytes of the map (a power of two)
 * Return: the slot, below @map_size. The same function as the coverage
 * decoder's, so that ptafl's test trace source (--trace-source=ptrace)
 * fills the same bytes for the same edges.
 */
uint32_t ptafl_edge_slot(uint64_t src, uint64_t dst, uint32_t map_size);

#endif /* LWPT_TOOLS_PTAFL_COV_H */
