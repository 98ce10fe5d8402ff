// SPDX-License-Identifier: GPL-2.0
/*
 * pt_flow_gt: the ground truth of a program's user-mode instruction flow,
 * by ptrace single-stepping (issue 5 point 6, in the VM).
 *
 *   pt_flow_gt [-o FILE] PROG [ARGS...]
 *
 * Runs PROG stopped at its exec, then PTRACE_SINGLESTEPs it to its end and
 * prints the IP of every user-mode instruction it executes, one per line as
 * 16 lower-case hex digits (ptflow --no-inst prints the same), to FILE or
 * standard output (which PROG then shares: its output changes its flow). A REP string
 * instruction traps after each iteration with RIP unchanged: it is printed
 * once, as a trace shows it (Documentation/pt-model.rst, choice 9).
 * Exit status: PROG's, or 125 if tracing failed.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static void die(const char *what)
{
	fprintf(stderr, "pt_flow_gt: %s: %s\n", what, strerror(errno));
	exit(125);
}

int main(int argc, char **argv)
{
	unsigned long long last = 0, n = 0;
	struct user_regs_struct r;
	int status, sig = 0, arg = 1;
	FILE *out = stdout;
	pid_t pid;

	if (argc > 3 && !strcmp(argv[1], "-o")) {
		out = fopen(argv[2], "w");
		if (!out)
			die(argv[2]);
		arg = 3;
	}
	if (argc <= arg) {
		fprintf(stderr, "usage: pt_flow_gt [-o FILE] PROG [ARGS...]\n");
		return 125;
	}
	pid = fork();
	if (pid < 0)
		die("fork");
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			die("PTRACE_TRACEME");
		execv(argv[arg], argv + arg);
		die(argv[arg]);
	}
	/* Stopped with SIGTRAP after the exec: RIP is the entry point. */
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		die("waitpid (exec)");
	for (;;) {
		if (ptrace(PTRACE_GETREGS, pid, NULL, &r))
			die("PTRACE_GETREGS");
		if (!n || r.rip != last)
			fprintf(out, "%016llx\n", (unsigned long long)r.rip);
		last = r.rip;
		n++;
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, (void *)(long)sig))
			die("PTRACE_SINGLESTEP");
		if (waitpid(pid, &status, 0) != pid)
			die("waitpid");
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		/* Pass on every signal but our own trap. */
		sig = WSTOPSIG(status) == SIGTRAP ? 0 : WSTOPSIG(status);
	}
	if (fclose(out))
		die("write");
	fprintf(stderr, "pt_flow_gt: %llu steps\n", n);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
