// SPDX-License-Identifier: GPL-2.0
/*
 * bench_pt_pkt: raw Intel PT packet decoding speed of libpt's decoder
 * against libipt's pt_pkt_decoder, on the same real traces in the same run.
 *
 *   build/bench/bench_pt_pkt [-r ROUNDS] [-t SECONDS] [FILE.pt ...]
 *
 * Without files it decodes every ../shared/testdata/pt/real/ * / *.pt
 * ($LWPT_SHARED overrides ../shared). Each decoder decodes every file from
 * its first PSB to its end (resynchronising after errors), repeatedly for
 * at least SECONDS (default 0.5) per round; the best of ROUNDS (default 5)
 * rounds is reported. Prints MB/s, million packets/s and the ratio to
 * libipt. Times are thread CPU time (robust on a shared machine).
 * A benchmark, not a test: it prints figures and never fails on
 * speed.
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <intel-pt.h>

#include <lwpt/pt_pkt.h>

struct trace {
	uint8_t *buf;
	size_t len;
};

static struct trace *traces;
static int ntraces;
static size_t total_bytes;

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int load(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;
	uint8_t *buf;
	struct trace *grown;

	if (!f) {
		perror(path);
		return -1;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	buf = malloc(n > 0 ? (size_t)n : 1);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		free(buf);
		return -1;
	}
	fclose(f);
	grown = realloc(traces, sizeof(*traces) * (size_t)(ntraces + 1));
	if (!grown) {
		free(buf);
		return -1;
	}
	traces = grown;
	traces[ntraces].buf = buf;
	traces[ntraces].len = (size_t)n;
	ntraces++;
	total_bytes += (size_t)n;
	return 0;
}

/* ../shared relative to the repository root (found from our binary). */
static int shared_dir(char *dir, size_t size)
{
	const char *env = getenv("LWPT_SHARED");
	char path[4096];
	struct stat st;
	ssize_t n;
	int up;

	if (env && *env) {
		snprintf(dir, size, "%s", env);
		return 1;
	}
	n = readlink("/proc/self/exe", path, sizeof(path) - 1);
	if (n <= 0)
		return 0;
	path[n] = 0;
	for (up = 0; up < 5; up++) {
		char probe[4200];
		char *slash = strrchr(path, '/');

		if (!slash || slash == path)
			return 0;
		*slash = 0;
		snprintf(probe, sizeof(probe), "%s/include/lwpt/pt_pkt.h", path);
		if (stat(probe, &st) == 0) {
			snprintf(dir, size, "%.4000s/../shared", path);
			return 1;
		}
	}
	return 0;
}

/* Decode all traces once; returns packets, adds a checksum to *sum. */
static long run_lpt_next(uint64_t *sum)
{
	long pkts = 0;
	int i;

	for (i = 0; i < ntraces; i++) {
		struct lpt_pkt_decoder *d;
		struct lpt_packet p;
		int ret;

		d = lpt_pkt_alloc(traces[i].buf, traces[i].len, NULL);
		ret = lpt_pkt_sync_forward(d);
		while (ret >= 0) {
			ret = lpt_pkt_next(d, &p);
			if (ret > 0) {
				pkts++;
				*sum += p.type;
				continue;
			}
			if (ret == LPT_ERR_EOS)
				break;
			ret = lpt_pkt_sync_forward(d);
		}
		lpt_pkt_free(d);
	}
	return pkts;
}

static long run_lpt_batch(uint64_t *sum)
{
	struct lpt_packet p[256];
	long pkts = 0;
	int i, k;

	for (i = 0; i < ntraces; i++) {
		struct lpt_pkt_decoder *d;
		int ret;

		d = lpt_pkt_alloc(traces[i].buf, traces[i].len, NULL);
		ret = lpt_pkt_sync_forward(d);
		while (ret >= 0) {
			ret = lpt_pkt_next_batch(d, p, 256);
			if (ret > 0) {
				pkts += ret;
				for (k = 0; k < ret; k++)
					*sum += p[k].type;
				continue;
			}
			if (ret == LPT_ERR_EOS)
				break;
			ret = lpt_pkt_sync_forward(d);
		}
		lpt_pkt_free(d);
	}
	return pkts;
}

static long run_libipt(uint64_t *sum)
{
	long pkts = 0;
	int i;

	for (i = 0; i < ntraces; i++) {
		struct pt_packet_decoder *d;
		struct pt_config cfg;
		struct pt_packet p;
		int ret;

		pt_config_init(&cfg);
		cfg.begin = traces[i].buf;
		cfg.end = traces[i].buf + traces[i].len;
		d = pt_pkt_alloc_decoder(&cfg);
		ret = pt_pkt_sync_forward(d);
		while (ret >= 0) {
			ret = pt_pkt_next(d, &p, sizeof(p));
			if (ret > 0) {
				pkts++;
				*sum += p.type;
				continue;
			}
			if (ret == -pte_eos)
				break;
			ret = pt_pkt_sync_forward(d);
		}
		pt_pkt_free_decoder(d);
	}
	return pkts;
}

struct result {
	const char *name;
	long (*run)(uint64_t *sum);
	double best;		/* seconds per pass */
	long pkts;
};

int main(int argc, char **argv)
{
	struct result res[] = {
		{ "libipt pt_pkt_next", run_libipt, 1e9, 0 },
		{ "libpt lpt_pkt_next", run_lpt_next, 1e9, 0 },
		{ "libpt lpt_pkt_next_batch", run_lpt_batch, 1e9, 0 },
	};
	const int nres = sizeof(res) / sizeof(res[0]);
	double min_time = 0.5;
	int rounds = 5, opt, r, k;
	uint64_t sum = 0;

	while ((opt = getopt(argc, argv, "r:t:")) != -1) {
		switch (opt) {
		case 'r':
			rounds = atoi(optarg);
			break;
		case 't':
			min_time = atof(optarg);
			break;
		default:
			fprintf(stderr, "usage: %s [-r ROUNDS] [-t SECONDS] "
				"[FILE.pt ...]\n", argv[0]);
			return 2;
		}
	}
	for (k = optind; k < argc; k++)
		if (load(argv[k]) < 0)
			return 1;
	if (!ntraces) {
		char dir[4200], pat[8400];
		glob_t g;
		size_t i;

		if (!shared_dir(dir, sizeof(dir))) {
			printf("bench_pt_pkt: SKIP: no shared test data\n");
			return 0;
		}
		snprintf(pat, sizeof(pat), "%s/testdata/pt/real/*/*.pt", dir);
		if (glob(pat, 0, NULL, &g) != 0) {
			printf("bench_pt_pkt: SKIP: no traces match %s\n", pat);
			return 0;
		}
		for (i = 0; i < g.gl_pathc; i++)
			if (load(g.gl_pathv[i]) < 0)
				return 1;
		globfree(&g);
	}

	/* Interleave decoders within each round so machine noise hits all. */
	for (r = 0; r < rounds; r++) {
		for (k = 0; k < nres; k++) {
			double t0 = now(), t;
			long passes = 0, pkts = 0;

			do {
				pkts = res[k].run(&sum);
				passes++;
				t = now() - t0;
			} while (t < min_time);
			if (t / (double)passes < res[k].best)
				res[k].best = t / (double)passes;
			res[k].pkts = pkts;
		}
	}

	printf("PT packet decoding: %d traces, %zu bytes, best of %d rounds "
	       "of >= %.2f s\n", ntraces, total_bytes, rounds, min_time);
	for (k = 0; k < nres; k++) {
		double mbs = (double)total_bytes / res[k].best / 1e6;
		double mps = (double)res[k].pkts / res[k].best / 1e6;

		printf("  %-26s %9ld packets  %8.1f MB/s  %7.2f Mpackets/s  "
		       "x%.2f vs libipt\n", res[k].name, res[k].pkts, mbs, mps,
		       res[0].best / res[k].best);
	}
	if (res[0].pkts != res[1].pkts)
		printf("  note: packet counts differ (libipt 2.0 lacks some "
		       "packet types)\n");
	fprintf(stderr, "(checksum %llu)\n", (unsigned long long)sum);
	return 0;
}
