// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of libpt's perf.data writer (libpt/perf_write.c,
 * include/lwpt/perf_write.h; issue 24 point 2): perf's TSC conversion
 * (tools/perf/util/tsc.c, the DynamoRIO recording's time_shift 31 and
 * time_mult 581029125 at 3.696 GHz, shared/testdata/pt/README.md), the
 * file layout of perf.data-file-format.txt, and a round trip through
 * libpt's own reader (include/lwpt/perf_data.h) in file format and in
 * pipe format (perf.data-file-format.txt "Pipe-mode data", the record
 * order of util/synthetic-events.c perf_event__synthesize_for_pipe(),
 * written to a stream that cannot seek). perf itself reads the
 * writer's output in tests/tools/pt2perf/pt2perf.sh.
 */
#include <check.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <lwpt/perf_data.h>
#include <lwpt/perf_file.h>
#include <lwpt/perf_write.h>
#include "tests/check_run.h"

START_TEST(tc_dynamorio)
{
	struct lpt_perf_tc tc;

	lpt_perf_tc_from_hz(&tc, 3696000000ull);
	ck_assert_uint_eq(tc.shift, 31);
	ck_assert_uint_eq(tc.mult, 581029125u);
	ck_assert_uint_eq(tc.zero, 0);
	ck_assert_uint_eq(lpt_perf_tsc_to_time(&tc, 1ull << 31), 581029125u);
	/* quot * mult + (rem * mult >> shift), no 64-bit overflow. */
	ck_assert_uint_eq(lpt_perf_tsc_to_time(&tc, 0x2fa1088fb28645ull),
			  3627267866766000ull);
	lpt_perf_tc_from_hz(&tc, 0);
	ck_assert_uint_eq(tc.shift, 0);
	ck_assert_uint_eq(tc.mult, 1);
	ck_assert_uint_eq(lpt_perf_tsc_to_time(&tc, 12345), 12345);
	/* 1 GHz: the largest shift with mult below 2^32 is 31 (mult 2^31). */
	lpt_perf_tc_from_hz(&tc, 1000000000ull);
	ck_assert_uint_eq(tc.shift, 31);
	ck_assert_uint_eq(tc.mult, 1u << 31);
	ck_assert_uint_eq(lpt_perf_tsc_to_time(&tc, 777), 777);
}
END_TEST

static struct perf_event_attr test_attr(void)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.type = 8;
	a.config = 0x2601;
	a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER;
	a.sample_id_all = 1;
	a.mmap2 = 1;
	a.comm = 1;
	a.context_switch = 1;
	return a;
}

START_TEST(open_refuses)
{
	struct perf_event_attr a = test_attr();
	struct lpt_perf_writer *w = NULL;
	FILE *f = tmpfile();

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(lpt_perf_writer_open(f, &a, "x", 0, &w), -EINVAL);
	a.sample_id_all = 0;
	ck_assert_int_eq(lpt_perf_writer_open(f, &a, "x", 1, &w), -EINVAL);
	a = test_attr();
	a.sample_type &= ~(uint64_t)PERF_SAMPLE_IDENTIFIER;
	ck_assert_int_eq(lpt_perf_writer_open(f, &a, "x", 1, &w), -EINVAL);
	ck_assert_int_eq(lpt_perf_writer_open(NULL, &a, "x", 1, &w), -EINVAL);
	ck_assert_int_eq(lpt_perf_writer_close(NULL), 0);
	fclose(f);
}
END_TEST

/* Write a small per-CPU file, check its layout, read it back. */
START_TEST(round_trip)
{
	static const uint8_t trace[5] = { 0x02, 0x82, 0x02, 0x82, 0x00 };
	static const uint8_t bid[20] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
					 15, 16, 17, 18, 19, 20 };
	char path[] = "/tmp/test_perf_write.XXXXXX";
	struct perf_event_attr a = test_attr();
	struct lpt_perf_writer *w;
	struct lpt_perf_sid sid = { .pid = 7, .tid = 8, .time = 1000, .cpu = 0 };
	struct lpt_perf_mmap m = {
		.pid = 7, .tid = 7, .start = 0x401000, .len = 0x1000, .pgoff = 0x1000,
		.prot = PROT_READ | PROT_EXEC, .flags = MAP_PRIVATE,
		.build_id = bid, .build_id_size = 20, .filename = "/bin/prog",
	};
	struct lpt_perf_aux aux = { .offset = 0, .reference = 5, .idx = 0,
				    .tid = UINT32_MAX, .cpu = 0 };
	struct lpt_perf_tc tc;
	struct perf_file_header fh;
	uint64_t priv[PERF_INTEL_PT_INFO_MAX + 1] = { 0 };
	const struct lpt_perf_info *info;
	const struct lpt_perf_trace *t;
	const struct lpt_perf_map *maps;
	const struct lpt_perf_task *tasks;
	const struct lpt_perf_switch *sws;
	struct lpt_perf_opts o;
	struct lpt_perf *p = NULL;
	size_t n;
	int fd = mkstemp(path);
	FILE *f;

	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w+b");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(lpt_perf_writer_open(f, &a, "intel_pt//u", 1, &w), 0);
	lpt_perf_tc_from_hz(&tc, 3696000000ull);
	priv[PERF_INTEL_PT_PMU_TYPE] = 8;
	priv[PERF_INTEL_PT_TIME_SHIFT] = tc.shift;
	priv[PERF_INTEL_PT_TIME_MULT] = tc.mult;
	priv[PERF_INTEL_PT_CAP_USER_TIME_ZERO] = 1;
	priv[PERF_INTEL_PT_TSC_BIT] = 0x400;
	priv[PERF_INTEL_PT_HAVE_SCHED_SWITCH] = 2;
	priv[PERF_INTEL_PT_PER_CPU_MMAPS] = 1;
	priv[PERF_INTEL_PT_TSC_CTC_N] = 308;
	priv[PERF_INTEL_PT_TSC_CTC_D] = 2;
	priv[PERF_INTEL_PT_MAX_NONTURBO_RATIO] = 37;
	ck_assert_int_eq(lpt_perf_write_auxtrace_info(w, PERF_AUXTRACE_INTEL_PT, priv,
						      PERF_INTEL_PT_INFO_MAX + 1), 0);
	ck_assert_int_eq(lpt_perf_write_time_conv(w, &tc, true), 0);
	ck_assert_int_eq(lpt_perf_write_comm(w, 7, 8, "a-very-long-command-name", false,
					     &sid), 0);
	ck_assert_int_eq(lpt_perf_write_mmap2(w, &m, &sid), 0);
	ck_assert_int_eq(lpt_perf_write_switch(w, true, true, 9, 9, &sid), 0);
	ck_assert_int_eq(lpt_perf_write_switch(w, false, false, 7, 8, &sid), 0);
	ck_assert_int_eq(lpt_perf_write_auxtrace(w, trace, sizeof(trace), &aux), 0);
	aux.offset = 8;
	ck_assert_int_eq(lpt_perf_write_auxtrace(w, trace, sizeof(trace), &aux), 0);
	ck_assert_int_eq(lpt_perf_write_auxtrace(w, trace, 0, &aux), -EINVAL);
	ck_assert_int_eq(lpt_perf_add_build_id(w, -1, PERF_RECORD_MISC_USER, bid, 20,
					       "/bin/prog"), 0);
	ck_assert_int_eq(lpt_perf_set_string(w, PERF_HEADER_CPUID, "GenuineIntel,6,85,4"), 0);
	ck_assert_int_eq(lpt_perf_set_string(w, PERF_HEADER_NRCPUS, "x"), -EINVAL);
	lpt_perf_set_nrcpus(w, 2, 2);
	ck_assert_int_eq(lpt_perf_writer_close(w), 0);

	/* The layout: header, one id, one attr, then the data. */
	rewind(f);
	ck_assert_uint_eq(fread(&fh, sizeof(fh), 1, f), 1);
	ck_assert_uint_eq(fh.magic, PERF_FILE_MAGIC);
	ck_assert_uint_eq(fh.size, sizeof(fh));
	ck_assert_uint_eq(fh.attr_size, sizeof(struct perf_event_attr) + 16);
	ck_assert_uint_eq(fh.attrs.offset, sizeof(fh) + 8);
	ck_assert_uint_eq(fh.data.offset, fh.attrs.offset + fh.attr_size);
	ck_assert(fh.features[0] & (1ull << PERF_HEADER_EVENT_DESC));
	ck_assert(fh.features[0] & (1ull << PERF_HEADER_AUXTRACE));
	ck_assert(fh.features[0] & (1ull << PERF_HEADER_BUILD_ID));
	ck_assert(fh.features[0] & (1ull << PERF_HEADER_CPUID));
	ck_assert(!(fh.features[0] & (1ull << PERF_HEADER_HOSTNAME)));
	fclose(f);

	/* libpt's reader sees what was written. */
	lpt_perf_opts_init(&o);
	ck_assert_int_eq(lpt_perf_open(path, &o, &p), 0);
	info = lpt_perf_info(p);
	ck_assert(info->per_cpu);
	ck_assert(info->has_index);
	ck_assert(info->has_time_conv);
	ck_assert_uint_eq(info->time_shift, 31);
	ck_assert_uint_eq(info->time_mult, 581029125u);
	ck_assert_uint_eq(info->pt_config, 0x2601);
	ck_assert_uint_eq(info->pmu_type, 8);
	ck_assert_uint_eq(info->tsc_ctc_n, 308);
	ck_assert_uint_eq(info->max_nonturbo_ratio, 37);
	ck_assert_str_eq(info->cpuid, "GenuineIntel,6,85,4");
	ck_assert_str_eq(info->event_name, "intel_pt//u");
	ck_assert_uint_eq(lpt_perf_ntraces(p), 1);
	t = lpt_perf_trace(p, 0);
	ck_assert_int_eq(t->cpu, 0);
	ck_assert_uint_eq(t->nbufs, 2);
	ck_assert_uint_eq(t->size, 16);	/* 5 bytes padded to 8, twice */
	maps = lpt_perf_maps(p, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(maps[0].start, 0x401000);
	ck_assert_uint_eq(maps[0].pgoff, 0x1000);
	ck_assert_uint_eq(maps[0].build_id_size, 20);
	ck_assert_mem_eq(maps[0].build_id, bid, 20);
	ck_assert_str_eq(maps[0].path, "/bin/prog");
	tasks = lpt_perf_tasks(p, &n);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(tasks[0].tid, 8);
	ck_assert_uint_eq(tasks[0].time, 1000);
	ck_assert_str_eq(tasks[0].comm, "a-very-long-com");	/* 15 + NUL */
	sws = lpt_perf_switches(p, &n);
	ck_assert_uint_eq(n, 2);
	ck_assert(sws[0].out && sws[0].preempt && sws[0].cpu_wide);
	ck_assert_int_eq(sws[0].other_tid, 9);
	ck_assert(!sws[1].out);
	ck_assert_int_eq(sws[1].tid, 8);
	lpt_perf_close(p);
	unlink(path);
}
END_TEST

/* A stream that cannot seek (a pipe's behaviour), into memory. */
struct mem {
	uint8_t b[8192];
	size_t n;
};

static ssize_t mem_write(void *c, const char *buf, size_t size)
{
	struct mem *m = c;

	ck_assert_uint_le(m->n + size, sizeof(m->b));
	memcpy(m->b + m->n, buf, size);
	m->n += size;
	return (ssize_t)size;
}

static int mem_seek(void *c, off64_t *off, int whence)
{
	(void)c;
	(void)off;
	(void)whence;
	ck_abort_msg("the pipe writer seeked");
	return -1;
}

START_TEST(pipe_round_trip)
{
	static const uint8_t trace[8] = { 0x02, 0x82, 0x02, 0x82, 0, 0, 0, 0 };
	static const uint8_t bid[4] = { 0xde, 0xad, 0xbe, 0xef };
	cookie_io_functions_t io = { .write = mem_write, .seek = mem_seek };
	struct perf_event_attr a = test_attr();
	struct lpt_perf_sid sid = { .pid = 7, .tid = 7, .time = 1000, .cpu = 0 };
	struct lpt_perf_aux aux = { .offset = 0, .idx = 0, .tid = 7, .cpu = UINT32_MAX };
	uint64_t priv[PERF_INTEL_PT_INFO_MAX + 1] = { 0 }, itrace = 0x0000000700000007ull;
	struct perf_event_header h;
	struct lpt_perf_writer *w;
	static struct mem m;
	const struct lpt_perf_info *info;
	struct lpt_perf *p;
	uint64_t feat;
	char path[] = "/tmp/test_perf_write.XXXXXX";
	size_t at, nfeat = 0;
	int fd;
	FILE *f = fopencookie(&m, "w", io);

	ck_assert_ptr_nonnull(f);
	setvbuf(f, NULL, _IONBF, 0);
	ck_assert_int_eq(lpt_perf_writer_open_pipe(f, &a, "intel_pt//u", 3, &w), 0);
	ck_assert_int_eq(lpt_perf_set_string(w, PERF_HEADER_CPUID, "GenuineIntel,6,85,4"), 0);
	lpt_perf_set_nrcpus(w, 4, 4);
	priv[PERF_INTEL_PT_PMU_TYPE] = 8;
	ck_assert_int_eq(lpt_perf_write_auxtrace_info(w, PERF_AUXTRACE_INTEL_PT, priv,
						      PERF_INTEL_PT_INFO_MAX + 1), 0);
	/* the features went out with the first record */
	ck_assert_int_eq(lpt_perf_set_string(w, PERF_HEADER_HOSTNAME, "late"), -EBUSY);
	ck_assert_int_eq(lpt_perf_write_comm(w, 7, 7, "prog", true, &sid), 0);
	ck_assert_int_eq(lpt_perf_write_record(w, PERF_RECORD_ITRACE_START, 0, &itrace,
					       sizeof(itrace), &sid), 0);
	ck_assert_int_eq(lpt_perf_write_record(w, PERF_RECORD_ITRACE_START, 0, NULL, 70000,
					       NULL), -EINVAL);
	ck_assert_int_eq(lpt_perf_add_build_id(w, -1, PERF_RECORD_MISC_USER, bid, 4,
					       "/bin/prog"), 0);
	ck_assert_int_eq(lpt_perf_write_auxtrace(w, trace, sizeof(trace), &aux), 0);
	ck_assert_int_eq(lpt_perf_writer_close(w), 0);
	fclose(f);

	/* The order: header, HEADER_ATTR with the id, the features in bit
	 * order and the LAST_FEATURE mark, then the data. */
	ck_assert_uint_eq(*(uint64_t *)m.b, PERF_FILE_MAGIC);
	ck_assert_uint_eq(*(uint64_t *)(m.b + 8), 16);
	memcpy(&h, m.b + 16, sizeof(h));
	ck_assert_uint_eq(h.type, PERF_RECORD_HEADER_ATTR);
	ck_assert_uint_eq(h.size, 8 + sizeof(a) + 8);
	ck_assert_uint_eq(*(uint64_t *)(m.b + 16 + 8 + sizeof(a)), 3);
	at = 16 + h.size;
	for (;;) {
		memcpy(&h, m.b + at, sizeof(h));
		ck_assert_uint_eq(h.type, PERF_RECORD_HEADER_FEATURE);
		memcpy(&feat, m.b + at + 8, 8);
		at += h.size;
		if (feat == PERF_HEADER_LAST_FEATURE)
			break;
		ck_assert(feat == PERF_HEADER_NRCPUS || feat == PERF_HEADER_CPUID ||
			  feat == PERF_HEADER_EVENT_DESC);
		nfeat++;
	}
	ck_assert_uint_eq(nfeat, 3);
	memcpy(&h, m.b + at, sizeof(h));
	ck_assert_uint_eq(h.type, PERF_RECORD_AUXTRACE_INFO);

	/* libpt's reader sees what was written. */
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, m.b, m.n), (ssize_t)m.n);
	close(fd);
	ck_assert_int_eq(lpt_perf_open(path, NULL, &p), 0);
	info = lpt_perf_info(p);
	ck_assert(info->pipe);
	ck_assert(!info->has_index);
	ck_assert_str_eq(info->event_name, "intel_pt//u");
	ck_assert_str_eq(info->cpuid, "GenuineIntel,6,85,4");
	ck_assert_uint_eq(info->unknown_records, 0);
	ck_assert_uint_eq(lpt_perf_ntraces(p), 1);
	ck_assert_int_eq(lpt_perf_trace(p, 0)->tid, 7);
	lpt_perf_close(p);
	unlink(path);
}
END_TEST

static Suite *perf_write_suite(void)
{
	Suite *s = suite_create("perf_write");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, tc_dynamorio);
	tcase_add_test(tc, open_refuses);
	tcase_add_test(tc, round_trip);
	tcase_add_test(tc, pipe_round_trip);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(perf_write_suite(), CK_NORMAL);
}
