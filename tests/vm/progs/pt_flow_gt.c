// SPDX-License-Identifier: GPL-2.0
/*
 * pt_flow_gt: the ground truth of a program's user-mode instruction flow,
 * by ptrace single-stepping (issue 5 point 6, in the VM).
 *
 *   pt_flow_gt [-c] [-o FILE] [-f|-T CHILD] PROG [ARGS...]
 *
 * Runs PROG stopped at its exec, then PTRACE_SINGLESTEPs it to its end and
 * prints the IP of every user-mode instruction it executes, one per line as
 * 16 lower-case hex digits (ptflow --no-inst --no-symbols prints the same), to FILE or
 * standard output (which PROG then shares: its output changes its flow). A REP string
 * instruction traps after each iteration with RIP unchanged: it is printed
 * once, as a trace shows it (Documentation/pt-model.rst, choice 9).
 * With -c it prints the call trace instead, in the format of
 * `ptflow --calls --no-symbols` without its time and thread columns (issue
 * 15): "call 0x<target>", "return 0x<entry>", "unwind 0x<entry>",
 * "return to 0x<ip> (no matching call)" and "syscall", indented by two
 * spaces per depth. It is derived independently of ptflow: CALL, RET and
 * SYSCALL are recognised from the opcode bytes read with PTRACE_PEEKTEXT
 * (SDM vol. 2: E8, FF /2; C3, C2; 0F 05), the return address from the
 * stack at the callee's first instruction; frames are matched by return
 * address as Documentation/ptflow.rst, "Call trace", specifies.
 * With -f, the processes PROG forks are followed (PTRACE_O_TRACEFORK) and
 * single-stepped too, the first one's IPs written to CHILD (from its
 * first instruction, after the fork's SYSCALL), as a per-thread capture
 * that follows forks traces it (Documentation/pt.rst, "Following forks").
 * With -T, the same for the first thread PROG creates
 * (PTRACE_O_TRACECLONE; from its first instruction, after the clone's
 * SYSCALL), as a per-thread capture gives each thread its own buffer.
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

enum gt_kind { GT_OTHER, GT_CALL, GT_RET, GT_SYSCALL };

/* The kind of the instruction at @ip of @pid from its opcode bytes. */
static enum gt_kind gt_classify(pid_t pid, unsigned long long ip)
{
	unsigned char b[16];
	unsigned int i = 0;
	long w;

	for (i = 0; i < sizeof(b); i += sizeof(w)) {
		errno = 0;
		w = ptrace(PTRACE_PEEKTEXT, pid, (void *)(ip + i), NULL);
		if (errno)
			die("PTRACE_PEEKTEXT");
		memcpy(b + i, &w, sizeof(w));
	}
	/* Legacy prefixes, then REX (SDM vol. 2, 2.1.1 and 2.2.1). */
	for (i = 0; i < 14; i++) {
		unsigned char p = b[i];

		if (p != 0x66 && p != 0x67 && p != 0xf2 && p != 0xf3 &&
		    p != 0x2e && p != 0x3e && p != 0x26 && p != 0x36 &&
		    p != 0x64 && p != 0x65 && (p < 0x40 || p > 0x4f))
			break;
	}
	if (b[i] == 0xe8)
		return GT_CALL;
	if (b[i] == 0xff && ((b[i + 1] >> 3) & 7) == 2)
		return GT_CALL;
	if (b[i] == 0xc3 || b[i] == 0xc2)
		return GT_RET;
	if (b[i] == 0x0f && b[i + 1] == 0x05)
		return GT_SYSCALL;
	return GT_OTHER;
}

struct gt_frame {
	unsigned long long entry, ret;
	int called;
};

static struct gt_frame gt_stack[1 << 16];
static size_t gt_depth;

static void gt_line(FILE *out, const char *kind, unsigned long long addr,
		    const char *tail)
{
	size_t indent = gt_depth ? gt_depth - 1 : 0;

	fprintf(out, "%*s%s", (int)(2 * indent), "", kind);
	if (addr)
		fprintf(out, " 0x%llx", addr);
	fprintf(out, "%s\n", tail);
}

static void gt_push(unsigned long long entry, unsigned long long ret,
		    int called)
{
	if (gt_depth == sizeof(gt_stack) / sizeof(gt_stack[0])) {
		errno = E2BIG;
		die("call stack");
	}
	gt_stack[gt_depth].entry = entry;
	gt_stack[gt_depth].ret = ret;
	gt_stack[gt_depth].called = called;
	gt_depth++;
}

/* The previous instruction was a RET that went to @to. */
static void gt_return(FILE *out, unsigned long long to)
{
	size_t i;

	for (i = gt_depth; i > 0; i--)
		if (gt_stack[i - 1].called && gt_stack[i - 1].ret == to)
			break;
	if (i > 0) {
		while (gt_depth > i) {
			gt_depth--;
			gt_line(out, "unwind", gt_stack[gt_depth].entry, "");
		}
		gt_depth--;
		gt_line(out, "return", gt_stack[gt_depth].entry, "");
		return;
	}
	if (gt_depth <= 1) {
		if (gt_depth) {
			gt_depth--;
			gt_line(out, "return", gt_stack[0].entry, "");
		}
		gt_push(to, 0, 0);
		return;
	}
	gt_line(out, "return to", to, " (no matching call)");
}

/* One step of the call trace: the instruction at @ip is about to run. */
static void gt_calls_step(FILE *out, pid_t pid, unsigned long long ip,
			  unsigned long long sp, enum gt_kind *prev)
{
	if (*prev == GT_CALL) {
		long ret;

		errno = 0;
		ret = ptrace(PTRACE_PEEKDATA, pid, (void *)sp, NULL);
		if (errno)
			die("PTRACE_PEEKDATA");
		gt_line(out, "call", ip, "");
		gt_push(ip, (unsigned long)ret, 1);
	} else if (*prev == GT_RET) {
		gt_return(out, ip);
	}
	if (!gt_depth)
		gt_push(ip, 0, 0);
	*prev = gt_classify(pid, ip);
	if (*prev == GT_SYSCALL)
		gt_line(out, "syscall", 0, "");
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

/*
 * -f / -T: the parent and its first child process or thread (@opt
 * PTRACE_O_TRACEFORK or PTRACE_O_TRACECLONE), stepped as each stops.
 */
static int follow(pid_t pid, FILE *out, FILE *cout, long opt)
{
	struct stepped t[2] = { { pid, out, 0, 0, 0 }, { 0, cout, 0, 0, 0 } };
	int status, live = 1, rc = 125;
	struct stepped *s;
	pid_t w;

	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)opt))
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
	int status, sig = 0, arg = 1, calls = 0;
	enum gt_kind prev = GT_OTHER;
	FILE *out = stdout, *cout = NULL;
	long opt = PTRACE_O_TRACEFORK;
	pid_t pid;

	if (argc > 2 && !strcmp(argv[1], "-c")) {
		calls = 1;
		arg = 2;
	}
	if (argc > arg + 2 && !strcmp(argv[arg], "-o")) {
		out = fopen(argv[arg + 1], "w");
		if (!out)
			die(argv[arg + 1]);
		arg += 2;
	}
	if (argc > arg + 2 && !calls &&
	    (!strcmp(argv[arg], "-f") || !strcmp(argv[arg], "-T"))) {
		if (argv[arg][1] == 'T')
			opt = PTRACE_O_TRACECLONE;
		cout = fopen(argv[arg + 1], "w");
		if (!cout)
			die(argv[arg + 1]);
		arg += 2;
	}
	if (argc <= arg) {
		fprintf(stderr, "usage: pt_flow_gt [-c] [-o FILE] [-f|-T CHILD] PROG [ARGS...]\n");
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
		return follow(pid, out, cout, opt);
	for (;;) {
		if (ptrace(PTRACE_GETREGS, pid, NULL, &r))
			die("PTRACE_GETREGS");
		if ((!n || r.rip != last) && calls)
			gt_calls_step(out, pid, r.rip, r.rsp, &prev);
		else if (!n || r.rip != last)
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
