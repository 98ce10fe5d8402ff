/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lwpt: Intel PT time tracking (SDM 33.8.3).
 *
 * Intel PT reports time in three domains (SDM 33.8.3):
 *
 *   - the timestamp counter (TSC ticks, "fast counter"), carried by TSC
 *     packets (lower 56 bits) and by the FastCounter field of TMA;
 *   - the core crystal clock (CTC, also ART), carried by MTC packets
 *     (8 bits, starting at bit IA32_RTIT_CTL.MTCFreq) and by the CTC field
 *     of TMA (low 16 bits);
 *   - core clock cycles, carried by CYC packets as the number of core cycles
 *     since the previous CYC packet.
 *
 * SDM 33.8.3.1 relates them:
 *
 *   TSC = CTC * P + AdjustedProcessorCycles + SoftwareOffset,
 *   P   = CPUID.15H:EBX / CPUID.15H:EAX       (TSC ticks per CTC tick).
 *
 * Two objects implement SDM 33.8.3.2 ("Estimating TSC within Intel PT") and
 * 33.8.3.4 ("Calculating Frequency with Intel PT"):
 *
 *   struct lpt_time  - the estimated TSC at the current trace position.
 *                      TSC sets it; TMA aligns it with the CTC; MTC advances
 *                      it by whole CTC periods; CYC advances it between
 *                      MTCs using the calibration below.
 *   struct lpt_tcal  - the time calibration: the fast-counter-to-cycles
 *                      ratio (FCR), i.e. TSC ticks per core cycle, measured
 *                      from CYC cycles counted between two MTC (or two TSC
 *                      in PSB+), or derived from CBR and the nominal
 *                      frequency (P1/CBR, SDM 33.8.3.2).
 *
 * The FCR is a fixed-point number with LPT_TCAL_FCR_SHIFT fractional bits.
 *
 * The arithmetic (integer rounding, wrap handling, which packets are
 * ignored) is chosen to give the same estimates as Intel's libipt, so that
 * `ptdump --time` output can be compared with libipt's ptdump; see
 * Documentation/ptdump.rst.
 *
 * Errors are negative values of enum lpt_error (lwpt/pt_pkt.h); turn them
 * into text with lpt_errstr().
 */
#ifndef LWPT_PT_TIME_H
#define LWPT_PT_TIME_H

#include <stdint.h>

#include <lwpt/pt_pkt.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Fractional bits of a fast-counter-to-cycles ratio (FCR). */
#define LPT_TCAL_FCR_SHIFT	8

/* Width of the MTC payload, CTC[N+7:N] (SDM 33.4.2.12). */
#define LPT_TIME_MTC_BITS	8
/* Width of TMA.CTC, CTC[15:0] (SDM 33.4.2.13). */
#define LPT_TIME_TMA_CTC_BITS	16
/* Width of the TSC packet payload, TSC[55:0] (SDM 33.4.2.11). */
#define LPT_TIME_TSC_BITS	56

/*
 * What the time computation needs to know about the traced processor.
 * Zero-fill, then set what is known; unknown values stay 0.
 */
struct lpt_time_config {
	/* IA32_RTIT_CTL.MTCFreq[17:14]: an MTC every 2^mtc_freq CTC ticks. */
	uint8_t mtc_freq;
	/* MSR_PLATFORM_INFO[15:8], the maximum non-turbo ratio (P1/100MHz). */
	uint8_t nom_freq;
	/* CPUID.15H:EAX, the denominator of the TSC/CTC ratio P. */
	uint32_t cpuid_0x15_eax;
	/* CPUID.15H:EBX, the numerator of the TSC/CTC ratio P. */
	uint32_t cpuid_0x15_ebx;
	/*
	 * Erratum SKL168 ("Intel PT CYC packets can be dropped when
	 * immediately preceding PSB"): ignore a suspicious first MTC after
	 * PSB for calibration.
	 */
	uint32_t errata_skl168:1;
};

/*
 * The estimated TSC. Embed it and initialise it with lpt_time_init(); the
 * fields are private to libpt/time.c.
 */
struct lpt_time {
	uint64_t tsc;		/* estimated TSC here */
	uint64_t base;		/* TSC at the last MTC (TSC - TMA.FC) */
	uint64_t fc;		/* TSC ticks since base (TMA.FC, CYC) */
	uint32_t ctc;		/* CTC at the last MTC or TMA */
	uint32_t ctc_cyc;	/* CTC at the last MTC that reset fc */
	uint32_t lost_mtc;	/* MTC packets that could not be applied */
	uint32_t lost_cyc;	/* CYC packets that could not be applied */
	uint8_t cbr;		/* last core:bus ratio */
	uint8_t have_tsc:1;
	uint8_t have_cbr:1;
	uint8_t have_tma:1;
	uint8_t have_mtc:1;
};

/*
 * The time calibration. Embed it and initialise it with lpt_tcal_init();
 * the fields are private to libpt/time.c.
 */
struct lpt_tcal {
	uint64_t fcr;		/* current FCR (LPT_TCAL_FCR_SHIFT) */
	uint64_t min_fcr;	/* smallest FCR seen (UINT64_MAX: none yet) */
	uint64_t max_fcr;	/* largest FCR seen */
	uint64_t tsc;		/* TSC at the last TSC packet */
	uint64_t cyc_tsc;	/* core cycles since the last TSC packet */
	uint64_t cyc_mtc;	/* core cycles since the last MTC packet */
	uint32_t ctc;		/* CTC at the last MTC packet */
	uint32_t lost_mtc;	/* MTC packets not used for calibration */
	uint32_t have_mtc:1;
	uint32_t check_skl168:1;
};

/**
 * lpt_time_init() - forget all time information.
 * @time: the time to reset; NULL is ignored.
 */
void lpt_time_init(struct lpt_time *time);

/**
 * lpt_time_query_tsc() - the estimated TSC at the current position.
 * @time:     the time, updated with the packets so far.
 * @tsc:      receives the estimate in TSC ticks (0 before any TSC packet).
 * @lost_mtc: if not NULL, receives the number of MTC packets since the last
 *            TSC that could not be applied (CTC wrapped more than once).
 * @lost_cyc: if not NULL, receives the number of CYC packets since the last
 *            TSC or MTC that could not be applied (no calibration).
 *
 * Return: 0; LPT_ERR_NO_TIME if no TSC packet has been seen (*tsc is still
 * written, it counts TSC ticks from an unknown origin);
 * LPT_ERR_INVAL if @time or @tsc is NULL.
 */
int lpt_time_query_tsc(const struct lpt_time *time, uint64_t *tsc,
		       uint32_t *lost_mtc, uint32_t *lost_cyc);

/**
 * lpt_time_query_cbr() - the last core:bus ratio (CBR packet, SDM 33.4.2.10).
 * @time: the time.
 * @cbr:  receives the ratio (core clock / 100 MHz bus clock).
 *
 * Return: 0; LPT_ERR_NO_CBR before any CBR packet with a non-zero ratio;
 * LPT_ERR_INVAL if an argument is NULL.
 */
int lpt_time_query_cbr(const struct lpt_time *time, uint32_t *cbr);

/**
 * lpt_time_update_tsc() - apply a TSC packet (SDM 33.4.2.11, 33.8.3.2).
 * @time:   the time.
 * @tsc:    the packet's TSC[55:0], in TSC ticks.
 * @config: the processor description (unused; for symmetry).
 *
 * The estimate becomes @tsc; MTC and CYC losses are forgiven.
 *
 * Return: 0; LPT_ERR_INVAL if @time is NULL.
 */
int lpt_time_update_tsc(struct lpt_time *time, uint64_t tsc,
			const struct lpt_time_config *config);

/**
 * lpt_time_update_cbr() - apply a CBR packet (SDM 33.4.2.10).
 * @time:   the time.
 * @ratio:  the packet's core:bus ratio.
 * @config: the processor description (unused; for symmetry).
 *
 * Return: 0; LPT_ERR_BAD_PACKET if @ratio is 0 (the time is unchanged);
 * LPT_ERR_INVAL if @time is NULL.
 */
int lpt_time_update_cbr(struct lpt_time *time, uint8_t ratio,
			const struct lpt_time_config *config);

/**
 * lpt_time_update_tma() - apply a TMA packet (SDM 33.4.2.13, 33.8.3.2).
 * @time:   the time.
 * @ctc:    TMA.CTC[15:0], the CTC at the preceding TSC, in CTC ticks.
 * @fc:     TMA.FastCounter[8:0], TSC ticks since the last CTC edge.
 * @config: the processor description; mtc_freq is used.
 *
 * Moves the base back by @fc so that the next MTC adds whole CTC periods
 * from the CTC edge before the TSC. If TMA carries all the CTC bits an MTC
 * carries (mtc_freq + 8 <= 16), it also serves as the previous MTC.
 *
 * Return: 0; LPT_ERR_BAD_CONTEXT if there was no TSC packet before, or a
 * TMA was already applied for it; LPT_ERR_INTERNAL if an MTC was applied
 * between the TSC and this TMA (cannot happen through this API);
 * LPT_ERR_INVAL if an argument is NULL.
 */
int lpt_time_update_tma(struct lpt_time *time, uint16_t ctc, uint16_t fc,
			const struct lpt_time_config *config);

/**
 * lpt_time_update_mtc() - apply an MTC packet (SDM 33.4.2.12, 33.8.3.2).
 * @time:   the time.
 * @ctc:    the packet's payload, CTC[mtc_freq+7:mtc_freq].
 * @config: the processor description; mtc_freq, cpuid_0x15_eax and
 *          cpuid_0x15_ebx are used.
 *
 * Advances the estimate by (CTC - previous CTC) * EBX / EAX TSC ticks,
 * allowing for one wrap of the 8-bit payload. MTC between a TSC and its TMA
 * and the first MTC without a TMA are ignored (return 0): they cannot be
 * placed in time.
 *
 * Return: 0; LPT_ERR_BAD_PACKET if the CTC went back further than one wrap
 * (the MTC is counted as lost); LPT_ERR_BAD_CONFIG if CPUID.15H EAX or EBX
 * is 0; LPT_ERR_INTERNAL if the state is inconsistent (cannot happen
 * through this API); LPT_ERR_INVAL if an argument is NULL.
 */
int lpt_time_update_mtc(struct lpt_time *time, uint8_t ctc,
			const struct lpt_time_config *config);

/**
 * lpt_time_update_cyc() - apply a CYC packet (SDM 33.4.2.14, 33.8.3.2).
 * @time:   the time.
 * @cyc:    the packet's cycle count, in core cycles since the last CYC.
 * @config: the processor description; as for lpt_time_update_mtc().
 * @fcr:    the calibration from lpt_tcal_fcr(), TSC ticks per core cycle
 *          with LPT_TCAL_FCR_SHIFT fraction bits; 0 if uncalibrated.
 *
 * Advances the estimate by @cyc * @fcr TSC ticks. For the first CYC after an
 * MTC, the part of @cyc that belongs to earlier MTC periods is removed
 * first. With @fcr 0 the CYC is counted as lost and the time is unchanged.
 *
 * Return: 0 (also for @fcr 0); LPT_ERR_BAD_PACKET or LPT_ERR_BAD_CONFIG as
 * for lpt_time_update_mtc(); LPT_ERR_INVAL if an argument is NULL.
 */
int lpt_time_update_cyc(struct lpt_time *time, uint64_t cyc,
			const struct lpt_time_config *config, uint64_t fcr);

/**
 * lpt_tcal_init() - forget all calibration.
 * @tcal: the calibration to reset; NULL is ignored.
 */
void lpt_tcal_init(struct lpt_tcal *tcal);

/**
 * lpt_tcal_fcr() - the current fast-counter-to-cycles ratio.
 * @tcal: the calibration.
 * @fcr:  receives TSC ticks per core cycle, with LPT_TCAL_FCR_SHIFT fraction
 *        bits (e.g. 1.5 ticks/cycle is 384).
 *
 * Return: 0; LPT_ERR_NO_TIME if no calibration has been made yet;
 * LPT_ERR_INVAL if an argument is NULL.
 */
int lpt_tcal_fcr(const struct lpt_tcal *tcal, uint64_t *fcr);

/**
 * lpt_tcal_set_fcr() - set the fast-counter-to-cycles ratio.
 * @tcal: the calibration.
 * @fcr:  TSC ticks per core cycle, LPT_TCAL_FCR_SHIFT fraction bits.
 *
 * Return: 0; LPT_ERR_INVAL if @tcal is NULL.
 */
int lpt_tcal_set_fcr(struct lpt_tcal *tcal, uint64_t fcr);

/**
 * lpt_tcal_update_psb() - note a PSB packet (start of PSB+, SDM 33.4.2.17).
 * @tcal:   the calibration.
 * @config: the processor description; errata_skl168 is used.
 *
 * Return: 0; LPT_ERR_INVAL if an argument is NULL.
 */
int lpt_tcal_update_psb(struct lpt_tcal *tcal,
			const struct lpt_time_config *config);

/**
 * lpt_tcal_update_tsc() - note a TSC packet outside PSB+.
 * @tcal:   the calibration.
 * @tsc:    the packet's TSC[55:0].
 * @config: the processor description (unused).
 *
 * A TSC outside PSB+ may follow a gap in time; it is not used to calibrate,
 * only remembered as the start of the next TSC-to-TSC measurement.
 *
 * Return: 0; LPT_ERR_INVAL if @tcal is NULL.
 */
int lpt_tcal_update_tsc(struct lpt_tcal *tcal, uint64_t tsc,
			const struct lpt_time_config *config);

/**
 * lpt_tcal_header_tsc() - calibrate at a TSC packet inside PSB+.
 * @tcal:   the calibration.
 * @tsc:    the packet's TSC[55:0].
 * @config: the processor description (unused).
 *
 * If no MTC-based calibration exists, FCR = (TSC ticks since the previous
 * TSC) / (CYC cycles since then) (SDM 33.8.3.4).
 *
 * Return: 0; LPT_ERR_BAD_PACKET if the TSC went back further than one wrap
 * of its 56 bits; LPT_ERR_OVERFLOW if the distance is too large for the
 * fixed-point ratio; LPT_ERR_INVAL if @tcal is NULL.
 */
int lpt_tcal_header_tsc(struct lpt_tcal *tcal, uint64_t tsc,
			const struct lpt_time_config *config);

/**
 * lpt_tcal_update_cbr() - calibrate at a CBR packet outside PSB+.
 * @tcal:   the calibration.
 * @ratio:  the packet's core:bus ratio.
 * @config: the processor description; nom_freq is used.
 *
 * A CBR outside PSB+ is a frequency change: all calibration is dropped, then
 * as lpt_tcal_header_cbr().
 *
 * Return: as lpt_tcal_header_cbr().
 */
int lpt_tcal_update_cbr(struct lpt_tcal *tcal, uint8_t ratio,
			const struct lpt_time_config *config);

/**
 * lpt_tcal_header_cbr() - calibrate at a CBR packet inside PSB+.
 * @tcal:   the calibration.
 * @ratio:  the packet's core:bus ratio.
 * @config: the processor description; nom_freq is used.
 *
 * If the nominal frequency is known, FCR = nom_freq / CBR (SDM 33.8.3.2:
 * "multiplying the accumulated cycle count value by P1/CBR").
 *
 * Return: 0 (also when nom_freq is 0: nothing to do); LPT_ERR_BAD_PACKET if
 * @ratio is 0; LPT_ERR_INVAL if an argument is NULL.
 */
int lpt_tcal_header_cbr(struct lpt_tcal *tcal, uint8_t ratio,
			const struct lpt_time_config *config);

/**
 * lpt_tcal_update_tma() - note a TMA packet (nothing to calibrate).
 * @tcal:   the calibration.
 * @ctc:    TMA.CTC[15:0].
 * @fc:     TMA.FastCounter.
 * @config: the processor description.
 *
 * Return: 0; LPT_ERR_INVAL if @tcal is NULL.
 */
int lpt_tcal_update_tma(struct lpt_tcal *tcal, uint16_t ctc, uint16_t fc,
			const struct lpt_time_config *config);

/**
 * lpt_tcal_update_mtc() - calibrate at an MTC packet (SDM 33.8.3.4).
 * @tcal:   the calibration.
 * @ctc:    the packet's payload, CTC[mtc_freq+7:mtc_freq].
 * @config: the processor description; mtc_freq, cpuid_0x15_eax,
 *          cpuid_0x15_ebx and errata_skl168 are used.
 *
 * FCR = (CTC ticks since the previous MTC * P) / (CYC cycles since then).
 * MTC periods without CYC are merged into the next one.
 *
 * Return: 0; LPT_ERR_BAD_PACKET if the CTC went back further than one wrap;
 * LPT_ERR_BAD_CONFIG if CPUID.15H EAX or EBX is 0; LPT_ERR_OVERFLOW if the
 * distance is too large for the fixed-point ratio; LPT_ERR_INVAL if an
 * argument is NULL. On error the MTC is counted as lost and the previous
 * calibration stays.
 */
int lpt_tcal_update_mtc(struct lpt_tcal *tcal, uint8_t ctc,
			const struct lpt_time_config *config);

/**
 * lpt_tcal_update_cyc() - count the cycles of a CYC packet.
 * @tcal:   the calibration.
 * @cyc:    the packet's cycle count, in core cycles.
 * @config: the processor description (unused).
 *
 * Return: 0; LPT_ERR_INVAL if @tcal is NULL.
 */
int lpt_tcal_update_cyc(struct lpt_tcal *tcal, uint64_t cyc,
			const struct lpt_time_config *config);

/**
 * lpt_tcal_update_ovf() - note an OVF packet but keep the calibration.
 * @tcal:   the calibration.
 * @config: the processor description (unused).
 *
 * Packets were lost: the running TSC and MTC measurements restart, the
 * current FCR is kept. (To drop the calibration instead, lpt_tcal_init().)
 *
 * Return: 0; LPT_ERR_INVAL if an argument is NULL.
 */
int lpt_tcal_update_ovf(struct lpt_tcal *tcal,
			const struct lpt_time_config *config);

#ifdef __cplusplus
}
#endif

#endif /* LWPT_PT_TIME_H */
