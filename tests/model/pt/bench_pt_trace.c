// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark of the PT packet generator and the x86 COFI classifier: prints
 * figures, asserts nothing (machines are shared and noisy).
 *
 *   steps/s   pt_trace_step() on a loop body with a Jcc, a CALL, a RET
 *             (compressed) and an indirect JMP, RET compression on;
 *   decodes/s x86_cofi_decode() on a mix of common encodings.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <lwpt/pt_rtit.h>
#include "model/pt/pt_trace.h"

static size_t sink_bytes;

static int sink(void *ctx, const uint8_t *p, size_t n)
{
	(void)ctx;
	(void)p;
	sink_bytes += n;
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct insn {
	uint64_t ip, next;
	uint8_t len;
	uint8_t b[8];
};

/* 0x401000: nop; jne 0x401000 (taken 3 of 4); call f; jmp *%rax; f: ret */
static const struct insn body[] = {
	{ 0x401000, 0x401001, 1, { 0x90 } },
	{ 0x401001, 0x401003, 2, { 0x75, 0xfd } },
	{ 0x401003, 0x402000, 5, { 0xe8, 0xf8, 0x0f, 0x00, 0x00 } },
	{ 0x402000, 0x401008, 1, { 0xc3 } },
	{ 0x401008, 0x401000, 2, { 0xff, 0xe0 } },
};

int main(void)
{
	const size_t nsteps = 5000000;
	struct pt_trace_config cfg = { 0 };
	struct pt_trace_step s = { 0 };
	struct pt_trace tr;
	struct x86_cofi c;
	double t0, t1;
	size_t i, ndec = 20000000;
	unsigned long sum = 0;

	cfg.rtit_ctl = IA32_RTIT_CTL_TRACEEN | IA32_RTIT_CTL_USER |
		       IA32_RTIT_CTL_BRANCHEN | IA32_RTIT_CTL_TSCEN;
	cfg.emit = sink;
	if (pt_trace_init(&tr, &cfg) || pt_trace_enable(&tr, 0))
		return 1;
	s.cpl = 3;
	s.mode = X86_MODE_64;
	t0 = now();
	for (i = 0; i < nsteps; i++) {
		const struct insn *in = &body[i % 5];

		s.ip = in->ip;
		s.next_ip = in->next;
		if (i % 5 == 1 && (i / 5) % 4 == 3)
			s.next_ip = 0x401003;	/* not taken */
		memcpy(s.insn, in->b, sizeof(in->b));
		s.insn_size = in->len;
		s.tsc = i * 10;
		pt_trace_step(&tr, &s);
	}
	pt_trace_disable(&tr);
	t1 = now();
	printf("pt_trace_step: %zu steps in %.3f s: %.2f M steps/s, %zu trace bytes "
	       "(%.2f bytes/step), %llu PSB\n", nsteps, t1 - t0,
	       nsteps / (t1 - t0) / 1e6, sink_bytes, (double)sink_bytes / nsteps,
	       (unsigned long long)tr.stats.psb);

	t0 = now();
	for (i = 0; i < ndec; i++) {
		const struct insn *in = &body[i % 5];

		if (x86_cofi_decode(in->b, in->len, X86_MODE_64, &c) == 0)
			sum += c.len;
	}
	t1 = now();
	printf("x86_cofi_decode: %zu decodes in %.3f s: %.1f M decodes/s (%lu)\n",
	       ndec, t1 - t0, ndec / (t1 - t0) / 1e6, sum);
	return 0;
}
