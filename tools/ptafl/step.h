/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptafl's test trace source (--trace-source=ptrace): the same edges a PT
 * trace gives (issue 25: every branch instruction executed with the next
 * instruction), taken by ptrace single-stepping instead, so that the fork
 * server and afl-fuzz with ptafl are tested on a host without Intel PT.
 * Slow (two system calls per instruction); not a way to fuzz.
 * Documentation/ptafl.rst, "Test trace source".
 */
#ifndef LWPT_TOOLS_PTAFL_STEP_H
#define LWPT_TOOLS_PTAFL_STEP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../ptcap/symfilter.h"

/* Most ranges a stepper filters on (LWPT_PT_ADDR_RANGES). */
#define LWPT_STEP_MAX_FILTER	4

struct ptafl_step;

/**
 * ptafl_step_new() - a single-stepper that remembers instruction kinds.
 * @sp:		out: the stepper (ptafl_step_free())
 * @filter:	ranges whose branches count (inclusive); @nfilter 0: all
 * @nfilter:	number of @filter
 * Return: 0; -ENOMEM; -EIO capstone failed to open.
 */
int ptafl_step_new(struct ptafl_step **sp, const struct ptcap_range *filter, size_t nfilter);

/**
 * ptafl_step_run() - single-step @pid to its end, adding its edges to @map.
 * @s:		stepper
 * @pid:	a child stopped at its exec (PTRACE_TRACEME, SIGTRAP)
 * @map:	the AFL map, @map_size bytes (ptafl_edge_slot())
 * @map_size:	bytes
 * @status:	out: @pid's wait status at its end (exit or signal)
 * Only the traced process itself is stepped (no forks followed). A signal
 * other than the single-step trap is delivered to @pid as it would be.
 * Return: 0; a negative errno of ptrace() or waitpid().
 */
int ptafl_step_run(struct ptafl_step *s, pid_t pid, uint8_t *map, uint32_t map_size,
		   int *status);

/** ptafl_step_free() - free @s (NULL: nothing). */
void ptafl_step_free(struct ptafl_step *s);

#endif /* LWPT_TOOLS_PTAFL_STEP_H */
