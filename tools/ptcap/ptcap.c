// SPDX-License-Identifier: GPL-2.0
/*
 * ptcap: capture Intel PT (SDM Vol. 3C chapter 33) through /dev/pt with
 * libpt (include/lwpt/pt.h) into a directory in the format of
 * Documentation/ptcap-format.rst. See Documentation/ptcap.rst, ptcap.1.
 *
 *   ptcap -a [options]               all CPUs until SIGINT or -d SECONDS
 *   ptcap [options] -- command args  one command (per thread if the module
 *                                    supports it, else per CPU while it runs)
 *   ptcap -p PID[,PID...] | -t TID [options]  attach to running processes or a thread
 *                                    until it exits, SIGINT or -d SECONDS
 */
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/auxv.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include <lwpt/pt.h>
#include <lwpt/ptcap_dir.h>

#include "btscap.h"
#include "buildid.h"
#include "cpusel.h"
#include "gapmark.h"
#include "outcome.h"
#include "outdir.h"
#include "procs.h"
#include "symfilter.h"
#include "tasks.h"

#ifndef LWPT_VERSION
#define LWPT_VERSION		"unknown"	/* the Makefile passes the package's */
#endif

#define PTCAP_DEFAULT_DIR	"ptcap.out"
#define PTCAP_POLL_NS		20000000L	/* 20 ms between drains / checks */
#define PTCAP_MAX_PIDS		64	/* -p PID,PID...: one capture each */

struct opts {
	bool all;
	const char *cpu_list;	/* -C LIST with -a, else NULL */
	struct ptcap_cpusel cpus;	/* -C: parsed once the device is open */
	double duration;	/* seconds, 0 = until SIGINT */
	const char *dir;
	bool force;		/* move a capture in @dir aside to @dir.old */
	const char *dev;
	bool progress;
	bool snapshot;		/* --snapshot: SIGUSR2 writes DIR/snap.<N> */
	bool mode_given;	/* --mode given: else per thread continuous */
	bool user, kernel;	/* given explicitly */
	bool no_branch, no_tsc;
	bool bts;		/* --bts: Branch Trace Store through /dev/bts */
	bool lbr_crash;		/* --lbr-on-crash: the LBR stack at a fatal signal */
	struct lpt_cap_config cfg;
	char **argv;		/* the command, NULL with -a, -p, -t */
	/* --filter/--stop as given, resolved when the process is known. */
	struct ptcap_spec spec[LWPT_PT_ADDR_RANGES];
	const char *spec_arg[LWPT_PT_ADDR_RANGES];
	uint32_t spec_cfg[LWPT_PT_ADDR_RANGES];	/* LWPT_PT_ADDR_FILTER, _STOP */
	unsigned int nspec;
	bool symbolic;		/* a spec names a symbol or file */
	pid_t pid;		/* -p: the (first) process attached to, else 0 */
	pid_t tid;		/* -t: the thread attached to, else 0 */
	pid_t pids[PTCAP_MAX_PIDS];	/* -p PID,PID...: every process */
	unsigned int npids;
};

static volatile sig_atomic_t stop_req;
static volatile sig_atomic_t snap_req;	/* --snapshot: SIGUSR2 came */

static void on_usr2(int sig)
{
	(void)sig;
	snap_req = 1;
}

static void on_signal(int sig)
{
	(void)sig;
	stop_req = 1;
}

/* SIGCHLD: only wakes the loop's sleep (ppoll()) to continue the command. */
static void on_chld(int sig)
{
	(void)sig;
}

/*
 * Block SIGCHLD (on_chld() its handler): *@orig_mask the mask before,
 * *@sleep_mask that mask without SIGCHLD, for ppoll(), so that no SIGCHLD
 * comes between a look at the command and the sleep unnoticed.
 */
static void chld_block(sigset_t *sleep_mask, sigset_t *orig_mask)
{
	struct sigaction sa;
	sigset_t chld;

	sigemptyset(&chld);
	sigaddset(&chld, SIGCHLD);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_chld;
	sigaction(SIGCHLD, &sa, NULL);
	sigprocmask(SIG_BLOCK, &chld, orig_mask);
	*sleep_mask = *orig_mask;
	sigdelset(sleep_mask, SIGCHLD);
}

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ptcap: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(PTCAP_EXIT_ERROR);
}

/* A bad command line: the message, a hint, status 2. */
static void die_usage(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "ptcap: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see ptcap --help)\n");
	exit(PTCAP_EXIT_USAGE);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: ptcap -a [options]                trace all CPUs until SIGINT or -d\n"
"       ptcap [options] -- command [args]  trace a command\n"
"       ptcap -p PID[,PID...] | -t TID [options]  attach until it exits, SIGINT or -d\n"
"\n"
"  -a, --all              system-wide, every online CPU\n"
"  -C, --cpu=LIST         with -a: only the CPUs in LIST (perf's syntax: 0,2-3)\n"
"  -p, --pid=PID[,PID...] attach to running process PID (all its threads); several:\n"
"                         one capture each, at once, files in one directory\n"
"  -t, --tid=TID          attach to the one thread TID\n"
"  -d, --duration=SEC     stop after SEC seconds (decimal allowed)\n"
"  -o, --output=DIR       output directory (default " PTCAP_DEFAULT_DIR "); refused if\n"
"                         it holds a capture, unless --force\n"
"      --force            move a capture in DIR aside to DIR" PTCAP_OUTDIR_OLD "\n"
"      --device=PATH      device node (default " LPT_DEV_PATH ")\n"
"      --user, --kernel   trace CPL>0 / CPL0 (User, OS); default --user\n"
"      --bts              Branch Trace Store through /dev/bts instead of PT: the\n"
"                         command's threads, a `format bts` directory (ptflow reads it);\n"
"                         with -p PID: its threads, and those it creates later from\n"
"                         when ptcap finds them (found-late in config); -t TID: that thread;\n"
"                         with -a [-C LIST]: every thread on each CPU, cpu<N>.bts and\n"
"                         switches (CAP_PERFMON)\n"
"                         --bts --mode=continuous (default with a command): a ring\n"
"                         ptcap drains, nothing lost; --mode=stop: one buffer, until full\n"
"      --lbr-on-crash     --bts, and the thread's LBR stack when a signal kills it,\n"
"                         into tid<N>.lbr (ptflow prints it as its last branches)\n"
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
"      --filter=SPEC      trace only in SPEC (an ADDRn range, FilterEn); SPEC is\n"
"                         A-B, SYMBOL, SYMBOL@FILE, FILE (with a '/') or\n"
"                         START/SIZE@FILE, e.g. --filter=main, printf@libc.so.6\n"
"      --stop=SPEC        stop tracing on entering SPEC (TraceStop)\n"
"      --size=BYTES       buffer per CPU/thread (K, M, G suffixes)\n"
"      --region-size=BYTES largest ToPA region\n"
"      --single-range     single-range output, not ToPA (wrap mode; a power-of-two size;\n"
"                         ToPA above 4 KiB on parts with erratum TGL052/ADL037/RPL017)\n"
"      --no-inherit       do not follow the processes the command creates\n"
"      --lossy            continuous per-thread mode: never hold a thread for ptcap\n"
"                         (it runs on when its buffer is full; losses counted)\n"
"      --hold-limit=MS|none  continuous per-thread mode (and --bts rings): hold a\n"
"                         thread at most MS milliseconds at a time (default: the\n"
"                         module's, 1000), then let it run on, losses counted;\n"
"                         none: hold until read\n"
"      --mode=wrap|stop|continuous   output mode (default: continuous for a command,\n"
"                         -p and -t, which then lose nothing; wrap for -a, --cr3)\n"
"      --progress         show progress on stderr (default when a tty)\n"
"      --snapshot         flight recorder (wrap mode): each SIGUSR2 writes the newest\n"
"                         trace to DIR/snap.<N>; the end goes to DIR\n"
"  -h, --help             this help\n"
"      --version          print the lwpt version\n"
"\n"
"Output: DIR/config, DIR/maps, DIR/cpu<N>.pt (.bts) and DIR/switches, or tid<N>.pt;\n"
"with -a also DIR/processes and DIR/maps.<pid>.<gen>, the maps of every process\n"
"that ran (Documentation/ptcap-format.rst); decode with ptdump or ptflow DIR.\n");
}

static uint64_t parse_u64(const char *opt, const char *s, bool suffix)
{
	char *end;
	uint64_t v;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		die_usage("%s: bad number '%s'", opt, s);
	if (suffix && *end) {
		int sh = 0;

		switch (*end) {
		case 'k': case 'K': sh = 10; break;
		case 'm': case 'M': sh = 20; break;
		case 'g': case 'G': sh = 30; break;
		default: die_usage("%s: bad suffix in '%s'", opt, s);
		}
		if (v > (UINT64_MAX >> sh))
			die_usage("%s: '%s' too large", opt, s);
		v <<= sh;
		end++;
	}
	if (*end)
		die_usage("%s: bad number '%s'", opt, s);
	return v;
}

/*
 * --filter/--stop SPEC (symfilter.h): A-B goes into the configuration at
 * once; a symbol or file is resolved once the process is known, with a
 * stand-in range (0-0) so that the count is checked before anything runs.
 */
static void add_range(struct opts *o, const char *opt, const char *s, uint32_t cfg)
{
	unsigned int i = o->nspec;
	char err[512];

	if (i == LWPT_PT_ADDR_RANGES)
		die_usage("%s: at most %d address ranges", opt, LWPT_PT_ADDR_RANGES);
	if (ptcap_spec_parse(s, &o->spec[i], err, sizeof(err)))
		die_usage("%s: %s", opt, err);
	o->spec_arg[i] = s;
	o->spec_cfg[i] = cfg;
	o->cfg.addr[i].cfg = cfg;
	if (o->spec[i].kind == PTCAP_SPEC_ADDR) {
		o->cfg.addr[i].a = o->spec[i].a;
		o->cfg.addr[i].b = o->spec[i].b;
	} else {
		o->symbolic = true;
	}
	o->nspec++;
}

/* -t TID, or one id of -p: a positive id. */
static pid_t parse_pid(const char *opt, const char *s)
{
	uint64_t v;

	v = parse_u64(opt, s, false);
	if (!v || v > INT32_MAX)
		die_usage("%s: bad id '%s'", opt, s);
	return (pid_t)v;
}

/*
 * -p PID[,PID...]: the module runs one per-thread capture per process side
 * by side (Documentation/pt.rst, "Concurrent captures"), so each PID gets
 * its own /dev/pt file. At most PTCAP_MAX_PIDS, no PID twice.
 */
static void parse_pids(struct opts *o, const char *arg)
{
	char buf[1024], *tok, *save = NULL;
	unsigned int i;

	if (strlen(arg) >= sizeof(buf))
		die_usage("-p %s: too long", arg);
	strcpy(buf, arg);
	o->npids = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		pid_t p = parse_pid("-p", tok);

		if (o->npids == PTCAP_MAX_PIDS)
			die_usage("-p: at most %d processes", PTCAP_MAX_PIDS);
		for (i = 0; i < o->npids; i++)
			if (o->pids[i] == p)
				die_usage("-p: process %d given twice", (int)p);
		o->pids[o->npids++] = p;
	}
	if (!o->npids)
		die_usage("-p: no process id in '%s'", arg);
	o->pid = o->pids[0];
}

static uint32_t parse_enc(const char *opt, const char *s)
{
	uint64_t v = parse_u64(opt, s, false);

	if (v > 15)
		die_usage("%s: encoding %s out of 0..15", opt, s);
	return (uint32_t)v;
}

enum {
	O_DEVICE = 256, O_USER, O_KERNEL, O_NO_BRANCH, O_TSC, O_NO_TSC, O_MTC, O_CYC,
	O_PSB, O_DISRETC, O_PTW, O_FUPPTW, O_PWR, O_EVENT, O_DISTNT, O_INJECT, O_CR3,
	O_FILTER, O_STOP, O_SIZE, O_REGION, O_MODE, O_PROGRESS, O_SINGLE, O_FORCE,
	O_SNAPSHOT, O_VERSION, O_BTS, O_LBR_CRASH, O_NO_INHERIT, O_LOSSY, O_HOLD_LIMIT,
};

static void parse_args(struct opts *o, int argc, char **argv)
{
	static const struct option lo[] = {
		{ "all", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
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
		{ "no-inherit", no_argument, NULL, O_NO_INHERIT },
		{ "lossy", no_argument, NULL, O_LOSSY },
		{ "hold-limit", required_argument, NULL, O_HOLD_LIMIT },
		{ "mode", required_argument, NULL, O_MODE },
		{ "progress", no_argument, NULL, O_PROGRESS },
		{ "force", no_argument, NULL, O_FORCE },
		{ "snapshot", no_argument, NULL, O_SNAPSHOT },
		{ "version", no_argument, NULL, O_VERSION },
		{ "bts", no_argument, NULL, O_BTS },
		{ "lbr-on-crash", no_argument, NULL, O_LBR_CRASH },
		{ NULL, 0, NULL, 0 },
	};
	struct lpt_cap_config *c = &o->cfg;
	bool size_given = false;
	char *end;
	uint64_t v;
	int ch;

	lpt_cap_config_init(c, NULL);
	c->flags = 0;
	o->dir = PTCAP_DEFAULT_DIR;
	o->progress = isatty(2);
	while ((ch = getopt_long(argc, argv, "+aC:d:o:hp:t:", lo, NULL)) != -1) {
		switch (ch) {
		case 'a': o->all = true; break;
		case 'C': o->cpu_list = optarg; break;
		case 'p': parse_pids(o, optarg); break;
		case 't': o->tid = parse_pid("-t", optarg); break;
		case 'd':
			errno = 0;
			o->duration = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->duration > 0))
				die_usage("-d: bad duration '%s' (seconds > 0)", optarg);
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
		case O_NO_INHERIT: c->flags |= LWPT_PT_CFG_NO_INHERIT; break;
		case O_LOSSY: c->flags |= LWPT_PT_CFG_LOSSY; break;
		case O_HOLD_LIMIT:
			if (!strcmp(optarg, "none")) {
				c->hold_limit_ms = LWPT_PT_HOLD_LIMIT_NONE;
				break;
			}
			v = parse_u64("--hold-limit", optarg, false);
			if (!v || v >= LWPT_PT_HOLD_LIMIT_NONE)
				die_usage("--hold-limit: %s: 1 to %u milliseconds, or none", optarg,
					  LWPT_PT_HOLD_LIMIT_NONE - 1);
			c->hold_limit_ms = (uint32_t)v;
			break;
		case O_MODE:
			o->mode_given = true;
			if (!strcmp(optarg, "wrap"))
				c->mode = LWPT_PT_MODE_WRAP;
			else if (!strcmp(optarg, "stop"))
				c->mode = LWPT_PT_MODE_STOP;
			else if (!strcmp(optarg, "continuous"))
				c->mode = LWPT_PT_MODE_CONTINUOUS;
			else
				die_usage("--mode: expected wrap, stop or continuous, got '%s'", optarg);
			break;
		case O_PROGRESS: o->progress = true; break;
		case O_FORCE: o->force = true; break;
		case O_SNAPSHOT: o->snapshot = true; break;
		case O_BTS: o->bts = true; break;
		case O_LBR_CRASH: o->bts = o->lbr_crash = true; break;
		case O_VERSION: printf("ptcap %s (lwpt)\n", LWPT_VERSION); exit(PTCAP_EXIT_OK);
		default: usage(stderr); exit(PTCAP_EXIT_USAGE);
		}
	}
	if (!size_given)
		c->buffer_size = 0;	/* the device's default, set later */
	if ((o->all ? 1 : 0) + (optind < argc ? 1 : 0) + (o->pid ? 1 : 0) + (o->tid ? 1 : 0) != 1)
		die_usage("give one of -a, -p PID, -t TID or a command after '--'");
	if (o->all && (c->flags & LWPT_PT_CFG_CR3_FILTER))
		die_usage("--cr3 needs a command or -p to take the CR3 of");
	if (o->cpu_list && !o->all)
		die_usage("-C selects the CPUs of a system-wide capture: give it with -a");
	if (o->cpu_list) {
		char why[512];

		/* The syntax now; the CPUs once the module says how many exist. */
		int err = ptcap_cpusel_parse(&o->cpus, o->cpu_list, PTCAP_CPUSEL_WORDS * 64,
					     why, sizeof(why));

		if (err == -ERANGE)
			die_usage("-C %s: a CPU above %u, the most a capture can select",
				  o->cpu_list, PTCAP_CPUSEL_WORDS * 64 - 1);
		if (err)
			die_usage("%s", why);
	}
	/*
	 * Per-thread captures (a command, -p, -t) are continuous by default,
	 * lossless since the module holds a thread for ptcap (Documentation/
	 * pt.rst, "Continuous mode: the hold"), as perf record keeps
	 * everything; -a, --cr3 (per CPU: a CPU cannot wait), --single-range
	 * and --snapshot keep the flight recorder.
	 */
	if (!o->mode_given)
		c->mode = o->all || o->snapshot || (c->flags & (LWPT_PT_CFG_CR3_FILTER |
								LWPT_PT_CFG_SINGLE_RANGE)) ?
			  LWPT_PT_MODE_WRAP : LWPT_PT_MODE_CONTINUOUS;
	if ((c->flags & LWPT_PT_CFG_LOSSY) && c->mode != LWPT_PT_MODE_CONTINUOUS)
		die_usage("--lossy is for continuous mode (a per-thread capture's default), "
			  "not --mode=%s", c->mode == LWPT_PT_MODE_STOP ? "stop" : "wrap");
	if (o->snapshot && c->mode != LWPT_PT_MODE_WRAP)
		die_usage("--snapshot is a flight recorder: wrap mode only, not --mode=%s",
			  c->mode == LWPT_PT_MODE_STOP ? "stop" : "continuous");
	if (o->tid && (c->flags & LWPT_PT_CFG_CR3_FILTER))
		die_usage("--cr3 filters a whole address space: use -p, not -t");
	if (o->npids > 1 && (c->flags & LWPT_PT_CFG_CR3_FILTER))
		die_usage("--cr3 is a per-CPU capture, of which there is one at a time: "
			  "give one -p PID with --cr3");
	if (o->npids > 1 && o->snapshot)
		die_usage("--snapshot with several -p processes: run one ptcap per process");
	if (o->npids > 1 && o->symbolic)
		die_usage("symbolic --filter/--stop with several -p processes: give addresses, "
			  "or run one ptcap per process");
	o->argv = optind < argc ? argv + optind : NULL;
	if (o->bts && ((!o->argv && !o->all && !o->pid && !o->tid) || o->snapshot ||
		       o->nspec || o->npids > 1 || (o->all && (o->lbr_crash || o->mode_given)) ||
		       (c->flags & (LWPT_PT_CFG_CR3_FILTER | LWPT_PT_CFG_SINGLE_RANGE))))
		die_usage("--bts records one command's thread (a command after '--'), the "
			  "threads of one process (-p PID) or one thread (-t TID), or every "
			  "CPU (-a, -C LIST); --user, --kernel, --size, -o, -d: no "
			  "--snapshot, --filter, --stop, --cr3, --single-range; "
			  "--lbr-on-crash and --mode not with -a");
	if (o->bts && o->mode_given && (c->mode == LWPT_PT_MODE_WRAP ||
					 (!o->argv && c->mode != LWPT_PT_MODE_CONTINUOUS)))
		die_usage("--bts --mode: continuous (the default: a ring ptcap drains, "
			  "nothing lost) or, with a command, stop (one buffer, recording "
			  "stops when it is full), not %s",
			  c->mode == LWPT_PT_MODE_WRAP ? "wrap" : "stop with -p/-t");
	if (o->bts && !o->mode_given)
		c->mode = LWPT_PT_MODE_CONTINUOUS;
	if (!o->user && !o->kernel)
		o->user = true;
	c->flags |= (o->user ? LWPT_PT_CFG_USER : 0) | (o->kernel ? LWPT_PT_CFG_OS : 0);
	if (!o->no_branch)
		c->flags |= LWPT_PT_CFG_BRANCH;
	if (!o->no_tsc)
		c->flags |= LWPT_PT_CFG_TSC;
}

/* ---- output directory ------------------------------------------------- */

/*
 * Refuse an output directory ptcap must not write into, before anything
 * is opened or started (outdir.h): one holding a capture without
 * --force, one holding other files, a file.
 */
static void outdir_refuse(const struct opts *o)
{
	enum ptcap_outdir_state st;
	int err = ptcap_outdir_check(o->dir, &st);

	if (err == -ENOTDIR)
		die("%s: not a directory: give a directory with -o", o->dir);
	if (err)
		die("%s: %s", o->dir, strerror(-err));
	if (st == PTCAP_OUTDIR_OTHER)
		die("%s: not empty and not a ptcap capture: give a new or empty directory "
		    "with -o", o->dir);
	if (st == PTCAP_OUTDIR_CAPTURE && !o->force)
		die("%s holds a capture: ptcap never mixes two; give another -o DIR, or "
		    "--force to move it to %s" PTCAP_OUTDIR_OLD, o->dir, o->dir);
}

/* Make the output directory empty (moving an old capture aside). */
static void outdir_prepare(const struct opts *o)
{
	bool moved;
	int err = ptcap_outdir_prepare(o->dir, o->force, &moved);

	if (err == -ENOTEMPTY)
		die("%s" PTCAP_OUTDIR_OLD ": not a ptcap capture, not replaced: move it away "
		    "or give another -o DIR", o->dir);
	if (err)
		die("%s: %s", o->dir, strerror(-err));
	if (moved)
		fprintf(stderr, "ptcap: moved the earlier capture in %s to %s" PTCAP_OUTDIR_OLD
			"\n", o->dir, o->dir);
}

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

struct maps {
	struct ptcap_vma *v;	/* file-backed, in order (symfilter.h) */
	size_t n, cap;
	uint64_t vdso_start, vdso_end;	/* [vdso] of the first snapshot */
};

static void maps_add(struct maps *m, uint64_t s, uint64_t e, uint64_t off, const char *p)
{
	if (m->n == m->cap) {
		size_t nc = m->cap ? 2 * m->cap : 64;
		struct ptcap_vma *nv = realloc(m->v, nc * sizeof(*nv));

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

static void write_maps(const char *dir, const struct maps *m, pid_t pid, bool attached)
{
	FILE *f = out_open(dir, "maps");
	size_t i;

	fprintf(f, "lwpt-ptcap-maps 1\n");
	if (pid)
		fprintf(f, "# /proc/%d/maps (file-backed), %s\n", (int)pid,
			attached ? "at attach and at the end" : "at exec and at exit");
	else
		fprintf(f, "# system-wide capture: no process maps\n");
	fprintf(f, "# start end offset path\n");
	for (i = 0; i < m->n; i++)
		fprintf(f, "0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " %s\n", m->v[i].start,
			m->v[i].end, m->v[i].offset, m->v[i].path);
	/* which binaries these were: a decoder refuses other ones */
	const char **paths = calloc(m->n + 1, sizeof(*paths));

	for (i = 0; paths && i < m->n; i++)
		paths[i] = m->v[i].path;
	if (paths)
		maps_write_build_ids(f, paths, m->n);
	else
		fprintf(stderr, "ptcap: warning: out of memory: no build-ids in %s/maps\n", dir);
	free(paths);
	out_close(f, dir, "maps");
}

/*
 * -a: the maps of every process the switches named (procs.h), read once
 * more now, with the vDSO (the same code in every process of this kernel)
 * saved from ptcap's own; then `processes` and `maps.<pid>.<gen>`.
 */
static void write_processes(struct ptcap_procs *procs, const char *dir)
{
	struct maps self = { 0 };
	unsigned int missing;
	uint64_t vdso_size = 0;
	size_t i;
	int n;

	if (ptcap_procs_refresh(procs, __rdtsc()))
		die("out of memory");
	if (!maps_read(getpid(), &self)) {
		save_vdso(getpid(), dir, &self);
		vdso_size = self.vdso_end - self.vdso_start;
	}
	n = ptcap_procs_write(procs, dir, vdso_size ? "vdso.so" : NULL, vdso_size, &missing);
	if (n < 0)
		die("%s/processes: %s", dir, strerror(-n));
	if (missing)
		fprintf(stderr, "ptcap: %u of %d process(es) exited before their maps could be "
			"read: their trace cannot be decoded (see %s/processes)\n", missing, n, dir);
	for (i = 0; i < self.n; i++)
		free(self.v[i].path);
	free(self.v);
	ptcap_procs_free(procs);
}

/* ---- symbolic filters (symfilter.h) ---------------------------------- */

/*
 * Resolve the --filter/--stop specs into @c->addr for process @pid (0:
 * none, ptcap -a) with its mappings @m, and say each range on stderr.
 * With @retry a file not mapped yet returns -ENOENT (the caller runs the
 * command to its entry point and asks again); every other failure exits
 * with the spec named. @nr_ranges: ADDRn ranges the processor has (CPUID
 * 14H.1:EAX[2:0]), LWPT_PT_ADDR_RANGES before the device is open.
 */
static int resolve_ranges(const struct opts *o, struct lpt_cap_config *c, pid_t pid,
			  const struct maps *m, unsigned int nr_ranges, bool retry)
{
	struct ptcap_range r[LWPT_PT_ADDR_RANGES];
	char exe[4096], link[64], err[4608];
	unsigned int i, n = 0;
	int k, got;
	ssize_t len = 0;

	if (pid) {
		snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
		len = readlink(link, exe, sizeof(exe) - 1);
		if (len < 0)
			die("%s: %s", link, strerror(errno));
		exe[len] = 0;
	}
	for (i = 0; i < LWPT_PT_ADDR_RANGES; i++)
		c->addr[i].cfg = LWPT_PT_ADDR_UNUSED;
	for (i = 0; i < o->nspec; i++) {
		const char *opt = o->spec_cfg[i] == LWPT_PT_ADDR_STOP ? "--stop" : "--filter";

		got = ptcap_spec_resolve(&o->spec[i], pid ? exe : NULL, m ? m->v : NULL,
					 m ? m->n : 0, r, LWPT_PT_ADDR_RANGES, err, sizeof(err));
		if (got == -ENOENT && retry)
			return got;
		if (got < 0)
			die("%s %s: %s", opt, o->spec_arg[i], err);
		for (k = 0; k < got; k++, n++) {
			if (n >= nr_ranges)
				die("%s %s: more address ranges than this processor has (%u, "
				    "CPUID.(EAX=14H,ECX=1):EAX[2:0]): give fewer --filter/--stop",
				    opt, o->spec_arg[i], nr_ranges);
			c->addr[n].a = r[k].a;
			c->addr[n].b = r[k].b;
			c->addr[n].cfg = o->spec_cfg[i];
			if (o->spec[i].kind != PTCAP_SPEC_ADDR)
				fprintf(stderr, "ptcap: %s %s: 0x%" PRIx64 "-0x%" PRIx64 "\n", opt,
					o->spec_arg[i], r[k].a, r[k].b);
		}
	}
	return 0;
}

/*
 * Run the command stopped at its exec (spawn_stopped()) to its entry
 * point (AT_ENTRY, after the dynamic loader mapped its libraries) with a
 * breakpoint (INT3), and leave it stopped there. x86-64 only.
 */
static void run_to_entry(pid_t pid)
{
	uint64_t auxv[2], entry = 0;
	struct user_regs_struct regs;
	char path[64];
	long word;
	FILE *f;
	int st;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	f = fopen(path, "r");
	if (!f)
		die("%s: %s", path, strerror(errno));
	while (fread(auxv, sizeof(auxv), 1, f) == 1 && auxv[0] != AT_NULL)
		if (auxv[0] == AT_ENTRY)
			entry = auxv[1];
	fclose(f);
	if (!entry)
		die("%s: no AT_ENTRY", path);
	errno = 0;
	word = ptrace(PTRACE_PEEKTEXT, pid, (void *)entry, NULL);
	if (errno ||
	    ptrace(PTRACE_POKETEXT, pid, (void *)entry, (void *)((word & ~0xffL) | 0xcc)) ||
	    ptrace(PTRACE_CONT, pid, NULL, NULL))
		die("ptrace (breakpoint at the entry point): %s", strerror(errno));
	for (;;) {
		if (waitpid(pid, &st, 0) != pid)
			die("waitpid: %s", strerror(errno));
		if (!WIFSTOPPED(st))
			die("the command ended before its entry point (status 0x%x)", st);
		if (WSTOPSIG(st) == SIGTRAP && !ptrace(PTRACE_GETREGS, pid, NULL, &regs) &&
		    regs.rip == entry + 1)
			break;
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)WSTOPSIG(st));
	}
	regs.rip = entry;
	if (ptrace(PTRACE_POKETEXT, pid, (void *)entry, (void *)word) ||
	    ptrace(PTRACE_SETREGS, pid, NULL, &regs))
		die("ptrace (entry point): %s", strerror(errno));
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
	struct ptcap_outcome oc;	/* what happened to it (outcome.h) */
	uint64_t switches;	/* per CPU: context switches written */
	uint64_t switches_lost;	/* per CPU: dropped by the module (ring full) */
	uint64_t switches_lost_before;	/* dropped before the last START (--snapshot) */
	uint64_t *gaps;		/* file offsets where a loss cut the stream */
	size_t ngaps;
	bool freed;		/* per thread: its thread ended, its trace saved and the
				 * buffer freed (free_ended()): @st and @info are final,
				 * @cpu may hold another thread's buffer now */
};

static void write_config(const struct opts *o, const struct lpt_cap_config *c,
			 struct lpt_dev *dev, const struct trace_file *tf, unsigned int ntf,
			 bool per_thread, bool have_switches, uint64_t losses,
			 const int *cstat, pid_t target)
{
	char words[256];
	FILE *f = out_open(o->dir, "config");
	unsigned int fam, model, step, a, b = 0, cc = 0, d = 0, i, max = 0, abi, aflags;
	uint32_t leaf15[3], leaf16 = 0;
	uint64_t ctl = 0, platform_info = 0;
	bool intel;

	fprintf(f, "lwpt-ptcap-config 1\n");
	fprintf(f, "# written by ptcap (Documentation/ptcap-format.rst)\n");
	fprintf(f, "mode %s\n", per_thread ? "per-thread" : "per-cpu");
	/* -C: only these CPUs were traced (Documentation/ptcap-format.rst). */
	if (c->cpu_mask) {
		/* At most "NNNNN," per CPU. */
		size_t cap = c->cpu_mask_size * 8 * 7 + 1;
		char *list = malloc(cap);

		if (!list)
			die("out of memory");
		if (lpt_cpu_list_format(c->cpu_mask, c->cpu_mask_size / sizeof(uint64_t), list,
					cap) > 0)
			fprintf(f, "cpus %s\n", list);
		free(list);
	}
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
	 * (ABI 1.1), so only through the msr driver, on Intel CPUs.
	 */
	if (intel && msr_read(0, MSR_PLATFORM_INFO, &platform_info))
		fprintf(f, "nom-freq %u\n", (unsigned int)((platform_info >> 8) & 0xff));
	else
		fprintf(f, "# nom-freq unknown: MSR_PLATFORM_INFO[15:8] not readable (msr driver)\n");
	/*
	 * CPUID.15H (SDM 33.8.3) of the processor the module traces on (caps
	 * size version 2: on lwpt_sim.ko the model's); this machine's CPUID
	 * only from an older module.
	 */
	if (!lpt_dev_timing_leaves(dev, leaf15, &leaf16)) {
		a = leaf15[0];
		b = leaf15[1];
		cc = leaf15[2];
		fprintf(f, "# timing: CPUID.15H/16H as the module reports them\n");
	} else if (max >= 0x15) {
		__cpuid_count(0x15, 0, a, b, cc, d);
		if (max >= 0x16)
			__cpuid_count(0x16, 0, leaf16, d, d, d);
		leaf16 &= 0xffff;	/* CPUID.16H:EAX[15:0], MHz */
	} else {
		a = 0;
	}
	if (a && b) {
		fprintf(f, "cpuid-0x15.eax %u\ncpuid-0x15.ebx %u\n", a, b);
		if (cc)
			fprintf(f, "tsc-freq %llu\n", (unsigned long long)cc * b / a);
	}
	if (leaf16)
		fprintf(f, "cpuid-0x16.eax %u\n", leaf16);
	for (i = 0; i < ntf; i++)
		if (tf[i].have_st && tf[i].st.rtit_ctl) {
			ctl = tf[i].st.rtit_ctl;
			break;
		}
	if (ctl)
		fprintf(f, "rtit-ctl 0x%" PRIx64 "\n", ctl);
	/* Attached: the trace starts mid-run (ptflow says so). */
	if (o->tid)
		fprintf(f, "attached tid=%d pid=%d\n", (int)o->tid, (int)target);
	else if (o->npids > 1) {
		fprintf(f, "attached pid=%d", (int)o->pids[0]);
		for (i = 1; i < o->npids; i++)
			fprintf(f, ",%d", (int)o->pids[i]);
		fputc('\n', f);
	} else if (o->pid)
		fprintf(f, "attached pid=%d\n", (int)o->pid);
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
		fprintf(f, "thread.%s tid=%d pid=%d buffer=%d%s%s%s", tf[i].name, (int)t->tid,
			(int)t->pid, tf[i].cpu, t->exited ? " exited" : "",
			t->execed ? " execed" : "", t->detached ? " detached" : "");
		if (t->ppid)
			fprintf(f, " ppid=%d", (int)t->ppid);
		if (t->stop_reason && t->stop_reason != LWPT_PT_STOP_EXIT)
			fprintf(f, " stop=%s", lpt_dev_stop_reason_str(t->stop_reason));
		fputc('\n', f);
		if (t->detached)
			fprintf(stderr, "ptcap: thread %d stopped being traced at an exec (%s): the new program may not be traced by you\n",
				(int)t->tid, lpt_dev_stop_reason_str(t->stop_reason));
		if (i + 1 == ntf && t->threads_lost)
			fprintf(f, "threads-lost %u\n", t->threads_lost);
		if (i + 1 == ntf && t->threads_refused)
			fprintf(f, "threads-refused %u\n", t->threads_refused);
	}
	for (i = 0; i < ntf && have_switches; i++)
		fprintf(f, "switches.%s count=%" PRIu64 " lost=%" PRIu64 "\n", tf[i].name,
			tf[i].switches, tf[i].switches_lost);
	for (i = 0; i < ntf; i++) {
		const struct lpt_cap_status *s = &tf[i].st;

		if (!tf[i].have_st)
			continue;
		fprintf(f, "status.%s bytes=%" PRIu64 " saved=%" PRIu64 " wraps=%" PRIu64
			" lost=%" PRIu64 " pmis=%" PRIu64 " rtit-status=0x%" PRIx64 "%s%s%s%s",
			tf[i].name, s->bytes, tf[i].bytes, s->wraps, s->lost, s->pmis,
			s->rtit_status, s->error ? " error" : "", s->stopped ? " stopped" : "",
			lpt_dev_single_range(dev) ? " wrap-unknown" : "",
			s->interfered ? " interfered" : "");
		/* Per-thread continuous mode: the thread waited for ptcap. */
		if (c->mode == LWPT_PT_MODE_CONTINUOUS && per_thread)
			fprintf(f, " holds=%" PRIu64 " held-ns=%" PRIu64 " hold-timeouts=%" PRIu64,
				s->holds, s->held_ns, s->hold_timeouts);
		/* Continuous mode: bytes = saved + pads + lost-bytes. */
		if (c->mode == LWPT_PT_MODE_CONTINUOUS)
			fprintf(f, " pads=%" PRIu64 " lost-bytes=%" PRIu64, s->pad_bytes,
				s->lost_bytes);
		fputc('\n', f);
	}
	/* Where losses cut the packet stream: decoders resync there. */
	for (i = 0; i < ntf; i++) {
		size_t g;

		if (!tf[i].ngaps)
			continue;
		fprintf(f, "gaps.%s", tf[i].name);
		for (g = 0; g < tf[i].ngaps; g++)
			fprintf(f, " %" PRIu64, tf[i].gaps[g]);
		fputc('\n', f);
	}
	/* What happened, in words (Documentation/ptcap-format.rst). */
	for (i = 0; i < ntf; i++)
		if (ptcap_outcome_words(&tf[i].oc, words, sizeof(words)) >= 0)
			fprintf(f, "outcome.%s %s\n", tf[i].name, words);
	fprintf(f, "losses %" PRIu64 "\n", losses);
	if (cstat && WIFSIGNALED(*cstat))
		fprintf(f, "command-status signal=%d\n", WTERMSIG(*cstat));
	else if (cstat)
		fprintf(f, "command-status exit=%d\n", WEXITSTATUS(*cstat));
	out_close(f, o->dir, "config");
}

/* ---- what happened ---------------------------------------------------- */

/* Count the OVF and TraceStop packets of DIR/@t->name into @t->oc. */
static void outcome_scan_file(struct trace_file *t, const char *dir)
{
	char path[4096];
	void *map;
	int fd, err;

	if (!t->bytes)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, t->name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	map = mmap(NULL, t->bytes, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		die("%s: %s", path, strerror(errno));
	err = ptcap_outcome_scan(&t->oc, map, t->bytes);
	munmap(map, t->bytes);
	if (err)
		die("%s: %s", path, strerror(-err));
}

/*
 * Say what happened to every buffer (outcome.h) on stderr: a wrap, a stop
 * at TraceStop, a full buffer in stop mode, and data lost (OVF, an
 * operational error, stalls, threads without a buffer, context switches
 * dropped). Returns the number of losses (0: nothing was lost).
 */
static uint64_t outcomes(const struct lpt_cap_config *c, struct lpt_dev *dev,
			 struct trace_file *tf, unsigned int ntf, const char *dir)
{
	bool stop_range = false;
	uint64_t losses = 0;
	unsigned int i;

	for (i = 0; i < LWPT_PT_ADDR_RANGES; i++)
		stop_range |= c->addr[i].cfg == LWPT_PT_ADDR_STOP;
	for (i = 0; i < ntf; i++) {
		struct trace_file *t = &tf[i];

		outcome_scan_file(t, dir);
		if (t->have_st)
			ptcap_outcome_classify(&t->oc, &t->st, t->bytes, c->mode, stop_range,
					       lpt_dev_single_range(dev));
		ptcap_outcome_report(stderr, t->name, &t->oc);
		losses += ptcap_outcome_losses(&t->oc);
		/* Not a loss: the thread waited for ptcap (pt.rst, the hold). */
		if (t->have_st && t->st.holds)
			fprintf(stderr, "ptcap: %s: the thread waited %" PRIu64 " time(s) for ptcap "
				"to read its buffer, %.3f s in all (nothing lost; --lossy lets it "
				"run on)\n", t->name, t->st.holds, (double)t->st.held_ns / 1e9);
		if (t->have_st && t->st.hold_timeouts)
			fprintf(stderr, "ptcap: %s: %" PRIu64 " hold(s) reached the hold limit "
				"(--hold-limit): the thread ran on without waiting for ptcap, "
				"its losses counted\n", t->name, t->st.hold_timeouts);
		if (t->switches_lost)
			fprintf(stderr, "ptcap: %s: data lost: %" PRIu64 " context switch(es) "
				"(the module's sideband ring was full)\n", t->name,
				t->switches_lost);
		losses += t->switches_lost;
		if (i + 1 == ntf && t->info.threads_lost) {
			fprintf(stderr, "ptcap: data lost: %u thread(s) joined when no buffer "
				"was ready and were not traced\n", t->info.threads_lost);
			losses += t->info.threads_lost;
		}
		/* Not a loss: the rule kept them out, as it would a process. */
		if (i + 1 == ntf && t->info.threads_refused)
			fprintf(stderr, "ptcap: %u thread(s) not traced: the permission rule "
				"refused their own credentials (another user's, or a capability "
				"you lack)\n", t->info.threads_refused);
	}
	return losses;
}

/*
 * A decoder reading a trace file alone (libipt, perf) does not know
 * gaps.<file>: at each cut the cut packet and the bytes up to the next PSB
 * become OVF and PADs (gapmark.h), after outcomes() counted the OVF packets
 * the processor wrote.
 */
static void mark_gaps(const struct trace_file *tf, unsigned int ntf, const char *dir)
{
	char path[4096];
	unsigned int i;
	uint8_t *map;
	size_t g;
	int fd;

	for (i = 0; i < ntf; i++) {
		if (!tf[i].ngaps || !tf[i].bytes)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, tf[i].name);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			die("%s: %s", path, strerror(errno));
		map = mmap(NULL, tf[i].bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		close(fd);
		if (map == MAP_FAILED)
			die("%s: %s", path, strerror(errno));
		for (g = 0; g < tf[i].ngaps; g++)
			ptcap_gap_mark(map, tf[i].bytes, tf[i].gaps[g]);
		if (munmap(map, tf[i].bytes))
			die("%s: %s", path, strerror(errno));
	}
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

/*
 * Note where in @t's file a loss cut the packet stream (lpt_dev_read_gaps()):
 * the config's gaps.<file> line, where decoders synchronise again.
 */
static void gap_add(struct trace_file *t, uint64_t off)
{
	uint64_t *g;

	if (t->ngaps && t->gaps[t->ngaps - 1] == off)
		return;
	g = realloc(t->gaps, (t->ngaps + 1) * sizeof(*g));
	if (!g)
		die("out of memory");
	g[t->ngaps++] = off;
	t->gaps = g;
}

static void drain(struct lpt_dev *dev, struct trace_file *tf, unsigned int ntf,
		  const char *dir)
{
	unsigned int i;

	for (i = 0; i < ntf; i++) {
		int64_t r;

		if (!tf[i].f)
			continue;	/* not kept (-t) */
		uint64_t before = tf[i].bytes, at[LWPT_PT_GAP_HEADS];
		unsigned int g, n;

		r = lpt_dev_read(dev, (unsigned int)tf[i].cpu, sink_file, &tf[i]);
		if (r < 0)
			die("%s/%s: %s", dir, tf[i].name, lpt_dev_strerror((int)r));
		/* Every cut of the read, not only the last (ABI 1.4). */
		n = lpt_dev_read_gaps(dev, (unsigned int)tf[i].cpu, at, LWPT_PT_GAP_HEADS);
		for (g = 0; g < n; g++)
			gap_add(&tf[i], before + at[g]);
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
			   FILE *f, const char *dir, struct ptcap_procs *procs)
{
	struct lwpt_pt_switch recs[PTCAP_SWITCH_BATCH];
	char line[LPT_SWITCH_LINE_MAX];
	unsigned int i;
	int n, k;

	if (procs)
		ptcap_procs_round(procs);
	for (i = 0; i < ntf; i++) {
		/*
		 * What was pending when this round began, no more: on a busy
		 * machine switches can come faster than this loop takes
		 * them (its own reads of /proc cause some), and the trace's
		 * drain and the progress line must not wait for a quiet
		 * moment. The rest is read next round.
		 */
		uint64_t budget = UINT64_MAX;
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
				/*
				 * -a: the maps of every user process that ran,
				 * read now (procs.h); the TSC says since when
				 * they are known to be current.
				 */
				if (procs && ((!(recs[k].flags & (LWPT_PT_SW_PREV_IDLE |
								   LWPT_PT_SW_PREV_KTHREAD)) &&
					       ptcap_procs_note(procs, recs[k].prev_pid, __rdtsc())) ||
					      (!(recs[k].flags & (LWPT_PT_SW_NEXT_IDLE |
								   LWPT_PT_SW_NEXT_KTHREAD)) &&
					       ptcap_procs_note(procs, recs[k].next_pid, __rdtsc()))))
					die("out of memory");
			}
			tf[i].switches += (uint64_t)n;
			if (budget == UINT64_MAX)
				budget = (uint64_t)n + pending;
			budget -= (uint64_t)n < budget ? (uint64_t)n : budget;
		} while (n > 0 && pending && budget);
	}
	/* The file shows what was drained (and, -a, read) so far. */
	fflush(f);
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
/* Does a file of @tf (@ntf of them) have the name @name? */
static bool name_taken(const struct trace_file *tf, unsigned int ntf, const char *name)
{
	unsigned int i;

	for (i = 0; i < ntf; i++)
		if (!strcmp(tf[i].name, name))
			return true;
	return false;
}

static unsigned int sync_files(struct lpt_dev *dev, struct trace_file **tfp, unsigned int ntf,
			       bool per_thread, pid_t only_tid, const char *dir)
{
	struct trace_file *tf = *tfp;
	int n = lpt_dev_nr_buffers(dev), k;
	unsigned int b, i;

	if (n < 0)
		die("buffers: %s", lpt_dev_strerror(n));
	for (b = 0; b < (unsigned int)n; b++) {
		struct trace_file *t;

		for (i = 0; i < ntf && (tf[i].cpu != (int)b || tf[i].freed); i++)
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
			/* A tid used again (a number freed and taken again). */
			for (k = 2; name_taken(tf, ntf, t->name); k++)
				snprintf(t->name, sizeof(t->name), "tid%d.p%d.pt",
					 (int)t->info.tid, k);
		} else {
			snprintf(t->name, sizeof(t->name), "cpu%u.pt", b);
		}
		/* -t: the module traces the whole process; keep TID's buffer. */
		if (!only_tid || t->info.tid == only_tid)
			t->f = out_open(dir, t->name);
		ntf++;
	}
	*tfp = tf;
	return ntf;
}

/*
 * Drop the buffers that were not saved (-t keeps one thread's), keeping
 * the threads-lost count of the last one. Returns the new count.
 */
static unsigned int keep_saved(struct trace_file *tf, unsigned int ntf)
{
	uint32_t threads_lost = ntf ? tf[ntf - 1].info.threads_lost : 0;
	uint32_t threads_refused = ntf ? tf[ntf - 1].info.threads_refused : 0;
	unsigned int i, n = 0;

	for (i = 0; i < ntf; i++)
		if (tf[i].f || tf[i].freed)
			tf[n++] = tf[i];
	if (n) {
		tf[n - 1].info.threads_lost = threads_lost;
		tf[n - 1].info.threads_refused = threads_refused;
	}
	return n;
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

/* ---- attach (-p, -t) --------------------------------------------------- */

/*
 * From /proc/@id/status: its thread group (Tgid), its state letter and the
 * number of threads of its group. False if @id does not exist.
 */
static bool proc_status(pid_t id, pid_t *tgid, char *state, unsigned int *threads)
{
	char path[64], line[256];
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)id);
	f = fopen(path, "r");
	if (!f)
		return false;
	*tgid = 0;
	*state = '?';
	*threads = 0;
	while (fgets(line, sizeof(line), f)) {
		int v;

		if (sscanf(line, "Tgid: %d", &v) == 1) {
			*tgid = v;
			found = true;
		} else if (sscanf(line, "Threads: %d", &v) == 1) {
			*threads = (unsigned int)v;
		} else {
			sscanf(line, "State: %c", state);
		}
	}
	fclose(f);
	return found;
}

/*
 * The process to attach to (-p PID, or the thread group of -t TID), named
 * in the error if it does not exist.
 */
static pid_t attach_target(const struct opts *o)
{
	unsigned int threads;
	pid_t tgid;
	char state;

	if (!proc_status(o->tid ? o->tid : o->pid, &tgid, &state, &threads) ||
	    state == 'Z' || state == 'X')
		die("%s %d: no such %s", o->tid ? "-t" : "-p", (int)(o->tid ? o->tid : o->pid),
		    o->tid ? "thread" : "process");
	if (o->pid && tgid != o->pid)
		die("-p %d: a thread of process %d: give -p %d (all its threads) or -t %d",
		    (int)o->pid, (int)tgid, (int)tgid, (int)o->pid);
	return tgid;
}

/*
 * -C LIST: the CPUs must exist (the module's caps.nr_cpus) and be online
 * (the kernel's list; the module refuses an offline one with ENODEV too),
 * and the module must take a selection (ABI 1.3).
 */
static void select_cpus(struct opts *o, struct lpt_dev *dev)
{
	const struct lwpt_pt_caps *caps = lpt_dev_caps(dev);
	char why[512], online[4096];
	uint32_t abi;
	ssize_t n;
	int fd, cpu;

	lpt_dev_abi(dev, &abi, NULL);
	if (LWPT_ABI_VERSION_MINOR(abi) < 3)
		die("-C: this module (ABI %u.%u) traces every CPU or none: CPU selection needs "
		    "ABI 1.3; load a newer lwpt module or leave out -C",
		    LWPT_ABI_VERSION_MAJOR(abi), LWPT_ABI_VERSION_MINOR(abi));
	if (ptcap_cpusel_parse(&o->cpus, o->cpu_list, caps->nr_cpus, why, sizeof(why)))
		die_usage("%s", why);
	fd = open(PTCAP_CPUSEL_ONLINE, O_RDONLY | O_CLOEXEC);
	n = fd >= 0 ? read(fd, online, sizeof(online) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (n > 0)
		online[n] = '\0';
	cpu = ptcap_cpusel_offline(&o->cpus, n > 0 ? online : NULL);
	if (cpu >= 0)
		die("-C %s: CPU %d is offline (online: %.*s): bring it online "
		    "(/sys/devices/system/cpu/cpu%d/online) or leave it out",
		    o->cpu_list, cpu, (int)strcspn(online, "\n"), online, cpu);
	o->cfg.cpu_mask = o->cpus.mask;
	o->cfg.cpu_mask_size = o->cpus.words * sizeof(uint64_t);
}

/*
 * The default buffer size, fitted to what the caller may pin (/dev/pt
 * charges the buffers: Documentation/pt.rst "Memory"), as perf record
 * sizes its default buffers for an unprivileged user to the allowance
 * (intel_pt_recording_options() in tools/perf/arch/x86/util/intel-pt.c,
 * perf_event_mlock_kb_in_pages() in tools/perf/util/evlist.c): the
 * buffers CONFIGURE charges are one per thread of the target plus the
 * module's spares (per thread), or one per online CPU (per CPU). Says so
 * on stderr when the size was reduced; dies with what to do when not even
 * one page per buffer fits. A module without caps.mlock_avail decides at
 * CONFIGURE (LWPT_PT_RULE_MEMLOCK).
 */
static void fit_default_size(const struct opts *o, struct lpt_dev *dev,
			     struct lpt_cap_config *cfg, pid_t target)
{
	const struct lwpt_pt_caps *caps = lpt_dev_caps(dev);
	bool single = cfg->flags & LWPT_PT_CFG_SINGLE_RANGE;
	unsigned int threads = 1, nbuf;
	uint64_t avail, size;
	char what[96];
	long cpus;
	pid_t tgid;
	char state;

	if (lpt_dev_mlock_avail(dev, &avail) || avail == LWPT_PT_MLOCK_UNLIMITED)
		return;
	if (o->cpu_list) {
		nbuf = o->cpus.count;
		snprintf(what, sizeof(what), "%u buffer%s (one per CPU of -C %s)", nbuf,
			 nbuf == 1 ? "" : "s", o->cpu_list);
	} else if (o->all || (cfg->flags & LWPT_PT_CFG_CR3_FILTER)) {
		cpus = sysconf(_SC_NPROCESSORS_ONLN);
		nbuf = cpus > 0 ? (unsigned int)cpus : caps->nr_cpus;
		snprintf(what, sizeof(what), "%u buffers (one per online CPU)", nbuf);
	} else if (o->npids > 1) {
		/* One capture per process, all charged to the caller. */
		unsigned int k, t;

		for (threads = 0, k = 0; k < o->npids; k++)
			threads += proc_status(o->pids[k], &tgid, &state, &t) ? t : 1;
		nbuf = threads + o->npids * caps->thread_spares;
		snprintf(what, sizeof(what), "%u buffers (%u threads of %u processes + %u spares "
			 "each)", nbuf, threads, o->npids, caps->thread_spares);
	} else {
		if (target && !o->tid && !proc_status(target, &tgid, &state, &threads))
			threads = 1;
		nbuf = threads + caps->thread_spares;
		snprintf(what, sizeof(what), "%u buffers (%u thread%s + %u spares)", nbuf,
			 threads, threads == 1 ? "" : "s", caps->thread_spares);
	}
	size = lpt_cap_buffer_fit(cfg->buffer_size, nbuf, single, avail);
	if (!size)
		die("the trace buffers do not fit in what you may pin: %s of 4 KiB need %" PRIu64
		    " KiB, you may pin %" PRIu64 " KiB more (the module's per-user allowance "
		    "pt_mlock_kb plus RLIMIT_MEMLOCK, less what is pinned already). Raise the "
		    "limit (ulimit -l, /etc/security/limits.conf), end other captures, or ask "
		    "the administrator to raise /sys/module/lwpt*/parameters/pt_mlock_kb",
		    what, lpt_cap_buffer_cost(LPT_CAP_MIN_BUFFER, nbuf, single) / 1024, avail / 1024);
	if (size == cfg->buffer_size)
		return;
	fprintf(stderr, "ptcap: default buffer size reduced from %" PRIu64 " KiB to %" PRIu64
		" KiB: %s must fit in the %" PRIu64 " KiB you may pin (pt_mlock_kb allowance and "
		"RLIMIT_MEMLOCK); --size sets it, ulimit -l raises the limit\n",
		cfg->buffer_size / 1024, size / 1024, what, avail / 1024);
	cfg->buffer_size = size;
}

/*
 * Has the target ended? -t: the thread is gone or a zombie. -p: the
 * process is gone, or its leader is a zombie with no other thread left.
 */
static bool id_gone(pid_t id, bool thread)
{
	unsigned int threads;
	pid_t tgid;
	char state;

	if (!proc_status(id, &tgid, &state, &threads))
		return true;
	if (state != 'Z' && state != 'X')
		return false;
	return thread || threads <= 1;
}

/*
 * Per-thread continuous mode, after drain(): the buffer of a thread no
 * longer traced (it exited, or was detached at an exec), whose trace was
 * saved to its end, is freed (lpt_dev_buffer_done(): RELEASE with
 * LWPT_PT_REL_DONE, Documentation/pt.rst "Buffers of threads that ended"),
 * its file closed and its final status kept, so that a capture following
 * short-lived processes never reaches the module's buffer limits
 * (PT_THREAD_MAX, RLIMIT_MEMLOCK). The number goes to the next thread that
 * joins: sync_files() opens a file of its own for it. A module before ABI
 * 1.5 cannot: nothing is freed. Bytes written since the drain (-EAGAIN):
 * the next round.
 */
static void free_ended(struct lpt_dev *dev, struct trace_file *tf, unsigned int ntf,
		       const char *dir)
{
	static bool unsupported;
	unsigned int i;

	for (i = 0; i < ntf && !unsupported; i++) {
		struct trace_file *t = &tf[i];
		struct lpt_buf_info info;
		struct lpt_cap_status st;
		int err;

		if (t->freed || !t->f)
			continue;	/* freed already, or not kept (-t) */
		/* /proc first: a STATUS stops and restarts a running thread's trace. */
		if (t->info.tid > 0 && !id_gone(t->info.tid, true))
			continue;
		memset(&info, 0, sizeof(info));
		info.size = sizeof(info);
		if (lpt_dev_buffer_info(dev, (unsigned int)t->cpu, &info) ||
		    !(info.exited || info.detached) ||
		    lpt_dev_status(dev, (unsigned int)t->cpu, &st))
			continue;
		err = lpt_dev_buffer_done(dev, (unsigned int)t->cpu);
		unsupported = err == -EOPNOTSUPP;
		if (err)
			continue;
		t->st = st;
		t->have_st = true;
		t->info = info;
		t->freed = true;
		out_close(t->f, dir, t->name);
		t->f = NULL;
	}
}

static bool target_gone(const struct opts *o)
{
	return id_gone(o->tid ? o->tid : o->pid, o->tid != 0);
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

/* ---- snapshots (--snapshot) ------------------------------------------ */

/* Add a line to DIR/config (written by write_config()). */
static void config_append(const char *dir, const char *fmt, ...)
{
	char path[4096 + 16];
	va_list ap;
	FILE *f;

	snprintf(path, sizeof(path), "%s/config", dir);
	f = fopen(path, "a");
	if (!f)
		die("%s: %s", path, strerror(errno));
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	out_close(f, dir, "config");
}

/*
 * Snapshot @n on SIGUSR2 (issue 16 point 4), into DIR/snap.<n>, a complete
 * capture directory: clear TraceEn everywhere (a consistent cut: nothing
 * is written while the buffers are read), save the newest bytes of each
 * buffer since the previous start (at most its size: wrap mode), with
 * maps, config and outcomes, then start again (the module clears the
 * buffers). The traced program is never stopped; what it runs between
 * STOP and START is not traced. Returns the losses of the snapshot.
 */
static uint64_t snapshot(const struct opts *o, const struct lpt_cap_config *cfg,
			 struct lpt_dev *dev, struct trace_file **tfp, unsigned int *ntfp,
			 bool per_thread, FILE **sw, struct maps *maps, pid_t pid, unsigned int n)
{
	struct opts so = *o;
	struct trace_file *tf, *snap;
	char dir[4096], path[4096 + 16];
	unsigned int i, ns = 0;
	uint64_t losses, bytes = 0;
	int err;

	snprintf(dir, sizeof(dir), "%s/snap.%u", o->dir, n);
	if (mkdir(dir, 0777))
		die("%s: %s", dir, strerror(errno));
	err = lpt_dev_stop(dev);
	if (err)
		die("snapshot %u: stop: %s", n, lpt_dev_strerror(err));
	*ntfp = sync_files(dev, tfp, *ntfp, per_thread, o->tid, o->dir);
	tf = *tfp;
	snap = calloc(*ntfp ? *ntfp : 1, sizeof(*snap));
	if (!snap)
		die("out of memory");
	for (i = 0; i < *ntfp; i++) {
		struct trace_file *t = &snap[ns];
		int64_t r;

		if (!tf[i].f)
			continue;	/* not kept (-t) */
		memcpy(t->name, tf[i].name, sizeof(t->name));
		t->cpu = tf[i].cpu;
		t->info.size = sizeof(t->info);
		t->f = out_open(dir, t->name);
		r = lpt_dev_read(dev, (unsigned int)t->cpu, sink_file, t);
		if (r < 0)
			die("%s/%s: %s", dir, t->name, lpt_dev_strerror((int)r));
		t->have_st = !lpt_dev_status(dev, (unsigned int)t->cpu, &t->st);
		if (per_thread)
			lpt_dev_buffer_info(dev, (unsigned int)t->cpu, &t->info);
		out_close(t->f, dir, t->name);
		bytes += t->bytes;
		ns++;
	}
	/* START empties the sideband rings and their lost counts: take them. */
	if (*sw && !drain_switches(dev, tf, *ntfp, *sw, o->dir, NULL))
		switches_drop(sw, o->dir);
	for (i = 0; i < *ntfp; i++) {
		tf[i].switches_lost_before += tf[i].switches_lost;
		tf[i].switches_lost = 0;
	}
	/* Restart first: the program runs on untraced until then. */
	err = lpt_dev_start(dev);
	if (err)
		die("snapshot %u: start: %s", n, lpt_dev_strerror(err));
	snap_req = 0;	/* SIGUSR2s during this snapshot asked for it */
	fprintf(stderr, "ptcap: snapshot %u: %s: %u file(s), %" PRIu64 " bytes\n", n, dir, ns,
		bytes);
	if (pid > 0)
		maps_read(pid, maps);
	/* The vDSO copy is shared: the maps name it relative to the directory. */
	snprintf(path, sizeof(path), "%s/vdso.so", dir);
	if (maps->vdso_end && access(path, F_OK)) {
		char top[4096 + 16];

		snprintf(top, sizeof(top), "%s/vdso.so", o->dir);
		if (link(top, path))
			fprintf(stderr, "ptcap: warning: %s: %s\n", path, strerror(errno));
	}
	losses = outcomes(cfg, dev, snap, ns, dir);
	write_maps(dir, maps, pid, o->pid || o->tid);
	so.dir = dir;
	write_config(&so, cfg, dev, snap, ns, per_thread, false, losses, NULL, pid);
	config_append(dir, "snapshot %u\n", n);
	free(snap);
	return losses;
}

/* ---- -p PID,PID...: one capture per process --------------------------- */

/* One process of -p PID,PID... and its own capture (its own /dev/pt file). */
struct proc_cap {
	pid_t pid;
	struct lpt_dev *dev;
	struct trace_file *tf;
	unsigned int ntf;
	bool gone;
};

/* Configure @pc's capture of its process (per thread); dies naming it. */
static void proc_cap_configure(const struct opts *o, struct proc_cap *pc,
			       const struct lpt_cap_config *base)
{
	struct lpt_cap_config cfg = *base;
	enum lwpt_pt_field bad;
	int err;

	cfg.pid = pc->pid;
	cfg.scope = LWPT_PT_SCOPE_THREAD;
	err = lpt_dev_configure(pc->dev, &cfg, &bad);
	if (!err)
		return;
	if (lpt_dev_refusal(pc->dev))
		die("-p %d: configure: %s", (int)pc->pid, lpt_dev_refusal(pc->dev));
	if (err == -EBUSY && lpt_dev_busy_holder(pc->dev))
		die("-p %d: configure: busy: process %d holds a capture of it, or of every "
		    "CPU, on %s", (int)pc->pid, (int)lpt_dev_busy_holder(pc->dev),
		    o->dev ? o->dev : LPT_DEV_PATH);
	if (err == -EOPNOTSUPP && bad == LWPT_PT_FIELD_SCOPE)
		die("-p: this module has no per-thread capture: attach to one process with "
		    "--cr3, or trace with -a");
	if (bad != LWPT_PT_FIELD_NONE)
		die("-p %d: configure: %s: %s", (int)pc->pid, lpt_cap_field_name(bad),
		    lpt_dev_strerror(err));
	die("-p %d: configure: %s", (int)pc->pid, lpt_dev_strerror(err));
}

/*
 * ptcap -p PID,PID...: a per-thread capture of each process on its own
 * /dev/pt file (@dev0, opened by main(), is the first's), all running at
 * once; every thread's trace in DIR/tid<N>.pt as with one -p, the config
 * lines of all buffers in one config (their pid says which process), the
 * maps of every process in one maps file. Ends on SIGINT, -d, or when every
 * process has ended. Returns ptcap's exit status.
 */
static int attach_many(struct opts *o, const struct lpt_cap_config *cfg,
		       struct lpt_dev *dev0)
{
	struct proc_cap *pc = calloc(o->npids, sizeof(*pc));
	struct trace_file *all = NULL;
	struct maps maps = { 0 };
	unsigned int i, k, nall = 0;
	uint32_t threads_lost = 0, threads_refused = 0;
	uint64_t losses;
	double t0, tlast;
	int err;

	if (!pc)
		die("out of memory");
	for (k = 0; k < o->npids; k++) {
		unsigned int threads;
		pid_t tgid;
		char state;

		pc[k].pid = o->pids[k];
		if (!proc_status(pc[k].pid, &tgid, &state, &threads) || state == 'Z' ||
		    state == 'X')
			die("-p %d: no such process", (int)pc[k].pid);
		if (tgid != pc[k].pid)
			die("-p %d: a thread of process %d: give -p %d (all its threads) or -t %d",
			    (int)pc[k].pid, (int)tgid, (int)tgid, (int)pc[k].pid);
		err = maps_read(pc[k].pid, &maps);
		if (err)
			die("/proc/%d/maps: %s (ptcap attaches where ptrace may: the same "
			    "user and ptrace_scope, or CAP_SYS_PTRACE)", (int)pc[k].pid,
			    strerror(-err));
		if (!k) {
			pc[k].dev = dev0;
			continue;
		}
		err = lpt_dev_open(o->dev, &pc[k].dev);
		if (err)
			die("%s: %s", o->dev ? o->dev : LPT_DEV_PATH, lpt_dev_strerror(err));
	}
	outdir_prepare(o);
	save_vdso(pc[0].pid, o->dir, &maps);
	for (k = 0; k < o->npids; k++)
		proc_cap_configure(o, &pc[k], cfg);
	for (k = 0; k < o->npids; k++) {
		pc[k].ntf = sync_files(pc[k].dev, &pc[k].tf, 0, true, 0, o->dir);
		if (!pc[k].ntf)
			die("-p %d: the module configured no buffer", (int)pc[k].pid);
	}
	for (k = 0; k < o->npids; k++) {
		err = lpt_dev_start(pc[k].dev);
		if (err)
			die("-p %d: start: %s", (int)pc[k].pid, lpt_dev_strerror(err));
	}
	t0 = tlast = now_s();
	for (;;) {
		struct timespec ts = { 0, PTCAP_POLL_NS };
		unsigned int left = 0;
		double t;

		for (k = 0; k < o->npids; k++) {
			if (!pc[k].gone)
				pc[k].gone = id_gone(pc[k].pid, false);
			left += !pc[k].gone;
		}
		t = now_s();
		if (stop_req || !left || (o->duration > 0 && t - t0 >= o->duration))
			break;
		nall = 0;
		for (k = 0; k < o->npids; k++) {
			if (cfg->mode == LWPT_PT_MODE_CONTINUOUS) {
				pc[k].ntf = sync_files(pc[k].dev, &pc[k].tf, pc[k].ntf, true, 0,
						       o->dir);
				drain(pc[k].dev, pc[k].tf, pc[k].ntf, o->dir);
			}
			nall += pc[k].ntf;
		}
		if (t - tlast >= 1.0) {
			if (o->progress)
				fprintf(stderr, "\rptcap: %.1f s, %u buffer(s) of %u processes   ",
					t - t0, nall, o->npids);
			tlast = t;
		}
		nanosleep(&ts, NULL);
	}

	nall = 0;
	for (k = 0; k < o->npids; k++) {
		struct proc_cap *p = &pc[k];

		err = lpt_dev_stop(p->dev);
		if (err)
			die("-p %d: stop: %s", (int)p->pid, lpt_dev_strerror(err));
		p->ntf = sync_files(p->dev, &p->tf, p->ntf, true, 0, o->dir);
		drain(p->dev, p->tf, p->ntf, o->dir);
		for (i = 0; i < p->ntf; i++) {
			p->tf[i].have_st = !lpt_dev_status(p->dev, (unsigned int)p->tf[i].cpu,
							   &p->tf[i].st);
			lpt_dev_buffer_info(p->dev, (unsigned int)p->tf[i].cpu, &p->tf[i].info);
			if (p->tf[i].f)
				out_close(p->tf[i].f, o->dir, p->tf[i].name);
		}
		p->ntf = keep_saved(p->tf, p->ntf);
		/* Each capture's count is on its last buffer: one sum for all. */
		if (p->ntf) {
			threads_lost += p->tf[p->ntf - 1].info.threads_lost;
			p->tf[p->ntf - 1].info.threads_lost = 0;
			threads_refused += p->tf[p->ntf - 1].info.threads_refused;
			p->tf[p->ntf - 1].info.threads_refused = 0;
		}
		all = realloc(all, (nall + p->ntf + 1) * sizeof(*all));
		if (!all)
			die("out of memory");
		memcpy(all + nall, p->tf, p->ntf * sizeof(*all));
		nall += p->ntf;
		if (!id_gone(p->pid, false))
			maps_read(p->pid, &maps);	/* libraries loaded meanwhile */
	}
	if (nall) {
		all[nall - 1].info.threads_lost = threads_lost;
		all[nall - 1].info.threads_refused = threads_refused;
	}
	if (o->progress)
		fprintf(stderr, "\rptcap: %.1f s, %u buffer(s) of %u processes\n",
			now_s() - t0, nall, o->npids);
	losses = outcomes(cfg, dev0, all, nall, o->dir);
	mark_gaps(all, nall, o->dir);
	write_maps(o->dir, &maps, pc[0].pid, true);
	write_config(o, cfg, dev0, all, nall, true, false, losses, NULL, pc[0].pid);
	for (k = 0; k < o->npids; k++) {
		lpt_dev_close(pc[k].dev);
		free(pc[k].tf);
	}
	for (i = 0; i < maps.n; i++)
		free(maps.v[i].path);
	free(maps.v);
	free(all);
	free(pc);
	if (losses) {
		fprintf(stderr, "ptcap: captured with data lost (%" PRIu64 " loss(es)): exit status %d\n",
			losses, PTCAP_EXIT_LOSSES);
		return PTCAP_EXIT_LOSSES;
	}
	return PTCAP_EXIT_OK;
}

/* ---- --bts: Branch Trace Store (issue 37) ----------------------------- */

/*
 * Continue the command @child from the ptrace stop @st (a waitpid()
 * status): its exit event reads the final maps into @maps (before the mm
 * goes) and is continued without a signal; a signal-delivery stop passes
 * its signal on; a group-stop, which has no siginfo, passes none.
 */
static void child_stop_cont(pid_t child, int st, struct maps *maps)
{
	int sig = WSTOPSIG(st);
	siginfo_t si;

	if ((st >> 8) == (SIGTRAP | (PTRACE_EVENT_EXIT << 8))) {
		maps_read(child, maps);
		sig = 0;
	}
	if (sig && ptrace(PTRACE_GETSIGINFO, child, NULL, &si))
		sig = 0;
	ptrace(PTRACE_CONT, child, NULL, (void *)(long)sig);
}

/* DIR/config of a BTS capture, its first lines (ptcap-format.rst). */
static FILE *bts_config_open(const struct opts *o, bool per_cpu, uint64_t size)
{
	unsigned int fam, model, step;
	FILE *f = out_open(o->dir, "config");

	cpu_fms(&fam, &model, &step);
	fprintf(f, "lwpt-ptcap-config 1\n");
	fprintf(f, "# written by ptcap --bts%s (Documentation/ptcap-format.rst)\n",
		per_cpu ? " -a" : "");
	fprintf(f, "format bts\n");
	fprintf(f, "mode %s\n", per_cpu ? "per-cpu" : "per-thread");
	fprintf(f, "cpu %u/%u/%u\n", fam, model, step);
	fprintf(f, "bts-branches %s%s%s\n", o->user ? "user" : "",
		o->user && o->kernel ? "," : "", o->kernel ? "kernel" : "");
	fprintf(f, "buffer-size %" PRIu64 "\n", size);
	return f;
}

/* One recorded thread of ptcap --bts (a command's, or attached with -p/-t). */
struct bts_thread {
	struct btscap b;
	pid_t tid;
	int fd;				/* ring: tid<N>.bts, appended to */
	bool recording;			/* ring: not yet POLLHUP */
	char name[64];			/* tid<N>.bts */
	char lbr_name[64];		/* tid<N>.lbr, "" when none */
	int lbr_sig;
	uint64_t bytes;			/* of records saved */
	uint64_t start_ip;		/* bts-start (0: none, attached) */
	bool first_stop;		/* created by the command, not yet run */
	bool late;			/* -p: found after the attach (found-late) */
	struct lwpt_bts_status st;
	struct lwpt_bts_ring rs;
};

/* Start recording @t->tid; 0 or a negative errno (*@bad: the field). */
static int bts_thread_try_start(const struct opts *o, struct bts_thread *t, bool ring,
				uint64_t size, uint32_t *bad)
{
	uint32_t lim = ring ? o->cfg.hold_limit_ms : 0;
	int err;

	/* --hold-limit: the same values as /dev/pt's (none = all ones). */
	if (lim == LWPT_PT_HOLD_LIMIT_NONE)
		lim = LWPT_BTS_HOLD_LIMIT_NONE;
	err = btscap_start(&t->b, o->dev, t->tid, o->user, o->kernel, o->lbr_crash,
			   ring, lim, size, bad);

	if (!err) {
		t->fd = -1;
		t->recording = true;
		snprintf(t->name, sizeof(t->name), "tid%d%s", (int)t->tid, PTCAP_BTS_SUFFIX);
	}
	return err;
}

/* Say on stderr why thread @tid could not be recorded (@what: the outcome). */
static void bts_start_error(const struct opts *o, pid_t tid, int err, uint32_t bad,
			    const char *what)
{
	fprintf(stderr, "ptcap: %s: configure thread %d: %s%s%s%s%s%s%s%s%s%s%s%s\n",
		o->dev ? o->dev : BTSCAP_DEV_PATH, (int)tid, strerror(-err),
		err == -ENOENT ? " (is the lwpt module, lwpt.ko or lwpt_sim.ko, loaded?)" : "",
		err == -EACCES ? " (the module's pt_paranoid is above 1: a BTS trace holds "
		"kernel entry addresses, so only CAP_PERFMON may record, as perf's "
		"intel_bts above perf_event_paranoid 1; as root, pt_paranoid=1 lets "
		"users record their own threads: Documentation/bts.rst "
		"\"Permissions\")" : "",
		err == -EPERM && bad == LWPT_BTS_FIELD_PID ? " (recording another user's "
		"thread needs ptrace access to it, as perf record -p: CAP_PERFMON or "
		"CAP_SYS_PTRACE)" : "",
		err == -EPERM && bad == LWPT_BTS_FIELD_FLAGS ? " (kernel branches "
		"need CAP_PERFMON: --user alone records without it)" : "",
		bad == LWPT_BTS_FIELD_BUFFER_SIZE ? " (--size: a page multiple, 4 KiB to 64 MiB)" : "",
		err == -EBUSY ? " (perf or another capture holds the thread or "
		"the CPU's DS area: the kernel log names it)" : "",
		err == -EOPNOTSUPP && o->lbr_crash ? " (--lbr-on-crash: this processor's "
		"LBRs are not handled, or --user alone without MSR_LBR_SELECT: "
		"Documentation/bts.rst)" : "",
		err == -ENOMEM ? " (memory, or the locked-memory limit RLIMIT_MEMLOCK: "
		"ulimit -l, or a smaller --size)" : "",
		err == -EINVAL && bad == LWPT_BTS_FIELD_RESERVED && o->cfg.hold_limit_ms &&
		o->cfg.mode == LWPT_PT_MODE_CONTINUOUS ?
		" (--hold-limit with --bts needs ABI 1.9)" : "",
		what ? ": " : "", what ? what : "");
}

/* Start recording @t->tid (exit with the reason, after @cleanup, if refused). */
static void bts_thread_start(const struct opts *o, struct bts_thread *t, bool ring,
			     uint64_t size, void (*cleanup)(void *), void *arg)
{
	uint32_t bad = 0;
	int err = bts_thread_try_start(o, t, ring, size, &bad);

	if (!err)
		return;
	cleanup(arg);
	bts_start_error(o, t->tid, err, bad, NULL);
	exit(PTCAP_EXIT_ERROR);
}

/* A ring's trace file, created in DIR. */
static void bts_thread_open(const struct opts *o, struct bts_thread *t)
{
	char path[4096 + 64];

	snprintf(path, sizeof(path), "%s/%s", o->dir, t->name);
	t->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (t->fd < 0)
		die("%s: %s", path, strerror(errno));
}

/* Drain a ring into its file; false once its recording ended. */
static bool bts_thread_drain(const struct opts *o, struct bts_thread *t)
{
	int err = btscap_drain(&t->b, t->fd, &t->bytes, &t->rs);

	if (err)
		die("%s/%s: %s (%" PRIu64 " bytes of records saved)", o->dir, t->name,
		    strerror(-err), t->bytes);
	t->recording = t->rs.flags & LWPT_BTS_ST_RECORDING;
	return t->recording;
}

/*
 * Stop @t, save what is left (a ring: the records after the final head; a
 * linear buffer: all of it), its LBR stack at a fatal signal (-l), close.
 */
static void bts_thread_finish(const struct opts *o, struct bts_thread *t, bool ring)
{
	char path[4096 + 64];
	int err = btscap_stop(&t->b, &t->st);

	if (err)
		die("%s: status: %s", o->dev ? o->dev : BTSCAP_DEV_PATH, strerror(-err));
	snprintf(path, sizeof(path), "%s/%s", o->dir, t->name);
	if (ring) {
		bts_thread_drain(o, t);
		if (close(t->fd))
			die("%s: %s", path, strerror(errno));
	} else {
		int64_t saved = btscap_save(&t->b, t->st.head, path);

		if (saved < 0)
			die("%s: %s", path, strerror((int)-saved));
		t->bytes = (uint64_t)saved;
	}
	if (o->lbr_crash) {
		snprintf(t->lbr_name, sizeof(t->lbr_name), "tid%d%s", (int)t->tid,
			 PTCAP_LBR_SUFFIX);
		snprintf(path, sizeof(path), "%s/%s", o->dir, t->lbr_name);
		err = btscap_lbr_crash(&t->b, t->tid, path, &t->lbr_sig);
		if (err == -ENODATA)
			t->lbr_name[0] = '\0';	/* no fatal signal: no stack */
		else if (err)
			die("%s: %s", path, strerror(-err));
	}
	btscap_close(&t->b);
}

/*
 * DIR/config of a per-thread BTS capture (ptcap-format.rst "BTS trace
 * files") of the threads @t of process @pid, the command's exit status
 * @cstat (with a command); then the warnings. Return: ptcap's exit status.
 */
static int bts_finish(const struct opts *o, struct maps *maps, pid_t pid,
		      struct bts_thread *t, size_t n, bool ring, uint64_t size, int cstat)
{
	uint64_t holds = 0, full = 0, taken = 0, timeouts = 0, bytes = 0;
	FILE *f;
	size_t i;

	write_maps(o->dir, maps, pid, !o->argv);
	for (i = 0; i < maps->n; i++)
		free(maps->v[i].path);
	free(maps->v);
	f = bts_config_open(o, false, size);
	fprintf(f, "bts-buffer %s\n", ring ? "ring" : "linear");
	if (o->argv) {
		fprintf(f, "command");
		for (i = 0; o->argv[i]; i++)
			fprintf(f, " %s", o->argv[i]);
		if (WIFSIGNALED(cstat))
			fprintf(f, "\ncommand-status signal=%d\n", WTERMSIG(cstat));
		else
			fprintf(f, "\ncommand-status exit=%d\n", WEXITSTATUS(cstat));
	} else if (o->tid) {
		fprintf(f, "attached tid=%d pid=%d\n", (int)o->tid, (int)pid);
	} else {
		fprintf(f, "attached pid=%d\n", (int)pid);
	}
	for (i = 0; i < n; i++) {
		const struct lwpt_bts_status *st = &t[i].st;

		/* One capture: the line of ABI 1.6 (its file's name implied). */
		fprintf(f, "bts-status%s%s%s%s%s%s%s", n > 1 ? "." : "", n > 1 ? t[i].name : "",
			st->flags & LWPT_BTS_ST_FULL ? " full" : "",
			st->flags & LWPT_BTS_ST_EXITED ? " exited" : "",
			st->flags & LWPT_BTS_ST_EXEC_STOPPED ? " exec-stopped" : "",
			st->flags & LWPT_BTS_ST_DS_TAKEN ? " ds-taken" : "",
			(st->flags | t[i].rs.flags) & LWPT_BTS_ST_HOLD_TIMEOUT ?
			" hold-timeout" : "");
		/* The count, where the module gives it (ring status version 1). */
		if (t[i].rs.size >= LWPT_BTS_RING_SIZE_VER1)
			fprintf(f, " hold-timeouts=%" PRIu64, (uint64_t)t[i].rs.hold_timeouts);
		fputc('\n', f);
		fprintf(f, "thread.%s tid=%d pid=%d records=%" PRIu64 "%s\n", t[i].name,
			(int)t[i].tid, (int)pid, t[i].bytes / sizeof(struct lwpt_bts_record),
			t[i].late ? " found-late" : "");
		if (t[i].start_ip)
			fprintf(f, "bts-start.%s 0x%" PRIx64 "\n", t[i].name, t[i].start_ip);
		if (t[i].lbr_name[0])
			fprintf(f, "lbr-crash.%s %s signal=%d\n", t[i].name, t[i].lbr_name,
				t[i].lbr_sig);
		holds += t[i].rs.holds;
		bytes += t[i].bytes;
		full += !!(st->flags & LWPT_BTS_ST_FULL);
		taken += !!(st->flags & LWPT_BTS_ST_DS_TAKEN);
		timeouts += !!((st->flags | t[i].rs.flags) & LWPT_BTS_ST_HOLD_TIMEOUT);
	}
	out_close(f, o->dir, "config");
	if (full)
		fprintf(stderr, "ptcap: the BTS buffer of %" PRIu64 " thread(s) filled (%" PRIu64
			" bytes): recording stopped there; --size raises it (or leave out "
			"--mode=stop: a ring loses nothing)\n", full, size);
	if (taken)
		fprintf(stderr, "ptcap: perf took IA32_DS_AREA during the capture of %" PRIu64
			" thread(s): recording stopped there; end perf's events first\n", taken);
	if (timeouts)
		fprintf(stderr, "ptcap: data lost: the BTS ring of %" PRIu64 " thread(s) "
			"waited for ptcap longer than the hold limit (--hold-limit): the thread "
			"ran on and its records were lost until ptcap made room\n", timeouts);
	if (ring && o->progress)
		fprintf(stderr, "ptcap: %" PRIu64 " bytes of BTS records through a %" PRIu64
			"-byte ring, the thread waited for ptcap %" PRIu64 " time(s)\n",
			bytes, size, holds);
	if (o->argv && WIFSIGNALED(cstat))
		fprintf(stderr, "ptcap: %s: killed by signal %d\n", o->argv[0], WTERMSIG(cstat));
	else if (o->argv && WEXITSTATUS(cstat))
		fprintf(stderr, "ptcap: %s: exited with status %d\n", o->argv[0],
			WEXITSTATUS(cstat));
	return full || taken || timeouts ? PTCAP_EXIT_LOSSES : PTCAP_EXIT_OK;
}

/*
 * The command of ptcap --bts -- CMD and its threads: each thread it
 * creates (PTRACE_O_TRACECLONE: the new thread is traced from its
 * creation and stops before its first instruction) is recorded from that
 * first instruction, as the command's own thread.
 */
struct bts_cmd {
	const struct opts *o;
	pid_t child;			/* the command's process (its first thread) */
	bool ring;
	uint64_t size;
	struct bts_thread *t;		/* the recorded threads, t[0] the first */
	size_t n, cap;
	struct bts_untraced {		/* created, not recorded, first stop due */
		pid_t tid;
		bool thread;		/* a thread CONFIGURE refused: stays traced */
	} *other;
	size_t nother, capother;
	uint64_t unrecorded;		/* threads CONFIGURE refused */
};

/* Remember task @tid, created by the command and not recorded. */
static void bts_cmd_other(struct bts_cmd *c, pid_t tid, bool thread)
{
	if (c->nother == c->capother) {
		struct bts_untraced *v = realloc(c->other, (c->capother = c->capother ?
							    2 * c->capother : 8) * sizeof(*v));

		if (!v)
			die("out of memory");
		c->other = v;
	}
	c->other[c->nother].tid = tid;
	c->other[c->nother++].thread = thread;
}

static struct bts_thread *bts_cmd_find(struct bts_cmd *c, pid_t tid)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->t[i].tid == tid)
			return &c->t[i];
	return NULL;
}

/* Whether task @tid is a thread of process @pid (/proc/PID/task/TID). */
static bool bts_is_thread_of(pid_t pid, pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)tid);
	return !access(path, F_OK);
}

/*
 * A task @tid the command created, seen at its clone event or at its
 * first stop, whichever comes first: a thread of the command's process is
 * recorded (its capture configured while it cannot run yet: it waits in
 * that first stop, which bts_cmd_first_stop() ends); another process
 * (clone(2) without CLONE_THREAD, an exit signal other than SIGCHLD) is
 * let go at its first stop. A thread CONFIGURE refuses (RLIMIT_MEMLOCK,
 * for one) runs unrecorded, said on stderr and in the exit status.
 */
static void bts_cmd_new(struct bts_cmd *c, pid_t tid)
{
	struct bts_thread *t;
	uint32_t bad;
	int err;

	if (bts_cmd_find(c, tid))
		return;
	for (size_t i = 0; i < c->nother; i++)
		if (c->other[i].tid == tid)
			return;
	if (!bts_is_thread_of(c->child, tid)) {
		bts_cmd_other(c, tid, false);
		return;
	}
	if (c->n == c->cap) {
		t = realloc(c->t, (c->cap = c->cap ? 2 * c->cap : 8) * sizeof(*t));
		if (!t)
			die("out of memory");
		c->t = t;
	}
	t = &c->t[c->n];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->first_stop = true;
	err = bts_thread_try_start(c->o, t, c->ring, c->size, &bad);
	if (err) {
		bts_start_error(c->o, tid, err, bad, "it runs unrecorded");
		c->unrecorded++;
		bts_cmd_other(c, tid, true);
		return;
	}
	c->n++;
	if (c->ring)
		bts_thread_open(c->o, t);
}

/*
 * The first stop of a task the command created (its SIGSTOP, before its
 * first instruction): a recorded thread's first instruction is read
 * (bts-start), the SIGSTOP is not passed on; another process is let go.
 * Return: whether @tid was in such a first stop.
 */
static bool bts_cmd_first_stop(struct bts_cmd *c, pid_t tid, int st)
{
	struct user_regs_struct regs;
	struct bts_thread *t;

	if (WSTOPSIG(st) != SIGSTOP || (st >> 16))
		return false;
	bts_cmd_new(c, tid);
	t = bts_cmd_find(c, tid);
	if (t && t->first_stop) {
		t->first_stop = false;
		if (!ptrace(PTRACE_GETREGS, tid, NULL, &regs))
			t->start_ip = regs.rip;
		ptrace(PTRACE_CONT, tid, NULL, NULL);
		return true;
	}
	for (size_t i = 0; i < c->nother; i++) {
		if (c->other[i].tid != tid)
			continue;
		/* first stop done: the slot no longer matches */
		c->other[i].tid = 0;
		if (c->other[i].thread)
			ptrace(PTRACE_CONT, tid, NULL, NULL);
		else
			ptrace(PTRACE_DETACH, tid, NULL, NULL);
		return true;
	}
	return false;
}

/*
 * The ptrace stops of the command's tasks since the last look (with
 * @block: the next one), each continued: a clone event adds the new
 * thread, a new task's first stop ends, the other stops go through
 * child_stop_cont() (the exit events: the final maps into @maps). A
 * thread's exit needs nothing: its capture ends with it. Return: true
 * once the command's process has exited (its status in *@cstat).
 */
static bool bts_cmd_events(struct bts_cmd *c, struct maps *maps, int *cstat, bool block)
{
	for (;;) {
		int st;
		pid_t w = waitpid(-1, &st, __WALL | (block ? 0 : WNOHANG));

		if (w < 0 && errno == EINTR) {
			if (stop_req) {
				kill(c->child, SIGINT);
				stop_req = 0;
			}
			continue;
		}
		if (w < 0)
			die("waitpid: %s", strerror(errno));
		if (!w)
			return false;
		if (WIFEXITED(st) || WIFSIGNALED(st)) {
			if (w == c->child) {
				*cstat = st;
				return true;
			}
			continue;
		}
		if (!WIFSTOPPED(st))
			continue;
		if ((st >> 8) == (SIGTRAP | (PTRACE_EVENT_CLONE << 8))) {
			unsigned long msg;

			if (!ptrace(PTRACE_GETEVENTMSG, w, NULL, &msg))
				bts_cmd_new(c, (pid_t)msg);
			ptrace(PTRACE_CONT, w, NULL, NULL);
		} else if (!bts_cmd_first_stop(c, w, st)) {
			child_stop_cont(w, st, maps);
		}
		if (block)
			return false;
	}
}

/*
 * A ring capture's wait: records drained into each thread's file whenever
 * poll(2) says they wait, the command's stops handled as SIGCHLD says
 * (blocked but in ppoll(), so none is missed between the look and the
 * sleep), until the command exited.
 */
static void bts_ring_wait(struct bts_cmd *c, struct maps *maps, int *cstat)
{
	sigset_t sleep_mask, orig_mask;
	struct pollfd *pfd = NULL;
	size_t cap = 0;

	chld_block(&sleep_mask, &orig_mask);
	if (ptrace(PTRACE_CONT, c->child, NULL, NULL))
		die("ptrace(CONT): %s", strerror(errno));
	for (;;) {
		size_t i, n = 0;

		if (bts_cmd_events(c, maps, cstat, false))
			break;
		if (stop_req) {
			kill(c->child, SIGINT);	/* passed on; ends when it exits */
			stop_req = 0;
		}
		if (cap < c->n) {
			free(pfd);
			cap = c->cap;
			pfd = malloc(cap * sizeof(*pfd));
			if (!pfd)
				die("out of memory");
		}
		/* After its end POLLHUP stays: not polled (SIGCHLD wakes). */
		for (i = 0; i < c->n; i++) {
			if (c->t[i].recording && bts_thread_drain(c->o, &c->t[i])) {
				pfd[n].fd = c->t[i].b.fd;
				pfd[n++].events = POLLIN;
			}
		}
		if (ppoll(pfd, n, NULL, &sleep_mask) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
	}
	sigprocmask(SIG_SETMASK, &orig_mask, NULL);
	free(pfd);
}

static void kill_child(void *arg)
{
	kill(*(pid_t *)arg, SIGKILL);
}

/*
 * ptcap --bts -- CMD: the command's threads recorded through /dev/bts,
 * each from its first instruction (after exec; a thread it creates, from
 * its creation) until it exits, into DIR/tid<N>.bts with config (`format
 * bts`) and maps (Documentation/ptcap-format.rst "BTS trace files"): by
 * default through rings drained as they fill (a thread waits for ptcap,
 * nothing lost); with --mode=stop one buffer per thread, its recording
 * stopping when it is full. The processes it creates are not recorded.
 */
static int bts_main(struct opts *o)
{
	struct bts_cmd c = {
		.o = o, .ring = o->cfg.mode == LWPT_PT_MODE_CONTINUOUS,
		.size = o->cfg.buffer_size ? o->cfg.buffer_size : BTSCAP_DEFAULT_SIZE,
	};
	struct user_regs_struct regs;
	struct maps maps = { 0 };
	int err, cstat = 0, rc;
	size_t i;

	c.child = spawn_stopped(o->argv);
	if (ptrace(PTRACE_SETOPTIONS, c.child, NULL,
		   (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL | PTRACE_O_TRACECLONE)))
		die("ptrace(SETOPTIONS): %s", strerror(errno));
	err = maps_read(c.child, &maps);
	if (err)
		die("/proc/%d/maps: %s", (int)c.child, strerror(-err));
	/* Its first instruction, which no record tells (bts-start). */
	if (ptrace(PTRACE_GETREGS, c.child, NULL, &regs))
		die("ptrace(GETREGS): %s", strerror(errno));
	c.t = calloc(1, sizeof(*c.t));
	if (!c.t)
		die("out of memory");
	c.cap = 1;
	c.t[0].tid = c.child;
	c.t[0].start_ip = regs.rip;
	bts_thread_start(o, &c.t[0], c.ring, c.size, kill_child, &c.child);
	c.n = 1;
	outdir_prepare(o);
	save_vdso(c.child, o->dir, &maps);
	if (c.ring) {
		bts_thread_open(o, &c.t[0]);
		bts_ring_wait(&c, &maps, &cstat);
	} else {
		if (ptrace(PTRACE_CONT, c.child, NULL, NULL))
			die("ptrace(CONT): %s", strerror(errno));
		while (!bts_cmd_events(&c, &maps, &cstat, true))
			;
	}
	for (i = 0; i < c.n; i++)
		bts_thread_finish(o, &c.t[i], c.ring);
	rc = bts_finish(o, &maps, c.child, c.t, c.n, c.ring, c.size, cstat);
	if (c.unrecorded) {
		fprintf(stderr, "ptcap: %" PRIu64 " thread(s) of the command ran unrecorded "
			"(see above)\n", c.unrecorded);
		rc = PTCAP_EXIT_LOSSES;
	}
	free(c.t);
	free(c.other);
	return rc;
}

/*
 * ptcap --bts -p PID / -t TID: the recorded threads, and with -p the
 * threads of the process looked at again every round (tasks.h).
 */
struct bts_attach {
	const struct opts *o;
	pid_t pid;
	uint64_t size;
	struct bts_thread *t;		/* the recorded threads, in the order found */
	size_t n, cap;
	struct ptcap_tasks now;		/* the last look at /proc/PID/task */
	struct ptcap_tasks skipped;	/* still listed, not recorded: gone or refused */
	struct ptcap_tasks known;	/* recorded or skipped, sorted each look */
	int pidfd;			/* -p: readable once the process exited; -1 */
	uint64_t late;			/* threads found after the attach, recorded */
	uint64_t refused;		/* threads found after the attach, refused */
};

/* Refused: end the captures started so far (the threads run on). */
static void bts_attach_undo(void *arg)
{
	struct bts_attach *a = arg;

	for (size_t i = 0; i < a->n; i++)
		btscap_close(&a->t[i].b);
}

/* A zeroed slot for one more thread at @a->t[@a->n] (not counted yet). */
static struct bts_thread *bts_attach_slot(struct bts_attach *a)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 8;
		struct bts_thread *t;

		if (cap > SIZE_MAX / sizeof(*t) || !(t = realloc(a->t, cap * sizeof(*t))))
			die("out of memory (%zu threads recorded)", a->n);
		a->t = t;
		a->cap = cap;
	}
	memset(&a->t[a->n], 0, sizeof(a->t[a->n]));
	return &a->t[a->n];
}

/*
 * A thread of the process that was not there at the attach (or at the
 * last look): recorded from now on as the first ones, its file opened. A
 * thread gone before its CONFIGURE (ESRCH), or no longer the process's
 * right after it (it exited, and its id may have gone to a task of another
 * process: that capture is dropped, at most a few records of the thread's
 * exit lost), is skipped without a word; another refusal is said once and
 * the thread runs unrecorded (counted: a loss).
 */
static void bts_attach_late(struct bts_attach *a, pid_t tid)
{
	struct bts_thread *t = bts_attach_slot(a);
	uint32_t bad = 0;
	int err;

	t->tid = tid;
	t->late = true;
	err = bts_thread_try_start(a->o, t, true, a->size, &bad);
	if (!err && !bts_is_thread_of(a->pid, tid)) {
		btscap_close(&t->b);
		err = -ESRCH;
	}
	if (err) {
		if (err != -ESRCH) {
			bts_start_error(a->o, tid, err, bad,
					"created after the attach, it runs unrecorded");
			a->refused++;
		}
		if (ptcap_tasks_add(&a->skipped, tid))
			die("out of memory");
		return;
	}
	bts_thread_open(a->o, t);
	a->n++;
	a->late++;
}

/*
 * -p: look at /proc/PID/task again and record the threads not seen yet.
 * Return: whether a thread was found (recorded or not).
 */
static bool bts_attach_scan(struct bts_attach *a)
{
	int err = ptcap_tasks_read(&a->now, "/proc", a->pid);
	size_t i, known;

	if (err == -ENOMEM)
		die("out of memory");
	if (err)
		return false;	/* the process is gone */
	/* An id no longer listed may come back as another thread. */
	ptcap_tasks_sort(&a->now);
	ptcap_tasks_keep(&a->skipped, &a->now);
	/* Every id seen, sorted: n log n a look, for thousands of threads. */
	a->known.n = 0;
	for (i = 0; i < a->n; i++)
		if (ptcap_tasks_add(&a->known, a->t[i].tid))
			die("out of memory");
	for (i = 0; i < a->skipped.n; i++)
		if (ptcap_tasks_add(&a->known, a->skipped.v[i]))
			die("out of memory");
	ptcap_tasks_sort(&a->known);
	known = a->known.n;
	for (i = 0; i < a->now.n; i++)
		if (!ptcap_tasks_has(&a->known, a->now.v[i]))
			bts_attach_late(a, a->now.v[i]);
	return a->n + a->skipped.n > known;
}

/*
 * -p: whether the process has exited (every thread gone: its pidfd is
 * readable). Without a pidfd (a kernel before 5.3): when no recorded
 * thread records any more (@live 0) and the last look found none new.
 */
static bool bts_attach_gone(const struct bts_attach *a, size_t live, bool found)
{
	struct pollfd p = { .fd = a->pidfd, .events = POLLIN };

	if (a->pidfd < 0)
		return !live && !found;
	return poll(&p, 1, 0) > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR));
}

/*
 * The first threads of ptcap --bts -p/-t: those the process has now (or
 * the one thread), each configured (a refusal ends ptcap, with what was
 * started undone; with -p, a thread that exited since the look, ESRCH, is
 * left out, and ptcap ends only if none is left).
 */
static void bts_attach_first(struct bts_attach *a)
{
	const struct opts *o = a->o;
	int err = 0;
	size_t i;

	if (o->tid)
		err = ptcap_tasks_add(&a->now, o->tid);
	else
		err = ptcap_tasks_read(&a->now, "/proc", a->pid);
	if (err == -ENOMEM)
		die("out of memory");
	if (err)
		die("-p %d: /proc/%d/task: %s", (int)a->pid, (int)a->pid, strerror(-err));
	if (!a->now.n)
		die("-p %d: no threads (it exited)", (int)a->pid);
	for (i = 0; i < a->now.n; i++) {
		struct bts_thread *t = bts_attach_slot(a);
		uint32_t bad = 0;

		t->tid = a->now.v[i];
		err = bts_thread_try_start(o, t, true, a->size, &bad);
		if (err == -ESRCH && !o->tid)
			continue;	/* exited since the look */
		if (err) {
			bts_attach_undo(a);
			bts_start_error(o, t->tid, err, bad, NULL);
			exit(PTCAP_EXIT_ERROR);
		}
		a->n++;
	}
	if (!a->n)
		die("-p %d: no threads (it exited)", (int)a->pid);
}

/*
 * ptcap --bts -p PID / -t TID: the threads the process has now (or the
 * one thread) recorded through /dev/bts rings from now until they exit,
 * SIGINT/SIGTERM or -d, as --bts -- CMD records its command (the same
 * directory, `attached` in place of `command`, no bts-start line: the flow
 * starts at each thread's first record). With -p, /proc/PID/task is looked
 * at again every round (at least every PTCAP_POLL_NS): a thread the
 * process created since is recorded from then on (its first branches, up
 * to one round, are missing; `found-late` on its thread.<file> line), and
 * the capture runs until the process has exited (its pidfd: no later
 * process with the same pid is taken for it), even while none of its
 * recorded threads lives. The module's permission checks are /dev/pt's
 * (ptrace read access or CAP_PERFMON: bts.h), for every thread; ptcap
 * does not ptrace.
 */
/*
 * Each recorded thread holds two descriptors (/dev/bts and its trace
 * file): a process with hundreds of threads would meet the usual soft
 * limit of 1024 well before the hard one. Raise the soft limit to the
 * hard one, as a server that expects many connections does; failing
 * that, the threads beyond it are refused with the reason, as before.
 */
static void raise_nofile(void)
{
	struct rlimit r;

	if (!getrlimit(RLIMIT_NOFILE, &r) && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}

static int bts_attach_main(struct opts *o)
{
	struct bts_attach a = {
		.o = o, .pid = attach_target(o), .pidfd = -1,
		.size = o->cfg.buffer_size ? o->cfg.buffer_size : BTSCAP_DEFAULT_SIZE,
	};
	struct maps maps = { 0 };
	struct pollfd *pfd = NULL;
	size_t i, pcap = 0;
	double t0;
	int err;

	raise_nofile();
	bts_attach_first(&a);
	/*
	 * From here on its end is told apart from a new process's. Without
	 * one (ESRCH: gone already; ENOSYS) bts_attach_gone() falls back.
	 */
	if (!o->tid) {
		err = ptcap_pidfd_open(a.pid);
		a.pidfd = err >= 0 ? err : -1;
	}
	err = maps_read(a.pid, &maps);
	if (err) {
		bts_attach_undo(&a);
		die("/proc/%d/maps: %s", (int)a.pid, strerror(-err));
	}
	outdir_prepare(o);
	save_vdso(a.pid, o->dir, &maps);
	for (i = 0; i < a.n; i++)
		bts_thread_open(o, &a.t[i]);
	t0 = now_s();
	while (!stop_req && !(o->duration > 0 && now_s() - t0 >= o->duration)) {
		struct timespec ts = { 0, PTCAP_POLL_NS };
		bool found = !o->tid && bts_attach_scan(&a);
		size_t live = 0, np = 0;

		if (pcap < a.n + 1) {
			free(pfd);
			pcap = a.cap + 1;
			pfd = malloc(pcap * sizeof(*pfd));
			if (!pfd)
				die("out of memory");
		}
		/* After its end POLLHUP stays: not polled. */
		for (i = 0; i < a.n; i++) {
			if (a.t[i].recording && bts_thread_drain(o, &a.t[i])) {
				pfd[np].fd = a.t[i].b.fd;
				pfd[np++].events = POLLIN;
			}
		}
		live = np;
		if (o->tid ? !live : bts_attach_gone(&a, live, found))
			break;	/* the thread, or the process, has exited */
		if (a.pidfd >= 0) {
			pfd[np].fd = a.pidfd;
			pfd[np++].events = POLLIN;
		}
		if (ppoll(pfd, np, &ts, NULL) < 0 && errno != EINTR)
			die("poll: %s", strerror(errno));
	}
	maps_read(a.pid, &maps);	/* what it mapped since, if it is still there */
	for (i = 0; i < a.n; i++)
		bts_thread_finish(o, &a.t[i], true);
	err = bts_finish(o, &maps, a.pid, a.t, a.n, true, a.size, 0);
	if (a.late)
		fprintf(stderr, "ptcap: %" PRIu64 " thread(s) created after the attach were "
			"recorded from when ptcap found them\n", a.late);
	if (a.refused) {
		fprintf(stderr, "ptcap: %" PRIu64 " thread(s) created after the attach ran "
			"unrecorded (see above)\n", a.refused);
		if (err == PTCAP_EXIT_OK)	/* a worse status stays */
			err = PTCAP_EXIT_LOSSES;
	}
	if (a.pidfd >= 0)
		close(a.pidfd);
	ptcap_tasks_free(&a.now);
	ptcap_tasks_free(&a.skipped);
	ptcap_tasks_free(&a.known);
	free(a.t);
	free(pfd);
	return err;
}

/*
 * ptcap --bts -a [-C LIST]: every thread's branches on each CPU through
 * /dev/bts's per-CPU captures (LWPT_BTS_IOC_CONFIGURE_CPU, ABI 1.7) until
 * SIGINT or -d, into DIR/cpu<N>.bts, DIR/switches (the module's switch
 * records, the byte position in cpu<N>.bts in place of the TSC, the TSC in
 * a word tsc=<decimal> where the module gives it: ABI 1.10),
 * DIR/processes and maps.<pid>.<gen> (ptcap-format.rst "Per-CPU BTS
 * captures"). A per-CPU buffer is linear: once full, that CPU's recording
 * stops there (a loss, said).
 */
#define PTCAP_BTS_SWITCH_BATCH	512

struct bts_cpu {
	unsigned int cpu;
	struct btscap b;
	struct lwpt_bts_status st;
	uint64_t switches, lost;
	int sw_err;		/* READ_SWITCHES failed: no more read */
	int64_t saved;
};

/* The CPUs of ptcap --bts -a: -C's, or every online CPU. */
static unsigned int bts_cpus(struct opts *o, unsigned int **out)
{
	char online[4096], why[512];
	unsigned int *v, n = 0, c;
	ssize_t len;
	int fd, cpu;

	fd = open(PTCAP_CPUSEL_ONLINE, O_RDONLY | O_CLOEXEC);
	len = fd >= 0 ? read(fd, online, sizeof(online) - 1) : -1;
	if (fd >= 0)
		close(fd);
	if (len <= 0)
		die("%s: cannot read the online CPUs", PTCAP_CPUSEL_ONLINE);
	online[len] = '\0';
	if (!o->cpu_list) {
		char list[sizeof(online)];

		snprintf(list, sizeof(list), "%.*s", (int)strcspn(online, "\n"), online);
		if (ptcap_cpusel_parse(&o->cpus, list, PTCAP_CPUSEL_WORDS * 64, why,
				       sizeof(why)))
			die("%s: %s", PTCAP_CPUSEL_ONLINE, why);
	} else {
		cpu = ptcap_cpusel_offline(&o->cpus, online);
		if (cpu >= 0)
			die("-C %s: CPU %d is offline (online: %.*s): bring it online "
			    "(/sys/devices/system/cpu/cpu%d/online) or leave it out",
			    o->cpu_list, cpu, (int)strcspn(online, "\n"), online, cpu);
	}
	v = calloc(o->cpus.count ? o->cpus.count : 1, sizeof(*v));
	if (!v)
		die("out of memory");
	for (c = 0; c < PTCAP_CPUSEL_WORDS * 64; c++)
		if (o->cpus.mask[c / 64] & (1ull << (c % 64)))
			v[n++] = c;
	*out = v;
	return n;
}

/*
 * Take every switch record of every CPU since the last call into @f (the
 * switches file; the buffer position in the TSC column, the TSC, where the
 * capture has it, in a last word tsc=<decimal>) and note the processes
 * named (procs.h).
 */
static void bts_drain_switches(struct bts_cpu *bc, unsigned int n, FILE *f, const char *dir,
			       struct ptcap_procs *procs)
{
	static struct lwpt_bts_switch_tsc recs[PTCAP_BTS_SWITCH_BATCH];
	char line[LPT_SWITCH_LINE_MAX];
	unsigned int i;
	int k, got;

	ptcap_procs_round(procs);
	for (i = 0; i < n; i++) {
		uint32_t pending = 0;

		do {
			if (bc[i].sw_err)
				break;
			got = btscap_read_switches(&bc[i].b, recs, PTCAP_BTS_SWITCH_BATCH,
						   &bc[i].lost, &pending);
			if (got < 0) {
				/* Keep what was captured: the records are saved. */
				bc[i].sw_err = got;
				fprintf(stderr, "ptcap: warning: %s/switches: CPU %u: %s: no more "
					"switches of that CPU (its records after the last one "
					"are taken for that switch's next thread)\n", dir,
					bc[i].cpu, strerror(-got));
				break;
			}
			for (k = 0; k < got; k++) {
				struct lwpt_pt_switch sw = {
					.tsc = recs[k].sw.head,	/* the position: BTS has no time */
					.cpu = recs[k].sw.cpu,
					.flags = recs[k].sw.flags, /* the same bits (bts.h) */
					.prev_pid = recs[k].sw.prev_pid,
					.prev_tid = recs[k].sw.prev_tid,
					.next_pid = recs[k].sw.next_pid,
					.next_tid = recs[k].sw.next_tid,
				};
				size_t len;

				if (lpt_switch_format(line, sizeof(line), &sw) < 0)
					die("%s/switches: record too long", dir);
				len = strcspn(line, "\n");
				if (bc[i].b.switch_tsc)
					fprintf(f, "%.*s tsc=%llu\n", (int)len, line,
						(unsigned long long)recs[k].tsc);
				else
					fputs(line, f);
				if ((!(sw.flags & (LWPT_BTS_SW_PREV_IDLE | LWPT_BTS_SW_PREV_KTHREAD)) &&
				     ptcap_procs_note(procs, sw.prev_pid, __rdtsc())) ||
				    (!(sw.flags & (LWPT_BTS_SW_NEXT_IDLE | LWPT_BTS_SW_NEXT_KTHREAD)) &&
				     ptcap_procs_note(procs, sw.next_pid, __rdtsc())))
					die("out of memory");
			}
			bc[i].switches += (uint64_t)got;
		} while (got > 0 && pending);
	}
	fflush(f);
}

static int bts_cpu_main(struct opts *o)
{
	uint64_t size = o->cfg.buffer_size ? o->cfg.buffer_size : BTSCAP_DEFAULT_SIZE;
	struct ptcap_procs *procs;
	struct maps none = { 0 };
	struct bts_cpu *bc;
	unsigned int *cpus, n, i, full = 0, untimed = 0;
	uint64_t lost = 0;
	double t0;
	FILE *sw, *f;
	int err;

	n = bts_cpus(o, &cpus);
	bc = calloc(n ? n : 1, sizeof(*bc));
	if (!bc || !n)
		die(n ? "out of memory" : "no CPU to record");
	/* Every CPU configured before anything is written. */
	for (i = 0; i < n; i++) {
		uint32_t bad;

		bc[i].cpu = cpus[i];
		err = btscap_start_cpu(&bc[i].b, o->dev, cpus[i], o->user, o->kernel, true, size,
				       &bad);
		if (!err) {
			untimed += !bc[i].b.switch_tsc;
			continue;
		}
		if (err == -EPERM)
			die("%s: CPU %u: %s: ptcap --bts -a records every thread on a CPU, "
			    "which needs CAP_PERFMON (as perf record -a; Documentation/bts.rst "
			    "\"Per-CPU captures\"); without it, record one command with "
			    "ptcap --bts -- COMMAND", o->dev ? o->dev : BTSCAP_DEV_PATH, cpus[i],
			    strerror(-err));
		if (err == -ENOENT || err == -ENODEV || err == -ENXIO)
			die("%s: %s: is the lwpt module (lwpt.ko or lwpt_sim.ko) loaded?",
			    o->dev ? o->dev : BTSCAP_DEV_PATH, strerror(-err));
		if (err == -ENOTTY)
			die("%s: this module has no per-CPU BTS captures (ABI 1.7): load a "
			    "newer lwpt module", o->dev ? o->dev : BTSCAP_DEV_PATH);
		die("%s: CPU %u: configure: %s%s%s", o->dev ? o->dev : BTSCAP_DEV_PATH, cpus[i],
		    strerror(-err), bad == LWPT_BTS_FIELD_BUFFER_SIZE ?
		    " (--size: a page multiple, 4 KiB to 64 MiB)" : "",
		    err == -EBUSY ? " (another BTS capture, /dev/pt or perf holds the CPU or "
		    "a thread: the kernel log names perf)" : "");
	}
	outdir_prepare(o);
	procs = ptcap_procs_alloc();
	if (!procs)
		die("out of memory");
	if (untimed)
		fprintf(stderr, "ptcap: warning: %s: the module gives no time of the context "
			"switches (ABI 1.10's LWPT_BTS_CFG_SWITCH_TSC): ptflow cannot order "
			"the pieces of a thread that ran on several CPUs\n",
			o->dev ? o->dev : BTSCAP_DEV_PATH);
	sw = out_open(o->dir, "switches");
	fprintf(sw, LPT_SWITCHES_MAGIC "\n");
	fprintf(sw, "# head cpu prev-pid/tid next-pid/tid [flags] [tsc=<tsc>]: context switches,\n"
		    "# each CPU's in order; head: the byte position in cpu<cpu>.bts (BTS records\n"
		    "# carry no time); tsc: the TSC at the switch (orders the CPUs' switches)\n");
	t0 = now_s();
	while (!stop_req && !(o->duration > 0 && now_s() - t0 >= o->duration)) {
		struct timespec ts = { 0, PTCAP_POLL_NS };

		bts_drain_switches(bc, n, sw, o->dir, procs);
		nanosleep(&ts, NULL);
	}
	for (i = 0; i < n; i++) {
		err = btscap_stop(&bc[i].b, &bc[i].st);
		if (err)
			die("%s: CPU %u: status: %s", o->dev ? o->dev : BTSCAP_DEV_PATH,
			    bc[i].cpu, strerror(-err));
	}
	/* After STOP no switch comes: the rest of every ring. */
	bts_drain_switches(bc, n, sw, o->dir, procs);
	out_close(sw, o->dir, "switches");
	for (i = 0; i < n; i++) {
		char name[64], path[4096 + 64];

		snprintf(name, sizeof(name), "cpu%u%s", bc[i].cpu, PTCAP_BTS_SUFFIX);
		snprintf(path, sizeof(path), "%s/%s", o->dir, name);
		bc[i].saved = btscap_save(&bc[i].b, bc[i].st.head, path);
		if (bc[i].saved < 0)
			die("%s: %s", path, strerror((int)-bc[i].saved));
		btscap_close(&bc[i].b);
		full += !!(bc[i].st.flags & (LWPT_BTS_ST_FULL | LWPT_BTS_ST_DS_TAKEN));
		lost += bc[i].lost + !!bc[i].sw_err;
	}
	write_maps(o->dir, &none, 0, false);
	write_processes(procs, o->dir);

	f = bts_config_open(o, true, size);
	for (i = 0; i < n; i++) {
		fprintf(f, "bts-status.cpu%u%s%s%s%s records=%" PRId64 "\n", bc[i].cpu,
			PTCAP_BTS_SUFFIX, bc[i].st.flags & LWPT_BTS_ST_FULL ? " full" : "",
			bc[i].st.flags & LWPT_BTS_ST_EXITED ? " exited" : "",
			bc[i].st.flags & LWPT_BTS_ST_DS_TAKEN ? " ds-taken" : "",
			bc[i].saved / (int64_t)sizeof(struct lwpt_bts_record));
		fprintf(f, "switches.cpu%u%s count=%" PRIu64 " lost=%" PRIu64 "\n", bc[i].cpu,
			PTCAP_BTS_SUFFIX, bc[i].switches, bc[i].lost);
	}
	out_close(f, o->dir, "config");
	for (i = 0; i < n; i++) {
		if (bc[i].st.flags & LWPT_BTS_ST_FULL)
			fprintf(stderr, "ptcap: CPU %u: the BTS buffer filled (%" PRIu64 " bytes): "
				"recording stopped there; --size raises it\n", bc[i].cpu, size);
		if (bc[i].st.flags & LWPT_BTS_ST_DS_TAKEN)
			fprintf(stderr, "ptcap: CPU %u: perf took IA32_DS_AREA during the capture: "
				"recording stopped there; end perf's events first\n", bc[i].cpu);
	}
	if (lost)
		fprintf(stderr, "ptcap: %" PRIu64 " context switch(es) dropped by the module "
			"(its ring was full): the threads around them cannot be told apart\n",
			lost);
	free(bc);
	free(cpus);
	if (full || lost) {
		fprintf(stderr, "ptcap: captured with data lost: exit status %d\n",
			PTCAP_EXIT_LOSSES);
		return PTCAP_EXIT_LOSSES;
	}
	return PTCAP_EXIT_OK;
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
	struct ptcap_procs *procs = NULL;
	pid_t child = 0, target = 0;
	int err, cstat = 0;
	uint64_t losses, snap_losses = 0;
	unsigned int nsnap = 0;
	double t0, tlast;
	struct sigaction sa;
	sigset_t sleep_mask, orig_mask;

	memset(&o, 0, sizeof(o));
	parse_args(&o, argc, argv);
	outdir_refuse(&o);
	if (o.bts) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_signal;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		if (o.all)
			return bts_cpu_main(&o);
		return o.argv ? bts_main(&o) : bts_attach_main(&o);
	}
	if (o.pid || o.tid)
		target = attach_target(&o);
	else if (o.all && o.symbolic)
		resolve_ranges(&o, &o.cfg, 0, NULL, LWPT_PT_ADDR_RANGES, false);

	err = lpt_dev_open(o.dev, &dev);
	if (err && !o.dev && (err == -ENOENT || err == -ENODEV || err == -ENXIO))
		die("%s", lpt_dev_strerror(err));
	if (err)
		die("%s: %s", o.dev ? o.dev : LPT_DEV_PATH, lpt_dev_strerror(err));
	if (o.cpu_list)
		select_cpus(&o, dev);
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
		fit_default_size(&o, dev, &cfg, target);
	}
	/*
	 * Validate before anything runs (the command is started only after):
	 * its pid, which --cr3 and per-thread capture need, stands in as ours.
	 */
	if (o.nspec > lpt_dev_caps(dev)->nr_ranges)
		die("--filter/--stop: %u address range(s) asked, this processor has %u "
		    "(CPUID.(EAX=14H,ECX=1):EAX[2:0])", o.nspec, lpt_dev_caps(dev)->nr_ranges);
	if (o.argv || target)
		cfg.pid = getpid();
	err = lpt_cap_config_check(&cfg, lpt_dev_caps(dev), &bad);
	cfg.pid = 0;
	if (err)
		die("invalid configuration: %s: %s", lpt_cap_field_name(bad),
		    lpt_dev_strerror(err));

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (o.snapshot) {
		sa.sa_handler = on_usr2;
		sigaction(SIGUSR2, &sa, NULL);
	}
	if (o.npids > 1)
		return attach_many(&o, &cfg, dev);

	if (o.argv) {
		/* PTRACE_O_EXITKILL: an error below ends the command too. */
		child = spawn_stopped(o.argv);
		err = maps_read(child, &maps);
		if (err)
			die("/proc/%d/maps: %s", (int)child, strerror(-err));
		/*
		 * Symbolic ranges with the command's load addresses; a library
		 * is mapped only once ld.so ran: then trace from the entry point.
		 */
		if (o.symbolic && resolve_ranges(&o, &cfg, child, &maps,
						 lpt_dev_caps(dev)->nr_ranges, true)) {
			run_to_entry(child);
			maps_read(child, &maps);
			resolve_ranges(&o, &cfg, child, &maps, lpt_dev_caps(dev)->nr_ranges, false);
			fprintf(stderr, "ptcap: a filter names a library: tracing starts at the "
				"program's entry point\n");
		}
		/* Everything is accepted: only now touch the output directory. */
		outdir_prepare(&o);
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
			if (!o.mode_given)
				cfg.mode = LWPT_PT_MODE_WRAP;	/* a CPU cannot wait */
			if (!(cfg.flags & LWPT_PT_CFG_CR3_FILTER))
				cfg.pid = 0;
			err = lpt_dev_configure(dev, &cfg, &bad);
		} else if (!err) {
			per_thread = cfg.scope == LWPT_PT_SCOPE_THREAD;
		}
	} else if (target) {
		/* The module's thread scope follows every thread of @pid. */
		err = maps_read(target, &maps);
		if (err)
			die("/proc/%d/maps: %s (ptcap attaches where ptrace may: the same "
			    "user and ptrace_scope, or CAP_SYS_PTRACE)", (int)target, strerror(-err));
		if (o.symbolic)
			resolve_ranges(&o, &cfg, target, &maps, lpt_dev_caps(dev)->nr_ranges,
				       false);
		outdir_prepare(&o);
		save_vdso(target, o.dir, &maps);
		cfg.pid = target;
		cfg.scope = (cfg.flags & LWPT_PT_CFG_CR3_FILTER) ? LWPT_PT_SCOPE_CPU :
								   LWPT_PT_SCOPE_THREAD;
		err = lpt_dev_configure(dev, &cfg, &bad);
		if (err == -EOPNOTSUPP && bad == LWPT_PT_FIELD_SCOPE)
			die("-%c: this module has no per-thread capture: attach with --cr3 "
			    "(per CPU, filtered by the process's CR3) or trace with -a",
			    o.tid ? 't' : 'p');
		per_thread = !err && cfg.scope == LWPT_PT_SCOPE_THREAD;
	} else {
		outdir_prepare(&o);
		err = lpt_dev_configure(dev, &cfg, &bad);
		/* -a: every process that runs (issue 15 point 5, procs.h). */
		procs = ptcap_procs_alloc();
		if (!procs)
			die("out of memory");
	}
	if (err) {
		if (child)
			kill(child, SIGKILL);
		if (lpt_dev_refusal(dev))
			die("configure: %s", lpt_dev_refusal(dev));
		if (err == -EBUSY && lpt_dev_busy_holder(dev))
			die("configure: busy: process %d holds the capture of %s",
			    (int)lpt_dev_busy_holder(dev), o.dev ? o.dev : LPT_DEV_PATH);
		if (bad != LWPT_PT_FIELD_NONE)
			die("configure: %s: %s", lpt_cap_field_name(bad), lpt_dev_strerror(err));
		die("configure: %s", lpt_dev_strerror(err));
	}

	tf = NULL;
	ntf = sync_files(dev, &tf, 0, per_thread, o.tid, o.dir);
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
	/*
	 * The command stops at every signal it gets (ptrace, kept for its
	 * exit event): it is continued as soon as SIGCHLD says so, not at the
	 * next poll. Waiting for the poll let a command that takes a timer
	 * signal every 20 ms or more often (ITIMER_REAL) spend all its time
	 * stopped, a new signal pending whenever it was continued: it never
	 * got to run (issue 39). SIGCHLD is blocked but in the sleep, so
	 * none comes between the check and the sleep unnoticed.
	 */
	chld_block(&sleep_mask, &orig_mask);
	if (child && ptrace(PTRACE_CONT, child, NULL, NULL))
		die("ptrace(CONT): %s", strerror(errno));

	for (;;) {
		struct timespec ts = { 0, PTCAP_POLL_NS };
		double t;

		if (child) {
			int st;
			pid_t w;

			/* Every stop since the last look (one per signal). */
			while ((w = waitpid(child, &st, WNOHANG)) == child &&
			       WIFSTOPPED(st))
				child_stop_cont(child, st, &maps);
			if (w == child) {
				if (WIFEXITED(st) || WIFSIGNALED(st)) {
					cstat = st;
					child = -child;	/* gone; keep the pid for names */
					break;
				}
			}
			if (stop_req) {
				/* Pass the interrupt on; the loop ends when it exits. */
				kill(child, SIGINT);
				stop_req = 0;
			}
		} else if (stop_req) {
			break;	/* -a, -p, -t: stop, save, detach */
		} else if (target && target_gone(&o)) {
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
			ntf = sync_files(dev, &tf, ntf, per_thread, o.tid, o.dir);
			drain(dev, tf, ntf, o.dir);
			if (per_thread)
				free_ended(dev, tf, ntf, o.dir);
		}
		if (snap_req) {
			snap_req = 0;
			snap_losses += snapshot(&o, &cfg, dev, &tf, &ntf, per_thread, &sw, &maps,
						target ? target : child, ++nsnap);
		}
		/* Sideband does not touch TraceEn: drained in every mode. */
		if (sw && !drain_switches(dev, tf, ntf, sw, o.dir, procs))
			switches_drop(&sw, o.dir);
		if (t - tlast >= 1.0) {
			progress(&o, t0, tf, ntf, false);
			tlast = t;
		}
		ppoll(NULL, 0, &ts, &sleep_mask);
	}
	sigprocmask(SIG_SETMASK, &orig_mask, NULL);

	err = lpt_dev_stop(dev);
	if (err)
		die("stop: %s", lpt_dev_strerror(err));
	/* Threads that joined (and maybe exited) while the command ran. */
	ntf = sync_files(dev, &tf, ntf, per_thread, o.tid, o.dir);
	drain(dev, tf, ntf, o.dir);
	if (sw && !drain_switches(dev, tf, ntf, sw, o.dir, procs))
		switches_drop(&sw, o.dir);
	for (i = 0; i < ntf; i++) {
		tf[i].switches_lost += tf[i].switches_lost_before;
		if (tf[i].freed)
			continue;	/* final status kept (free_ended()) */
		tf[i].have_st = !lpt_dev_status(dev, (unsigned int)tf[i].cpu, &tf[i].st);
		if (per_thread)
			lpt_dev_buffer_info(dev, (unsigned int)tf[i].cpu, &tf[i].info);
		if (tf[i].f)
			out_close(tf[i].f, o.dir, tf[i].name);
	}
	/* The capture's counts of lost and refused threads, as they end. */
	if (per_thread && ntf) {
		struct lpt_buf_info li;

		memset(&li, 0, sizeof(li));
		li.size = sizeof(li);
		if (!lpt_dev_buffer_info(dev, 0, &li)) {
			tf[ntf - 1].info.threads_lost = li.threads_lost;
			tf[ntf - 1].info.threads_refused = li.threads_refused;
		}
	}
	ntf = keep_saved(tf, ntf);
	if (target && !target_gone(&o))
		maps_read(target, &maps);	/* libraries loaded meanwhile */
	have_switches = sw != NULL;
	if (sw)
		out_close(sw, o.dir, "switches");
	progress(&o, t0, tf, ntf, true);
	losses = outcomes(&cfg, dev, tf, ntf, o.dir) + snap_losses;
	mark_gaps(tf, ntf, o.dir);
	write_maps(o.dir, &maps, target ? target : child < 0 ? -child : child, target != 0);
	if (procs)
		write_processes(procs, o.dir);
	write_config(&o, &cfg, dev, tf, ntf, per_thread, have_switches, losses,
		     o.argv ? &cstat : NULL, target);
	if (o.snapshot)
		config_append(o.dir, "snapshots %u\n", nsnap);
	lpt_dev_close(dev);
	for (i = 0; i < maps.n; i++)
		free(maps.v[i].path);
	free(maps.v);
	for (i = 0; i < ntf; i++)
		free(tf[i].gaps);
	free(tf);

	/* The command's status is in config (command-status), not ours. */
	if (o.argv && WIFSIGNALED(cstat))
		fprintf(stderr, "ptcap: %s: killed by signal %d\n", o.argv[0], WTERMSIG(cstat));
	else if (o.argv && WEXITSTATUS(cstat))
		fprintf(stderr, "ptcap: %s: exited with status %d\n", o.argv[0],
			WEXITSTATUS(cstat));
	if (losses) {
		fprintf(stderr, "ptcap: captured with data lost (%" PRIu64 " loss(es)): exit status %d\n",
			losses, PTCAP_EXIT_LOSSES);
		return PTCAP_EXIT_LOSSES;
	}
	return PTCAP_EXIT_OK;
}
