/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptdump on a ptcap directory (issue 15 point 7): the decoder parameters
 * of DIR/config (Documentation/ptcap-format.rst) as defaults of ptdump's
 * options, and the list of DIR's traces.
 */
#ifndef PTDUMP_CAPDIR_H
#define PTDUMP_CAPDIR_H

#include "tools/ptdump/options.h"

#include <lwpt/ptcap_dir.h>

#include <stddef.h>
#include <stdint.h>

/**
 * ptdump_capdir_of() - the ptcap directory a trace file lies in.
 * @file: a trace file name (as given on the command line).
 * @dir:  output buffer for the directory name.
 * @size: size of @dir in bytes.
 *
 * Return: 1 when the file's directory holds a `config` file (whatever its
 * content; ptdump_capdir_apply() checks it), else 0.
 */
int ptdump_capdir_of(const char *file, char *dir, size_t size);

/**
 * ptdump_capdir_apply() - take the options not given on the command line
 * from @dir/config.
 * @o:   parsed options; --cpu, --mtc-freq, --nom-freq, --cpuid-0x15.eax
 *       and --cpuid-0x15.ebx given on the command line are kept.
 * @dir: a ptcap directory.
 *
 * The keys cpu, mtc-freq, nom-freq, cpuid-0x15.eax and cpuid-0x15.ebx of
 * the config (ptcap-format.rst) are those options' values (SDM 33.8.3
 * needs the last four for time tracking).
 *
 * Return: 0 on success; -1 when @dir/config cannot be read or is not a
 * version-1 ptcap config (the reason, with the file name and what to do,
 * is printed on stderr).
 */
int ptdump_capdir_apply(struct ptdump_options *o, const char *dir);

/**
 * ptdump_capdir_config() - ptdump_capdir_apply() from a parsed config
 * (a perf.data's, lpt_perf_config()).
 * @o:   parsed options; those given on the command line are kept.
 * @cfg: the decoder parameters.
 */
void ptdump_capdir_config(struct ptdump_options *o, const struct ptcap_config *cfg);

/**
 * ptdump_capdir_gaps() - where output was lost in the trace being dumped,
 * from the "gaps.<file>" line of its ptcap directory's config
 * (ptcap-format.rst; SDM 33.2.7.2: a ToPA stop ends the output mid-packet).
 * @o:     options: @o->file names the trace, @o->from the first byte loaded.
 * @len:   bytes of the trace loaded from @o->from.
 * @gaps:  receives a malloc()ed array (free() it) of the gaps inside the
 *         loaded bytes as offsets from @o->from, ascending; NULL if none.
 * @count: receives their number; 0 for a file outside a ptcap directory,
 *         or one whose config has no gaps line for it.
 *
 * Return: 0; -1 when the config's gaps line for the file is malformed or
 * memory ran out (said on stderr).
 */
int ptdump_capdir_gaps(const struct ptdump_options *o, size_t len,
		       uint64_t **gaps, size_t *count);

#endif /* PTDUMP_CAPDIR_H */
