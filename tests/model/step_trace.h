/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ground truth of the model tests: a program single-stepped to its end
 * under ptrace, every user-mode instruction it retires reported in order
 * (IP, bytes, CPL, mode, the IP after it). The PT flow test, ptcov's
 * pt_step_trace and the BTS flow test feed these to their models.
 */
#ifndef LWPT_TESTS_MODEL_STEP_TRACE_H
#define LWPT_TESTS_MODEL_STEP_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "model/x86/x86_cofi.h"

/* One retired user-mode instruction. */
struct lwpt_step {
	uint64_t ip;			/* linear address */
	uint8_t insn[X86_MAX_INSN_LEN];	/* bytes at ip (insn_size valid) */
	uint8_t insn_size;		/* bytes readable at ip, 1..15 */
	uint8_t cpl;			/* CS.RPL: 3 */
	enum x86_mode mode;		/* 32 for the compatibility CS (0x23), else 64 */
	uint64_t next_ip;		/* IP after it; its own IP for the last one */
	bool last;			/* the program ended after it */
};

/* Called for each step in order; a non-zero return stops the run (-1). */
typedef int (*lwpt_step_fn)(void *ctx, const struct lwpt_step *s);

struct lwpt_step_opts {
	bool no_aslr;			/* run with ADDR_NO_RANDOMIZE */
	bool empty_env;			/* execve with an empty environment */
	/*
	 * If set, called once when the program is about to exit (the
	 * PTRACE_EVENT_EXIT stop, its mappings still there); non-zero fails.
	 */
	int (*at_exit)(void *ctx, pid_t pid);
};

/**
 * lwpt_step_run() - single-step a program to its end.
 * @argv:  program and arguments (argv[0] is the path executed).
 * @opts:  options, may be NULL.
 * @fn:    called for every retired user-mode instruction.
 * @ctx:   passed to @fn and opts->at_exit.
 * @exit_code: out, the program's exit status.
 *
 * The program's stdout goes to /dev/null. A REP string instruction traps
 * after each iteration (next IP == IP): it is reported once, after its
 * last iteration.
 * Return: 0 when the program exited; -1 when it could not be started or
 *         traced, was killed by a signal, or a callback failed (the
 *         program is killed).
 */
int lwpt_step_run(char *const argv[], const struct lwpt_step_opts *opts,
		  lwpt_step_fn fn, void *ctx, int *exit_code);

/* The steps of a run, in order (see lwpt_step_collect()). */
struct lwpt_step_list {
	struct lwpt_step *v;		/* malloc'ed; free() it */
	size_t n, cap;			/* steps held, room for */
};

/**
 * lwpt_step_collect() - an lwpt_step_fn that appends each step to the
 * struct lwpt_step_list @ctx (grown by doubling, from 65536 steps).
 * @ctx: the list.
 * @s:   the step.
 *
 * Return: 0; -1 when memory runs out (the run stops).
 */
int lwpt_step_collect(void *ctx, const struct lwpt_step *s);

#endif /* LWPT_TESTS_MODEL_STEP_TRACE_H */
