/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The files a trace's code came from, for coverage per file: drcov's
 * module table, lcov's source files through each ELF file's DWARF.
 */
#ifndef LWPT_TOOLS_PTCOV_MODULE_H
#define LWPT_TOOLS_PTCOV_MODULE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One mapping of a file: @offset of @path at [start, end). */
struct cov_map {
	uint64_t start, end, offset;
	size_t mod;		/* index into cov_modules.mod */
};

struct cov_module {
	char *path;
	uint64_t start, end;	/* lowest and highest address mapped */
	uint64_t bias;		/* load bias (ELF: address - p_vaddr) */
	bool has_bias;		/* @bias known (--elf), else from the first
				 * mapping and the file's program headers */
	bool synthetic;		/* no file: code from a page cache or a copy */
};

struct lpt_cov_build_ids;

struct cov_modules {
	struct cov_module *mod;
	size_t nmod;
	struct cov_map *map;	/* in the order added */
	size_t nmap;
	/* build-ids (cov_modules_build_id_ok()): */
	bool any_build_id;	/* --force: use a file whose build-id is not
				 * the recorded one (a warning) */
	const char *prog;	/* messages' prefix; NULL: "ptcov" */
	unsigned long refused;	/* files left out for their build-id */
	struct lpt_cov_build_ids *bids;	/* libpt's verdicts, made at the
					 * first check */
};

struct ptcap_map;

/**
 * cov_modules_build_id_ok() - may the file @path of maps line @m be used?
 * libpt's verdict (lpt_cov_build_ids_use(), ptflow's too): its GNU
 * build-id is compared with the one the capture recorded (nothing
 * recorded: yes). When it differs, an error on stderr names @path and
 * both ids (once per path) and the file is refused (ms->refused counts
 * it), unless ms->any_build_id (a warning; used). A file that cannot be
 * read is not refused here: loading it says why.
 * @ms:   the modules (what was said, the flags).
 * @m:    the maps line.
 * @path: the file as opened (below the capture directory if relative).
 *
 * Return: true to use the file.
 */
bool cov_modules_build_id_ok(struct cov_modules *ms, const struct ptcap_map *m,
			     const char *path);

/**
 * cov_modules_add() - a mapping of @path (copied) at [start, end) from
 * file offset @offset; mappings of one path make one module.
 * Return: the module's index, or -1 when out of memory.
 */
long cov_modules_add(struct cov_modules *ms, const char *path, uint64_t start,
		     uint64_t end, uint64_t offset, bool synthetic);

/**
 * cov_modules_find() - the module mapped at @addr (the mapping added
 * last wins, as in a ptcap `maps` file).
 * Return: its index, or -1 when no mapping holds @addr.
 */
long cov_modules_find(const struct cov_modules *ms, uint64_t addr);

/**
 * cov_modules_add_elf() - the executable PT_LOAD segments of an ELF file
 * as lpt_cov_image_add_elf() loads them (p_vaddr + @base) as a module.
 * Return: its index; -1 when out of memory; -2 when not an ELF file.
 */
long cov_modules_add_elf(struct cov_modules *ms, const char *path, uint64_t base);

/**
 * cov_modules_elf() - a module's ELF type, load bias and entry point.
 * @ms:    the modules.
 * @m:     index of the module.
 * @type:  receives e_type (ET_NONE when the file is no ELF file).
 * @entry: receives e_entry plus the bias (0 without one).
 *
 * The bias is --elf's base, else the address of the module's lowest
 * mapping minus the p_vaddr its file offset has (0 for ET_EXEC).
 *
 * Return: the bias.
 */
int64_t cov_modules_elf(const struct cov_modules *ms, size_t m, int *type,
			uint64_t *entry);

/** cov_modules_free() - release everything. */
void cov_modules_free(struct cov_modules *ms);

#endif /* LWPT_TOOLS_PTCOV_MODULE_H */
