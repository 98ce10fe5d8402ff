// SPDX-License-Identifier: GPL-2.0
/* Whole-process benchmark helpers; see bench_child.h. */
#include "tests/bench/bench_child.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

int bench_child_wait(pid_t pid, double *cpu)
{
	struct rusage ru;
	int status;

	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR)
			return -1;
	if (cpu)
		*cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec * 1e-6 +
		       (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec * 1e-6;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int bench_child_run(char *const argv[], int outfd, double *cpu)
{
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		dup2(outfd, STDOUT_FILENO);
		dup2(null, STDERR_FILENO);
		execv(argv[0], argv);
		_exit(127);
	}
	return bench_child_wait(pid, cpu);
}

double bench_child_time(char *const argv[], const char *path)
{
	int fd = open(path ? path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	double t = -1;

	if (fd < 0)
		return -1;
	if (bench_child_run(argv, fd, &t) != 0)
		t = -1;
	close(fd);
	return t;
}

bool bench_listing_next_ip(FILE *f, unsigned long long *ip)
{
	char line[256];

	while (fgets(line, sizeof(line), f)) {
		char *p = line, *end;

		while (*p == ' ')
			p++;
		if (*p == '[' || *p == '\n')
			continue;
		*ip = strtoull(p, &end, 16);
		return end != p;
	}
	return false;
}

unsigned long long bench_child_value(char *const argv[], const char *key)
{
	char tmpl[] = "/tmp/bench_child.XXXXXX", line[256];
	unsigned long long n = 0;
	size_t klen = strlen(key);
	int fd = mkstemp(tmpl);
	FILE *f;

	if (fd < 0)
		return 0;
	unlink(tmpl);
	if (bench_child_run(argv, fd, NULL) != 0) {
		close(fd);
		return 0;
	}
	lseek(fd, 0, SEEK_SET);
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return 0;
	}
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':' &&
		    sscanf(line + klen + 1, "%llu", &n) == 1)
			break;
	fclose(f);
	return n;
}

uint8_t *bench_load_file(const char *path, size_t *len)
{
	uint8_t *buf = NULL;
	long size;
	FILE *f = fopen(path, "rb");

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) > 0 &&
	    !fseek(f, 0, SEEK_SET)) {
		buf = malloc((size_t)size);
		if (buf && fread(buf, (size_t)size, 1, f) == 1) {
			*len = (size_t)size;
		} else {
			free(buf);
			buf = NULL;
			errno = EIO;
		}
	}
	fclose(f);
	return buf;
}

int bench_flow_data(const char *bindir, char *data, size_t size)
{
	static char env[PATH_MAX + 96];	/* putenv() keeps it */
	char gen[PATH_MAX + 64], src[PATH_MAX + 96];
	char *gen_argv[] = { gen, NULL };
	double cpu;
	int null;

	snprintf(data, size, "%s/../bench-data", bindir);
	mkdir(data, 0755);
	snprintf(data, size, "%s/../bench-data/flow", bindir);
	mkdir(data, 0755);
	snprintf(src, sizeof(src), "%s/trace_flow_0.pt", data);
	if (!access(src, R_OK))
		return 0;
	snprintf(gen, sizeof(gen), "%s/../tests/test_pt_trace_flow", bindir);
	if (access(gen, X_OK))
		return -1;
	snprintf(env, sizeof(env), "LWPT_TRACE_FLOW_DUMP=%s", data);
	putenv(env);
	putenv("CK_RUN_CASE=libipt");
	null = open("/dev/null", O_WRONLY);
	bench_child_run(gen_argv, null, &cpu);
	close(null);
	return access(src, R_OK) ? -1 : 0;
}

int bench_repeat_opt(int argc, char **argv, int def)
{
	int c, repeat = def;

	while ((c = getopt(argc, argv, "n:")) != -1) {
		if (c != 'n') {
			fprintf(stderr, "usage: %s [-n REPEAT]\n", argv[0]);
			return -1;
		}
		repeat = atoi(optarg) > 0 ? atoi(optarg) : 1;
	}
	return repeat;
}
