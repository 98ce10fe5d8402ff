// SPDX-License-Identifier: GPL-2.0
/*
 * Where in a capture's buffer the processor writes next (Documentation/
 * bts.rst, "Ring captures"): arithmetic on the session's counters only,
 * no hardware, no locks, no calls out.
 *
 * The processor's BTS buffer is linear (SDM 17.4.9.1-17.4.9.3): records go
 * from the BTS buffer base up to the absolute maximum; with
 * IA32_DEBUGCTL.BTINT set it stops there (17.4.5) and the index reaching
 * the interrupt threshold raises the DS interrupt, a PMI. A ring capture
 * gives the processor one stretch of the ring at a time, as perf's
 * intel_bts gives it one stretch of its AUX buffer (bts_buffer_reset(),
 * bts_config_buffer()): from the head to the end of the ring or of the
 * room the reader left, whichever comes first, with the threshold a
 * margin before the stretch's end. The interrupt is not precise (the
 * model's bts_pmi_skid): the margin is the room for the records stored
 * between the threshold and the PMI. At the PMI the kernel accounts the
 * stretch and gives the next one; when less than a margin is free, the
 * thread waits in the kernel until the reader consumed records (the
 * hold), so nothing is lost whatever the reader's speed.
 *
 * Records are 24 bytes and the ring is a multiple of 24, so a stretch
 * ends exactly at the ring's end. A stretch shorter than a margin there
 * is skipped when the ring's start has room: zero records (from = to = 0,
 * never a branch: nothing executes at linear address 0, mmap_min_addr)
 * pad it, and readers skip them, as perf pads the end of an AUX page
 * (bts_buffer_pad_out()).
 */
#include <linux/kernel.h>
#include <linux/minmax.h>

#include <lwpt/bts_arch.h>

#include "bts_int.h"

/* perf's BTS_SAFETY_MARGIN (arch/x86/events/intel/bts.c): 170 records. */
#define BTS_RING_SAFETY_MARGIN	4080

u64 bts_ring_margin(u64 records_end)
{
	u64 m = min_t(u64, BTS_RING_SAFETY_MARGIN, records_end / 4);

	m = rounddown(m, BTS_RECORD_SIZE);
	return max_t(u64, m, BTS_RECORD_SIZE);
}

void bts_ring_region(const struct bts_session *s, struct bts_region *r)
{
	u64 ring = s->records_end, margin = s->margin;
	u64 head = READ_ONCE(s->head), tail = READ_ONCE(s->tail);
	u64 off, free, end_room, len;

	memset(r, 0, sizeof(*r));
	if (!s->ring) {
		r->index = head;
		r->max = ring;
		/* Past the maximum: no DS interrupt (perf's snapshot buffers). */
		r->thresh = ring + BTS_RECORD_SIZE;
		return;
	}
	free = ring - min(head - tail, ring);
	off = head % ring;
	end_room = ring - off;
	if (end_room <= margin && free >= end_room + margin + BTS_RECORD_SIZE) {
		r->pad = end_room;
		free -= end_room;
		off = 0;
		end_room = ring;
	}
	len = min(end_room, free);
	r->base = off;
	r->index = off;
	r->max = off + len;
	if (!len)
		r->thresh = r->max + BTS_RECORD_SIZE;	/* nothing to store */
	else if (len > margin)
		r->thresh = r->max - margin;
	else if (len > BTS_RECORD_SIZE)
		r->thresh = r->max - BTS_RECORD_SIZE;
	else
		r->thresh = r->max;
	r->hold = len <= margin;
}
