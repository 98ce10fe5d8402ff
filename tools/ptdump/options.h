/* SPDX-License-Identifier: GPL-2.0 */
/* ptdump: command line options (compatible with libipt's ptdump). */
#ifndef PTDUMP_OPTIONS_H
#define PTDUMP_OPTIONS_H

#include <stdint.h>

struct ptdump_options {
	const char *prog;
	char *file;		/* trace file name, range suffix removed */
	const char *name;	/* the trace as messages name it (a
				 * perf.data's "FILE:cpu0.pt"); NULL: file */
	uint64_t from;		/* first byte to load */
	uint64_t size;		/* bytes to load; 0: up to the end */
	uint64_t max_decompressed;	/* --max-decompressed; 0: default */

	/* --cpu f/m[/s]; cpu_given: --cpu was on the command line (also
	 * "none") */
	uint32_t have_cpu:1;
	uint32_t cpu_given:1;
	uint16_t family;
	uint8_t model;
	uint8_t stepping;

	/* Processor description for time tracking; have_*: given on the
	 * command line (a ptcap directory's config fills the others). */
	uint32_t have_mtc_freq:1;
	uint32_t have_nom_freq:1;
	uint32_t have_cpuid_0x15_eax:1;
	uint32_t have_cpuid_0x15_ebx:1;
	uint8_t mtc_freq;
	uint8_t nom_freq;
	uint32_t cpuid_0x15_eax;
	uint32_t cpuid_0x15_ebx;

	uint32_t show_offset:1;
	uint32_t show_raw:1;
	uint32_t show_last_ip:1;
	uint32_t show_exec_mode:1;
	uint32_t track_time:1;
	uint32_t show_time:1;
	uint32_t show_tcal:1;
	uint32_t time_delta:1;
	uint32_t keep_tcal_on_ovf:1;
	uint32_t quiet:1;
	uint32_t no_pad:1;
	uint32_t no_sync:1;
	uint32_t no_tcal:1;
	uint32_t no_wall_clock:1;
	uint32_t no_timing:1;
	uint32_t no_cyc:1;
	uint32_t stats:1;

	unsigned int jobs;	/* -j N; 0: the online CPUs */
	uint64_t chunk;		/* --chunk-size; 0: PTDUMP_CHUNK */
};

/* ptdump -j's chunk size: a chunk's text (up to ~22 bytes per PAD byte)
 * is held until the chunks before it are written. */
#define PTDUMP_CHUNK	(32u << 10)

/* Exit statuses of ptdump (ptdump(1), EXIT STATUS). */
enum ptdump_exit {
	PTDUMP_EXIT_OK = 0,
	PTDUMP_EXIT_ERROR = 1,	/* runtime: file, decoding, no PSB, output */
	PTDUMP_EXIT_USAGE = 2,	/* bad command line */
};

/*
 * Parse @argv into @opts. Returns 0 to go on dumping, 1 when done (--help,
 * --version) and -1 on a usage error (already reported on stderr).
 */
int ptdump_parse_args(int argc, char **argv, struct ptdump_options *opts);

struct ptcap_config;

/**
 * ptdump_options_config() - a capture's decoder parameters (a ptcap
 * directory's config, a perf.data's AUXTRACE_INFO and CPUID: struct
 * ptcap_config of <lwpt/ptcap_dir.h>) as the values of the options not
 * given on the command line.
 * @o:   parsed options; --cpu, --mtc-freq, --nom-freq, --cpuid-0x15.eax
 *       and --cpuid-0x15.ebx given on the command line are kept.
 * @cfg: the parameters: the config keys cpu, mtc-freq, nom-freq,
 *       cpuid-0x15.eax and cpuid-0x15.ebx (ptcap-format.rst) it has; SDM
 *       33.8.3 needs the last four for time tracking.
 */
void ptdump_options_config(struct ptdump_options *o, const struct ptcap_config *cfg);

/* How messages name the trace being dumped. */
static inline const char *ptdump_name(const struct ptdump_options *o)
{
	return o->name ? o->name : o->file;
}

#endif /* PTDUMP_OPTIONS_H */
