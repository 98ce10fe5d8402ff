// SPDX-License-Identifier: GPL-2.0
/*
 * ptafl's test trace source: edges by ptrace single-stepping (step.h).
 * An instruction is a branch (issue 25's edge definition) when capstone
 * puts it in CS_GRP_JUMP (JMP, Jcc, LOOPcc, JrCXZ), CS_GRP_CALL,
 * CS_GRP_RET or CS_GRP_IRET; SYSCALL and INT n leave user mode, which a
 * user-only trace shows as a disable and enable, not an edge.
 */
#include "step.h"
#include "ptafl_cov.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

/* Instruction kinds remembered by address (open addressing). */
#define STEP_CACHE	(1u << 16)
enum { KIND_UNKNOWN, KIND_BRANCH, KIND_OTHER };

struct step_slot {
	uint64_t ip;
	uint8_t kind;
};

struct ptafl_step {
	csh cs;
	struct ptcap_range filter[LWPT_STEP_MAX_FILTER];
	size_t nfilter;
	struct step_slot *cache;
};

int ptafl_step_new(struct ptafl_step **sp, const struct ptcap_range *filter, size_t nfilter)
{
	struct ptafl_step *s;

	if (nfilter > LWPT_STEP_MAX_FILTER)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->cache = calloc(STEP_CACHE, sizeof(*s->cache));
	if (!s->cache) {
		free(s);
		return -ENOMEM;
	}
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &s->cs) != CS_ERR_OK) {
		free(s->cache);
		free(s);
		return -EIO;
	}
	cs_option(s->cs, CS_OPT_DETAIL, CS_OPT_ON);
	memcpy(s->filter, filter, nfilter * sizeof(*filter));
	s->nfilter = nfilter;
	*sp = s;
	return 0;
}

void ptafl_step_free(struct ptafl_step *s)
{
	if (!s)
		return;
	cs_close(&s->cs);
	free(s->cache);
	free(s);
}

static bool in_filter(const struct ptafl_step *s, uint64_t ip)
{
	size_t i;

	if (!s->nfilter)
		return true;
	for (i = 0; i < s->nfilter; i++)
		if (ip >= s->filter[i].a && ip <= s->filter[i].b)
			return true;
	return false;
}

/* Decode the instruction at @ip of @pid (16 bytes, fewer at a page end). */
static uint8_t classify(struct ptafl_step *s, pid_t pid, uint64_t ip)
{
	static const cs_group_type branch[] = { CS_GRP_JUMP, CS_GRP_CALL, CS_GRP_RET,
						CS_GRP_IRET };
	uint8_t code[16];
	size_t n = 0, i;
	cs_insn *insn;
	uint8_t kind = KIND_OTHER;

	while (n < sizeof(code)) {
		long w;

		errno = 0;
		w = ptrace(PTRACE_PEEKTEXT, pid, (void *)(uintptr_t)(ip + n), NULL);
		if (errno)
			break;
		memcpy(code + n, &w, sizeof(w));
		n += sizeof(w);
	}
	if (!n || cs_disasm(s->cs, code, n, ip, 1, &insn) != 1)
		return KIND_OTHER;
	for (i = 0; i < sizeof(branch) / sizeof(branch[0]); i++)
		if (cs_insn_group(s->cs, insn, branch[i]))
			kind = KIND_BRANCH;
	cs_free(insn, 1);
	return kind;
}

static uint8_t kind_of(struct ptafl_step *s, pid_t pid, uint64_t ip)
{
	uint32_t h = (uint32_t)((ip * 0x9e3779b97f4a7c15ull) >> 48), probe;
	struct step_slot *e;

	for (probe = 0; probe < 16; probe++) {
		e = &s->cache[(h + probe) & (STEP_CACHE - 1)];
		if (e->kind != KIND_UNKNOWN && e->ip == ip)
			return e->kind;
		if (e->kind == KIND_UNKNOWN) {
			e->ip = ip;
			e->kind = classify(s, pid, ip);
			return e->kind;
		}
	}
	return classify(s, pid, ip);	/* cache crowded here: do not remember */
}

static int get_ip(pid_t pid, uint64_t *ip)
{
	long v;

	errno = 0;
	v = ptrace(PTRACE_PEEKUSER, pid, (void *)offsetof(struct user_regs_struct, rip), NULL);
	if (errno)
		return -errno;
	*ip = (uint64_t)v;
	return 0;
}

int ptafl_step_run(struct ptafl_step *s, pid_t pid, uint8_t *map, uint32_t map_size,
		   int *status)
{
	uint64_t ip, next;
	int st, sig = 0, err;
	uint8_t kind;

	err = get_ip(pid, &ip);
	if (err)
		return err;
	for (;;) {
		kind = kind_of(s, pid, ip);
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, (void *)(long)sig))
			return -errno;
		sig = 0;
		if (waitpid(pid, &st, 0) != pid)
			return -errno;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			*status = st;
			return 0;
		}
		if (WIFSTOPPED(st) && WSTOPSIG(st) != SIGTRAP) {
			/* A signal (a fault of the instruction at @ip, or one
			 * sent): deliver it at the next step; no edge. */
			sig = WSTOPSIG(st);
			kind = KIND_OTHER;
		}
		err = get_ip(pid, &next);
		if (err == -ESRCH)
			continue;	/* killed meanwhile: waitpid says how */
		if (err)
			return err;
		if (kind == KIND_BRANCH && in_filter(s, ip))
			map[ptafl_edge_slot(ip, next, map_size)]++;
		ip = next;
	}
}
