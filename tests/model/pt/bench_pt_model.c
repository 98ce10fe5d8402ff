// SPDX-License-Identifier: GPL-2.0
/*
 * Throughput of the PT model's output sink (pt_model_output()) through
 * multi-entry ToPA with INT regions and through single-range output, in
 * packet-sized writes. Prints figures; asserts nothing about speed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/pt/pt_model.h"

#define MEM_BYTES (4ull << 20)		/* flat "physical memory" at 0 */

static uint8_t *mem;

static int rd(void *ctx, uint64_t pa, void *buf, size_t len)
{
	(void)ctx;
	if (pa + len > MEM_BYTES)
		return -1;
	memcpy(buf, mem + pa, len);
	return 0;
}

static int wr(void *ctx, uint64_t pa, const void *buf, size_t len)
{
	(void)ctx;
	if (pa + len > MEM_BYTES)
		return -1;
	memcpy(mem + pa, buf, len);
	return 0;
}

static unsigned long pmis;

static void pmi(void *ctx, struct pt_model_cpu *cpu)
{
	(void)ctx;
	pmis++;
	pt_model_wrmsr(cpu, IA32_PERF_GLOBAL_STATUS_RESET, IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI);
}

static const struct pt_model_ops ops = { .read_phys = rd, .write_phys = wr, .pmi = pmi };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void run(const char *name, struct pt_model_cpu *cpu, size_t chunk, uint64_t total)
{
	static const uint8_t pkt[64] = { 0x02, 0x82 };
	uint64_t done = 0;
	double t0 = now(), dt;

	while (done < total)
		done += pt_model_output(cpu, pkt, chunk);
	dt = now() - t0;
	printf("%-36s chunk %2zu B: %8.1f MB/s, %7.1f ns/call, %lu PMIs, %llu violations\n",
	       name, chunk, done / dt / 1e6, dt / (done / chunk) * 1e9, pmis,
	       (unsigned long long)pt_model_get_stats(cpu)->violations);
	pmis = 0;
}

int main(void)
{
	static const size_t chunks[] = { 1, 8, 32 };
	struct pt_model_cpu cpu;
	uint64_t total = 256ull << 20;
	unsigned int i, c;

	mem = calloc(1, MEM_BYTES);
	if (!mem)
		return 1;
	for (c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
		/* ToPA: 16 regions of 64K (INT on every 4th), END back to the table. */
		pt_model_cpu_init(&cpu, &pt_model_profile_full, &ops, NULL, 0);
		for (i = 0; i < 16; i++) {
			uint64_t e = topa_entry_make(0x100000 + i * 0x10000ull, TOPA_SIZE_64K,
						     (i % 4 == 3) ? TOPA_ENTRY_INT : 0);

			memcpy(mem + 0x1000 + 8 * i, &e, 8);
		}
		{
			uint64_t e = topa_entry_make(0x1000, 0, TOPA_ENTRY_END);

			memcpy(mem + 0x1000 + 8 * 16, &e, 8);
		}
		pt_model_wrmsr(&cpu, IA32_RTIT_OUTPUT_BASE, 0x1000);
		pt_model_wrmsr(&cpu, IA32_RTIT_OUTPUT_MASK_PTRS, 0);
		pt_model_wrmsr(&cpu, IA32_RTIT_CTL, IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_TOPA |
			       IA32_RTIT_CTL_USER | IA32_RTIT_CTL_BRANCHEN);
		run("full, ToPA 16 x 64K, INT every 4th", &cpu, chunks[c], total);

		/* Single-range output: 1M at 0x200000. */
		pt_model_cpu_init(&cpu, &pt_model_profile_full, &ops, NULL, 0);
		pt_model_wrmsr(&cpu, IA32_RTIT_OUTPUT_BASE, 0x200000);
		pt_model_wrmsr(&cpu, IA32_RTIT_OUTPUT_MASK_PTRS, 0xfffff);
		pt_model_wrmsr(&cpu, IA32_RTIT_CTL, IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_USER |
			       IA32_RTIT_CTL_BRANCHEN);
		run("full, single range 1M", &cpu, chunks[c], total);
	}
	free(mem);
	return 0;
}
