/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The flow engine's clock (flow_time.c): libipt 2.0.5's query-decoder time
 * (pt_query_decoder.c: pt_qry_decode_tsc() ... pt_qry_decode_cyc(), the
 * header variants inside PSB+) over the raw trace, packet by packet, in
 * trace order, with libpt's time arithmetic (lwpt/pt_time.h, which gives
 * libipt's estimates). flow_decode.c advances it with the coverage walk
 * and decides which instruction or event sees which time.
 */
#ifndef _LIBPT_FLOW_TIME_H
#define _LIBPT_FLOW_TIME_H

#include <stdbool.h>
#include <stdint.h>

#include <lwpt/pt_time.h>

struct flow_clock {
	struct lpt_time_config cfg;
	struct lpt_time time;
	struct lpt_tcal tcal;
	const uint8_t *pos, *end;	/* the next packet; the trace's end */
	bool in_psb;			/* between PSB and PSBEND */
	bool psb_ev;			/* the PSB+ so far queues an event */
	bool fup;			/* a FUP outside PSB+ waits for its TIP */
	unsigned int psb_nev;		/* status events the PSB+ queues */
	bool psbend_held;		/* the last flow_clock_advance() passed
					 * a PSBEND with more than one: libipt
					 * reads it with the last of them */
};

/**
 * flow_clock_reset() - no time known, the next packet at @pos (libipt's
 * pt_qry_start(): pt_qry_reset() at each synchronisation).
 * @k:   the clock (its cfg kept).
 * @pos: a packet boundary, usually a PSB.
 * @end: the end of the trace.
 */
void flow_clock_reset(struct flow_clock *k, const uint8_t *pos, const uint8_t *end);

/**
 * flow_clock_advance() - apply the packets from the clock's position up to
 * @to (a packet boundary; nothing when @to is not after it).
 * @k:  the clock.
 * @to: where the coverage walk goes on.
 *
 * Return: true when a packet on the way publishes an event of libipt's
 * that the flow engine may not report (a standalone PIP or VMCS: the
 * engine reports them only while tracing is off; PWRE,
 * PWRX, TRACESTOP, MNT, an EXSTOP or PTW without IP, the PSBEND of a PSB+
 * holding status events): libipt's user fetches it, and sees its time.
 */
bool flow_clock_advance(struct flow_clock *k, const uint8_t *to);

/**
 * flow_clock_ahead() - where libipt's query decoder stands after reading
 * ahead from the clock's position (pt_qry_read_ahead(): status packets
 * decoded, a PSB+ read to its PSBEND, a FUP outside PSB+ decoded, up to
 * the next TNT, TIP or event packet: pt_insn_get_offset() then).
 * @k: the clock, at a packet boundary.
 *
 * Return: that packet's address; the trace's end when none follows or a
 * status packet is cut by it (libipt ignores one there).
 */
const uint8_t *flow_clock_ahead(const struct flow_clock *k);

/**
 * flow_clock_tsc() - the TSC estimate after the packets applied so far
 * (lpt_time_query_tsc(): 0 before any TSC packet, as libipt's).
 * @k: the clock.
 */
uint64_t flow_clock_tsc(const struct flow_clock *k);

/**
 * flow_clock_none() - whether no time can come from @pos to @end: every
 * packet there decodes (as flow_clock_advance() decodes them) and none is
 * a TSC, TMA, MTC or CYC (SDM 33.4.2.11-14; a CBR alone moves no time), so
 * that the TSC estimate stays 0 throughout (lpt_time_query_tsc()).
 * Conservative: false where a packet does not decode (a walk that
 * resynchronises might read packets this scan does not).
 * @pos: a packet boundary (the first PSB the walk syncs at).
 * @end: the end of the trace.
 *
 * Return: true when the trace holds no timing packet.
 */
bool flow_clock_none(const uint8_t *pos, const uint8_t *end);

#endif /* _LIBPT_FLOW_TIME_H */
