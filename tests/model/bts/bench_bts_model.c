// SPDX-License-Identifier: GPL-2.0
/*
 * What a branch costs in the branch-recording model (issue 37 "Targets":
 * "on the model say what a record costs"): bts_model_branch() per event
 * with BTS into a circular buffer, into a buffer drained at the threshold,
 * with the LBR stack only, and with both. Prints figures; asserts nothing
 * about speed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model/bts/bts_model.h"

#define LA_BASE		0x10000000ull
#define MEM_BYTES	(1ull << 20)
#define DS_LA		LA_BASE
#define BUF_LA		(LA_BASE + 0x1000)
#define NREC		((MEM_BYTES - 0x1000) / BTS_RECORD_SIZE)

static uint8_t *mem;
static unsigned long pmis;

static int rd(void *ctx, uint64_t la, void *buf, size_t len)
{
	(void)ctx;
	if (la < LA_BASE || la - LA_BASE + len > MEM_BYTES)
		return -1;
	memcpy(buf, mem + (la - LA_BASE), len);
	return 0;
}

static int wr(void *ctx, uint64_t la, const void *buf, size_t len)
{
	(void)ctx;
	if (la < LA_BASE || la - LA_BASE + len > MEM_BYTES)
		return -1;
	memcpy(mem + (la - LA_BASE), buf, len);
	return 0;
}

/* A drain: the index back to the base (the records are not copied). */
static void pmi(void *ctx, struct bts_model_cpu *cpu)
{
	uint64_t base = BUF_LA;

	(void)ctx;
	(void)cpu;
	pmis++;
	memcpy(mem + (DS_LA + DS_BTS_INDEX - LA_BASE), &base, 8);
}

static const struct bts_model_ops ops = { .read_lin = rd, .write_lin = wr, .pmi = pmi };

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void put64(uint64_t la, uint64_t v)
{
	memcpy(mem + (la - LA_BASE), &v, 8);
}

static void run(const char *name, uint64_t debugctl, uint64_t thresh)
{
	struct bts_model_cpu cpu;
	struct bts_branch br = { .kind = BTS_BR_JCC, .cpl = 3, .mode = X86_MODE_64 };
	const uint64_t n = 20000000;
	double t0, dt;
	uint64_t i;

	put64(DS_LA + DS_BTS_BUFFER_BASE, BUF_LA);
	put64(DS_LA + DS_BTS_INDEX, BUF_LA);
	put64(DS_LA + DS_BTS_ABSOLUTE_MAXIMUM, BUF_LA + NREC * BTS_RECORD_SIZE);
	put64(DS_LA + DS_BTS_INTERRUPT_THRESHOLD, thresh);
	bts_model_cpu_init(&cpu, &bts_model_profile_nhm, &ops, NULL, 0);
	bts_model_wrmsr(&cpu, IA32_DS_AREA, DS_LA);
	bts_model_wrmsr(&cpu, IA32_DEBUGCTL, debugctl);
	pmis = 0;
	t0 = now();
	for (i = 0; i < n; i++) {
		br.from = 0x401000 + (i & 0xfff);
		br.to = 0x402000 + (i & 0xfff);
		bts_model_branch(&cpu, &br);
	}
	dt = now() - t0;
	printf("%-40s %6.1f ns/branch, %8.1f M branches/s, %llu records (%llu bytes), %lu PMIs\n",
	       name, dt / n * 1e9, n / dt / 1e6,
	       (unsigned long long)bts_model_get_stats(&cpu)->bts_records,
	       (unsigned long long)bts_model_get_stats(&cpu)->bts_records * BTS_RECORD_SIZE,
	       pmis);
}

int main(void)
{
	const uint64_t bts = IA32_DEBUGCTL_TR | IA32_DEBUGCTL_BTS;
	const uint64_t past = BUF_LA + (NREC + 1) * BTS_RECORD_SIZE;

	mem = calloc(1, MEM_BYTES);
	if (!mem)
		return 1;
	run("BTS, circular buffer", bts, past);
	run("BTS + BTINT, drained at the threshold", bts | IA32_DEBUGCTL_BTINT,
	    BUF_LA + (NREC - 64) * BTS_RECORD_SIZE);
	run("LBR only", IA32_DEBUGCTL_LBR, past);
	run("BTS and LBR", bts | IA32_DEBUGCTL_LBR, past);
	run("nothing enabled", 0, past);
	free(mem);
	return 0;
}
