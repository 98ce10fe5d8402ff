// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the perf.data reader (issue 24 point 3, bad input):
 * every input goes through lpt_perf_open() from a memfd, and when it is
 * accepted, through every accessor and a read of every trace byte. A
 * crash, a sanitizer report, a leak or a hang is a bug; refusals are fine.
 * `make fuzz-perf` (FUZZ_SECONDS), seeded with the perf.data files of
 * $(LWPT_SHARED)/testdata/perf and repro/inputs; tests/libpt/fuzz_smoke.sh
 * runs it briefly with every `make check-unit`.
 */
#include <lwpt/perf_data.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	struct lpt_perf *p;
	uint8_t buf[4096];
	size_t i, n;
	int fd = memfd_create("fuzz_perf", 0);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (!lpt_perf_open(path, NULL, &p)) {
		for (i = 0; i < lpt_perf_ntraces(p); i++) {
			const struct lpt_perf_trace *t = lpt_perf_trace(p, i);
			uint64_t off = 0;
			int64_t got;

			while ((got = lpt_perf_trace_read(p, i, off, buf, sizeof(buf))) > 0)
				off += (uint64_t)got;
			if (off != t->size)
				abort();
		}
		(void)lpt_perf_maps(p, &n);
		(void)lpt_perf_tasks(p, &n);
		(void)lpt_perf_switches(p, &n);
		(void)lpt_perf_build_ids(p, &n);
		(void)lpt_perf_tsc_to_ns(p, lpt_perf_ns_to_tsc(p, 12345));
		lpt_perf_close(p);
	}
	close(fd);
	return 0;
}
