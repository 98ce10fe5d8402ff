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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <capstone/capstone.h>
#include <intel-pt.h>

#include "tools/ptflow/ptcap_dir.h"
#include "tools/ptflow/ptflow_disasm.h"
#include "tools/ptflow/ptflow_image.h"

#define PTFLOW_VERSION	"1.0"

/* Exit status: see ptflow.1, EXIT STATUS. */
enum ptflow_exit {
	PTFLOW_EXIT_OK		= 0,	/* decoded, no error in the trace */
	PTFLOW_EXIT_DECODE	= 1,	/* decoded, with trace errors */
	PTFLOW_EXIT_USAGE	= 2,	/* bad options or unusable input */
};

/*
 * Instructions decoded without the trace offset moving. The instruction
 * flow decoder follows direct branches without reading trace, so a corrupt
 * trace that lands in "jmp ." would loop forever; real code cannot run this
 * long without a conditional or indirect branch, which consume trace.
 */
#define PTFLOW_MAX_INSN_NO_PROGRESS	(1u << 22)

/* Decode errors also reported on stderr before going quiet there. */
#define PTFLOW_MAX_STDERR_ERRORS	10

struct ptflow_options {
	bool no_inst;		/* --no-inst: addresses only */
	bool quiet;		/* --quiet: no flow output */
	bool time;		/* --time: TSC before each instruction */
	bool offset;		/* --offset: trace offset before each line */
	bool raw_insn;		/* --raw-insn: instruction bytes */
	bool stat;		/* --stat: counts at the end */
	bool intel;		/* --intel: Intel syntax (default AT&T) */
};

/* The decoder parameters, from the command line or a ptcap config. */
struct ptflow_params {
	struct pt_cpu cpu;
	bool has_cpu;
	uint8_t mtc_freq, nom_freq;
	bool has_mtc_freq, has_nom_freq;
	uint32_t cpuid_15_eax, cpuid_15_ebx;
	bool has_cpuid_15_eax, has_cpuid_15_ebx;
};

struct ptflow {
	const char *prog;
	struct ptflow_options opt;
	struct ptflow_params par;
	struct pt_image_section_cache *iscache;
	struct pt_image *image;
	struct ptflow_disasm *disasm;
	const char *trace_name;		/* for stderr messages */
	uint64_t insns;			/* instructions decoded, all traces */
	uint64_t errors;		/* decode errors, all traces */
};

static void usage(FILE *f, const char *prog)
{
	fprintf(f,
"usage: %s [<options>] --pt <file>[:<from>[-<to>]] (--elf ...|--raw ...)...\n"
"       %s [<options>] <ptcap-directory>\n"
"\n"
"Reconstruct the executed instructions of an Intel PT trace.\n"
"\n"
"input:\n"
"  --pt <file>[:<from>[-<to>]]          raw Intel PT data, optionally a byte range.\n"
"  --elf <file>[:<base>]                load the PT_LOAD segments of an ELF at their\n"
"                                       addresses, or relative to <base>.\n"
"  --raw <file>[:<from>[-<to>]]:<base>  load bytes of <file> at address <base>.\n"
"  <ptcap-directory>                    decode every *.pt file of a ptcap directory\n"
"                                       with its config and maps files.\n"
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

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "%s: %s: %s\n", pf->prog, path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size < from ||
	    (size && (uint64_t)st.st_size - from < size)) {
		fprintf(stderr, "%s: %s: range 0x%" PRIx64 "-0x%" PRIx64
			" outside the file (0x%jx bytes)\n", pf->prog, path,
			from, from + size, (uintmax_t)st.st_size);
		close(fd);
		return -1;
	}
	if (!size)
		size = (uint64_t)st.st_size - from;
	if (size > SIZE_MAX - 1) {
		fprintf(stderr, "%s: %s: too large\n", pf->prog, path);
		close(fd);
		return -1;
	}

	/* One spare byte so that an empty trace still has a buffer. */
	data = malloc((size_t)size + 1);
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

/* Take decoder parameters from a ptcap config where not given already. */
static void params_from_config(struct ptflow_params *par,
			       const struct ptcap_config *cfg)
{
	if (!par->has_cpu && (cfg->has & PTCAP_HAS_CPU)) {
		memset(&par->cpu, 0, sizeof(par->cpu));
		par->cpu.vendor = pcv_intel;
		par->cpu.family = cfg->cpu_family;
		par->cpu.model = cfg->cpu_model;
		par->cpu.stepping = cfg->cpu_stepping;
		par->has_cpu = true;
	}
	if (!par->has_mtc_freq && (cfg->has & PTCAP_HAS_MTC_FREQ)) {
		par->mtc_freq = cfg->mtc_freq;
		par->has_mtc_freq = true;
	}
	if (!par->has_nom_freq && (cfg->has & PTCAP_HAS_NOM_FREQ)) {
		par->nom_freq = cfg->nom_freq;
		par->has_nom_freq = true;
	}
	if (!par->has_cpuid_15_eax && (cfg->has & PTCAP_HAS_CPUID_15_EAX)) {
		par->cpuid_15_eax = cfg->cpuid_15_eax;
		par->has_cpuid_15_eax = true;
	}
	if (!par->has_cpuid_15_ebx && (cfg->has & PTCAP_HAS_CPUID_15_EBX)) {
		par->cpuid_15_ebx = cfg->cpuid_15_ebx;
		par->has_cpuid_15_ebx = true;
	}
}

/* Fill a libipt configuration for the trace in [buf, buf + len). */
static int make_config(const struct ptflow *pf, uint8_t *buf, size_t len,
		       struct pt_config *config)
{
	int err;

	pt_config_init(config);
	config->begin = buf;
	config->end = buf + len;
	if (pf->par.has_cpu && pf->par.cpu.vendor != pcv_unknown) {
		config->cpu = pf->par.cpu;
		err = pt_cpu_errata(&config->errata, &config->cpu);
		if (err < 0) {
			fprintf(stderr, "%s: cpu %u/%u/%u: %s\n", pf->prog,
				config->cpu.family, config->cpu.model,
				config->cpu.stepping,
				pt_errstr(pt_errcode(err)));
			return -1;
		}
	}
	config->mtc_freq = pf->par.mtc_freq;
	config->nom_freq = pf->par.nom_freq;
	config->cpuid_0x15_eax = pf->par.cpuid_15_eax;
	config->cpuid_0x15_ebx = pf->par.cpuid_15_ebx;
	return 0;
}

static const char *exec_mode_name(enum pt_exec_mode mode)
{
	switch (mode) {
	case ptem_16bit: return "16-bit";
	case ptem_32bit: return "32-bit";
	case ptem_64bit: return "64-bit";
	default: return "unknown";
	}
}

/* One event line, "[...]"; see Documentation/ptflow.rst, Events. */
static void print_event(const struct ptflow *pf, const struct pt_event *ev,
			uint64_t offset)
{
	printf("[");
	if (pf->opt.offset)
		printf("%016" PRIx64 "  ", offset);

	switch (ev->type) {
	case ptev_enabled:
		printf("%s", ev->variant.enabled.resumed ? "resumed" : "enabled");
		break;
	case ptev_disabled:
	case ptev_async_disabled:
		printf("disabled");
		break;
	case ptev_async_branch:
		printf("interrupt, from: %016" PRIx64,
		       ev->variant.async_branch.from);
		if (!ev->ip_suppressed)
			printf(", to: %016" PRIx64, ev->variant.async_branch.to);
		break;
	case ptev_paging:
		printf("paging, cr3: %016" PRIx64 "%s", ev->variant.paging.cr3,
		       ev->variant.paging.non_root ? ", nr" : "");
		break;
	case ptev_async_paging:
		printf("paging, cr3: %016" PRIx64 "%s",
		       ev->variant.async_paging.cr3,
		       ev->variant.async_paging.non_root ? ", nr" : "");
		break;
	case ptev_overflow:
		printf("overflow");
		break;
	case ptev_exec_mode:
		printf("exec mode: %s",
		       exec_mode_name(ev->variant.exec_mode.mode));
		break;
	case ptev_tsx:
		printf("%s", ev->variant.tsx.aborted ? "aborted" :
		       ev->variant.tsx.speculative ? "begin transaction" :
		       "committed");
		break;
	case ptev_stop:
		printf("stopped");
		break;
	case ptev_vmcs:
		printf("vmcs, base: %016" PRIx64, ev->variant.vmcs.base);
		break;
	case ptev_async_vmcs:
		printf("vmcs, base: %016" PRIx64, ev->variant.async_vmcs.base);
		break;
	case ptev_exstop:
		printf("exstop");
		break;
	case ptev_mwait:
		printf("mwait, hints: %" PRIx32 ", ext: %" PRIx32,
		       ev->variant.mwait.hints, ev->variant.mwait.ext);
		break;
	case ptev_pwre:
		/* PWRE resolved C-state, SDM 33.4.2.24: C0 is 0xf. */
		printf("pwre c%u.%u%s", (ev->variant.pwre.state + 1u) & 0xf,
		       (ev->variant.pwre.sub_state + 1u) & 0xf,
		       ev->variant.pwre.hw ? ", hw" : "");
		break;
	case ptev_pwrx:
		printf("pwrx c%u, deepest c%u%s%s%s",
		       (ev->variant.pwrx.last + 1u) & 0xf,
		       (ev->variant.pwrx.deepest + 1u) & 0xf,
		       ev->variant.pwrx.interrupt ? ", interrupt" : "",
		       ev->variant.pwrx.store ? ", store" : "",
		       ev->variant.pwrx.autonomous ? ", hw" : "");
		break;
	case ptev_ptwrite:
		printf("ptwrite: %" PRIx64, ev->variant.ptwrite.payload);
		break;
	case ptev_tick:
		printf("tick");
		break;
	case ptev_cbr:
		printf("cbr: %x", ev->variant.cbr.ratio);
		break;
	case ptev_mnt:
		printf("mnt: %" PRIx64, ev->variant.mnt.payload);
		break;
	default:
		printf("event %d", (int)ev->type);
		break;
	}
	printf("]\n");
}

/* One instruction line; see Documentation/ptflow.rst, Instructions. */
static void print_insn(struct ptflow *pf, struct pt_insn_decoder *dec,
		       const struct pt_insn *insn, uint64_t offset)
{
	if (pf->opt.offset)
		printf("%016" PRIx64 "  ", offset);
	if (pf->opt.time) {
		uint64_t tsc = 0;

		/* Without a TSC yet, libipt still gives a relative time. */
		(void)pt_insn_time(dec, &tsc, NULL, NULL);
		printf("%016" PRIx64 "  ", tsc);
	}
	if (insn->speculative)
		printf("? ");
	printf("%016" PRIx64, insn->ip);

	if (pf->opt.raw_insn) {
		unsigned int i, n = insn->size;

		if (n > sizeof(insn->raw))
			n = sizeof(insn->raw);
		printf(" ");
		for (i = 0; i < pt_max_insn_size; i++)
			printf(i < n ? " %02x" : "   ", insn->raw[i < n ? i : 0]);
	}
	if (!pf->opt.no_inst) {
		char text[160];

		ptflow_disasm_insn(pf->disasm, insn->mode, insn->raw,
				   insn->size, insn->ip, text, sizeof(text));
		printf("  %s", text);
	}
	printf("\n");
}

/*
 * Record one decode error: "[resync at offset 0x...: reason]" on stdout,
 * a message on stderr (the first few), and the count.
 */
static void report(struct ptflow *pf, uint64_t offset, const char *reason,
		   const struct pt_insn *insn)
{
	bool have_ip = insn && insn->ip;

	pf->errors++;
	if (!pf->opt.quiet) {
		printf("[resync at offset 0x%" PRIx64 ": %s", offset, reason);
		if (have_ip)
			printf(", ip: %016" PRIx64, insn->ip);
		printf("]\n");
	}
	if (pf->errors <= PTFLOW_MAX_STDERR_ERRORS) {
		fprintf(stderr, "%s: %s: offset 0x%" PRIx64 ": %s\n", pf->prog,
			pf->trace_name, offset, reason);
	} else if (pf->errors == PTFLOW_MAX_STDERR_ERRORS + 1) {
		fprintf(stderr, "%s: %s: further errors only on stdout\n",
			pf->prog, pf->trace_name);
	}
}

static uint64_t dec_offset(struct pt_insn_decoder *dec)
{
	uint64_t off = 0;

	(void)pt_insn_get_offset(dec, &off);
	return off;
}

/*
 * Process pending events. Returns the decoder status (>= 0) or a negative
 * libipt error.
 */
static int drain_events(struct ptflow *pf, struct pt_insn_decoder *dec,
			int status, bool *enabled)
{
	while (status & pts_event_pending) {
		struct pt_event ev;
		uint64_t off = pf->opt.offset ? dec_offset(dec) : 0;

		status = pt_insn_event(dec, &ev, sizeof(ev));
		if (status < 0)
			return status;

		/* Track PacketEn (SDM 33.2.6): TIP.PGE/PGD and OVF. */
		switch (ev.type) {
		case ptev_enabled:
			*enabled = true;
			break;
		case ptev_disabled:
		case ptev_async_disabled:
			*enabled = false;
			break;
		case ptev_overflow:
			/* The IP is suppressed if OVF resolved while
			 * tracing was disabled (SDM 33.4.2.16). */
			*enabled = !ev.ip_suppressed;
			break;
		default:
			break;
		}
		/* Status updates repeat known state after a PSB+. */
		if (!pf->opt.quiet && !ev.status_update)
			print_event(pf, &ev, off);
	}
	return status;
}

/*
 * Decode from the current sync point until an error or the end of the
 * trace. Returns 0 at a clean end of trace, else the error (reported).
 */
static int decode_run(struct ptflow *pf, struct pt_insn_decoder *dec,
		      int status)
{
	uint64_t last_off = dec_offset(dec), stuck = 0;
	bool enabled = false;

	for (;;) {
		struct pt_insn insn;
		uint64_t off;

		status = drain_events(pf, dec, status, &enabled);
		if (status < 0) {
			report(pf, dec_offset(dec),
			       pt_errstr(pt_errcode(status)), NULL);
			return status;
		}
		if (status & pts_eos) {
			/*
			 * Every way of ending a trace on purpose disables
			 * packet generation with TIP.PGD first (SDM Table 33-56,
			 * case 3: WRMSR clearing TraceEn gives FUP, TIP.PGD);
			 * output that stops with PacketEn=1 was cut off
			 * (ToPA STOP, SDM 33.2.7.2, or a truncated file).
			 */
			if (enabled) {
				report(pf, dec_offset(dec), "trace ends while "
				       "tracing is enabled", NULL);
				return -pte_eos;
			}
			if (!pf->opt.quiet)
				printf("[end of trace]\n");
			return 0;
		}

		off = dec_offset(dec);
		if (off != last_off) {
			last_off = off;
			stuck = 0;
		} else if (++stuck > PTFLOW_MAX_INSN_NO_PROGRESS) {
			report(pf, off, "no trace progress (endless loop of "
			       "direct branches?)", NULL);
			return -pte_bad_query;
		}

		memset(&insn, 0, sizeof(insn));
		status = pt_insn_next(dec, &insn, sizeof(insn));
		if (status < 0) {
			/* The instruction itself may have been decoded. */
			if (insn.iclass != ptic_error) {
				pf->insns++;
				if (!pf->opt.quiet)
					print_insn(pf, dec, &insn, off);
			}
			report(pf, dec_offset(dec), status == -pte_eos ?
			       "unexpected end of trace" :
			       pt_errstr(pt_errcode(status)),
			       insn.iclass == ptic_error ? &insn : NULL);
			return status;
		}
		pf->insns++;
		if (!pf->opt.quiet)
			print_insn(pf, dec, &insn, off);
	}
}

/*
 * A trace whose flow ended cleanly (tracing disabled) may still have been
 * cut inside a packet, e.g. a truncated file. Walk the packets from the
 * last PSB to the end: a packet that does not fit is reported. A cut at a
 * packet boundary in a disabled region looks exactly like a complete trace
 * and cannot be told apart (Documentation/ptflow.rst, Errors).
 */
static void check_tail(struct ptflow *pf, const struct pt_config *config)
{
	struct pt_packet_decoder *pkt;
	struct pt_packet packet;
	uint64_t off = 0;
	size_t len = (size_t)(config->end - config->begin);
	int status;

	bool in_psb = false;

	pkt = pt_pkt_alloc_decoder(config);
	if (!pkt)
		return;
	status = pt_pkt_sync_backward(pkt);
	while (status >= 0) {
		if (pt_pkt_get_offset(pkt, &off) < 0)
			break;
		status = pt_pkt_next(pkt, &packet, sizeof(packet));
		if (status < 0)
			break;
		/* PSB+ ends with PSBEND (SDM 33.4.2.17). */
		if (packet.type == ppt_psb)
			in_psb = true;
		else if (packet.type == ppt_psbend)
			in_psb = false;
	}
	if (status == -pte_eos && pt_pkt_get_offset(pkt, &off) >= 0) {
		if (off < len)
			report(pf, off, "trace ends inside a packet", NULL);
		else if (in_psb)
			report(pf, off, "trace ends inside PSB+", NULL);
	}
	pt_pkt_free_decoder(pkt);
}

/* Decode one trace buffer with the current image. */
static int decode_trace(struct ptflow *pf, uint8_t *buf, size_t len)
{
	struct pt_insn_decoder *dec;
	struct pt_config config;
	uint64_t last_sync = 0;
	bool synced = false, clean_end = false;
	int status;

	if (make_config(pf, buf, len, &config))
		return -1;
	dec = pt_insn_alloc_decoder(&config);
	if (!dec) {
		fprintf(stderr, "%s: %s: cannot allocate the decoder\n",
			pf->prog, pf->trace_name);
		return -1;
	}
	status = pt_insn_set_image(dec, pf->image);
	if (status < 0) {
		fprintf(stderr, "%s: %s: %s\n", pf->prog, pf->trace_name,
			pt_errstr(pt_errcode(status)));
		pt_insn_free_decoder(dec);
		return -1;
	}

	for (;;) {
		uint64_t off;

		status = pt_insn_sync_forward(dec);
		if (status == -pte_eos) {
			if (!synced)
				report(pf, 0, "no PSB found", NULL);
			break;
		}
		if (status < 0) {
			/* Give up when the search made no progress. */
			if (pt_insn_get_offset(dec, &off) < 0 ||
			    (synced && off <= last_sync)) {
				report(pf, synced ? last_sync : 0,
				       pt_errstr(pt_errcode(status)), NULL);
				break;
			}
			report(pf, off, pt_errstr(pt_errcode(status)), NULL);
			synced = true;
			last_sync = off;
			continue;
		}
		synced = true;
		if (pt_insn_get_offset(dec, &off) >= 0) {
			if (off < last_sync)
				break;
			last_sync = off;
		}
		clean_end = decode_run(pf, dec, status) == 0;
	}

	if (clean_end)
		check_tail(pf, &config);
	pt_insn_free_decoder(dec);
	return 0;
}

static int decode_file(struct ptflow *pf, const char *path, uint64_t from,
		       uint64_t size, const char *name)
{
	uint8_t *buf;
	size_t len;
	int err;

	if (load_trace(pf, path, from, size, &buf, &len))
		return -1;
	pf->trace_name = name;
	err = decode_trace(pf, buf, len);
	free(buf);
	return err;
}

/* Report a ptcap directory file error, with errno for I/O errors. */
static void capdir_error(const struct ptflow *pf, const char *dir,
			 const char *file, int err, size_t line)
{
	if (err == -PTCAP_E_IO)
		fprintf(stderr, "%s: %s/%s: %s\n", pf->prog, dir, file,
			strerror(errno));
	else if (line)
		fprintf(stderr, "%s: %s/%s:%zu: %s\n", pf->prog, dir, file,
			line, ptcap_dir_strerror(err));
	else
		fprintf(stderr, "%s: %s/%s: %s\n", pf->prog, dir, file,
			ptcap_dir_strerror(err));
}

/* Load the config and maps of a ptcap directory. Returns 0 or -1. */
static int capdir_load(struct ptflow *pf, const char *dir)
{
	struct ptcap_config cfg;
	struct ptcap_maps maps;
	size_t len, line, i;
	char *text;
	int err;

	err = ptcap_dir_read_file(dir, PTCAP_CONFIG_FILE, &text, &len);
	if (err) {
		capdir_error(pf, dir, PTCAP_CONFIG_FILE, err, 0);
		return -1;
	}
	err = ptcap_config_parse(text, len, &cfg, &line);
	free(text);
	if (err) {
		capdir_error(pf, dir, PTCAP_CONFIG_FILE, err, line);
		return -1;
	}
	params_from_config(&pf->par, &cfg);

	err = ptcap_dir_read_file(dir, PTCAP_MAPS_FILE, &text, &len);
	if (err) {
		capdir_error(pf, dir, PTCAP_MAPS_FILE, err, 0);
		return -1;
	}
	err = ptcap_maps_parse(text, len, &maps, &line);
	free(text);
	if (err) {
		capdir_error(pf, dir, PTCAP_MAPS_FILE, err, line);
		return -1;
	}

	for (i = 0; i < maps.nmaps; i++) {
		const struct ptcap_map *m = &maps.map[i];
		char *path = NULL;

		if (m->path[0] == '/')
			path = strdup(m->path);
		else if (asprintf(&path, "%s/%s", dir, m->path) < 0)
			path = NULL;
		if (!path) {
			ptcap_maps_free(&maps);
			fprintf(stderr, "%s: out of memory\n", pf->prog);
			return -1;
		}
		/* A mapping we cannot load only costs decode errors later. */
		err = ptflow_image_add_raw(pf->image, pf->iscache, path,
					   m->offset, m->size, m->start);
		if (err < 0)
			fprintf(stderr, "%s: warning: %s/%s: %s at 0x%" PRIx64
				": %s%s%s\n", pf->prog, dir, PTCAP_MAPS_FILE,
				path, m->start, pt_errstr(pt_errcode(err)),
				err == -pte_bad_file ? ": " : "",
				err == -pte_bad_file ? strerror(errno) : "");
		free(path);
	}
	ptcap_maps_free(&maps);
	return 0;
}

/* Decode every trace of a ptcap directory. Returns 0 or -1. */
static int decode_capdir(struct ptflow *pf, const char *dir)
{
	char **names;
	size_t count, i;
	int err, ret = 0;

	if (capdir_load(pf, dir))
		return -1;
	err = ptcap_dir_list_traces(dir, &names, &count);
	if (err) {
		capdir_error(pf, dir, "", err, 0);
		return -1;
	}
	if (!count) {
		fprintf(stderr, "%s: %s: no *%s trace files\n", pf->prog, dir,
			PTCAP_TRACE_SUFFIX);
		ptcap_dir_free_names(names, count);
		return -1;
	}

	for (i = 0; i < count; i++) {
		char *path;

		if (asprintf(&path, "%s/%s", dir, names[i]) < 0) {
			ret = -1;
			break;
		}
		if (!pf->opt.quiet)
			printf("[trace %s]\n", names[i]);
		if (decode_file(pf, path, 0, 0, names[i]))
			ret = -1;
		free(path);
	}
	ptcap_dir_free_names(names, count);
	return ret;
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
	char *pt_arg = NULL, *dir_arg = NULL;
	bool have_image = false;
	int i, ret = PTFLOW_EXIT_USAGE;

	memset(&pf, 0, sizeof(pf));
	pf.prog = "ptflow";
	pf.iscache = pt_iscache_alloc(NULL);
	pf.image = pt_image_alloc(NULL);
	if (!pf.iscache || !pf.image) {
		fprintf(stderr, "%s: out of memory\n", pf.prog);
		goto out;
	}

	for (i = 1; i < argc; i++) {
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
		if (!strcmp(a, "--att")) {
			pf.opt.intel = false;
			continue;
		}
		if (!strcmp(a, "--intel")) {
			pf.opt.intel = true;
			continue;
		}
		if (!strcmp(a, "--no-inst")) {
			pf.opt.no_inst = true;
			continue;
		}
		if (!strcmp(a, "--raw-insn")) {
			pf.opt.raw_insn = true;
			continue;
		}
		if (!strcmp(a, "--offset")) {
			pf.opt.offset = true;
			continue;
		}
		if (!strcmp(a, "--time")) {
			pf.opt.time = true;
			continue;
		}
		if (!strcmp(a, "--quiet") || !strcmp(a, "-q")) {
			pf.opt.quiet = true;
			continue;
		}
		if (!strcmp(a, "--stat")) {
			pf.opt.stat = true;
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
		v = opt_value(argc, argv, &i, "--elf", &m);
		if (m) {
			if (!v)
				goto missing;
			if (add_elf(&pf, v))
				goto out;
			have_image = true;
			continue;
		}
		v = opt_value(argc, argv, &i, "--raw", &m);
		if (m) {
			if (!v)
				goto missing;
			if (add_raw(&pf, v))
				goto out;
			have_image = true;
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
		fprintf(stderr, "%s: give either --pt <file> or a ptcap "
			"directory (try --help)\n", pf.prog);
		goto out;
	}
	if (pt_arg && !have_image)
		fprintf(stderr, "%s: warning: no --elf or --raw image: no "
			"instruction can be decoded\n", pf.prog);

	pf.disasm = ptflow_disasm_alloc(pf.opt.intel);
	if (!pf.disasm) {
		fprintf(stderr, "%s: cannot set up the disassembler\n",
			pf.prog);
		goto out;
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
	} else if (decode_capdir(&pf, dir_arg)) {
		goto out;
	}

	if (pf.opt.stat) {
		printf("instructions: %" PRIu64 "\n", pf.insns);
		printf("errors: %" PRIu64 "\n", pf.errors);
	}
	if (pf.errors)
		fprintf(stderr, "%s: %" PRIu64 " decode error%s\n", pf.prog,
			pf.errors, pf.errors == 1 ? "" : "s");
	ret = pf.errors ? PTFLOW_EXIT_DECODE : PTFLOW_EXIT_OK;
	goto out;

missing:
	fprintf(stderr, "%s: %s: missing argument\n", pf.prog, argv[i]);
out:
	fflush(stdout);
	ptflow_disasm_free(pf.disasm);
	pt_image_free(pf.image);
	pt_iscache_free(pf.iscache);
	return ret;
}
