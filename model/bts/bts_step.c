// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Retired instructions to branch events for the branch-recording model.
 * See bts_step.h.
 */
#include "model/bts/bts_step.h"

static int event(struct bts_model_cpu *cpu, enum bts_branch_kind kind, uint64_t from,
		 uint64_t to, uint8_t cpl, enum x86_mode mode, uint8_t vector)
{
	struct bts_branch br = {
		.kind = kind, .from = from, .to = to, .cpl = cpl,
		.mode = mode, .vector = vector,
	};

	return bts_model_branch(cpu, &br) ? -EINVAL : 1;
}

/*
 * Into the kernel at @cpl and back to @back from the kernel at CPL 0; only
 * into the kernel when the thread did not come back (@back is the
 * instruction's own IP: it was its last).
 */
static int round_trip(struct bts_model_cpu *cpu, enum bts_branch_kind kind, uint64_t from,
		      uint64_t entry, uint64_t ret_ip, uint64_t back,
		      const struct bts_step *s, uint8_t vector)
{
	if (event(cpu, kind, from, entry, s->cpl, s->mode, vector) < 0)
		return -EINVAL;
	if (back == s->ip)
		return 1;
	if (event(cpu, BTS_BR_FAR, ret_ip, back, 0, X86_MODE_64, 0) < 0)
		return -EINVAL;
	return 2;
}

static enum bts_branch_kind near_kind(enum x86_cofi_kind k)
{
	switch (k) {
	case X86_COFI_JCC:
		return BTS_BR_JCC;
	case X86_COFI_JMP_REL:
		return BTS_BR_JMP_REL;
	case X86_COFI_CALL_REL:
		return BTS_BR_CALL_REL;
	case X86_COFI_JMP_IND:
		return BTS_BR_JMP_IND;
	case X86_COFI_CALL_IND:
		return BTS_BR_CALL_IND;
	case X86_COFI_RET:
		return BTS_BR_RET;
	default:
		return BTS_BR_FAR;
	}
}

int bts_step(struct bts_model_cpu *cpu, const struct bts_step_config *cfg,
	     const struct bts_step *s)
{
	struct x86_cofi c;
	uint64_t fall;
	int ret;

	if (!cpu || !cfg || !s || !s->insn_size || s->insn_size > X86_MAX_INSN_LEN ||
	    s->cpl > 3)
		return -EINVAL;
	ret = x86_cofi_decode(s->insn, s->insn_size, s->mode, &c);
	if (ret)
		return ret;
	fall = s->ip + c.len;
	switch (c.kind) {
	case X86_COFI_NONE:
		if (s->next_ip == fall)
			return 0;
		/* An interrupt taken after the instruction: FROM is the next IP (Table 33-23). */
		return round_trip(cpu, BTS_BR_INTERRUPT, fall, cfg->idt_entry, cfg->iret_ip,
				  s->next_ip, s, 0);
	case X86_COFI_JCC:
		if (s->next_ip == fall)
			return 0;
		return event(cpu, BTS_BR_JCC, s->ip, s->next_ip, s->cpl, s->mode, 0);
	case X86_COFI_SYSCALL:
	case X86_COFI_SYSENTER:
		return round_trip(cpu, BTS_BR_FAR, s->ip, cfg->syscall_entry, cfg->sysret_ip,
				  s->next_ip, s, 0);
	case X86_COFI_INT:
	case X86_COFI_INT3:
	case X86_COFI_INT1:
	case X86_COFI_INTO:
		/* Software interrupts: FROM is the instruction (SDM Table 33-23: as LBR FROM). */
		return round_trip(cpu, BTS_BR_FAR, s->ip, cfg->idt_entry, cfg->iret_ip,
				  s->next_ip, s, 0);
	case X86_COFI_UD:
		return round_trip(cpu, BTS_BR_EXCEPTION, s->ip, cfg->idt_entry, cfg->iret_ip,
				  s->next_ip, s, 6);
	case X86_COFI_SYSRET:
	case X86_COFI_SYSEXIT:
	case X86_COFI_VMENTRY:
		if (s->cpl != 0)	/* #GP (SYSRET/SYSEXIT) or #UD outside VMX */
			return round_trip(cpu, BTS_BR_EXCEPTION, s->ip, cfg->idt_entry,
					  cfg->iret_ip, s->next_ip, s,
					  c.kind == X86_COFI_VMENTRY ? 6 : 13);
		return event(cpu, BTS_BR_FAR, s->ip, s->next_ip, s->cpl, s->mode, 0);
	default:
		return event(cpu, near_kind(c.kind), s->ip, s->next_ip, s->cpl, s->mode, 0);
	}
}

int bts_step_resume(struct bts_model_cpu *cpu, const struct bts_step_config *cfg,
		    uint64_t ip, bool sysret)
{
	if (!cpu || !cfg)
		return -EINVAL;
	return event(cpu, BTS_BR_FAR, sysret ? cfg->sysret_ip : cfg->iret_ip, ip, 0,
		     X86_MODE_64, 0);
}
