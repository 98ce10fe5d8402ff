// SPDX-License-Identifier: GPL-2.0
/*
 * ptcap: capture Intel PT (SDM Vol. 3C chapter 33) through /dev/pt with
 * libpt (include/lwpt/pt.h) into a directory in the format of
 * Documentation/ptcap-format.rst. See Documentation/ptcap.rst, ptcap.1.
 *
 *   ptcap -a [options]               all CPUs until SIGINT or -d SECONDS
 *   ptcap [options] -- command args  one command (per thread if the module
 *                                    supports it, else per CPU while it runs)
 */
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <lwpt/pt.h>

#define PTCAP_DEFAULT_DIR	"ptcap.out"
#define PTCAP_POLL_NS		20000000L	/* 20 ms between drains / checks */

struct opts {
	bool all;
	double duration;	/* seconds, 0 = until SIGINT */
	const char *dir;
	const char *dev;
	bool progress;
	bool user, kernel;	/* given explicitly */
	bool no_branch, no_tsc;
	struct lpt_cap_config cfg;
	char **argv;		/* the command, NULL with -a */
};

static volatile sig_atomic_t stop_req;

static void on_signal(int sig)
{
	(void)sig;
	stop_req = 1;
}

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ptcap: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: ptcap -a [options]                trace all CPUs until SIGINT or -d\n"
"       ptcap [options] -- command [args]  trace a command\n"
"\n"
"  -a, --all              system-wide, every online CPU\n"
"  -d, --duration=SEC     stop after SEC seconds (decimal allowed)\n"
"  -o, --output=DIR       output directory (default " PTCAP_DEFAULT_DIR ")\n"
"      --device=PATH      device node (default " LPT_DEV_PATH ")\n"
"      --user, --kernel   trace CPL>0 / CPL0 (User, OS); default --user\n"
"      --no-branch        clear BranchEn (no COFI packets)\n"
"      --tsc, --no-tsc    TSCEn (default on)\n"
"      --mtc=FREQ         MTCEn with MTCFreq encoding FREQ (0..15)\n"
"      --cyc=THRESH       CYCEn with CycThresh encoding THRESH (0..15)\n"
"      --psb-freq=ENC     PSBFreq encoding: a PSB every 2K<<ENC bytes\n"
"      --disretc          DisRETC (no return compression)\n"
"      --ptw              PTWEn (PTWRITE packets)   --fup-on-ptw  FUPonPTW\n"
"      --pwr              PwrEvtEn (power event packets)\n"
"      --event            EventEn   --distnt  DisTNT   --inject-psb-pmi\n"
"      --cr3              CR3Filter on the traced command's CR3\n"
"      --filter=A-B       trace only in [A, B] (an ADDRn range, FilterEn)\n"
"      --stop=A-B         stop tracing on entering [A, B] (TraceStop)\n"
"      --size=BYTES       buffer per CPU/thread (K, M, G suffixes)\n"
"      --region-size=BYTES largest ToPA region\n"
"      --single-range     single-range output, not ToPA (wrap mode; a power-of-two size)\n"
"      --mode=wrap|stop|continuous   output mode (default wrap)\n"
"      --progress         show progress on stderr (default when a tty)\n"
"  -h, --help             this help\n"
"\n"
"Output: DIR/config, DIR/maps, DIR/cpu<N>.pt and DIR/switches, or tid<N>.pt\n"
"(Documentation/ptcap-format.rst); decode with ptdump or ptflow DIR.\n");
}

static uint64_t parse_u64(const char *opt, const char *s, bool suffix)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		die("%s: bad number '%s'", opt, s);
	if (suffix && *end) {
		int sh = 0;

		switch (*end) {
		case 'k': case 'K': sh = 10; break;
		case 'm': case 'M': sh = 20; break;
		case 'g': case 'G': sh = 30; break;
		default: die("%s: bad suffix in '%s'", opt, s);
		}
		if (v > (UINT64_MAX >> sh))
			die("%s: '%s' too large", opt, s);
		v <<= sh;
		end++;
	}
	if (*end)
		die("%s: bad number '%s'", opt, s);
	return v;
}

static void add_range(struct opts *o, const char *opt, const char *s, uint32_t cfg)
{
	char buf[128], *dash;
	unsigned int i;

	if (strlen(s) >= sizeof(buf))
		die("%s: bad range '%s'", opt, s);
	strcpy(buf, s);
	dash = strchr(buf, '-');
	if (!dash)
		die("%s: expected A-B, got '%s'", opt, s);
	*dash = 0;
	for (i = 0; i < LWPT_PT_ADDR_RANGES; i++)
		if (o->cfg.addr[i].cfg == LWPT_PT_ADDR_UNUSED)
			break;
	if (i == LWPT_PT_ADDR_RANGES)
		die("%s: at most %d address ranges", opt, LWPT_PT_ADDR_RANGES);
	o->cfg.addr[i].a = parse_u64(opt, buf, false);
	o->cfg.addr[i].b = parse_u64(opt, dash + 1, false);
	o->cfg.addr[i].cfg = cfg;
}

static uint32_t parse_enc(const char *opt, const char *s)
{
	uint64_t v = parse_u64(opt, s, false);

	if (v > 15)
		die("%s: encoding %s out of 0..15", opt, s);
	return (uint32_t)v;
}

enum {
	O_DEVICE = 256, O_USER, O_KERNEL, O_NO_BRANCH, O_TSC, O_NO_TSC, O_MTC, O_CYC,
	O_PSB, O_DISRETC, O_PTW, O_FUPPTW, O_PWR, O_EVENT, O_DISTNT, O_INJECT, O_CR3,
	O_FILTER, O_STOP, O_SIZE, O_REGION, O_MODE, O_PROGRESS, O_SINGLE,
};

static void parse_args(struct opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "duration", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "device", required_argument, NULL, O_DEVICE },
		{ "user", no_argument, NULL, O_USER },
		{ "kernel", no_argument, NULL, O_KERNEL },
		{ "no-branch", no_argument, NULL, O_NO_BRANCH },
		{ "tsc", no_argument, NULL, O_TSC },
		{ "no-tsc", no_argument, NULL, O_NO_TSC },
		{ "mtc", required_argument, NULL, O_MTC },
		{ "cyc", required_argument, NULL, O_CYC },
		{ "psb-freq", required_argument, NULL, O_PSB },
		{ "disretc", no_argument, NULL, O_DISRETC },
		{ "ptw", no_argument, NULL, O_PTW },
		{ "fup-on-ptw", no_argument, NULL, O_FUPPTW },
		{ "pwr", no_argument, NULL, O_PWR },
		{ "event", no_argument, NULL, O_EVENT },
		{ "distnt", no_argument, NULL, O_DISTNT },
		{ "inject-psb-pmi", no_argument, NULL, O_INJECT },
		{ "cr3", no_argument, NULL, O_CR3 },
		{ "filter", required_argument, NULL, O_FILTER },
		{ "stop", required_argument, NULL, O_STOP },
		{ "size", required_argument, NULL, O_SIZE },
		{ "region-size", required_argument, NULL, O_REGION },
		{ "single-range", no_argument, NULL, O_SINGLE },
		{ "mode", required_argument, NULL, O_MODE },
		{ "progress", no_argument, NULL, O_PROGRESS },
		{ NULL, 0, NULL, 0 },
	};
	struct lpt_cap_config *c = &o->cfg;
	bool size_given = false;
	char *end;
	int ch;

	lpt_cap_config_init(c, NULL);
	c->flags = 0;
	o->dir = PTCAP_DEFAULT_DIR;
	o->progress = isatty(2);
	while ((ch = getopt_long(argc, argv, "+ad:o:h", lo, NULL)) != -1) {
		switch (ch) {
		case 'a': o->all = true; break;
		case 'd':
			errno = 0;
			o->duration = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->duration > 0))
				die("-d: bad duration '%s' (seconds > 0)", optarg);
			break;
		case 'o': o->dir = optarg; break;
		case 'h': usage(stdout); exit(0);
		case O_DEVICE: o->dev = optarg; break;
		case O_USER: o->user = true; break;
		case O_KERNEL: o->kernel = true; break;
		case O_NO_BRANCH: o->no_branch = true; break;
		case O_TSC: o->no_tsc = false; break;
		case O_NO_TSC: o->no_tsc = true; break;
		case O_MTC: c->flags |= LWPT_PT_CFG_MTC; c->mtc_freq = parse_enc("--mtc", optarg); break;
		case O_CYC: c->flags |= LWPT_PT_CFG_CYC; c->cyc_thresh = parse_enc("--cyc", optarg); break;
		case O_PSB:
			c->flags |= LWPT_PT_CFG_PSBFREQ;
			c->psb_freq = parse_enc("--psb-freq", optarg);
			break;
		case O_DISRETC: c->flags |= LWPT_PT_CFG_DISRETC; break;
		case O_PTW: c->flags |= LWPT_PT_CFG_PTW; break;
		case O_FUPPTW: c->flags |= LWPT_PT_CFG_FUPONPTW; break;
		case O_PWR: c->flags |= LWPT_PT_CFG_PWREVT; break;
		case O_EVENT: c->flags |= LWPT_PT_CFG_EVENT; break;
		case O_DISTNT: c->flags |= LWPT_PT_CFG_DISTNT; break;
		case O_INJECT: c->flags |= LWPT_PT_CFG_INJECT_PSB_PMI; break;
		case O_CR3: c->flags |= LWPT_PT_CFG_CR3_FILTER; break;
		case O_FILTER: add_range(o, "--filter", optarg, LWPT_PT_ADDR_FILTER); break;
		case O_STOP: add_range(o, "--stop", optarg, LWPT_PT_ADDR_STOP); break;
		case O_SIZE: c->buffer_size = parse_u64("--size", optarg, true); size_given = true; break;
		case O_REGION: c->region_size = parse_u64("--region-size", optarg, true); break;
		case O_SINGLE: c->flags |= LWPT_PT_CFG_SINGLE_RANGE; break;
		case O_MODE:
			if (!strcmp(optarg, "wrap"))
				c->mode = LWPT_PT_MODE_WRAP;
			else if (!strcmp(optarg, "stop"))
				c->mode = LWPT_PT_MODE_STOP;
			else if (!strcmp(optarg, "continuous"))
				c->mode = LWPT_PT_MODE_CONTINUOUS;
			else
				die("--mode: expected wrap, stop or continuous, got '%s'", optarg);
			break;
		case O_PROGRESS: o->progress = true; break;
		default: usage(stderr); exit(1);
		}
	}
	if (!size_given)
		c->buffer_size = 0;	/* the device's default, set later */
	if (o->all == (optind < argc))
		die("give either -a or a command after '--' (see --help)");
	if (o->all && (c->flags & LWPT_PT_CFG_CR3_FILTER))
		die("--cr3 needs a command to take the CR3 of");
	o->argv = o->all ? NULL : argv + optind;
	if (!o->user && !o->kernel)
		o->user = true;
	c->flags |= (o->user ? LWPT_PT_CFG_USER : 0) | (o->kernel ? LWPT_PT_CFG_OS : 0);
	if (!o->no_branch)
		c->flags |= LWPT_PT_CFG_BRANCH;
	if (!o->no_tsc)
		c->flags |= LWPT_PT_CFG_TSC;
}

/* ---- output directory ------------------------------------------------- */

static FILE *out_open(const char *dir, const char *name)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		die("%s: %s", path, strerror(errno));
	return f;
}

static void out_close(FILE *f, const char *dir, const char *name)
{
	if (ferror(f) | fclose(f))
		die("%s/%s: write error: %s", dir, name, strerror(errno));
}

/* One mapping of /proc/PID/maps (file-backed only). */
struct map {
	uint64_t start, end, offset;
	char *path;
};

struct maps {
	struct map *v;
	size_t n, cap;
	uint64_t vdso_start, vdso_end;	/* [vdso] of the first snapshot */
};

static void maps_add(struct maps *m, uint64_t s, uint64_t e, uint64_t off, const char *p)
{
	if (m->n == m->cap) {
		size_t nc = m->cap ? 2 * m->cap : 64;
		struct map *nv = realloc(m->v, nc * sizeof(*nv));

		if (!nv)
			die("out of memory");
		m->v = nv;
		m->cap = nc;
	}
	m->v[m->n].start = s;
	m->v[m->n].end = e;
	m->v[m->n].offset = off;
	m->v[m->n].path = strdup(p);
	if (!m->v[m->n].path)
		die("out of memory");
	m->n++;
}

static bool maps_has(const struct maps *m, uint64_t s, uint64_t e, uint64_t off,
		     const char *path)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (m->v[i].start == s && m->v[i].end == e && m->v[i].offset == off &&
		    !strcmp(m->v[i].path, path))
			return true;
	return false;
}

/* Append the file-backed mappings of /proc/@pid/maps to @m; 0 or -errno. */
static int maps_read(pid_t pid, struct maps *m)
{
	char path[64], line[4400];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8];
		int pos = 0;
		char *p, *nl;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &pos) < 4 ||
		    !pos)
			continue;
		p = line + pos;
		nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		if (!strcmp(p, "[vdso]") && !m->vdso_end) {
			m->vdso_start = s;
			m->vdso_end = e;
		}
		if (p[0] != '/')	/* anonymous, [heap], [vdso], ...: no file */
			continue;
		if (strstr(p, " (deleted)"))
			continue;
		if (maps_has(m, s, e, off, p))
			continue;	/* same line as in an earlier snapshot */
		maps_add(m, s, e, off, p);
	}
	fclose(f);
	return 0;
}

/*
 * Copy the traced process's vDSO (code executed without a file) into
 * DIR/vdso.so and map it there (ptcap-format.rst: relative paths are in the
 * capture directory). A failure is a warning: that range stays undecodable.
 */
static void save_vdso(pid_t pid, const char *dir, struct maps *m)
{
	uint64_t len = m->vdso_end - m->vdso_start;
	char path[64];
	uint8_t *buf;
	FILE *f;
	int fd;

	if (!m->vdso_end || len > (1u << 20))
		return;
	buf = malloc(len);
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (!buf || fd < 0 ||
	    pread(fd, buf, len, (off_t)m->vdso_start) != (ssize_t)len) {
		fprintf(stderr, "ptcap: warning: vDSO not saved: %s\n", strerror(errno));
	} else {
		f = out_open(dir, "vdso.so");
		if (fwrite(buf, 1, len, f) == len)
			maps_add(m, m->vdso_start, m->vdso_end, 0, "vdso.so");
		out_close(f, dir, "vdso.so");
	}
	if (fd >= 0)
		close(fd);
	free(buf);
}

static void write_maps(const char *dir, const struct maps *m, pid_t pid)
{
	FILE *f = out_open(dir, "maps");
	size_t i;

	fprintf(f, "lwpt-ptcap-maps 1\n");
	if (pid)
		fprintf(f, "# /proc/%d/maps (file-backed), at exec and at exit\n", (int)pid);
	else
		fprintf(f, "# system-wide capture: no process maps\n");
	fprintf(f, "# start end offset path\n");
	for (i = 0; i < m->n; i++)
		fprintf(f, "0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " %s\n", m->v[i].start,
			m->v[i].end, m->v[i].offset, m->v[i].path);
	out_close(f, dir, "maps");
}

/* CPU family/model/stepping from CPUID.1 (display values, SDM Vol. 2A CPUID). */
static void cpu_fms(unsigned int *fam, unsigned int *model, unsigned int *step)
{
	unsigned int a = 0, b, c, d;

	__get_cpuid(1, &a, &b, &c, &d);
	*fam = (a >> 8) & 0xf;
	*model = (a >> 4) & 0xf;
	*step = a & 0xf;
	if (*fam == 0xf)
		*fam += (a >> 20) & 0xff;
	if (*fam == 0x6 || *fam >= 0xf)
		*model += ((a >> 16) & 0xf) << 4;
}

#define MSR_PLATFORM_INFO	0xceu

/* Read MSR @msr of CPU @cpu through /dev/cpu/N/msr (the msr driver). */
static bool msr_read(unsigned int cpu, uint32_t msr, uint64_t *val)
{
	char path[48];
	bool ok;
	int fd;

	snprintf(path, sizeof(path), "/dev/cpu/%u/msr", cpu);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = pread(fd, val, sizeof(*val), msr) == (ssize_t)sizeof(*val);
	close(fd);
	return ok;
}

static const char *mode_name(uint32_t mode)
{
	return mode == LWPT_PT_MODE_STOP ? "stop" :
	       mode == LWPT_PT_MODE_CONTINUOUS ? "continuous" : "wrap";
}

struct trace_file {
	char name[32];
	int cpu;		/* the buffer number (the CPU of a per-CPU capture) */
	FILE *f;
	uint64_t bytes;
	struct lpt_cap_status st;
	bool have_st;
	struct lpt_buf_info info;	/* per thread: whose buffer */
	uint64_t switches;	/* per CPU: context switches written */
	uint64_t switches_lost;	/* per CPU: dropped by the module (ring full) */
};

static void write_config(const struct opts *o, const struct lpt_cap_config *c,
			 struct lpt_dev *dev, const struct trace_file *tf, unsigned int ntf,
			 bool per_thread, bool have_switches)
{
	FILE *f = out_open(o->dir, "config");
	unsigned int fam, model, step, a, b = 0, cc = 0, d = 0, i, max = 0, abi, aflags;
	uint64_t ctl = 0, platform_info = 0;
	bool intel;

	fprintf(f, "lwpt-ptcap-config 1\n");
	fprintf(f, "# written by ptcap (Documentation/ptcap-format.rst)\n");
	fprintf(f, "mode %s\n", per_thread ? "per-thread" : "per-cpu");
	cpu_fms(&fam, &model, &step);
	__get_cpuid(0, &max, &b, &cc, &d);
	/* libipt's cpu (errata) is an Intel family/model; PT is Intel's. */
	intel = b == 0x756e6547 && d == 0x49656e69 && cc == 0x6c65746e;	/* GenuineIntel */
	if (intel)
		fprintf(f, "cpu %u/%u/%u\n", fam, model, step);
	else
		fprintf(f, "# cpu %u/%u/%u is not an Intel CPU: no cpu key (no errata)\n",
			fam, model, step);
	fprintf(f, "mtc-freq %u\n", (c->flags & LWPT_PT_CFG_MTC) ? c->mtc_freq : 0);
	/*
	 * MSR_PLATFORM_INFO (CEH)[15:8], the maximum non-turbo ratio (SDM
	 * 33.8.3 uses it for CBR-based timing): the module does not export it
	 * (ABI 1.0), so only through the msr driver, on Intel CPUs.
	 */
	if (intel && msr_read(0, MSR_PLATFORM_INFO, &platform_info))
		fprintf(f, "nom-freq %u\n", (unsigned int)((platform_info >> 8) & 0xff));
	else
		fprintf(f, "# nom-freq unknown: MSR_PLATFORM_INFO[15:8] not readable (msr driver)\n");
	if (max >= 0x15) {
		__cpuid_count(0x15, 0, a, b, cc, d);
		if (a && b) {
			fprintf(f, "cpuid-0x15.eax %u\ncpuid-0x15.ebx %u\n", a, b);
			if (cc)
				fprintf(f, "tsc-freq %llu\n",
					(unsigned long long)cc * b / a);
		}
	}
	for (i = 0; i < ntf; i++)
		if (tf[i].have_st && tf[i].st.rtit_ctl) {
			ctl = tf[i].st.rtit_ctl;
			break;
		}
	if (ctl)
		fprintf(f, "rtit-ctl 0x%" PRIx64 "\n", ctl);
	if (o->argv) {
		fprintf(f, "command");
		for (i = 0; o->argv[i]; i++)
			fprintf(f, " %s", o->argv[i]);
		fprintf(f, "\n");
	}
	/* ptcap's own keys (readers skip keys they do not know). */
	fprintf(f, "capture-flags 0x%x\n", c->flags);
	fprintf(f, "capture-mode %s\n", mode_name(c->mode));
	fprintf(f, "buffer-size %" PRIu64 "\n", c->buffer_size);
	/* SDM 33.2.7.1 (asked for, or the module's only scheme) or 33.2.7.2. */
	fprintf(f, "output %s\n", lpt_dev_single_range(dev) ? "single-range" : "topa");
	if (c->flags & LWPT_PT_CFG_CYC)
		fprintf(f, "cyc-thresh %u\n", c->cyc_thresh);
	if (c->flags & LWPT_PT_CFG_PSBFREQ)
		fprintf(f, "psb-freq %u\n", c->psb_freq);
	for (i = 0; i < LWPT_PT_ADDR_RANGES; i++)
		if (c->addr[i].cfg != LWPT_PT_ADDR_UNUSED)
			fprintf(f, "addr%u %s 0x%" PRIx64 "-0x%" PRIx64 "\n", i,
				c->addr[i].cfg == LWPT_PT_ADDR_STOP ? "stop" : "filter",
				(uint64_t)c->addr[i].a, (uint64_t)c->addr[i].b);
	lpt_dev_abi(dev, &abi, &aflags);
	fprintf(f, "abi-version %u.%u%s\n", LWPT_ABI_VERSION_MAJOR(abi),
		LWPT_ABI_VERSION_MINOR(abi), (aflags & LWPT_ABI_F_SIM) ? " sim" : "");
	for (i = 0; i < ntf; i++) {
		const struct lpt_buf_info *t = &tf[i].info;

		if (!t->thread)
			continue;
		/* Which thread wrote which file (Documentation/ptcap-format.rst). */
		fprintf(f, "thread.%s tid=%d pid=%d buffer=%d%s%s%s\n", tf[i].name, (int)t->tid,
			(int)t->pid, tf[i].cpu, t->exited ? " exited" : "",
			t->execed ? " execed" : "", t->detached ? " detached" : "");
		if (i + 1 == ntf && t->threads_lost)
			fprintf(f, "threads-lost %u\n", t->threads_lost);
	}
	for (i = 0; i < ntf && have_switches; i++)
		fprintf(f, "switches.%s count=%" PRIu64 " lost=%" PRIu64 "\n", tf[i].name,
			tf[i].switches, tf[i].switches_lost);
	for (i = 0; i < ntf; i++) {
		const struct lpt_cap_status *s = &tf[i].st;

		if (!tf[i].have_st)
			continue;
		fprintf(f, "status.%s bytes=%" PRIu64 " saved=%" PRIu64 " wraps=%" PRIu64
			" lost=%" PRIu64 " pmis=%" PRIu64 " rtit-status=0x%" PRIx64 "%s%s%s%s\n",
			tf[i].name, s->bytes, tf[i].bytes, s->wraps, s->lost, s->pmis,
			s->rtit_status, s->error ? " error" : "", s->stopped ? " stopped" : "",
			lpt_dev_single_range(dev) ? " wrap-unknown" : "",
			s->interfered ? " interfered" : "");
	}
	out_close(f, o->dir, "config");
}

/* ---- capture ---------------------------------------------------------- */

static int sink_file(void *arg, const void *buf, size_t len)
{
	struct trace_file *t = arg;

	if (fwrite(buf, 1, len, t->f) != len)
		return -EIO;
	t->bytes += len;
	return 0;
}

static void drain(struct lpt_dev *dev, struct trace_file *tf, unsigned int ntf,
		  const char *dir)
{
	unsigned int i;

	for (i = 0; i < ntf; i++) {
		int64_t r = lpt_dev_read(dev, (unsigned int)tf[i].cpu, sink_file, &tf[i]);

		if (r < 0)
			die("%s/%s: %s", dir, tf[i].name, lpt_dev_strerror((int)r));
	}
}

/* Records taken per call of lpt_dev_read_switches(). */
#define PTCAP_SWITCH_BATCH	512

/*
 * The switches file of a per-CPU capture (ptcap-format.rst): the module's
 * sideband, one line per context switch, each CPU's in the order they
 * happened. NULL when there is none (per thread, or an older module).
 */
static FILE *switches_open(const char *dir)
{
	FILE *f = out_open(dir, "switches");

	fprintf(f, LPT_SWITCHES_MAGIC "\n");
	fprintf(f, "# tsc cpu prev-pid/tid next-pid/tid [flags]: context switches, each CPU's\n"
		   "# in order; pids in ptcap's pid namespace, 0/0 the idle task\n");
	return f;
}

/*
 * Take every switch the module recorded since the last call (each CPU's
 * ring holds a few thousand: called every PTCAP_POLL_NS while tracing).
 * Returns false if the module has no sideband (the file is then removed).
 */
static bool drain_switches(struct lpt_dev *dev, struct trace_file *tf, unsigned int ntf,
			   FILE *f, const char *dir)
{
	struct lwpt_pt_switch recs[PTCAP_SWITCH_BATCH];
	char line[LPT_SWITCH_LINE_MAX];
	unsigned int i;
	int n, k;

	for (i = 0; i < ntf; i++) {
		uint32_t pending;

		do {
			n = lpt_dev_read_switches(dev, (unsigned int)tf[i].cpu, recs,
						  PTCAP_SWITCH_BATCH, &tf[i].switches_lost,
						  &pending);
			if (n == -EOPNOTSUPP)
				return false;
			if (n < 0)
				die("%s/switches: %s", dir, lpt_dev_strerror(n));
			for (k = 0; k < n; k++) {
				if (lpt_switch_format(line, sizeof(line), &recs[k]) < 0)
					die("%s/switches: record too long", dir);
				fputs(line, f);
			}
			tf[i].switches += (uint64_t)n;
		} while (n > 0 && pending);
	}
	return true;
}

/* The module records no switches: say so once, leave no switches file. */
static void switches_drop(FILE **f, const char *dir)
{
	char path[4096];

	fclose(*f);
	*f = NULL;
	snprintf(path, sizeof(path), "%s/switches", dir);
	unlink(path);
	fprintf(stderr, "ptcap: warning: the module records no context switches "
			"(no sideband): no %s\n", path);
}

/*
 * Open a file for every buffer not seen yet: cpu<N>.pt per CPU, tid<N>.pt
 * per thread (threads join while the command runs). Returns the count.
 */
static unsigned int sync_files(struct lpt_dev *dev, struct trace_file **tfp, unsigned int ntf,
			       bool per_thread, const char *dir)
{
	struct trace_file *tf = *tfp;
	int n = lpt_dev_nr_buffers(dev);
	unsigned int b, i;

	if (n < 0)
		die("buffers: %s", lpt_dev_strerror(n));
	for (b = 0; b < (unsigned int)n; b++) {
		struct trace_file *t;

		for (i = 0; i < ntf && tf[i].cpu != (int)b; i++)
			;
		if (i < ntf || !lpt_dev_has_buffer(dev, b))
			continue;
		tf = realloc(tf, (ntf + 1) * sizeof(*tf));
		if (!tf)
			die("out of memory");
		t = &tf[ntf];
		memset(t, 0, sizeof(*t));
		t->cpu = (int)b;
		t->info.size = sizeof(t->info);
		if (per_thread) {
			int err = lpt_dev_buffer_info(dev, b, &t->info);

			if (err)
				die("buffer %u: %s", b, lpt_dev_strerror(err));
			snprintf(t->name, sizeof(t->name), "tid%d.pt", (int)t->info.tid);
		} else {
			snprintf(t->name, sizeof(t->name), "cpu%u.pt", b);
		}
		t->f = out_open(dir, t->name);
		ntf++;
	}
	*tfp = tf;
	return ntf;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void progress(const struct opts *o, double t0, const struct trace_file *tf,
		     unsigned int ntf, bool last)
{
	uint64_t total = 0;
	unsigned int i;

	if (!o->progress)
		return;
	for (i = 0; i < ntf; i++)
		total += tf[i].bytes;
	fprintf(stderr, "\rptcap: %.1f s, %u buffer(s)", now_s() - t0, ntf);
	if (o->cfg.mode == LWPT_PT_MODE_CONTINUOUS || last)
		fprintf(stderr, ", %" PRIu64 " bytes saved", total);
	fprintf(stderr, last ? "\n" : "   ");
}

/* Fork @argv stopped at its exec (ptrace), return its pid. */
static pid_t spawn_stopped(char **argv)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (!pid) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(126);
		execvp(argv[0], argv);
		fprintf(stderr, "ptcap: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid)
		die("waitpid: %s", strerror(errno));
	if (WIFEXITED(st))
		die("%s: exited with status %d before it ran", argv[0], WEXITSTATUS(st));
	if (!WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP)
		die("%s: did not stop at exec", argv[0]);
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL)))
		die("ptrace(SETOPTIONS): %s", strerror(errno));
	return pid;
}

int main(int argc, char **argv)
{
	struct opts o;
	struct lpt_cap_config cfg;
	struct lpt_dev *dev;
	enum lwpt_pt_field bad;
	struct trace_file *tf;
	struct maps maps = { 0 };
	unsigned int ntf = 0, i;
	bool per_thread = false, have_switches;
	FILE *sw = NULL;
	pid_t child = 0;
	int err, cstat = 0;
	double t0, tlast;
	struct sigaction sa;

	memset(&o, 0, sizeof(o));
	parse_args(&o, argc, argv);

	err = lpt_dev_open(o.dev, &dev);
	if (err && !o.dev && (err == -ENOENT || err == -ENODEV || err == -ENXIO))
		die("%s", lpt_dev_strerror(err));
	if (err)
		die("%s: %s", o.dev ? o.dev : LPT_DEV_PATH, lpt_dev_strerror(err));
	cfg = o.cfg;
	if (!cfg.buffer_size) {
		struct lpt_cap_config def;

		lpt_cap_config_init(&def, lpt_dev_caps(dev));
		cfg.buffer_size = def.buffer_size;
		/* A single range is one power-of-two block (SDM 33.2.7.1). */
		if (cfg.flags & LWPT_PT_CFG_SINGLE_RANGE) {
			uint64_t max = lpt_dev_caps(dev)->max_region_size;

			if (max && cfg.buffer_size > max)
				cfg.buffer_size = max;
			while (cfg.buffer_size & (cfg.buffer_size - 1))
				cfg.buffer_size &= cfg.buffer_size - 1;
		}
	}
	/*
	 * Validate before anything runs (the command is started only after):
	 * its pid, which --cr3 and per-thread capture need, stands in as ours.
	 */
	if (o.argv)
		cfg.pid = getpid();
	err = lpt_cap_config_check(&cfg, lpt_dev_caps(dev), &bad);
	cfg.pid = 0;
	if (err)
		die("invalid configuration: %s: %s", lpt_cap_field_name(bad),
		    lpt_dev_strerror(err));
	if (mkdir(o.dir, 0777) && errno != EEXIST)
		die("%s: %s", o.dir, strerror(errno));

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (o.argv) {
		child = spawn_stopped(o.argv);
		err = maps_read(child, &maps);
		if (err)
			die("/proc/%d/maps: %s", (int)child, strerror(-err));
		save_vdso(child, o.dir, &maps);
		cfg.pid = child;
		/* --cr3 asks for a per-CPU capture filtered by the command's CR3. */
		cfg.scope = (cfg.flags & LWPT_PT_CFG_CR3_FILTER) ? LWPT_PT_SCOPE_CPU :
								   LWPT_PT_SCOPE_THREAD;
		err = lpt_dev_configure(dev, &cfg, &bad);
		if (cfg.scope == LWPT_PT_SCOPE_THREAD && err == -EOPNOTSUPP &&
		    bad == LWPT_PT_FIELD_SCOPE) {
			/* No per-thread capture in this module: per CPU while it runs. */
			cfg.scope = LWPT_PT_SCOPE_CPU;
			if (!(cfg.flags & LWPT_PT_CFG_CR3_FILTER))
				cfg.pid = 0;
			err = lpt_dev_configure(dev, &cfg, &bad);
		} else if (!err) {
			per_thread = cfg.scope == LWPT_PT_SCOPE_THREAD;
		}
	} else {
		err = lpt_dev_configure(dev, &cfg, &bad);
	}
	if (err) {
		if (child)
			kill(child, SIGKILL);
		if (bad != LWPT_PT_FIELD_NONE)
			die("configure: %s: %s", lpt_cap_field_name(bad), lpt_dev_strerror(err));
		die("configure: %s", lpt_dev_strerror(err));
	}

	tf = NULL;
	ntf = sync_files(dev, &tf, 0, per_thread, o.dir);
	if (!ntf) {
		if (child)
			kill(child, SIGKILL);
		die("the module configured no buffer");
	}

	if (!per_thread) {
		sw = switches_open(o.dir);
	} else {
		char path[4096];

		/* No sideband per thread: no stale file from an earlier capture. */
		snprintf(path, sizeof(path), "%s/switches", o.dir);
		unlink(path);
	}

	err = lpt_dev_start(dev);
	if (err) {
		if (child)
			kill(child, SIGKILL);
		die("start: %s", lpt_dev_strerror(err));
	}
	t0 = tlast = now_s();
	if (child && ptrace(PTRACE_CONT, child, NULL, NULL))
		die("ptrace(CONT): %s", strerror(errno));

	for (;;) {
		struct timespec ts = { 0, PTCAP_POLL_NS };
		double t;

		if (child) {
			int st;
			pid_t w = waitpid(child, &st, WNOHANG);

			if (w == child) {
				if (WIFEXITED(st) || WIFSIGNALED(st)) {
					cstat = st;
					child = -child;	/* gone; keep the pid for names */
					break;
				}
				if (WIFSTOPPED(st)) {
					int sig = WSTOPSIG(st);
					siginfo_t si;

					if ((st >> 8) == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
						/* At exit, before the mm goes: the final maps. */
						maps_read(child, &maps);
						sig = 0;
					}
					/* A group-stop has no siginfo: do not re-inject. */
					if (sig && ptrace(PTRACE_GETSIGINFO, child, NULL, &si))
						sig = 0;
					ptrace(PTRACE_CONT, child, NULL, (void *)(long)sig);
				}
			}
			if (stop_req) {
				/* Pass the interrupt on; the loop ends when it exits. */
				kill(child, SIGINT);
				stop_req = 0;
			}
		} else if (stop_req) {
			break;
		}
		t = now_s();
		if (o.duration > 0 && t - t0 >= o.duration) {
			if (child)
				kill(child, SIGTERM);
			else
				break;
		}
		if (cfg.mode == LWPT_PT_MODE_CONTINUOUS) {
			ntf = sync_files(dev, &tf, ntf, per_thread, o.dir);
			drain(dev, tf, ntf, o.dir);
		}
		/* Sideband does not touch TraceEn: drained in every mode. */
		if (sw && !drain_switches(dev, tf, ntf, sw, o.dir))
			switches_drop(&sw, o.dir);
		if (t - tlast >= 1.0) {
			progress(&o, t0, tf, ntf, false);
			tlast = t;
		}
		nanosleep(&ts, NULL);
	}

	err = lpt_dev_stop(dev);
	if (err)
		die("stop: %s", lpt_dev_strerror(err));
	/* Threads that joined (and maybe exited) while the command ran. */
	ntf = sync_files(dev, &tf, ntf, per_thread, o.dir);
	drain(dev, tf, ntf, o.dir);
	if (sw && !drain_switches(dev, tf, ntf, sw, o.dir))
		switches_drop(&sw, o.dir);
	for (i = 0; i < ntf; i++) {
		tf[i].have_st = !lpt_dev_status(dev, (unsigned int)tf[i].cpu, &tf[i].st);
		if (per_thread)
			lpt_dev_buffer_info(dev, (unsigned int)tf[i].cpu, &tf[i].info);
		out_close(tf[i].f, o.dir, tf[i].name);
		if (tf[i].have_st && (tf[i].st.error || tf[i].st.lost))
			fprintf(stderr, "ptcap: %s: %s%s%" PRIu64 " loss(es)\n", tf[i].name,
				tf[i].st.error ? "operational error (IA32_RTIT_STATUS.Error), " : "",
				tf[i].st.interfered ? "someone else cleared TraceEn or moved the "
				"output pointers (another tracer, a VMM), " : "",
				tf[i].st.lost);
		if (tf[i].switches_lost)
			fprintf(stderr, "ptcap: %s: %" PRIu64 " context switch(es) lost "
				"(sideband ring full)\n", tf[i].name, tf[i].switches_lost);
	}
	have_switches = sw != NULL;
	if (sw)
		out_close(sw, o.dir, "switches");
	progress(&o, t0, tf, ntf, true);
	write_maps(o.dir, &maps, child < 0 ? -child : child);
	write_config(&o, &cfg, dev, tf, ntf, per_thread, have_switches);
	lpt_dev_close(dev);
	for (i = 0; i < maps.n; i++)
		free(maps.v[i].path);
	free(maps.v);
	free(tf);

	if (o.argv) {
		if (WIFSIGNALED(cstat)) {
			fprintf(stderr, "ptcap: %s: killed by signal %d\n", o.argv[0],
				WTERMSIG(cstat));
			return 128 + WTERMSIG(cstat);
		}
		return WEXITSTATUS(cstat);	/* the command's status */
	}
	return 0;
}
