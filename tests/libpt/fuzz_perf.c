// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the perf.data reader (issue 24 point 3, bad input):
 * every input goes through lpt_perf_open() from a memfd, and when it is
 * accepted, through every accessor and a read of every trace byte; then
 * through the capture source that reads a perf.data in place
 * (include/lwpt/capture_src.h: the model of libpt/perf_model.c, every
 * accessor, every trace loaded, every process's maps). A crash, a
 * sanitizer report, a leak or a hang is a bug; refusals are fine.
 * `make fuzz-perf` (FUZZ_SECONDS), seeded with the perf.data files of
 * $(LWPT_SHARED)/testdata/perf and repro/inputs; tests/libpt/fuzz_smoke.sh
 * runs it briefly with every `make check-unit`.
 */
#include <lwpt/capture_src.h>
#include <lwpt/perf_data.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The capture source on the same file: what ptflow and ptcov read. */
static void through_source(const char *path)
{
	const struct ptcap_addr_range *addr;
	const struct lpt_capsrc_trace *tr;
	const struct ptcap_processes *ps;
	const struct ptcap_switches *sws;
	const struct ptcap_config *cfg;
	struct lpt_capsrc_opts o;
	struct lpt_capsrc *s;
	struct ptcap_maps maps;
	size_t n, i, len;
	uint8_t *buf;

	lpt_capsrc_opts_init(&o);
	o.err = NULL;		/* no messages */
	o.symfs = "/nonexistent";	/* no code found: nothing opened */
	if (lpt_capsrc_open(path, &o, &s))
		return;
	(void)lpt_capsrc_config(s, &cfg, &addr);
	if (!lpt_capsrc_traces(s, &tr, &n))
		for (i = 0; i < n; i++)
			if (!lpt_capsrc_load(s, i, 0, 32, &buf, &len))
				free(buf);
	if (!lpt_capsrc_maps(s, &maps))
		ptcap_maps_free(&maps);
	if (!lpt_capsrc_processes(s, &ps)) {
		(void)lpt_capsrc_switches(s, &sws);
		for (i = 0; i < ps->n; i++)
			if (!lpt_capsrc_process_maps(s, i, &maps))
				ptcap_maps_free(&maps);
	}
	lpt_capsrc_close(s);
}

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
		through_source(path);
	}
	close(fd);
	return 0;
}
