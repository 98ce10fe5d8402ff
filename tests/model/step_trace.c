// SPDX-License-Identifier: GPL-2.0
/*
 * ptrace single-stepping of a program to its end. See step_trace.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/model/step_trace.h"

/*
 * Up to 15 instruction bytes at @ip, read as aligned words so that a read
 * never crosses into an unmapped page the instruction does not touch.
 * Returns the number of bytes read (at least 1), or -1.
 */
static int peek_insn(pid_t pid, uint64_t ip, uint8_t out[X86_MAX_INSN_LEN])
{
	uint8_t buf[24];
	uint64_t a = ip & ~7ull;
	unsigned int i, have = 0, skip = (unsigned int)(ip - a);

	for (i = 0; i < 3; i++) {
		long w;

		errno = 0;
		w = ptrace(PTRACE_PEEKTEXT, pid, (void *)(a + 8 * i), NULL);
		if (errno)
			break;
		memcpy(buf + 8 * i, &w, 8);
		have += 8;
	}
	if (have <= skip)
		return -1;
	have -= skip;
	if (have > X86_MAX_INSN_LEN)
		have = X86_MAX_INSN_LEN;
	memcpy(out, buf + skip, have);
	return (int)have;
}

static bool exit_stop(int st)
{
	return WIFSTOPPED(st) && (st >> 8) == (SIGTRAP | (PTRACE_EVENT_EXIT << 8));
}

int lwpt_step_run(char *const argv[], const struct lwpt_step_opts *opts,
		  lwpt_step_fn fn, void *ctx, int *exit_code)
{
	static const struct lwpt_step_opts none;
	bool exiting = false;
	pid_t pid;
	int st;

	if (!opts)
		opts = &none;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char *const envp[] = { NULL };
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0)
			dup2(null, 1);	/* the programs may print */
		if (opts->no_aslr)
			personality(ADDR_NO_RANDOMIZE);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		if (opts->empty_env)
			execve(argv[0], argv, envp);
		else
			execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFSTOPPED(st))
		return -1;
	if (opts->at_exit &&
	    ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)PTRACE_O_TRACEEXIT) < 0)
		goto fail;
	for (;;) {
		struct user_regs_struct r;
		struct lwpt_step s;
		int got;

		memset(&s, 0, sizeof(s));
		if (ptrace(PTRACE_GETREGS, pid, NULL, &r) < 0)
			goto fail;
		got = peek_insn(pid, r.rip, s.insn);
		if (got < 0)
			goto fail;
		s.ip = r.rip;
		s.insn_size = (uint8_t)got;
		s.cpl = r.cs & 3;
		s.mode = r.cs == 0x23 ? X86_MODE_32 : X86_MODE_64;
		for (;;) {	/* a REP string instruction retires once */
			if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) < 0 ||
			    waitpid(pid, &st, 0) < 0)
				goto fail;
			if (WIFEXITED(st) || WIFSIGNALED(st))
				break;
			if (exit_stop(st)) {	/* the last instruction: its exit */
				if (opts->at_exit(ctx, pid))
					goto fail;
				exiting = true;
				break;
			}
			if (ptrace(PTRACE_GETREGS, pid, NULL, &r) < 0)
				goto fail;
			if (r.rip != s.ip)
				break;
		}
		if (WIFSIGNALED(st))
			return -1;
		s.last = WIFEXITED(st) || exiting;
		s.next_ip = s.last ? s.ip : r.rip;
		if (fn(ctx, &s))
			goto fail;
		if (exiting && (ptrace(PTRACE_CONT, pid, NULL, NULL) < 0 ||
				waitpid(pid, &st, 0) < 0 || !WIFEXITED(st)))
			goto fail;
		if (WIFEXITED(st)) {
			*exit_code = WEXITSTATUS(st);
			return 0;
		}
	}
fail:
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

int lwpt_step_collect(void *ctx, const struct lwpt_step *s)
{
	struct lwpt_step_list *l = ctx;

	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 1 << 16;
		struct lwpt_step *more = realloc(l->v, cap * sizeof(*more));

		if (!more)
			return -1;
		l->v = more;
		l->cap = cap;
	}
	l->v[l->n++] = *s;
	return 0;
}
