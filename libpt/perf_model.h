/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A perf.data's capture in ptcap's terms (Documentation/perf-data.rst "As a
 * capture"), computed from a reader in memory: the IP filter ranges, the
 * code of each mapping (where lpt_perf_find_code() finds it), the switches
 * between tasks, the processes' exec generations and the maps of each.
 * Internal to libpt: the perf.data capture source (libpt/capsrc_perf.c)
 * reads a perf.data through it in place, and lpt_perf_write_ptcap()
 * (libpt/perf_ptcap.c) writes it as a ptcap directory; both get the same
 * model, so a perf.data read in place and its ptcap directory read as a
 * directory give the same capture.
 */
#ifndef LWPT_LIBPT_PERF_MODEL_H
#define LWPT_LIBPT_PERF_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <lwpt/perf_data.h>
#include <lwpt/ptcap_dir.h>

#include "libpt/perf_internal.h"

/* One switch: on @cpu at @tsc, prev (pp/pt) stopped and next (np/nt) ran. */
struct lpt_perf_sw_line {
	uint64_t tsc;
	int32_t cpu, pp, pt, np, nt;
	bool preempt;
};

/* One exec generation of a process: [from, to) in perf time. */
struct lpt_perf_gen {
	int32_t pid;
	uint64_t from, to;
	int32_t ppid;		/* generation 0 of a forked process: its
				 * parent, whose maps it inherits; else -1 */
	uint64_t fork_time;
	size_t gen;		/* its number */
	size_t last;		/* generation 0: the pid's last generation */
	char comm[16];
};

/* The code of one mapping record: the maps lines it gives (none when its
 * code is missing or it holds none). */
struct lpt_perf_lines {
	struct ptcap_map *m;	/* paths owned here */
	size_t n;
	bool done;		/* computed (once, with its warnings) */
};

/* A found file's GNU build-id (lpt_perf_elf_build_id(): @n its length,
 * 0 none, < 0 unreadable), read once per file. */
struct lpt_perf_file_id {
	char *file;
	uint8_t id[20];
	int n;
};

struct lpt_perf_model {
	const struct lpt_perf *p;
	struct lpt_perf_code_opts o;
	char *abs_symfs, *abs_vmlinux;	/* o's paths made absolute */
	FILE *warn;
	const char *prog;
	bool sys;		/* decoded per process: switches, processes */
	struct ptcap_addr_range addr[PTCAP_ADDR_RANGES];
	struct lpt_perf_lines *lines;	/* per mapping record */
	const char **said;	/* paths already named as missing, or as
				 * used with another build-id (--force) */
	size_t nsaid, cap_said;
	struct lpt_perf_file_id *ids;	/* build-ids of found files */
	size_t nids, cap_ids;
	struct lpt_perf_hash id_of;	/* FNV-1a of a file -> ids[] */
	size_t modules;		/* kernel modules without code */
	const char *first_module;
	/* sys only: */
	struct lpt_perf_sw_line *sw;	/* in the order of the switches file */
	size_t nsw;
	struct lpt_perf_gen *g;		/* in the order of the processes file */
	size_t ng;
	size_t *user, nuser;		/* user maps, by pid then file order */
	size_t *kern, nkern;		/* kernel maps, file order */
	struct lpt_perf_hash first;	/* pid -> its first position in user */
};

/*
 * lpt_perf_model_init() - the model of reader @p: whether it is decoded per
 * process, its IP filter ranges and, per process, its switches and
 * generations. The code of the mappings is looked for on first use
 * (lpt_perf_model_lines()); warnings about missing code go to @warn
 * (may be NULL), prefixed by @prog. Relative --symfs and --vmlinux paths
 * of @o are made absolute. Returns 0 or -LPT_PERF_E_NOMEM; @mo is then to
 * be freed with lpt_perf_model_free() in both cases.
 */
int lpt_perf_model_init(struct lpt_perf_model *mo, const struct lpt_perf *p,
			const struct lpt_perf_code_opts *o, FILE *warn, const char *prog);

/* lpt_perf_model_lines() - the maps lines of mapping record @j (looked up
 * once); *@n their number. NULL with *@n 0 when none. A user file's line
 * carries the build-id the perf.data recorded for it (MMAP2 or HEADER_BUILD_ID)
 * when the file found has that id (build_id_size 0 otherwise: none
 * recorded, a file without a note, or one --force took with another id,
 * which is then said once on the model's warnings with both ids). */
const struct ptcap_map *lpt_perf_model_lines(struct lpt_perf_model *mo, size_t j,
					     size_t *n);

/* lpt_perf_model_top() - call @fn for each mapping record of the `maps`
 * file (every one per thread, the kernel's per process), in file order. */
void lpt_perf_model_top(struct lpt_perf_model *mo,
			void (*fn)(struct lpt_perf_model *mo, size_t j, void *arg), void *arg);

/* lpt_perf_model_gen() - call @fn for each mapping record of generation
 * @gi's `maps.<pid>.<gen>`: the kernel's, its own, a forked process's
 * parent's before the fork, in file order. */
void lpt_perf_model_gen(struct lpt_perf_model *mo, size_t gi,
			void (*fn)(struct lpt_perf_model *mo, size_t j, void *arg), void *arg);

/* lpt_perf_model_gen_tsc() - generation @gi's first and last TSC. */
void lpt_perf_model_gen_tsc(const struct lpt_perf_model *mo, size_t gi, uint64_t *first,
			    uint64_t *last);

/* lpt_perf_model_escape() - @s with control characters and the backslash
 * as \xHH (ptcap-format.rst "Strings"), into @buf of @size bytes (cut to
 * fit, NUL-terminated). */
void lpt_perf_model_escape(const char *s, char *buf, size_t size);

/* lpt_perf_model_summary() - the one warning line about the kernel modules
 * whose code is missing, if any. */
void lpt_perf_model_summary(const struct lpt_perf_model *mo);

/* lpt_perf_model_free() - release what the model holds (@mo may be zeroed). */
void lpt_perf_model_free(struct lpt_perf_model *mo);

#endif
