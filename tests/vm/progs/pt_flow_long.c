// SPDX-License-Identifier: GPL-2.0
/*
 * pt_flow_long: a deterministic program whose trace is many times a small
 * PT buffer (64-pt-pmi.sh, issue 12): conditional branches (TNT), indirect
 * calls (TIP), returns, and now and then a system call (TIP.PGD/PGE), for
 * a number of rounds given as its first argument (default 2000). No time,
 * no randomness: the flow depends only on the argument. With a second
 * argument -w it first prints "ready" and waits for a byte on stdin (a
 * tracer attaches meanwhile: 92-bts-ptcap-attach).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "pt_flow_ops.h"

volatile long sink_var;

/* Dense on purpose: an indirect call and a few branches every round. */
int main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 2000;
	long sum = 0, i;
	char c;

	if (argc > 2 && !strcmp(argv[2], "-w") &&
	    (write(1, "ready\n", 6) != 6 || read(0, &c, 1) != 1))
		return 125;
	for (i = 0; i < rounds; i++) {
		sum = ops[i & 3](sum, i);
		if (sum & 8)
			sum += 5;
		if ((i & 4095) == 0)
			sum += syscall(SYS_getppid) > 0;
	}
	sink_var = sum;
	return (int)(sum & 0x3f);
}
