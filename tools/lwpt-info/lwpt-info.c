// SPDX-License-Identifier: GPL-2.0
/*
 * lwpt-info: what LWP (43724) and Intel PT (SDM Vol. 3C chapter 33) this
 * machine offers, through which backend. CPUID is decoded once, by liblwp
 * (lwp_query_backend()) and by the module for PT leaf 14H (libpt's
 * lpt_dev_caps()); this tool only prints.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <lwpt/lwp.h>
#include <lwpt/pt.h>

#define LWP_DEVICE	"/dev/lwp"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: lwpt-info [OPTION]...\n"
		"Print the LWP capabilities of the CPU, of the lwpt kernel module\n"
		"(/dev/lwp) and of each liblwp backend, then the Intel PT\n"
		"capabilities of the CPU and of the module (/dev/pt).\n\n"
		"  -b, --backend NAME   only this LWP backend: hw or emu (no PT)\n"
		"  -h, --help           this help\n\n"
		"      --version        print the lwpt version\n"
		"\n"
		"Exit status: 0 if some backend is usable (with -b: that one), 1 if\n"
		"none is, 2 on a usage error.\n");
}

static const char *yes(unsigned int v)
{
	return v ? "yes" : "no";
}

/* Table 3-1 EAX/EDX bits by name. */
static void print_flags(const char *what, uint32_t flags)
{
	static const struct { uint32_t bit; const char *name; } f[] = {
		{ LWP_FLAG_VAL, "VAL" }, { LWP_FLAG_IRE, "IRE" },
		{ LWP_FLAG_BRE, "BRE" }, { LWP_FLAG_DME, "DME" },
		{ LWP_FLAG_CNH, "CNH" }, { LWP_FLAG_RNH, "RNH" },
		{ LWP_FLAG_INT, "INT" },
	};
	size_t i;
	int any = 0;

	printf("  %-26s", what);
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (flags & f[i].bit) {
			printf("%s%s", any ? " " : "", f[i].name);
			any = 1;
		}
	printf("%s\n", any ? "" : "-");
}

/*
 * Why the hardware backend is unusable, in words: the device, or QEMU's
 * XOP-as-POP without lwpt_sim.ko's UD2 marker (issue 14 §3).
 */
static void print_hw_why(int ret, int traps, int dev)
{
	if (ret == -ENODEV && dev && traps == 0)
		printf("  %-26s%s\n", "usable",
		       "no: this CPU executes LWP instructions (XOP 8F) as POP instead of\n"
		       "                            raising #UD (QEMU TCG); load lwpt_sim.ko with ud2_marker=1\n"
		       "                            (or echo 1 > /sys/module/lwpt_sim/parameters/ud2_marker)");
	else if (ret == -ENODEV && !dev)
		printf("  %-26s%s\n", "usable",
		       "no: no /dev/lwp (load lwpt.ko, or lwpt_sim.ko on a machine without LWP)");
	else if (ret == -ENODEV)
		printf("  %-26s%s\n", "usable",
		       "no: /dev/lwp exists but the module has no LWP on this machine\n"
		       "                            (its load line in the kernel log says why)");
	else
		printf("  %-26s%s (%s)\n", "usable", "no", strerror(-ret));
}

/* Returns 1 if @backend is usable, else 0. */
static int print_backend(int backend, int dev)
{
	struct lwp_caps c;
	int ret = lwp_query_backend(&c, backend);
	int traps = lwp_raw_insns_trap();

	printf("backend %s (%s):\n", lwp_backend_name(backend),
	       backend == LWP_BACKEND_HW ? "/dev/lwp, lwpt.ko or lwpt_sim.ko" :
	       "user-space emulation on the LWP model");
	if (ret) {
		if (backend == LWP_BACKEND_HW)
			print_hw_why(ret, traps, dev);
		else
			printf("  %-26s%s (%s)\n", "usable", "no", strerror(-ret));
		return 0;
	}
	printf("  %-26s%s\n", "usable", yes(c.available));
	if (backend == LWP_BACKEND_EMU)
		printf("  %-26s%s\n", "raw LWP instructions",
		       traps > 0 ? "trap (SIGILL): emulated" :
		       traps == 0 ? "do NOT trap here (QEMU TCG runs XOP 8F as POP): "
		       "only liblwp's inline wrappers work; JIT code with raw "
		       "LWP instructions would crash" : "unknown (probe failed)");
	if (backend == LWP_BACKEND_HW)
		printf("  %-26s%s\n", "UD2 before LWP insns",
		       c.hw_ud2_marker ? "yes (XOP does not raise #UD here, "
		       "lwpt_sim.ko ud2_marker=1)" : "no");
	printf("  %-26s0x%08x 0x%08x 0x%08x 0x%08x\n", "CPUID Fn8000_001C",
	       c.cpuid_eax, c.cpuid_ebx, c.cpuid_ecx, c.cpuid_edx);
	print_flags("events available (EAX)", c.available_flags);
	print_flags("events supported (EDX)", c.supported_flags);
	printf("  %-26s%u\n", "LwpVersion", c.version);
	printf("  %-26s%u bytes\n", "LWPCB size (LwpCbSize*8)", c.lwpcb_size);
	printf("  %-26s%u bytes\n", "LwpEventSize", c.event_size);
	printf("  %-26s%u\n", "LwpMaxEvents", c.max_event_id);
	printf("  %-26s%u bytes\n", "LwpEventOffset", c.event_offset);
	printf("  %-26s%u records\n", "minimum ring buffer", c.min_buffer_records);
	printf("  %-26s%s\n", "IP filtering", yes(c.ip_filtering));
	printf("  %-26s%s\n", "branch prediction filter", yes(c.branch_prediction));
	printf("  %-26s%s\n", "cache level filtering", yes(c.cache_levels));
	printf("  %-26s%s\n", "cache latency filtering", yes(c.cache_latency));
	printf("  %-26s%u bits, rounded to %u bits\n", "latency counter",
	       c.latency_max, c.latency_rnd);
	printf("  %-26s%s\n", "DCache data address", yes(c.data_address));
	return !!c.available;
}

/* A 16-bit encoding bitmap of CPUID 14H.1 and the encodings it allows. */
static void print_encodings(const char *what, uint32_t map)
{
	unsigned int e;

	printf("  %-26s%#06x (", what, map);
	if (!map)
		printf("none");
	for (e = 0; e < 16; e++)
		if (map & (1u << e))
			printf("%u%s", e, map >> (e + 1) ? " " : "");
	printf(")\n");
}

/*
 * Intel PT: the CPU's CPUID.(07H,0):EBX[25], and what the module decoded
 * from leaf 14H (lpt_dev_caps()); names of the capability bits from libpt.
 */
static void print_pt(void)
{
	const struct lwpt_pt_caps *c;
	struct lpt_dev *dev;
	uint32_t abi, abi_flags;
	unsigned int bit;
	int err;

	printf("Intel PT:\n  %-26s%s\n", "Intel PT (07H.0:EBX[25])",
	       yes(lpt_cpu_has_pt()));
	err = lpt_dev_open(LPT_DEV_PATH, &dev);
	if (err == -ENOENT) {
		printf("  %-26s%s\n", LPT_DEV_PATH, "absent");
		return;
	}
	if (err) {
		printf("  %-26spresent, not usable (%s)\n", LPT_DEV_PATH,
		       lpt_dev_strerror(err));
		return;
	}
	c = lpt_dev_caps(dev);
	lpt_dev_abi(dev, &abi, &abi_flags);
	printf("  %-26s%s\n", LPT_DEV_PATH, "present");
	printf("  %-26s%u.%u (%s)\n", "ABI version", LWPT_ABI_VERSION_MAJOR(abi),
	       LWPT_ABI_VERSION_MINOR(abi), abi_flags & LWPT_ABI_F_SIM ?
	       "lwpt_sim.ko, software model" : "lwpt.ko");
	printf("  %-26s0x%08x 0x%08x 0x%08x 0x%08x\n", "CPUID 14H.0",
	       c->cpuid_14h[0][0], c->cpuid_14h[0][1], c->cpuid_14h[0][2],
	       c->cpuid_14h[0][3]);
	printf("  %-26s0x%08x 0x%08x 0x%08x 0x%08x\n", "CPUID 14H.1",
	       c->cpuid_14h[1][0], c->cpuid_14h[1][1], c->cpuid_14h[1][2],
	       c->cpuid_14h[1][3]);
	printf("  capabilities, as the module decoded them (SDM Table 33-11):\n");
	for (bit = 0; bit < 32; bit++) {
		const char *name = lpt_cap_name(1u << bit);

		if (name)
			printf("    %-4s%s\n", yes(c->caps & (1u << bit)), name);
	}
	printf("  %-26s%u\n", "address ranges (ADDRn)", c->nr_ranges);
	print_encodings("MTCFreq encodings", c->mtc_periods);
	print_encodings("CycThresh encodings", c->cyc_thresholds);
	print_encodings("PSBFreq encodings", c->psb_periods);
	printf("  %-26s%llu bytes per CPU\n", "maximum buffer",
	       (unsigned long long)c->max_buffer_size);
	printf("  %-26s%llu bytes\n", "maximum ToPA region",
	       (unsigned long long)c->max_region_size);
	printf("  %-26s%u bits\n", "MAXPHYADDR", c->maxphyaddr);
	printf("  %-26s%u\n", "possible CPUs", c->nr_cpus);
	lpt_dev_close(dev);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	struct lwp_caps best;
	struct stat st;
	int c, only = 0, dev, usable = 0;

	while ((c = getopt_long(argc, argv, "b:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (!strcmp(optarg, "hw"))
				only = LWP_BACKEND_HW;
			else if (!strcmp(optarg, "emu"))
				only = LWP_BACKEND_EMU;
			else {
				usage(stderr);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 'V':
			printf("lwpt-info %s (lwpt)\n", LWPT_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}

	(void)lwp_query(&best);
	printf("CPU:\n  %-26s%s\n", "LWP (Fn8000_0001_ECX[15])",
	       yes(best.cpu_supported));
	dev = stat(LWP_DEVICE, &st) == 0;
	printf("kernel module:\n  %-26s%s\n", LWP_DEVICE,
	       dev ? "present" : "absent");
	if (best.hw_abi_version)
		printf("  %-26s%u.%u (%s)\n", "ABI version",
		       best.hw_abi_version >> 16, best.hw_abi_version & 0xffff,
		       best.hw_sim ? "lwpt_sim.ko, software model" : "lwpt.ko");
	if (!only || only == LWP_BACKEND_HW)
		usable |= print_backend(LWP_BACKEND_HW, dev);
	if (!only || only == LWP_BACKEND_EMU)
		usable |= print_backend(LWP_BACKEND_EMU, dev);
	printf("lwp_open() default backend: %s\n",
	       best.available ? lwp_backend_name((int)best.backend) : "none");
	if (!only)
		print_pt();
	if (only)
		return usable ? 0 : 1;
	return best.available ? 0 : 1;
}
