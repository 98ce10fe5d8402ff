// SPDX-License-Identifier: GPL-2.0
/*
 * pt_held [-c CPU] PIDFILE PROG [ARGS...]: run PROG stopped at its first
 * instruction (81-ptflow-sys.sh, issue 15 point 5). Forks; the child asks
 * to be traced (PTRACE_TRACEME) and executes PROG with this environment,
 * so it stops at the exec (as ptcap and pt_flow_gt start their programs:
 * the same stack, the same flow); with -c the parent then pins it to CPU
 * (sched_setaffinity), so that no code before the exec ran there; the
 * parent detaches it with SIGSTOP (a group-stop: no user code runs, the
 * flow is unchanged), writes its pid to PIDFILE and waits for it: continue
 * it with kill -CONT. Exit status: PROG's, 128 + signal if it was killed,
 * 125 if starting it failed.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	cpu_set_t set;
	pid_t child;
	int st, cpu = -1;
	FILE *f;

	if (argc > 2 && !strcmp(argv[1], "-c")) {
		cpu = atoi(argv[2]);
		argv += 2;
		argc -= 2;
	}
	if (argc < 3 || cpu >= CPU_SETSIZE) {
		fprintf(stderr, "usage: pt_held [-c CPU] PIDFILE PROG [ARGS...]\n");
		return 125;
	}
	child = fork();
	if (child < 0) {
		perror("pt_held: fork");
		return 125;
	}
	if (!child) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(125);
		execv(argv[2], argv + 2);
		_exit(125);
	}
	/* The exec stop (SIGTRAP), then detached into a group-stop. */
	if (waitpid(child, &st, 0) != child || !WIFSTOPPED(st)) {
		fprintf(stderr, "pt_held: %s did not stop at its exec: %s\n", argv[2],
			strerror(errno));
		kill(child, SIGKILL);
		return 125;
	}
	CPU_ZERO(&set);
	if (cpu >= 0)
		CPU_SET(cpu, &set);
	if ((cpu >= 0 && sched_setaffinity(child, sizeof(set), &set)) ||
	    ptrace(PTRACE_DETACH, child, NULL, (void *)(long)SIGSTOP)) {
		fprintf(stderr, "pt_held: %s: CPU %d or detach: %s\n", argv[2], cpu,
			strerror(errno));
		kill(child, SIGKILL);
		return 125;
	}
	f = fopen(argv[1], "w");
	if (!f || fprintf(f, "%d\n", (int)child) < 0 || fclose(f)) {
		perror(argv[1]);
		kill(child, SIGKILL);
		return 125;
	}
	while (waitpid(child, &st, 0) < 0)
		if (errno != EINTR)
			return 125;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
