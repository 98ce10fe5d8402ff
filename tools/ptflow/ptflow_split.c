// SPDX-License-Identifier: GPL-2.0
/*
 * Splitting a per-CPU trace by thread: spans, their owners and their exec
 * generations (ptflow_split.h; Documentation/ptflow.rst, "System-wide
 * captures").
 */
#include "tools/ptflow/ptflow_split.h"

#include <stdlib.h>
#include <string.h>

#include <lwpt/pt_pkt.h>

const char *ptflow_split_why(enum ptflow_owner_kind kind)
{
	switch (kind) {
	case PTFLOW_OWNER_THREAD: return "thread";
	case PTFLOW_OWNER_NO_TIME: return "no time";
	case PTFLOW_OWNER_NO_SWITCH: return "before the first switch";
	case PTFLOW_OWNER_AMBIGUOUS: return "switch inside its time bounds";
	case PTFLOW_OWNER_LOST: return "switch records lost";
	case PTFLOW_OWNER_NOT_USER: return "idle or kernel thread";
	case PTFLOW_OWNER_NO_MAPS: return "process without maps";
	case PTFLOW_OWNER_EXEC: return "exec generation unknown";
	}
	return "unknown";
}

void ptflow_spans_free(struct ptflow_spans *sp)
{
	if (!sp)
		return;
	free(sp->s);
	memset(sp, 0, sizeof(*sp));
}

/* The scanner's state over one trace. */
struct scan {
	struct ptflow_spans *sp;
	struct lpt_time time;
	const struct lpt_time_config *tc;
	struct lpt_last_ip lip;
	bool open;		/* the last span has not ended */
	size_t await;		/* first ended span without @hi */
	size_t since_tsc;	/* first span whose @hi came after the last TSC */
	bool after_ovf;		/* a FUP now resumes tracing (SDM 33.4.2.16) */
	bool in_psb;		/* between PSB and PSBEND */
	uint64_t min_lag;	/* wrap_lag() */
	bool mtc;		/* an MTC since the last TSC */
};

static uint64_t scan_now(const struct scan *sc, bool *has)
{
	uint64_t tsc = 0;

	*has = lpt_time_query_tsc(&sc->time, &tsc, NULL, NULL) == 0;
	return tsc;
}

static int span_open(struct scan *sc, uint64_t offset, uint64_t ip,
		     enum ptflow_span_start start)
{
	struct ptflow_spans *sp = sc->sp;
	struct ptflow_span *s;

	if (sp->n == sp->cap) {
		size_t nc = sp->cap ? 2 * sp->cap : 256;
		struct ptflow_span *ns = realloc(sp->s, nc * sizeof(*ns));

		if (!ns)
			return -1;
		sp->s = ns;
		sp->cap = nc;
	}
	s = &sp->s[sp->n++];
	memset(s, 0, sizeof(*s));
	s->offset = offset;
	s->start = start;
	s->ip = ip;
	s->hi = UINT64_MAX;
	sc->open = true;
	return 0;
}

static void span_close(struct scan *sc, uint64_t end)
{
	struct ptflow_span *s;

	if (!sc->open)
		return;
	s = &sc->sp->s[sc->sp->n - 1];
	s->end = end;
	s->lo = scan_now(sc, &s->has_time);
	sc->open = false;
}

/* The time advanced: it bounds every ended span whose end came before. */
static void time_moved(struct scan *sc)
{
	struct ptflow_spans *sp = sc->sp;
	size_t ended = sc->open ? sp->n - 1 : sp->n;
	bool has;
	uint64_t t = scan_now(sc, &has);

	if (!has)
		return;
	while (sc->await < ended && sp->s[sc->await].lo < t)
		sp->s[sc->await++].hi = t;
}

/*
 * The least lag that can hide a lost MTC wrap, in TSC ticks; 0 when
 * unknown (every lag is then taken as one).
 *
 * MTC carries 8 bits of the crystal clock (SDM 33.4.2.12): a decoder cannot
 * see whole wraps (256 << MTCFreq ART ticks) that passed without an MTC,
 * e.g. while the CPU ran another thread or the kernel; the model writes at
 * most 256 MTCs per gap (pt-model.rst, "Timing"). Each lost wrap makes the
 * MTC time low by exactly one wrap (ART ticks times CPUID.15H:EBX/EAX TSC
 * ticks, SDM 33.8.3), and the lag the next TSC shows is the lost wraps plus
 * the time that really passed since the last timing packet: a lag shorter
 * than one wrap lost none. One MTC period of slack covers the rounding of
 * the ratio.
 */
static uint64_t wrap_lag(const struct lpt_time_config *tc)
{
	uint64_t art;

	if (!tc->cpuid_0x15_eax || !tc->cpuid_0x15_ebx || tc->mtc_freq > 15)
		return 0;
	art = (uint64_t)255 << tc->mtc_freq;	/* one wrap less one period */
	return art * tc->cpuid_0x15_ebx / tc->cpuid_0x15_eax;
}

/*
 * A TSC packet: the MTC-derived time before it may lag the real time by
 * lost wraps (wrap_lag()). When the lag the TSC shows could hold one, every
 * time since the last TSC may have been low by up to that lag, so the upper
 * bound of each span bounded since then is widened by it: a span that may
 * have run after a switch it seemed to precede is then ambiguous instead
 * of given to the wrong thread. A shorter lag, or any lag without an MTC
 * since the last TSC, is time that passed after the last timing packet (in
 * the kernel, say): the bounds were exact.
 */
static void tsc_resync(struct scan *sc, uint64_t tsc_payload)
{
	struct ptflow_spans *sp = sc->sp;
	bool had, has;
	uint64_t est = scan_now(sc, &had), now, lag;
	size_t i;

	(void)lpt_time_update_tsc(&sc->time, tsc_payload, sc->tc);
	now = scan_now(sc, &has);
	if (had && has && sc->mtc && now > est && now - est >= sc->min_lag) {
		lag = now - est;
		for (i = sc->since_tsc; i < sc->await; i++)
			if (sp->s[i].hi != UINT64_MAX)
				sp->s[i].hi = sp->s[i].hi > UINT64_MAX - lag ? UINT64_MAX :
					      sp->s[i].hi + lag;
	}
}

static void apply_time(struct scan *sc, const struct lpt_packet *p)
{
	switch (p->type) {
	case LPT_PKT_TSC:
		tsc_resync(sc, p->payload.tsc.tsc);
		time_moved(sc);
		sc->since_tsc = sc->await;
		sc->mtc = false;
		return;
	case LPT_PKT_TMA:
		(void)lpt_time_update_tma(&sc->time, p->payload.tma.ctc,
					  p->payload.tma.fc, sc->tc);
		break;
	case LPT_PKT_MTC:
		(void)lpt_time_update_mtc(&sc->time, p->payload.mtc.ctc, sc->tc);
		sc->mtc = true;
		break;
	case LPT_PKT_CBR:
		(void)lpt_time_update_cbr(&sc->time, p->payload.cbr.ratio, sc->tc);
		break;
	default:
		return;
	}
	time_moved(sc);
}

/* One packet at @off. Returns 0 or -1 (out of memory). */
static int scan_packet(struct scan *sc, const struct lpt_packet *p, uint64_t off,
		       uint64_t psb_off)
{
	uint64_t ip = 0;

	switch (p->type) {
	case LPT_PKT_PSB:
		sc->in_psb = true;
		lpt_last_ip_init(&sc->lip);	/* SDM 33.4.2.17 */
		break;
	case LPT_PKT_PSBEND:
		sc->in_psb = false;
		break;
	case LPT_PKT_TIP_PGE:
		(void)lpt_last_ip_update_pkt(&sc->lip, p);
		(void)lpt_last_ip_query(&sc->lip, &ip);
		span_close(sc, off);	/* a PGE without PGD: inconsistent */
		sc->after_ovf = false;
		return span_open(sc, off, ip, PTFLOW_START_PGE);
	case LPT_PKT_TIP_PGD:
		(void)lpt_last_ip_update_pkt(&sc->lip, p);
		span_close(sc, off + p->size);
		sc->after_ovf = false;
		break;
	case LPT_PKT_TIP:
		(void)lpt_last_ip_update_pkt(&sc->lip, p);
		break;
	case LPT_PKT_FUP:
		(void)lpt_last_ip_update_pkt(&sc->lip, p);
		(void)lpt_last_ip_query(&sc->lip, &ip);
		/* In PSB+ a FUP says tracing is on (SDM 33.4.2.17). */
		if (sc->in_psb && !sc->open)
			return span_open(sc, psb_off, ip, PTFLOW_START_PSB);
		if (sc->after_ovf) {
			sc->after_ovf = false;
			if (!sc->open)
				return span_open(sc, off, ip, PTFLOW_START_OVF);
		}
		break;
	case LPT_PKT_OVF:
		span_close(sc, off + p->size);
		sc->after_ovf = true;
		break;
	default:
		apply_time(sc, p);
		break;
	}
	return 0;
}

int ptflow_spans_scan(const uint8_t *buf, size_t len,
		      const struct lpt_time_config *tc, struct ptflow_spans *sp)
{
	struct lpt_pkt_decoder *dec;
	struct lpt_packet p;
	struct scan sc;
	uint64_t off = 0, psb_off = 0;
	int ret = 0, st;

	ptflow_spans_free(sp);
	memset(&sc, 0, sizeof(sc));
	sc.sp = sp;
	sc.tc = tc;
	sc.min_lag = wrap_lag(tc);
	lpt_time_init(&sc.time);
	lpt_last_ip_init(&sc.lip);
	dec = lpt_pkt_alloc(buf, len, NULL);
	if (!dec)
		return -1;
	for (st = lpt_pkt_sync_forward(dec); st >= 0 && !ret;) {
		if (lpt_pkt_get_offset(dec, &off) < 0)
			break;
		st = lpt_pkt_next(dec, &p);
		if (st < 0) {
			/* A bad packet: the open span ends; go on at a PSB. */
			span_close(&sc, off);
			sc.in_psb = false;
			st = lpt_pkt_sync_forward(dec);
			continue;
		}
		if (p.type == LPT_PKT_PSB)
			psb_off = off;
		ret = scan_packet(&sc, &p, off, psb_off);
	}
	span_close(&sc, len);
	lpt_pkt_free(dec);
	return ret;
}

size_t ptflow_spans_find(const struct ptflow_spans *sp, uint64_t offset)
{
	size_t lo = 0, hi = sp->n;

	/* The first span that starts at or after @offset. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sp->s[mid].offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? lo - 1 : SIZE_MAX;
}

void ptflow_split_owner(const struct ptcap_switches *sws, uint32_t cpu,
			struct ptflow_span *s)
{
	const struct ptcap_switch *sw, *next;

	s->pid = 0;
	s->tid = 0;
	if (!s->has_time) {
		s->kind = PTFLOW_OWNER_NO_TIME;
		return;
	}
	sw = ptcap_switches_at(sws, cpu, s->lo);
	if (!sw) {
		s->kind = PTFLOW_OWNER_NO_SWITCH;
		return;
	}
	/* The array is sorted by CPU, then TSC: the next one on @cpu. */
	next = sw + 1 < sws->sw + sws->n && sw[1].cpu == cpu ? sw + 1 : NULL;
	if (next && next->tsc < s->hi) {
		s->kind = PTFLOW_OWNER_AMBIGUOUS;
		return;
	}
	/*
	 * The thread switched in must be the one switched out next, unless
	 * records were lost; 0/0 without prev-idle is a task that exited and
	 * was reaped first (ptcap-format.rst, "switches").
	 */
	if (next && next->prev_tid != sw->next_tid &&
	    !(next->prev_tid == 0 && !(next->flags & PTCAP_SW_PREV_IDLE))) {
		s->kind = PTFLOW_OWNER_LOST;
		return;
	}
	if (sw->flags & (PTCAP_SW_NEXT_IDLE | PTCAP_SW_NEXT_KTHREAD) || !sw->next_pid) {
		s->kind = PTFLOW_OWNER_NOT_USER;
		return;
	}
	s->kind = PTFLOW_OWNER_THREAD;
	s->pid = sw->next_pid;
	s->tid = sw->next_tid;
}

/* The exec generation of span @s of a process with @n generations @g. */
static void choose_gen(struct ptflow_span *s, const struct ptcap_process *g, size_t n,
		       const uint64_t *exec)
{
	uint64_t t = s->lo;
	size_t k, best = SIZE_MAX;
	bool by_exec = false;

	for (k = 0; k < n; k++)
		if (exec[k] != UINT64_MAX && exec[k] <= t) {
			best = k;
			by_exec = true;
		}
	if (!by_exec) {
		/* Before the exec into its first generation: other code. */
		if (exec[0] != UINT64_MAX) {
			s->kind = PTFLOW_OWNER_EXEC;
			return;
		}
		for (k = 0; k < n; k++)
			if (g[k].first_tsc <= t)
				best = k;
		if (best == SIZE_MAX)
			best = 0;	/* before ptcap's first read */
	}
	/*
	 * After the last read that found @best, while a later generation
	 * exists: the process execed in between, maybe more than once (a
	 * program never read); the exec seen into the next one says only
	 * when the last of those happened.
	 */
	if (best + 1 < n && t > g[best].last_tsc) {
		s->kind = PTFLOW_OWNER_EXEC;
		return;
	}
	s->gen = best;
}

int ptflow_split_gens(const struct ptcap_processes *ps,
		      struct ptflow_spans *traces, size_t ntraces)
{
	uint64_t *exec = malloc((ps->n ? ps->n : 1) * sizeof(*exec));
	size_t i, j, k, n;

	if (!exec)
		return -1;
	for (k = 0; k < ps->n; k++)
		exec[k] = UINT64_MAX;
	/* Execs seen: a span of the process starting at a generation's entry. */
	for (i = 0; i < ntraces; i++) {
		for (j = 0; j < traces[i].n; j++) {
			struct ptflow_span *s = &traces[i].s[j];
			const struct ptcap_process *g;

			if (s->kind != PTFLOW_OWNER_THREAD || !s->ip)
				continue;
			g = ptcap_processes_find(ps, s->pid, &n);
			for (k = 0; g && k < n; k++) {
				uint64_t *e = &exec[(size_t)(g - ps->p) + k];

				if (!g[k].missing && g[k].entry == s->ip && s->lo < *e)
					*e = s->lo;
			}
		}
	}
	for (i = 0; i < ntraces; i++) {
		for (j = 0; j < traces[i].n; j++) {
			struct ptflow_span *s = &traces[i].s[j];
			const struct ptcap_process *g;

			if (s->kind != PTFLOW_OWNER_THREAD)
				continue;
			g = ptcap_processes_find(ps, s->pid, &n);
			if (!g || g->missing) {
				s->kind = PTFLOW_OWNER_NO_MAPS;
				continue;
			}
			choose_gen(s, g, n, &exec[g - ps->p]);
		}
	}
	free(exec);
	return 0;
}
