// SPDX-License-Identifier: GPL-2.0
/*
 * lwpt: Intel PT time tracking and time calibration (SDM 33.8.3).
 *
 * See include/lwpt/pt_time.h for the model. Units used below:
 *   TSC ticks  - timestamp counter ("fast counter", FC);
 *   CTC ticks  - core crystal clock (ART), MTC payload << MTCFreq;
 *   cycles     - core clock cycles (CYC);
 *   FCR        - TSC ticks per cycle, LPT_TCAL_FCR_SHIFT fraction bits.
 */
#include <lwpt/pt_time.h>

#include <string.h>

/* CTC bits an MTC can tell apart: CTC[mtc_freq+7:0]. */
static uint32_t ctc_span_bits(const struct lpt_time_config *config)
{
	return (uint32_t)config->mtc_freq + LPT_TIME_MTC_BITS;
}

/*
 * CTC ticks from @from to @to, allowing for one wrap of the CTC bits MTC
 * carries (SDM 33.8.3.2: CTC_B - CTC_A). More than one wrap cannot be told
 * from going backwards.
 */
static int ctc_distance(uint32_t *delta, uint32_t to, uint32_t from,
			const struct lpt_time_config *config)
{
	uint64_t t = to;

	if (t < from) {
		t += 1ull << ctc_span_bits(config);
		if (t < from)
			return LPT_ERR_BAD_PACKET;
	}
	*delta = (uint32_t)(t - from);
	return 0;
}

/* CTC ticks to TSC ticks: times P = CPUID.15H:EBX / EAX (SDM 33.8.3.1). */
static int ctc_to_tsc(uint64_t *tsc, uint64_t ctc,
		      const struct lpt_time_config *config)
{
	if (!config->cpuid_0x15_eax || !config->cpuid_0x15_ebx)
		return LPT_ERR_BAD_CONFIG;

	*tsc = ctc * config->cpuid_0x15_ebx / config->cpuid_0x15_eax;
	return 0;
}

void lpt_time_init(struct lpt_time *time)
{
	if (time)
		memset(time, 0, sizeof(*time));
}

int lpt_time_query_tsc(const struct lpt_time *time, uint64_t *tsc,
		       uint32_t *lost_mtc, uint32_t *lost_cyc)
{
	if (!time || !tsc)
		return LPT_ERR_INVAL;

	*tsc = time->tsc;
	if (lost_mtc)
		*lost_mtc = time->lost_mtc;
	if (lost_cyc)
		*lost_cyc = time->lost_cyc;

	return time->have_tsc ? 0 : LPT_ERR_NO_TIME;
}

int lpt_time_query_cbr(const struct lpt_time *time, uint32_t *cbr)
{
	if (!time || !cbr)
		return LPT_ERR_INVAL;
	if (!time->have_cbr)
		return LPT_ERR_NO_CBR;

	*cbr = time->cbr;
	return 0;
}

int lpt_time_update_tsc(struct lpt_time *time, uint64_t tsc,
			const struct lpt_time_config *config)
{
	(void)config;

	if (!time)
		return LPT_ERR_INVAL;

	time->tsc = tsc;
	time->base = tsc;
	time->fc = 0;
	time->ctc = 0;
	time->have_tsc = 1;
	time->have_tma = 0;
	time->have_mtc = 0;
	/* A full timestamp: earlier losses no longer matter. */
	time->lost_mtc = 0;
	time->lost_cyc = 0;
	return 0;
}

int lpt_time_update_cbr(struct lpt_time *time, uint8_t ratio,
			const struct lpt_time_config *config)
{
	(void)config;

	if (!time)
		return LPT_ERR_INVAL;
	if (!ratio)
		return LPT_ERR_BAD_PACKET;

	time->cbr = ratio;
	time->have_cbr = 1;
	return 0;
}

int lpt_time_update_tma(struct lpt_time *time, uint16_t ctc, uint16_t fc,
			const struct lpt_time_config *config)
{
	uint32_t span;

	if (!time || !config)
		return LPT_ERR_INVAL;

	/* SDM 33.4.2.13: TMA is sent with, and only with, a TSC. */
	if (!time->have_tsc || time->have_tma)
		return LPT_ERR_BAD_CONTEXT;
	/* MTC between TSC and TMA are ignored, so none can be applied. */
	if (time->have_mtc)
		return LPT_ERR_INTERNAL;

	span = ctc_span_bits(config);

	/*
	 * The TSC was taken @fc ticks after a CTC edge: put the base on that
	 * edge so that MTC add whole CTC periods (SDM 33.8.3.2).
	 */
	time->base -= fc;
	time->fc += fc;
	time->have_tma = 1;

	/*
	 * Keep only the CTC bits an MTC can report. If TMA has all of them,
	 * it is as good as an MTC; otherwise the missing high bits are
	 * guessed at the next MTC.
	 */
	if (span < 32)
		ctc &= (uint16_t)((1u << span) - 1u);
	if (span <= LPT_TIME_TMA_CTC_BITS)
		time->have_mtc = 1;
	time->ctc = ctc;
	time->ctc_cyc = ctc;
	return 0;
}

int lpt_time_update_mtc(struct lpt_time *time, uint8_t payload,
			const struct lpt_time_config *config)
{
	const uint32_t tma_mask = (1u << LPT_TIME_TMA_CTC_BITS) - 1u;
	uint32_t ctc, last_ctc, delta;
	uint64_t ticks;
	int had_mtc, err;

	if (!time || !config)
		return LPT_ERR_INVAL;

	/* An MTC between TSC and TMA would look like a CTC overflow. */
	if (time->have_tsc && !time->have_tma)
		return 0;

	had_mtc = time->have_mtc;
	last_ctc = time->ctc;
	ctc = (uint32_t)payload << config->mtc_freq;

	/* The CTC where the CYC fast counter restarts. */
	if (time->fc || time->lost_cyc || !had_mtc)
		time->ctc_cyc = ctc;

	time->have_mtc = 1;
	time->fc = 0;
	time->ctc = ctc;
	time->lost_cyc = 0;

	if (!had_mtc) {
		uint32_t lo, hi;

		/* Without TMA we cannot tell where in its period we started. */
		if (!time->have_tma)
			return 0;
		if (last_ctc & ~tma_mask)
			return LPT_ERR_INTERNAL;

		/*
		 * TMA gave CTC[15:0] only; take the bits above from this
		 * MTC, one TMA period back if the low bits wrapped. Assumes no
		 * MTC was lost around the TMA.
		 */
		lo = ctc & tma_mask;
		hi = ctc & ~tma_mask;
		if (lo < last_ctc) {
			hi -= 1u << LPT_TIME_TMA_CTC_BITS;
			hi &= ((1u << LPT_TIME_MTC_BITS) - 1u) <<
			      config->mtc_freq;
		}
		last_ctc |= hi;
	}

	err = ctc_distance(&delta, ctc, last_ctc, config);
	if (err < 0) {
		time->lost_mtc++;
		return err;
	}
	err = ctc_to_tsc(&ticks, delta, config);
	if (err < 0)
		return err;

	time->base += ticks;
	time->tsc = time->base;
	return 0;
}

/*
 * A CYC counts cycles since the previous CYC, which may lie before the last
 * MTC. For the first CYC after an MTC, remove the cycles that the
 * calibration says fall into the earlier MTC periods; if that is more than
 * the CYC holds, the whole CYC belongs to them.
 */
static int cyc_this_period(uint64_t *cyc, const struct lpt_time *time,
			   const struct lpt_time_config *config, uint64_t fcr)
{
	uint32_t delta;
	uint64_t ticks, before;
	int err;

	if (time->ctc == time->ctc_cyc)
		return 0;

	err = ctc_distance(&delta, time->ctc, time->ctc_cyc, config);
	if (err < 0)
		return err;
	err = ctc_to_tsc(&ticks, delta, config);
	if (err < 0)
		return err;

	before = (ticks << LPT_TCAL_FCR_SHIFT) / fcr;
	*cyc = *cyc > before ? *cyc - before : 0;
	return 0;
}

int lpt_time_update_cyc(struct lpt_time *time, uint64_t cyc,
			const struct lpt_time_config *config, uint64_t fcr)
{
	uint64_t fc;

	if (!time || !config)
		return LPT_ERR_INVAL;

	if (!fcr) {
		time->lost_cyc++;
		return 0;
	}

	fc = time->fc;
	if (!fc) {
		int err = cyc_this_period(&cyc, time, config, fcr);

		if (err < 0)
			return err;
	}

	fc += (cyc * fcr) >> LPT_TCAL_FCR_SHIFT;
	time->fc = fc;
	time->tsc = time->base + fc;
	return 0;
}

void lpt_tcal_init(struct lpt_tcal *tcal)
{
	if (!tcal)
		return;

	memset(tcal, 0, sizeof(*tcal));
	tcal->min_fcr = UINT64_MAX;
}

static int tcal_have_fcr(const struct lpt_tcal *tcal)
{
	return tcal->min_fcr <= tcal->max_fcr;
}

int lpt_tcal_fcr(const struct lpt_tcal *tcal, uint64_t *fcr)
{
	if (!tcal || !fcr)
		return LPT_ERR_INVAL;
	if (!tcal_have_fcr(tcal))
		return LPT_ERR_NO_TIME;

	*fcr = tcal->fcr;
	return 0;
}

int lpt_tcal_set_fcr(struct lpt_tcal *tcal, uint64_t fcr)
{
	if (!tcal)
		return LPT_ERR_INVAL;

	tcal->fcr = fcr;
	if (fcr < tcal->min_fcr)
		tcal->min_fcr = fcr;
	if (fcr > tcal->max_fcr)
		tcal->max_fcr = fcr;
	return 0;
}

int lpt_tcal_update_psb(struct lpt_tcal *tcal,
			const struct lpt_time_config *config)
{
	if (!tcal || !config)
		return LPT_ERR_INVAL;

	if (config->errata_skl168)
		tcal->check_skl168 = 1;
	return 0;
}

int lpt_tcal_update_tsc(struct lpt_tcal *tcal, uint64_t tsc,
			const struct lpt_time_config *config)
{
	(void)config;

	if (!tcal)
		return LPT_ERR_INVAL;

	tcal->tsc = tsc;
	tcal->cyc_tsc = 0;
	return 0;
}

/* Whether @ticks << LPT_TCAL_FCR_SHIFT fits in 64 bits. */
static int fcr_fits(uint64_t ticks)
{
	return !(ticks >> (64 - LPT_TCAL_FCR_SHIFT));
}

int lpt_tcal_header_tsc(struct lpt_tcal *tcal, uint64_t tsc,
			const struct lpt_time_config *config)
{
	uint64_t last_tsc, cyc, delta;

	(void)config;

	if (!tcal)
		return LPT_ERR_INVAL;

	last_tsc = tcal->tsc;
	cyc = tcal->cyc_tsc;
	tcal->tsc = tsc;
	tcal->cyc_tsc = 0;

	if (!last_tsc || !cyc)
		return 0;
	/* MTC measure shorter, regular intervals: prefer them. */
	if (tcal->have_mtc)
		return 0;

	if (tsc < last_tsc) {
		tsc += 1ull << LPT_TIME_TSC_BITS;
		if (tsc < last_tsc)
			return LPT_ERR_BAD_PACKET;
	}
	delta = tsc - last_tsc;
	if (!fcr_fits(delta))
		return LPT_ERR_OVERFLOW;

	return lpt_tcal_set_fcr(tcal, (delta << LPT_TCAL_FCR_SHIFT) / cyc);
}

int lpt_tcal_update_cbr(struct lpt_tcal *tcal, uint8_t ratio,
			const struct lpt_time_config *config)
{
	if (!tcal)
		return LPT_ERR_INVAL;

	/* The core frequency changed: earlier measurements are void. */
	lpt_tcal_init(tcal);
	return lpt_tcal_header_cbr(tcal, ratio, config);
}

int lpt_tcal_header_cbr(struct lpt_tcal *tcal, uint8_t ratio,
			const struct lpt_time_config *config)
{
	uint64_t p1;

	if (!tcal || !config)
		return LPT_ERR_INVAL;

	p1 = config->nom_freq;
	if (!p1)
		return 0;
	if (!ratio)
		return LPT_ERR_BAD_PACKET;

	/* TSC ticks at P1 per core cycle at CBR (SDM 33.8.3.2). */
	return lpt_tcal_set_fcr(tcal, (p1 << LPT_TCAL_FCR_SHIFT) / ratio);
}

int lpt_tcal_update_tma(struct lpt_tcal *tcal, uint16_t ctc, uint16_t fc,
			const struct lpt_time_config *config)
{
	(void)ctc;
	(void)fc;
	(void)config;

	return tcal ? 0 : LPT_ERR_INVAL;
}

int lpt_tcal_update_mtc(struct lpt_tcal *tcal, uint8_t payload,
			const struct lpt_time_config *config)
{
	uint32_t last_ctc, ctc, delta;
	uint64_t cyc, ticks, fcr;
	int skl168, err;

	if (!tcal || !config)
		return LPT_ERR_INVAL;

	last_ctc = tcal->ctc;
	cyc = tcal->cyc_mtc;
	skl168 = tcal->check_skl168;
	tcal->check_skl168 = 0;

	ctc = (uint32_t)payload << config->mtc_freq;

	/* A measurement needs two MTC. */
	if (!tcal->have_mtc) {
		tcal->have_mtc = 1;
		tcal->ctc = ctc;
		tcal->cyc_mtc = 0;
		return 0;
	}
	/* No cycles yet: measure over the longer period up to the next MTC. */
	if (!cyc)
		return 0;

	tcal->ctc = ctc;
	tcal->cyc_mtc = 0;
	tcal->lost_mtc++;	/* undone below on success */

	err = ctc_distance(&delta, ctc, last_ctc, config);
	if (err < 0)
		return err;
	err = ctc_to_tsc(&ticks, delta, config);
	if (err < 0)
		return err;
	if (!fcr_fits(ticks))
		return LPT_ERR_OVERFLOW;

	fcr = (ticks << LPT_TCAL_FCR_SHIFT) / cyc;

	/*
	 * SKL168: a CYC right before PSB may be dropped. Skip the first MTC
	 * after PSB if MTC were lost in between, or if (for short MTC periods
	 * and with a previous calibration to compare with) fewer cycles than
	 * expected arrived: a dropped CYC wraps every 4096 cycles, so allow
	 * 0xf00 for normal variation.
	 */
	if (skl168) {
		if ((1u << config->mtc_freq) < delta)
			return 0;
		if (config->mtc_freq < 10 && tcal_have_fcr(tcal)) {
			uint64_t expect = (tcal->fcr * (cyc + 0xf00)) >>
					  LPT_TCAL_FCR_SHIFT;

			if (expect < ticks)
				return 0;
		}
	}

	lpt_tcal_set_fcr(tcal, fcr);
	tcal->lost_mtc = 0;
	return 0;
}

int lpt_tcal_update_cyc(struct lpt_tcal *tcal, uint64_t cyc,
			const struct lpt_time_config *config)
{
	(void)config;

	if (!tcal)
		return LPT_ERR_INVAL;

	tcal->cyc_mtc += cyc;
	tcal->cyc_tsc += cyc;
	return 0;
}

int lpt_tcal_update_ovf(struct lpt_tcal *tcal,
			const struct lpt_time_config *config)
{
	if (!tcal || !config)
		return LPT_ERR_INVAL;

	tcal->tsc = 0;
	tcal->cyc_tsc = 0;
	tcal->cyc_mtc = 0;
	tcal->ctc = 0;
	tcal->have_mtc = 0;
	return 0;
}
