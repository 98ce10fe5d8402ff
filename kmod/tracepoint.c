// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel tracepoints by name, for the probes of the subsystems (LWP exec
 * and exit hooks, the simulator's execution follower). Modules cannot name
 * the scheduler's tracepoints directly (their symbols are not exported);
 * for_each_kernel_tracepoint() finds them.
 */
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "lwpt.h"

struct lwpt_tp_lookup {
	const char *name;
	struct tracepoint *tp;
};

static void lwpt_tp_match(struct tracepoint *tp, void *priv)
{
	struct lwpt_tp_lookup *l = priv;

	if (!l->tp && !strcmp(tp->name, l->name))
		l->tp = tp;
}

struct tracepoint *lwpt_tracepoint_find(const char *name)
{
	struct lwpt_tp_lookup l = { .name = name };

	for_each_kernel_tracepoint(lwpt_tp_match, &l);
	return l.tp;
}
