// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * Binding of the packet generator (trace.c) to the PT core model
 * (pt_model.c): output through the core's ToPA / single-range logic, PSB
 * period from its PacketByteCnt, enables and TraceStop into its
 * IA32_RTIT_STATUS. See pt_trace.h, pt_trace_model_config().
 */
#include "model/pt/pt_trace.h"
#include "model/pt/pt_model.h"

static int model_emit(void *ctx, const uint8_t *bytes, size_t len)
{
	struct pt_model_cpu *cpu = ctx;

	/* Output stopped (STOP region, operational error, TraceEn=0). */
	if (!pt_model_trigger_en(cpu))
		return -EIO;
	return pt_model_output(cpu, bytes, len) == len ? 0 : -EIO;
}

static bool model_psb_due(void *ctx)
{
	return pt_model_psb_due(ctx);
}

static void model_psb_begin(void *ctx)
{
	pt_model_psb_begin(ctx);
}

static void model_enables(void *ctx, bool context_en, bool filter_en)
{
	pt_model_set_enables(ctx, context_en, filter_en);
}

static void model_trace_stop(void *ctx)
{
	pt_model_trace_stop(ctx);
}

static const struct pt_trace_hooks model_hooks = {
	.psb_due = model_psb_due,
	.psb_begin = model_psb_begin,
	.enables = model_enables,
	.trace_stop = model_trace_stop,
};

int pt_trace_model_config(struct pt_trace_config *cfg, struct pt_model_cpu *cpu,
			  uint8_t cbr, uint32_t tsc_art_num, uint32_t tsc_art_den)
{
	unsigned int n;

	if (!cfg || !cpu)
		return -EINVAL;
	memset(cfg, 0, sizeof(*cfg));
	cfg->rtit_ctl = pt_model_ctl(cpu);
	cfg->cr3_match = cpu->cr3_match;
	cfg->nr_ranges = pt_cpuid_cap(&cpu->prof->leaf, PT_CPUID_CAP_NUM_RANGES);
	if (cfg->nr_ranges > PT_TRACE_MAX_RANGES)
		cfg->nr_ranges = PT_TRACE_MAX_RANGES;
	for (n = 0; n < cfg->nr_ranges && n < PT_ADDR_RANGES_MAX; n++) {
		cfg->addr_a[n] = cpu->addr_a[n];
		cfg->addr_b[n] = cpu->addr_b[n];
	}
	cfg->cbr = cbr;
	cfg->tsc_art_num = tsc_art_num;
	cfg->tsc_art_den = tsc_art_den;
	cfg->emit = model_emit;
	cfg->emit_ctx = cpu;
	cfg->hooks = &model_hooks;
	return 0;
}
