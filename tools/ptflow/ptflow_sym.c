// SPDX-License-Identifier: GPL-2.0
/*
 * ptflow's symbol table: one libdwfl session holding every ELF file the
 * trace is decoded with, each reported at its load bias.
 */
#include "tools/ptflow/ptflow_sym.h"
#include "tools/ptflow/ptflow_debuginfo.h"

#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/*
 * Lookups (issue 17.3) go through three levels, each exact:
 *
 *  1. the last result: consecutive instructions of one function;
 *  2. a cache of SYM_CACHE_SETS sets by 64-byte block of the address, each
 *     holding SYM_CACHE_WAYS results from that block, the latest hit or
 *     addition first (a hit swaps with the front, an addition drops the
 *     last): loops over a few functions (several small functions share a
 *     block: trace_flow_prog's op_add, op_xor and op_mul);
 *  3. the module's address table (struct sym_table): the module's range
 *     cut at every address where libdwfl's answer can change, found by
 *     binary search; each piece asks libdwfl (dwfl_module_addrinfo(),
 *     which scans the symbol table: tens of us) once, at its first use.
 *
 * Every level stores a result with the range of addresses it holds for,
 * a piece of the table, so symbols without size (assembly labels such as
 * _start, or __do_global_dtors_aux in a static program) are cached for
 * their whole range, not address by address.
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

/*
 * One piece of a module's address table: addresses from @lo up to the next
 * piece's @lo (the last: up to the module's end) get the same answer from
 * dwfl_module_addrinfo(), asked once (@done).
 */
struct sym_piece {
	uint64_t lo;
	const char *name;	/* NULL: no symbol */
	uint64_t start, size;	/* the symbol's address and st_size */
	bool done;
};

/*
 * A module's address table, built once from libdwfl (sym_table_build()):
 * pieces sorted by address. Where libdwfl's choice depends on the address
 * (elfutils' __libdwfl_addrsym(): the symbols at or below it, the sized
 * ones that contain it, the section it lies in, a symbol that starts
 * exactly at it), the table has a cut: at every symbol's value, value + 1
 * and end (value + st_size), for the resolved and the plain st_value, and
 * at every section's start, end and end + 1, in every ELF file the
 * module's symbols come from. Between two cuts none of these changes, so
 * neither does the answer. More cuts than needed cost memory only.
 */
struct sym_table {
	Dwfl_Module *mod;
	uint64_t low, high;	/* the module's addresses [low, high) */
	struct sym_piece *piece;
	size_t n;
};

struct ptflow_sym {
	/* First: ptflow_sym_at() reads it. */
	struct ptflow_sym_last at[PTFLOW_SYM_AT_SLOTS];
	Dwfl *dwfl;
	struct sym_table **tables;	/* built so far, to free */
	size_t ntables;
	struct sym_extra *extra;
	size_t nextra;
	bool reporting;		/* between dwfl_report_begin_add and _end */
	struct sym_file *files;
	size_t nfiles;
	FILE *err;
	const char *prog;
	/*
	 * Levels 1 and 2 of a lookup (see SYM_CACHE_SETS). @last points to
	 * the front entry of the set last used: only a lookup in that set
	 * moves its entries, and it sets @last again.
	 */
	struct sym_cached {
		uint64_t lo, hi;	/* addresses [lo, hi) give @s */
		struct ptflow_symbol s;	/* offset to be set from the address */
		Dwfl_Module *mod;	/* NULL: empty */
	} *last, cache[SYM_CACHE_SETS][SYM_CACHE_WAYS];
};

static const Dwfl_Callbacks sym_callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = ptflow_find_debuginfo,
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
	sym->last = &sym->cache[0][0];
	return sym;
}

void ptflow_sym_free(struct ptflow_sym *sym)
{
	size_t i;

	if (!sym)
		return;
	dwfl_end(sym->dwfl);
	for (i = 0; i < sym->ntables; i++) {
		free(sym->tables[i]->piece);
		free(sym->tables[i]);
	}
	free(sym->tables);
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

/* Forget levels 1 and 2 (a new module or symbol may change answers). */
static void sym_cache_clear(struct ptflow_sym *sym)
{
	memset(sym->cache, 0, sizeof(sym->cache));
	sym->last = &sym->cache[0][0];	/* empty: [0, 0) holds nothing */
	memset(sym->at, 0, sizeof(sym->at));
}

/* Open the report session before adding modules. */
static void sym_begin(struct ptflow_sym *sym)
{
	if (!sym->reporting) {
		dwfl_report_begin_add(sym->dwfl);
		sym->reporting = true;
		sym_cache_clear(sym);
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
	sym_cache_clear(sym);

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
 * The cached result for @addr: swapped with the front of its set; NULL when
 * not cached.
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
		if (w) {	/* swap to the front: no move of the others */
			hit = set[w];
			set[w] = set[0];
			set[0] = hit;
		}
		return set;
	}
	return NULL;
}

/*
 * Remember @s for the addresses [@lo, @hi) at the front of @addr's set,
 * dropping the least recently used entry. Returns the entry.
 */
static struct sym_cached *sym_cache_add(struct ptflow_sym *sym, uint64_t addr,
					uint64_t lo, uint64_t hi,
					const struct ptflow_symbol *s,
					Dwfl_Module *mod)
{
	struct sym_cached *set = sym->cache[(addr >> 6) & (SYM_CACHE_SETS - 1)];

	memmove(set + 1, set, (SYM_CACHE_WAYS - 1) * sizeof(*set));
	set[0].lo = lo;
	set[0].hi = hi;
	set[0].s = *s;
	set[0].s.name_len = s->name ? strlen(s->name) : 0;
	set[0].mod = mod;
	return set;
}

/* A growing array of cut addresses. */
struct sym_cuts {
	uint64_t *a;
	size_t n, cap;
	bool failed;		/* out of memory */
};

/* Add @addr to @c if it lies in [@low, @high). */
static void cut_add(struct sym_cuts *c, uint64_t addr, uint64_t low,
		    uint64_t high)
{
	uint64_t *a;

	if (addr < low || addr >= high || c->failed)
		return;
	if (c->n == c->cap) {
		c->cap = c->cap ? 2 * c->cap : 1024;
		a = realloc(c->a, c->cap * sizeof(*a));
		if (!a) {
			c->failed = true;
			return;
		}
		c->a = a;
	}
	c->a[c->n++] = addr;
}

/* Cuts at the start and end of every section of @elf, moved by @bias. */
static void cut_sections(struct sym_cuts *c, Elf *elf, uint64_t bias,
			 uint64_t low, uint64_t high)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		cut_add(c, sh.sh_addr + bias, low, high);
		/* libdwfl counts a section's end address as inside it
		 * (derelocate.c, find_section()). */
		cut_add(c, sh.sh_addr + sh.sh_size + bias, low, high);
		cut_add(c, sh.sh_addr + sh.sh_size + bias + 1, low, high);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Build @mod's address table (struct sym_table) from its symbols
 * (dwfl_module_getsym_info()) and the sections of its ELF files. Returns
 * the table, or NULL when out of memory.
 */
static struct sym_table *sym_table_build(Dwfl_Module *mod)
{
	struct sym_cuts c = { NULL, 0, 0, false };
	struct sym_table *t = calloc(1, sizeof(*t));
	Elf *seen[4] = { NULL };
	size_t nseen = 0, i, k;
	GElf_Addr low = 0, high = 0, bias;
	Elf *elf;
	int nsym, n;

	if (!t)
		return NULL;
	dwfl_module_info(mod, NULL, &low, &high, NULL, NULL, NULL, NULL);
	t->mod = mod;
	t->low = low;
	t->high = high;
	cut_add(&c, low, low, high);
	elf = dwfl_module_getelf(mod, &bias);
	if (elf) {
		cut_sections(&c, elf, bias, low, high);
		seen[nseen++] = elf;
	}
	nsym = dwfl_module_getsymtab(mod);
	for (n = 1; n < nsym; n++) {
		GElf_Sym s;
		GElf_Addr value;
		GElf_Word shndx;
		Dwarf_Addr sbias = 0;
		Elf *selv = NULL;

		if (!dwfl_module_getsym_info(mod, n, &s, &value, &shndx,
					     &selv, &sbias))
			continue;
		cut_add(&c, value, low, high);
		cut_add(&c, value + 1, low, high);
		cut_add(&c, value + s.st_size, low, high);
		/* The unresolved st_value (differs with function
		 * descriptors), which libdwfl tries too. */
		cut_add(&c, s.st_value + sbias, low, high);
		cut_add(&c, s.st_value + sbias + 1, low, high);
		cut_add(&c, s.st_value + sbias + s.st_size, low, high);
		/* The ELF file it came from (main or debug file): its
		 * sections decide "same section" for sizeless symbols. */
		for (k = 0; k < nseen && seen[k] != selv; k++)
			;
		if (selv && k == nseen &&
		    nseen < sizeof(seen) / sizeof(seen[0])) {
			seen[nseen++] = selv;
			cut_sections(&c, selv, sbias, low, high);
		}
	}
	if (c.failed || !c.n)
		goto fail;
	qsort(c.a, c.n, sizeof(*c.a), cmp_u64);
	t->piece = calloc(c.n, sizeof(*t->piece));
	if (!t->piece)
		goto fail;
	for (i = 0; i < c.n; i++)
		if (!t->n || t->piece[t->n - 1].lo != c.a[i])
			t->piece[t->n++].lo = c.a[i];
	free(c.a);
	return t;
fail:
	free(c.a);
	free(t);
	return NULL;
}

/* @mod's address table, built at its first use; NULL: out of memory. */
static struct sym_table *sym_table_of(struct ptflow_sym *sym,
				      Dwfl_Module *mod)
{
	struct sym_table *t, **tables;
	void **user;

	dwfl_module_info(mod, &user, NULL, NULL, NULL, NULL, NULL, NULL);
	t = *user;
	if (t)
		return t;
	tables = realloc(sym->tables, (sym->ntables + 1) * sizeof(*tables));
	if (!tables)
		return NULL;
	sym->tables = tables;
	t = sym_table_build(mod);
	if (!t)
		return NULL;
	sym->tables[sym->ntables++] = t;
	*user = t;
	return t;
}

/*
 * libdwfl's answer for @addr in @mod: @out's name, start and size.
 *
 * A symbol without size (st_size 0: assembly labels such as _init and
 * _fini) covers, for libdwfl, every address up to the next symbol inside
 * its section. An ELF image without section headers (a page-cache dump of
 * a loaded program: kAFL's, /proc/PID/mem) has no sections to end it: its
 * dynamic symbols would name the whole program _init+0x... or _fini+0x...
 * There such a symbol names only its own address; others get no name
 * rather than a wrong one (Documentation/ptflow.rst, "Symbols").
 */
static void sym_addrinfo(Dwfl_Module *mod, uint64_t addr,
			 struct ptflow_symbol *out)
{
	GElf_Off off = 0;
	Elf *elf = NULL;
	size_t shnum;
	GElf_Sym s;

	out->name = dwfl_module_addrinfo(mod, addr, &off, &s, NULL, &elf,
					 NULL);
	if (out->name && !*out->name)
		out->name = NULL;
	if (out->name && !s.st_size && off &&
	    (!elf || elf_getshdrnum(elf, &shnum) || !shnum))
		out->name = NULL;
	if (out->name) {
		out->start = addr - off;
		out->size = s.st_size;
	}
}

/*
 * The piece of @t holding @addr (t->low <= addr < t->high), asked of
 * libdwfl if not yet; its range [*lo, *hi).
 */
static const struct sym_piece *sym_table_find(struct sym_table *t,
					      uint64_t addr, uint64_t *lo,
					      uint64_t *hi)
{
	size_t a = 0, b = t->n;
	struct sym_piece *p;

	/* The last piece with lo <= addr; piece[0].lo is t->low. */
	while (b - a > 1) {
		size_t m = a + (b - a) / 2;

		if (t->piece[m].lo <= addr)
			a = m;
		else
			b = m;
	}
	p = &t->piece[a];
	*lo = p->lo;
	*hi = a + 1 < t->n ? t->piece[a + 1].lo : t->high;
	if (!p->done) {
		struct ptflow_symbol s;

		/* Any address of the piece gives the same answer. */
		memset(&s, 0, sizeof(s));
		sym_addrinfo(t->mod, p->lo, &s);
		p->name = s.name;
		p->start = s.start;
		p->size = s.size;
		p->done = true;
	}
	return p;
}

/*
 * Look @addr up in its module @mod without the caches: @out's module, and
 * its symbol if any; [*lo, *hi) the addresses with the same answer.
 */
static void sym_lookup_module(struct ptflow_sym *sym, Dwfl_Module *mod,
			      uint64_t addr, struct ptflow_symbol *out,
			      uint64_t *lo, uint64_t *hi)
{
	struct sym_table *t = sym_table_of(sym, mod);
	GElf_Addr low = 0;

	out->module = dwfl_module_info(mod, NULL, &low, NULL, NULL, NULL,
				       NULL, NULL);
	out->module_start = low;
	if (t && addr >= t->low && addr < t->high) {
		const struct sym_piece *p = sym_table_find(t, addr, lo, hi);

		out->name = p->name;
		out->start = p->start;
		out->size = p->size;
	} else {
		/* No table (out of memory): libdwfl for this address. */
		sym_addrinfo(mod, addr, out);
		*lo = addr;
		*hi = addr + 1;
	}
}

/* @out from the newest extra symbol covering @addr; false: none. */
static bool sym_lookup_extra(const struct ptflow_sym *sym, uint64_t addr,
			     struct ptflow_symbol *out)
{
	const struct sym_extra *e = sym_extra_find(sym, addr);

	if (!e)
		return false;
	out->name = e->name;
	out->name_len = strlen(e->name);
	out->start = e->start;
	out->size = e->size;
	out->offset = addr - e->start;
	out->module = e->module;
	out->module_start = e->start;
	return true;
}

bool ptflow_sym_lookup_dwfl(struct ptflow_sym *sym, uint64_t addr,
			    struct ptflow_symbol *out)
{
	Dwfl_Module *mod;
	GElf_Addr low = 0;

	memset(out, 0, sizeof(*out));
	if (!sym)
		return false;
	sym_end(sym);
	mod = dwfl_addrmodule(sym->dwfl, addr);
	if (!mod)
		return sym_lookup_extra(sym, addr, out);
	out->module = dwfl_module_info(mod, NULL, &low, NULL, NULL, NULL,
				       NULL, NULL);
	out->module_start = low;
	sym_addrinfo(mod, addr, out);
	if (out->name) {
		out->offset = addr - out->start;
		out->name_len = strlen(out->name);
	}
	return out->name != NULL;
}

/*
 * Levels 1-3 for @addr: its cache entry (also sym->last), or NULL for an
 * address of no module, with @miss filled from the extra symbols then.
 */
static const struct sym_cached *sym_find(struct ptflow_sym *sym,
					 uint64_t addr,
					 struct ptflow_symbol *miss)
{
	struct sym_cached *c;
	Dwfl_Module *mod;
	uint64_t lo, hi;

	sym_end(sym);
	c = sym->last;
	if (addr - c->lo < c->hi - c->lo)
		return c;
	c = sym_cache_find(sym, addr);
	if (!c) {
		memset(miss, 0, sizeof(*miss));
		mod = dwfl_addrmodule(sym->dwfl, addr);
		if (!mod) {
			sym_lookup_extra(sym, addr, miss);
			return NULL;
		}
		sym_lookup_module(sym, mod, addr, miss, &lo, &hi);
		c = sym_cache_add(sym, addr, lo, hi, miss, mod);
	}
	sym->last = c;
	return c;
}

const struct ptflow_symbol *ptflow_sym_at_slow(struct ptflow_sym *sym,
					       uint64_t addr)
{
	struct ptflow_sym_last *at = &sym->at[(addr >> PTFLOW_SYM_AT_SHIFT) &
					      (PTFLOW_SYM_AT_SLOTS - 1)];
	const struct sym_cached *c;
	struct ptflow_symbol miss;

	c = sym_find(sym, addr, &miss);
	if (c) {
		at->lo = c->lo;
		at->hi = c->hi;
		at->s = c->s;
		/*
		 * A symbol's first byte is a piece of its own (the cut at
		 * value + 1, sym_table_build()), in the slot of the rest:
		 * with the piece after it, if that gives the same symbol,
		 * one slot holds the whole (a call costs one miss, not one
		 * per instruction of the first block).
		 */
		if (at->hi - at->lo == 1 && at->s.name) {
			c = sym_find(sym, at->hi, &miss);
			if (c && c->lo == at->hi && c->s.name == at->s.name &&
			    c->s.start == at->s.start)
				at->hi = c->hi;
		}
	} else {
		at->lo = addr;
		at->hi = addr + 1;
		at->s = miss;
	}
	return at->s.name ? &at->s : NULL;
}

bool ptflow_sym_span(struct ptflow_sym *sym, uint64_t addr, uint64_t *lo,
		     uint64_t *hi)
{
	const struct sym_cached *c;
	struct ptflow_symbol miss;

	if (!sym)
		return false;
	c = sym_find(sym, addr, &miss);
	if (!c)
		return false;
	*lo = c->lo;
	*hi = c->hi;
	return true;
}

bool ptflow_sym_lookup(struct ptflow_sym *sym, uint64_t addr, bool want_line,
		       struct ptflow_symbol *out)
{
	const struct sym_cached *c;

	if (!sym) {
		memset(out, 0, sizeof(*out));
		return false;
	}
	c = sym_find(sym, addr, out);
	if (!c)
		return out->name != NULL;
	*out = c->s;
	if (out->name)
		out->offset = addr - out->start;
	if (want_line) {
		Dwfl_Line *line = dwfl_module_getsrc(c->mod, addr);

		if (line)
			out->file = dwfl_lineinfo(line, NULL, &out->line, NULL,
						  NULL, NULL);
	}
	return out->name != NULL;
}

/* The two hex digits of each byte value, for format_hex(). */
static const char hex_pairs[256][2] = {
	"00", "01", "02", "03", "04", "05", "06", "07",
	"08", "09", "0a", "0b", "0c", "0d", "0e", "0f",
	"10", "11", "12", "13", "14", "15", "16", "17",
	"18", "19", "1a", "1b", "1c", "1d", "1e", "1f",
	"20", "21", "22", "23", "24", "25", "26", "27",
	"28", "29", "2a", "2b", "2c", "2d", "2e", "2f",
	"30", "31", "32", "33", "34", "35", "36", "37",
	"38", "39", "3a", "3b", "3c", "3d", "3e", "3f",
	"40", "41", "42", "43", "44", "45", "46", "47",
	"48", "49", "4a", "4b", "4c", "4d", "4e", "4f",
	"50", "51", "52", "53", "54", "55", "56", "57",
	"58", "59", "5a", "5b", "5c", "5d", "5e", "5f",
	"60", "61", "62", "63", "64", "65", "66", "67",
	"68", "69", "6a", "6b", "6c", "6d", "6e", "6f",
	"70", "71", "72", "73", "74", "75", "76", "77",
	"78", "79", "7a", "7b", "7c", "7d", "7e", "7f",
	"80", "81", "82", "83", "84", "85", "86", "87",
	"88", "89", "8a", "8b", "8c", "8d", "8e", "8f",
	"90", "91", "92", "93", "94", "95", "96", "97",
	"98", "99", "9a", "9b", "9c", "9d", "9e", "9f",
	"a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7",
	"a8", "a9", "aa", "ab", "ac", "ad", "ae", "af",
	"b0", "b1", "b2", "b3", "b4", "b5", "b6", "b7",
	"b8", "b9", "ba", "bb", "bc", "bd", "be", "bf",
	"c0", "c1", "c2", "c3", "c4", "c5", "c6", "c7",
	"c8", "c9", "ca", "cb", "cc", "cd", "ce", "cf",
	"d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7",
	"d8", "d9", "da", "db", "dc", "dd", "de", "df",
	"e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7",
	"e8", "e9", "ea", "eb", "ec", "ed", "ee", "ef",
	"f0", "f1", "f2", "f3", "f4", "f5", "f6", "f7",
	"f8", "f9", "fa", "fb", "fc", "fd", "fe", "ff",
};

/*
 * snprintf(@buf, @size, "%.*s0x%" PRIx64, (int)@n, @pre, @v) without
 * printf (a --calls line per call and return names an address): the
 * digits written in place, from the last. @pre may be @buf itself when
 * the whole text fits.
 */
static void format_hex(char *buf, size_t size, const char *pre, size_t n,
		       uint64_t v)
{
	/* "0x" and the digits: one for each 4 bits up to the highest set */
	size_t m = 3 + (size_t)(63 - __builtin_clzll(v | 1)) / 4, i;

	if (n + m >= size) {	/* cut as snprintf */
		snprintf(buf, size, "%.*s0x%" PRIx64, (int)n, pre, v);
		return;
	}
	if (n && pre != buf)	/* @buf: @pre is in place */
		memcpy(buf, pre, n);
	buf[n] = '0';
	buf[n + 1] = 'x';
	buf[n + m] = 0;
	/* two digits a step, from the last; an odd one first */
	for (i = n + m; i > n + 3; v >>= 8) {
		i -= 2;
		memcpy(buf + i, hex_pairs[v & 0xff], 2);
	}
	if (i > n + 2)
		buf[--i] = "0123456789abcdef"[v & 15];
}

bool ptflow_sym_format(struct ptflow_sym *sym, uint64_t addr, char *buf,
		       size_t size)
{
	/* ptflow_sym_at(): ptflow_sym_lookup()'s answer, from the slot of
	 * @addr when it holds it (a --calls line names every call) */
	const struct ptflow_symbol *s = ptflow_sym_at(sym, addr);
	size_t n;

	if (!s) {
		format_hex(buf, size, "", 0, addr);
		return false;
	}
	n = strlen(s->name);
	if (addr != s->start) {
		char pre[512];

		if (n + 1 + 18 < size) {	/* "+0x" and up to 16 digits fit */
			memcpy(buf, s->name, n);
			buf[n] = '+';
			format_hex(buf, size, buf, n + 1, addr - s->start);
		} else if (n + 1 < sizeof(pre)) {
			memcpy(pre, s->name, n);
			pre[n] = '+';
			format_hex(buf, size, pre, n + 1, addr - s->start);
		} else {
			snprintf(buf, size, "%s+0x%" PRIx64, s->name,
				 addr - s->start);
		}
	} else if (n < size) {
		memcpy(buf, s->name, n + 1);
	} else {
		snprintf(buf, size, "%s", s->name);
	}
	return true;
}
