// SPDX-License-Identifier: GPL-2.0
/*
 * bench_ptflow_sym: symbol lookups per second of ptflow's symbol table
 * (tools/ptflow/ptflow_sym.c, libdwfl), as ptflow does them for every
 * printed instruction:
 *
 *   - "same function": consecutive addresses inside one function, the
 *     instruction flow's common case, served by the last result;
 *   - "alternating": addresses of two functions of libc in turn (a loop
 *     calling a function), served by the cache after the first lookup;
 *   - "spread": 4096 addresses spread over libc, more than the cache
 *     holds: most are binary searches in libc's address table;
 *   - "libdwfl each time": the same addresses through
 *     ptflow_sym_lookup_dwfl(), a dwfl_module_addrinfo() each (a scan of
 *     the symbol table), what every lookup cost before the caches.
 *
 * The table holds every file mapped in this process (/proc/self/maps, as
 * ptcap's `maps`). Times are thread CPU time; the best of 5 rounds of at
 * least 0.2 s. A benchmark, not a test: it prints figures, never fails.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tools/ptflow/ptflow_sym.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static struct ptflow_sym *self_symbols(void)
{
	struct ptflow_sym *sym = ptflow_sym_alloc(NULL, "bench");
	static char maps[1 << 17];
	char line[4096];
	size_t n;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!sym || !f)
		exit(1);
	n = fread(maps, 1, sizeof(maps) - 1, f);
	fclose(f);
	f = fmemopen(maps, n, "r");
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char path[3000] = "";

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %2999s", &s, &e,
			   &off, path) >= 3 && path[0] == '/')
			ptflow_sym_add_mapping(sym, path, s, off);
	}
	if (f)
		fclose(f);
	return sym;
}

/* Lookups per second of the @n addresses @addr, cycled; @dwfl: through
 * ptflow_sym_lookup_dwfl(). */
static double rate(struct ptflow_sym *sym, const uint64_t *addr, size_t n,
		   int dwfl)
{
	double best = 0;
	int round;

	for (round = 0; round < 5; round++) {
		double t0 = cpu_now(), t;
		uint64_t count = 0;
		struct ptflow_symbol s;

		do {
			size_t i;

			for (i = 0; i < 10000; i++) {
				if (dwfl)
					(void)ptflow_sym_lookup_dwfl(sym,
								     addr[i % n],
								     &s);
				else
					(void)ptflow_sym_lookup(sym,
								addr[i % n],
								false, &s);
			}
			count += 10000;
			t = cpu_now() - t0;
		} while (t < 0.2);
		if (count / t > best)
			best = (double)count / t;
	}
	return best;
}

int main(void)
{
	static const char *const big[] = { "fclose", "malloc", "qsort_r",
					    "fopen", "printf" };
	struct ptflow_sym *sym = self_symbols();
	static uint64_t spread[4096];
	uint64_t same[16], alt[2], f = 0;
	struct ptflow_symbol s;
	size_t i;

	/* A libc function of at least 64 bytes for the cached case. */
	for (i = 0; i < sizeof(big) / sizeof(big[0]) && !f; i++) {
		f = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, big[i]);
		if (!ptflow_sym_lookup(sym, f, false, &s) || s.size < 64)
			f = 0;
	}
	if (!f) {
		printf("bench_ptflow_sym: no libc symbol to look up\n");
		return 0;
	}
	for (i = 0; i < 16; i++)
		same[i] = f + i * 4;
	alt[0] = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "qsort");
	alt[1] = (uint64_t)(uintptr_t)dlsym(RTLD_DEFAULT, "fopen");
	printf("bench_ptflow_sym: symbol lookups (libdwfl, libc's table)\n");
	for (i = 0; i < 4096; i++)
		spread[i] = f + i * 4096 + 64 * (i % 64);
	printf("  same function:     %10.3f M lookups/s\n",
	       rate(sym, same, 16, 0) / 1e6);
	printf("  alternating:       %10.3f M lookups/s\n",
	       rate(sym, alt, 2, 0) / 1e6);
	printf("  spread:            %10.3f M lookups/s (4096 addresses: "
	       "the address table)\n", rate(sym, spread, 4096, 0) / 1e6);
	printf("  libdwfl each time: %10.3f M lookups/s (the same "
	       "addresses, dwfl_module_addrinfo() each)\n",
	       rate(sym, spread, 4096, 1) / 1e6);
	ptflow_sym_free(sym);
	return 0;
}
