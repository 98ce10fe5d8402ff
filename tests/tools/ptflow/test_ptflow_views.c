// SPDX-License-Identifier: GPL-2.0
/*
 * In-process tests of ptflow's views (issue 15): symbols through libdwfl
 * (tools/ptflow/ptflow_sym.c) for this executable, a shared library and
 * the vdso, from /proc/self/maps as ptcap records them; the TSC clock
 * (ptflow_time.c, SDM 33.8.3); the call tracker's depth recovery
 * (ptflow_calls.c) on synthetic instruction streams; the report's
 * recursion rule (ptflow_report.c); the timeline's order (ptflow_chrome.c).
 */
#include <check.h>
#include <dlfcn.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "tools/lwpt-jitdemo/jit_dump.h"
#include "tools/ptflow/ptflow_calls.h"
#include "tools/ptflow/ptflow_jit.h"
#include "tools/ptflow/ptflow_chrome.h"
#include "tools/ptflow/ptflow_report.h"
#include "tools/ptflow/ptflow_sym.h"
#include "tools/ptflow/ptflow_time.h"
#include "tests/check_run.h"

/* --- symbols ------------------------------------------------------------ */

static char vdso_path[64];

/* A function of this executable with a known name and source file. */
__attribute__((noinline)) int views_marker_function(int x)
{
	return x * 3 + 1;
}

/*
 * Every file-backed mapping of this process, as ptcap's `maps` holds them,
 * and the vdso saved to a file at its address as ptcap does (vdso.so).
 * The maps are read whole first: libdwfl maps files while they are added.
 */
static struct ptflow_sym *self_symbols(void)
{
	struct ptflow_sym *sym = ptflow_sym_alloc(NULL, "test");
	static char maps[1 << 17];
	char line[4096];
	size_t n;
	FILE *f;

	ck_assert_ptr_nonnull(sym);
	f = fopen("/proc/self/maps", "r");
	ck_assert_ptr_nonnull(f);
	n = fread(maps, 1, sizeof(maps) - 1, f);
	fclose(f);
	ck_assert_uint_lt(n, sizeof(maps) - 1);
	f = fmemopen(maps, n, "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char path[3000];

		path[0] = '\0';
		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %2999s", &s, &e,
			   &off, path) < 3)
			continue;
		if (path[0] == '/') {
			ck_assert_int_eq(ptflow_sym_add_mapping(sym, path, s,
								off), 0);
		} else if (!strcmp(path, "[vdso]")) {
			FILE *v;

			snprintf(vdso_path, sizeof(vdso_path),
				 "/tmp/ptflow-vdso-%d.so", (int)getpid());
			v = fopen(vdso_path, "wb");
			ck_assert_ptr_nonnull(v);
			ck_assert_uint_eq(fwrite((void *)(uintptr_t)s, 1,
						 (size_t)(e - s), v), e - s);
			ck_assert_int_eq(fclose(v), 0);
			ck_assert_int_eq(ptflow_sym_add_mapping(sym, vdso_path,
								s, 0), 0);
		}
	}
	fclose(f);
	return sym;
}

START_TEST(test_sym_executable)
{
	struct ptflow_sym *sym = self_symbols();
	uint64_t fn = (uint64_t)(uintptr_t)&views_marker_function;
	struct ptflow_symbol s;
	char buf[128];

	ck_assert(ptflow_sym_lookup(sym, fn + 1, true, &s));
	ck_assert_str_eq(s.name, "views_marker_function");
	ck_assert_uint_eq(s.offset, 1);
	ck_assert_uint_eq(s.start, fn);
	ck_assert_ptr_nonnull(s.file);
	ck_assert_ptr_nonnull(strstr(s.file, "test_ptflow_views.c"));
	ck_assert_int_gt(s.line, 0);
	ck_assert(ptflow_sym_format(sym, fn, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "views_marker_function");
	ck_assert(ptflow_sym_format(sym, fn + 4, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "views_marker_function+0x4");
	/* Nothing is mapped at page 0: the address itself. */
	ck_assert(!ptflow_sym_format(sym, 0x10, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "0x10");
	ck_assert(!ptflow_sym_format(sym, UINT64_MAX - 1, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "0xfffffffffffffffe");
	ck_assert(!ptflow_sym_format(sym, 0, buf, sizeof(buf)));
	ck_assert_str_eq(buf, "0x0");
	/* Cut at every size as snprintf would. */
	for (size_t size = 1; size < 40; size++) {
		char want[128];

		ck_assert(ptflow_sym_format(sym, fn + 4, buf, size));
		snprintf(want, size, "views_marker_function+0x4");
		ck_assert_str_eq(buf, want);
		ck_assert(ptflow_sym_format(sym, fn, buf, size));
		snprintf(want, size, "views_marker_function");
		ck_assert_str_eq(buf, want);
		ck_assert(!ptflow_sym_format(sym, 0xabcdef, buf, size));
		snprintf(want, size, "0xabcdef");
		ck_assert_str_eq(buf, want);
	}
	ptflow_sym_free(sym);
	unlink(vdso_path);
}
END_TEST

/* Shared library: the name found must be a symbol at that address. */
START_TEST(test_sym_shared_library)
{
	struct ptflow_sym *sym = self_symbols();
	void *fopen_addr = dlsym(RTLD_DEFAULT, "fopen");
	struct ptflow_symbol s;
	char name[128];

	ck_assert_ptr_nonnull(fopen_addr);
	ck_assert(ptflow_sym_lookup(sym, (uint64_t)(uintptr_t)fopen_addr + 2,
				    false, &s));
	ck_assert_uint_eq(s.offset, 2);
	/* libdwfl names versioned symbols "fopen@@GLIBC_2.2.5", as perf. */
	snprintf(name, sizeof(name), "%s", s.name);
	name[strcspn(name, "@")] = '\0';
	ck_assert_ptr_eq(dlsym(RTLD_DEFAULT, name), fopen_addr);
	/* libc's, or the sanitizer runtime's interceptor under ASan. */
	ck_assert(!strcmp(s.module, "libc.so.6") ||
		  !strncmp(s.module, "libasan", 7));
	ptflow_sym_free(sym);
	unlink(vdso_path);
}
END_TEST

/* The vdso, loaded from the saved copy at its run-time address. */
START_TEST(test_sym_vdso)
{
	void *h = dlopen("linux-vdso.so.1", RTLD_NOLOAD | RTLD_LAZY);
	struct ptflow_sym *sym;
	struct ptflow_symbol s;
	void *fn;

	if (!h || !getauxval(AT_SYSINFO_EHDR)) {
		fprintf(stderr, "SKIP: no vdso in this process\n");
		return;
	}
	fn = dlsym(h, "__vdso_clock_gettime");
	ck_assert_ptr_nonnull(fn);
	sym = self_symbols();
	ck_assert(ptflow_sym_lookup(sym, (uint64_t)(uintptr_t)fn, false, &s));
	ck_assert_uint_eq(s.offset, 0);
	ck_assert(!strcmp(s.name, "__vdso_clock_gettime") ||
		  !strcmp(s.name, "clock_gettime"));
	ck_assert_ptr_nonnull(strstr(s.module, "ptflow-vdso-"));
	ptflow_sym_free(sym);
	unlink(vdso_path);
}
END_TEST

/*
 * ptflow's symbol lookups (its address table and caches, issue 17.3)
 * against libdwfl's own dwfl_module_addrinfo() in the same session
 * (ptflow_sym_lookup_dwfl()), for the file-backed modules of this process:
 * at every address of this executable's code, and around every symbol and
 * section edge of the others (value - 1, value, value + 1, end - 1, end,
 * end + 1; at most about 300 symbols of each, spread over its table), the
 * edges listed by a second libdwfl session (dwfl_linux_proc_report()). The
 * same symbol name, address, size and offset, or no symbol in both.
 */
struct ref_check {
	struct ptflow_sym *sym;
	unsigned long checked;
};

static void ref_probe(struct ref_check *rc, Dwfl_Module *mod, uint64_t lo,
		      uint64_t hi, uint64_t addr)
{
	struct ptflow_symbol got, want;
	const struct ptflow_symbol *at;
	bool found, ref;

	if (addr < lo || addr >= hi)
		return;
	ref = ptflow_sym_lookup_dwfl(rc->sym, addr, &want);
	found = ptflow_sym_lookup(rc->sym, addr, false, &got);
	rc->checked++;
	/* ptflow_sym_at() (the flow's fast path) gives the same answer. */
	at = ptflow_sym_at(rc->sym, addr);
	ck_assert_msg((at != NULL) == found, "0x%" PRIx64 ": ptflow_sym_at %s",
		      addr, at ? at->name : "(none)");
	ck_assert(!at || (at->name == got.name && at->start == got.start &&
			  at->name_len == strlen(got.name)));
	ck_assert_msg(found == ref, "0x%" PRIx64 " (%s+0x%" PRIx64 "): "
		      "ptflow %s, libdwfl %s", addr,
		      dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL,
				       NULL, NULL), addr - lo,
		      found ? got.name : "(none)", ref ? want.name : "(none)");
	if (!ref)
		return;
	ck_assert_msg(!strcmp(got.name, want.name) &&
		      got.start == want.start && got.size == want.size &&
		      got.offset == want.offset, "0x%" PRIx64 ": ptflow %s at "
		      "0x%" PRIx64 " size %" PRIu64 ", libdwfl %s at 0x%" PRIx64
		      " size %" PRIu64, addr, got.name, got.start, got.size,
		      want.name, want.start, want.size);
}

static void ref_probe_edges(struct ref_check *rc, Dwfl_Module *mod,
			    uint64_t lo, uint64_t hi, uint64_t a)
{
	ref_probe(rc, mod, lo, hi, a - 1);
	ref_probe(rc, mod, lo, hi, a);
	ref_probe(rc, mod, lo, hi, a + 1);
}

static int ref_module(Dwfl_Module *mod, void **user, const char *name,
		      Dwarf_Addr lo, void *arg)
{
	struct ref_check *rc = arg;
	Dwarf_Addr hi = 0, bias = 0;
	Elf_Scn *scn = NULL;
	Elf *elf;
	int n, nsym, step;

	(void)user;
	if (name[0] != '/')		/* the vdso: tested by test_sym_vdso */
		return DWARF_CB_OK;
	dwfl_module_info(mod, NULL, NULL, &hi, NULL, NULL, NULL, NULL);
	elf = dwfl_module_getelf(mod, &bias);
	while (elf && (scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		uint64_t a;

		if (!gelf_getshdr(scn, &sh))
			continue;
		ref_probe_edges(rc, mod, lo, hi, sh.sh_addr + bias);
		ref_probe_edges(rc, mod, lo, hi,
				sh.sh_addr + sh.sh_size + bias);
		/* This executable's code: every address, and the byte
		 * after its end (libdwfl's section end rule). */
		if (strstr(name, "test_ptflow_views") &&
		    (sh.sh_flags & SHF_EXECINSTR))
			for (a = 0; a <= sh.sh_size; a++)
				ref_probe(rc, mod, lo, hi,
					  sh.sh_addr + bias + a);
	}
	nsym = dwfl_module_getsymtab(mod);
	step = nsym > 300 ? nsym / 300 : 1;
	for (n = 1; n < nsym; n += step) {
		GElf_Sym s;
		GElf_Addr value;

		if (!dwfl_module_getsym_info(mod, n, &s, &value, NULL, NULL,
					     NULL))
			continue;
		ref_probe_edges(rc, mod, lo, hi, value);
		ref_probe_edges(rc, mod, lo, hi, value + s.st_size);
	}
	return DWARF_CB_OK;
}

START_TEST(test_sym_table_equals_libdwfl)
{
	static const Dwfl_Callbacks cb = {
		.find_elf = dwfl_linux_proc_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
	};
	struct ref_check rc = { self_symbols(), 0 };
	Dwfl *ref = dwfl_begin(&cb);

	ck_assert_ptr_nonnull(ref);
	ck_assert_int_eq(dwfl_linux_proc_report(ref, getpid()), 0);
	ck_assert_int_eq(dwfl_report_end(ref, NULL, NULL), 0);
	dwfl_getmodules(ref, ref_module, &rc, 0);
	printf("symbol table: %lu addresses as libdwfl's lookup\n",
	       rc.checked);
	ck_assert_uint_gt(rc.checked, 1000);
	dwfl_end(ref);
	ptflow_sym_free(rc.sym);
	unlink(vdso_path);
}
END_TEST

/* --- time (SDM 33.8.3) ---------------------------------------------------- */

START_TEST(test_time_conversion)
{
	struct ptflow_clock clk;

	/* The DynamoRIO trace's machine: nominal ratio 37, i.e. a 3.7 GHz
	 * TSC (MSR_PLATFORM_INFO[15:8] x 100 MHz). */
	ptflow_clock_init(&clk, 0, 37);
	ck_assert(ptflow_clock_known(&clk));
	ck_assert_uint_eq(clk.hz, 3700000000ull);
	/* Its two syscalls: libipt's and libpt's estimates (ptdump --time,
	 * CYC before each TIP.PGD) are 0x2fa1088fb28645 and
	 * 0x2fa1088fb38d21: 67292 ticks = 18187.02 ns. */
	ptflow_clock_start(&clk, 0x2fa1088fb28645ull);
	ck_assert_uint_eq(ptflow_clock_ns(&clk, 0x2fa1088fb38d21ull), 18187);
	ck_assert_uint_eq(ptflow_clock_ns(&clk, 0x2fa1088fb28645ull - 1), 0);

	/* SDM 33.8.3.1: an MTC period is 2^MTCFreq ART ticks of
	 * CPUID.15H:EBX/EAX TSC ticks each: 8 * 308 / 2 = 1232 ticks, which
	 * a given tsc-freq of 1 GHz makes 1232 ns. */
	ptflow_clock_init(&clk, 1000000000ull, 37);
	ptflow_clock_start(&clk, 1000);
	ck_assert_uint_eq(ptflow_clock_ns(&clk, 1000 + (8 * 308 / 2)), 1232);

	/* No frequency: ticks. */
	ptflow_clock_init(&clk, 0, 0);
	ck_assert(!ptflow_clock_known(&clk));
	ck_assert_uint_eq(ptflow_clock_ns(&clk, 500), 0);
	ck_assert_uint_eq(ptflow_clock_ns(&clk, 1500), 1000);

	/* No overflow at the ends of the range. */
	ck_assert_uint_eq(ptflow_ticks_to_ns(2100000000ull, 2100000000ull),
			  1000000000ull);
	ck_assert_uint_eq(ptflow_ticks_to_ns(UINT64_MAX, 1000000000ull),
			  UINT64_MAX);
	ck_assert_uint_eq(ptflow_ticks_to_ns(UINT64_MAX, 17000000000ull),
			  1085102592571150095ull);
}
END_TEST

/* --- the call tracker ------------------------------------------------------ */

struct tracker {
	struct ptflow_calls c;
	struct ptflow_clock clk;
	char *text;
	size_t len;
};

static void tracker_start(struct tracker *t)
{
	memset(t, 0, sizeof(*t));
	ptflow_clock_init(&t->clk, 1000000000ull, 0);
	t->c.out = open_memstream(&t->text, &t->len);
	t->c.clock = &t->clk;
	t->c.report = ptflow_report_alloc();
	t->c.chrome = ptflow_chrome_alloc();
	ck_assert_ptr_nonnull(t->c.out);
	ck_assert_int_eq(ptflow_calls_begin(&t->c, "t", 1, 1), 0);
}

/* One instruction of @size bytes at @ip, class @cls, at time @tsc. */
static void step(struct tracker *t, uint64_t ip, uint8_t size,
		 enum pt_insn_class cls, uint64_t tsc)
{
	struct pt_insn insn;

	memset(&insn, 0, sizeof(insn));
	insn.ip = ip;
	insn.size = size;
	insn.iclass = cls;
	if (cls == ptic_far_call) {
		insn.raw[0] = 0x0f;
		insn.raw[1] = 0x05;
	}
	ptflow_calls_insn(&t->c, &insn, tsc);
}

/* The --calls text without the time and thread columns. */
static char *tracker_text(struct tracker *t)
{
	char *out, *o, *line;

	ck_assert_int_eq(ptflow_calls_end(&t->c), 0);
	fclose(t->c.out);
	out = calloc(1, t->len + 1);
	o = out;
	for (line = strtok(t->text, "\n"); line; line = strtok(NULL, "\n"))
		o += sprintf(o, "%s\n", strlen(line) > 26 ? line + 26 : "");
	return out;
}

static void tracker_stop(struct tracker *t)
{
	ptflow_calls_fini(&t->c);
	ptflow_report_free(t->c.report);
	ptflow_chrome_free(t->c.chrome);
	free(t->text);
}

START_TEST(test_calls_nesting)
{
	struct tracker t;
	char *text;

	tracker_start(&t);
	step(&t, 0x1000, 5, ptic_call, 10);	/* main: call f */
	step(&t, 0x2000, 5, ptic_call, 20);	/* f: call g */
	step(&t, 0x3000, 1, ptic_return, 30);	/* g: ret */
	step(&t, 0x2005, 2, ptic_far_call, 40);	/* f: syscall */
	step(&t, 0x2007, 1, ptic_return, 50);	/* f: ret */
	step(&t, 0x1005, 1, ptic_other, 60);	/* main */
	text = tracker_text(&t);
	ck_assert_str_eq(text,
			 "call 0x2000\n"
			 "  call 0x3000\n"
			 "  return 0x3000\n"
			 "  syscall\n"
			 "return 0x2000\n");
	free(text);
	tracker_stop(&t);
}
END_TEST

/* longjmp: frames left without RET are unwound at the next matching RET. */
START_TEST(test_calls_longjmp)
{
	struct tracker t;
	char *text;

	tracker_start(&t);
	step(&t, 0x1000, 5, ptic_call, 1);	/* main: call a (ret 0x1005) */
	step(&t, 0x2000, 5, ptic_call, 2);	/* a: call b (ret 0x2005) */
	step(&t, 0x3000, 5, ptic_call, 3);	/* b: call c (ret 0x3005) */
	step(&t, 0x4000, 2, ptic_jump, 4);	/* c: longjmp into a */
	step(&t, 0x2010, 1, ptic_return, 5);	/* a: ret to main */
	step(&t, 0x1005, 1, ptic_other, 6);
	text = tracker_text(&t);
	ck_assert_str_eq(text,
			 "call 0x2000\n"
			 "  call 0x3000\n"
			 "    call 0x4000\n"
			 "    unwind 0x4000\n"
			 "  unwind 0x3000\n"
			 "return 0x2000\n");
	free(text);
	tracker_stop(&t);
}
END_TEST

/* Returns above the first function; a RET that matches no frame. */
START_TEST(test_calls_root_and_unmatched)
{
	struct tracker t;
	char *text;

	tracker_start(&t);
	step(&t, 0x2000, 1, ptic_return, 1);	/* leaf returns to 0x1005 */
	step(&t, 0x1005, 5, ptic_call, 2);	/* caller: call 0x3000 */
	step(&t, 0x3000, 1, ptic_return, 3);	/* ret used as a jump */
	step(&t, 0x5000, 1, ptic_other, 4);	/* ...to 0x5000 */
	text = tracker_text(&t);
	ck_assert_str_eq(text,
			 "return 0x2000\n"
			 "call 0x3000\n"
			 "  return to 0x5000 (no matching call)\n");
	free(text);
	tracker_stop(&t);
}
END_TEST

/* Lost trace keeps the stack; the event line says so. */
START_TEST(test_calls_overflow)
{
	struct tracker t;
	char *text;

	tracker_start(&t);
	step(&t, 0x1000, 5, ptic_call, 1);
	step(&t, 0x2000, 5, ptic_call, 2);
	ptflow_calls_event(&t.c, PTFLOW_CALLS_OVERFLOW, 0, 3, NULL);
	step(&t, 0x2100, 1, ptic_return, 4);	/* resumes in the caller */
	step(&t, 0x1005, 1, ptic_other, 5);
	text = tracker_text(&t);
	ck_assert_str_eq(text,
			 "call 0x2000\n"
			 "  overflow (trace lost, depth 1 kept)\n"
			 "return 0x2000\n");
	free(text);
	tracker_stop(&t);
}
END_TEST

/* Recursion: the total of a function counts its outermost activation. */
START_TEST(test_report_recursion)
{
	struct ptflow_report *r = ptflow_report_alloc();
	char *text;
	size_t len;
	FILE *f;

	ck_assert_int_eq(ptflow_report_enter(r, 0x10, "rec", true), 0);
	ck_assert_int_eq(ptflow_report_enter(r, 0x10, "rec", true), 0);
	ck_assert_int_eq(ptflow_report_self(r, 0x10, "rec", 5, 0), 0);
	ptflow_report_leave(r, 0x10, 3, 0);
	ptflow_report_leave(r, 0x10, 5, 0);
	f = open_memstream(&text, &len);
	ptflow_report_print(r, f, "x", 0);
	fclose(f);
	ck_assert_str_eq(text,
			 "[report x: 5 instructions]\n"
			 "  self-insns  total-insns  self-%    calls  function\n"
			 "           5            5  100.00        2  rec\n");
	free(text);
	ptflow_report_free(r);
}
END_TEST

/* The timeline: per thread, by begin time, callers first; JSON strings. */
START_TEST(test_chrome_order)
{
	struct ptflow_chrome *c = ptflow_chrome_alloc();
	char *text;
	size_t len;
	FILE *f;

	ck_assert_int_eq(ptflow_chrome_add(c, 1, 2, "in\"ner", 1, 1000, 1500), 0);
	ck_assert_int_eq(ptflow_chrome_add(c, 1, 2, "outer", 0, 1000, 2001), 0);
	ck_assert_int_eq(ptflow_chrome_thread(c, 1, 2, "tid 2"), 0);
	f = open_memstream(&text, &len);
	ck_assert_int_eq(ptflow_chrome_write(c, f), 0);
	fclose(f);
	ck_assert_str_eq(text,
		"{\"displayTimeUnit\": \"ns\", \"traceEvents\": [\n"
		"{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 2, \"args\": {\"name\": \"tid 2\"}},\n"
		"{\"name\": \"outer\", \"cat\": \"call\", \"ph\": \"X\", \"ts\": 1.000, \"dur\": 1.001, \"pid\": 1, \"tid\": 2, \"args\": {\"depth\": 0}},\n"
		"{\"name\": \"in\\\"ner\", \"cat\": \"call\", \"ph\": \"X\", \"ts\": 1.000, \"dur\": 0.500, \"pid\": 1, \"tid\": 2, \"args\": {\"depth\": 1}}\n"
		"]}\n");
	free(text);
	ptflow_chrome_free(c);
}
END_TEST

/* --- JIT code: lwpt-jitdemo's writer, ptflow's readers ------------------- */

/* Code bytes of a made-up function, at a made-up address. */
static const uint8_t jit_code[] = { 0x48, 0x89, 0xf8, 0x48, 0x01, 0xf0, 0xc3 };

START_TEST(test_jit_round_trip)
{
	struct pt_image_section_cache *isc = pt_iscache_alloc(NULL);
	struct pt_image *image = pt_image_alloc(NULL);
	struct ptflow_sym *sym = ptflow_sym_alloc(NULL, "test");
	char dir[] = "/tmp/ptflow-jit-XXXXXX", dump[128], map[64];
	struct ptflow_symbol s;
	uint8_t *copy;
	size_t n;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	setenv("LWPT_JITDUMP_DIR", dir, 1);
	/* The writer takes the code where it is: a copy stands for it. */
	copy = malloc(sizeof(jit_code));
	memcpy(copy, jit_code, sizeof(jit_code));
	ck_assert_int_eq(jit_dump_code("jit_add", copy, sizeof(jit_code)), 0);
	ck_assert_int_eq(jit_dump_code("jit_second", copy + 3, 4), 0);
	snprintf(dump, sizeof(dump), "%s/jit-%d.dump", dir, (int)getpid());
	snprintf(map, sizeof(map), "/tmp/perf-%d.map", (int)getpid());
	ck_assert(ptflow_jit_is_dump(dump));
	ck_assert(!ptflow_jit_is_dump("/tmp/jit-.dumpx"));

	ck_assert_int_eq(ptflow_jit_read_dump(dump, image, isc, sym, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert(ptflow_sym_lookup(sym, (uint64_t)(uintptr_t)copy + 2, false,
				    &s));
	ck_assert_str_eq(s.name, "jit_add");
	ck_assert_uint_eq(s.offset, 2);
	/* The later record covers its range (code reloaded there). */
	ck_assert(ptflow_sym_lookup(sym, (uint64_t)(uintptr_t)copy + 3, false,
				    &s));
	ck_assert_str_eq(s.name, "jit_second");
	ck_assert_ptr_nonnull(strstr(s.module, "jit-"));
	ptflow_sym_free(sym);

	sym = ptflow_sym_alloc(NULL, "test");
	ck_assert_int_eq(ptflow_jit_read_perf_map(map, sym, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert(ptflow_sym_lookup(sym, (uint64_t)(uintptr_t)copy, false,
				    &s));
	ck_assert_str_eq(s.name, "jit_add");

	/* A cut record ends the file; a bad header is refused. */
	ck_assert_int_eq(truncate(dump, 40 + 56 + 8 + 7 + 10), 0);
	ck_assert_int_eq(ptflow_jit_read_dump(dump, image, isc, sym, &n), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_int_eq(truncate(dump, 20), 0);
	ck_assert_int_eq(ptflow_jit_read_dump(dump, image, isc, sym, &n),
			 -PTFLOW_JIT_E_FORMAT);
	ck_assert_int_eq(ptflow_jit_read_dump("/nonexistent/jit-1.dump", image,
					      isc, sym, &n), -PTFLOW_JIT_E_IO);

	unlink(dump);
	unlink(map);
	rmdir(dir);
	free(copy);
	ptflow_sym_free(sym);
	pt_image_free(image);
	pt_iscache_free(isc);
}
END_TEST

static Suite *views_suite(void)
{
	Suite *s = suite_create("ptflow_views");
	TCase *tc = tcase_create("views");

	/* Symbol loading reads libc's tables: a few seconds at most. */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_sym_executable);
	tcase_add_test(tc, test_sym_shared_library);
	tcase_add_test(tc, test_sym_vdso);
	tcase_add_test(tc, test_sym_table_equals_libdwfl);
	tcase_add_test(tc, test_time_conversion);
	tcase_add_test(tc, test_calls_nesting);
	tcase_add_test(tc, test_calls_longjmp);
	tcase_add_test(tc, test_calls_root_and_unmatched);
	tcase_add_test(tc, test_calls_overflow);
	tcase_add_test(tc, test_report_recursion);
	tcase_add_test(tc, test_chrome_order);
	tcase_add_test(tc, test_jit_round_trip);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return lwpt_check_run(views_suite(), CK_NORMAL);
}
