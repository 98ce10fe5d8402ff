// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolic --filter/--stop ranges (symfilter.h): parse, then resolve with
 * libelf against the traced process's mappings.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symfilter.h"

/* Format a message into @err; return @code (negative errno). */
static int fail(int code, char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return code;
}

/* A whole number in C syntax (0x..., decimal); false if not. */
static bool number(const char *s, size_t len, uint64_t *v)
{
	char buf[32], *end;

	if (!len || len >= sizeof(buf) || *s == '-' || *s == '+')
		return false;
	memcpy(buf, s, len);
	buf[len] = 0;
	errno = 0;
	*v = strtoull(buf, &end, 0);
	return !errno && !*end;
}

static bool copy(char *dst, size_t size, const char *s, size_t len)
{
	if (!len || len >= size)
		return false;
	memcpy(dst, s, len);
	dst[len] = 0;
	return true;
}

int ptcap_spec_parse(const char *arg, struct ptcap_spec *sp, char *err, size_t errlen)
{
	const char *at = strrchr(arg, '@'), *dash = strchr(arg, '-'), *slash;
	size_t left = at ? (size_t)(at - arg) : strlen(arg);

	memset(sp, 0, sizeof(*sp));
	/* A-B: two numbers (a symbol name never starts with a digit). */
	if (!at && dash && number(arg, (size_t)(dash - arg), &sp->a) &&
	    number(dash + 1, strlen(dash + 1), &sp->b)) {
		sp->kind = PTCAP_SPEC_ADDR;
		if (sp->a > sp->b)
			return fail(-EINVAL, err, errlen, "'%s': the range ends before it starts",
				    arg);
		return 0;
	}
	if (at && !copy(sp->file, sizeof(sp->file), at + 1, strlen(at + 1)))
		return fail(-EINVAL, err, errlen, "'%s': no FILE after '@' (or too long)", arg);
	slash = memchr(arg, '/', left);
	if (at && slash) {
		/* START/SIZE@FILE */
		sp->kind = PTCAP_SPEC_OFFSET;
		if (!number(arg, (size_t)(slash - arg), &sp->a) ||
		    !number(slash + 1, (size_t)(at - slash - 1), &sp->b) || !sp->b ||
		    sp->a + sp->b - 1 < sp->a)
			return fail(-EINVAL, err, errlen,
				    "'%s': expected START/SIZE@FILE with numbers, SIZE > 0", arg);
		return 0;
	}
	if (!at && slash) {
		sp->kind = PTCAP_SPEC_FILE;
		if (!copy(sp->file, sizeof(sp->file), arg, left))
			return fail(-EINVAL, err, errlen, "'%s': file name too long", arg);
		return 0;
	}
	sp->kind = PTCAP_SPEC_SYMBOL;
	/* A number is no symbol: "0x1000" is half a range. */
	if ((*arg >= '0' && *arg <= '9') || !copy(sp->sym, sizeof(sp->sym), arg, left))
		return fail(-EINVAL, err, errlen, "'%s': expected A-B, SYMBOL, SYMBOL@FILE, FILE "
			    "or START/SIZE@FILE", arg);
	return 0;
}

/* ---- files and mappings ---------------------------------------------- */

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/*
 * The mapped file @sp names: @exe for none, else by inode ('/' in the
 * name) or by base name. Returns its path in the maps (or @sp->file/@exe
 * when nothing maps it, *mapped false).
 */
static int find_file(const struct ptcap_spec *sp, const char *exe, const struct ptcap_vma *vma,
		     size_t nvma, const char **path, bool *mapped, char *err, size_t errlen)
{
	const char *want = sp->file[0] ? sp->file : exe;
	bool by_name = sp->file[0] && !strchr(sp->file, '/');
	struct stat ws, vs;
	size_t i;

	*mapped = false;
	*path = want;
	if (!want)
		return fail(-EINVAL, err, errlen, "'%s': SYMBOL without @FILE needs a traced "
			    "program (a command, -p or -t), not -a", sp->sym);
	if (!by_name && stat(want, &ws))
		return fail(-errno, err, errlen, "%s: %s", want, strerror(errno));
	for (i = 0; i < nvma; i++) {
		bool same = by_name ? !strcmp(base_name(vma[i].path), want) :
			    !stat(vma[i].path, &vs) && vs.st_dev == ws.st_dev &&
			    vs.st_ino == ws.st_ino;

		if (!same)
			continue;
		if (*mapped && strcmp(*path, vma[i].path))
			return fail(-ENOTUNIQ, err, errlen, "%s names two mapped files, %s and %s: "
				    "give a path", want, *path, vma[i].path);
		*path = vma[i].path;
		*mapped = true;
	}
	if (by_name && !*mapped)
		return fail(-ENOENT, err, errlen, "%s: no file of that name is mapped in the "
			    "process", want);
	return 0;
}

/*
 * The virtual address of ELF address @v of @path (via its PT_LOADs) in the
 * process (@process: there is one; @mapped: it maps @path).
 */
static int elf_to_va(Elf *elf, const char *path, uint64_t v, bool process, bool mapped,
		     const struct ptcap_vma *vma, size_t nvma, uint64_t *va)
{
	GElf_Ehdr eh;
	size_t n, i, k;

	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &n))
		return -ENOEXEC;
	if (!mapped) {
		if (process)
			return -ENOENT;
		/* No process: only a position-dependent executable's are real. */
		if (eh.e_type != ET_EXEC)
			return -EINVAL;
		*va = v;
		return 0;
	}
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		uint64_t off;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    v < ph.p_vaddr || v - ph.p_vaddr >= ph.p_filesz)
			continue;
		off = v - ph.p_vaddr + ph.p_offset;
		for (k = 0; k < nvma; k++)
			if (!strcmp(vma[k].path, path) && off >= vma[k].offset &&
			    off - vma[k].offset < vma[k].end - vma[k].start) {
				*va = vma[k].start + (off - vma[k].offset);
				return 0;
			}
		return -ENOENT;
	}
	return -ENOEXEC;
}

/* Look @name up in .symtab and .dynsym: its value and size. */
static int find_symbol(Elf *elf, const char *name, uint64_t *value, uint64_t *size)
{
	Elf_Scn *scn = NULL;
	int best = -1, found = 0;	/* best binding rank seen: global 1, local 0 */

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) ||
		    (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; d && i < n; i++) {
			GElf_Sym s;
			const char *sn;
			int type, rank;

			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF || !s.st_size)
				continue;
			type = GELF_ST_TYPE(s.st_info);
			if (type != STT_FUNC && type != STT_GNU_IFUNC)
				continue;
			sn = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!sn || strcmp(sn, name))
				continue;
			rank = GELF_ST_BIND(s.st_info) == STB_LOCAL ? 0 : 1;
			if (rank > best) {
				best = rank;
				found = 0;
			}
			if (rank < best || (found && *value == s.st_value))
				continue;	/* same definition, both tables */
			found++;
			*value = s.st_value;
			*size = s.st_size;
		}
	}
	return !found ? -ESRCH : found > 1 ? -ENOTUNIQ : 0;
}

int ptcap_spec_resolve(const struct ptcap_spec *sp, const char *exe,
		       const struct ptcap_vma *vma, size_t nvma, struct ptcap_range *out,
		       size_t max, char *err, size_t errlen)
{
	const char *path, *what = sp->kind == PTCAP_SPEC_SYMBOL ? sp->sym : "range";
	uint64_t v = 0, size = 0, a, b;
	bool mapped;
	int fd, r, n = 0;
	Elf *elf;

	if (sp->kind == PTCAP_SPEC_ADDR) {
		if (!max)
			return fail(-ENOSPC, err, errlen, "no room for a range");
		out[0].a = sp->a;
		out[0].b = sp->b;
		return 1;
	}
	r = find_file(sp, exe, vma, nvma, &path, &mapped, err, errlen);
	if (r)
		return r;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return fail(-ENOSYS, err, errlen, "libelf: %s", elf_errmsg(-1));
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(-errno, err, errlen, "%s: %s", path, strerror(errno));
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		r = fail(-ENOEXEC, err, errlen, "%s: not an ELF file", path);
		goto out;
	}
	if (sp->kind == PTCAP_SPEC_FILE) {
		size_t i, nph;

		if (elf_getphdrnum(elf, &nph)) {
			r = fail(-ENOEXEC, err, errlen, "%s: no program headers", path);
			goto out;
		}
		/* Each executable segment, as mapped (SDM 33.2.5.3 ranges). */
		for (i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
			    !(ph.p_flags & PF_X) || !ph.p_filesz)
				continue;
			if (n == (int)max) {
				r = fail(-ENOSPC, err, errlen, "%s: more executable segments than "
					 "address ranges", path);
				goto out;
			}
			r = elf_to_va(elf, path, ph.p_vaddr, exe, mapped, vma, nvma, &a);
			if (!r)
				r = elf_to_va(elf, path, ph.p_vaddr + ph.p_filesz - 1, exe, mapped, vma,
					      nvma, &b);
			if (r)
				goto bad_va;
			out[n].a = a;
			out[n++].b = b;
		}
		r = n ? n : fail(-ENOEXEC, err, errlen, "%s: no executable segment", path);
		goto out;
	}
	if (sp->kind == PTCAP_SPEC_SYMBOL) {
		r = find_symbol(elf, sp->sym, &v, &size);
		if (r == -ESRCH) {
			r = fail(r, err, errlen, "%s: no function of that name (with a size) in "
				 "%s's symbol tables%s", sp->sym, path,
				 "; a stripped file keeps only exported ones");
			goto out;
		}
		if (r == -ENOTUNIQ) {
			r = fail(r, err, errlen, "%s: several definitions in %s: give "
				 "START/SIZE@FILE", sp->sym, path);
			goto out;
		}
	} else {
		v = sp->a;
		size = sp->b;
	}
	r = elf_to_va(elf, path, v, exe, mapped, vma, nvma, &a);
	if (!r)
		r = elf_to_va(elf, path, v + size - 1, exe, mapped, vma, nvma, &b);
	if (r)
		goto bad_va;
	if (!max) {
		r = fail(-ENOSPC, err, errlen, "no room for a range");
		goto out;
	}
	out[0].a = a;
	out[0].b = b;
	r = 1;
	goto out;
bad_va:
	if (r == -EINVAL)
		r = fail(r, err, errlen, "%s in %s: a position-independent file: its address is "
			 "known only in a process (a command, -p or -t), not with -a", what, path);
	else if (r == -ENOENT)
		r = fail(r, err, errlen, "%s in %s: %s", what, path, mapped ?
			 "that part of the file is not mapped" :
			 "the file is not mapped in the process (yet)");
	else
		r = fail(r, err, errlen, "%s in %s: not in a loaded segment", what, path);
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return r;
}
