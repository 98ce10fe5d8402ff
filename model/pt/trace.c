// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The PT packet generator: packets from execution (SDM 33.2.1-33.2.6,
 * 33.3.7-33.3.8, 33.4, 33.7). See pt_trace.h for the interface and
 * Documentation/pt-model.rst "Execution and packets" for every choice the
 * SDM leaves to the implementation.
 */
#include "model/pt/pt_trace.h"

#include <lwpt/pt_packets.h>
#include <lwpt/pt_rtit.h>

/* IA32_RTIT_CTL bits the generator does not model (-EOPNOTSUPP). */
#define TRACE_CTL_UNSUPPORTED	(IA32_RTIT_CTL_PWREVTEN | IA32_RTIT_CTL_EVENTEN)

static bool ctl(const struct pt_trace *tr, uint64_t bit)
{
	return (tr->cfg.rtit_ctl & bit) != 0;
}

static unsigned int addr_cfg(const struct pt_trace *tr, unsigned int n)
{
	return (unsigned int)((tr->cfg.rtit_ctl & IA32_RTIT_CTL_ADDRn_CFG_MASK(n)) >>
			      IA32_RTIT_CTL_ADDRn_CFG_SHIFT(n));
}

/* --- Output ------------------------------------------------------------ */

/*
 * Offer bytes to the sink. Packets offered during an overflow are dropped
 * (SDM 33.3.8); PacketByteCnt counts only bytes sent (33.3.8.1).
 * Return true if the bytes were written.
 */
static bool out(struct pt_trace *tr, const uint8_t *p, size_t n)
{
	int ret;

	if (!tr->trigger_en)
		return false;	/* SDM 33.2.6.2: no packets without TriggerEn */
	if (tr->overflow) {
		tr->stats.dropped_bytes += n;
		return false;
	}
	ret = tr->cfg.emit(tr->cfg.emit_ctx, p, n);
	if (ret == 0) {
		tr->stats.bytes += n;
		tr->bytes_since_psb += n;
		return true;
	}
	tr->stats.dropped_bytes += n;
	if (ret == -ENOSPC) {
		tr->overflow = true;
	} else {
		/* Output stopped: TriggerEn cleared (33.2.6.2, 33.3.10). */
		tr->error = true;
		tr->sink_err = ret;
		tr->trigger_en = false;
		tr->packet_en = false;
	}
	return false;
}

static void put_le(uint8_t *p, uint64_t v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/*
 * CYC (SDM 33.3.6, 33.4.2.14) before a CYC-eligible packet: the cycles
 * since the last CYC, if at least one and at least CycThresh's (33.3.6.3)
 * have passed. The model's core clock is the TSC: one cycle per TSC tick
 * (Documentation/pt-model.rst); packets are timed at tr->now. All packets
 * of one instant share one CYC ("only a single CYC will be generated").
 */
static void cyc(struct pt_trace *tr)
{
	uint8_t b[PT_CYC_MAX_SIZE];
	uint64_t n;
	unsigned int len = 1;

	if (!ctl(tr, IA32_RTIT_CTL_CYCEN) || tr->now <= tr->cyc_ref)
		return;
	n = tr->now - tr->cyc_ref;
	if (n < tr->cyc_thresh)
		return;
	b[0] = (uint8_t)(PT_OPC_CYC | (n & ((1u << PT_CYC_BITS) - 1)) << PT_CYC_SHIFT);
	n >>= PT_CYC_BITS;
	if (n)
		b[0] |= PT_CYC_EXP;
	while (n) {
		b[len] = (uint8_t)((n & ((1u << PT_CYCX_BITS) - 1)) << PT_CYCX_SHIFT);
		n >>= PT_CYCX_BITS;
		if (n)
			b[len] |= PT_CYCX_EXP;
		len++;
	}
	if (out(tr, b, len)) {
		tr->stats.cyc++;
		tr->cyc_ref = tr->now;	/* 33.3.6.1: reset when a CYC is sent */
	}
}

/*
 * Write the pending TNT bits (SDM 33.4.2.1): short TNT for up to 6 bits,
 * long TNT (TNT-64) for more. B1 (oldest) sits just below the stop bit.
 */
static void tnt_flush(struct pt_trace *tr)
{
	uint8_t b[PT_TNT_64_SIZE];
	unsigned int n = tr->tnt_n;

	if (!n)
		return;
	tr->tnt_n = 0;
	if (n <= PT_TNT_8_MAX_BITS) {
		b[0] = PT_TNT_8_BYTE(tr->tnt_bits, n);
		if (out(tr, b, PT_TNT_8_SIZE))
			tr->stats.tnt++;
	} else {
		uint64_t pl = ((uint64_t)1 << n) | tr->tnt_bits;

		b[0] = PT_OPC_EXT;
		b[1] = PT_EXT_TNT_64;
		put_le(b + PT_TNT_64_PL_OFF, pl, PT_TNT_64_PL_BYTES);
		if (out(tr, b, PT_TNT_64_SIZE))
			tr->stats.tnt++;
	}
	tr->tnt_bits = 0;
}

/* Any other packet first forces out the TNT buffer (33.4.2.1 Description). */
static bool pkt(struct pt_trace *tr, const uint8_t *p, size_t n)
{
	tnt_flush(tr);
	return out(tr, p, n);
}

/* A CYC-eligible packet (33.3.6): TNT first, then CYC, then the packet. */
static bool pkt_cyc(struct pt_trace *tr, const uint8_t *p, size_t n)
{
	tnt_flush(tr);
	cyc(tr);
	return out(tr, p, n);
}

static void tnt_add(struct pt_trace *tr, bool taken)
{
	unsigned int max = tr->cfg.tnt64 ? PT_TNT_64_MAX_BITS : PT_TNT_8_MAX_BITS;

	if (ctl(tr, IA32_RTIT_CTL_DISTNT))
		return;		/* SDM 33.3.9 */
	if (!tr->tnt_n)
		cyc(tr);	/* 33.3.6.2: the CYC times the first bit */
	tr->tnt_bits = (tr->tnt_bits << 1) | (taken ? 1 : 0);
	tr->tnt_n++;
	tr->stats.tnt_bits++;
	if (tr->tnt_n == max)
		tnt_flush(tr);
}

/*
 * IPBytes for @ip against Last IP (Table 33-18): the smallest payload that
 * reconstructs @ip. Of the two 6-byte forms, sign extension (011b) is used
 * when it applies, as real processors do after a PSB.
 */
static unsigned int ip_bytes(uint64_t last, uint64_t ip)
{
	uint64_t diff = last ^ ip;
	uint64_t top = ip >> 47;

	if (!(diff >> 16))
		return PT_IPBYTES_UPDATE_16;
	if (!(diff >> 32))
		return PT_IPBYTES_UPDATE_32;
	if (top == 0 || top == 0x1ffff)
		return PT_IPBYTES_SEXT_48;
	if (!(diff >> 48))
		return PT_IPBYTES_UPDATE_48;
	return PT_IPBYTES_FULL;
}

/*
 * TIP, TIP.PGE, TIP.PGD or FUP (SDM 33.4.2.2-33.4.2.6). @suppressed writes
 * IPBytes=0 and leaves Last IP alone. Last IP follows only packets written.
 */
static bool ip_pkt(struct pt_trace *tr, uint8_t opc, uint64_t ip, bool suppressed)
{
	uint8_t p[PT_IP_MAX_SIZE];
	unsigned int ipb, n;

	if (suppressed)
		ipb = PT_IPBYTES_SUPPRESSED;
	else if (tr->ip_full_next)
		ipb = ip_bytes(~ip, ip);	/* no byte in common: 011b or 110b */
	else
		ipb = ip_bytes(tr->last_ip, ip);
	n = PT_IPBYTES_PAYLOAD_SIZE(ipb);

	p[0] = PT_IP_HDR(opc, ipb);
	put_le(p + PT_IP_HDR_SIZE, ip, n);
	/* TIP, TIP.PGE and TIP.PGD are CYC-eligible, FUP is not (33.3.6). */
	if (!(opc == PT_OPC_FUP ? pkt : pkt_cyc)(tr, p, PT_IP_HDR_SIZE + n))
		return false;
	if (!suppressed) {
		tr->last_ip = ip;
		tr->ip_full_next = false;
	}
	switch (opc) {
	case PT_OPC_TIP:
		tr->stats.tip++;
		break;
	case PT_OPC_TIP_PGE:
		tr->stats.tip_pge++;
		break;
	case PT_OPC_TIP_PGD:
		tr->stats.tip_pgd++;
		break;
	default:
		tr->stats.fup++;
		break;
	}
	return true;
}

static uint8_t mode_bits(enum x86_mode mode)
{
	/* Table 33-26: bit 0 = CS.L & LMA, bit 1 = CS.D; IF only with EventEn. */
	if (mode == X86_MODE_64)
		return PT_MODE_EXEC_CSL;
	if (mode == X86_MODE_32)
		return PT_MODE_EXEC_CSD;
	return 0;
}

static void mode_exec(struct pt_trace *tr, enum x86_mode mode)
{
	uint8_t p[PT_MODE_SIZE] = {
		PT_OPC_MODE, PT_MODE_BYTE(PT_MODE_LEAF_EXEC, mode_bits(mode))
	};

	if (pkt_cyc(tr, p, sizeof(p))) {
		tr->mode_valid = true;
		tr->mode_sent = mode_bits(mode);
		tr->stats.mode_exec++;
	}
}

/* MODE.Exec before an IP packet when the mode may be unknown or changed. */
static void mode_exec_if_needed(struct pt_trace *tr, enum x86_mode mode)
{
	if (!tr->mode_valid || tr->mode_sent != mode_bits(mode))
		mode_exec(tr, mode);
}

/* --- Time: TSC, TMA, MTC (SDM 33.4.2.11-33.4.2.13, 33.8.3) --------------- */

static uint64_t tsc_to_art(const struct pt_trace *tr, uint64_t tsc)
{
	uint64_t num = tr->cfg.tsc_art_num, den = tr->cfg.tsc_art_den;

	/* TSC = ART * num / den  =>  ART = TSC * den / num, without overflow. */
	return tsc / num * den + tsc % num * den / num;
}

static uint64_t art_to_tsc(const struct pt_trace *tr, uint64_t art)
{
	uint64_t num = tr->cfg.tsc_art_num, den = tr->cfg.tsc_art_den;

	return art / den * num + art % den * num / den;
}

static unsigned int mtc_freq(const struct pt_trace *tr)
{
	return (unsigned int)((tr->cfg.rtit_ctl & IA32_RTIT_CTL_MTCFREQ_MASK) >>
			      IA32_RTIT_CTL_MTCFREQ_SHIFT);
}

static void tsc_tma(struct pt_trace *tr, uint64_t tsc)
{
	uint8_t p[PT_MAX_PACKET_SIZE];	/* TSC and TMA both fit */

	if (!ctl(tr, IA32_RTIT_CTL_TSCEN))
		return;
	p[0] = PT_OPC_TSC;
	put_le(p + PT_TSC_PL_OFF, tsc, PT_TSC_PL_BYTES);
	/* 33.3.6: the CYC along with the TSC counts the cycles up to it. */
	if (pkt_cyc(tr, p, PT_TSC_SIZE))
		tr->stats.tsc++;
	if (ctl(tr, IA32_RTIT_CTL_MTCEN)) {
		uint64_t art = tsc_to_art(tr, tsc);
		uint64_t fc = (tsc - art_to_tsc(tr, art)) & PT_TMA_FC_MASK;

		memset(p, 0, sizeof(p));	/* reserved bits 0 */
		p[0] = PT_OPC_EXT;
		p[1] = PT_EXT_TMA;
		put_le(p + PT_TMA_CTC_OFF, art, 2);
		put_le(p + PT_TMA_FC_OFF, fc, 2);
		if (pkt(tr, p, PT_TMA_SIZE))
			tr->stats.tma++;
		tr->ctc = art >> mtc_freq(tr);
		tr->ctc_valid = true;
	}
}

/* One MTC per toggle of ART[MTCFreq] up to @tsc (at most 256: CTC is 8 bits). */
static void mtc_update(struct pt_trace *tr, uint64_t tsc)
{
	uint64_t ctc, from;

	if (!ctl(tr, IA32_RTIT_CTL_MTCEN) || !tr->trigger_en)
		return;
	ctc = tsc_to_art(tr, tsc) >> mtc_freq(tr);
	if (!tr->ctc_valid) {
		tr->ctc = ctc;
		tr->ctc_valid = true;
		return;
	}
	if (ctc <= tr->ctc)
		return;
	from = ctc - tr->ctc > 256 ? ctc - 256 : tr->ctc;
	while (from < ctc) {
		uint8_t p[PT_MTC_SIZE];

		from++;
		p[0] = PT_OPC_MTC;
		p[PT_MTC_CTC_OFF] = (uint8_t)from;	/* CTC[N+7:N] */
		/* The MTC happens at the ART edge: its CYC counts up to it. */
		tr->now = art_to_tsc(tr, from << mtc_freq(tr));
		if (pkt_cyc(tr, p, sizeof(p)))
			tr->stats.mtc++;
	}
	tr->ctc = ctc;
	tr->now = tsc;
}

/* --- Enables ------------------------------------------------------------ */

static bool filter_configured(const struct pt_trace *tr)
{
	unsigned int n;

	for (n = 0; n < tr->cfg.nr_ranges; n++)
		if (addr_cfg(tr, n) == IA32_RTIT_ADDR_CFG_FILTER)
			return true;
	return false;
}

/* Is @ip in an ADDRn range with ADDRn_CFG == @kind (bounds inclusive)? */
static bool in_ranges(const struct pt_trace *tr, uint64_t ip, unsigned int kind)
{
	unsigned int n;

	for (n = 0; n < tr->cfg.nr_ranges; n++)
		if (addr_cfg(tr, n) == kind && ip >= tr->cfg.addr_a[n] &&
		    ip <= tr->cfg.addr_b[n])
			return true;
	return false;
}

/*
 * FilterEn at a branch or event target (33.2.5.3): always 1 without a
 * filter range. A TraceStop range overlapping a filter range wins, but
 * TraceStop is handled by its caller.
 */
static bool filter_at(const struct pt_trace *tr, uint64_t ip)
{
	if (!filter_configured(tr))
		return true;
	return in_ranges(tr, ip, IA32_RTIT_ADDR_CFG_FILTER);
}

/* ContextEn (33.2.6.3). CPL 0 is outside the model: always filtered. */
static bool context_at(const struct pt_trace *tr, uint8_t cpl, uint64_t cr3)
{
	if (cpl == 0 || !ctl(tr, IA32_RTIT_CTL_USER))
		return false;
	if (ctl(tr, IA32_RTIT_CTL_CR3FILTER) &&
	    ((cr3 ^ tr->cfg.cr3_match) & IA32_RTIT_CR3_MATCH_CMP_MASK))
		return false;
	return true;
}

/* Tell an attached processor model (IA32_RTIT_STATUS, 33.2.8.4). */
static void publish_enables(struct pt_trace *tr)
{
	const struct pt_trace_hooks *h = tr->cfg.hooks;

	if (h && h->enables && tr->trigger_en)
		h->enables(tr->cfg.emit_ctx, tr->context_en, tr->filter_en);
}

static void update_packet_en(struct pt_trace *tr)
{
	tr->packet_en = tr->trigger_en && tr->context_en && tr->filter_en &&
			ctl(tr, IA32_RTIT_CTL_BRANCHEN);
	publish_enables(tr);
}

static void retstack_clear(struct pt_trace *tr)
{
	tr->rs_n = 0;
	tr->rs_top = 0;
}

static void retstack_push(struct pt_trace *tr, uint64_t ip)
{
	tr->retstack[tr->rs_top] = ip;
	tr->rs_top = (tr->rs_top + 1) % PT_TRACE_RETSTACK_DEPTH;
	if (tr->rs_n < PT_TRACE_RETSTACK_DEPTH)
		tr->rs_n++;	/* else the oldest entry was overwritten */
}

/* Pop the youngest entry; false if the stack is empty. */
static bool retstack_pop(struct pt_trace *tr, uint64_t *ip)
{
	if (!tr->rs_n)
		return false;
	tr->rs_top = (tr->rs_top + PT_TRACE_RETSTACK_DEPTH - 1) %
		     PT_TRACE_RETSTACK_DEPTH;
	tr->rs_n--;
	*ip = tr->retstack[tr->rs_top];
	return true;
}

/*
 * PacketEn goes 1 -> 0: TIP.PGD. The RET stack is emptied: the processor
 * never compresses a RET across PacketEn=0 (33.4.2.2).
 */
static void pgd(struct pt_trace *tr, uint64_t ip, bool suppressed)
{
	ip_pkt(tr, PT_OPC_TIP_PGD, ip, suppressed);
	retstack_clear(tr);
}

/* PacketEn goes 0 -> 1 at @ip: MODE.Exec if needed, TIP.PGE (33.4.2.4). */
static void pge(struct pt_trace *tr, uint64_t ip, enum x86_mode mode)
{
	mode_exec_if_needed(tr, mode);
	ip_pkt(tr, PT_OPC_TIP_PGE, ip, false);
	retstack_clear(tr);
}

/* TraceStop (33.2.5.3, 33.4.2.9): Stopped set, TriggerEn cleared. */
static void trace_stop(struct pt_trace *tr)
{
	static const uint8_t p[PT_TRACESTOP_SIZE] = { PT_OPC_EXT, PT_EXT_TRACESTOP };

	if (pkt(tr, p, sizeof(p)))
		tr->stats.tracestop++;
	if (tr->cfg.hooks && tr->cfg.hooks->trace_stop && tr->trigger_en)
		tr->cfg.hooks->trace_stop(tr->cfg.emit_ctx);
	tr->stopped = true;
	tr->trigger_en = false;
	tr->filter_en = false;	/* Table 33-28: TraceStop forces FilterEn to 0 */
	tr->packet_en = false;
}

/* --- PSB+ and overflow -------------------------------------------------- */

/*
 * PSB+ (33.3.7): PSB, TSC, TMA, CBR, and MODE.Exec and FUP(@ip) when
 * PacketEn=1, then PSBEND. Last IP and the RET stack are reset; pending
 * TNT bits go out before the PSB.
 */
static void psb_plus(struct pt_trace *tr, uint64_t tsc, uint64_t ip,
		     enum x86_mode mode)
{
	uint8_t p[PT_PSB_SIZE];
	unsigned int i;

	tnt_flush(tr);
	if (tr->cfg.hooks && tr->cfg.hooks->psb_begin && tr->trigger_en)
		tr->cfg.hooks->psb_begin(tr->cfg.emit_ctx);
	for (i = 0; i < PT_PSB_REPEAT; i++) {
		p[2 * i] = PT_OPC_EXT;
		p[2 * i + 1] = PT_EXT_PSB;
	}
	tr->bytes_since_psb = 0;
	if (!out(tr, p, PT_PSB_SIZE))
		return;
	tr->stats.psb++;
	tr->last_ip = 0;
	tr->mode_valid = false;
	retstack_clear(tr);

	tsc_tma(tr, tsc);
	if (tr->context_en && ctl(tr, IA32_RTIT_CTL_OS)) {
		/* PIP in PSB+ if ContextEn=1 and OS=1 (33.3.7); NR=0, no VMX. */
		p[0] = PT_OPC_EXT;
		p[1] = PT_EXT_PIP;
		put_le(p + PT_PIP_PL_OFF, PT_PIP_CR3_TO_PAYLOAD(tr->cur_cr3),
		       PT_PIP_PL_BYTES);
		if (pkt_cyc(tr, p, PT_PIP_SIZE))
			tr->stats.pip++;
	}
	p[0] = PT_OPC_EXT;
	p[1] = PT_EXT_CBR;
	p[PT_CBR_RATIO_OFF] = tr->cfg.cbr;
	p[PT_CBR_RATIO_OFF + 1] = 0;
	if (out(tr, p, PT_CBR_SIZE))
		tr->stats.cbr++;
	if (tr->packet_en) {
		mode_exec(tr, mode);
		ip_pkt(tr, PT_OPC_FUP, ip, false);
	}
	p[0] = PT_OPC_EXT;
	p[1] = PT_EXT_PSBEND;
	out(tr, p, PT_PSBEND_SIZE);
}

/* Is a PSB+ due (33.4.2.17)? The attached model's PacketByteCnt wins. */
static bool psb_due(const struct pt_trace *tr)
{
	const struct pt_trace_hooks *h = tr->cfg.hooks;

	if (h && h->psb_due)
		return h->psb_due(tr->cfg.emit_ctx);
	return tr->psb_period && tr->bytes_since_psb >= tr->psb_period;
}

/*
 * Before the next instruction: resolve an overflow (OVF, then FUP(@ip) if
 * PacketEn, 33.3.8) and write a due PSB+ (33.4.2.17).
 */
static void boundary_tail(struct pt_trace *tr, const struct pt_trace_step *next)
{
	if (!tr->trigger_en || !next)
		return;
	tr->now = next->tsc;
	if (tr->overflow) {
		static const uint8_t p[PT_OVF_SIZE] = { PT_OPC_EXT, PT_EXT_OVF };

		tr->overflow = false;
		tr->tnt_n = 0;		/* those bits were lost */
		tr->tnt_bits = 0;
		if (!pkt_cyc(tr, p, sizeof(p)))
			return;		/* still full: try again later */
		tr->stats.ovf++;
		retstack_clear(tr);	/* no RET compression across OVF */
		/*
		 * 33.3.8: no IP compression against lost packets. Decoders
		 * differ on the Last IP after OVF (libipt resets it to 0), so
		 * the next IP goes out uncompressed: right for both readings.
		 */
		tr->ip_full_next = true;
		/* Only timing packets may sit between OVF and its FUP. */
		if (tr->packet_en)
			ip_pkt(tr, PT_OPC_FUP, next->ip, false);
	}
	if (psb_due(tr))
		psb_plus(tr, next->tsc, next->ip, next->mode);
}

/* --- Execution ---------------------------------------------------------- */

/* Does the event that enters the kernel carry a FUP with the current IP? */
static bool fup_on_entry(enum x86_cofi_kind k)
{
	/*
	 * Table 33-23: software interrupts and exceptions/faults get FUP(CLIP);
	 * SYSCALL/SYSENTER are far branches: TIP.PGD only (Table 33-56 case 6).
	 */
	return k != X86_COFI_SYSCALL && k != X86_COFI_SYSENTER;
}

/*
 * User-mode execution resumes at @s after the kernel (or after enabling):
 * ContextEn and FilterEn are evaluated at the event target (33.2.5.3,
 * 33.2.6), TraceStop is checked, and PacketEn rising writes TIP.PGE.
 */
static void enter_user(struct pt_trace *tr, const struct pt_trace_step *s)
{
	tr->enter_pending = false;
	tr->now = s->tsc;	/* timed when @s retires: the resume is not seen */
	tr->cur_cr3 = s->cr3;
	tr->cur_ip = s->ip;
	tr->cur_ip_valid = true;
	if (!tr->trigger_en)
		return;
	tr->context_en = context_at(tr, s->cpl, s->cr3);
	if (tr->context_en) {
		if (in_ranges(tr, s->ip, IA32_RTIT_ADDR_CFG_STOP)) {
			trace_stop(tr);
			return;
		}
		tr->filter_en = filter_at(tr, s->ip);
	}
	update_packet_en(tr);
	if (tr->packet_en)
		pge(tr, s->ip, s->mode);
}

/*
 * PTWRITE retired (SDM 33.2.2, 33.4.2.21, Table 33-57): PTW with its
 * operand if TriggerEn, ContextEn, FilterEn and PTWEn (BranchEn does not
 * matter); with FUPonPTW the PTW has IP=1 and a FUP with the PTWRITE's
 * own IP (CLIP) follows it.
 */
static void ptw(struct pt_trace *tr, const struct pt_trace_step *p)
{
	uint8_t b[PT_PTW_MAX_SIZE];
	unsigned int plc = p->ptw_size == 8 ? PT_PTW_PLC_8 : PT_PTW_PLC_4;
	bool fup = ctl(tr, IA32_RTIT_CTL_FUPONPTW);

	if (!tr->trigger_en || !tr->context_en || !tr->filter_en ||
	    !ctl(tr, IA32_RTIT_CTL_PTWEN))
		return;
	b[0] = PT_OPC_EXT;
	b[1] = PT_PTW_EXT(plc, fup);
	put_le(b + PT_PTW_PL_OFF, p->ptw_value, PT_PTW_PAYLOAD_SIZE(plc));
	if (!pkt_cyc(tr, b, PT_PTW_PL_OFF + PT_PTW_PAYLOAD_SIZE(plc)))
		return;
	tr->stats.ptw++;
	if (fup)
		ip_pkt(tr, PT_OPC_FUP, p->ip, false);
}

/* Leave user mode after @p: FUP? + TIP.PGD() when PacketEn was 1. */
static void leave_user(struct pt_trace *tr, bool fup, uint64_t fup_ip)
{
	if (tr->packet_en) {
		if (fup)
			ip_pkt(tr, PT_OPC_FUP, fup_ip, false);
		pgd(tr, 0, true);	/* ContextEn cleared: no IP (33.4.2.5) */
	}
	tr->context_en = false;
	tr->packet_en = false;
	publish_enables(tr);
	tr->cur_ip_valid = false;
	tr->enter_pending = true;
}

/*
 * The packets of step @p, whose successor is @n (NULL: tracing is being
 * disabled right after @p). SDM Tables 33-55 and 33-56.
 */
static void finish_step(struct pt_trace *tr, const struct pt_trace_step *p,
			const struct pt_trace_step *n)
{
	struct x86_cofi c;
	enum x86_cofi_kind k;
	uint64_t fall, target, outcome;
	bool taken, p0, detour;

	mtc_update(tr, p->tsc);
	tr->now = p->tsc;

	if (x86_cofi_decode(p->insn, p->insn_size, p->mode, &c) < 0) {
		/* Undefined opcode: #UD, a fault (FUP(CLIP), TIP.PGD). */
		c.kind = X86_COFI_UD;
		c.len = 0;
	}
	k = c.kind;
	fall = p->ip + c.len;

	if (x86_cofi_enters_kernel(k)) {
		leave_user(tr, fup_on_entry(k), p->ip);
		return;
	}
	if (p->ptw_size)
		ptw(tr, p);

	/* The IP the instruction itself transfers to. */
	target = x86_cofi_target(&c, p->ip);
	switch (k) {
	case X86_COFI_NONE:
		outcome = fall;
		taken = false;
		break;
	case X86_COFI_JCC:
		taken = p->next_ip == target && target != fall;
		outcome = taken ? target : fall;
		break;
	case X86_COFI_JMP_REL:
	case X86_COFI_CALL_REL:
		outcome = target;
		taken = true;
		break;
	default:	/* indirect and far: the observed IP is the target */
		outcome = p->next_ip;
		taken = true;
		break;
	}

	/* An asynchronous event (interrupt, signal) right after @p? */
	detour = p->next_ip != outcome ||
		 (n && (n->ip != outcome || n->cpl != p->cpl || n->cr3 != p->cr3));

	p0 = tr->packet_en;
	if (taken && tr->trigger_en && tr->context_en) {
		/* 33.2.5.3: FilterEn and TraceStop act on taken branches. */
		if (in_ranges(tr, outcome, IA32_RTIT_ADDR_CFG_STOP)) {
			if (p0)
				pgd(tr, outcome, k == X86_COFI_JCC);
			trace_stop(tr);
			return;
		}
		tr->filter_en = filter_at(tr, outcome);
	}
	update_packet_en(tr);

	if (p0 && tr->packet_en) {
		switch (k) {
		case X86_COFI_JCC:
			tnt_add(tr, taken);
			break;
		case X86_COFI_CALL_REL:
			/* Zero-length calls are not pushed (33.4.2.2). */
			if (c.disp)
				retstack_push(tr, fall);
			break;
		case X86_COFI_CALL_IND:
			retstack_push(tr, fall);
			ip_pkt(tr, PT_OPC_TIP, outcome, false);
			break;
		case X86_COFI_RET: {
			bool compressed = false;
			uint64_t expect;

			/* Every near RET pops (33.4.2.2, step 3). */
			if (retstack_pop(tr, &expect) && expect == outcome &&
			    !ctl(tr, IA32_RTIT_CTL_DISRETC)) {
				compressed = true;
				tr->stats.ret_compressed++;
				tnt_add(tr, true);
			}
			if (!compressed)
				ip_pkt(tr, PT_OPC_TIP, outcome, false);
			break;
		}
		case X86_COFI_NONE:
		case X86_COFI_JMP_REL:
			break;
		default:	/* near indirect JMP, far transfers in user mode */
			if (n)
				mode_exec_if_needed(tr, n->mode);
			ip_pkt(tr, PT_OPC_TIP, outcome, false);
			break;
		}
	} else if (p0) {
		/* Left the filter region: TIP.PGD with the target, no IP for Jcc. */
		tnt_flush(tr);
		pgd(tr, outcome, k == X86_COFI_JCC);
	} else if (tr->packet_en) {
		pge(tr, outcome, n ? n->mode : p->mode);
	}
	tr->cur_ip = outcome;
	tr->cur_ip_valid = true;

	if (detour && n) {
		/* Trap-like event after @p: FUP(NLIP), TIP.PGD() (Table 33-56 case 7). */
		leave_user(tr, true, outcome);
	}
}

/* --- Public interface ---------------------------------------------------- */

int pt_trace_init(struct pt_trace *tr, const struct pt_trace_config *cfg)
{
	unsigned int n;
	uint64_t c;

	if (!tr || !cfg || !cfg->emit || cfg->nr_ranges > PT_TRACE_MAX_RANGES)
		return -EINVAL;
	c = cfg->rtit_ctl;
	if (c & IA32_RTIT_CTL_RESERVED)
		return -EINVAL;
	for (n = 0; n < PT_TRACE_MAX_RANGES; n++) {
		uint64_t a = (c & IA32_RTIT_CTL_ADDRn_CFG_MASK(n)) >>
			     IA32_RTIT_CTL_ADDRn_CFG_SHIFT(n);

		if (a > IA32_RTIT_ADDR_CFG_STOP || (a && n >= cfg->nr_ranges))
			return -EINVAL;
	}
	if ((c & IA32_RTIT_CTL_MTCEN) && (!cfg->tsc_art_num || !cfg->tsc_art_den))
		return -EINVAL;
	if (c & TRACE_CTL_UNSUPPORTED)
		return -EOPNOTSUPP;

	memset(tr, 0, sizeof(*tr));
	tr->cfg = *cfg;
	tr->cyc_thresh = IA32_RTIT_CYCTHRESH_CYCLES((c & IA32_RTIT_CTL_CYCTHRESH_MASK) >>
						    IA32_RTIT_CTL_CYCTHRESH_SHIFT);
	tr->psb_period = IA32_RTIT_PSBFREQ_BYTES((c & IA32_RTIT_CTL_PSBFREQ_MASK) >>
						 IA32_RTIT_CTL_PSBFREQ_SHIFT);
	return 0;
}

int pt_trace_enable(struct pt_trace *tr, uint64_t tsc)
{
	if (!tr)
		return -EINVAL;
	if (tr->trace_en)
		return -EBUSY;
	tr->trace_en = true;
	tr->trigger_en = !tr->stopped && !tr->error;
	tr->context_en = false;
	tr->filter_en = !filter_configured(tr);
	tr->packet_en = false;
	tr->overflow = false;
	tr->have_prev = false;
	tr->enter_pending = true;
	tr->ctc_valid = false;
	tr->tnt_n = 0;
	tr->tnt_bits = 0;
	/* 33.3.6.1: the cycle counter starts at 0 when TriggerEn is set. */
	tr->now = tsc;
	tr->cyc_ref = tsc;
	/* PacketByteCnt=0 at the first enable: full PSB+ (33.2.8.3). */
	psb_plus(tr, tsc, 0, X86_MODE_64);
	return 0;
}

static int step_check(const struct pt_trace_step *s, struct x86_cofi *c)
{
	int ret;

	if (!s || !s->insn_size || s->insn_size > X86_MAX_INSN_LEN || s->cpl > 3 ||
	    (s->ptw_size && s->ptw_size != 4 && s->ptw_size != 8))
		return -EINVAL;
	ret = x86_cofi_decode(s->insn, s->insn_size, s->mode, c);
	if (ret == -EAGAIN || ret == -EINVAL)
		return -EINVAL;
	return 0;
}

int pt_trace_step(struct pt_trace *tr, const struct pt_trace_step *step)
{
	struct x86_cofi c;
	int ret;

	if (!tr)
		return -EINVAL;
	ret = step_check(step, &c);
	if (ret)
		return ret;
	if (!tr->trace_en)
		return 0;
	tr->stats.steps++;

	if (tr->have_prev)
		finish_step(tr, &tr->prev, step);
	if (tr->enter_pending)
		enter_user(tr, step);
	boundary_tail(tr, step);
	tr->prev = *step;
	tr->have_prev = true;
	return 0;
}

int pt_trace_disable(struct pt_trace *tr)
{
	if (!tr)
		return -EINVAL;
	if (!tr->trace_en)
		return 0;
	if (tr->have_prev) {
		finish_step(tr, &tr->prev, NULL);
		/* Interrupted after the last step: FUP(NLIP), TIP.PGD(). */
		if (tr->packet_en && tr->cur_ip_valid)
			leave_user(tr, true, tr->cur_ip);
	}
	tnt_flush(tr);
	tr->trace_en = false;
	tr->trigger_en = false;
	tr->packet_en = false;
	tr->have_prev = false;
	return 0;
}

const struct pt_trace_stats *pt_trace_get_stats(const struct pt_trace *tr)
{
	return tr ? &tr->stats : NULL;
}

bool pt_trace_stopped(const struct pt_trace *tr)
{
	return tr && tr->stopped;
}
