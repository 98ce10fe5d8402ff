// SPDX-License-Identifier: GPL-2.0
/*
 * pt_flow_gt: the ground truth of a program's user-mode instruction flow,
 * by ptrace single-stepping (issue 5 point 6, in the VM).
 *
 *   pt_flow_gt [-o FILE] [-c CHILD] PROG [ARGS...]
 *
 * Runs PROG stopped at its exec, then PTRACE_SINGLESTEPs it to its end and
 * prints the IP of every user-mode instruction it executes, one per line as
 * 16 lower-case hex digits (ptflow --no-inst prints the same), to FILE or
 * standard output (which PROG then shares: its output changes its flow). A REP string
 * instruction traps after each iteration with RIP unchanged: it is printed
 * once, as a trace shows it (Documentation/pt-model.rst, choice 9).
 * With -c, the processes PROG forks are followed (PTRACE_O_TRACEFORK) and
 * single-stepped too, the first one's IPs written to CHILD (from its
 * first instruction, after the fork's SYSCALL), as a per-thread capture
 * that follows forks traces it (Documentation/pt.rst, "Following forks").
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

/* One single-stepped process: where its IPs go, the last one printed. */
struct stepped {
	pid_t pid;
	FILE *out;
	unsigned long long last, n;
	int sig;
};

/* Print the IP of @t's next instruction (once per REP), then step it. */
static void step(struct stepped *t)
{
	struct user_regs_struct r;

	if (ptrace(PTRACE_GETREGS, t->pid, NULL, &r))
		die("PTRACE_GETREGS");
	if (!t->n || r.rip != t->last)
		fprintf(t->out, "%016llx\n", (unsigned long long)r.rip);
	t->last = r.rip;
	t->n++;
	if (ptrace(PTRACE_SINGLESTEP, t->pid, NULL, (void *)(long)t->sig))
		die("PTRACE_SINGLESTEP");
}

/* -c: the parent and its first child, stepped as each stops. */
static int follow(pid_t pid, FILE *out, FILE *cout)
{
	struct stepped t[2] = { { pid, out, 0, 0, 0 }, { 0, cout, 0, 0, 0 } };
	int status, live = 1, rc = 125;
	struct stepped *s;
	pid_t w;

	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)PTRACE_O_TRACEFORK))
		die("PTRACE_SETOPTIONS");
	step(&t[0]);
	while (live) {
		w = waitpid(-1, &status, __WALL);
		if (w < 0)
			die("waitpid");
		if (w == t[0].pid)
			s = &t[0];
		else if (!t[1].pid || w == t[1].pid)
			s = &t[1];
		else
			continue;
		if (!s->pid) {
			s->pid = w;	/* the new child, stopped before it runs */
			live++;
		}
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			if (s == &t[0])
				rc = WIFEXITED(status) ? WEXITSTATUS(status) :
							 128 + WTERMSIG(status);
			s->pid = -1;
			live--;
			continue;
		}
		/* Our trap, a fork event, the child's first SIGSTOP: not passed. */
		s->sig = WSTOPSIG(status) == SIGTRAP ||
			 (s == &t[1] && s->n == 0 && WSTOPSIG(status) == SIGSTOP) ?
			 0 : WSTOPSIG(status);
		step(s);
	}
	if (fclose(out) || fclose(cout))
		die("write");
	fprintf(stderr, "pt_flow_gt: %llu + %llu steps\n", t[0].n, t[1].n);
	return rc;
}

int main(int argc, char **argv)
{
	unsigned long long last = 0, n = 0;
	struct user_regs_struct r;
	int status, sig = 0, arg = 1;
	FILE *out = stdout, *cout = NULL;
	pid_t pid;

	if (argc > arg + 2 && !strcmp(argv[arg], "-o")) {
		out = fopen(argv[arg + 1], "w");
		if (!out)
			die(argv[arg + 1]);
		arg += 2;
	}
	if (argc > arg + 2 && !strcmp(argv[arg], "-c")) {
		cout = fopen(argv[arg + 1], "w");
		if (!cout)
			die(argv[arg + 1]);
		arg += 2;
	}
	if (argc <= arg) {
		fprintf(stderr, "usage: pt_flow_gt [-o FILE] [-c CHILD] PROG [ARGS...]\n");
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
	if (cout)
		return follow(pid, out, cout);
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
