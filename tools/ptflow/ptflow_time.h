/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptflow's clock: the TSC estimates of the trace (libipt's pt_insn_time(),
 * which applies the TSC, TMA, MTC, CYC and CBR rules of SDM 33.8.3 with the
 * capture's MTCFreq, CPUID.15H ratio and nominal frequency, as libpt's
 * lpt_time does) turned into nanoseconds from the start of the trace.
 *
 * The TSC frequency comes from the capture's `tsc-freq` (ptcap reads it
 * from the kernel), else --tsc-freq, else the nominal frequency:
 * MSR_PLATFORM_INFO[15:8] x 100 MHz, the invariant TSC's rate on the
 * processors with Intel PT (SDM 33.8.3.1: the TSC advances with the ART at
 * P = CPUID.15H:EBX/EAX TSC ticks per ART tick, and CBR and the
 * "Maximum Non-Turbo Ratio" relate core cycles to it).
 */
#ifndef LWPT_TOOLS_PTFLOW_TIME_H
#define LWPT_TOOLS_PTFLOW_TIME_H

#include <stdbool.h>
#include <stdint.h>

/* MSR_PLATFORM_INFO ratios are in units of the 100 MHz bus clock. */
#define PTFLOW_BUS_HZ	100000000ull

/* A TSC-to-nanoseconds conversion with its origin. */
struct ptflow_clock {
	uint64_t hz;		/* TSC ticks per second; 0: unknown */
	uint64_t origin;	/* TSC at time 0 */
	bool have_origin;
};

/**
 * ptflow_clock_init() - set up a clock.
 * @clk:      the clock.
 * @tsc_hz:   the TSC frequency in Hz if known, else 0.
 * @nom_freq: MSR_PLATFORM_INFO[15:8] (the nominal ratio), 0 if unknown;
 *            used when @tsc_hz is 0.
 *
 * Without either, ptflow_clock_ns() returns TSC ticks (see
 * ptflow_clock_known()).
 */
void ptflow_clock_init(struct ptflow_clock *clk, uint64_t tsc_hz,
		       uint8_t nom_freq);

/**
 * ptflow_clock_known() - whether ticks can be turned into nanoseconds.
 * @clk: the clock.
 *
 * Return: true when a TSC frequency is known.
 */
bool ptflow_clock_known(const struct ptflow_clock *clk);

/**
 * ptflow_clock_start() - set the origin to @tsc unless it is set.
 * @clk: the clock.
 * @tsc: the TSC of the first instruction or event of the capture.
 */
void ptflow_clock_start(struct ptflow_clock *clk, uint64_t tsc);

/**
 * ptflow_clock_ns() - nanoseconds from the origin at TSC @tsc.
 * @clk: the clock; without an origin, @tsc becomes it.
 * @tsc: a TSC value (ticks).
 *
 * Return: (@tsc - origin) in ns, rounded down; 0 for a TSC before the
 * origin; TSC ticks when the frequency is unknown.
 */
uint64_t ptflow_clock_ns(struct ptflow_clock *clk, uint64_t tsc);

/**
 * ptflow_ticks_to_ns() - a TSC tick count in nanoseconds.
 * @ticks: TSC ticks.
 * @hz:    TSC ticks per second, > 0 and below 18.4 GHz.
 *
 * Return: @ticks * 10^9 / @hz, rounded down, without overflow.
 */
uint64_t ptflow_ticks_to_ns(uint64_t ticks, uint64_t hz);

#endif /* LWPT_TOOLS_PTFLOW_TIME_H */
