// SPDX-License-Identifier: GPL-2.0
/*
 * lwpt-info: what LWP (43724) and Intel PT this machine offers, through
 * which backend. CPUID is decoded once, by liblwp (lwp_query_backend());
 * this tool only prints.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include <lwpt/lwp.h>

#define LWP_DEVICE	"/dev/lwp"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: lwpt-info [OPTION]...\n"
		"Print the LWP capabilities of the CPU, of the lwpt kernel module\n"
		"(/dev/lwp) and of each liblwp backend.\n\n"
		"  -b, --backend NAME   only this backend: hw or emu\n"
		"  -h, --help           this help\n\n"
		"Exit status: 0 if some backend is usable, 2 if none is, 1 on a\n"
		"usage error.\n");
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

static void print_backend(int backend)
{
	struct lwp_caps c;
	int ret = lwp_query_backend(&c, backend);

	printf("backend %s (%s):\n", lwp_backend_name(backend),
	       backend == LWP_BACKEND_HW ? "/dev/lwp, lwpt.ko or lwpt_sim.ko" :
	       "user-space emulation on the LWP model");
	if (ret) {
		printf("  %-26s%s (%s)\n", "usable", "no", strerror(-ret));
		return;
	}
	printf("  %-26s%s\n", "usable", yes(c.available));
	if (backend == LWP_BACKEND_HW)
		printf("  %-26s%s\n", "UD2 before LWP insns",
		       c.hw_ud2_marker ? "yes (XOP does not raise #UD here, "
		       "lwpt_sim.ko ud2_marker=1)" : "no");
	printf("  %-26s%#010x %#010x %#010x %#010x\n", "CPUID Fn8000_001C",
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
}

/* Hook for Intel PT (libpt); printed once libpt offers a capability query. */
static void print_pt(void)
{
	printf("Intel PT:\n  %-26s%s\n", "capabilities", "not reported yet");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct lwp_caps best;
	struct stat st;
	int c, only = 0;

	while ((c = getopt_long(argc, argv, "b:h", opts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (!strcmp(optarg, "hw"))
				only = LWP_BACKEND_HW;
			else if (!strcmp(optarg, "emu"))
				only = LWP_BACKEND_EMU;
			else {
				usage(stderr);
				return 1;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 1;
	}

	(void)lwp_query(&best);
	printf("CPU:\n  %-26s%s\n", "LWP (Fn8000_0001_ECX[15])",
	       yes(best.cpu_supported));
	printf("kernel module:\n  %-26s%s\n", LWP_DEVICE,
	       stat(LWP_DEVICE, &st) == 0 ? "present" : "absent");
	if (best.hw_abi_version)
		printf("  %-26s%u.%u (%s)\n", "ABI version",
		       best.hw_abi_version >> 16, best.hw_abi_version & 0xffff,
		       best.hw_sim ? "lwpt_sim.ko, software model" : "lwpt.ko");
	if (!only || only == LWP_BACKEND_HW)
		print_backend(LWP_BACKEND_HW);
	if (!only || only == LWP_BACKEND_EMU)
		print_backend(LWP_BACKEND_EMU);
	printf("lwp_open() default backend: %s\n",
	       best.available ? lwp_backend_name((int)best.backend) : "none");
	if (!only)
		print_pt();
	return best.available ? 0 : 2;
}
