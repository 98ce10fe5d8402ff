// SPDX-License-Identifier: GPL-2.0
/*
 * ptdump on a ptcap directory: DIR/config as the defaults of the decoder
 * options (issue 15 point 7). The config is parsed by the ptcap directory
 * reader of libpt that ptflow uses (include/lwpt/ptcap_dir.h), so both read the
 * format of Documentation/ptcap-format.rst the same way.
 */
#include "tools/ptdump/capdir.h"
#include <lwpt/ptcap_dir.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int ptdump_capdir_of(const char *file, char *dir, size_t size)
{
	const char *slash = strrchr(file, '/');
	char cfg[4200];
	struct stat st;
	int n;

	if (!slash)
		n = snprintf(dir, size, ".");
	else if (slash == file)
		n = snprintf(dir, size, "/");
	else
		n = snprintf(dir, size, "%.*s", (int)(slash - file), file);
	if (n < 0 || (size_t)n >= size)
		return 0;
	snprintf(cfg, sizeof(cfg), "%s/config", dir);
	/* any config but a directory: one that is not a regular file is
	 * refused by ptdump_capdir_apply(), with a message */
	return !stat(cfg, &st) && !S_ISDIR(st.st_mode);
}

int ptdump_capdir_apply(struct ptdump_options *o, const char *dir)
{
	struct ptcap_config cfg;
	size_t len;
	char *text;
	size_t line = 0;
	int err;

	err = ptcap_dir_read_file(dir, "config", &text, &len);
	if (err) {
		fprintf(stderr, "%s: cannot read %s/config: %s. A ptcap directory "
			"needs its config file (see ptcap(1)); give the timing "
			"options by hand otherwise.\n", o->prog, dir,
			err == -PTCAP_E_IO ? strerror(errno) :
			ptcap_dir_strerror(err));
		return -1;
	}
	err = ptcap_config_parse(text, len, &cfg, &line);
	free(text);
	if (err) {
		fprintf(stderr, "%s: %s/config, line %zu: %s. Is it a ptcap "
			"directory of this lwpt version (ptcap-format.rst)?\n",
			o->prog, dir, line, ptcap_dir_strerror(err));
		return -1;
	}
	if (cfg.format == PTCAP_FORMAT_BTS) {
		fprintf(stderr, "%s: %s: a BTS capture (format bts): its *.bts files hold "
			"BTS records, not PT packets; ptflow decodes them\n", o->prog, dir);
		return -1;
	}
	ptdump_capdir_config(o, &cfg);
	return 0;
}

void ptdump_capdir_config(struct ptdump_options *o, const struct ptcap_config *c)
{
	const struct ptcap_config cfg = *c;

	if (!o->cpu_given && (cfg.has & PTCAP_HAS_CPU)) {
		o->have_cpu = 1;
		o->family = cfg.cpu_family;
		o->model = cfg.cpu_model;
		o->stepping = cfg.cpu_stepping;
	}
	if (!o->have_mtc_freq && (cfg.has & PTCAP_HAS_MTC_FREQ))
		o->mtc_freq = cfg.mtc_freq;
	if (!o->have_nom_freq && (cfg.has & PTCAP_HAS_NOM_FREQ))
		o->nom_freq = cfg.nom_freq;
	if (!o->have_cpuid_0x15_eax && (cfg.has & PTCAP_HAS_CPUID_15_EAX))
		o->cpuid_0x15_eax = cfg.cpuid_15_eax;
	if (!o->have_cpuid_0x15_ebx && (cfg.has & PTCAP_HAS_CPUID_15_EBX))
		o->cpuid_0x15_ebx = cfg.cpuid_15_ebx;
}

int ptdump_capdir_gaps(const struct ptdump_options *o, size_t len,
		       uint64_t **gaps, size_t *count)
{
	const char *base = strrchr(o->file, '/');
	char dir[4096], *text;
	size_t i, n = 0, textlen;
	uint64_t *all;
	int err;

	*gaps = NULL;
	*count = 0;
	if (!ptdump_capdir_of(o->file, dir, sizeof(dir)) ||
	    ptcap_dir_read_file(dir, "config", &text, &textlen))
		return 0;	/* ptdump_capdir_apply() said why */
	base = base ? base + 1 : o->file;
	err = ptcap_config_gaps(text, textlen, base, &all, &n);
	free(text);
	if (err) {
		fprintf(stderr, "%s: %s/config: the gaps.%s line: %s. The trace "
			"after a loss would decode as if nothing were lost; "
			"was the config edited?\n", o->prog, dir, base,
			ptcap_dir_strerror(err));
		return -1;
	}
	/* Only the gaps strictly inside [from, from + len), made relative. */
	*count = 0;
	for (i = 0; i < n; i++)
		if (all[i] > o->from && all[i] - o->from < len)
			all[(*count)++] = all[i] - o->from;
	*gaps = all;
	return 0;
}
