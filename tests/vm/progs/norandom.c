// SPDX-License-Identifier: GPL-2.0
/*
 * norandom: run a program with address-space layout randomization off for
 * it and its children (personality ADDR_NO_RANDOMIZE, as util-linux's
 * `setarch -R`; the VM's busybox has no setarch).
 *
 *   norandom PROG [ARGS...]
 *
 * The flow tests (tests/vm/lib.sh, pt_flow_*) compare the trace of one
 * run of a program with the single-step ground truth of another run: with
 * a randomized stack the two runs can take different branches (glibc's
 * strlen takes its page-crossing path when the AT_PLATFORM string happens
 * to lie in the last 32 bytes of a page), so both run without ASLR.
 * Exit status: PROG's; 125 if the personality or the exec failed.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int pers;

	if (argc < 2) {
		fprintf(stderr, "usage: norandom PROG [ARGS...]\n");
		return 125;
	}
	pers = personality(0xffffffff);
	if (pers == -1 || personality((unsigned long)pers | ADDR_NO_RANDOMIZE) == -1) {
		fprintf(stderr, "norandom: personality: %s\n", strerror(errno));
		return 125;
	}
	execvp(argv[1], argv + 1);
	fprintf(stderr, "norandom: %s: %s\n", argv[1], strerror(errno));
	return 125;
}
