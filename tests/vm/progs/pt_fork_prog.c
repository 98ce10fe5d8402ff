// SPDX-License-Identifier: GPL-2.0
/*
 * pt_fork_prog: a deterministic program that forks once (66-pt-fork.sh,
 * issue 16 point 2): parent and child each run loops with indirect calls
 * and a switch of their own, the parent then waits for the child. Its
 * flow is the same at every run (static, no environment), so each
 * process's trace can be compared with pt_flow_gt -c's single-stepping.
 * Exit status: 0 if the child exited with 7. With an argument N: N
 * children in a row instead (children()).
 */
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile unsigned int acc;

static __attribute__((noinline)) void add(unsigned int v)
{
	acc += v;
}

static __attribute__((noinline)) void mul(unsigned int v)
{
	acc *= v | 1;
}

static void (*volatile const ops[2])(unsigned int) = { add, mul };

static __attribute__((noinline)) void work(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n * 8; i++) {
		ops[i & 1](i);
		switch (i % 3) {
		case 0: acc ^= i; break;
		case 1: acc += 3; break;
		default: acc -= 1; break;
		}
	}
}

/*
 * pt_fork_prog N (84-ptcap-reap.sh): N children one after another, each
 * writing several KiB of trace (work(128)) before it exits, each waited
 * for before the next. Exit status 0 if each exited with 7.
 */
static int children(unsigned long n)
{
	unsigned long i;
	int st = 0;

	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			work(128);
			_exit(7);
		}
		if (pid < 0 || waitpid(pid, &st, 0) != pid ||
		    !WIFEXITED(st) || WEXITSTATUS(st) != 7)
			return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	pid_t pid;
	int st = 0;

	if (argc > 1)
		return children(strtoul(argv[1], NULL, 10));
	pid = fork();
	if (pid == 0) {
		work(3);
		_exit(7);
	}
	work(5);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 2;
	return WIFEXITED(st) && WEXITSTATUS(st) == 7 ? 0 : 1;
}
