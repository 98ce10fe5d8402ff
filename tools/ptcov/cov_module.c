// SPDX-License-Identifier: GPL-2.0
/* The files of a trace's code (cov_module.h). */
#include "tools/ptcov/cov_module.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <unistd.h>

#include <lwpt/pt_cov.h>
#include <lwpt/ptcap_dir.h>
#include <stdlib.h>
#include <string.h>

long cov_modules_add(struct cov_modules *ms, const char *path, uint64_t start,
		     uint64_t end, uint64_t offset, bool synthetic)
{
	struct cov_map *nm;
	size_t i;

	for (i = 0; i < ms->nmod; i++)
		if (!strcmp(ms->mod[i].path, path))
			break;
	if (i == ms->nmod) {
		struct cov_module *n = realloc(ms->mod, (i + 1) * sizeof(*n));

		if (!n)
			return -1;
		ms->mod = n;
		memset(&n[i], 0, sizeof(n[i]));
		n[i].path = strdup(path);
		if (!n[i].path)
			return -1;
		n[i].start = start;
		n[i].end = end;
		n[i].synthetic = synthetic;
		ms->nmod++;
	}
	if (start < ms->mod[i].start)
		ms->mod[i].start = start;
	if (end > ms->mod[i].end)
		ms->mod[i].end = end;
	nm = realloc(ms->map, (ms->nmap + 1) * sizeof(*nm));
	if (!nm)
		return -1;
	ms->map = nm;
	nm[ms->nmap++] = (struct cov_map){ start, end, offset, i };
	return (long)i;
}

long cov_modules_find(const struct cov_modules *ms, uint64_t addr)
{
	long best = -1;

	/* few mappings (a process's maps): a scan, the last added wins */
	for (size_t i = 0; i < ms->nmap; i++)
		if (addr >= ms->map[i].start && addr < ms->map[i].end)
			best = (long)ms->map[i].mod;
	return best;
}

bool cov_modules_build_id_ok(struct cov_modules *ms, const struct ptcap_map *m,
			     const char *path)
{
	int r;

	if (!ms->bids)
		ms->bids = lpt_cov_build_ids_alloc(ms->prog ? ms->prog : "ptcov", stderr,
						   ms->any_build_id ?
						   LPT_COV_BUILD_IDS_F_FORCE : 0);
	if (!ms->bids)		/* no memory: the file's check is not made */
		return true;
	r = lpt_cov_build_ids_use(ms->bids, m, path);
	ms->refused = lpt_cov_build_ids_refused(ms->bids);
	return r != 0;
}

void cov_modules_free(struct cov_modules *ms)
{
	lpt_cov_build_ids_free(ms->bids);
	for (size_t i = 0; i < ms->nmod; i++)
		free(ms->mod[i].path);
	free(ms->mod);
	free(ms->map);
	memset(ms, 0, sizeof(*ms));
}

long cov_modules_add_elf(struct cov_modules *ms, const char *path, uint64_t base)
{
	uint64_t lo = UINT64_MAX, hi = 0;
	long ret = -2;
	GElf_Ehdr eh;
	size_t n;
	Elf *e;
	/* A regular file only: a FIFO or device named by a capture must
	 * not block or be read (issue 36, ptcap_file_open()). */
	int fd = ptcap_file_open(NULL, path, 0, 0, NULL);

	if (fd < 0)
		return -2;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (e && gelf_getehdr(e, &eh) && !elf_getphdrnum(e, &n)) {
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD ||
			    !(ph.p_flags & PF_X) || !ph.p_filesz)
				continue;
			if (ph.p_vaddr + base < lo)
				lo = ph.p_vaddr + base;
			if (ph.p_vaddr + base + ph.p_filesz > hi)
				hi = ph.p_vaddr + base + ph.p_filesz;
		}
		if (lo < hi) {
			ret = cov_modules_add(ms, path, lo, hi, 0, false);
			if (ret >= 0) {
				ms->mod[ret].bias = base;
				ms->mod[ret].has_bias = true;
			}
		}
	}
	if (e)
		elf_end(e);
	close(fd);
	return ret;
}

int64_t cov_modules_elf(const struct cov_modules *ms, size_t m, int *type,
			uint64_t *entry)
{
	const struct cov_module *mod = &ms->mod[m];
	const struct cov_map *first = NULL;
	int64_t bias = 0;
	GElf_Ehdr eh;
	size_t n;
	Elf *e;
	int fd;

	*type = ET_NONE;
	*entry = 0;
	fd = ptcap_file_open(NULL, mod->path, 0, 0, NULL);
	if (fd < 0)
		return 0;
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || !gelf_getehdr(e, &eh) || elf_getphdrnum(e, &n))
		goto out;
	*type = eh.e_type;
	if (mod->has_bias || eh.e_type != ET_DYN) {
		bias = mod->has_bias && eh.e_type == ET_DYN ? (int64_t)mod->bias : 0;
		goto out;
	}
	for (size_t i = 0; i < ms->nmap; i++)
		if (ms->map[i].mod == m && (!first || ms->map[i].start < first->start))
			first = &ms->map[i];
	for (size_t i = 0; first && i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		uint64_t off = ph.p_offset & ~(uint64_t)0xfff;

		if (first->offset >= off && first->offset < ph.p_offset + ph.p_filesz) {
			bias = (int64_t)(first->start - first->offset) -
			       (int64_t)(ph.p_vaddr - ph.p_offset);
			break;
		}
	}
out:
	if (*type == ET_EXEC || *type == ET_DYN)
		*entry = eh.e_entry ? eh.e_entry + (uint64_t)bias : 0;
	if (e)
		elf_end(e);
	close(fd);
	return bias;
}
