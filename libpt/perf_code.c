// SPDX-License-Identifier: GPL-2.0
/*
 * Where the code of a perf.data mapping is, as perf looks for it
 * (include/lwpt/perf_data.h lpt_perf_find_code(); Documentation/
 * perf-data.rst "Code"): tools/perf/util/symbol.c dso__load() tries the
 * build-id cache and the recorded path, below --symfs when given
 * (util/dso.c dso__read_binary_type_filename, symbol.c symbol__join_symfs);
 * a file whose build-id differs from the recorded one is not used
 * (symbol.c: "dso__build_id_equal" checks in dso__load_sym).
 */
#include <lwpt/perf_data.h>
#include <lwpt/ptcap_dir.h>

#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "libpt/perf_internal.h"

int lpt_perf_elf_build_id(const char *path, uint8_t id[20])
{
	Elf_Scn *scn = NULL;
	int fd, ret = 0;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	fd = ptcap_file_open(NULL, path, 0, 0, NULL);
	if (fd < 0)
		return -LPT_PERF_E_IO;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF)
		goto out;
	while (!ret && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((const char *)d->d_buf + noff, "GNU", 4) &&
			    nh.n_descsz > 0 && nh.n_descsz <= 20) {
				memcpy(id, (const char *)d->d_buf + doff, nh.n_descsz);
				ret = (int)nh.n_descsz;
				break;
			}
		}
	}
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return ret;
}

void lpt_perf_code_opts_init(const struct lpt_perf *p, struct lpt_perf_code_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->kcore = p ? p->kcore : NULL;
}

/* Whether @path starts with the ELF magic (ELF gABI, e_ident). */
static bool is_elf_file(const char *path)
{
	unsigned char b[SELFMAG];
	bool elf = false;
	int fd;

	fd = ptcap_file_open(NULL, path, 0, 0, NULL);
	if (fd < 0)
		return false;
	elf = read(fd, b, sizeof(b)) == SELFMAG && !memcmp(b, ELFMAG, SELFMAG);
	close(fd);
	return elf;
}

static bool is_kernel_map(const struct lpt_perf_map *m)
{
	return m->kernel || m->path[0] == '[';
}

/*
 * Whether @path, once its symbolic links and ".." are resolved, is below
 * directory @base (itself resolved): a recorded path may not lead out of
 * --symfs or the build-id cache (Documentation/perf-data.rst "Code").
 */
static bool below(const char *path, const char *base)
{
	char rp[PATH_MAX], rb[PATH_MAX];
	size_t n;

	if (!realpath(path, rp) || !realpath(base, rb))
		return false;
	n = strlen(rb);
	if (n == 1)
		return true;	/* "/" */
	return !strncmp(rp, rb, n) && rp[n] == '/';
}

/* Whether recorded path @p climbs above its start with "..": read
 * component by component, without the file system. */
static bool climbs(const char *p)
{
	long depth = 0;

	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (--depth < 0)
				return true;
		} else if (n && !(n == 1 && p[0] == '.')) {
			depth++;
		}
		p += n;
		while (*p == '/')
			p++;
	}
	return false;
}

/* A candidate file: 1 when usable, 0 when absent (or not a regular
 * file: a device or FIFO is never code), -1 other build-id. */
static int candidate(const char *path, const struct lpt_perf_map *m)
{
	struct stat st;
	uint8_t id[20];
	int n;

	if (access(path, R_OK) || stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	if (!m->build_id_size)
		return 1;
	n = lpt_perf_elf_build_id(path, id);
	if (n <= 0)
		return 1;	/* no note to compare: perf uses it too */
	return n == m->build_id_size && !memcmp(id, m->build_id, (size_t)n) ? 1 : -1;
}

int lpt_perf_find_code(const struct lpt_perf *p, const struct lpt_perf_map *m,
		       const struct lpt_perf_code_opts *o, char *path, size_t size)
{
	char hex[41], cand[4096], dflt[4096], first_other[4096] = "";
	const char *dir, *base;
	bool other = false, outside = false;
	int i, r;

	if (!p || !m || !o || !path || size < 2)
		return -LPT_PERF_E_INVAL;
	if (is_kernel_map(m) && (o->kcore || m->path[0] != '/')) {
		/* Kernel: the kcore copy (perf record --kcore), else the
		 * vmlinux given (perf's --vmlinux); modules named by a
		 * path are looked for below as user files are. */
		const char *k = o->kcore ? o->kcore :
			(!strncmp(m->path, "[kernel.kallsyms]", 17) ? o->vmlinux : NULL);

		if (!k || access(k, R_OK))
			return -LPT_PERF_E_NO_CODE;
		if ((size_t)snprintf(path, size, "%s", k) >= size)
			return -LPT_PERF_E_INVAL;
		return 0;
	}
	for (i = 0; i < m->build_id_size; i++)
		sprintf(hex + 2 * i, "%02x", m->build_id[i]);
	hex[2 * m->build_id_size] = '\0';
	dir = o->buildid_dir;
	if (!dir) {
		const char *home = getenv("HOME");

		snprintf(dflt, sizeof(dflt), "%s/.debug", home ? home : "");
		dir = dflt;
	}
	for (i = 0; i < 4; i++) {
		int len;

		base = NULL;
		switch (i) {
		case 0:	/* --symfs DIR: DIR/recorded-path */
			if (!o->symfs)
				continue;
			len = snprintf(cand, sizeof(cand), "%s/%s", o->symfs, m->path);
			base = o->symfs;
			break;
		case 1:	/* build-id cache: .build-id/xx/rest/elf */
			if (!m->build_id_size)
				continue;
			len = snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s/elf", dir, hex,
				 hex + 2);
			break;
		case 2:	/* build-id cache: <path>/<build-id>/elf */
			if (!m->build_id_size)
				continue;
			len = snprintf(cand, sizeof(cand), "%s%s/%s/elf", dir, m->path, hex);
			base = dir;
			break;
		default:	/* the recorded path (not with --symfs) */
			if (o->symfs)
				continue;
			len = snprintf(cand, sizeof(cand), "%s", m->path);
			break;
		}
		if (len < 0 || (size_t)len >= sizeof(cand))
			continue;
		if (base && climbs(m->path)) {
			outside = true;
			continue;
		}
		r = candidate(cand, m);
		if (r > 0 && base && !below(cand, base)) {
			outside = true;
			continue;
		}
		/* A kernel module's file is used as its raw bytes (perf reads
		 * it at ip - start, util/machine.c machine__addnew_module_map:
		 * pgoff 0); an ELF module needs its sections placed, which
		 * only kcore gives. */
		if (r > 0 && is_kernel_map(m) && is_elf_file(cand))
			r = 0;
		if (r < 0 && !other)	/* the one --force takes */
			snprintf(first_other, sizeof(first_other), "%s", cand);
		if (r < 0)
			other = true;
		if (r <= 0)
			continue;
		if ((size_t)snprintf(path, size, "%s", cand) >= size)
			return -LPT_PERF_E_INVAL;
		return 0;
	}
	if (outside)
		return -LPT_PERF_E_OUTSIDE;
	if (other && o->any_build_id) {
		if ((size_t)snprintf(path, size, "%s", first_other) >= size)
			return -LPT_PERF_E_INVAL;
		return 0;
	}
	return other ? -LPT_PERF_E_BUILD_ID : -LPT_PERF_E_NO_CODE;
}
