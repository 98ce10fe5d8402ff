// SPDX-License-Identifier: GPL-2.0
/*
 * The threads of a process and its end (tasks.h): /proc/PID/task and
 * pidfd_open(2).
 */
#include "tools/ptcap/tasks.h"

#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

int ptcap_tasks_add(struct ptcap_tasks *s, pid_t tid)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		pid_t *v;

		if (cap > SIZE_MAX / sizeof(*v))
			return -ENOMEM;
		v = realloc(s->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = tid;
	s->sorted = false;
	return 0;
}

static int tid_cmp(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

void ptcap_tasks_sort(struct ptcap_tasks *s)
{
	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), tid_cmp);
	s->sorted = true;
}

bool ptcap_tasks_has(const struct ptcap_tasks *s, pid_t tid)
{
	if (s->sorted)
		return s->n && bsearch(&tid, s->v, s->n, sizeof(*s->v), tid_cmp);
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i] == tid)
			return true;
	return false;
}

void ptcap_tasks_keep(struct ptcap_tasks *s, const struct ptcap_tasks *in)
{
	size_t i, k = 0;

	for (i = 0; i < s->n; i++)
		if (ptcap_tasks_has(in, s->v[i]))
			s->v[k++] = s->v[i];
	s->n = k;
}

int ptcap_tasks_read(struct ptcap_tasks *s, const char *proc, pid_t pid)
{
	char path[4096];
	struct dirent *de;
	int err = 0;
	DIR *d;

	s->n = 0;
	s->sorted = false;
	snprintf(path, sizeof(path), "%s/%d/task", proc, (int)pid);
	d = opendir(path);
	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		char *end;
		long id = strtol(de->d_name, &end, 10);

		if (*end || id <= 0 || id > INT32_MAX)
			continue;	/* ".", "..", anything else */
		err = ptcap_tasks_add(s, (pid_t)id);
	}
	closedir(d);
	return err;
}

void ptcap_tasks_free(struct ptcap_tasks *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

int ptcap_pidfd_open(pid_t pid)
{
	/* glibc 2.36 has pidfd_open(); the system call keeps older ones building. */
	long fd = syscall(SYS_pidfd_open, pid, 0);

	if (fd < 0)
		return -errno;
	return (int)fd;
}
