/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptcap -a -C LIST: the CPUs of a system-wide capture (perf record -C's
 * syntax), checked against the CPUs that exist and are online before
 * anything starts. The module takes the bitmap as lwpt_pt_config.cpu_mask
 * (Documentation/pt.rst, "CPU selection").
 */
#ifndef LWPT_TOOLS_PTCAP_CPUSEL_H
#define LWPT_TOOLS_PTCAP_CPUSEL_H

#include <stddef.h>
#include <stdint.h>

#include <uapi/lwpt/pt.h>

/* 64-bit words of the largest selection the module takes. */
#define PTCAP_CPUSEL_WORDS	(LWPT_PT_CPU_MASK_MAX / 8)

/* Where the kernel lists the online CPUs (same list syntax). */
#define PTCAP_CPUSEL_ONLINE	"/sys/devices/system/cpu/online"

/**
 * struct ptcap_cpusel - a CPU selection
 * @mask:	bit n of word n / 64: CPU n is selected
 * @words:	words of @mask to pass: (nr_cpus + 63) / 64 once checked
 * @count:	CPUs selected
 */
struct ptcap_cpusel {
	uint64_t mask[PTCAP_CPUSEL_WORDS];
	size_t words;
	unsigned int count;
};

/**
 * ptcap_cpusel_parse() - parse -C's LIST for CPUs below @nr_cpus.
 * @sel:	out: the selection
 * @list:	the argument, e.g. "0,2-3"
 * @nr_cpus:	CPUs that exist (the module's caps.nr_cpus), at most
 *		LWPT_PT_CPU_MASK_MAX * 8
 * @why:	out: on error, a message saying what is wrong and what to do
 * @whysize:	bytes at @why
 * Return: 0; -EINVAL bad syntax; -ERANGE a CPU that does not exist.
 */
int ptcap_cpusel_parse(struct ptcap_cpusel *sel, const char *list, unsigned int nr_cpus,
		       char *why, size_t whysize);

/**
 * ptcap_cpusel_offline() - the first selected CPU that is not online.
 * @sel:	a parsed selection
 * @online:	the text of PTCAP_CPUSEL_ONLINE ("0-3\n"), or NULL if it
 *		could not be read (then nothing is refused here: the module
 *		answers ENODEV)
 * Return: the CPU number, or -1 when every selected CPU is online (or
 * @online is NULL or not a CPU list).
 */
int ptcap_cpusel_offline(const struct ptcap_cpusel *sel, const char *online);

#endif /* LWPT_TOOLS_PTCAP_CPUSEL_H */
