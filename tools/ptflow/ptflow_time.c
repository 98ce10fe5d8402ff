// SPDX-License-Identifier: GPL-2.0
/*
 * ptflow's clock: TSC ticks to nanoseconds (see ptflow_time.h).
 */
#include "tools/ptflow/ptflow_time.h"

#define NS_PER_S	1000000000ull

void ptflow_clock_init(struct ptflow_clock *clk, uint64_t tsc_hz,
		       uint8_t nom_freq)
{
	clk->hz = tsc_hz ? tsc_hz : (uint64_t)nom_freq * PTFLOW_BUS_HZ;
	clk->origin = 0;
	clk->have_origin = false;
}

bool ptflow_clock_known(const struct ptflow_clock *clk)
{
	return clk->hz != 0;
}

uint64_t ptflow_ticks_to_ns(uint64_t ticks, uint64_t hz)
{
	/* (ticks % hz) * 10^9 < hz * 10^9 fits 64 bits for hz < 18.4e9. */
	return ticks / hz * NS_PER_S + ticks % hz * NS_PER_S / hz;
}

void ptflow_clock_start(struct ptflow_clock *clk, uint64_t tsc)
{
	if (!clk->have_origin) {
		clk->origin = tsc;
		clk->have_origin = true;
	}
}

uint64_t ptflow_clock_ns(struct ptflow_clock *clk, uint64_t tsc)
{
	ptflow_clock_start(clk, tsc);
	if (tsc < clk->origin)
		return 0;
	if (!clk->hz)
		return tsc - clk->origin;
	return ptflow_ticks_to_ns(tsc - clk->origin, clk->hz);
}
