// SPDX-License-Identifier: GPL-2.0
/*
 * ptflow's decoding core: libipt's instruction flow decoder (pt_insn_*)
 * driven from PSB to PSB, with events, errors and instructions printed in
 * the format of Documentation/ptflow.rst.
 */
#include "tools/ptflow/ptflow_decode.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* drain_events(): the span callback said PTFLOW_SPAN_SKIP. */
#define PTFLOW_STATUS_SKIP	INT_MIN
/* drain_events(): a synthetic trace reached its end (ptflow_resume.h). */
#define PTFLOW_STATUS_SYN_END	(INT_MIN + 1)

int ptflow_init(struct ptflow *pf, const char *prog, FILE *out, FILE *err)
{
	memset(pf, 0, sizeof(*pf));
	pf->prog = prog;
	pf->out = out;
	ptflow_line_init(&pf->line, out);
	pf->err = err;
	pf->iscache = pt_iscache_alloc(NULL);
	pf->image = pt_image_alloc(NULL);
	pf->sym = ptflow_sym_alloc(err, prog);
	pf->thread = "-";
	if (!pf->iscache || !pf->image || !pf->sym) {
		ptflow_fini(pf);
		return -pte_nomem;
	}
	return 0;
}

void ptflow_fini(struct ptflow *pf)
{
	if (pf->engine_free)
		pf->engine_free(pf->engine);
	pf->engine = NULL;
	pf->engine_free = NULL;
	ptflow_disasm_free(pf->disasm);
	ptflow_calls_fini(&pf->calls);
	ptflow_report_free(pf->calls.report);
	ptflow_report_free(pf->total);
	ptflow_chrome_free(pf->chrome);
	ptflow_sym_free(pf->sym);
	pf->calls.report = NULL;
	pf->total = NULL;
	pf->chrome = NULL;
	pf->sym = NULL;
	pt_image_free(pf->image);
	pt_iscache_free(pf->iscache);
	pf->disasm = NULL;
	pf->image = NULL;
	pf->iscache = NULL;
}

/* Take decoder parameters from a ptcap config where not given already. */
void ptflow_params_from_config(struct ptflow_params *par,
			       const struct ptcap_config *cfg)
{
	if (!par->has_cpu && (cfg->has & PTCAP_HAS_CPU)) {
		memset(&par->cpu, 0, sizeof(par->cpu));
		par->cpu.vendor = pcv_intel;
		par->cpu.family = cfg->cpu_family;
		par->cpu.model = cfg->cpu_model;
		par->cpu.stepping = cfg->cpu_stepping;
		par->has_cpu = true;
	}
	if (!par->has_mtc_freq && (cfg->has & PTCAP_HAS_MTC_FREQ)) {
		par->mtc_freq = cfg->mtc_freq;
		par->has_mtc_freq = true;
	}
	if (!par->has_nom_freq && (cfg->has & PTCAP_HAS_NOM_FREQ)) {
		par->nom_freq = cfg->nom_freq;
		par->has_nom_freq = true;
	}
	if (!par->has_cpuid_15_eax && (cfg->has & PTCAP_HAS_CPUID_15_EAX)) {
		par->cpuid_15_eax = cfg->cpuid_15_eax;
		par->has_cpuid_15_eax = true;
	}
	if (!par->has_cpuid_15_ebx && (cfg->has & PTCAP_HAS_CPUID_15_EBX)) {
		par->cpuid_15_ebx = cfg->cpuid_15_ebx;
		par->has_cpuid_15_ebx = true;
	}
	if (!par->has_tsc_freq && (cfg->has & PTCAP_HAS_TSC_FREQ)) {
		par->tsc_freq_hz = cfg->tsc_freq_hz;
		par->has_tsc_freq = true;
	}
}

/* Whether a view replaces the instruction flow. */
static bool views_on(const struct ptflow *pf)
{
	return pf->opt.calls || pf->opt.report || pf->opt.export_chrome;
}

/* Whether the flow (instructions and events) is printed. */
static bool flow_on(const struct ptflow *pf)
{
	return !pf->opt.quiet && !views_on(pf) && !pf->mute;
}

void ptflow_line_sync(struct ptflow *pf)
{
	ptflow_line_flush(&pf->line);
}

int ptflow_views_start(struct ptflow *pf)
{
	ptflow_clock_init(&pf->clock, pf->par.tsc_freq_hz, pf->par.nom_freq);
	pf->have_clock = true;
	if (!views_on(pf))
		return 0;
	if (!ptflow_clock_known(&pf->clock))
		fprintf(pf->err, "%s: note: TSC frequency unknown (no tsc-freq "
			"or nom-freq, see --tsc-freq): times are TSC ticks\n",
			pf->prog);
	pf->calls.out = pf->opt.calls && !pf->opt.quiet ? pf->out : NULL;
	pf->calls.sym = pf->sym;
	pf->calls.names = pf->opt.no_symbols ? NULL : pf->sym;
	pf->calls.clock = &pf->clock;
	if (pf->opt.report) {
		pf->total = ptflow_report_alloc();
		if (!pf->total)
			goto nomem;
	}
	if (pf->opt.export_chrome) {
		pf->chrome = ptflow_chrome_alloc();
		if (!pf->chrome)
			goto nomem;
		pf->calls.chrome = pf->chrome;
	}
	return 0;
nomem:
	fprintf(pf->err, "%s: out of memory\n", pf->prog);
	return -1;
}

void ptflow_views_finish(struct ptflow *pf)
{
	if (pf->total && pf->reports > 1)
		ptflow_report_print(pf->total, pf->out, "total", pf->clock.hz);
}

/* Fill a libipt configuration for the trace in [buf, buf + len). */
static int make_config(const struct ptflow *pf, uint8_t *buf, size_t len,
		       struct pt_config *config)
{
	int err;

	pt_config_init(config);
	config->begin = buf;
	config->end = buf + len;
	if (pf->par.has_cpu && pf->par.cpu.vendor != pcv_unknown) {
		config->cpu = pf->par.cpu;
		err = pt_cpu_errata(&config->errata, &config->cpu);
		if (err < 0) {
			fprintf(pf->err, "%s: cpu %u/%u/%u: %s\n", pf->prog,
				config->cpu.family, config->cpu.model,
				config->cpu.stepping,
				pt_errstr(pt_errcode(err)));
			return -1;
		}
	}
	/* IA32_RTIT_ADDRn_CFG/A/B (SDM 33.2.5.2): libipt uses the ranges
	 * to place a TIP.PGD without IP (erratum SKL014). */
	config->addr_filter.config.ctl.addr0_cfg = pf->par.addr[0].cfg;
	config->addr_filter.addr0_a = pf->par.addr[0].a;
	config->addr_filter.addr0_b = pf->par.addr[0].b;
	config->addr_filter.config.ctl.addr1_cfg = pf->par.addr[1].cfg;
	config->addr_filter.addr1_a = pf->par.addr[1].a;
	config->addr_filter.addr1_b = pf->par.addr[1].b;
	config->addr_filter.config.ctl.addr2_cfg = pf->par.addr[2].cfg;
	config->addr_filter.addr2_a = pf->par.addr[2].a;
	config->addr_filter.addr2_b = pf->par.addr[2].b;
	config->addr_filter.config.ctl.addr3_cfg = pf->par.addr[3].cfg;
	config->addr_filter.addr3_a = pf->par.addr[3].a;
	config->addr_filter.addr3_b = pf->par.addr[3].b;
	config->mtc_freq = pf->par.mtc_freq;
	config->nom_freq = pf->par.nom_freq;
	config->cpuid_0x15_eax = pf->par.cpuid_15_eax;
	config->cpuid_0x15_ebx = pf->par.cpuid_15_ebx;
	return 0;
}

static const char *exec_mode_name(enum pt_exec_mode mode)
{
	switch (mode) {
	case ptem_16bit: return "16-bit";
	case ptem_32bit: return "32-bit";
	case ptem_64bit: return "64-bit";
	default: return "unknown";
	}
}

/* @off like put_hex(), the one or two digits of most offsets at once. */
static inline char *put_offset(char *p, uint64_t off)
{
	if (off >= 0x100)
		return put_hex(p, off);
	if (off >= 0x10)
		*p++ = out_hexdigits[off >> 4];
	*p++ = out_hexdigits[off & 0xf];
	return p;
}

/* "+0xoff>" after the name of @s for @addr ("+0x0" left out). */
static inline char *put_sym_end(char *p, const struct ptflow_symbol *s,
				uint64_t addr)
{
	if (addr != s->start)
		p = put_offset(put_mem(p, "+0x", 3), addr - s->start);
	*p++ = '>';
	return p;
}

/* " <symbol+0xoff>" for @addr in @s: its name's length plus
 * PTFLOW_LINE_FIELD bytes at most. */
static inline char *put_sym_text(char *p, const struct ptflow_symbol *s,
				 uint64_t addr)
{
	p = put_mem(p, " <", 2);
	p = put_str_short(p, s->name, s->name_len);
	return put_sym_end(p, s, addr);
}

/* " <symbol+0xoff>[ file:line]" after an address, unless --no-symbols. */
static inline __attribute__((always_inline)) void
put_sym(const struct ptflow *pf, struct ptflow_line *l,
		    uint64_t addr)
{
	const struct ptflow_symbol *s;
	struct ptflow_symbol full;
	const char *file = NULL;
	int line = 0;
	char *p;

	if (pf->opt.no_symbols)
		return;
	if (pf->opt.line) {
		s = ptflow_sym_lookup(pf->sym, addr, true, &full) ? &full : NULL;
		file = full.file;
		line = full.line;
	} else {
		s = ptflow_sym_at(pf->sym, addr);
	}
	if (s) {
		/*
		 * One room check for " <name+0xOFFSET>" (a line per
		 * instruction: Documentation/performance.rst, ptflow); a
		 * name too long for the buffer is written through.
		 */
		if (s->name_len > PTFLOW_LINE_MAX - 2 * PTFLOW_LINE_FIELD) {
			ptflow_line_mem(l, " <", 2);
			ptflow_line_mem(l, s->name, s->name_len);
			p = put_sym_end(ptflow_line_room(l, PTFLOW_LINE_FIELD), s, addr);
		} else {
			p = ptflow_line_room(l, s->name_len + PTFLOW_LINE_FIELD);
			p = put_sym_text(p, s, addr);
		}
		l->p = p;
	}
	if (file) {
		ptflow_line_char(l, ' ');
		ptflow_line_str(l, file);
		ptflow_line_char(l, ':');
		ptflow_line_int(l, line);
	}
}

/* put_sym() straight to the flow, between fprintf()s of an event line. */
static void print_sym(struct ptflow *pf, uint64_t addr)
{
	put_sym(pf, &pf->line, addr);
	ptflow_line_flush(&pf->line);
}

/* One event line, "[...]"; see Documentation/ptflow.rst, Events. */
static void print_event(struct ptflow *pf, const struct pt_event *ev,
			uint64_t offset)
{
	ptflow_line_flush(&pf->line);
	fprintf(pf->out, "[");
	if (pf->opt.offset)
		fprintf(pf->out, "%016" PRIx64 "  ", offset);

	switch (ev->type) {
	case ptev_enabled:
		fputs(ev->variant.enabled.resumed ? "resumed" : "enabled",
		      pf->out);
		break;
	case ptev_disabled:
	case ptev_async_disabled:
		fprintf(pf->out, "disabled");
		break;
	case ptev_async_branch:
		fprintf(pf->out, "interrupt, from: %016" PRIx64,
			ev->variant.async_branch.from);
		print_sym(pf, ev->variant.async_branch.from);
		if (!ev->ip_suppressed) {
			fprintf(pf->out, ", to: %016" PRIx64,
				ev->variant.async_branch.to);
			print_sym(pf, ev->variant.async_branch.to);
		}
		break;
	case ptev_paging:
		fprintf(pf->out, "paging, cr3: %016" PRIx64 "%s",
			ev->variant.paging.cr3,
			ev->variant.paging.non_root ? ", nr" : "");
		break;
	case ptev_async_paging:
		fprintf(pf->out, "paging, cr3: %016" PRIx64 "%s",
			ev->variant.async_paging.cr3,
			ev->variant.async_paging.non_root ? ", nr" : "");
		break;
	case ptev_overflow:
		fprintf(pf->out, "overflow");
		break;
	case ptev_exec_mode:
		fprintf(pf->out, "exec mode: %s",
			exec_mode_name(ev->variant.exec_mode.mode));
		break;
	case ptev_tsx:
		fprintf(pf->out, "%s", ev->variant.tsx.aborted ? "aborted" :
			ev->variant.tsx.speculative ? "begin transaction" :
			"committed");
		break;
	case ptev_stop:
		fprintf(pf->out, "stopped");
		break;
	case ptev_vmcs:
		fprintf(pf->out, "vmcs, base: %016" PRIx64,
			ev->variant.vmcs.base);
		break;
	case ptev_async_vmcs:
		fprintf(pf->out, "vmcs, base: %016" PRIx64,
			ev->variant.async_vmcs.base);
		break;
	case ptev_exstop:
		fprintf(pf->out, "exstop");
		break;
	case ptev_mwait:
		fprintf(pf->out, "mwait, hints: %" PRIx32 ", ext: %" PRIx32,
			ev->variant.mwait.hints, ev->variant.mwait.ext);
		break;
	case ptev_pwre:
		/* PWRE resolved C-state, SDM 33.4.2.24: C0 is 0xf. */
		fprintf(pf->out, "pwre c%u.%u%s",
			(ev->variant.pwre.state + 1u) & 0xf,
			(ev->variant.pwre.sub_state + 1u) & 0xf,
			ev->variant.pwre.hw ? ", hw" : "");
		break;
	case ptev_pwrx:
		fprintf(pf->out, "pwrx c%u, deepest c%u%s%s%s",
			(ev->variant.pwrx.last + 1u) & 0xf,
			(ev->variant.pwrx.deepest + 1u) & 0xf,
			ev->variant.pwrx.interrupt ? ", interrupt" : "",
			ev->variant.pwrx.store ? ", store" : "",
			ev->variant.pwrx.autonomous ? ", hw" : "");
		break;
	case ptev_ptwrite:
		fprintf(pf->out, "ptwrite: %" PRIx64,
			ev->variant.ptwrite.payload);
		break;
	case ptev_tick:
		fprintf(pf->out, "tick");
		break;
	case ptev_cbr:
		fprintf(pf->out, "cbr: %x", ev->variant.cbr.ratio);
		break;
	case ptev_mnt:
		fprintf(pf->out, "mnt: %" PRIx64, ev->variant.mnt.payload);
		break;
	default:
		fprintf(pf->out, "event %d", (int)ev->type);
		break;
	}
	fprintf(pf->out, "]\n");
}

/* libipt's TSC estimate now (SDM 33.8.3); relative before any TSC.
 * @dec NULL: another engine's item, at the time it gave (emit_tsc). */
static uint64_t dec_time(const struct ptflow *pf, struct pt_insn_decoder *dec)
{
	uint64_t tsc = 0;

	if (!dec)
		return pf->emit_tsc;
	(void)pt_insn_time(dec, &tsc, NULL, NULL);
	return tsc;
}

/*
 * The line of print_insn() with --no-inst alone, "ADDRESS[ <sym+0xoff>]",
 * with one room check (the default flow: Documentation/performance.rst,
 * ptflow). Returns false, writing nothing, for a name too long for it.
 */
static inline bool print_insn_short(struct ptflow *pf, uint64_t ip)
{
	struct ptflow_line *l = &pf->line;
	const struct ptflow_symbol *s;
	char *p;

	s = pf->opt.no_symbols ? NULL : ptflow_sym_at(pf->sym, ip);
	if (s && s->name_len > PTFLOW_LINE_MAX - 4 * PTFLOW_LINE_FIELD)
		return false;
	/* 16 digits, " <", name, "+0x", up to 16 digits, ">", "\n" */
	p = ptflow_line_room(l, (s ? s->name_len : 0) + 2 * PTFLOW_LINE_FIELD);
	p = put_hex16_cached(p, ip, &l->ip);
	if (s)
		p = put_sym_text(p, s, ip);
	*p++ = '\n';
	l->p = p;
	return true;
}

/*
 * One instruction line; see Documentation/ptflow.rst, Instructions. Built
 * without printf (ptflow_line.h): this is the per-instruction path.
 */
static void print_insn(struct ptflow *pf, struct pt_insn_decoder *dec,
		       const struct pt_insn *insn, uint64_t offset)
{
	struct ptflow_line *l = &pf->line;

	if (pf->short_line && !insn->speculative &&
	    print_insn_short(pf, insn->ip))
		return;

	if (pf->opt.offset) {
		ptflow_line_hex16(l, offset);
		ptflow_line_mem(l, "  ", 2);
	}
	if (pf->opt.time) {
		ptflow_line_hex16(l, dec_time(pf, dec));
		ptflow_line_mem(l, "  ", 2);
	}
	if (insn->speculative)
		ptflow_line_mem(l, "? ", 2);
	ptflow_line_ip(l, insn->ip);
	put_sym(pf, l, insn->ip);

	if (pf->opt.raw_insn) {
		unsigned int i, n = insn->size;

		if (n > sizeof(insn->raw))
			n = sizeof(insn->raw);
		ptflow_line_char(l, ' ');
		for (i = 0; i < pt_max_insn_size; i++) {
			if (i < n) {
				ptflow_line_char(l, ' ');
				ptflow_line_hex2(l, insn->raw[i]);
			} else {
				ptflow_line_mem(l, "   ", 3);
			}
		}
	}
	if (!pf->opt.no_inst) {
		char text[160];

		ptflow_disasm_insn(pf->disasm, insn->mode, insn->raw,
				   insn->size, insn->ip, text, sizeof(text));
		ptflow_line_mem(l, "  ", 2);
		ptflow_line_str(l, text);
	}
	ptflow_line_char(l, '\n');
}

/* A decoded instruction: counted, printed or handed to the views. */
static void one_insn(struct ptflow *pf, struct pt_insn_decoder *dec,
		     const struct pt_insn *insn, uint64_t off)
{
	if (pf->mute)
		return;
	pf->insns++;
	if (flow_on(pf))
		print_insn(pf, dec, insn, off);
	else if (views_on(pf))
		ptflow_calls_insn(&pf->calls, insn, dec_time(pf, dec));
}

/*
 * Record one decode error: "[resync at offset 0x...: reason]" on stdout,
 * a message on stderr (the first few), and the count.
 */
static void report(struct ptflow *pf, uint64_t offset, const char *reason,
		   const struct pt_insn *insn)
{
	bool have_ip = insn && insn->ip;

	if (pf->mute) {
		pf->muted_errors++;
		return;
	}
	pf->errors++;
	if (flow_on(pf)) {
		ptflow_line_flush(&pf->line);
		fprintf(pf->out, "[resync at offset 0x%" PRIx64 ": %s", offset,
			reason);
		if (have_ip) {
			fprintf(pf->out, ", ip: %016" PRIx64, insn->ip);
			print_sym(pf, insn->ip);
		}
		fprintf(pf->out, "]\n");
	} else if (views_on(pf)) {
		ptflow_calls_event(&pf->calls, PTFLOW_CALLS_GAP,
				   have_ip ? insn->ip : 0, pf->calls.last_tsc,
				   reason);
	}
	if (pf->errors <= PTFLOW_MAX_STDERR_ERRORS) {
		fprintf(pf->err, "%s: %s: offset 0x%" PRIx64 ": %s\n", pf->prog,
			pf->trace_name, offset, reason);
	} else if (pf->errors == PTFLOW_MAX_STDERR_ERRORS + 1) {
		fprintf(pf->err, "%s: %s: further errors not shown here\n",
			pf->prog, pf->trace_name);
	}
}

/* Hand an event to the call tracker. */
static void view_event(struct ptflow *pf, struct pt_insn_decoder *dec,
		       const struct pt_event *ev)
{
	enum ptflow_calls_event kind;
	uint64_t ip = 0;

	switch (ev->type) {
	case ptev_enabled:
		kind = ev->variant.enabled.resumed ? PTFLOW_CALLS_RESUMED :
			PTFLOW_CALLS_ENABLED;
		ip = ev->variant.enabled.ip;
		break;
	case ptev_disabled:
		kind = PTFLOW_CALLS_DISABLED;
		ip = ev->variant.disabled.ip;
		break;
	case ptev_async_disabled:
		kind = PTFLOW_CALLS_INTERRUPT;
		ip = ev->variant.async_disabled.at;
		break;
	case ptev_async_branch:
		kind = PTFLOW_CALLS_INTERRUPT;
		ip = ev->variant.async_branch.from;
		break;
	case ptev_overflow:
		kind = PTFLOW_CALLS_OVERFLOW;
		break;
	default:
		return;
	}
	if (ev->ip_suppressed && kind != PTFLOW_CALLS_INTERRUPT)
		ip = 0;
	ptflow_calls_event(&pf->calls, kind, ip, dec_time(pf, dec), NULL);
}

/* The reason text of a libipt error inside a decode run. */
static const char *run_error_text(int status)
{
	/* libipt needed trace that is not there: mid-packet or mid-event. */
	if (status == -pte_eos)
		return "unexpected end of trace";
	return pt_errstr(pt_errcode(status));
}

static uint64_t dec_offset(const struct ptflow *pf,
			   struct pt_insn_decoder *dec)
{
	uint64_t off = 0;

	(void)pt_insn_get_offset(dec, &off);
	if (pf->syn)
		off = ptflow_resume_map(pf->syn, off);
	return off + pf->seg_base;
}

/*
 * Process pending events. Returns the decoder status (>= 0) or a negative
 * libipt error.
 */
static int drain_events(struct ptflow *pf, struct pt_insn_decoder *dec,
			int status, bool *enabled)
{
	while (status & pts_event_pending) {
		struct pt_event ev;
		uint64_t off = pf->opt.offset ? dec_offset(pf, dec) : 0;

		status = pt_insn_event(dec, &ev, sizeof(ev));
		if (status < 0)
			return status;
		/* The FUP + TIP.PGD that ends a synthetic trace. */
		if (pf->syn && ev.type == ptev_async_disabled) {
			uint64_t raw = 0;

			(void)pt_insn_get_offset(dec, &raw);
			if (raw > pf->syn->tail &&
			    ev.variant.async_disabled.at == pf->syn->end_ip)
				return PTFLOW_STATUS_SYN_END;
		}

		/* Track PacketEn (SDM 33.2.6): TIP.PGE/PGD and OVF. */
		switch (ev.type) {
		case ptev_enabled:
			*enabled = true;
			break;
		case ptev_disabled:
		case ptev_async_disabled:
			*enabled = false;
			break;
		case ptev_overflow:
			/* The IP is suppressed if OVF resolved while
			 * tracing was disabled (SDM 33.4.2.16). */
			*enabled = !ev.ip_suppressed;
			break;
		default:
			break;
		}
		/* A new span: the caller may switch thread and image. */
		if (pf->span_cb && (ev.type == ptev_enabled || ev.type == ptev_overflow) &&
		    pf->span_cb(pf, dec, dec_offset(pf, dec)) == PTFLOW_SPAN_SKIP)
			return PTFLOW_STATUS_SKIP;
		/* Status updates repeat known state after a PSB+. */
		if (ev.status_update)
			continue;
		if (flow_on(pf))
			print_event(pf, &ev, off);
		else if (views_on(pf) && !pf->mute)
			view_event(pf, dec, &ev);
	}
	return status;
}

/*
 * Decode from the current sync point until an error or the end of the
 * trace. Returns 0 at a clean end of trace (or of a synthetic trace), 1
 * when the span callback skipped a span (go on at the next PSB), else the
 * error (reported).
 */
static int decode_run(struct ptflow *pf, struct pt_insn_decoder *dec,
		      int status)
{
	uint64_t last_off = dec_offset(pf, dec), stuck = 0, off = last_off;
	unsigned int since = 0;
	bool enabled = false;

	/*
	 * After a sync the decoder may be inside a span (PSB+ with FUP); a
	 * synthetic trace's PSB+ has none, its span starts at its TIP.PGE.
	 */
	if (pf->span_cb && !pf->syn &&
	    pf->span_cb(pf, dec, last_off) == PTFLOW_SPAN_SKIP)
		return 1;
	for (;;) {
		struct pt_insn insn;

		status = drain_events(pf, dec, status, &enabled);
		if (status == PTFLOW_STATUS_SKIP)
			return 1;
		if (status == PTFLOW_STATUS_SYN_END)
			return 0;
		if (status < 0) {
			/* A piece that ends at a gap ends mid-packet. */
			if (!(pf->seg_cut && status == -pte_eos))
				report(pf, dec_offset(pf, dec),
				       run_error_text(status), NULL);
			return status;
		}
		if (status & pts_eos) {
			/*
			 * Every way of ending a trace on purpose disables
			 * packet generation with TIP.PGD first (SDM Table
			 * 33-56, case 3: WRMSR clearing TraceEn gives FUP,
			 * TIP.PGD);
			 * output that stops with PacketEn=1 was cut off
			 * (ToPA STOP, SDM 33.2.7.2, or a truncated file).
			 */
			if (enabled && pf->seg_cut)
				return -pte_eos;	/* the gap line says it */
			/* A synthetic trace ends before the next PSB. */
			if (!enabled && pf->syn)
				return 0;
			if (enabled) {
				report(pf, dec_offset(pf, dec), "trace ends while "
				       "tracing is enabled", NULL);
				return -pte_eos;
			}
			if (flow_on(pf)) {
				ptflow_line_flush(&pf->line);
				fprintf(pf->out, "[end of trace]\n");
			}
			return 0;
		}

		/*
		 * Progress: the offset every PTFLOW_PROGRESS_SAMPLE
		 * instructions (a libipt call; each with --offset, which
		 * prints it).
		 */
		if (++since >= PTFLOW_PROGRESS_SAMPLE || pf->opt.offset) {
			off = dec_offset(pf, dec);
			if (off != last_off) {
				last_off = off;
				stuck = 0;
			} else if ((stuck += since) > PTFLOW_MAX_INSN_NO_PROGRESS) {
				report(pf, off, "no trace progress (endless loop of "
				       "direct branches?)", NULL);
				return -pte_bad_query;
			}
			since = 0;
		}

		memset(&insn, 0, sizeof(insn));
		status = pt_insn_next(dec, &insn, sizeof(insn));
		if (status < 0) {
			/* The instruction itself may have been decoded. */
			if (insn.iclass != ptic_error)
				one_insn(pf, dec, &insn, off);
			if (!(pf->seg_cut && status == -pte_eos))
				report(pf, dec_offset(pf, dec),
				       run_error_text(status),
				       insn.iclass == ptic_error ? &insn : NULL);
			return status;
		}
		one_insn(pf, dec, &insn, off);
	}
}

/*
 * A trace whose flow ended cleanly (tracing disabled) may still have been
 * cut inside a packet, e.g. a truncated file. Walk the packets from the
 * last PSB to the end: a packet that does not fit is reported. A cut at a
 * packet boundary in a disabled region looks exactly like a complete trace
 * and cannot be told apart (Documentation/ptflow.rst, Errors).
 */
static void check_tail(struct ptflow *pf, const struct pt_config *config)
{
	struct pt_packet_decoder *pkt;
	struct pt_packet packet;
	uint64_t off = 0;
	size_t len = (size_t)(config->end - config->begin);
	int status;

	bool in_psb = false;

	pkt = pt_pkt_alloc_decoder(config);
	if (!pkt)
		return;
	status = pt_pkt_sync_backward(pkt);
	while (status >= 0) {
		if (pt_pkt_get_offset(pkt, &off) < 0)
			break;
		status = pt_pkt_next(pkt, &packet, sizeof(packet));
		if (status < 0)
			break;
		/* PSB+ ends with PSBEND (SDM 33.4.2.17). */
		if (packet.type == ppt_psb)
			in_psb = true;
		else if (packet.type == ppt_psbend)
			in_psb = false;
	}
	if (status == -pte_eos && pt_pkt_get_offset(pkt, &off) >= 0) {
		if (off < len)
			report(pf, off + pf->seg_base,
			       "trace ends inside a packet", NULL);
		else if (in_psb)
			report(pf, off + pf->seg_base,
			       "trace ends inside PSB+", NULL);
	}
	pt_pkt_free_decoder(pkt);
}

/* Start the views for the trace of thread @pf->thread. */
int ptflow_view_begin(struct ptflow *pf)
{
	if (pf->opt.report) {
		pf->calls.report = ptflow_report_alloc();
		if (!pf->calls.report)
			goto nomem;
	}
	if (ptflow_calls_begin(&pf->calls, pf->thread, pf->pid, pf->tid))
		goto nomem;
	return 0;
nomem:
	fprintf(pf->err, "%s: out of memory\n", pf->prog);
	return -1;
}

/* End the views of one trace: its report is printed and added up. */
int ptflow_view_end(struct ptflow *pf)
{
	int err = ptflow_calls_end(&pf->calls);

	if (pf->calls.report) {
		ptflow_report_print(pf->calls.report, pf->out, pf->thread,
				    pf->clock.hz);
		if (ptflow_report_merge(pf->total, pf->calls.report))
			err = -1;
		pf->reports++;
		ptflow_report_free(pf->calls.report);
		pf->calls.report = NULL;
	}
	if (err)
		fprintf(pf->err, "%s: out of memory\n", pf->prog);
	return err;
}

/*
 * An instruction decoder over @len bytes at @buf with the session's
 * parameters and image; @config is filled. NULL when that fails (reported).
 */
static struct pt_insn_decoder *new_decoder(struct ptflow *pf, uint8_t *buf,
					   size_t len, struct pt_config *config)
{
	struct pt_insn_decoder *dec;
	int status;

	if (make_config(pf, buf, len, config))
		return NULL;
	dec = pt_insn_alloc_decoder(config);
	if (!dec) {
		fprintf(pf->err, "%s: %s: cannot allocate the decoder\n",
			pf->prog, pf->trace_name);
		return NULL;
	}
	status = pt_insn_set_image(dec, pf->image);
	if (status < 0) {
		fprintf(pf->err, "%s: %s: %s\n", pf->prog, pf->trace_name,
			pt_errstr(pt_errcode(status)));
		pt_insn_free_decoder(dec);
		return NULL;
	}
	return dec;
}

/* decode_run()'s result is a span the flow can go on after. */
static bool resumable(const struct ptflow *pf, int run)
{
	return pf->span_cb && (run == 1 || (run < 0 && run != -pte_eos));
}

/*
 * After the span callback skipped a span, or a decode error inside one (a
 * system-wide capture: the next span does not depend on it): decode the
 * spans that follow before the next PSB from synthetic traces
 * (ptflow_resume.h) rather than lose them; the caller's decoder then
 * synchronises at that PSB. @dec is the caller's decoder, @buf and @len
 * its piece. Returns 0, or -1 (out of memory or decoder set-up failed,
 * reported).
 */
static int resume_spans(struct ptflow *pf, struct pt_insn_decoder *dec,
			const uint8_t *buf, size_t len)
{
	uint64_t after = 0;
	int run = 1;

	if (pt_insn_get_offset(dec, &after) < 0)
		return 0;
	while (resumable(pf, run)) {
		struct pt_insn_decoder *sd;
		struct ptflow_resume r;
		struct pt_config config;
		uint64_t off = 0;
		int st = ptflow_resume_build(buf, len, after, PTFLOW_TRACE_PAD, &r);

		if (st < 0) {
			fprintf(pf->err, "%s: out of memory\n", pf->prog);
			return -1;
		}
		if (!st)
			return 0;
		sd = new_decoder(pf, r.buf, r.len, &config);
		if (!sd) {
			ptflow_resume_free(&r);
			return -1;
		}
		pf->syn = &r;
		st = pt_insn_sync_forward(sd);
		run = st < 0 ? 0 : decode_run(pf, sd, st);
		(void)pt_insn_get_offset(sd, &off);
		pf->syn = NULL;
		/* Skipped again or an error: on after that TIP.PGE. */
		after = ptflow_resume_map(&r, off);
		if (after < r.skip)
			after = r.skip;
		pt_insn_free_decoder(sd);
		ptflow_resume_free(&r);
	}
	return 0;
}

/*
 * Decode one piece of a trace: @len bytes at @buf, which lie at @base in
 * the whole trace; @cut: the piece ends at a gap (mid-packet). Returns 0
 * or -1 (decoder set-up failed, reported).
 */
static int decode_piece(struct ptflow *pf, uint8_t *buf, size_t len,
			uint64_t base, bool cut)
{
	struct pt_insn_decoder *dec;
	struct pt_config config;
	uint64_t last_sync = 0;
	bool synced = false, clean_end = false;
	int status;

	if (pf->piece) {	/* another engine */
		int err;

		pf->seg_base = base;
		pf->seg_cut = cut;
		err = pf->piece(pf, buf, len, base, cut);
		ptflow_line_flush(&pf->line);
		pf->seg_base = 0;
		pf->seg_cut = false;
		if (err != 1)
			return err;	/* else: libipt's */
	}
	dec = new_decoder(pf, buf, len, &config);
	if (!dec)
		return -1;
	pf->seg_base = base;
	pf->seg_cut = cut;

	for (;;) {
		uint64_t off;

		status = pt_insn_sync_forward(dec);
		if (status == -pte_eos) {
			/* A piece after a gap may hold no PSB: not an error. */
			if (!synced && !base)
				report(pf, 0, "no PSB found", NULL);
			break;
		}
		if (status < 0) {
			/* Give up when the search made no progress. */
			if (pt_insn_get_offset(dec, &off) < 0 ||
			    (synced && off <= last_sync)) {
				report(pf, base + (synced ? last_sync : 0),
				       pt_errstr(pt_errcode(status)), NULL);
				break;
			}
			report(pf, base + off, pt_errstr(pt_errcode(status)),
			       NULL);
			synced = true;
			last_sync = off;
			continue;
		}
		synced = true;
		if (pt_insn_get_offset(dec, &off) >= 0) {
			if (off < last_sync)
				break;
			last_sync = off;
		}
		status = decode_run(pf, dec, status);
		clean_end = status == 0;
		if (resumable(pf, status) && resume_spans(pf, dec, buf, len)) {
			pt_insn_free_decoder(dec);
			return -1;
		}
	}

	if (clean_end && !cut)
		check_tail(pf, &config);
	ptflow_line_flush(&pf->line);
	pt_insn_free_decoder(dec);
	pf->seg_base = 0;
	pf->seg_cut = false;
	return 0;
}

void ptflow_emit_insn(struct ptflow *pf, const struct pt_insn *insn)
{
	one_insn(pf, NULL, insn, pf->emit_off);
}

bool ptflow_emit_block(struct ptflow *pf, uint64_t ip, const uint8_t *lens,
		       uint32_t ninsn, const struct pt_insn *last)
{
	if (flow_on(pf))
		return false;
	if (pf->mute)
		return true;
	pf->insns += ninsn;
	if (!views_on(pf))
		return true;
	if (ninsn > 1 && pf->emit_tsc != pf->emit_end_tsc) {
		/* all but the last at one time, the last at its own */
		struct pt_insn prev;
		uint64_t a = ip;

		for (uint32_t i = 0; i + 2 < ninsn; i++)
			a += lens[i];
		memset(&prev, 0, sizeof(prev));
		prev.ip = a;
		prev.size = lens[ninsn - 2];
		prev.mode = last->mode;
		prev.iclass = ptic_other;
		ptflow_calls_block(&pf->calls, ip, lens, ninsn - 1, &prev,
				   pf->emit_tsc);
		ptflow_calls_insn(&pf->calls, last, pf->emit_end_tsc);
		return true;
	}
	ptflow_calls_block(&pf->calls, ip, lens, ninsn, last, pf->emit_end_tsc);
	return true;
}

size_t ptflow_emit_blocks(struct ptflow *pf, const struct lpt_flow_block *b,
			  size_t n)
{
	uint64_t insns;
	size_t k;

	if (flow_on(pf))
		return 0;
	if (pf->mute)
		return n;
	if (!views_on(pf)) {
		for (k = 0; k < n; k++)
			pf->insns += b[k].ninsn;
		return n;
	}
	insns = pf->calls.insns;
	k = ptflow_calls_blocks(&pf->calls, b, n);
	pf->insns += pf->calls.insns - insns;
	return k;
}

void ptflow_emit_event(struct ptflow *pf, const struct pt_event *ev)
{
	if (flow_on(pf))
		print_event(pf, ev, pf->emit_off);
	else if (views_on(pf) && !pf->mute)
		view_event(pf, NULL, ev);
}

void ptflow_emit_error(struct ptflow *pf, uint64_t offset, const char *reason,
		       uint64_t ip)
{
	struct pt_insn insn;

	memset(&insn, 0, sizeof(insn));
	insn.ip = ip;
	report(pf, offset + pf->seg_base, reason, ip ? &insn : NULL);
}

void ptflow_emit_end(struct ptflow *pf)
{
	if (flow_on(pf)) {
		ptflow_line_flush(&pf->line);
		fprintf(pf->out, "[end of trace]\n");
	}
}

void ptflow_emit_tail(struct ptflow *pf, uint8_t *buf, size_t len,
		      bool after_error, uint64_t offset)
{
	struct pt_packet_decoder *pkt;
	struct pt_config config;
	struct pt_packet packet;
	int status;

	if (make_config(pf, buf, len, &config))
		return;
	if (after_error) {
		/*
		 * libipt's user synchronises forward from where its decoder
		 * stood (pt_insn_sync_forward()): the next PSB whose PSB+
		 * reads to its PSBEND, else the trace is done.
		 */
		pkt = pt_pkt_alloc_decoder(&config);
		if (!pkt)
			return;
		status = offset < len ? pt_pkt_sync_set(pkt, offset) : -pte_eos;
		if (status >= 0)
			status = pt_pkt_sync_forward(pkt);
		while (status >= 0) {
			status = pt_pkt_next(pkt, &packet, sizeof(packet));
			if (status >= 0 && packet.type == ppt_psbend)
				break;
		}
		pt_pkt_free_decoder(pkt);
		if (status < 0)
			return;
	}
	ptflow_emit_end(pf);
	check_tail(pf, &config);
}

/* A gap in the trace (ptflow_decode_buffer()): say so, not as an error. */
static void report_gap(struct ptflow *pf, uint64_t offset)
{
	static const char what[] = "trace lost here (the output stopped "
				   "mid-packet); decoding resumes at the "
				   "next PSB";

	pf->gaps_seen++;
	if (pf->mute)
		return;
	if (flow_on(pf)) {
		ptflow_line_flush(&pf->line);
		fprintf(pf->out, "[gap at offset 0x%" PRIx64 ": %s]\n", offset,
			what);
	} else if (views_on(pf)) {
		ptflow_calls_event(&pf->calls, PTFLOW_CALLS_GAP, 0,
				   pf->calls.last_tsc, "trace lost");
	}
}

int ptflow_decode_buffer(struct ptflow *pf, uint8_t *buf, size_t len,
			 const char *name)
{
	uint64_t start = 0;
	size_t g;

	pf->trace_name = name;
	pf->short_line = pf->opt.no_inst && !pf->opt.offset && !pf->opt.time &&
			 !pf->opt.raw_insn && !pf->opt.line;
	if (!pf->disasm) {
		pf->disasm = ptflow_disasm_alloc(pf->opt.intel);
		if (!pf->disasm) {
			fprintf(pf->err, "%s: cannot set up the disassembler\n",
				pf->prog);
			return -1;
		}
	}
	if (!pf->have_clock && ptflow_views_start(pf))
		return -1;
	if (views_on(pf) && !pf->own_views && ptflow_view_begin(pf))
		return -1;
	/*
	 * Each piece before a gap on its own, copied with the zero padding
	 * libipt's PSB search needs (PTFLOW_TRACE_PAD): what follows a cut
	 * is the next piece, which its decoder must not read on into.
	 */
	for (g = 0; g < pf->ngaps; g++) {
		uint64_t end = pf->gaps[g];
		uint8_t *piece;

		if (end <= start || end >= len)
			continue;
		piece = calloc(1, (size_t)(end - start) + PTFLOW_TRACE_PAD);
		if (!piece) {
			fprintf(pf->err, "%s: out of memory\n", pf->prog);
			return -1;
		}
		memcpy(piece, buf + start, (size_t)(end - start));
		if (decode_piece(pf, piece, (size_t)(end - start), start, true)) {
			free(piece);
			return -1;
		}
		free(piece);
		report_gap(pf, end);
		start = end;
	}
	if (decode_piece(pf, buf + start, len - (size_t)start, start, false))
		return -1;
	if (views_on(pf) && !pf->own_views)
		return ptflow_view_end(pf);
	return 0;
}
