// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the ptcap directory reader of libpt (libpt/ptcap_dir.c)
 * against the grammar of Documentation/ptcap-format.rst, version 1.
 */
#include <check.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lwpt/pt.h>

#include <lwpt/ptcap_dir.h>
#include "tests/check_run.h"

static int parse_cfg(const char *text, struct ptcap_config *cfg, size_t *line)
{
	return ptcap_config_parse(text, strlen(text), cfg, line);
}

static int parse_maps(const char *text, struct ptcap_maps *maps, size_t *line)
{
	return ptcap_maps_parse(text, strlen(text), maps, line);
}

/* ptcap-format.rst "config": the DynamoRIO case's decode parameters. */
START_TEST(config_full)
{
	struct ptcap_config cfg;
	size_t line = 99;

	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1\n"
				   "# written by hand\n"
				   "\n"
				   "cpu 6/85/4\n"
				   "mtc-freq 3\n"
				   "nom-freq 37\n"
				   "cpuid-0x15.eax 2\n"
				   "cpuid-0x15.ebx 308\n"
				   "tsc-freq 3696000000\n"
				   "mode per-thread\n"
				   "rtit-ctl 0x2604\n", &cfg, &line), 0);
	ck_assert_uint_eq(line, 0);
	ck_assert_uint_eq(cfg.has, PTCAP_HAS_CPU | PTCAP_HAS_MTC_FREQ |
			  PTCAP_HAS_NOM_FREQ | PTCAP_HAS_CPUID_15_EAX |
			  PTCAP_HAS_CPUID_15_EBX | PTCAP_HAS_TSC_FREQ);
	ck_assert_uint_eq(cfg.cpu_family, 6);
	ck_assert_uint_eq(cfg.cpu_model, 85);
	ck_assert_uint_eq(cfg.cpu_stepping, 4);
	ck_assert_uint_eq(cfg.mtc_freq, 3);
	ck_assert_uint_eq(cfg.nom_freq, 37);
	ck_assert_uint_eq(cfg.cpuid_15_eax, 2);
	ck_assert_uint_eq(cfg.cpuid_15_ebx, 308);
	/*
	 * The DynamoRIO trace's TSC: 1e9 * 2^31 / perf's time_mult 581029125
	 * = 3.696 GHz = 24 MHz crystal * 308 / 2 (shared/testdata/pt/README.md).
	 */
	ck_assert_uint_eq(cfg.tsc_freq_hz, 3696000000ull);
}
END_TEST

/* The `format` key: pt (the default) or bts; anything else refused. */
START_TEST(config_format)
{
	struct ptcap_config cfg;
	size_t line = 0;

	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1\ncpu 6/85\n", &cfg, &line), 0);
	ck_assert(!(cfg.has & PTCAP_HAS_FORMAT));
	ck_assert_uint_eq(cfg.format, PTCAP_FORMAT_PT);
	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1\nformat bts \n", &cfg, &line), 0);
	ck_assert(cfg.has & PTCAP_HAS_FORMAT);
	ck_assert_uint_eq(cfg.format, PTCAP_FORMAT_BTS);
	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1\nformat pt\n", &cfg, &line), 0);
	ck_assert_uint_eq(cfg.format, PTCAP_FORMAT_PT);
	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1\ncpu 6/85\nformat lbr\n", &cfg,
				   &line), -PTCAP_E_SYNTAX);
	ck_assert_uint_eq(line, 3);
	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1\nformat\n", &cfg, &line),
			 -PTCAP_E_SYNTAX);
}
END_TEST

/* "bts-start.<file> <ip>": a BTS trace's first instruction. */
START_TEST(config_bts_start)
{
	static const char text[] = "lwpt-ptcap-config 1\n"
		"format bts\n"
		"bts-start.tid5.bts 0x7f0012345678 \n"
		"bts-start.tid6.bts 4096\n"
		"bts-start.tid7.bts x12\n";
	uint64_t ip = 1;

	ck_assert_int_eq(ptcap_config_bts_start(text, sizeof(text) - 1, "tid5.bts", &ip), 0);
	ck_assert_uint_eq(ip, 0x7f0012345678ull);
	ck_assert_int_eq(ptcap_config_bts_start(text, sizeof(text) - 1, "tid6.bts", &ip), 0);
	ck_assert_uint_eq(ip, 4096);
	ck_assert_int_eq(ptcap_config_bts_start(text, sizeof(text) - 1, "tid7.bts", &ip),
			 -PTCAP_E_SYNTAX);
	ck_assert_int_eq(ptcap_config_bts_start(text, sizeof(text) - 1, "tid8.bts", &ip),
			 -PTCAP_E_RANGE);
	ck_assert_int_eq(ptcap_config_bts_start(text, sizeof(text) - 1, "tid5", &ip),
			 -PTCAP_E_RANGE);
	ck_assert_int_eq(ptcap_config_bts_start(NULL, 0, "x", &ip), -PTCAP_E_INVAL);
}
END_TEST

/* Stepping is optional; CRLF and trailing blanks are tolerated. */
/* Per-thread files: "thread.<file> tid= pid= ..." (ptcap-format.rst). */
START_TEST(config_thread_lines)
{
	static const char text[] =
		"lwpt-ptcap-config 1\n"
		"thread.tid12.pt tid=12 pid=10 buffer=0 exited\n"
		"thread.tid120.pt pid=10 tid=120 buffer=1\n"
		"thread.tid7.pt tid=7\n";
	uint32_t tid = 0, pid = 0;

	ck_assert_int_eq(ptcap_config_thread(text, sizeof(text) - 1,
					     "tid12.pt", &tid, &pid), 0);
	ck_assert_uint_eq(tid, 12);
	ck_assert_uint_eq(pid, 10);
	ck_assert_int_eq(ptcap_config_thread(text, sizeof(text) - 1,
					     "tid120.pt", &tid, &pid), 0);
	ck_assert_uint_eq(tid, 120);
	ck_assert_int_eq(ptcap_config_thread(text, sizeof(text) - 1,
					     "tid1.pt", &tid, &pid),
			 -PTCAP_E_RANGE);
	ck_assert_int_eq(ptcap_config_thread(text, sizeof(text) - 1,
					     "tid7.pt", &tid, &pid),
			 -PTCAP_E_RANGE);
	ck_assert_int_eq(ptcap_config_thread(NULL, 0, "x", &tid, &pid),
			 -PTCAP_E_INVAL);
}
END_TEST

/*
 * ptcap --bts -p: a thread found after the attach has the word found-late
 * on its line (ptcap-format.rst "BTS trace files"); the config parses and
 * the line reads as any other.
 */
START_TEST(config_thread_found_late)
{
	static const char text[] =
		"lwpt-ptcap-config 1\n"
		"format bts\n"
		"mode per-thread\n"
		"attached pid=10\n"
		"bts-status.tid10.bts exited\n"
		"thread.tid10.bts tid=10 pid=10 records=5\n"
		"bts-status.tid13.bts exited\n"
		"thread.tid13.bts tid=13 pid=10 records=7 found-late\n";
	struct ptcap_config cfg;
	uint32_t tid = 0, pid = 0;
	size_t line = 0;

	ck_assert_int_eq(ptcap_config_parse(text, sizeof(text) - 1, &cfg, &line), 0);
	ck_assert_int_eq(ptcap_config_thread(text, sizeof(text) - 1, "tid13.bts", &tid, &pid),
			 0);
	ck_assert_uint_eq(tid, 13);
	ck_assert_uint_eq(pid, 10);
	ck_assert_int_eq(ptcap_config_thread(text, sizeof(text) - 1, "tid10.bts", &tid, &pid),
			 0);
	ck_assert_uint_eq(tid, 10);
}
END_TEST

/* gaps.<file> lines: offsets ascending, per file; none is not an error. */
START_TEST(config_gaps)
{
	static const char text[] =
		"lwpt-ptcap-config 1\n"
		"gaps.cpu0.pt 4096 8192 12288\n"
		"gaps.cpu10.pt 7\n"
		"gaps.cpu1.pt 9 9\n"
		"gaps.cpu2.pt 5 x\n"
		"gaps.cpu3.pt\n";
	uint64_t *g = (uint64_t *)1;
	size_t n = 9;

	ck_assert_int_eq(ptcap_config_gaps(text, sizeof(text) - 1, "cpu0.pt", &g, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(g[0], 4096);
	ck_assert_uint_eq(g[2], 12288);
	free(g);
	ck_assert_int_eq(ptcap_config_gaps(text, sizeof(text) - 1, "cpu10.pt", &g, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(g[0], 7);
	free(g);
	ck_assert_int_eq(ptcap_config_gaps(text, sizeof(text) - 1, "cpu5.pt", &g, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(g);
	ck_assert_int_eq(ptcap_config_gaps(text, sizeof(text) - 1, "cpu3.pt", &g, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(ptcap_config_gaps(text, sizeof(text) - 1, "cpu1.pt", &g, &n),
			 -PTCAP_E_SYNTAX);
	ck_assert_int_eq(ptcap_config_gaps(text, sizeof(text) - 1, "cpu2.pt", &g, &n),
			 -PTCAP_E_SYNTAX);
	ck_assert_int_eq(ptcap_config_gaps(NULL, 0, "x", &g, &n), -PTCAP_E_INVAL);
}
END_TEST

/* addr<n> lines (ptcap writes them, Documentation/ptcap-format.rst). */
START_TEST(config_addr)
{
	static const char text[] =
		"lwpt-ptcap-config 1\n"
		"addr0 filter 0x400000-0x426fff\n"
		"addr2 stop 0x401000-0x401000\n";
	static const char *const bad[] = {
		"lwpt-ptcap-config 1\naddr1 trace 0x1-0x2\n",
		"lwpt-ptcap-config 1\naddr1 filter 0x1\n",
		"lwpt-ptcap-config 1\naddr1 filter 0x1-0x2 x\n",
		"lwpt-ptcap-config 1\naddr1 filter 0x1-y\n",
	};
	struct ptcap_addr_range r[PTCAP_ADDR_RANGES];
	size_t i;

	ck_assert_int_eq(ptcap_config_addr(text, sizeof(text) - 1, r), 0);
	ck_assert_uint_eq(r[0].cfg, PTCAP_ADDR_FILTER);
	ck_assert_uint_eq(r[0].a, 0x400000);
	ck_assert_uint_eq(r[0].b, 0x426fff);
	ck_assert_uint_eq(r[1].cfg, PTCAP_ADDR_UNUSED);
	ck_assert_uint_eq(r[2].cfg, PTCAP_ADDR_STOP);
	ck_assert_uint_eq(r[2].a, 0x401000);
	ck_assert_uint_eq(r[3].cfg, PTCAP_ADDR_UNUSED);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_int_eq(ptcap_config_addr(bad[i], strlen(bad[i]), r),
				 -PTCAP_E_SYNTAX);
	ck_assert_int_eq(ptcap_config_addr("addr0 filter 0x2-0x1", 20, r),
			 -PTCAP_E_RANGE);
	ck_assert_int_eq(ptcap_config_addr(NULL, 0, r), -PTCAP_E_INVAL);
}
END_TEST

START_TEST(config_cpu_no_stepping_crlf)
{
	struct ptcap_config cfg;

	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1\r\n"
				   "cpu 6/0x9e  \r\n", &cfg, NULL), 0);
	ck_assert_uint_eq(cfg.has, PTCAP_HAS_CPU);
	ck_assert_uint_eq(cfg.cpu_model, 0x9e);
	ck_assert_uint_eq(cfg.cpu_stepping, 0);
}
END_TEST

START_TEST(config_empty_body)
{
	struct ptcap_config cfg;

	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1", &cfg, NULL), 0);
	ck_assert_uint_eq(cfg.has, 0);
}
END_TEST

START_TEST(config_bad_magic)
{
	struct ptcap_config cfg;
	size_t line;

	ck_assert_int_eq(parse_cfg("", &cfg, &line), -PTCAP_E_MAGIC);
	ck_assert_uint_eq(line, 1);
	ck_assert_int_eq(parse_cfg("# comment first\nlwpt-ptcap-config 1\n",
				   &cfg, NULL), -PTCAP_E_MAGIC);
	ck_assert_int_eq(parse_cfg("lwpt-ptcap-maps 1\n", &cfg, NULL),
			 -PTCAP_E_MAGIC);
	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config\n", &cfg, NULL),
			 -PTCAP_E_MAGIC);
	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1 x\n", &cfg, NULL),
			 -PTCAP_E_MAGIC);
}
END_TEST

START_TEST(config_bad_version)
{
	struct ptcap_config cfg;

	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 2\n", &cfg, NULL),
			 -PTCAP_E_VERSION);
	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 0\n", &cfg, NULL),
			 -PTCAP_E_VERSION);
}
END_TEST

/* IA32_RTIT_CTL.MTCFreq is bits 17:14 (SDM 33.2.8.2): at most 15. */
START_TEST(config_ranges)
{
	struct ptcap_config cfg;
	size_t line;

	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1\nmtc-freq 15\n",
				   &cfg, NULL), 0);
	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1\n\nmtc-freq 16\n",
				   &cfg, &line), -PTCAP_E_RANGE);
	ck_assert_uint_eq(line, 3);
	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1\nnom-freq 256\n",
				   &cfg, NULL), -PTCAP_E_RANGE);
	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1\n"
				   "cpuid-0x15.ebx 0x100000000\n", &cfg, NULL),
			 -PTCAP_E_RANGE);
	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1\ncpu 6/256\n",
				   &cfg, NULL), -PTCAP_E_RANGE);
	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1\ntsc-freq "
				   "99999999999999999999999\n", &cfg, NULL),
			 -PTCAP_E_RANGE);
}
END_TEST

START_TEST(config_syntax)
{
	struct ptcap_config cfg;

	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1\ncpu 6\n", &cfg, NULL),
			 -PTCAP_E_SYNTAX);
	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1\ncpu 6/x\n", &cfg,
				   NULL), -PTCAP_E_SYNTAX);
	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1\nmtc-freq\n", &cfg,
				   NULL), -PTCAP_E_SYNTAX);
	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1\nmtc-freq -1\n", &cfg,
				   NULL), -PTCAP_E_SYNTAX);
	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1\nmtc-freq 3 4\n", &cfg,
				   NULL), -PTCAP_E_SYNTAX);
	/* Unknown keys are skipped, whatever their value. */
	ck_assert_int_eq(parse_cfg("lwpt-ptcap-config 1\nfuture-key a b c\n",
				   &cfg, NULL), 0);
}
END_TEST

/* The text need not be NUL-terminated: the length bounds the parse. */
START_TEST(config_length_bounds)
{
	static const char text[] = "lwpt-ptcap-config 1\nmtc-freq 3";
	struct ptcap_config cfg;

	/* Cut "mtc-freq 3" to "mtc-freq ": the value is missing. */
	ck_assert_int_eq(ptcap_config_parse(text, sizeof(text) - 2, &cfg, NULL),
			 -PTCAP_E_SYNTAX);
	ck_assert_int_eq(ptcap_config_parse(text, sizeof(text) - 1, &cfg, NULL),
			 0);
	ck_assert_uint_eq(cfg.mtc_freq, 3);
	ck_assert_int_eq(ptcap_config_parse(NULL, 0, &cfg, NULL),
			 -PTCAP_E_INVAL);
}
END_TEST

/* ptcap-format.rst "maps": hello's three PT_LOAD segments. */
START_TEST(maps_hello)
{
	struct ptcap_maps maps;

	ck_assert_int_eq(parse_maps("lwpt-ptcap-maps 1\n"
				    "# start end offset path\n"
				    "0x400000 0x4000e8 0x0 hello\n"
				    "0x401000 0x401027 0x1000 hello\n"
				    "0x402000 0x40200e 0x2000 /abs/dir with space/hello\n",
				    &maps, NULL), 0);
	ck_assert_uint_eq(maps.nmaps, 3);
	ck_assert_uint_eq(maps.map[0].start, 0x400000);
	ck_assert_uint_eq(maps.map[0].size, 0xe8);
	ck_assert_uint_eq(maps.map[0].offset, 0);
	ck_assert_str_eq(maps.map[0].path, "hello");
	ck_assert_uint_eq(maps.map[1].start, 0x401000);
	ck_assert_uint_eq(maps.map[1].size, 0x27);
	ck_assert_uint_eq(maps.map[1].offset, 0x1000);
	ck_assert_str_eq(maps.map[2].path, "/abs/dir with space/hello");
	ptcap_maps_free(&maps);
	ck_assert_uint_eq(maps.nmaps, 0);
	ck_assert_ptr_null(maps.map);
}
END_TEST

/* "# build-id <hex> <path>" (ptcap-format.rst "maps"): the id onto every
 * line of the path, the last such line winning; other comments, and
 * build-id lines that do not parse, are only comments. */
START_TEST(maps_build_ids)
{
	struct ptcap_maps maps;
	static const uint8_t id[20] = { 0xc8, 0x91, 0x56, 0xeb, 0xda, 0xbf, 0x85, 0x9f,
					0x4e, 0xe7, 0x0c, 0xb0, 0xc3, 0x03, 0x00, 0x4d,
					0xcc, 0xf1, 0xae, 0x51 };

	ck_assert_int_eq(parse_maps("lwpt-ptcap-maps 1\n"
				    "# build-id 00 /a b\n"
				    "0x400000 0x401000 0x0 /a b\n"
				    "0x401000 0x402000 0x1000 /a b\n"
				    "0x500000 0x501000 0x0 vdso.so\n"
				    "0x600000 0x601000 0x0 /c\n"
				    "0x700000 0x701000 0x0 /d\n"
				    "# build-id c89156ebdabf859f4ee70cb0c303004dccf1ae51 /a b\n"
				    "#build-id 0A0b /c\r\n"
				    "# build-id of /d, by hand\n"
				    "# build-id abc /d\n"
				    "# build-id 00112233445566778899001122334455667788990011 /d\n"
				    "# build-id 0011\n"
				    "# build-id 00 /nowhere\n",
				    &maps, NULL), 0);
	ck_assert_uint_eq(maps.nmaps, 5);
	for (int i = 0; i < 2; i++) {
		ck_assert_uint_eq(maps.map[i].build_id_size, 20);
		ck_assert_mem_eq(maps.map[i].build_id, id, 20);
	}
	ck_assert_uint_eq(maps.map[2].build_id_size, 0);
	ck_assert_uint_eq(maps.map[3].build_id_size, 2);
	ck_assert_uint_eq(maps.map[3].build_id[0], 0x0a);
	ck_assert_uint_eq(maps.map[3].build_id[1], 0x0b);
	ck_assert_uint_eq(maps.map[4].build_id_size, 0);	/* none parsed */
	ptcap_maps_free(&maps);
	/* without them (older captures, perf.data): none */
	ck_assert_int_eq(parse_maps("lwpt-ptcap-maps 1\n0x1000 0x2000 0x0 /a\n", &maps, NULL), 0);
	ck_assert_uint_eq(maps.map[0].build_id_size, 0);
	ptcap_maps_free(&maps);
}
END_TEST

/* Kernel addresses use all 64 bits. */
START_TEST(maps_kernel_and_many)
{
	struct ptcap_maps maps;
	char *text;
	size_t len = 0, i;

	text = malloc(64 * 1000 + 64);
	ck_assert_ptr_nonnull(text);
	len += (size_t)sprintf(text, "lwpt-ptcap-maps 1\n");
	for (i = 0; i < 1000; i++)
		len += (size_t)sprintf(text + len,
				       "0xffffffff81000000 0xffffffff82000000 "
				       "0x%zx vmlinux\n", i);
	ck_assert_int_eq(ptcap_maps_parse(text, len, &maps, NULL), 0);
	ck_assert_uint_eq(maps.nmaps, 1000);
	ck_assert_uint_eq(maps.map[999].start, 0xffffffff81000000ull);
	ck_assert_uint_eq(maps.map[999].size, 0x1000000);
	ck_assert_uint_eq(maps.map[999].offset, 999);
	ptcap_maps_free(&maps);
	free(text);
}
END_TEST

START_TEST(maps_errors)
{
	struct ptcap_maps maps;
	size_t line;

	ck_assert_int_eq(parse_maps("lwpt-ptcap-config 1\n", &maps, &line),
			 -PTCAP_E_MAGIC);
	ck_assert_int_eq(parse_maps("lwpt-ptcap-maps 7\n", &maps, &line),
			 -PTCAP_E_VERSION);
	/* Missing path. */
	ck_assert_int_eq(parse_maps("lwpt-ptcap-maps 1\n"
				    "0x1000 0x2000 0x0 a\n"
				    "0x1000 0x2000 0x0\n", &maps, &line),
			 -PTCAP_E_SYNTAX);
	ck_assert_uint_eq(line, 3);
	ck_assert_uint_eq(maps.nmaps, 0);
	ck_assert_ptr_null(maps.map);
	ck_assert_int_eq(parse_maps("lwpt-ptcap-maps 1\n0x1000 0x2000 0x0 \n",
				    &maps, NULL), -PTCAP_E_SYNTAX);
	/* end must be above start. */
	ck_assert_int_eq(parse_maps("lwpt-ptcap-maps 1\n0x2000 0x2000 0 a\n",
				    &maps, NULL), -PTCAP_E_RANGE);
	ck_assert_int_eq(parse_maps("lwpt-ptcap-maps 1\n0x2000 0x1000 0 a\n",
				    &maps, NULL), -PTCAP_E_RANGE);
	ck_assert_int_eq(parse_maps("lwpt-ptcap-maps 1\n"
				    "0x10000000000000000 0x1 0 a\n", &maps,
				    NULL), -PTCAP_E_RANGE);
	ck_assert_int_eq(parse_maps("lwpt-ptcap-maps 1\nzz 0x1 0 a\n", &maps,
				    NULL), -PTCAP_E_SYNTAX);
}
END_TEST

/* A NUL byte inside the text is an error, never a silently cut path. */
START_TEST(maps_embedded_nul)
{
	static const char text[] = "lwpt-ptcap-maps 1\n0x1000 0x2000 0 a\0b\n";
	struct ptcap_maps maps;

	ck_assert_int_eq(ptcap_maps_parse(text, sizeof(text) - 1, &maps, NULL),
			 -PTCAP_E_SYNTAX);
}
END_TEST

static int parse_sw(const char *text, struct ptcap_switches *sws, size_t *line)
{
	return ptcap_switches_parse(text, strlen(text), sws, line);
}

/*
 * ptcap-format.rst "switches": what ptcap writes (lpt_switch_format(), so
 * writer and reader agree), two CPUs in chunks, sorted back per CPU.
 */
START_TEST(switches_round_trip)
{
	static const struct lwpt_pt_switch in[] = {
		{ .tsc = 100, .cpu = 0, .prev_pid = 0, .prev_tid = 0, .next_pid = 7,
		  .next_tid = 8, .flags = LWPT_PT_SW_PREV_IDLE },
		{ .tsc = 250, .cpu = 0, .prev_pid = 7, .prev_tid = 8, .next_pid = 9,
		  .next_tid = 9, .flags = LWPT_PT_SW_PREEMPT },
		{ .tsc = 90, .cpu = 1, .prev_pid = 2, .prev_tid = 2, .next_pid = 0,
		  .next_tid = 0, .flags = LWPT_PT_SW_PREV_KTHREAD | LWPT_PT_SW_NEXT_IDLE },
		{ .tsc = 300, .cpu = 0, .prev_pid = 9, .prev_tid = 9, .next_pid = 2,
		  .next_tid = 2, .flags = LWPT_PT_SW_NEXT_KTHREAD },
	};
	char text[4096], line[LPT_SWITCH_LINE_MAX];
	struct ptcap_switches sws;
	const struct ptcap_switch *w;
	size_t i;

	snprintf(text, sizeof(text), LPT_SWITCHES_MAGIC "\n# tsc cpu prev next\n");
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		ck_assert_int_gt(lpt_switch_format(line, sizeof(line), &in[i]), 0);
		strcat(text, line);
	}
	ck_assert_int_eq(parse_sw(text, &sws, NULL), 0);
	ck_assert_uint_eq(sws.n, 4);
	/* CPU 0 in TSC order, then CPU 1. */
	ck_assert_uint_eq(sws.sw[0].tsc, 100);
	ck_assert_uint_eq(sws.sw[1].tsc, 250);
	ck_assert_uint_eq(sws.sw[2].tsc, 300);
	ck_assert_uint_eq(sws.sw[3].cpu, 1);
	ck_assert_uint_eq(sws.sw[0].flags, PTCAP_SW_PREV_IDLE);
	ck_assert_uint_eq(sws.sw[1].flags, PTCAP_SW_PREEMPT);
	ck_assert_uint_eq(sws.sw[2].flags, PTCAP_SW_NEXT_KTHREAD);
	ck_assert_uint_eq(sws.sw[3].flags, PTCAP_SW_PREV_KTHREAD | PTCAP_SW_NEXT_IDLE);
	ck_assert_uint_eq(sws.sw[1].prev_pid, 7);
	ck_assert_uint_eq(sws.sw[1].prev_tid, 8);
	ck_assert_uint_eq(sws.sw[1].next_tid, 9);

	/* Who ran on a CPU at a time: the next of the last switch before. */
	ck_assert_ptr_null(ptcap_switches_at(&sws, 0, 99));
	w = ptcap_switches_at(&sws, 0, 100);
	ck_assert_uint_eq(w->next_tid, 8);
	ck_assert_uint_eq(ptcap_switches_at(&sws, 0, 249)->next_tid, 8);
	ck_assert_uint_eq(ptcap_switches_at(&sws, 0, 250)->next_tid, 9);
	ck_assert_uint_eq(ptcap_switches_at(&sws, 0, UINT64_MAX)->next_tid, 2);
	ck_assert_ptr_null(ptcap_switches_at(&sws, 1, 89));
	ck_assert_uint_eq(ptcap_switches_at(&sws, 1, 1000)->tsc, 90);
	ck_assert_ptr_null(ptcap_switches_at(&sws, 2, 1000));
	ck_assert_ptr_null(ptcap_switches_at(NULL, 0, 0));
	ptcap_switches_free(&sws);
	ck_assert_ptr_null(sws.sw);
	ck_assert_uint_eq(sws.n, 0);
}
END_TEST

/* Equal TSCs keep file order; hex numbers; unknown words are skipped. */
START_TEST(switches_ties_and_words)
{
	struct ptcap_switches sws;

	ck_assert_int_eq(parse_sw("lwpt-ptcap-switches 1\n"
				  "0x10 1 1/1 2/2\n"
				  "0x10 1 2/2 3/3 future-word preempt flags=0x40\n"
				  "5 0 0/0 4/4\r\n"
				  "\n  # comment\n"
				  "0x10 1 3/3 1/1\n", &sws, NULL), 0);
	ck_assert_uint_eq(sws.n, 4);
	ck_assert_uint_eq(sws.sw[0].cpu, 0);
	ck_assert_uint_eq(sws.sw[1].next_tid, 2);
	ck_assert_uint_eq(sws.sw[2].next_tid, 3);
	ck_assert_uint_eq(sws.sw[2].flags, PTCAP_SW_PREEMPT);
	ck_assert_uint_eq(sws.sw[3].next_tid, 1);
	/* The last of equal TSCs is the one in effect. */
	ck_assert_uint_eq(ptcap_switches_at(&sws, 1, 0x10)->next_tid, 1);
	ptcap_switches_free(&sws);
	/* An empty body is no switch. */
	ck_assert_int_eq(parse_sw("lwpt-ptcap-switches 1\n", &sws, NULL), 0);
	ck_assert_uint_eq(sws.n, 0);
	ck_assert_ptr_null(ptcap_switches_at(&sws, 0, 5));
}
END_TEST

START_TEST(switches_errors)
{
	struct ptcap_switches sws;
	size_t line;

	ck_assert_int_eq(parse_sw("lwpt-ptcap-maps 1\n", &sws, &line), -PTCAP_E_MAGIC);
	ck_assert_int_eq(parse_sw("lwpt-ptcap-switches 2\n", &sws, &line), -PTCAP_E_VERSION);
	ck_assert_int_eq(parse_sw("lwpt-ptcap-switches 1\n1 0 1/1 2/2\n1 0 1/1\n", &sws,
				  &line), -PTCAP_E_SYNTAX);
	ck_assert_uint_eq(line, 3);
	ck_assert_ptr_null(sws.sw);
	ck_assert_uint_eq(sws.n, 0);
	ck_assert_int_eq(parse_sw("lwpt-ptcap-switches 1\n1 0 1 2/2\n", &sws, NULL),
			 -PTCAP_E_SYNTAX);
	ck_assert_int_eq(parse_sw("lwpt-ptcap-switches 1\n1 0 1/ 2/2\n", &sws, NULL),
			 -PTCAP_E_SYNTAX);
	ck_assert_int_eq(parse_sw("lwpt-ptcap-switches 1\n1 0 -1/1 2/2\n", &sws, NULL),
			 -PTCAP_E_SYNTAX);
	ck_assert_int_eq(parse_sw("lwpt-ptcap-switches 1\n1 0 2147483648/1 2/2\n", &sws,
				  NULL), -PTCAP_E_RANGE);
	ck_assert_int_eq(parse_sw("lwpt-ptcap-switches 1\n1 4294967296 1/1 2/2\n", &sws,
				  NULL), -PTCAP_E_RANGE);
	ck_assert_int_eq(parse_sw("lwpt-ptcap-switches 1\n18446744073709551616 0 1/1 2/2\n",
				  &sws, NULL), -PTCAP_E_RANGE);
	ck_assert_int_eq(parse_sw("lwpt-ptcap-switches 1\nx 0 1/1 2/2\n", &sws, NULL),
			 -PTCAP_E_SYNTAX);
	ck_assert_int_eq(ptcap_switches_parse(NULL, 0, &sws, NULL), -PTCAP_E_INVAL);
	ck_assert_int_eq(ptcap_switches_parse("", 0, NULL, NULL), -PTCAP_E_INVAL);
	ptcap_switches_free(NULL);
}
END_TEST

/*
 * The tsc= word (a per-CPU BTS capture's switch time, ptcap-format.rst):
 * kept with has_time, lines without it have none; a bad value or a second
 * tsc= is refused with its line number.
 */
START_TEST(switches_time_word)
{
	struct ptcap_switches sws;
	size_t line;

	ck_assert_int_eq(parse_sw("lwpt-ptcap-switches 1\n"
				  "0 0 0/0 5/6 prev-idle tsc=1000\n"
				  "48 0 5/6 0/0 next-idle\n"
				  "24 1 0/0 5/6 preempt tsc=018446744073709551615 x=1\n",
				  &sws, &line), 0);
	ck_assert_uint_eq(sws.n, 3);
	ck_assert(sws.sw[0].has_time);
	ck_assert_uint_eq(sws.sw[0].time, 1000);
	ck_assert_uint_eq(sws.sw[0].tsc, 0);
	ck_assert_uint_eq(sws.sw[0].flags, PTCAP_SW_PREV_IDLE);
	ck_assert(!sws.sw[1].has_time);
	ck_assert_uint_eq(sws.sw[1].time, 0);
	ck_assert_uint_eq(sws.sw[1].tsc, 48);
	ck_assert(sws.sw[2].has_time);
	/* Decimal, leading zeros too (never octal). */
	ck_assert_uint_eq(sws.sw[2].time, UINT64_MAX);
	ck_assert_uint_eq(sws.sw[2].flags, PTCAP_SW_PREEMPT);
	ptcap_switches_free(&sws);
	ck_assert_int_eq(parse_sw("lwpt-ptcap-switches 1\n1 0 1/1 2/2 tsc=010\n", &sws, NULL),
			 0);
	ck_assert_uint_eq(sws.sw[0].time, 10);
	ptcap_switches_free(&sws);
	/* Bad values: the line is named. */
	ck_assert_int_eq(parse_sw("lwpt-ptcap-switches 1\n1 0 1/1 2/2 tsc=5\n"
				  "2 0 2/2 1/1 tsc=\n", &sws, &line), -PTCAP_E_SYNTAX);
	ck_assert_uint_eq(line, 3);
	ck_assert_ptr_null(sws.sw);
	ck_assert_int_eq(parse_sw("lwpt-ptcap-switches 1\n1 0 1/1 2/2 tsc=0x10\n", &sws,
				  &line), -PTCAP_E_SYNTAX);
	ck_assert_uint_eq(line, 2);
	ck_assert_int_eq(parse_sw("lwpt-ptcap-switches 1\n1 0 1/1 2/2 tsc=-1\n", &sws,
				  &line), -PTCAP_E_SYNTAX);
	ck_assert_int_eq(parse_sw("lwpt-ptcap-switches 1\n\n1 0 1/1 2/2 tsc=1 tsc=2\n", &sws,
				  &line), -PTCAP_E_SYNTAX);
	ck_assert_uint_eq(line, 3);
	ck_assert_int_eq(parse_sw("lwpt-ptcap-switches 1\n1 0 1/1 2/2 tsc=18446744073709551616\n",
				  &sws, &line), -PTCAP_E_RANGE);
	ck_assert_uint_eq(line, 2);
}
END_TEST

START_TEST(strerror_all)
{
	int e;

	for (e = PTCAP_OK; e <= PTCAP_E_INVAL; e++) {
		ck_assert_str_ne(ptcap_dir_strerror(e), "unknown error");
		ck_assert_str_eq(ptcap_dir_strerror(-e), ptcap_dir_strerror(e));
	}
	ck_assert_str_eq(ptcap_dir_strerror(1000), "unknown error");
}
END_TEST

/* Trace files are listed in version order, other files are ignored. */
START_TEST(list_traces)
{
	static const char *const files[] = {
		"cpu10.pt", "cpu2.pt", "config", "maps", "x.ptx", ".pt",
		"tid7.bts", ".bts", "x.btsx",
	};
	char tmpl[] = "/tmp/test_ptcap_dir.XXXXXX";
	char path[256], **names;
	size_t count, i;
	char *buf;
	size_t len;

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", tmpl, files[i]);
		f = fopen(path, "w");
		ck_assert_ptr_nonnull(f);
		fputs("x", f);
		fclose(f);
	}
	snprintf(path, sizeof(path), "%s/dir.pt", tmpl);
	ck_assert_int_eq(mkdir(path, 0700), 0);

	ck_assert_int_eq(ptcap_dir_list_traces(tmpl, &names, &count), 0);
	ck_assert_uint_eq(count, 3);	/* a `format bts` capture's too */
	ck_assert_str_eq(names[0], "cpu2.pt");
	ck_assert_str_eq(names[1], "cpu10.pt");
	ck_assert_str_eq(names[2], "tid7.bts");
	ptcap_dir_free_names(names, count);

	ck_assert_int_eq(ptcap_dir_read_file(tmpl, "maps", &buf, &len), 0);
	ck_assert_uint_eq(len, 1);
	ck_assert_str_eq(buf, "x");
	free(buf);
	ck_assert_int_eq(ptcap_dir_read_file(tmpl, "absent", &buf, &len),
			 -PTCAP_E_IO);

	rmdir(path);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", tmpl, files[i]);
		unlink(path);
	}
	rmdir(tmpl);
	ck_assert_int_eq(ptcap_dir_list_traces(tmpl, &names, &count),
			 -PTCAP_E_IO);
}
END_TEST

/* Issue 36 item 3: ptcap_file_open() takes regular files only, never
 * blocks on a FIFO or a device, keeps to its limit and refuses a sparse
 * file when asked; ptcap_dir_read_file() goes through it. */
START_TEST(file_open_hostile)
{
	char tmpl[] = "/tmp/lwpt-ptcap-file-XXXXXX", path[256];
	uint64_t size = 0;
	size_t len;
	char *buf;
	FILE *f;
	int fd;

	ck_assert_ptr_nonnull(mkdtemp(tmpl));
	snprintf(path, sizeof(path), "%s/config", tmpl);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("0123456789", f);
	fclose(f);
	fd = ptcap_file_open(tmpl, "config", 0, 0, &size);
	ck_assert_int_ge(fd, 0);
	ck_assert_uint_eq(size, 10);
	close(fd);
	ck_assert_int_eq(ptcap_file_open(tmpl, "config", 9, 0, NULL), -PTCAP_E_TOO_LARGE);
	ck_assert_int_eq(ptcap_dir_read_file_max(tmpl, "config", 9, &buf, &len),
			 -PTCAP_E_TOO_LARGE);
	ck_assert_int_eq(ptcap_dir_read_file_max(tmpl, "config", 10, &buf, &len), 0);
	ck_assert_uint_eq(len, 10);
	free(buf);

	/* a FIFO: refused at once (a blocking open would hang here) */
	snprintf(path, sizeof(path), "%s/fifo", tmpl);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(ptcap_file_open(tmpl, "fifo", 0, 0, NULL), -PTCAP_E_NOT_REGULAR);
	ck_assert_int_eq(ptcap_dir_read_file(tmpl, "fifo", &buf, &len), -PTCAP_E_NOT_REGULAR);
	unlink(path);

	/* a link to /dev/zero: a device, refused; with NOFOLLOW, not opened */
	snprintf(path, sizeof(path), "%s/zero", tmpl);
	ck_assert_int_eq(symlink("/dev/zero", path), 0);
	ck_assert_int_eq(ptcap_dir_read_file(tmpl, "zero", &buf, &len), -PTCAP_E_NOT_REGULAR);
	ck_assert_int_eq(ptcap_file_open(tmpl, "zero", 0, PTCAP_FILE_NOFOLLOW, NULL),
			 -PTCAP_E_IO);
	unlink(path);

	/* a directory */
	ck_assert_int_eq(ptcap_file_open(NULL, tmpl, 0, 0, NULL), -PTCAP_E_NOT_REGULAR);

	/* 1 GiB of holes: sparse with the flag, fine without */
	snprintf(path, sizeof(path), "%s/cpu0.pt", tmpl);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 1ll << 30), 0);
	close(fd);
	ck_assert_int_eq(ptcap_file_open(tmpl, "cpu0.pt", 0, PTCAP_FILE_NOT_SPARSE, NULL),
			 -PTCAP_E_SPARSE);
	ck_assert_int_eq(ptcap_dir_read_file_max(tmpl, "cpu0.pt", 0, &buf, &len),
			 -PTCAP_E_SPARSE);
	fd = ptcap_file_open(tmpl, "cpu0.pt", 0, 0, &size);
	ck_assert_int_ge(fd, 0);
	ck_assert_uint_eq(size, 1ull << 30);
	close(fd);
	unlink(path);

	snprintf(path, sizeof(path), "%s/config", tmpl);
	unlink(path);
	rmdir(tmpl);
	ck_assert_str_ne(ptcap_dir_strerror(-PTCAP_E_NOT_REGULAR), "unknown error");
	ck_assert_str_ne(ptcap_dir_strerror(-PTCAP_E_TOO_LARGE), "unknown error");
	ck_assert_str_ne(ptcap_dir_strerror(-PTCAP_E_SPARSE), "unknown error");
}
END_TEST

/* ptcap-format.rst "processes": generations, missing, comm with blanks. */
START_TEST(processes_parse)
{
	static const char text[] =
		"lwpt-ptcap-processes 1\n"
		"# pid gen first-tsc last-tsc entry maps comm\n"
		"244 1 900 1000 0x401bc0 maps.244.1 trace_flow_prog\n"
		"244 0 500 600 0x7ffff7fe3290 maps.244.0 sh\n"
		"77 missing\r\n"
		"300 0 10 10 0 maps.300.0 kworker x y\n";
	struct ptcap_processes ps;
	const struct ptcap_process *p;
	size_t line = 99, n;

	ck_assert_int_eq(ptcap_processes_parse(text, strlen(text), &ps, &line), 0);
	ck_assert_uint_eq(line, 0);
	ck_assert_uint_eq(ps.n, 4);
	p = ptcap_processes_find(&ps, 244, &n);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(n, 2);
	ck_assert_uint_eq(p[0].gen, 0);
	ck_assert_uint_eq(p[0].entry, 0x7ffff7fe3290ull);
	ck_assert_str_eq(p[0].maps, "maps.244.0");
	ck_assert_str_eq(p[0].comm, "sh");
	ck_assert_uint_eq(p[1].gen, 1);
	ck_assert_uint_eq(p[1].first_tsc, 900);
	ck_assert_uint_eq(p[1].last_tsc, 1000);
	ck_assert_str_eq(p[1].comm, "trace_flow_prog");
	p = ptcap_processes_find(&ps, 77, &n);
	ck_assert(p && p->missing && n == 1 && !p->maps);
	p = ptcap_processes_find(&ps, 300, &n);
	ck_assert_str_eq(p->comm, "kworker x y");
	ck_assert_ptr_null(ptcap_processes_find(&ps, 1, &n));
	ck_assert_uint_eq(n, 0);
	ptcap_processes_free(&ps);
	ck_assert_ptr_null(ps.p);
}
END_TEST

START_TEST(processes_errors)
{
	static const struct {
		const char *text;
		int err;
		size_t line;
	} bad[] = {
		{ "lwpt-ptcap-maps 1\n", -PTCAP_E_MAGIC, 1 },
		{ "lwpt-ptcap-processes 2\n", -PTCAP_E_VERSION, 1 },
		{ "lwpt-ptcap-processes 1\n1 0 5 4 0 m c\n", -PTCAP_E_RANGE, 2 },
		{ "lwpt-ptcap-processes 1\n1 0 4 5 0\n", -PTCAP_E_SYNTAX, 2 },
		{ "lwpt-ptcap-processes 1\n\n1 missing x\n", -PTCAP_E_SYNTAX, 3 },
		{ "lwpt-ptcap-processes 1\n2147483648 missing\n", -PTCAP_E_RANGE, 2 },
		{ "lwpt-ptcap-processes 1\nx 0 1 2 0 m c\n", -PTCAP_E_SYNTAX, 2 },
	};
	struct ptcap_processes ps;
	size_t i, line;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(ptcap_processes_parse(bad[i].text, strlen(bad[i].text),
						       &ps, &line), bad[i].err);
		ck_assert_uint_eq(line, bad[i].line);
		ck_assert_ptr_null(ps.p);
	}
	ck_assert_int_eq(ptcap_processes_parse(NULL, 0, &ps, NULL), -PTCAP_E_INVAL);
}
END_TEST

static Suite *ptcap_dir_suite(void)
{
	Suite *s = suite_create("ptcap_dir");
	TCase *tc = tcase_create("format-v1");

	tcase_add_test(tc, config_full);
	tcase_add_test(tc, config_format);
	tcase_add_test(tc, config_bts_start);
	tcase_add_test(tc, config_thread_lines);
	tcase_add_test(tc, config_thread_found_late);
	tcase_add_test(tc, config_gaps);
	tcase_add_test(tc, config_addr);
	tcase_add_test(tc, config_cpu_no_stepping_crlf);
	tcase_add_test(tc, config_empty_body);
	tcase_add_test(tc, config_bad_magic);
	tcase_add_test(tc, config_bad_version);
	tcase_add_test(tc, config_ranges);
	tcase_add_test(tc, config_syntax);
	tcase_add_test(tc, config_length_bounds);
	tcase_add_test(tc, maps_hello);
	tcase_add_test(tc, maps_build_ids);
	tcase_add_test(tc, maps_kernel_and_many);
	tcase_add_test(tc, maps_errors);
	tcase_add_test(tc, maps_embedded_nul);
	tcase_add_test(tc, switches_round_trip);
	tcase_add_test(tc, switches_ties_and_words);
	tcase_add_test(tc, switches_errors);
	tcase_add_test(tc, switches_time_word);
	tcase_add_test(tc, processes_parse);
	tcase_add_test(tc, processes_errors);
	tcase_add_test(tc, strerror_all);
	tcase_add_test(tc, file_open_hostile);
	tcase_add_test(tc, list_traces);
	/* Wall-clock limit for a loaded, shared machine (issue 17.4). */
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(ptcap_dir_suite(), CK_NORMAL);
}
