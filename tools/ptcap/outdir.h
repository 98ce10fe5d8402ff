/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptcap's output directory: never mix two captures (issue 16 point 6).
 * A directory that holds a capture is refused unless --force, which moves
 * it aside to DIR.old (as perf record keeps perf.data.old) and starts an
 * empty DIR. Documentation/ptcap.rst, "Output directory".
 */
#ifndef LWPT_TOOLS_PTCAP_OUTDIR_H
#define LWPT_TOOLS_PTCAP_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>

/* What ptcap_outdir_check() found. */
enum ptcap_outdir_state {
	PTCAP_OUTDIR_NONE,	/* does not exist: created by prepare */
	PTCAP_OUTDIR_EMPTY,	/* an empty directory */
	PTCAP_OUTDIR_CAPTURE,	/* holds a capture (config, maps, *.pt, snap.*) */
	PTCAP_OUTDIR_OTHER,	/* not empty, no capture: never written into */
};

/* The suffix of the directory --force moves an old capture to. */
#define PTCAP_OUTDIR_OLD	".old"

/**
 * ptcap_outdir_check() - what is at @dir, before anything is started.
 * @dir:	the output directory path
 * @state:	out: what @dir is (enum ptcap_outdir_state)
 *
 * A capture is recognised by ptcap's files: "config", "maps", "switches",
 * "vdso.so", "*.pt" and "snap.<N>" snapshot directories
 * (Documentation/ptcap-format.rst).
 *
 * Return: 0; -ENOTDIR if @dir exists and is not a directory; another
 * -errno if it cannot be read (-EACCES...).
 */
int ptcap_outdir_check(const char *dir, enum ptcap_outdir_state *state);

/**
 * ptcap_outdir_prepare() - make @dir an empty directory for a capture.
 * @dir:	the output directory path
 * @force:	move a capture in @dir aside to "@dir.old" (replacing an
 *		earlier "@dir.old" that holds a capture or nothing)
 * @moved:	out, may be NULL: true if an old capture was moved aside
 *
 * Return: 0; -EEXIST if @dir holds a capture and @force is false;
 * -ENOTEMPTY if @dir holds files that are not a capture (never touched),
 * or "@dir.old" does; -ENOTDIR; -ENAMETOOLONG; another -errno from
 * mkdir(), rename() or removing the old "@dir.old".
 */
int ptcap_outdir_prepare(const char *dir, bool force, bool *moved);

#endif /* LWPT_TOOLS_PTCAP_OUTDIR_H */
