// SPDX-License-Identifier: GPL-2.0
/*
 * ptdump: command line options.
 *
 * The options, their argument syntax, their error messages and the
 * `file[:from[-to]]` suffix follow libipt's ptdump so that scripts written
 * for it work unchanged. --stats is ours.
 */
#include "tools/ptdump/options.h"

#include <lwpt/perf_data.h>
#include <lwpt/ptcap_dir.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef LWPT_VERSION
#define LWPT_VERSION "0.1"
#endif

static const char help_text[] =
"usage: %s [<options>] <ptfile>[:<from>[-<to>]]\n"
"\n"
"Print the Intel Processor Trace packets in <ptfile>, one per line, in the\n"
"format of libipt's ptdump. On a decode error, print the offset and the\n"
"reason, resynchronise at the next PSB and go on.\n"
"\n"
"options:\n"
"  --help|-h                 this text.\n"
"  --version                 display version information and exit.\n"
"  --no-sync                 don't search the first PSB; decode from the first\n"
"                            byte of the trace.\n"
"  --quiet                   print nothing but errors.\n"
"  --no-pad                  don't show PAD packets.\n"
"  --no-timing               don't show timing packets (TSC, TMA, MTC, CYC, CBR).\n"
"  --no-cyc                  don't show CYC packets and ignore them for time.\n"
"  --no-offset               don't show the offset as the first column.\n"
"  --raw                     show the raw packet bytes.\n"
"  --lastip                  show the decompressed IP of packets with IP payloads.\n"
"  --exec-mode               show the execution mode on MODE.Exec packets.\n"
"  --time                    show the estimated TSC on timing packets.\n"
"  --tcal                    show the time calibration (TSC ticks per cycle).\n"
"  --time-delta              show time and calibration as deltas.\n"
"  --no-tcal                 don't calibrate time; CYC packets will give errors.\n"
"  --no-wall-clock           suppress the no-time error and print relative time.\n"
"  --keep-tcal-on-ovf        keep the time calibration on overflow.\n"
"  -j N, --jobs=N            dump a large trace on N threads, cut at PSBs into\n"
"                            chunks (default: the online CPUs); the output is\n"
"                            the same for every N. With --time, --tcal,\n"
"                            --time-delta, --stats or --no-sync: one thread.\n"
"  --chunk-size <n>          target chunk size of -j in bytes (K, M; default\n"
"                            32K).\n"
"  --stats                   print packet counts and bytes by type and the\n"
"                            number of decode errors instead of the packets.\n"
"  --cpu none|f/m[/s]        decode for family/model[/stepping] (errata);\n"
"                            none: by the SDM only (default).\n"
"  --mtc-freq <n>            IA32_RTIT_CTL.MTCFreq[17:14] of the trace.\n"
"  --nom-freq <n>            MSR_PLATFORM_INFO[15:8], max. non-turbo ratio.\n"
"  --cpuid-0x15.eax <n>      CPUID.15H:EAX (TSC/crystal clock denominator).\n"
"  --cpuid-0x15.ebx <n>      CPUID.15H:EBX (TSC/crystal clock numerator).\n"
"  <ptfile>[:<from>[-<to>]]  load the trace from <ptfile>, optionally only\n"
"                            the bytes from offset <from> (to <to>).\n"
"  <dir>                     a ptcap directory: dump each of its *.pt files.\n"
"  <perf.data>, -            a perf.data of perf record -e intel_pt// (file or\n"
"                            pipe format, - reads stdin): dump each CPU's or\n"
"                            thread's trace.\n"
"  --max-decompressed SIZE   a perf.data's compressed records may decompress\n"
"                            to SIZE bytes (K, M, G): default 64 times their\n"
"                            size plus 1 MiB, at most 1 GiB.\n"
"In a ptcap directory (DIR/cpu0.pt or DIR) --cpu, --mtc-freq, --nom-freq and\n"
"--cpuid-0x15.* default to the values of DIR/config.\n"
"Exit status: 0 ok, 1 runtime error (file, decoding, no PSB), 2 usage.\n";

static int usage(const char *prog)
{
	fprintf(stderr, "%s: [<options>] <ptfile>.  Use --help or -h for help.\n",
		prog);
	return -1;
}

static int get_u64(uint64_t *value, const char *opt, const char *arg,
		   const char *prog)
{
	char *rest;

	if (!arg || !*arg || (arg[0] == '-' && arg[1] == '-')) {
		fprintf(stderr, "%s: %s: missing argument.\n", prog, opt);
		return -1;
	}
	errno = 0;
	*value = strtoull(arg, &rest, 0);
	if (errno || *rest) {
		fprintf(stderr, "%s: %s: bad argument: %s.\n", prog, opt, arg);
		return -1;
	}
	return 0;
}

static int get_uint(uint64_t *value, uint64_t max, const char *opt,
		    const char *arg, const char *prog)
{
	if (get_u64(value, opt, arg, prog) < 0)
		return -1;
	if (*value > max) {
		fprintf(stderr, "%s: %s: value too big: %s.\n", prog, opt, arg);
		return -1;
	}
	return 0;
}

/* "f/m[/s]", each number in C syntax (decimal, 0x hex, 0 octal). */
static int parse_cpu(struct ptdump_options *opts, const char *s)
{
	long family, model, stepping = 0;
	char *end;

	errno = 0;
	family = strtol(s, &end, 0);
	if (end == s || *end != '/' || family < 0 || family > USHRT_MAX)
		return -1;
	s = end + 1;
	model = strtol(s, &end, 0);
	if (end == s || (*end && *end != '/') || model < 0 ||
	    model > UCHAR_MAX)
		return -1;
	if (*end) {
		s = end + 1;
		stepping = strtol(s, &end, 0);
		if (end == s || *end || stepping < 0 || stepping > UCHAR_MAX)
			return -1;
	}
	if (errno)
		return -1;

	opts->have_cpu = 1;
	opts->family = (uint16_t)family;
	opts->model = (uint8_t)model;
	opts->stepping = (uint8_t)stepping;
	return 0;
}

/*
 * Split "file:from[-to]" (searching the last ':', since the name may hold
 * one). A suffix that does not parse is part of the name.
 */
static int split_range(struct ptdump_options *opts)
{
	char *colon = strrchr(opts->file, ':');
	uint64_t from, to;
	char *rest;

	opts->from = 0;
	opts->size = 0;
	if (!colon || !colon[1])
		return 0;

	errno = 0;
	from = strtoull(colon + 1, &rest, 0);
	if (errno || rest == colon + 1)
		return 0;
	if (!*rest) {
		opts->from = from;
		*colon = 0;
		return 0;
	}
	if (*rest != '-')
		return 0;
	to = strtoull(rest + 1, &rest, 0);
	if (errno || *rest)
		return 0;
	if (to <= from) {
		fprintf(stderr, "%s: bad file %s: invalid argument.\n",
			opts->prog, opts->file);
		return -1;
	}
	opts->from = from;
	opts->size = to - from;
	*colon = 0;
	return 0;
}

int ptdump_parse_args(int argc, char **argv, struct ptdump_options *opts)
{
	const char *prog = argv[0] ? argv[0] : "ptdump";
	uint64_t v;
	int i;

	memset(opts, 0, sizeof(*opts));
	opts->prog = prog;
	opts->show_offset = 1;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (a[0] != '-' || !strcmp(a, "-")) {
			opts->file = argv[i];
			if (i < argc - 1)
				return usage(prog);
			break;
		}

		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			printf(help_text, prog);
			return 1;
		} else if (!strcmp(a, "--version")) {
			printf("%s-%s (lwpt)\n", prog, LWPT_VERSION);
			return 1;
		} else if (!strcmp(a, "--no-sync")) {
			opts->no_sync = 1;
		} else if (!strcmp(a, "--quiet")) {
			opts->quiet = 1;
		} else if (!strcmp(a, "--no-pad")) {
			opts->no_pad = 1;
		} else if (!strcmp(a, "--no-timing")) {
			opts->no_timing = 1;
		} else if (!strcmp(a, "--no-cyc")) {
			opts->no_cyc = 1;
		} else if (!strcmp(a, "--no-offset")) {
			opts->show_offset = 0;
		} else if (!strcmp(a, "--raw")) {
			opts->show_raw = 1;
		} else if (!strcmp(a, "--lastip")) {
			opts->show_last_ip = 1;
		} else if (!strcmp(a, "--exec-mode")) {
			opts->show_exec_mode = 1;
		} else if (!strcmp(a, "--time")) {
			if (opts->show_tcal) {
				fprintf(stderr,
					"%s: specify either --time or --tcal.\n",
					prog);
				return -1;
			}
			opts->track_time = 1;
			opts->show_time = 1;
		} else if (!strcmp(a, "--tcal")) {
			if (opts->show_time) {
				fprintf(stderr,
					"%s: specify either --time or --tcal.\n",
					prog);
				return -1;
			}
			opts->track_time = 1;
			opts->show_tcal = 1;
		} else if (!strcmp(a, "--time-delta")) {
			opts->time_delta = 1;
		} else if (!strcmp(a, "--no-tcal")) {
			opts->no_tcal = 1;
		} else if (!strcmp(a, "--no-wall-clock")) {
			opts->no_wall_clock = 1;
		} else if (!strcmp(a, "--keep-tcal-on-ovf")) {
			opts->keep_tcal_on_ovf = 1;
		} else if (!strcmp(a, "-j") || !strcmp(a, "--jobs") ||
			   !strncmp(a, "--jobs=", 7) || !strncmp(a, "-j", 2)) {
			const char *arg = !strcmp(a, "-j") || !strcmp(a, "--jobs") ?
					  argv[++i] : a + (a[1] == 'j' ? 2 : 7);
			char *e;
			unsigned long n;

			errno = 0;
			n = arg ? strtoul(arg, &e, 10) : 0;
			if (!arg || errno || e == arg || *e || !n || n > 4096) {
				fprintf(stderr, "%s: -j: want 1..4096 threads.\n",
					prog);
				return -1;
			}
			opts->jobs = (unsigned int)n;
		} else if (!strcmp(a, "--chunk-size")) {
			if (lpt_perf_parse_size(argv[++i], &opts->chunk) ||
			    !opts->chunk) {
				fprintf(stderr, "%s: --chunk-size: give a size "
					"(bytes, or with K, M, G).\n", prog);
				return -1;
			}
		} else if (!strcmp(a, "--stats")) {
			opts->stats = 1;
		} else if (!strcmp(a, "--max-decompressed")) {
			if (lpt_perf_parse_size(argv[++i], &opts->max_decompressed)) {
				fprintf(stderr, "%s: --max-decompressed: give a size "
					"(bytes, or with K, M, G, T).\n", prog);
				return -1;
			}
		} else if (!strcmp(a, "--cpu")) {
			const char *arg = argv[++i];

			opts->cpu_given = 1;
			if (!arg) {
				fprintf(stderr, "%s: --cpu: missing argument.\n",
					prog);
				return -1;
			}
			if (!strcmp(arg, "none")) {
				opts->have_cpu = 0;
				continue;
			}
			if (parse_cpu(opts, arg) < 0) {
				fprintf(stderr,
					"%s: cpu must be specified as f/m[/s]\n",
					prog);
				return -1;
			}
		} else if (!strcmp(a, "--mtc-freq")) {
			if (get_uint(&v, UINT8_MAX, a, argv[++i], prog) < 0)
				return -1;
			opts->have_mtc_freq = 1;
			opts->mtc_freq = (uint8_t)v;
		} else if (!strcmp(a, "--nom-freq")) {
			if (get_uint(&v, UINT8_MAX, a, argv[++i], prog) < 0)
				return -1;
			opts->have_nom_freq = 1;
			opts->nom_freq = (uint8_t)v;
		} else if (!strcmp(a, "--cpuid-0x15.eax")) {
			if (get_uint(&v, UINT32_MAX, a, argv[++i], prog) < 0)
				return -1;
			opts->have_cpuid_0x15_eax = 1;
			opts->cpuid_0x15_eax = (uint32_t)v;
		} else if (!strcmp(a, "--cpuid-0x15.ebx")) {
			if (get_uint(&v, UINT32_MAX, a, argv[++i], prog) < 0)
				return -1;
			opts->have_cpuid_0x15_ebx = 1;
			opts->cpuid_0x15_ebx = (uint32_t)v;
		} else {
			fprintf(stderr, "%s: unknown option: %s.\n", prog, a);
			return -1;
		}
		if (i >= argc)	/* an option consumed a missing argument */
			break;
	}

	if (!opts->file) {
		fprintf(stderr, "%s: No processor trace file specified.\n",
			prog);
		return -1;
	}
	return split_range(opts);
}

void ptdump_options_config(struct ptdump_options *o, const struct ptcap_config *cfg)
{
	if (!o->cpu_given && (cfg->has & PTCAP_HAS_CPU)) {
		o->have_cpu = 1;
		o->family = cfg->cpu_family;
		o->model = cfg->cpu_model;
		o->stepping = cfg->cpu_stepping;
	}
	if (!o->have_mtc_freq && (cfg->has & PTCAP_HAS_MTC_FREQ))
		o->mtc_freq = cfg->mtc_freq;
	if (!o->have_nom_freq && (cfg->has & PTCAP_HAS_NOM_FREQ))
		o->nom_freq = cfg->nom_freq;
	if (!o->have_cpuid_0x15_eax && (cfg->has & PTCAP_HAS_CPUID_15_EAX))
		o->cpuid_0x15_eax = cfg->cpuid_15_eax;
	if (!o->have_cpuid_0x15_ebx && (cfg->has & PTCAP_HAS_CPUID_15_EBX))
		o->cpuid_0x15_ebx = cfg->cpuid_15_ebx;
}
