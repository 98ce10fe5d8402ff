// SPDX-License-Identifier: GPL-2.0
/*
 * pt_fork_prog: a deterministic program that forks once (66-pt-fork.sh,
 * issue 16 point 2): parent and child each run loops with indirect calls
 * and a switch of their own, the parent then waits for the child. Its
 * flow is the same at every run (static, no environment), so each
 * process's trace can be compared with pt_flow_gt -c's single-stepping.
 * Exit status: 0 if the child exited with 7.
 */
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

int main(void)
{
	pid_t pid = fork();
	int st = 0;

	if (pid == 0) {
		work(3);
		_exit(7);
	}
	work(5);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return 2;
	return WIFEXITED(st) && WEXITSTATUS(st) == 7 ? 0 : 1;
}
