// SPDX-License-Identifier: GPL-2.0
/*
 * In-process tests of ptflow's decoding core (tools/ptflow/ptflow_decode.c)
 * and image loader (tools/ptflow/ptflow_image.c).
 *
 * Data: ../shared/testdata/pt (or $LWPT_SHARED/testdata/pt), see README.md
 * there. real/dynamorio is a real trace of the static ELF `hello` (decode
 * parameters cpu 6/85/4, mtc-freq 3, nom-freq 37, cpuid-0x15 2/308) whose
 * flow is the 8 instructions of _start (objdump -d hello). Without the
 * data the data tests pass with a SKIP message.
 *
 * Robustness: every prefix of the trace, every single-bit flip and
 * thousands of random multi-byte corruptions are decoded from buffers that
 * end at an inaccessible page, so that any read past the end faults, in
 * libipt as well as in our code (ASan only instruments the latter).
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "tools/ptflow/ptflow_decode.h"
#include "tools/ptflow/ptflow_image.h"
#include "tests/check_run.h"

static char dyn_pt[512], dyn_elf[512], xdc_dir[512];
static uint8_t *trace;
static size_t trace_len;
static bool have_data;

static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return NULL;
	}
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void find_data(void)
{
	const char *shared = getenv("LWPT_SHARED");

	if (!shared)
		shared = "../shared";
	snprintf(dyn_pt, sizeof(dyn_pt),
		 "%s/testdata/pt/real/dynamorio/dynamorio.pt", shared);
	snprintf(dyn_elf, sizeof(dyn_elf),
		 "%s/testdata/pt/real/dynamorio/hello", shared);
	snprintf(xdc_dir, sizeof(xdc_dir), "%s/testdata/pt/real/libxdc",
		 shared);
	trace = read_all(dyn_pt, &trace_len);
	have_data = trace && access(dyn_elf, R_OK) == 0;
	if (!have_data)
		printf("SKIP: %s not found (set LWPT_SHARED); data tests "
		       "pass without running\n", dyn_pt);
}

/*
 * A copy of @len bytes followed by the PTFLOW_TRACE_PAD zero bytes that
 * ptflow_decode_buffer() requires and then an inaccessible page, so that a
 * read past the padding faults even in code ASan does not instrument
 * (libipt, Capstone).
 */
static uint8_t *guarded_copy(const uint8_t *src, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t span, n = len + PTFLOW_TRACE_PAD;
	uint8_t *map;

	span = (n + page - 1) / page * page + page;
	map = mmap(NULL, span, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(map != MAP_FAILED);
	ck_assert_int_eq(mprotect(map + span - page, page, PROT_NONE), 0);
	map += span - page - n;
	if (len)
		memcpy(map, src, len);
	return map;
}

static void guarded_free(uint8_t *buf, size_t len)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t n = len + PTFLOW_TRACE_PAD;
	size_t span = (n + page - 1) / page * page + page;

	munmap(buf + n + page - span, span);
}

/* One decode of @len bytes at @src, with hello loaded (if @image). */
struct run {
	char *out, *err;
	size_t out_len, err_len;
	uint64_t insns, errors;
};

static void decode(const uint8_t *src, size_t len, bool image,
		   struct run *r)
{
	struct ptflow pf;
	FILE *out, *err;
	uint8_t *buf;

	memset(r, 0, sizeof(*r));
	out = open_memstream(&r->out, &r->out_len);
	err = open_memstream(&r->err, &r->err_len);
	ck_assert(out && err);
	ck_assert_int_eq(ptflow_init(&pf, "ptflow", out, err), 0);

	/* The DynamoRIO decode parameters (testdata README). */
	pf.par.cpu.vendor = pcv_intel;
	pf.par.cpu.family = 6;
	pf.par.cpu.model = 85;
	pf.par.cpu.stepping = 4;
	pf.par.has_cpu = true;
	pf.par.mtc_freq = 3;
	pf.par.nom_freq = 37;
	pf.par.cpuid_15_eax = 2;
	pf.par.cpuid_15_ebx = 308;
	if (image)
		ck_assert_int_eq(ptflow_image_add_elf(pf.image, pf.iscache,
						      dyn_elf, false, 0), 3);

	buf = guarded_copy(src, len);
	ck_assert_int_eq(ptflow_decode_buffer(&pf, buf, len, "test"), 0);
	guarded_free(buf, len);

	r->insns = pf.insns;
	r->errors = pf.errors;
	ptflow_fini(&pf);
	fclose(out);
	fclose(err);
}

static void run_free(struct run *r)
{
	free(r->out);
	free(r->err);
}

/* The flow of hello's _start: addresses and text from objdump -d hello,
 * in Capstone's AT&T spelling (size suffixes, ", " between operands). */
static const char expected_flow[] =
	"[enabled]\n"
	"[exec mode: 64-bit]\n"
	"[disabled]\n"
	"[resumed]\n"
	"0000000000401000  movl $1, %eax\n"
	"0000000000401005  movl $1, %edi\n"
	"000000000040100a  movabsq $0x402000, %rsi\n"
	"0000000000401014  movl $0xe, %edx\n"
	"0000000000401019  syscall\n"
	"[disabled]\n"
	"[resumed]\n"
	"000000000040101b  movl $0x3c, %eax\n"
	"0000000000401020  movl $0, %edi\n"
	"0000000000401025  syscall\n"
	"[disabled]\n"
	"[end of trace]\n";

START_TEST(dynamorio_flow)
{
	struct run r;

	if (!have_data)
		return;
	decode(trace, trace_len, true, &r);
	ck_assert_uint_eq(r.errors, 0);
	ck_assert_uint_eq(r.insns, 8);
	ck_assert_str_eq(r.out, expected_flow);
	ck_assert_uint_eq(r.err_len, 0);
	run_free(&r);
}
END_TEST

/* Without an image the flow stops where the first instruction would be. */
START_TEST(dynamorio_no_image)
{
	struct run r;

	if (!have_data)
		return;
	decode(trace, trace_len, false, &r);
	ck_assert_uint_eq(r.insns, 0);
	ck_assert_uint_ge(r.errors, 1);
	ck_assert_ptr_nonnull(strstr(r.out, ": no memory mapped at this "
				     "address, ip: 0000000000401000]\n"));
	ck_assert_ptr_nonnull(strstr(r.err, "ptflow: test: offset 0x"));
	run_free(&r);
}
END_TEST

/* The instruction lines of @out, concatenated. */
static char *insn_lines(const char *out)
{
	char *res = calloc(1, strlen(out) + 1), *w = res;
	const char *p = out;

	ck_assert_ptr_nonnull(res);
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p + 1) : strlen(p);

		if (*p != '[') {
			memcpy(w, p, n);
			w += n;
		}
		p += n;
	}
	return res;
}

/*
 * Every prefix: either a decode error is reported, or the prefix is a
 * complete trace in itself (cut at a packet boundary while tracing is
 * disabled) whose flow is a prefix of the full flow.
 */
START_TEST(every_prefix)
{
	char *full;
	size_t n, nerr = 0;

	if (!have_data)
		return;
	full = insn_lines(expected_flow);
	for (n = 0; n <= trace_len; n++) {
		struct run r;

		decode(trace, n, true, &r);
		if (r.errors) {
			nerr++;
			ck_assert_msg(strstr(r.out, "[resync at offset 0x") &&
				      strstr(r.err, ": offset 0x"),
				      "prefix %zu: error not reported", n);
		} else {
			char *got = insn_lines(r.out);
			size_t k = strlen(r.out);

			ck_assert_msg(!strncmp(full, got, strlen(got)),
				      "prefix %zu: wrong flow:\n%s", n, r.out);
			ck_assert_msg(k >= 15 && !strcmp(r.out + k - 15,
						 "[end of trace]\n"),
				      "prefix %zu: no clean end:\n%s", n, r.out);
			free(got);
		}
		run_free(&r);
	}
	/* Cuts inside packets or with tracing enabled are the majority. */
	ck_assert_uint_gt(nerr, trace_len / 3);
	free(full);
}
END_TEST

/* Prefixes that end with PacketEn=1 must be errors (SDM Table 33-56 case 3:
 * a deliberate stop disables with TIP.PGD): 0x6aa..0x6b1 lie between the
 * TIP.PGE at 0x6aa and the next TIP.PGD. */
START_TEST(prefix_enabled_at_end)
{
	struct run r;

	if (!have_data)
		return;
	decode(trace, 0x6b1, true, &r);
	ck_assert_uint_ge(r.errors, 1);
	run_free(&r);
}
END_TEST

static uint32_t xorshift32(uint32_t *s)
{
	uint32_t x = *s;

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*s = x;
	return x;
}

static void check_corrupt(const uint8_t *buf, size_t len, const char *what,
			  size_t i)
{
	struct run r;

	decode(buf, len, true, &r);
	/* No error claimed: then no error printed either. */
	if (!r.errors)
		ck_assert_msg(!strstr(r.out, "[resync"), "%s %zu", what, i);
	else
		ck_assert_msg(strstr(r.err, "ptflow: test: offset 0x") != NULL,
			      "%s %zu: no message", what, i);
	run_free(&r);
}

/* Every single-bit flip of the trace. */
START_TEST(every_bit_flip)
{
	uint8_t *buf;
	size_t i;

	if (!have_data)
		return;
	buf = malloc(trace_len);
	ck_assert_ptr_nonnull(buf);
	for (i = 0; i < trace_len * 8; i++) {
		memcpy(buf, trace, trace_len);
		buf[i / 8] ^= (uint8_t)(1u << (i % 8));
		check_corrupt(buf, trace_len, "bit flip", i);
	}
	free(buf);
}
END_TEST

/* Random bytes at random places, 1 to 16 per trace, fixed seed. */
START_TEST(random_corruptions)
{
	uint32_t seed = 0x1f2e3d4c;
	uint8_t *buf;
	size_t i;

	if (!have_data)
		return;
	buf = malloc(trace_len);
	ck_assert_ptr_nonnull(buf);
	for (i = 0; i < 3000; i++) {
		unsigned int k, n = 1 + xorshift32(&seed) % 16;

		memcpy(buf, trace, trace_len);
		for (k = 0; k < n; k++)
			buf[xorshift32(&seed) % trace_len] =
				(uint8_t)xorshift32(&seed);
		check_corrupt(buf, trace_len, "corruption", i);
	}
	free(buf);
}
END_TEST

/* Random bytes: there is no PSB. */
START_TEST(garbage)
{
	uint32_t seed = 7;
	uint8_t buf[4096];
	struct run r;
	size_t i;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)xorshift32(&seed);
	if (!have_data)
		return;
	decode(buf, sizeof(buf), true, &r);
	ck_assert_uint_ge(r.errors, 1);
	ck_assert_uint_eq(r.insns, 0);
	ck_assert_ptr_nonnull(strstr(r.out, "no PSB found"));
	run_free(&r);
}
END_TEST

/* An image of "jmp ." where the trace enters: libipt follows the direct
 * branch without reading trace; ptflow stops it with an error. */
START_TEST(endless_direct_loop)
{
	char path[] = "/tmp/test_ptflow_loop.XXXXXX";
	static const uint8_t jmp_self[] = { 0xeb, 0xfe };
	struct ptflow pf;
	FILE *out, *err;
	char *eb = NULL;
	size_t el;
	uint8_t *buf;
	int fd;

	if (!have_data)
		return;
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, jmp_self, sizeof(jmp_self)), 2);
	close(fd);

	out = fopen("/dev/null", "w");
	err = open_memstream(&eb, &el);
	ck_assert_int_eq(ptflow_init(&pf, "ptflow", out, err), 0);
	pf.opt.quiet = true;
	ck_assert_int_eq(ptflow_image_add_raw(pf.image, pf.iscache, path, 0, 0,
					      0x401000), 0);
	buf = guarded_copy(trace, trace_len);
	ck_assert_int_eq(ptflow_decode_buffer(&pf, buf, trace_len, "test"), 0);
	ck_assert_uint_eq(pf.errors, 1);
	/* Found at the first progress check past the limit. */
	ck_assert_uint_gt(pf.insns, PTFLOW_MAX_INSN_NO_PROGRESS);
	ck_assert_uint_le(pf.insns, PTFLOW_MAX_INSN_NO_PROGRESS + 2 * PTFLOW_PROGRESS_SAMPLE);
	ptflow_fini(&pf);
	fclose(out);
	fclose(err);
	ck_assert_ptr_nonnull(strstr(eb, "no trace progress"));
	free(eb);
	guarded_free(buf, trace_len);
	unlink(path);
}
END_TEST

/* The libxdc traces have no images: errors, reported cleanly. */
START_TEST(libxdc_without_images)
{
	static const char *const names[] = {
		"Kernel__trace.pt", "Unzip__trace.pt",
		"avscript_32__failed_trace_12709_1.pt",
		"dyn_test__sample_raw_0.pt", "foo__trace.pt",
		"icelake_tip__ptlog.pt",
		"infinite_loop_linux__loop_trace_26023_0.pt",
		"mruby__trace.pt", "qemu__trace1.pt",
	};
	size_t i;

	if (!have_data)
		return;
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		char path[700];
		struct run r;
		uint8_t *buf;
		size_t len;

		snprintf(path, sizeof(path), "%s/%s", xdc_dir, names[i]);
		buf = read_all(path, &len);
		ck_assert_msg(buf != NULL, "%s missing", path);
		decode(buf, len, false, &r);
		ck_assert_msg(r.errors >= 1, "%s: no error", names[i]);
		ck_assert_uint_eq(r.insns, 0);
		run_free(&r);
		free(buf);
	}
}
END_TEST

/* ELF loading: hello's three PT_LOAD segments; every truncation of the
 * file is rejected or loaded, never read out of bounds. */
START_TEST(elf_truncated)
{
	char path[] = "/tmp/test_ptflow_elf.XXXXXX";
	struct pt_image_section_cache *isc;
	struct pt_image *img;
	uint8_t *elf;
	size_t len, n;
	int fd;

	if (!have_data)
		return;
	elf = read_all(dyn_elf, &len);
	ck_assert_ptr_nonnull(elf);
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);

	for (n = 0; n <= len; n += (n < 0x300 || n > 0x1f00) ? 1 : 61) {
		int err;

		ck_assert_int_eq(ftruncate(fd, 0), 0);
		ck_assert_int_eq(pwrite(fd, elf, n, 0), (ssize_t)n);
		isc = pt_iscache_alloc(NULL);
		img = pt_image_alloc(NULL);
		err = ptflow_image_add_elf(img, isc, path, false, 0);
		/* The last segment ends at 0x200e. */
		if (n >= 0x200e)
			ck_assert_int_eq(err, 3);
		else
			ck_assert_int_lt(err, 0);
		pt_image_free(img);
		pt_iscache_free(isc);
	}
	close(fd);
	unlink(path);
	free(elf);
}
END_TEST

/* Not an ELF, and raw ranges outside the file. */
START_TEST(image_errors)
{
	struct pt_image_section_cache *isc = pt_iscache_alloc(NULL);
	struct pt_image *img = pt_image_alloc(NULL);

	ck_assert_int_eq(ptflow_image_add_elf(img, isc, "/dev/null", false, 0),
			 -pte_bad_file);
	ck_assert_int_eq(ptflow_image_add_elf(img, isc, "/nonexistent", false,
					      0), -pte_bad_file);
	ck_assert_int_eq(ptflow_image_add_elf(NULL, isc, "x", false, 0),
			 -pte_invalid);
	if (have_data) {
		ck_assert_int_eq(ptflow_image_add_elf(img, isc, dyn_pt, false,
						      0), -pte_bad_image);
		ck_assert_int_eq(ptflow_image_add_raw(img, isc, dyn_elf,
						      0x10000, 0, 0x1000),
				 -pte_bad_file);
		ck_assert_int_eq(ptflow_image_add_raw(img, isc, dyn_elf, 0, 16,
						      UINT64_MAX - 4),
				 -pte_bad_image);
		ck_assert_int_eq(ptflow_image_add_raw(img, isc, dyn_elf, 0x1000,
						      0, 0x401000), 0);
	}
	pt_image_free(img);
	pt_iscache_free(isc);
}
END_TEST

static Suite *ptflow_suite(void)
{
	Suite *s = suite_create("ptflow_decode");
	TCase *tc = tcase_create("decode");

	/* Thousands of decodes; generous for ASan on a loaded machine. */
	tcase_set_timeout(tc, 1800);
	tcase_add_test(tc, dynamorio_flow);
	tcase_add_test(tc, dynamorio_no_image);
	tcase_add_test(tc, every_prefix);
	tcase_add_test(tc, prefix_enabled_at_end);
	tcase_add_test(tc, every_bit_flip);
	tcase_add_test(tc, random_corruptions);
	tcase_add_test(tc, garbage);
	tcase_add_test(tc, endless_direct_loop);
	tcase_add_test(tc, libxdc_without_images);
	tcase_add_test(tc, elf_truncated);
	tcase_add_test(tc, image_errors);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	int failed;

	find_data();
	failed = lwpt_check_run(ptflow_suite(), CK_NORMAL);
	free(trace);
	return failed;
}
