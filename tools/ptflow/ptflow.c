// SPDX-License-Identifier: GPL-2.0
/*
 * ptflow - reconstruct the executed instructions of an Intel PT trace.
 *
 * Input: a raw trace plus memory images (--pt, --elf, --raw), or a ptcap
 * output directory (Documentation/ptcap-format.rst). Decoding is done by
 * libipt's instruction flow decoder, disassembly by Capstone. The output
 * format is specified in Documentation/ptflow.rst and ptflow.1.
 *
 * Errors in the trace never stop the tool: each one is reported with its
 * trace offset and reason, the decoder searches the next PSB (SDM 33.4.2.17)
 * and goes on. The exit status tells whether any error occurred.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <capstone/capstone.h>
#include <intel-pt.h>

#include <lwpt/perf_data.h>
#include <lwpt/capture_src.h>
#include <lwpt/ptcap_dir.h>
#include "tools/ptflow/ptflow_buildid.h"
#include "tools/ptflow/ptflow_decode.h"
#include "tools/ptflow/ptflow_flow.h"
#include "tools/ptflow/ptflow_image.h"
#include "tools/ptflow/ptflow_jit.h"
#include "tools/ptflow/ptflow_lbr.h"
#include "tools/ptflow/ptflow_btssys.h"
#include "tools/ptflow/ptflow_sys.h"

#ifndef LWPT_VERSION
#define LWPT_VERSION	"unknown"	/* the Makefile passes the package's */
#endif
#define PTFLOW_VERSION	LWPT_VERSION

/* Exit status: see ptflow.1, EXIT STATUS. */
enum ptflow_exit {
	PTFLOW_EXIT_OK		= 0,	/* decoded, no error in the trace */
	PTFLOW_EXIT_DECODE	= 1,	/* decoded, with trace errors */
	PTFLOW_EXIT_USAGE	= 2,	/* bad options or unusable input */
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
"usage: %s [<options>] --pt <file>[:<from>[-<to>]] (--elf ...|--raw ...)...\n"
"       %s [<options>] <ptcap-directory>|<perf.data>|-\n"
"\n"
"Reconstruct the executed instructions of an Intel PT trace.\n"
"\n"
"input:\n"
"  --pt <file>[:<from>[-<to>]]          raw Intel PT data, optionally a byte range.\n"
"  --elf <file>[:<base>]                load the PT_LOAD segments of an ELF at their\n"
"                                       addresses, or relative to <base>.\n"
"  --raw <file>[:<from>[-<to>]]:<base>  load bytes of <file> at address <base>.\n"
"  <ptcap-directory>                    decode every *.pt file of a ptcap directory\n"
"                                       with its config and maps files (ptcap -a:\n"
"                                       each process's pieces with its own maps).\n"
"  <perf.data>, -                       a perf.data of perf record -e intel_pt//\n"
"                                       (file or pipe format; - reads stdin),\n"
"                                       decoded as a ptcap directory.\n"
"  --symfs <dir>                        look for the perf.data's binaries below\n"
"                                       <dir> (perf's --symfs; a recorded path\n"
"                                       may not lead out of it).\n"
"  --max-decompressed <size>            a perf.data's compressed records may\n"
"                                       decompress to <size> bytes (K, M, G):\n"
"                                       default 64x their size + 1 MiB, <= 1 GiB.\n"
"  --vmlinux <file>, -k <file>          the kernel's code for a perf.data.\n"
"  --force                              decode with a file whose build-id is\n"
"                                       not the one the capture recorded (a\n"
"                                       rebuilt binary; a warning): else the\n"
"                                       capture is refused, both ids named.\n"
"  --jitdump <file>                     load the code and names of a jitdump\n"
"                                       (jit-<pid>.dump, perf's format).\n"
"  --perf-map <file>                    names of JIT code (/tmp/perf-<pid>.map).\n"
"decoder parameters (override the ptcap config):\n"
"  --cpu none|<f>/<m>[/<s>]             cpu family/model/stepping (for errata).\n"
"  --mtc-freq <n>                       IA32_RTIT_CTL.MTCFreq.\n"
"  --nom-freq <n>                       MSR_PLATFORM_INFO[15:8].\n"
"  --cpuid-0x15.eax <n>                 CPUID.15H:EAX.\n"
"  --cpuid-0x15.ebx <n>                 CPUID.15H:EBX.\n"
"output:\n"
"  --att                                AT&T syntax (the default).\n"
"  --intel                              Intel syntax.\n"
"  --no-inst                            print addresses only.\n"
"  --raw-insn                           print the instruction bytes.\n"
"  --offset                             print the trace offset on each line.\n"
"  --time                               print the time stamp (TSC) on each line.\n"
"  --quiet|-q                           print no flow (errors and --stat still).\n"
"  --stat                               print instruction and error counts.\n"
"  --no-symbols                         no <symbol+offset> after addresses.\n"
"  --line                               add file:line from DWARF debug info.\n"
"views (instead of the instruction flow):\n"
"  --calls                              call/return trace: time (ns), thread,\n"
"                                       depth, function.\n"
"  --report                             hot spots: instructions and time per\n"
"                                       function, self and with callees.\n"
"  --export=chrome <file>               the calls as Chrome Trace Event JSON\n"
"                                       (Perfetto, chrome://tracing, speedscope).\n"
"  --tsc-freq <hz>                      TSC frequency for times in ns.\n"
"  --pid <pid>, --tid <tid>             decode only the per-thread traces of\n"
"                                       that process or thread, or its pieces of\n"
"                                       a system-wide capture (ptcap -a).\n"
"  --engine=libipt|lwpt                 the decoder: libipt's instruction\n"
"                                       decoder (the default), or libpt's flow\n"
"                                       engine (the listing, --time, --offset,\n"
"                                       --calls, --report, --export; system-wide\n"
"                                       captures with libipt, said on stderr).\n"
"  -j N, --jobs=N                       --engine=lwpt: decode a large trace\n"
"                                       on N threads, cut at PSBs into chunks\n"
"                                       (default 1); the output is the same for\n"
"                                       every N.\n"
"  --chunk-size BYTES                   target chunk size of -j (K, M; default:\n"
"                                       the trace over 4N, 16 KiB..128 KiB).\n"
"  --help|-h                            this text.\n"
"  --version                            version of ptflow and libipt.\n",
		prog, prog);
}

/* Strict unsigned number: decimal, 0x hex or 0 octal, all of @s. */
static bool parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	unsigned long long n;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	n = strtoull(s, &end, 0);
	if (errno || *end || n > max)
		return false;
	*v = n;
	return true;
}

/*
 * Split "<text>:<a>" at the last ':' if <a> is a number: sets *num, cuts
 * @arg at the ':' and returns true. Otherwise leaves @arg alone.
 */
static bool split_number(char *arg, uint64_t *num)
{
	char *sep = strrchr(arg, ':');

	if (!sep || !parse_u64(sep + 1, UINT64_MAX, num))
		return false;
	*sep = '\0';
	return true;
}

/*
 * Split "<file>:<from>[-<to>]" at the last ':' if what follows is a range
 * (file names may contain ':'). *size is 0 for "to the end".
 * Returns false for a range with to <= from.
 */
static bool split_range(char *arg, uint64_t *from, uint64_t *size)
{
	char *sep = strrchr(arg, ':'), *dash;
	uint64_t a, b;

	*from = 0;
	*size = 0;
	if (!sep)
		return true;

	dash = strchr(sep + 1, '-');
	if (dash) {
		*dash = '\0';
		if (!parse_u64(sep + 1, UINT64_MAX, &a) ||
		    !parse_u64(dash + 1, UINT64_MAX, &b)) {
			*dash = '-';
			return true;
		}
		if (b <= a)
			return false;
		*from = a;
		*size = b - a;
	} else {
		if (!parse_u64(sep + 1, UINT64_MAX, &a))
			return true;
		*from = a;
	}
	*sep = '\0';
	return true;
}

/*
 * Load bytes [from, from + size) of @path (size 0: to the end).
 * Returns 0, or -1 after printing a message.
 */
static int load_trace(const struct ptflow *pf, const char *path, uint64_t from,
		      uint64_t size, uint8_t **buf, size_t *len)
{
	struct stat st;
	uint8_t *data;
	size_t done = 0;
	int fd;

	/* never blocks on a FIFO or device; a sparse file is no trace */
	fd = ptcap_file_open(NULL, path, 0, PTCAP_FILE_NOT_SPARSE, NULL);
	if (fd < 0) {
		fprintf(stderr, "%s: %s: %s\n", pf->prog, path, fd == -PTCAP_E_IO ?
			strerror(errno) : ptcap_dir_strerror(fd));
		return -1;
	}
	if (fstat(fd, &st)) {
		fprintf(stderr, "%s: %s: %s\n", pf->prog, path, strerror(errno));
		close(fd);
		return -1;
	}
	if ((uint64_t)st.st_size < from ||
	    (size && (uint64_t)st.st_size - from < size)) {
		fprintf(stderr, "%s: %s: range 0x%" PRIx64 "-0x%" PRIx64
			" outside the file (0x%jx bytes)\n", pf->prog, path,
			from, from + size, (uintmax_t)st.st_size);
		close(fd);
		return -1;
	}
	if (!size)
		size = (uint64_t)st.st_size - from;
	if (size > SIZE_MAX - PTFLOW_TRACE_PAD) {
		fprintf(stderr, "%s: %s: too large\n", pf->prog, path);
		close(fd);
		return -1;
	}

	/* Zero padding after the trace: see PTFLOW_TRACE_PAD. */
	data = calloc(1, (size_t)size + PTFLOW_TRACE_PAD);
	if (!data) {
		fprintf(stderr, "%s: %s: out of memory\n", pf->prog, path);
		close(fd);
		return -1;
	}
	while (done < size) {
		ssize_t n = pread(fd, data + done, (size_t)size - done,
				  (off_t)(from + done));

		if (n <= 0) {
			fprintf(stderr, "%s: %s: %s\n", pf->prog, path,
				n < 0 ? strerror(errno) : "file shrank");
			free(data);
			close(fd);
			return -1;
		}
		done += (size_t)n;
	}
	close(fd);
	*buf = data;
	*len = (size_t)size;
	return 0;
}

static int add_elf(struct ptflow *pf, char *arg)
{
	uint64_t base = 0;
	bool has_base;
	int err;

	/* "<file>:<base>" unless the file itself exists with that name. */
	has_base = access(arg, F_OK) && split_number(arg, &base);
	err = ptflow_image_add_elf(pf->image, pf->iscache, arg, has_base, base);
	if (err >= 0 && ptflow_sym_add_elf(pf->sym, arg, has_base, base)) {
		fprintf(stderr, "%s: out of memory\n", pf->prog);
		return -1;
	}
	if (err < 0) {
		fprintf(stderr, "%s: --elf %s: %s%s%s\n", pf->prog, arg,
			pt_errstr(pt_errcode(err)),
			err == -pte_bad_file ? ": " : "",
			err == -pte_bad_file ? strerror(errno) : "");
		return -1;
	}
	return 0;
}

static int add_raw(struct ptflow *pf, char *arg)
{
	uint64_t vaddr, from, size;
	int err;

	if (!split_number(arg, &vaddr)) {
		fprintf(stderr, "%s: --raw %s: missing :<base> address\n",
			pf->prog, arg);
		return -1;
	}
	if (!split_range(arg, &from, &size)) {
		fprintf(stderr, "%s: --raw %s: empty or reversed range\n",
			pf->prog, arg);
		return -1;
	}
	err = ptflow_image_add_raw(pf->image, pf->iscache, arg, from, size,
				   vaddr);
	if (err < 0) {
		fprintf(stderr, "%s: --raw %s: %s%s%s\n", pf->prog, arg,
			pt_errstr(pt_errcode(err)),
			err == -pte_bad_file ? ": " : "",
			err == -pte_bad_file ? strerror(errno) : "");
		return -1;
	}
	return 0;
}

/* A jitdump or perf map error, with errno for I/O errors. */
static int jit_error(const struct ptflow *pf, const char *path, int err)
{
	fprintf(stderr, "%s: %s: %s%s%s\n", pf->prog, path,
		ptflow_jit_strerror(err), err == -PTFLOW_JIT_E_IO ? ": " : "",
		err == -PTFLOW_JIT_E_IO ? strerror(errno) : "");
	return -1;
}

/* --jitdump FILE, or a jit-<pid>.dump line of a capture's maps. */
static int add_jitdump(struct ptflow *pf, char *path)
{
	size_t n;
	int err;

	err = ptflow_jit_read_dump(path, pf->image, pf->iscache, pf->sym, &n);
	return err ? jit_error(pf, path, err) : 0;
}

/* --perf-map FILE. */
static int add_perf_map(struct ptflow *pf, char *path)
{
	size_t n;
	int err;

	err = ptflow_jit_read_perf_map(path, pf->sym, &n);
	return err ? jit_error(pf, path, err) : 0;
}

static bool parse_cpu(const char *arg, struct ptflow_params *par)
{
	uint64_t f, m, s = 0;
	char buf[64], *p1, *p2;

	if (!strcmp(arg, "none")) {
		memset(&par->cpu, 0, sizeof(par->cpu));
		par->has_cpu = true;
		return true;
	}
	if (strlen(arg) >= sizeof(buf))
		return false;
	strcpy(buf, arg);
	p1 = strchr(buf, '/');
	if (!p1)
		return false;
	*p1++ = '\0';
	p2 = strchr(p1, '/');
	if (p2)
		*p2++ = '\0';
	if (!parse_u64(buf, UINT16_MAX, &f) || !parse_u64(p1, UINT8_MAX, &m) ||
	    (p2 && !parse_u64(p2, UINT8_MAX, &s)))
		return false;

	memset(&par->cpu, 0, sizeof(par->cpu));
	par->cpu.vendor = pcv_intel;
	par->cpu.family = (uint16_t)f;
	par->cpu.model = (uint8_t)m;
	par->cpu.stepping = (uint8_t)s;
	par->has_cpu = true;
	return true;
}

static int decode_file(struct ptflow *pf, const char *path, uint64_t from,
		       uint64_t size, const char *name)
{
	uint8_t *buf;
	size_t len;
	int err;

	if (load_trace(pf, path, from, size, &buf, &len))
		return -1;
	err = ptflow_decode_buffer(pf, buf, len, name);
	free(buf);
	return err;
}

/* "DIR/FILE" of a ptcap directory, "PERF.DATA: FILE" of a perf.data: the
 * file of the capture a message is about, into @buf. */
static const char *src_file(struct lpt_capsrc *src, const char *file, char *buf,
			    size_t size)
{
	bool dir = lpt_capsrc_kind(src) == LPT_CAPSRC_PTCAP_DIR;

	snprintf(buf, size, "%s%s%s", lpt_capsrc_path(src), dir ? "/" : ": ", file);
	return buf;
}

/* Report an error of the capture's file @file (lpt_capsrc_where() when
 * NULL), with errno for I/O errors. */
static void capdir_error(const struct ptflow *pf, struct lpt_capsrc *src,
			 const char *file, int err)
{
	char buf[4400];
	size_t line = 0;
	const char *where = lpt_capsrc_where(src, &line);

	if (file)
		line = 0;
	src_file(src, file ? file : where, buf, sizeof(buf));
	if (err == -PTCAP_E_IO)
		fprintf(stderr, "%s: %s: %s\n", pf->prog, buf, strerror(errno));
	else if (line)
		fprintf(stderr, "%s: %s:%zu: %s\n", pf->prog, buf, line,
			ptcap_dir_strerror(err));
	else
		fprintf(stderr, "%s: %s: %s\n", pf->prog, buf, ptcap_dir_strerror(err));
}

/*
 * The LBR stack ptcap --lbr-on-crash wrote for trace @trace (its config's
 * "lbr-crash.<trace>" line), printed as the thread's last branches after
 * its flow unless --quiet or --report. Returns 0, or -1 if the file named
 * cannot be read or parsed.
 */
static int lbr_crash_print(struct ptflow *pf, struct lpt_capsrc *src, const char *trace)
{
	struct ptflow_lbr lbr;
	const char *ct;
	char name[256], path[4400];
	size_t clen, len;
	char *text;
	FILE *f;

	ct = lpt_capsrc_config_text(src, &clen);
	if (!ct || !ptflow_lbr_config_file(ct, clen, trace, name, sizeof(name)))
		return 0;
	if (pf->opt.quiet || pf->opt.report)
		return 0;
	if (lpt_capsrc_kind(src) != LPT_CAPSRC_PTCAP_DIR) {
		fprintf(stderr, "%s: %s: LBR stacks are read from capture directories only\n",
			pf->prog, name);
		return 0;
	}
	src_file(src, name, path, sizeof(path));
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", pf->prog, path, strerror(errno));
		return -1;
	}
	text = malloc(65536);
	len = text ? fread(text, 1, 65536, f) : 0;
	fclose(f);
	if (!text || ptflow_lbr_parse(text, len, &lbr)) {
		fprintf(stderr, "%s: %s: not an lwpt-lbr 1 file\n", pf->prog, path);
		free(text);
		return -1;
	}
	free(text);
	ptflow_line_flush(&pf->line);
	ptflow_lbr_print(pf, &lbr);
	return 0;
}

/* Load the config and maps of a capture. Returns 0 or -1. */
static int capdir_load(struct ptflow *pf, struct lpt_capsrc *src)
{
	const struct ptcap_addr_range *addr;
	const struct ptcap_config *cfg;
	struct ptcap_maps maps;
	char where[4400];
	size_t i;
	int err;

	err = lpt_capsrc_config(src, &cfg, &addr);
	if (err) {
		capdir_error(pf, src, NULL, err);
		return -1;
	}
	memcpy(pf->par.addr, addr, sizeof(pf->par.addr));
	ptflow_params_from_config(&pf->par, cfg);
	if (cfg->format == PTCAP_FORMAT_BTS)
		ptflow_flow_bts_use(pf);	/* BTS records, not PT */

	err = lpt_capsrc_maps(src, &maps);
	if (err) {
		capdir_error(pf, src, NULL, err);
		return -1;
	}
	src_file(src, PTCAP_MAPS_FILE, where, sizeof(where));
	for (i = 0; i < maps.nmaps; i++) {
		const struct ptcap_map *m = &maps.map[i];
		char *path = m->path;	/* ready to open */

		/* A JIT's marker mapping of its jitdump (perf's
		 * convention): the code is in the file's records. */
		if (ptflow_jit_is_dump(path)) {
			(void)add_jitdump(pf, path);
			continue;
		}
		/* Another binary than the one traced: refused. */
		if (!ptflow_buildid_use(pf, m, path))
			continue;
		/* A mapping we cannot load only costs decode errors later. */
		err = ptflow_image_add_raw(pf->image, pf->iscache, path,
					   m->offset, m->size, m->start);
		if (err < 0)
			fprintf(stderr, "%s: warning: %s: %s at 0x%" PRIx64
				": %s\n", pf->prog, where, path, m->start,
				ptflow_image_why(path, err));
		else if (ptflow_sym_add_mapping(pf->sym, path, m->start,
						m->offset))
			fprintf(stderr, "%s: out of memory\n", pf->prog);
	}
	ptcap_maps_free(&maps);
	return ptflow_buildid_refuse(pf, lpt_capsrc_path(src));
}

/*
 * The thread of a trace (Documentation/ptcap-format.rst): tid<N>.pt (a
 * BTS capture's tid<N>.bts, either with a .p<k> part) is thread N of the
 * process its "thread.<file> ... pid=" line (a perf.data's queue) names,
 * cpu<N>.pt all threads on CPU N. Returns false for a per-CPU trace.
 */
static bool trace_thread(struct ptflow *pf, const struct lpt_capsrc_trace *tr,
			 char *label, size_t size)
{
	const char *name = tr->name;
	unsigned int n;
	char c;

	pf->pid = 0;
	pf->tid = 0;
	if (sscanf(name, "tid%u.p%c", &n, &c) == 2 ||
	    sscanf(name, "tid%u.bt%c", &n, &c) == 2) {
		pf->pid = n;
		pf->tid = n;
		if (tr->has_thread) {
			pf->tid = tr->tid;
			pf->pid = tr->pid;
		}
		snprintf(label, size, "tid %u", pf->tid);
		pf->thread = label;
		return true;
	}
	if (sscanf(name, "cpu%u.p%c", &n, &c) == 2) {
		snprintf(label, size, "cpu %u", n);
		pf->tid = n;
	} else {
		snprintf(label, size, "%s", name);
	}
	pf->thread = label;
	return false;
}

/*
 * ---- Where the trace starts (issue 16 point 5) ----
 *
 * Kept apart from the flow output on purpose: print one line before the
 * flow when the capture does not start where the program started, from
 * ptcap's own config keys (Documentation/ptcap-format.rst): an
 * "outcome.<file> wrapped overwritten=N" line (wrap mode overwrote the
 * start) and "attached pid=N" (ptcap -p/-t attached to a running
 * process). A config without them (a perf.data has none) prints nothing.
 */
static void capdir_say_start(const struct ptflow *pf, struct lpt_capsrc *src)
{
	char *text, *line, *save = NULL;
	const char *cfg;
	size_t len;

	if (pf->opt.quiet)
		return;
	cfg = lpt_capsrc_config_text(src, &len);
	if (!cfg || !(text = strndup(cfg, len)))
		return;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char file[256], bytes[32];

		if (sscanf(line, "outcome.%255s wrapped overwritten%*[>=]%31[0-9]", file,
			   bytes) == 2)
			printf("[trace starts mid-run: %s: %s%s bytes of the start were "
			       "overwritten (wrap mode)]\n", file, strstr(line, ">=") ? "at least " : "", bytes);
		else if (!strncmp(line, "attached ", 9))
			printf("[trace starts mid-run: ptcap attached to a running process (%s)]\n",
			       line + 9);
	}
	free(text);
}

/*
 * Set @pf->gaps for trace @tr (its "gaps.<name>" line, ptcap-format.rst;
 * the source keeps them); gaps_clear() forgets them. Returns 0 or -1
 * (said).
 */
static int gaps_set(struct ptflow *pf, struct lpt_capsrc *src,
		    const struct lpt_capsrc_trace *tr)
{
	if (tr->gaps_err) {
		capdir_error(pf, src, PTCAP_CONFIG_FILE, tr->gaps_err);
		return -1;
	}
	pf->gaps = tr->ngaps ? tr->gaps : NULL;
	pf->ngaps = tr->ngaps;
	return 0;
}

static void gaps_clear(struct ptflow *pf)
{
	pf->gaps = NULL;
	pf->ngaps = 0;
}

/* Trace @i of @src into a buffer with the decoder's padding. Returns 0 or
 * -1 (said). */
static int load_src_trace(const struct ptflow *pf, struct lpt_capsrc *src, size_t i,
			  const struct lpt_capsrc_trace *tr, uint8_t **buf, size_t *len)
{
	char where[4400];
	int err = lpt_capsrc_load(src, i, 0, PTFLOW_TRACE_PAD, buf, len);

	if (!err)
		return 0;
	src_file(src, tr->name, where, sizeof(where));
	fprintf(stderr, "%s: %s: %s\n", pf->prog, where, err == -PTCAP_E_IO ?
		strerror(errno) : ptcap_dir_strerror(err));
	return -1;
}

/*
 * A system-wide capture (ptflow_sys.h): load every trace, split them by
 * thread, decode each piece with its process's image. Returns 0 or -1.
 */
static int decode_sys(struct ptflow *pf, struct ptflow_sys *sys, struct lpt_capsrc *src,
		      const struct lpt_capsrc_trace *tr, size_t count)
{
	uint8_t **bufs = calloc(count, sizeof(*bufs));
	size_t *lens = calloc(count, sizeof(*lens)), i;
	int ret = 0;

	if (!bufs || !lens) {
		fprintf(stderr, "%s: out of memory\n", pf->prog);
		ret = -1;
	}
	for (i = 0; !ret && i < count; i++)
		if (load_src_trace(pf, src, i, &tr[i], &bufs[i], &lens[i]))
			ret = -1;
	if (!ret)
		ret = ptflow_sys_scan(sys, pf, tr, bufs, lens, count);
	for (i = 0; !ret && i < count; i++) {
		if (!pf->opt.quiet && !pf->opt.report)
			printf("[trace %s]\n", tr[i].name);
		if (gaps_set(pf, src, &tr[i]) ||
		    ptflow_sys_decode(sys, pf, i, tr[i].name, bufs[i], lens[i]))
			ret = -1;
		gaps_clear(pf);
	}
	if (!ret && ptflow_sys_finish(sys, pf))
		ret = -1;
	for (i = 0; bufs && i < count; i++)
		free(bufs[i]);
	free(bufs);
	free(lens);
	return ret;
}

/*
 * Decode every trace of a capture (a ptcap directory or a perf.data), or
 * those of the threads --pid/--tid select (@sel_pid, @sel_tid; -1: any).
 * A system-wide capture (processes) is decoded per process, its state
 * left in *@sysp for the caller to free after the views are written.
 * Returns 0 or -1.
 */
static int decode_capdir(struct ptflow *pf, struct lpt_capsrc *src, int64_t sel_pid,
			 int64_t sel_tid, struct ptflow_sys **sysp, struct ptflow_btssys **btsp)
{
	const struct ptcap_addr_range *addr;
	const struct ptcap_config *cfg;
	const struct lpt_capsrc_trace *tr;
	size_t count, i, chosen = 0;
	int err, ret = 0;

	if (capdir_load(pf, src))
		return -1;
	capdir_say_start(pf, src);
	err = lpt_capsrc_traces(src, &tr, &count);
	if (err) {
		capdir_error(pf, src, NULL, err);
		return -1;
	}
	if (!count) {
		fprintf(stderr, "%s: %s: no *%s trace files\n", pf->prog,
			lpt_capsrc_path(src), PTCAP_TRACE_SUFFIX);
		return -1;
	}
	/* ptcap --bts -a: cpu<N>.bts cut at the switches (ptflow_btssys.h). */
	if (!lpt_capsrc_config(src, &cfg, &addr) && cfg->format == PTCAP_FORMAT_BTS) {
		err = ptflow_btssys_decode(pf, src, tr, count, sel_pid, sel_tid, btsp);
		if (err <= 0)
			return err;
	}
	err = ptflow_sys_open(pf, src, sel_pid, sel_tid, sysp);
	if (err <= 0)
		return err ? err : decode_sys(pf, *sysp, src, tr, count);

	for (i = 0; i < count; i++) {
		char label[64];
		uint8_t *buf;
		size_t len;
		bool thread;

		thread = trace_thread(pf, &tr[i], label, sizeof(label));
		if ((sel_pid >= 0 || sel_tid >= 0) &&
		    (!thread || (sel_pid >= 0 && pf->pid != sel_pid) ||
		     (sel_tid >= 0 && pf->tid != sel_tid)))
			continue;
		chosen++;
		if (!pf->opt.quiet && !pf->opt.report)
			printf("[trace %s]\n", tr[i].name);
		pf->bts_start = 0;
		{
			size_t clen;
			const char *ct = lpt_capsrc_config_text(src, &clen);

			if (ct)
				ptcap_config_bts_start(ct, clen, tr[i].name, &pf->bts_start);
		}
		if (gaps_set(pf, src, &tr[i]) ||
		    load_src_trace(pf, src, i, &tr[i], &buf, &len)) {
			ret = -1;
		} else {
			if (ptflow_decode_buffer(pf, buf, len, tr[i].name))
				ret = -1;
			free(buf);
			if (lbr_crash_print(pf, src, tr[i].name))
				ret = -1;
		}
		gaps_clear(pf);
		pf->thread = "-";
	}
	if (!chosen && !ret) {
		/* Per-CPU traces are not split by thread (ptflow.rst). */
		fprintf(stderr, "%s: %s: no per-thread trace of the selected "
			"%s (per-CPU traces cannot be selected yet)\n",
			pf->prog, lpt_capsrc_path(src), sel_tid >= 0 ? "--tid" : "--pid");
		ret = -1;
	}
	return ret;
}

/* Options without value that set one output flag (@value). */
static bool set_flag(struct ptflow_options *opt, const char *a)
{
	static const struct {
		const char *name, *alias;
		size_t field;
		bool value;
	} flags[] = {
		{ "--att", NULL, offsetof(struct ptflow_options, intel), false },
		{ "--intel", NULL, offsetof(struct ptflow_options, intel), true },
		{ "--no-inst", NULL, offsetof(struct ptflow_options, no_inst), true },
		{ "--raw-insn", NULL, offsetof(struct ptflow_options, raw_insn), true },
		{ "--offset", NULL, offsetof(struct ptflow_options, offset), true },
		{ "--time", NULL, offsetof(struct ptflow_options, time), true },
		{ "--quiet", "-q", offsetof(struct ptflow_options, quiet), true },
		{ "--stat", NULL, offsetof(struct ptflow_options, stat), true },
		{ "--no-symbols", NULL,
		  offsetof(struct ptflow_options, no_symbols), true },
		{ "--line", NULL, offsetof(struct ptflow_options, line), true },
		{ "--calls", NULL, offsetof(struct ptflow_options, calls), true },
		{ "--report", NULL, offsetof(struct ptflow_options, report), true },
	};
	size_t k;

	for (k = 0; k < sizeof(flags) / sizeof(flags[0]); k++) {
		if (strcmp(a, flags[k].name) &&
		    (!flags[k].alias || strcmp(a, flags[k].alias)))
			continue;
		*(bool *)((char *)opt + flags[k].field) = flags[k].value;
		return true;
	}
	return false;
}

/* The value of option @name: "--name=value" or "--name value". */
static char *opt_value(int argc, char **argv, int *i, const char *name,
		       bool *matched)
{
	size_t n = strlen(name);
	char *a = argv[*i];

	*matched = false;
	if (strncmp(a, name, n))
		return NULL;
	if (a[n] == '=') {
		*matched = true;
		return a + n + 1;
	}
	if (a[n])
		return NULL;
	*matched = true;
	if (*i + 1 >= argc)
		return NULL;
	return argv[++*i];
}

int main(int argc, char **argv)
{
	struct ptflow pf;
	char *pt_arg = NULL, *dir_arg = NULL, *export_arg = NULL;
	char *symfs_arg = NULL, *vmlinux_arg = NULL;
	struct lpt_capsrc *src = NULL;
	uint64_t max_decompressed = 0;
	int64_t sel_pid = -1, sel_tid = -1;
	struct ptflow_sys *sys = NULL;
	struct ptflow_btssys *bsys = NULL;
	FILE *export_file = NULL;
	bool have_image = false, lwpt_engine = false;
	int i, ret = PTFLOW_EXIT_USAGE;

	/*
	 * The flow is one line per instruction: write it in 1 MiB blocks
	 * rather than stdio's 4 KiB when it does not go to a terminal
	 * (issue 17.3). Before any output, as setvbuf() requires.
	 */
	if (!isatty(STDOUT_FILENO))
		setvbuf(stdout, NULL, _IOFBF, 1u << 20);
	if (ptflow_init(&pf, "ptflow", stdout, stderr)) {
		fprintf(stderr, "ptflow: out of memory\n");
		return PTFLOW_EXIT_USAGE;
	}

	for (i = 1; i < argc; i++) {
		static const struct {
			const char *name;
			int (*add)(struct ptflow *pf, char *arg);
			bool image;	/* adds code to the image */
		} inputs[] = {
			{ "--elf", add_elf, true },
			{ "--raw", add_raw, true },
			{ "--jitdump", add_jitdump, true },
			{ "--perf-map", add_perf_map, false },
		};
		static const char *const numeric[] = {
			"--mtc-freq", "--nom-freq", "--cpuid-0x15.eax",
			"--cpuid-0x15.ebx",
		};
		char *a = argv[i], *v;
		bool m;
		size_t k;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			usage(stdout, pf.prog);
			ret = PTFLOW_EXIT_OK;
			goto out;
		}
		if (!strcmp(a, "--version")) {
			struct pt_version lv = pt_library_version();

			printf("%s %s (libipt %u.%u.%u, capstone %d.%d)\n",
			       pf.prog, PTFLOW_VERSION, lv.major, lv.minor,
			       lv.build, CS_API_MAJOR, CS_API_MINOR);
			ret = PTFLOW_EXIT_OK;
			goto out;
		}
		if (set_flag(&pf.opt, a))
			continue;
		if (!strcmp(a, "--force")) {	/* ptflow_buildid.h */
			pf.force_build_id = true;
			continue;
		}
		v = opt_value(argc, argv, &i, "--export", &m);
		if (m) {
			if (!v || strcmp(v, "chrome")) {
				fprintf(stderr, "%s: --export: the format is "
					"chrome: --export=chrome <file>\n",
					pf.prog);
				goto out;
			}
			if (i + 1 >= argc) {
				fprintf(stderr, "%s: --export=chrome: missing "
					"output file\n", pf.prog);
				goto out;
			}
			export_arg = argv[++i];
			pf.opt.export_chrome = true;
			continue;
		}
		v = opt_value(argc, argv, &i, "--engine", &m);
		if (m) {
			if (!v || (strcmp(v, "lwpt") && strcmp(v, "libipt"))) {
				fprintf(stderr, "%s: --engine: lwpt or libipt\n",
					pf.prog);
				goto out;
			}
			lwpt_engine = !strcmp(v, "lwpt");
			continue;
		}
		v = opt_value(argc, argv, &i, "--pid", &m);
		if (!m)
			v = opt_value(argc, argv, &i, "--tid", &m);
		if (m) {
			bool is_pid = !strncmp(a, "--pid", 5);
			uint64_t id;

			if (!v || !parse_u64(v, INT32_MAX, &id)) {
				fprintf(stderr, "%s: %s: expected a process or "
					"thread id\n", pf.prog,
					is_pid ? "--pid" : "--tid");
				goto out;
			}
			*(is_pid ? &sel_pid : &sel_tid) = (int64_t)id;
			continue;
		}
		v = opt_value(argc, argv, &i, "--tsc-freq", &m);
		if (m) {
			uint64_t hz;

			/* parse_u64 and ptflow_ticks_to_ns()' limit. */
			if (!v || !parse_u64(v, 18000000000ull, &hz) || !hz) {
				fprintf(stderr, "%s: --tsc-freq: expected the "
					"TSC frequency in Hz (1..18e9)\n",
					pf.prog);
				goto out;
			}
			pf.par.tsc_freq_hz = hz;
			pf.par.has_tsc_freq = true;
			continue;
		}

		/* -j N, -jN, --jobs N, --jobs=N (as ptcov and ptdump) */
		if (!strncmp(argv[i], "-j", 2) && argv[i][2]) {
			v = argv[i] + 2;
			m = true;
		} else if (!strcmp(argv[i], "-j")) {
			v = i + 1 < argc ? argv[++i] : NULL;
			m = true;
		} else {
			v = opt_value(argc, argv, &i, "--jobs", &m);
		}
		if (m) {
			uint64_t n;

			if (!v)
				goto missing;
			if (!parse_u64(v, 4096, &n) || !n) {
				fprintf(stderr, "%s: -j: want 1..4096 threads\n",
					pf.prog);
				goto out;
			}
			pf.jobs = (unsigned int)n;
			continue;
		}
		v = opt_value(argc, argv, &i, "--chunk-size", &m);
		if (m) {
			uint64_t n;

			if (!v)
				goto missing;
			if (lpt_perf_parse_size(v, &n) || !n || n > SIZE_MAX) {
				fprintf(stderr, "%s: --chunk-size %s: give a size "
					"(bytes, or with K, M, G)\n", pf.prog, v);
				goto out;
			}
			pf.chunk = (size_t)n;
			continue;
		}
		v = opt_value(argc, argv, &i, "--max-decompressed", &m);
		if (m) {
			if (!v)
				goto missing;
			if (lpt_perf_parse_size(v, &max_decompressed)) {
				fprintf(stderr, "%s: --max-decompressed %s: give a size "
					"(bytes, or with K, M, G, T)\n", pf.prog, v);
				goto out;
			}
			continue;
		}
		v = opt_value(argc, argv, &i, "--symfs", &m);
		if (m) {
			if (!v)
				goto missing;
			symfs_arg = v;
			continue;
		}
		v = opt_value(argc, argv, &i, "--vmlinux", &m);
		if (!m)
			v = opt_value(argc, argv, &i, "-k", &m);
		if (m) {
			if (!v)
				goto missing;
			vmlinux_arg = v;
			continue;
		}
		v = opt_value(argc, argv, &i, "--pt", &m);
		if (m) {
			if (!v) {
				fprintf(stderr, "%s: --pt: missing file\n",
					pf.prog);
				goto out;
			}
			if (pt_arg) {
				fprintf(stderr, "%s: --pt given twice\n",
					pf.prog);
				goto out;
			}
			pt_arg = v;
			continue;
		}
		for (k = 0; k < sizeof(inputs) / sizeof(inputs[0]); k++) {
			v = opt_value(argc, argv, &i, inputs[k].name, &m);
			if (m)
				break;
		}
		if (m) {
			if (!v)
				goto missing;
			if (inputs[k].add(&pf, v))
				goto out;
			have_image |= inputs[k].image;
			continue;
		}
		v = opt_value(argc, argv, &i, "--cpu", &m);
		if (m) {
			if (!v || !parse_cpu(v, &pf.par)) {
				fprintf(stderr, "%s: --cpu: expected none or "
					"<family>/<model>[/<stepping>]\n",
					pf.prog);
				goto out;
			}
			continue;
		}
		for (k = 0; k < sizeof(numeric) / sizeof(numeric[0]); k++) {
			uint64_t n;

			v = opt_value(argc, argv, &i, numeric[k], &m);
			if (!m)
				continue;
			if (!v || !parse_u64(v, k < 2 ? UINT8_MAX : UINT32_MAX,
					     &n)) {
				fprintf(stderr, "%s: %s: bad number\n",
					pf.prog, numeric[k]);
				goto out;
			}
			switch (k) {
			case 0:
				pf.par.mtc_freq = (uint8_t)n;
				pf.par.has_mtc_freq = true;
				break;
			case 1:
				pf.par.nom_freq = (uint8_t)n;
				pf.par.has_nom_freq = true;
				break;
			case 2:
				pf.par.cpuid_15_eax = (uint32_t)n;
				pf.par.has_cpuid_15_eax = true;
				break;
			default:
				pf.par.cpuid_15_ebx = (uint32_t)n;
				pf.par.has_cpuid_15_ebx = true;
				break;
			}
			break;
		}
		if (k < sizeof(numeric) / sizeof(numeric[0]))
			continue;

		if (a[0] == '-' && a[1]) {
			fprintf(stderr, "%s: unknown option: %s (try --help)\n",
				pf.prog, a);
			goto out;
		}
		if (dir_arg) {
			fprintf(stderr, "%s: more than one directory: %s\n",
				pf.prog, a);
			goto out;
		}
		dir_arg = a;
	}

	if (!!pt_arg == !!dir_arg) {
		fprintf(stderr, "%s: give either --pt <file>, a ptcap "
			"directory or a perf.data (try --help)\n", pf.prog);
		goto out;
	}
	if (dir_arg && !lpt_perf_probe(dir_arg) &&
	    (symfs_arg || vmlinux_arg || max_decompressed)) {
		fprintf(stderr, "%s: --symfs, --vmlinux and --max-decompressed "
			"apply to a perf.data only\n", pf.prog);
		goto out;
	}
	if (dir_arg) {
		/* A ptcap directory or a perf.data (issue 24), read in place
		 * (include/lwpt/capture_src.h); exit 1 when unreadable. */
		struct lpt_capsrc_opts so;
		int r;

		lpt_capsrc_opts_init(&so);
		so.symfs = symfs_arg;
		so.vmlinux = vmlinux_arg;
		so.max_decompressed = max_decompressed;
		so.err = stderr;
		so.prog = pf.prog;
		so.flags = pf.force_build_id ? LPT_CAPSRC_ANY_BUILD_ID : 0;
		r = lpt_capsrc_open(dir_arg, &so, &src);
		if (r == LPT_CAPSRC_NOT_CAPTURE) {
			/* A raw trace given as the directory (issue 16
			 * point 8). */
			fprintf(stderr, "%s: %s: not a ptcap directory: give the "
				"directory ptcap wrote (ptflow DIR), or the raw trace "
				"with the code it ran: ptflow --pt %s --elf PROGRAM "
				"[--elf LIB:BASE] [--raw FILE:ADDR]\n", pf.prog,
				dir_arg, dir_arg);
			goto out;
		}
		if (r) {
			ret = PTFLOW_EXIT_DECODE;
			goto out;
		}
	}
	if (pt_arg && !have_image)
		fprintf(stderr, "%s: warning: no --elf or --raw image: no "
			"instruction can be decoded\n", pf.prog);
	if (lwpt_engine) {
		const char *no = ptflow_flow_unsupported(&pf.opt);

		if (no)
			fprintf(stderr, "%s: --engine=lwpt: %s is not supported by "
				"the lwpt engine yet: decoded with libipt\n",
				pf.prog, no);
		else
			ptflow_flow_use(&pf);
	}

	if (export_arg) {
		export_file = fopen(export_arg, "w");
		if (!export_file) {
			fprintf(stderr, "%s: %s: %s\n", pf.prog, export_arg,
				strerror(errno));
			goto out;
		}
	}
	if (pt_arg) {
		uint64_t from, size;

		if (!split_range(pt_arg, &from, &size)) {
			fprintf(stderr, "%s: --pt %s: empty or reversed range\n",
				pf.prog, pt_arg);
			goto out;
		}
		if (decode_file(&pf, pt_arg, from, size, pt_arg))
			goto out;
	} else if (decode_capdir(&pf, src, sel_pid, sel_tid, &sys, &bsys)) {
		goto out;
	}

	ptflow_views_finish(&pf);
	if (export_file) {
		int e = ptflow_chrome_write(pf.chrome, export_file);

		if (fclose(export_file) || e) {
			export_file = NULL;
			fprintf(stderr, "%s: %s: %s\n", pf.prog, export_arg,
				strerror(errno));
			goto out;
		}
		export_file = NULL;
	}
	if (pf.opt.stat) {
		printf("instructions: %" PRIu64 "\n", pf.insns);
		printf("errors: %" PRIu64 "\n", pf.errors);
	}
	if (pf.errors)
		fprintf(stderr, "%s: %" PRIu64 " decode error%s\n", pf.prog,
			pf.errors, pf.errors == 1 ? "" : "s");
	if (pf.unreadable)
		fprintf(stderr, "%s: %" PRIu64 " file%s of the capture could not be "
			"read (said above): what they describe was not decoded\n",
			pf.prog, pf.unreadable, pf.unreadable == 1 ? "" : "s");
	ret = pf.errors || pf.unreadable ? PTFLOW_EXIT_DECODE : PTFLOW_EXIT_OK;
	goto out;

missing:
	fprintf(stderr, "%s: %s: missing argument\n", pf.prog, argv[i]);
out:
	if (export_file)
		fclose(export_file);
	if (fflush(stdout) && ret != PTFLOW_EXIT_USAGE) {
		fprintf(stderr, "ptflow: write error: %s\n", strerror(errno));
		ret = PTFLOW_EXIT_USAGE;
	}
	/* The views keep names of the processes' symbols until written. */
	ptflow_sys_free(sys, &pf);
	ptflow_btssys_free(bsys, &pf);
	ptflow_buildid_free(&pf);
	ptflow_fini(&pf);
	ptflow_image_forget();
	lpt_capsrc_close(src);
	return ret;
}
