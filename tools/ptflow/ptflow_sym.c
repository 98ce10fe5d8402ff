// SPDX-License-Identifier: GPL-2.0
/*
 * ptflow's symbol table: one libdwfl session holding every ELF file the
 * trace is decoded with, each reported at its load bias.
 */
#include "tools/ptflow/ptflow_sym.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * The lookup cache: sets (a power of two) by 64-byte block of the address,
 * each holding the last SYM_CACHE_WAYS results found from that block, most
 * recent first. Several small functions share a block (trace_flow_prog's
 * op_add, op_xor and op_mul): with one entry per block they evicted each
 * other, and every third instruction cost a libdwfl lookup (tens of us,
 * against tens of ns to decode an instruction; issue 17.3). 512 x 8
 * entries (about 400 KiB, touched as used) leave trace_flow_prog's flow
 * about one miss per thousand instructions.
 */
#define SYM_CACHE_SETS	512
#define SYM_CACHE_WAYS	8

/* Pages of /proc/PID/maps and of ptcap's maps lines. */
#define SYM_PAGE_MASK	0xfffull

/* One reported file: not reported twice at the same bias. */
struct sym_file {
	char *path;
	uint64_t bias;
	uint64_t addr;		/* an address inside it */
	bool checked;		/* stripped or not, noted */
};

/* A symbol of generated code (ptflow_sym_add_symbol()). */
struct sym_extra {
	char *name;
	char *module;
	uint64_t start, size;
};

struct ptflow_sym {
	Dwfl *dwfl;
	struct sym_extra *extra;
	size_t nextra;
	bool reporting;		/* between dwfl_report_begin_add and _end */
	struct sym_file *files;
	size_t nfiles;
	FILE *err;
	const char *prog;
	/*
	 * Symbols found lately, by 64-byte block of the address: consecutive
	 * instructions and loops over a few functions share them, and
	 * libdwfl's address lookup scans the symbol table (bench_ptflow_sym).
	 */
	struct sym_cached {
		uint64_t lo, hi;	/* addresses [lo, hi) give @s */
		struct ptflow_symbol s;	/* offset to be set from the address */
		Dwfl_Module *mod;	/* NULL: empty */
	} cache[SYM_CACHE_SETS][SYM_CACHE_WAYS];
};

static const Dwfl_Callbacks sym_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

struct ptflow_sym *ptflow_sym_alloc(FILE *err, const char *prog)
{
	struct ptflow_sym *sym = calloc(1, sizeof(*sym));

	if (!sym)
		return NULL;
	elf_version(EV_CURRENT);
	sym->dwfl = dwfl_begin(&sym_callbacks);
	if (!sym->dwfl) {
		free(sym);
		return NULL;
	}
	sym->err = err;
	sym->prog = prog;
	return sym;
}

void ptflow_sym_free(struct ptflow_sym *sym)
{
	size_t i;

	if (!sym)
		return;
	dwfl_end(sym->dwfl);
	for (i = 0; i < sym->nextra; i++) {
		free(sym->extra[i].name);
		free(sym->extra[i].module);
	}
	free(sym->extra);
	for (i = 0; i < sym->nfiles; i++)
		free(sym->files[i].path);
	free(sym->files);
	free(sym);
}

/* Open the report session before adding modules. */
static void sym_begin(struct ptflow_sym *sym)
{
	if (!sym->reporting) {
		dwfl_report_begin_add(sym->dwfl);
		sym->reporting = true;
		memset(sym->cache, 0, sizeof(sym->cache));
	}
}

/*
 * Close the report session before a lookup, and note the new files that
 * have no symbol table (libdwfl computes a module's bias at the end of
 * the report: its symbols are only asked for after that).
 */
static void sym_end(struct ptflow_sym *sym)
{
	size_t i;

	if (!sym->reporting)
		return;
	dwfl_report_end(sym->dwfl, NULL, NULL);
	sym->reporting = false;
	for (i = 0; i < sym->nfiles; i++) {
		struct sym_file *f = &sym->files[i];
		Dwfl_Module *mod;

		if (f->checked)
			continue;
		f->checked = true;
		mod = dwfl_addrmodule(sym->dwfl, f->addr);
		if (mod && dwfl_module_getsymtab(mod) <= 0 && sym->err)
			fprintf(sym->err, "%s: note: %s has no symbol table "
				"(stripped): its code is shown by address "
				"only\n", sym->prog, f->path);
	}
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/*
 * The load bias of @path: the difference between run-time addresses and
 * the file's p_vaddr (0 for ET_EXEC). With @by_offset, the PT_LOAD
 * segment holding file offset @off is placed at @addr; otherwise the
 * lowest PT_LOAD segment, page-aligned, at @addr (ptflow --elf FILE:BASE).
 * Returns 0, or -1 if the file is no ELF with a loadable segment.
 */
static int elf_bias(const char *path, bool by_offset, uint64_t off,
		    uint64_t addr, uint64_t *bias, bool *is_exec,
		    uint64_t *low_out)
{
	uint64_t low = UINT64_MAX;
	bool found = false;
	GElf_Ehdr ehdr;
	size_t phnum, i;
	Elf *elf;
	int fd, ret = -1;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (!elf || !gelf_getehdr(elf, &ehdr) || elf_getphdrnum(elf, &phnum))
		goto out;
	*is_exec = ehdr.e_type == ET_EXEC;
	for (i = 0; i < phnum; i++) {
		GElf_Phdr ph;
		uint64_t pg;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if ((ph.p_vaddr & ~SYM_PAGE_MASK) < low)
			low = ph.p_vaddr & ~SYM_PAGE_MASK;
		pg = ph.p_offset & ~SYM_PAGE_MASK;
		if (by_offset && !found && off >= pg &&
		    off < ph.p_offset + ph.p_filesz) {
			/* ELF gABI, "Program Loading": p_vaddr and
			 * p_offset are congruent modulo the page size. */
			*bias = addr - ((ph.p_vaddr & ~SYM_PAGE_MASK) +
					(off - pg));
			found = true;
		}
	}
	if (!by_offset && low != UINT64_MAX) {
		*bias = addr - low;
		found = true;
	}
	if (found) {
		if (*is_exec)
			*bias = 0;
		*low_out = low;
		ret = 0;
	}
out:
	elf_end(elf);
	close(fd);
	return ret;
}

/*
 * Report @path at @bias, @addr an address inside it, unless it already is
 * (at any bias: one process maps a file once; its first mapping, the one
 * at the lowest address with file offset 0 as ld.so maps, sets the bias;
 * later ones, e.g. a RELRO page that shares a file page with .rodata, are
 * ambiguous by offset alone). Returns 0 or -1 (memory).
 */
static int sym_report(struct ptflow_sym *sym, const char *path, uint64_t bias,
		      uint64_t addr)
{
	struct sym_file *f;
	Dwfl_Module *mod;
	size_t i;

	for (i = 0; i < sym->nfiles; i++)
		if (!strcmp(sym->files[i].path, path))
			return 0;
	f = realloc(sym->files, (sym->nfiles + 1) * sizeof(*f));
	if (!f)
		return -1;
	sym->files = f;
	f = &sym->files[sym->nfiles];
	f->path = strdup(path);
	if (!f->path)
		return -1;
	f->bias = bias;
	f->addr = addr;
	f->checked = false;
	sym->nfiles++;

	sym_begin(sym);
	/* ET_DYN with add_p_vaddr: @bias is added to every p_vaddr. */
	mod = dwfl_report_elf(sym->dwfl, base_name(path), path, -1,
			      (GElf_Addr)bias, true);
	/* Fails only for a range that overlaps a file added before (the
	 * same file under another name, or given twice): that one names it. */
	if (!mod)
		sym->files[sym->nfiles - 1].checked = true;
	return 0;
}

int ptflow_sym_add_mapping(struct ptflow_sym *sym, const char *path,
			   uint64_t start, uint64_t offset)
{
	uint64_t bias = 0;
	bool is_exec = false;

	uint64_t low;

	if (elf_bias(path, true, offset, start, &bias, &is_exec, &low))
		return 0;
	return sym_report(sym, path, bias, start);
}

int ptflow_sym_add_elf(struct ptflow_sym *sym, const char *path,
		       bool has_base, uint64_t base)
{
	uint64_t bias = 0;
	bool is_exec = false;

	uint64_t low;

	if (elf_bias(path, false, 0, base, &bias, &is_exec, &low))
		return 0;
	if (!has_base)
		bias = 0;
	/* An address inside: the lowest PT_LOAD's page, moved. */
	return sym_report(sym, path, bias, low + bias);
}

int ptflow_sym_add_symbol(struct ptflow_sym *sym, const char *name,
			  uint64_t start, uint64_t size, const char *module)
{
	struct sym_extra *e;

	/* The cache may hide the new range. */
	memset(sym->cache, 0, sizeof(sym->cache));

	e = realloc(sym->extra, (sym->nextra + 1) * sizeof(*e));
	if (!e)
		return -1;
	sym->extra = e;
	e = &sym->extra[sym->nextra];
	e->name = strdup(name);
	e->module = strdup(module);
	e->start = start;
	e->size = size;
	if (!e->name || !e->module) {
		free(e->name);
		free(e->module);
		return -1;
	}
	sym->nextra++;
	return 0;
}

/* The newest extra symbol covering @addr, or NULL. */
static const struct sym_extra *sym_extra_find(const struct ptflow_sym *sym,
					      uint64_t addr)
{
	size_t i;

	for (i = sym->nextra; i > 0; i--) {
		const struct sym_extra *e = &sym->extra[i - 1];

		if (addr >= e->start && addr - e->start < e->size)
			return e;
	}
	return NULL;
}

/*
 * The cached result for @addr: moved to the front of its set; NULL when not
 * cached.
 */
static struct sym_cached *sym_cache_find(struct ptflow_sym *sym,
					 uint64_t addr)
{
	struct sym_cached *set = sym->cache[(addr >> 6) & (SYM_CACHE_SETS - 1)];
	struct sym_cached hit;
	unsigned int w;

	for (w = 0; w < SYM_CACHE_WAYS && set[w].mod; w++) {
		if (addr - set[w].lo >= set[w].hi - set[w].lo)
			continue;
		if (w) {
			hit = set[w];
			memmove(set + 1, set, w * sizeof(*set));
			set[0] = hit;
		}
		return set;
	}
	return NULL;
}

/*
 * Remember @s for the addresses [@lo, @hi) at the front of @addr's set,
 * dropping the least recently used entry.
 */
static void sym_cache_add(struct ptflow_sym *sym, uint64_t addr,
			  uint64_t lo, uint64_t hi,
			  const struct ptflow_symbol *s, Dwfl_Module *mod)
{
	struct sym_cached *set = sym->cache[(addr >> 6) & (SYM_CACHE_SETS - 1)];

	memmove(set + 1, set, (SYM_CACHE_WAYS - 1) * sizeof(*set));
	set[0].lo = lo;
	set[0].hi = hi;
	set[0].s = *s;
	set[0].mod = mod;
}

bool ptflow_sym_lookup(struct ptflow_sym *sym, uint64_t addr, bool want_line,
		       struct ptflow_symbol *out)
{
	const struct sym_extra *e;
	struct sym_cached *c;

	Dwfl_Module *mod;
	GElf_Addr off = 0, low = 0;
	GElf_Sym s;

	memset(out, 0, sizeof(*out));
	if (!sym)
		return false;
	sym_end(sym);
	c = sym_cache_find(sym, addr);
	if (c) {
		*out = c->s;
		if (out->name)
			out->offset = addr - out->start;
		mod = c->mod;
		goto line;
	}
	mod = dwfl_addrmodule(sym->dwfl, addr);
	if (!mod) {
		e = sym_extra_find(sym, addr);
		if (!e)
			return false;
		out->name = e->name;
		out->start = e->start;
		out->size = e->size;
		out->offset = addr - e->start;
		out->module = e->module;
		out->module_start = e->start;
		return true;
	}
	out->module = dwfl_module_info(mod, NULL, &low, NULL, NULL, NULL,
				       NULL, NULL);
	out->module_start = low;
	out->name = dwfl_module_addrinfo(mod, addr, &off, &s, NULL, NULL,
					 NULL);
	if (out->name && !*out->name)
		out->name = NULL;
	if (out->name) {
		out->offset = off;
		out->start = addr - off;
		out->size = s.st_size;
	}
	/*
	 * A sized symbol holds for its whole range; no symbol, or one
	 * without size (its range ends at an unknown next symbol), only for
	 * this address.
	 */
	if (out->name && addr - out->start < out->size)
		sym_cache_add(sym, addr, out->start, out->start + out->size,
			      out, mod);
	else
		sym_cache_add(sym, addr, addr, addr + 1, out, mod);
line:
	if (want_line) {
		Dwfl_Line *line = dwfl_module_getsrc(mod, addr);

		if (line)
			out->file = dwfl_lineinfo(line, NULL, &out->line, NULL,
						  NULL, NULL);
	}
	return out->name != NULL;
}

bool ptflow_sym_format(struct ptflow_sym *sym, uint64_t addr, char *buf,
		       size_t size)
{
	struct ptflow_symbol s;

	if (!ptflow_sym_lookup(sym, addr, false, &s)) {
		snprintf(buf, size, "0x%" PRIx64, addr);
		return false;
	}
	if (s.offset)
		snprintf(buf, size, "%s+0x%" PRIx64, s.name, s.offset);
	else
		snprintf(buf, size, "%s", s.name);
	return true;
}
