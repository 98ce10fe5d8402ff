// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libpt CPU lists: "0,2-3" as perf record -C takes it, to and from the
 * bitmap of a per-CPU capture's CPU selection (lwpt_pt_config.cpu_mask,
 * Documentation/pt.rst "CPU selection").
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <lwpt/pt.h>

/* A decimal number at *@p below 2^31; advances *@p. -EINVAL if none. */
static int cpu_number(const char **p, unsigned long *v)
{
	const char *s = *p;
	unsigned long n = 0;

	if (*s < '0' || *s > '9')
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		n = n * 10 + (unsigned long)(*s - '0');
		if (n > 0x7fffffffUL)
			return -ERANGE;
	}
	*p = s;
	*v = n;
	return 0;
}

int lpt_cpu_list_parse(const char *list, unsigned int nr_cpus, uint64_t *mask,
		       size_t words, size_t *bad)
{
	const char *p = list, *elem;
	unsigned long a, b, cpu;
	int err, count = 0;

	if (bad)
		*bad = 0;
	if (!list || !mask)
		return -EINVAL;
	if (words < (nr_cpus + 63u) / 64u)
		return -ENOBUFS;
	memset(mask, 0, words * sizeof(*mask));
	do {
		elem = p;
		err = cpu_number(&p, &a);
		b = a;
		if (!err && *p == '-') {
			p++;
			err = cpu_number(&p, &b);
			if (!err && b < a)
				err = -EINVAL;
		}
		if (!err && *p && *p != ',')
			err = -EINVAL;
		if (!err && b >= nr_cpus)
			err = -ERANGE;
		if (err) {
			if (bad)
				*bad = (size_t)(elem - list);
			return err;
		}
		for (cpu = a; cpu <= b; cpu++) {
			if (!(mask[cpu / 64] & (1ull << (cpu % 64))))
				count++;
			mask[cpu / 64] |= 1ull << (cpu % 64);
		}
	} while (*p++ == ',');
	return count;
}

int lpt_cpu_list_format(const uint64_t *mask, size_t words, char *buf, size_t size)
{
	size_t n = words * 64, cpu, end, len = 0;
	int w;

	if (!mask || !buf)
		return -EINVAL;
	if (size)
		buf[0] = '\0';
#define CPU_SET_AT(c) (mask[(c) / 64] & (1ull << ((c) % 64)))
	for (cpu = 0; cpu < n; cpu = end + 1) {
		if (!CPU_SET_AT(cpu)) {
			end = cpu;
			continue;
		}
		for (end = cpu; end + 1 < n && CPU_SET_AT(end + 1); end++)
			;
		if (end == cpu)
			w = snprintf(buf + len, size > len ? size - len : 0, "%s%zu",
				     len ? "," : "", cpu);
		else
			w = snprintf(buf + len, size > len ? size - len : 0, "%s%zu-%zu",
				     len ? "," : "", cpu, end);
		if (w < 0 || (size_t)w >= (size > len ? size - len : 0))
			return -ENOSPC;
		len += (size_t)w;
	}
#undef CPU_SET_AT
	return (int)len;
}
