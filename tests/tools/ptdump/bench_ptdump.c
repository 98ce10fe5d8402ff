// SPDX-License-Identifier: GPL-2.0
/*
 * bench_ptdump: text output speed of ptdump on the real hardware traces.
 *
 * Runs $O/bin/ptdump (found next to this program: ../bin/ptdump) on every
 * *.pt under $LWPT_SHARED/testdata/pt/real (or ../shared),
 * default and --raw, with stdout to /dev/null, best of REPS runs each, and
 * prints trace MB/s and packets/s. Each trace is first repeated into a
 * temporary file of at least 16 MiB (every trace starts with a PSB, so the
 * copies decode as one stream) so that process start-up does not count.
 * The packet count comes from `ptdump --stats`. Prints figures only; it
 * never fails on speed.
 *
 * Usage: bench_ptdump [ptdump] [reps]
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Run @ptdump [@opt] @trace with stdout to @outfd; return exit status. */
static int run(const char *ptdump, const char *opt, const char *trace,
	       int outfd)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		return -1;
	if (!pid) {
		dup2(outfd, STDOUT_FILENO);
		if (opt)
			execl(ptdump, ptdump, opt, trace, (char *)NULL);
		else
			execl(ptdump, ptdump, trace, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Packets in @trace, from the "packets:" line of ptdump --stats. */
static unsigned long long count_packets(const char *ptdump, const char *trace)
{
	char tmpl[] = "/tmp/bench_ptdump.XXXXXX";
	unsigned long long n = 0;
	char line[256];
	FILE *f;
	int fd = mkstemp(tmpl);

	if (fd < 0)
		return 0;
	unlink(tmpl);
	if (run(ptdump, "--stats", trace, fd) == 0) {
		lseek(fd, 0, SEEK_SET);
		f = fdopen(fd, "r");
		while (f && fgets(line, sizeof(line), f))
			if (sscanf(line, "packets: %llu", &n) == 1)
				break;
		if (f)
			fclose(f);
		return n;
	}
	close(fd);
	return 0;
}

#define BIG_MIN	(16 << 20)

/* Write @path (@size bytes) repeated to at least BIG_MIN bytes. */
static int make_big(const char *path, off_t size, char *name, size_t nsize,
		    off_t *big_size)
{
	char *data;
	int in, out;
	off_t done = 0;

	if (size <= 0)
		return -1;
	data = malloc((size_t)size);
	in = open(path, O_RDONLY);
	if (!data || in < 0 || read(in, data, (size_t)size) != size) {
		free(data);
		if (in >= 0)
			close(in);
		return -1;
	}
	close(in);
	snprintf(name, nsize, "/tmp/bench_ptdump_big.XXXXXX");
	out = mkstemp(name);
	if (out < 0) {
		free(data);
		return -1;
	}
	while (done < BIG_MIN) {
		if (write(out, data, (size_t)size) != size) {
			close(out);
			unlink(name);
			free(data);
			return -1;
		}
		done += size;
	}
	close(out);
	free(data);
	*big_size = done;
	return 0;
}

static const char *find_real(char *buf, size_t size)
{
	const char *env = getenv("LWPT_SHARED");
	const char *cands[] = { env, "../shared" };
	size_t i;

	for (i = 0; i < sizeof(cands) / sizeof(cands[0]); i++) {
		struct stat st;

		if (!cands[i])
			continue;
		snprintf(buf, size, "%s/testdata/pt/real", cands[i]);
		if (!stat(buf, &st) && S_ISDIR(st.st_mode))
			return buf;
	}
	return NULL;
}

static void bench_dir(const char *dir, const char *ptdump, int reps,
		      int devnull, double *tot_bytes, double *tot_time)
{
	struct dirent *e;
	DIR *d = opendir(dir);

	if (!d)
		return;
	while ((e = readdir(d))) {
		char path[PATH_MAX];
		const char *modes[] = { NULL, "--raw" };
		struct stat st;
		size_t len = strlen(e->d_name);
		unsigned long long pkts;
		char big[64];
		off_t big_size;
		int m;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (stat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode)) {
			bench_dir(path, ptdump, reps, devnull, tot_bytes,
				  tot_time);
			continue;
		}
		if (len < 4 || strcmp(e->d_name + len - 3, ".pt"))
			continue;

		if (make_big(path, st.st_size, big, sizeof(big), &big_size))
			continue;
		pkts = count_packets(ptdump, big);
		for (m = 0; m < 2; m++) {
			double best = 1e30;
			int r;

			for (r = 0; r < reps; r++) {
				double t0 = now(), t;

				if (run(ptdump, modes[m], big, devnull) != 0)
					break;
				t = now() - t0;
				if (t < best)
					best = t;
			}
			printf("%-42s %-4s %9lld B %9llu pkts %8.1f MB/s %7.2f Mpkt/s\n",
			       e->d_name, m ? "raw" : "text",
			       (long long)big_size, pkts,
			       (double)big_size / best / 1e6,
			       (double)pkts / best / 1e6);
			*tot_bytes += (double)big_size;
			*tot_time += best;
		}
		unlink(big);
	}
	closedir(d);
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], ptdump[PATH_MAX + 16], real[PATH_MAX];
	double bytes = 0, secs = 0;
	int reps = 5, devnull;

	if (argc > 1 && argv[1][0]) {
		snprintf(ptdump, sizeof(ptdump), "%s", argv[1]);
	} else {
		snprintf(self, sizeof(self), "%s", argv[0]);
		snprintf(ptdump, sizeof(ptdump), "%s/../bin/ptdump",
			 dirname(self));
	}
	if (argc > 2)
		reps = atoi(argv[2]) > 0 ? atoi(argv[2]) : 1;

	if (access(ptdump, X_OK)) {
		printf("bench_ptdump: %s not built, skipped\n", ptdump);
		return 0;
	}
	if (!find_real(real, sizeof(real))) {
		printf("bench_ptdump: no shared test data, skipped\n");
		return 0;
	}
	devnull = open("/dev/null", O_WRONLY);
	if (devnull < 0)
		return 1;

	printf("ptdump text output, best of %d runs, stdout to /dev/null, "
	       "each trace repeated to >= 16 MiB\n", reps);
	bench_dir(real, ptdump, reps, devnull, &bytes, &secs);
	if (secs > 0)
		printf("all traces: %.1f MB/s\n", bytes / secs / 1e6);
	close(devnull);
	return 0;
}
