// SPDX-License-Identifier: GPL-2.0
/*
 * ptflow's call tracker (see ptflow_calls.h). A CALL pushes a frame with
 * its return address (the address after the CALL, SDM vol. 1 6.4.1) when
 * the next instruction, the callee's first, is seen; a RET pops when the
 * instruction it returned to is seen, matching the frame by return address
 * (as perf's thread-stack.c does) so that longjmp and similar non-local
 * exits are recovered at the next matching return.
 */
#include "tools/ptflow/ptflow_calls.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Capstone-independent names of the far transfers (opcode bytes). */
static const char *far_name(const struct pt_insn *insn)
{
	const uint8_t *b = insn->raw;
	unsigned int i = 0;

	/* Skip legacy and REX prefixes (SDM vol. 2 2.1.1, 2.2.1). */
	while (i + 1 < insn->size && ((b[i] >= 0x40 && b[i] <= 0x4f) ||
				      b[i] == 0x66 || b[i] == 0x67 ||
				      b[i] == 0xf2 || b[i] == 0xf3))
		i++;
	if (b[i] == 0x0f && i + 1 < insn->size) {
		switch (b[i + 1]) {
		case 0x05: return "syscall";
		case 0x34: return "sysenter";
		case 0x07: return "sysret";
		case 0x35: return "sysexit";
		default: break;
		}
	}
	switch (b[i]) {
	case 0xcc: case 0xcd: case 0xce: case 0xf1:
		return "int";
	case 0xcf:
		return "iret";
	default:
		break;
	}
	switch (insn->iclass) {
	case ptic_far_call: return "far call";
	case ptic_far_return: return "far return";
	default: return "far jump";
	}
}

uint64_t ptflow_calls_key(struct ptflow_sym *sym, uint64_t addr, char *name,
			  size_t size, uint64_t *lo, uint64_t *hi)
{
	struct ptflow_symbol s;

	if (ptflow_sym_lookup(sym, addr, false, &s)) {
		if (name)
			snprintf(name, size, "%s", s.name);
		*lo = s.start;
		*hi = s.size ? s.start + s.size : addr + 1;
		return s.start;
	}
	*lo = addr;
	*hi = addr + 1;
	if (s.module) {
		/* the piece of the table without a symbol: one identity */
		(void)ptflow_sym_span(sym, addr, lo, hi);
		if (name)
			snprintf(name, size, "[unknown in %s]", s.module);
		return UINT64_MAX - s.module_start;
	}
	if (name)
		snprintf(name, size, "[unknown]");
	return UINT64_MAX;
}

/* Name of an address on --calls lines: symbol[+off] or 0x<addr>; empty
 * without --calls lines (no line is printed then). */
static void calls_name(const struct ptflow_calls *c, uint64_t addr, char *buf,
		       size_t size)
{
	if (!c->out) {
		buf[0] = 0;
		return;
	}
	ptflow_sym_format(c->names, addr, buf, size);
}

/* @s into @p, cut at @end; the end of what was written. */
static char *put_str(char *p, const char *end, const char *s)
{
	size_t n = strlen(s);

	if (n > (size_t)(end - p))
		n = (size_t)(end - p);
	memcpy(p, s, n);
	return p + n;
}

/* The --calls lines held in @c->obuf into @c->out. Every public function
 * of the tracker that writes lines ends with them written, so that what
 * others write to the stream comes after them. */
static void calls_flush(struct ptflow_calls *c)
{
	if (c->olen) {
		fwrite_unlocked(c->obuf, 1, c->olen, c->out);
		c->olen = 0;
	}
}

/*
 * One --calls line: printf's "%12" PRIu64 "  %-10s  %*s%s%s%s%s\n" of
 * the time, the thread, 2 x @indent spaces, @fmt_kind, " " @name, @tail;
 * built by hand in the tracker's buffer (calls_flush()).
 */
static void calls_line_out(struct ptflow_calls *c, uint64_t tsc, size_t indent,
			   const char *fmt_kind, const char *name,
			   const char *tail)
{
	char digits[24], *p, *end = c->obuf + sizeof(c->obuf) - 1;
	uint64_t ns;
	size_t n = 0, w;

	if (sizeof(c->obuf) - c->olen < 1024)
		calls_flush(c);
	p = c->obuf + c->olen;
	ns = ptflow_clock_ns(c->clock, tsc);
	if (ns < 1000000000000ull) {	/* 12 digits at most: right-aligned */
		char *q = p + 12;

		memcpy(p, "            ", 12);
		do {
			*--q = (char)('0' + ns % 10);
			ns /= 10;
		} while (ns);
		p += 12;
	} else {
		do {
			digits[n++] = (char)('0' + ns % 10);
			ns /= 10;
		} while (ns);
		while (n)
			*p++ = digits[--n];
	}
	/* 2 spaces, the thread padded to 10, 2 spaces (ptflow_calls_begin()) */
	memcpy(p, c->thread_col, sizeof(c->thread_col));
	p += c->thread_col_len;
	for (w = 2 * indent; w;) {	/* a deep stack: in parts */
		size_t k = w < (size_t)(end - p) ? w : (size_t)(end - p);

		memset(p, ' ', k);
		p += k;
		w -= k;
		if (p == end) {
			c->olen = (size_t)(p - c->obuf);
			calls_flush(c);
			p = c->obuf;
		}
	}
	if (end - p < 512) {	/* names < 256, tails < 160 bytes */
		c->olen = (size_t)(p - c->obuf);
		calls_flush(c);
		p = c->obuf;
	}
	p = put_str(p, end, fmt_kind);
	if (name) {
		*p++ = ' ';
		p = put_str(p, end, name);
	}
	if (tail)
		p = put_str(p, end, tail);
	*p++ = '\n';
	c->olen = (size_t)(p - c->obuf);
}

/* calls_line_out() where --calls lines are written (the check inline:
 * the report and the timeline call it for nothing) */
static inline void calls_line(struct ptflow_calls *c, uint64_t tsc,
			      size_t indent, const char *fmt_kind,
			      const char *name, const char *tail)
{
	if (c->out)
		calls_line_out(c, tsc, indent, fmt_kind, name, tail);
}

/* Depth of the current function for indentation: frames below the top. */
static size_t calls_indent(const struct ptflow_calls *c)
{
	return c->depth ? c->depth - 1 : 0;
}

static void calls_push(struct ptflow_calls *c, uint64_t entry, uint64_t ret,
		       uint64_t tsc, bool called)
{
	struct ptflow_frame *f;
	char name[256];
	uint64_t lo, hi;

	if (c->depth == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;

		f = realloc(c->stack, cap * sizeof(*f));
		if (!f) {
			c->error = -1;
			return;
		}
		c->stack = f;
		c->cap = cap;
	}
	f = &c->stack[c->depth++];
	f->entry = entry;
	f->ret = ret;
	f->tsc = tsc;
	f->insns = c->insns;
	f->called = called;
	f->key = 0;
	if (!c->report)
		return;		/* only the report reads the key */
	/* the name only for a function new to the report */
	f->key = ptflow_calls_key(c->sym, entry, NULL, 0, &lo, &hi);
	if (!ptflow_report_known(c->report, f->key))
		(void)ptflow_calls_key(c->sym, entry, name, sizeof(name), &lo, &hi);
	if (ptflow_report_enter(c->report, f->key, name, called))
		c->error = -1;
}

/* Close the top frame at @tsc: report total, timeline event. */
static void calls_pop(struct ptflow_calls *c, uint64_t tsc)
{
	struct ptflow_frame *f = &c->stack[--c->depth];

	if (c->report)
		ptflow_report_leave(c->report, f->key, c->insns - f->insns,
				    tsc - f->tsc);
	if (c->chrome) {
		uint64_t begin = ptflow_clock_ns(c->clock, f->tsc);
		uint64_t end = ptflow_clock_ns(c->clock, tsc);
		char name[256];

		ptflow_sym_format(c->names, f->entry, name, sizeof(name));
		if (ptflow_chrome_add(c->chrome, c->pid, c->tid, name,
				      (uint32_t)c->depth, begin, end))
			c->error = -1;
	}
}

int ptflow_calls_begin(struct ptflow_calls *c, const char *thread,
		       uint32_t pid, uint32_t tid)
{
	size_t w;

	snprintf(c->thread, sizeof(c->thread), "%s", thread);
	c->thread_len = strlen(c->thread);
	/* "  %-10s  " of the thread, for calls_line() */
	memset(c->thread_col, ' ', sizeof(c->thread_col));
	memcpy(c->thread_col + 2, c->thread, c->thread_len);
	w = c->thread_len < 10 ? 10 : c->thread_len;
	c->thread_col_len = 2 + w + 2;
	c->olen = 0;
	c->pid = pid;
	c->tid = tid;
	c->depth = 0;
	c->have_insn = false;
	c->pending_call = false;
	c->pending_ret = false;
	c->after_far = false;
	c->insns = 0;
	c->last_tsc = 0;
	c->self_insns = 0;
	c->self_ticks = 0;
	c->error = 0;
	if (c->chrome && ptflow_chrome_thread(c->chrome, pid, tid, thread))
		return -1;
	return 0;
}

/*
 * The frame whose CALL pushed @to, counted from the bottom (1 = the
 * outermost), or 0: the top one, unless frames above it were left without
 * RET (longjmp, exceptions, stack switching).
 */
static size_t calls_find_ret(const struct ptflow_calls *c, uint64_t to)
{
	size_t i;

	for (i = c->depth; i > 0; i--)
		if (c->stack[i - 1].called && c->stack[i - 1].ret == to)
			break;
	return i;
}

/* The RET before this instruction returned to @to. */
static void calls_return(struct ptflow_calls *c, uint64_t to, uint64_t tsc)
{
	size_t i = calls_find_ret(c, to);
	char name[256];

	if (i > 0) {
		while (c->depth > i) {
			calls_name(c, c->stack[c->depth - 1].entry, name,
				   sizeof(name));
			calls_pop(c, tsc);
			calls_line(c, tsc, calls_indent(c), "unwind", name,
				   NULL);
		}
		calls_name(c, c->stack[c->depth - 1].entry, name, sizeof(name));
		calls_pop(c, tsc);
		calls_line(c, tsc, calls_indent(c), "return", name, NULL);
		return;
	}
	if (c->depth <= 1) {
		/* A return from the outermost function: to a caller the
		 * trace did not see call it. It becomes the outermost. */
		if (c->depth) {
			calls_name(c, c->stack[0].entry, name, sizeof(name));
			calls_pop(c, tsc);
			calls_line(c, tsc, 0, "return", name, NULL);
		}
		calls_push(c, to, 0, tsc, false);
		return;
	}
	/* No frame matches: the stack is kept (a RET used as an indirect
	 * jump, e.g. retpolines). */
	calls_name(c, to, name, sizeof(name));
	calls_line(c, tsc, calls_indent(c), "return to", name,
		   " (no matching call)");
}

/*
 * The first instruction after the last one seen, at @ip and @tsc: the
 * pending call's or return's line and frame, the outermost frame.
 */
static void calls_arrive(struct ptflow_calls *c, uint64_t ip, uint64_t tsc)
{
	char name[256];

	ptflow_clock_start(c->clock, tsc);

	if (c->pending_call) {
		c->pending_call = false;
		calls_name(c, ip, name, sizeof(name));
		calls_line(c, tsc, calls_indent(c), "call", name, NULL);
		calls_push(c, ip, c->call_ret, tsc, true);
	} else if (c->pending_ret) {
		c->pending_ret = false;
		calls_return(c, ip, tsc);
	}
	if (!c->depth)
		calls_push(c, ip, 0, tsc, false);
	c->after_far = false;
}

/* The self counts of last_key gathered since its entry into the report
 * (one table look-up per run of a function, not per instruction). */
static void calls_self_flush(struct ptflow_calls *c)
{
	if (c->self_insns || c->self_ticks)
		ptflow_report_self(c->report, c->last_key, "", c->self_insns,
				   c->self_ticks);
	c->self_insns = 0;
	c->self_ticks = 0;
}

/*
 * Self counts of one instruction at @ip and @tsc: its function's, and the
 * time from the previous instruction to the previous one's function.
 */
static void calls_self(struct ptflow_calls *c, uint64_t ip, uint64_t tsc)
{
	uint64_t key = c->last_key, lo, hi;
	char name[256];

	if (!c->have_insn || ip < c->fn_start || ip >= c->fn_end) {
		key = ptflow_calls_key(c->sym, ip, NULL, 0, &lo, &hi);
		if (!ptflow_report_known(c->report, key))
			(void)ptflow_calls_key(c->sym, ip, name, sizeof(name),
					       &lo, &hi);
		if (c->have_insn)
			c->self_ticks += tsc - c->last_tsc;
		if (c->have_insn)
			calls_self_flush(c);
		if (ptflow_report_self(c->report, key, name, 1, 0))
			c->error = -1;
		c->fn_start = lo;
		c->fn_end = hi;
	} else {
		c->self_insns++;
		c->self_ticks += tsc - c->last_tsc;
	}
	c->last_key = key;
	c->have_insn = true;
	c->last_tsc = tsc;
}

/* The branch that ends an instruction run: @insn, the run's last. */
static void calls_leave(struct ptflow_calls *c, const struct pt_insn *insn,
			uint64_t tsc)
{
	switch (insn->iclass) {
	case ptic_call:
		c->pending_call = true;
		c->call_ret = insn->ip + insn->size;
		break;
	case ptic_return:
		c->pending_ret = true;
		break;
	case ptic_far_call:
	case ptic_far_return:
	case ptic_far_jump:
		calls_line(c, tsc, calls_indent(c), far_name(insn), NULL, NULL);
		c->after_far = true;
		break;
	default:
		break;
	}
}

void ptflow_calls_insn(struct ptflow_calls *c, const struct pt_insn *insn,
		       uint64_t tsc)
{
	if (tsc < c->last_tsc)
		tsc = c->last_tsc;	/* estimates never go back here */
	calls_arrive(c, insn->ip, tsc);
	if (c->report)
		calls_self(c, insn->ip, tsc);
	c->have_insn = true;
	c->last_tsc = tsc;
	c->insns++;
	calls_leave(c, insn, tsc);
	if (c->olen)
		calls_flush(c);
}

/*
 * ptflow_calls_block() but for the branch at the end: the run's arrival,
 * its self counts and instruction count; the time it is at, kept from
 * going back.
 */
static inline uint64_t calls_span(struct ptflow_calls *c, uint64_t ip,
				  const uint8_t *lens, uint32_t ninsn,
				  uint64_t last_ip, uint64_t tsc)
{
	if (tsc < c->last_tsc)
		tsc = c->last_tsc;
	if (c->pending_call || c->pending_ret || !c->depth) {
		calls_arrive(c, ip, tsc);
	} else {	/* calls_arrive() with nothing to do: most blocks */
		ptflow_clock_start(c->clock, tsc);
		c->after_far = false;
	}
	if (c->report && c->have_insn && ip >= c->fn_start && ip < c->fn_end &&
	    last_ip >= c->fn_start && last_ip < c->fn_end) {
		/* the block in the function of the instruction before it:
		 * calls_self() on each instruction, in one count */
		c->self_insns += ninsn;
		c->self_ticks += tsc - c->last_tsc;
	} else if (c->report) {
		calls_self(c, ip, tsc);
		/* the rest in one count where the block stays in the
		 * first one's function, else one by one */
		if (ninsn > 1 && last_ip >= c->fn_start && last_ip < c->fn_end) {
			c->self_insns += ninsn - 1;
		} else {
			for (uint32_t i = 1; i < ninsn; i++) {
				ip += lens[i - 1];
				calls_self(c, ip, tsc);
			}
		}
	}
	c->have_insn = true;
	c->last_tsc = tsc;
	c->insns += ninsn;
	return tsc;
}

void ptflow_calls_block(struct ptflow_calls *c, uint64_t ip,
			const uint8_t *lens, uint32_t ninsn,
			const struct pt_insn *last, uint64_t tsc)
{
	tsc = calls_span(c, ip, lens, ninsn, last->ip, tsc);
	calls_leave(c, last, tsc);
	if (c->olen)
		calls_flush(c);
}

size_t ptflow_calls_blocks(struct ptflow_calls *c,
			   const struct lpt_flow_block *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct lpt_flow_block *k = &b[i];

		/* a far transfer's name needs its bytes; a last instruction
		 * at a time of its own, ptflow_calls_insn() */
		if (k->end == LPT_FLOW_END_FAR ||
		    (k->ninsn > 1 && k->tsc != k->end_tsc))
			break;
		if (c->pending_call || c->pending_ret || !c->depth ||
		    c->report || !c->clock->have_origin) {
			(void)calls_span(c, k->ip, k->lens, k->ninsn,
					 k->end_ip, k->end_tsc);
		} else {
			/* calls_span() with nothing to do but count: a
			 * block in the function it was entered by */
			if (k->end_tsc > c->last_tsc)
				c->last_tsc = k->end_tsc;
			c->after_far = false;
			c->have_insn = true;
			c->insns += k->ninsn;
		}
		/* calls_leave() of the near branches */
		switch (k->end) {
		case LPT_FLOW_END_CALL:
		case LPT_FLOW_END_CALL_IND:
			c->pending_call = true;
			c->call_ret = k->end_ip + k->lens[k->ninsn - 1];
			break;
		case LPT_FLOW_END_RET:
			c->pending_ret = true;
			break;
		default:
			break;
		}
	}
	if (c->olen)
		calls_flush(c);
	return i;
}

void ptflow_calls_event(struct ptflow_calls *c, enum ptflow_calls_event ev,
			uint64_t ip, uint64_t tsc, const char *text)
{
	char name[256], tail[160];

	if (tsc < c->last_tsc)
		tsc = c->last_tsc;
	ptflow_clock_start(c->clock, tsc);
	if (ip)
		calls_name(c, ip, name, sizeof(name));
	switch (ev) {
	case PTFLOW_CALLS_DISABLED:
		/* A CALL or RET whose target left the trace: TIP.PGD gives
		 * the target (SDM 33.2.6.4, Table 33-14), the callee or the
		 * caller it returned to; without an IP it is not known. */
		if (c->pending_call && ip) {
			calls_line(c, tsc, calls_indent(c), "call", name, NULL);
			calls_push(c, ip, c->call_ret, tsc, true);
		} else if (c->pending_ret && ip) {
			calls_return(c, ip, tsc);
		}
		c->pending_call = false;
		c->pending_ret = false;
		/* After SYSCALL and the like: its line said it all. */
		if (!c->after_far)
			calls_line(c, tsc, calls_indent(c), "disabled",
				   ip ? name : NULL, NULL);
		break;
	case PTFLOW_CALLS_INTERRUPT:
		calls_line(c, tsc, calls_indent(c), "interrupt",
			   ip ? name : NULL, NULL);
		break;
	case PTFLOW_CALLS_ENABLED:
	case PTFLOW_CALLS_RESUMED:
		/* Enabled again at the return address of a frame: the
		 * function called there returned while the trace was off
		 * (a call out of the IP filter, TIP.PGD then TIP.PGE;
		 * libipt says "resumed" when that address is the one after
		 * the CALL that disabled it). */
		if (ip && calls_find_ret(c, ip))
			calls_return(c, ip, tsc);
		if (ev == PTFLOW_CALLS_ENABLED)
			calls_line(c, tsc, calls_indent(c), "enabled",
				   ip ? name : NULL, NULL);
		break;
	case PTFLOW_CALLS_OVERFLOW:
	case PTFLOW_CALLS_GAP:
		/* Trace was lost: a pending CALL or RET has no known
		 * target. The stack is kept; later returns realign it. */
		c->pending_call = false;
		c->pending_ret = false;
		snprintf(tail, sizeof(tail), "%s%s (trace lost, depth %zu kept)",
			 text ? ": " : "", text ? text : "", calls_indent(c));
		calls_line(c, tsc, calls_indent(c),
			   ev == PTFLOW_CALLS_GAP ? "gap" : "overflow", NULL,
			   tail);
		break;
	}
	if (c->olen)
		calls_flush(c);
}

int ptflow_calls_end(struct ptflow_calls *c)
{
	if (c->report && c->have_insn)
		calls_self_flush(c);
	/* A RET as the last instruction: its target is not in the trace. */
	if (c->pending_ret && c->depth) {
		char name[256];

		calls_name(c, c->stack[c->depth - 1].entry, name, sizeof(name));
		calls_pop(c, c->last_tsc);
		calls_line(c, c->last_tsc, calls_indent(c), "return", name,
			   NULL);
	}
	if (c->olen)
		calls_flush(c);
	c->pending_call = false;
	c->pending_ret = false;
	while (c->depth)
		calls_pop(c, c->last_tsc);
	return c->error;
}

void ptflow_calls_fini(struct ptflow_calls *c)
{
	free(c->stack);
	c->stack = NULL;
	c->cap = 0;
	c->depth = 0;
}
