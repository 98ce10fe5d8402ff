// SPDX-License-Identifier: GPL-2.0
/*
 * ptcap -a -C LIST: the CPU selection of a system-wide capture (cpusel.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <lwpt/pt.h>

#include "cpusel.h"

int ptcap_cpusel_parse(struct ptcap_cpusel *sel, const char *list, unsigned int nr_cpus,
		       char *why, size_t whysize)
{
	size_t bad = 0;
	int n;

	memset(sel, 0, sizeof(*sel));
	if (nr_cpus > PTCAP_CPUSEL_WORDS * 64)
		nr_cpus = PTCAP_CPUSEL_WORDS * 64;
	n = lpt_cpu_list_parse(list, nr_cpus, sel->mask, PTCAP_CPUSEL_WORDS, &bad);
	if (n == -ERANGE) {
		snprintf(why, whysize, "-C %s: CPU '%s' does not exist: CPUs are 0-%u here",
			 list, list + bad, nr_cpus ? nr_cpus - 1 : 0);
		return -ERANGE;
	}
	if (n <= 0) {
		snprintf(why, whysize, "-C: bad CPU list '%s' at '%s': give CPU numbers and "
			 "ranges separated by commas, e.g. -C 0,2-3", list, list + bad);
		return -EINVAL;
	}
	sel->words = (nr_cpus + 63u) / 64u;
	sel->count = (unsigned int)n;
	return 0;
}

int ptcap_cpusel_offline(const struct ptcap_cpusel *sel, const char *online)
{
	uint64_t on[PTCAP_CPUSEL_WORDS];
	char text[4096];
	size_t len, w;
	unsigned int b;

	if (!online)
		return -1;
	len = strcspn(online, "\n");
	if (len >= sizeof(text))
		return -1;
	memcpy(text, online, len);
	text[len] = '\0';
	if (lpt_cpu_list_parse(text, PTCAP_CPUSEL_WORDS * 64, on, PTCAP_CPUSEL_WORDS, NULL) <= 0)
		return -1;
	for (w = 0; w < PTCAP_CPUSEL_WORDS; w++) {
		uint64_t off = sel->mask[w] & ~on[w];

		for (b = 0; off && b < 64; b++)
			if (off & (1ull << b))
				return (int)(w * 64 + b);
	}
	return -1;
}
