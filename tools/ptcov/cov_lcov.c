// SPDX-License-Identifier: GPL-2.0
/*
 * lcov tracefile from edges (cov_lcov.h). Rules: Documentation/ptcov.rst
 * "lcov". One DWARF lookup per distinct executed address: the rows of all
 * line tables are read once into one sorted array, each executed
 * instruction is looked up once, and every execution only adds counts.
 */
#include "tools/ptcov/cov_lcov.h"
#include "tools/ptcov/cov_strtab.h"
#include "tools/ptflow/ptflow_debuginfo.h"

#include <elfutils/libdwfl.h>
#include <errno.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define NO_LINE UINT32_MAX

/* One row of a line table, at its module's address. */
struct row {
	uint64_t addr;
	uint32_t seq;		/* order read: the last row at an address wins */
	uint32_t line;		/* index into lc.lines; NO_LINE: end of sequence */
};

/* One source line. */
struct line {
	uint32_t file, no;
	uint64_t count;		/* entries (gcov's rule) */
	bool hit;
};

struct func {
	const char *name;	/* libdwfl's, valid while dwfl lives */
	uint64_t addr, size, count;
	uint32_t line;		/* its declaration's line (DW_AT_decl_line),
				 * else the line of its first byte; NO_LINE:
				 * no line table there */
	size_t mod;
};

/* A function's declaration line, by its DW_AT_low_pc. */
struct decl {
	uint64_t addr;
	uint32_t line;
};

struct br {
	uint32_t line;
	uint64_t taken, nottaken, exec;
};

struct lc {
	struct cov_strtab files;	/* source files, by index */
	const char *last_src;	/* file_id()'s last name (libdw's string) */
	long last_fid;		/* and its index */
	struct line *lines;
	size_t nlines, cline;
	uint32_t *lhash;	/* open addressing: index + 1 */
	size_t lmask;
	struct row *rows;
	size_t nrows, crows;
	struct func *fn;
	size_t nfn, cfn;
	struct br *br;
	size_t nbr, cbr;
	struct decl *decl;
	size_t ndecl, cdecl;
	Dwarf_Addr bias;	/* of the module being read */
	bool nomem;
	size_t near;		/* find_near()'s last index */
	size_t row_near;	/* row_at()'s last row */
	long walk_row;		/* line_at()'s last row, address, state */
	uint64_t walk_addr;
	bool walk_gap;
};

static void *grow(void *p, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return p;
	size_t c = *cap ? 2 * *cap : 256;
	void *q = realloc(p, c * size);

	if (q)
		*cap = c;
	return q;
}

/*
 * The index of source file @name, added if new; -1 when out of memory.
 * Rows come file by file with libdw's own string for each file: the last
 * one is compared by address first; the others are found by a hash (a
 * library's debug info names thousands of files).
 */
static long file_id(struct lc *lc, const char *name)
{
	long id;

	if (name == lc->last_src)
		return lc->last_fid;
	id = cov_strtab_id(&lc->files, name);
	if (id >= 0) {
		lc->last_src = name;
		lc->last_fid = id;
	}
	return id;
}

static uint64_t mix(uint64_t v)
{
	v ^= v >> 33;
	v *= 0xff51afd7ed558ccdull;
	v ^= v >> 33;
	return v;
}

/* The index of (file, no), added if new; NO_LINE when out of memory. */
static uint32_t line_id(struct lc *lc, uint32_t file, uint32_t no)
{
	uint64_t key = (uint64_t)file << 32 | no;

	if (2 * (lc->nlines + 1) > lc->lmask + 1 || !lc->lhash) {
		size_t cap = lc->lhash ? 2 * (lc->lmask + 1) : 1024;
		uint32_t *h = calloc(cap, sizeof(*h));

		if (!h)
			return NO_LINE;
		for (size_t i = 0; i < lc->nlines; i++) {
			uint64_t k = (uint64_t)lc->lines[i].file << 32 | lc->lines[i].no;
			size_t j = mix(k) & (cap - 1);

			while (h[j])
				j = (j + 1) & (cap - 1);
			h[j] = (uint32_t)i + 1;
		}
		free(lc->lhash);
		lc->lhash = h;
		lc->lmask = cap - 1;
	}
	size_t j = mix(key) & lc->lmask;

	while (lc->lhash[j]) {
		const struct line *l = &lc->lines[lc->lhash[j] - 1];

		if (l->file == file && l->no == no)
			return lc->lhash[j] - 1;
		j = (j + 1) & lc->lmask;
	}
	struct line *nl = grow(lc->lines, &lc->cline, lc->nlines, sizeof(*nl));

	if (!nl)
		return NO_LINE;
	lc->lines = nl;
	nl[lc->nlines] = (struct line){ .file = file, .no = no };
	lc->lhash[j] = (uint32_t)lc->nlines + 1;
	return (uint32_t)lc->nlines++;
}

/*
 * lc->rows by address, then the order read (seq, their index now): a
 * stable radix sort by address gives just that, linear in the rows (a
 * library's debug info has hundreds of thousands). 0 or -1 (ENOMEM).
 */
static int sort_rows(struct lc *lc)
{
	uint32_t *idx = cov_sorted_idx(lc->nrows, lc->rows, sizeof(*lc->rows),
				       offsetof(struct row, addr));
	struct row *s = malloc(lc->nrows * sizeof(*s));

	if (!idx || !s) {
		free(idx);
		free(s);
		return -1;
	}
	for (size_t i = 0; i < lc->nrows; i++)
		s[i] = lc->rows[idx[i]];
	free(idx);
	free(lc->rows);
	lc->rows = s;
	lc->crows = lc->nrows;
	return 0;
}

/* The index of the last row at or below @addr, or -1. */
static long row_of(const struct lc *lc, uint64_t addr)
{
	size_t lo = 0, hi = lc->nrows;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lc->rows[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

/* row_of() for addresses that mostly come in increasing order (the
 * instructions' lines): the last row found or a few after it before a
 * binary search. */
static long row_at(struct lc *lc, uint64_t addr)
{
	size_t i = lc->row_near;
	long r;

	for (unsigned int k = 0; i < lc->nrows && lc->rows[i].addr <= addr && k < 4; k++, i++) {
		if (i + 1 == lc->nrows || lc->rows[i + 1].addr > addr) {
			lc->row_near = i;
			return (long)i;
		}
	}
	r = row_of(lc, addr);
	if (r >= 0)
		lc->row_near = (size_t)r;
	return r;
}

/* cov_flow_find() for addresses that mostly come in increasing order
 * (line_at(), find_branches()): a few steps on from the last one found
 * before a binary search. */
static const struct cov_insn *find_near(struct lc *lc, const struct cov_flow *f,
					uint64_t a)
{
	size_t i = lc->near;
	const struct cov_insn *x;

	for (unsigned int k = 0; i < f->ninsn && f->insn[i].addr <= a && k < 4; k++, i++) {
		if (f->insn[i].addr == a) {
			lc->near = i;
			return &f->insn[i];
		}
	}
	if (i < f->ninsn && i && f->insn[i - 1].addr < a && f->insn[i].addr > a)
		return NULL;	/* between two executed instructions */
	x = cov_flow_find(f, a);
	if (x)
		lc->near = (size_t)(x - f->insn);
	return x;
}

/* The line of @addr: that of the last row at or below it, unless that row
 * ends a sequence; but a label's code without a row of its own (after an
 * unconditional jump or return inside a row, or from a jump target inside
 * a row on: such as the counter update gcc's --coverage puts at a block's
 * start) takes the line of the row after it (ptcov.rst "lcov"). */
static uint32_t line_at(struct lc *lc, const struct cov_flow *f,
			const struct lpt_cov_image *img, uint64_t addr)
{
	long i = row_at(lc, addr);
	struct lpt_cov_insn in;
	bool gap = false;
	uint64_t a;
	uint8_t len;

	if (i < 0 || lc->rows[i].line == NO_LINE)
		return NO_LINE;
	a = lc->rows[i].addr;
	/* addresses come in order: go on from the last one in this row */
	if (lc->walk_row == i && lc->walk_addr <= addr && lc->walk_addr > a) {
		a = lc->walk_addr;
		gap = lc->walk_gap;
	}
	for (; a <= addr; a += len) {
		/* an executed instruction is in @f, decoded: the others here */
		const struct cov_insn *x = find_near(lc, f, a);
		uint8_t kind;

		if (x && a > lc->rows[i].addr && (x->in_label || x->in_call))
			gap = true;
		if (a == addr) {
			lc->walk_row = i;
			lc->walk_addr = a;
			lc->walk_gap = gap;
			break;
		}
		if (x) {
			len = x->len;
			kind = x->kind;
		} else {
			if (lpt_cov_insn_at(img, a, 64, &in))
				return lc->rows[i].line;
			len = in.len;
			kind = in.kind;
		}
		gap |= kind == LPT_COV_INSN_JMP || kind == LPT_COV_INSN_JMP_IND ||
		       kind == LPT_COV_INSN_RET || kind == LPT_COV_INSN_FAR ||
		       kind == LPT_COV_INSN_UD;
	}
	if (gap && (size_t)i + 1 < lc->nrows && lc->rows[i + 1].line != NO_LINE)
		return lc->rows[i + 1].line;
	return lc->rows[i].line;
}

/* The line of a function's first byte. */
static uint32_t line_of(const struct lc *lc, uint64_t addr)
{
	long i = row_of(lc, addr);

	return i < 0 ? NO_LINE : lc->rows[i].line;
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = ptflow_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static int decl_cb(Dwarf_Die *die, void *arg)
{
	struct lc *lc = arg;
	Dwarf_Addr lo;
	const char *file;
	int ln;

	if (dwarf_lowpc(die, &lo) || dwarf_decl_line(die, &ln) || ln <= 0 ||
	    !(file = dwarf_decl_file(die)))
		return DWARF_CB_OK;
	long fid = file_id(lc, file);
	struct decl *d = grow(lc->decl, &lc->cdecl, lc->ndecl, sizeof(*d));

	if (fid < 0 || !d) {
		lc->nomem = true;
		return DWARF_CB_ABORT;
	}
	lc->decl = d;
	d[lc->ndecl].addr = lo + lc->bias;
	d[lc->ndecl].line = line_id(lc, (uint32_t)fid, (uint32_t)ln);
	if (d[lc->ndecl].line == NO_LINE) {
		lc->nomem = true;
		return DWARF_CB_ABORT;
	}
	lc->ndecl++;
	return DWARF_CB_OK;
}

static int decl_cmp(const void *a, const void *b)
{
	const struct decl *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static uint32_t decl_of(const struct lc *lc, uint64_t addr)
{
	size_t lo = 0, hi = lc->ndecl;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (lc->decl[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < lc->ndecl && lc->decl[lo].addr == addr ? lc->decl[lo].line : NO_LINE;
}

/* The rows of @mod's line tables; returns the number read or -1. */
static long read_rows(struct lc *lc, Dwfl_Module *mod)
{
	Dwarf_Addr bias;
	Dwarf *dw = dwfl_module_getdwarf(mod, &bias);
	Dwarf_Off off = 0, next;
	size_t hsize;
	long nread = 0;

	if (!dw)
		return 0;
	lc->bias = bias;
	while (!dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL)) {
		Dwarf_Die cu;
		Dwarf_Lines *lines;
		size_t n;

		if (dwarf_offdie(dw, off + hsize, &cu)) {
			dwarf_getfuncs(&cu, decl_cb, lc, 0);
			if (lc->nomem)
				return -1;
		}
		if (dwarf_offdie(dw, off + hsize, &cu) &&
		    !dwarf_getsrclines(&cu, &lines, &n)) {
			for (size_t i = 0; i < n; i++) {
				Dwarf_Line *l = dwarf_onesrcline(lines, i);
				Dwarf_Addr a;
				int no;
				bool end;
				const char *src;

				if (!l || dwarf_lineaddr(l, &a) || dwarf_lineno(l, &no) ||
				    dwarf_lineendsequence(l, &end))
					continue;
				src = dwarf_linesrc(l, NULL, NULL);
				struct row *r = grow(lc->rows, &lc->crows, lc->nrows,
						     sizeof(*r));

				if (!r)
					return -1;
				lc->rows = r;
				r = &r[lc->nrows];
				r->addr = a + bias;
				r->seq = (uint32_t)lc->nrows;
				r->line = NO_LINE;
				if (!end && no > 0 && src) {
					long fid = file_id(lc, src);

					if (fid < 0)
						return -1;
					r->line = line_id(lc, (uint32_t)fid, (uint32_t)no);
					if (r->line == NO_LINE)
						return -1;
				}
				lc->nrows++;
				nread++;
			}
		}
		off = next;
	}
	return nread;
}

static int read_funcs(struct lc *lc, Dwfl_Module *mod, size_t m)
{
	int n = dwfl_module_getsymtab(mod);

	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, &shndx,
							   NULL, NULL);

		if (!name || !*name || GELF_ST_TYPE(sym.st_info) != STT_FUNC ||
		    !sym.st_size || shndx == SHN_UNDEF)
			continue;
		struct func *f = grow(lc->fn, &lc->cfn, lc->nfn, sizeof(*f));

		if (!f)
			return -1;
		lc->fn = f;
		f[lc->nfn++] = (struct func){ .name = name, .addr = addr,
					      .size = sym.st_size, .mod = m };
	}
	return 0;
}

static int fn_cmp(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* aliases: the global name first, then by name */
	int gx = x->name[0] == '_', gy = y->name[0] == '_';

	if (gx != gy)
		return gx - gy;
	return strcmp(x->name, y->name);
}

/*
 * lc->fn in fn_cmp()'s order: by address in a radix sort (linear: a
 * program's symbol table holds thousands), then each run of aliases (one
 * address) by fn_cmp(), in place (a few). 0 or -1 (ENOMEM).
 */
static int sort_fns(struct lc *lc)
{
	uint32_t *idx = cov_sorted_idx(lc->nfn, lc->fn, sizeof(*lc->fn),
				       offsetof(struct func, addr));
	struct func *s = malloc(lc->nfn * sizeof(*s));

	if (!idx || !s) {
		free(idx);
		free(s);
		return -1;
	}
	for (size_t i = 0; i < lc->nfn; i++)
		s[i] = lc->fn[idx[i]];
	free(idx);
	free(lc->fn);
	lc->fn = s;
	lc->cfn = lc->nfn;
	for (size_t i = 1; i < lc->nfn; i++) {	/* insertion: stable */
		struct func x = s[i];
		size_t j = i;

		for (; j > 0 && s[j - 1].addr == x.addr && fn_cmp(&s[j - 1], &x) > 0; j--)
			s[j] = s[j - 1];
		s[j] = x;
	}
	return 0;
}

/* The count of edge (src, dst) in the sorted sum. */
static uint64_t edge_count(const struct cov_edges *acc, uint64_t src, uint64_t dst)
{
	size_t lo = 0, hi = acc->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct lpt_cov_edge *e = &acc->e[mid];

		if (e->src < src || (e->src == src && e->dst < dst))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < acc->n && acc->e[lo].src == src && acc->e[lo].dst == dst)
		return acc->e[lo].count;
	return 0;
}

/* gcov's line count from the instruction flow (ptcov.rst "lcov"): the
 * times control entered the line from another line, plus the times a
 * jump within the line went back (a loop on one line). */
static void count_lines(struct lc *lc, struct cov_flow *f,
			const struct cov_edges *acc, const struct lpt_cov_image *img)
{
	if (!lc->nrows) {	/* no line table: no line */
		for (size_t i = 0; i < f->ninsn; i++)
			f->insn[i].line = NO_LINE;
		return;
	}
	for (size_t i = 0; i < f->ninsn; i++) {
		struct cov_insn *x = &f->insn[i];
		const struct cov_insn *p = i ? &f->insn[i - 1] : NULL;

		x->line = line_at(lc, f, img, x->addr);
		if (x->line == NO_LINE)
			continue;
		lc->lines[x->line].hit = true;
		uint64_t in = x->in_jump + x->in_call;
		uint64_t ft = x->count > in ? x->count - in : 0;

		if (p && p->addr + p->len == x->addr && p->line == x->line)
			ft = 0;		/* from the line itself */
		lc->lines[x->line].count += ft + x->in_call;
	}
	for (size_t i = 0; i < acc->n; i++) {
		const struct lpt_cov_edge *e = &acc->e[i];
		const struct cov_insn *s, *d;

		if (f->e_dst[i] == COV_NO_INSN)
			continue;
		d = &f->insn[f->e_dst[i]];
		if (d->line == NO_LINE)
			continue;
		s = f->e_src[i] == COV_NO_INSN ? NULL : &f->insn[f->e_src[i]];
		if (s && (s->kind == LPT_COV_INSN_RET || s->kind == LPT_COV_INSN_CALL ||
			  s->kind == LPT_COV_INSN_CALL_IND))
			continue;
		if (!s || s->line != d->line || e->src >= e->dst)
			lc->lines[d->line].count += e->count;
	}
}

/* Function entries: calls to a function's first byte (recursive ones
 * too), and jumps to it from outside it (tail calls). */
static int count_funcs(struct lc *lc, const struct cov_flow *f,
			const struct cov_edges *acc)
{
	uint32_t *fn_of;	/* per instruction: its function + 1, or 0 */
	size_t q = 0;

	if (!lc->nfn || !f->ninsn)
		return 0;
	fn_of = calloc(f->ninsn, sizeof(*fn_of));
	if (!fn_of)
		return -1;
	/* the functions (by address, the first of aliases) met with the
	 * instructions in address order: no search per edge */
	for (size_t i = 0; i < lc->nfn; i++) {
		if (i && lc->fn[i - 1].addr == lc->fn[i].addr)
			continue;
		while (q < f->ninsn && f->insn[q].addr < lc->fn[i].addr)
			q++;
		if (q < f->ninsn && f->insn[q].addr == lc->fn[i].addr)
			fn_of[q] = (uint32_t)i + 1;
	}
	for (size_t i = 0; i < acc->n; i++) {
		const struct lpt_cov_edge *e = &acc->e[i];
		struct func *fn;
		const struct cov_insn *s;

		if (f->e_dst[i] == COV_NO_INSN || !fn_of[f->e_dst[i]])
			continue;
		fn = &lc->fn[fn_of[f->e_dst[i]] - 1];
		s = f->e_src[i] == COV_NO_INSN ? NULL : &f->insn[f->e_src[i]];
		if ((s && (s->kind == LPT_COV_INSN_CALL || s->kind == LPT_COV_INSN_CALL_IND)) ||
		    e->src < fn->addr || e->src - fn->addr >= fn->size)
			fn->count += e->count;
	}
	free(fn_of);
	return 0;
}

/* Every conditional branch of the functions with lines, with its
 * outcomes: a linear sweep of the function's bytes. */
static int find_branches(struct lc *lc, const struct cov_flow *f,
			 const struct cov_edges *acc, const struct lpt_cov_image *img)
{
	for (size_t i = 0; i < lc->nfn; i++) {
		const struct func *fn = &lc->fn[i];
		struct lpt_cov_insn in;

		if (fn->line == NO_LINE || (i && fn[-1].addr == fn->addr))
			continue;
		for (uint64_t a = fn->addr; a < fn->addr + fn->size; a += in.len) {
			/* executed: decoded already */
			const struct cov_insn *x = find_near(lc, f, a);

			if (x)
				in = (struct lpt_cov_insn){ .addr = a, .target = x->target,
							    .len = x->len, .kind = x->kind };
			else if (lpt_cov_insn_at(img, a, 64, &in))
				break;
			if (in.kind != LPT_COV_INSN_JCC)
				continue;
			uint32_t l = x ? x->line : line_at(lc, f, img, a);

			if (l == NO_LINE)
				continue;
			struct br *b = grow(lc->br, &lc->cbr, lc->nbr, sizeof(*b));

			if (!b)
				return -1;
			lc->br = b;
			b[lc->nbr++] = (struct br){
				.line = l, .exec = x ? x->count : 0,
				.taken = edge_count(acc, a, in.target),
				.nottaken = edge_count(acc, a, a + in.len),
			};
		}
	}
	return 0;
}

static int line_cmp_idx(const void *a, const void *b, void *ctx)
{
	const struct line *ls = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (ls[x].file != ls[y].file)
		return ls[x].file < ls[y].file ? -1 : 1;
	return ls[x].no < ls[y].no ? -1 : ls[x].no > ls[y].no;
}

static int str_cmp_idx(const void *a, const void *b, void *ctx)
{
	char **files = ctx;

	return strcmp(files[*(const uint32_t *)a], files[*(const uint32_t *)b]);
}

static double pct(size_t a, size_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

/* What a file's record lists, found without a scan per file or line:
 * its lines (a run of lorder), its functions, each line's branches. */
struct order {
	const uint32_t *lorder;	/* lines by (file, number) */
	size_t *lfirst;		/* per file: its first in lorder; [nfiles]: nl */
	uint32_t *fns;		/* functions with a line, not aliases, by file,
				 * in address order */
	size_t *ffirst;		/* per file: its first in fns; [nfiles]: the end */
	uint32_t *brs;		/* branches by line, in address order */
	size_t *bfirst;		/* per line: its first in brs; [nlines]: nbr */
};

/* The records of source file @file into @out (functions in address
 * order, branches by line, lines by number): 0, or -1 (ENOMEM). */
static int write_file(struct cov_merge *out, const struct lc *lc, uint32_t file,
		      const struct order *ord)
{
	long id = cov_merge_file(out, lc->files.s[file]);

	if (id < 0)
		return -1;
	for (size_t k = ord->ffirst[file]; k < ord->ffirst[file + 1]; k++) {
		const struct func *fn = &lc->fn[ord->fns[k]];

		if (cov_merge_fn(out, id, lc->lines[fn->line].no, fn->name, fn->count))
			return -1;
	}
	/* branches: by line, in address order within a line */
	for (size_t k = ord->lfirst[file]; k < ord->lfirst[file + 1]; k++) {
		uint32_t ln = ord->lorder[k];
		const struct line *l = &lc->lines[ln];
		uint32_t blk = 0;

		for (size_t j = ord->bfirst[ln]; j < ord->bfirst[ln + 1]; j++) {
			const struct br *b = &lc->br[ord->brs[j]];

			/* a branch whose block never ran: "-" */
			if (cov_merge_br(out, id, l->no, blk, 0, b->exec ? b->taken : 0, !b->exec) ||
			    cov_merge_br(out, id, l->no, blk, 1, b->exec ? b->nottaken : 0,
					 !b->exec))
				return -1;
			blk++;
		}
	}
	for (size_t k = ord->lfirst[file]; k < ord->lfirst[file + 1]; k++) {
		const struct line *l = &lc->lines[ord->lorder[k]];

		if (cov_merge_da(out, id, l->no, l->count))
			return -1;
	}
	return 0;
}

/*
 * @ord for lines @lorder (@nl, sorted by file then number): counting sorts
 * (stable) of the functions by file and the branches by line. Returns 0
 * or -1 (ENOMEM).
 */
static int make_order(struct order *ord, const struct lc *lc, const uint32_t *lorder,
		      size_t nl)
{
	size_t k = 0;

	memset(ord, 0, sizeof(*ord));
	ord->lorder = lorder;
	ord->lfirst = calloc(lc->files.n + 1, sizeof(*ord->lfirst));
	ord->fns = malloc((lc->nfn + 1) * sizeof(*ord->fns));
	ord->ffirst = calloc(lc->files.n + 2, sizeof(*ord->ffirst));
	ord->brs = malloc((lc->nbr + 1) * sizeof(*ord->brs));
	ord->bfirst = calloc(lc->nlines + 2, sizeof(*ord->bfirst));
	if (!ord->lfirst || !ord->fns || !ord->ffirst || !ord->brs || !ord->bfirst)
		return -1;
	for (uint32_t f = 0; f <= lc->files.n; f++) {
		while (k < nl && lc->lines[lorder[k]].file < f)
			k++;
		ord->lfirst[f] = k;
	}
	ord->lfirst[lc->files.n] = nl;
	for (size_t i = 0; i < lc->nfn; i++) {
		const struct func *fn = &lc->fn[i];

		if (fn->line == NO_LINE || (i && fn[-1].addr == fn->addr))
			continue;
		ord->ffirst[lc->lines[fn->line].file + 1]++;
	}
	for (size_t f = 1; f <= lc->files.n; f++)
		ord->ffirst[f] += ord->ffirst[f - 1];
	for (size_t i = 0; i < lc->nfn; i++) {
		const struct func *fn = &lc->fn[i];

		if (fn->line == NO_LINE || (i && fn[-1].addr == fn->addr))
			continue;
		ord->fns[ord->ffirst[lc->lines[fn->line].file]++] = (uint32_t)i;
	}
	/* the increments left ffirst[f] at the next file's first: back */
	for (size_t f = lc->files.n; f > 0; f--)
		ord->ffirst[f] = ord->ffirst[f - 1];
	ord->ffirst[0] = 0;
	for (size_t i = 0; i < lc->nbr; i++)
		ord->bfirst[lc->br[i].line + 1]++;
	for (size_t l = 1; l <= lc->nlines; l++)
		ord->bfirst[l] += ord->bfirst[l - 1];
	for (size_t i = 0; i < lc->nbr; i++)
		ord->brs[ord->bfirst[lc->br[i].line]++] = (uint32_t)i;
	for (size_t l = lc->nlines; l > 0; l--)
		ord->bfirst[l] = ord->bfirst[l - 1];
	ord->bfirst[0] = 0;
	return 0;
}

static void free_order(struct order *ord)
{
	free(ord->lfirst);
	free(ord->fns);
	free(ord->ffirst);
	free(ord->brs);
	free(ord->bfirst);
}

/* A function of a file without a line table, in one tracefile. */
struct run_fn {
	size_t path;		/* index into cov_lcov_run.path */
	uint64_t off;		/* its address in the file (ELF st_value):
				 * the same in every layout */
	char *name;
	uint64_t count;
};

struct cov_lcov_run {
	char **path;		/* files with functions without a line, in
				 * the order met */
	bool *said;		/* per path: "no line table" said */
	size_t npath;
	struct run_fn *fn;
	size_t nfn, cfn;
	bool nomem;		/* a function not kept: its file's summary
				 * may miss it */
};

struct cov_lcov_run *cov_lcov_run_alloc(void)
{
	return calloc(1, sizeof(struct cov_lcov_run));
}

void cov_lcov_run_free(struct cov_lcov_run *run)
{
	if (!run)
		return;
	for (size_t i = 0; i < run->npath; i++)
		free(run->path[i]);
	for (size_t i = 0; i < run->nfn; i++)
		free(run->fn[i].name);
	free(run->path);
	free(run->said);
	free(run->fn);
	free(run);
}

/* The index of @path in @run, added if new; -1 without memory. */
static long run_path(struct cov_lcov_run *run, const char *path)
{
	char **n;
	bool *sd;

	for (size_t i = 0; i < run->npath; i++)
		if (!strcmp(run->path[i], path))
			return (long)i;
	sd = realloc(run->said, (run->npath + 1) * sizeof(*sd));
	if (!sd)
		return -1;
	run->said = sd;
	sd[run->npath] = false;
	n = realloc(run->path, (run->npath + 1) * sizeof(*n));
	if (!n)
		return -1;
	run->path = n;
	n[run->npath] = strdup(path);
	if (!n[run->npath])
		return -1;
	return (long)run->npath++;
}

static int run_fn_cmp(const void *a, const void *b)
{
	const struct run_fn *x = a, *y = b;

	if (x->path != y->path)
		return x->path < y->path ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

void cov_lcov_run_write(struct cov_lcov_run *run, FILE *sum)
{
	if (!run || !sum)
		return;
	if (run->nfn)
		qsort(run->fn, run->nfn, sizeof(*run->fn), run_fn_cmp);
	for (size_t p = 0, i = 0; p < run->npath; p++) {
		size_t fnf = 0, fnh = 0;

		while (i < run->nfn && run->fn[i].path == p) {
			size_t j = i;
			uint64_t c = 0;

			for (; j < run->nfn && run->fn[j].path == p &&
			       run->fn[j].off == run->fn[i].off; j++)
				c += run->fn[j].count;
			fnf++;
			fnh += c > 0;
			i = j;
		}
		if (fnf)
			fprintf(sum, "Module '%s' (code without lines)\n"
				"Functions executed:%.2f%% of %zu%s\n\n", run->path[p],
				pct(fnh, fnf), fnf, run->nomem ? " (some left out: no memory)" : "");
	}
}

/* The functions without a line of module @m (file @path) into @run;
 * -1 without memory for the path. */
static int run_add_fns(struct cov_lcov_run *run, const struct lc *lc, size_t m,
		       const char *path, uint64_t base)
{
	long p = -1;

	for (size_t i = 0; i < lc->nfn; i++) {
		const struct func *fn = &lc->fn[i];
		struct run_fn *n;

		if (fn->mod != m || fn->line != NO_LINE ||
		    (i && lc->fn[i - 1].addr == fn->addr))
			continue;
		if (p < 0 && (p = run_path(run, path)) < 0)
			return -1;
		n = grow(run->fn, &run->cfn, run->nfn, sizeof(*n));
		if (n)
			run->fn = n;
		if (!n || !(n[run->nfn].name = strdup(fn->name))) {
			run->nomem = true;
			continue;
		}
		n[run->nfn].path = (size_t)p;
		n[run->nfn].off = fn->addr - base;
		n[run->nfn++].count = fn->count;
	}
	return 0;
}

/* A module as the tables were read for it: the key of a context. */
struct ctx_mod {
	char *path;
	uint64_t start, end, bias;
	bool has_bias, synthetic;
};

/*
 * The tables of one set of modules that do not depend on a trace, read
 * once and kept across cov_lcov_write() calls on that set: libdw's view
 * of the ELF files, their line-table rows (sorted), source lines and
 * files, functions (sorted, with their lines), which lines own a byte,
 * the lines and the files in the tracefile's order. The per-call counts
 * live in lc too (lines, functions, branches) and are cleared per call.
 */
struct cov_lcov_ctx {
	bool valid;		/* the tables below are those of the key */
	struct ctx_mod *mod;	/* the key: the modules ... */
	size_t nmod;
	struct cov_map *map;	/* ... and their mappings */
	size_t nmap;
	Dwfl *dwfl;
	struct lc lc;
	bool *noline;		/* per module: an ELF file without lines */
	uint64_t *base;		/* per module: dwfl's base */
	bool *owns;		/* per line: owns at least one byte */
	uint32_t *lsorted;	/* every line, by (file, number) */
	uint32_t *forder;	/* every file, by path */
};

struct cov_lcov_ctx *cov_lcov_ctx_alloc(void)
{
	return calloc(1, sizeof(struct cov_lcov_ctx));
}

/* Drop @ctx's tables and key (the struct stays, empty). */
static void ctx_clear(struct cov_lcov_ctx *ctx)
{
	for (size_t m = 0; m < ctx->nmod; m++)
		free(ctx->mod[m].path);
	free(ctx->mod);
	free(ctx->map);
	cov_strtab_free(&ctx->lc.files);
	free(ctx->lc.lines);
	free(ctx->lc.lhash);
	free(ctx->lc.rows);
	free(ctx->lc.fn);
	free(ctx->lc.br);
	free(ctx->lc.decl);
	free(ctx->noline);
	free(ctx->base);
	free(ctx->owns);
	free(ctx->lsorted);
	free(ctx->forder);
	if (ctx->dwfl)
		dwfl_end(ctx->dwfl);
	memset(ctx, 0, sizeof(*ctx));
}

void cov_lcov_ctx_free(struct cov_lcov_ctx *ctx)
{
	if (!ctx)
		return;
	ctx_clear(ctx);
	free(ctx);
}

/* Whether @ctx's tables are those of @ms: the same files at the same
 * places (the ELF biases follow from the modules and their mappings). */
static bool ctx_is(const struct cov_lcov_ctx *ctx, const struct cov_modules *ms)
{
	if (!ctx->valid || ctx->nmod != ms->nmod || ctx->nmap != ms->nmap)
		return false;
	for (size_t m = 0; m < ms->nmod; m++) {
		const struct ctx_mod *k = &ctx->mod[m];
		const struct cov_module *x = &ms->mod[m];

		if (k->start != x->start || k->end != x->end || k->bias != x->bias ||
		    k->has_bias != x->has_bias || k->synthetic != x->synthetic ||
		    strcmp(k->path, x->path))
			return false;
	}
	for (size_t i = 0; i < ms->nmap; i++)
		if (ctx->map[i].start != ms->map[i].start || ctx->map[i].end != ms->map[i].end ||
		    ctx->map[i].offset != ms->map[i].offset || ctx->map[i].mod != ms->map[i].mod)
			return false;
	return true;
}

/* @ctx's key made @ms: 0 or -1 (ENOMEM). */
static int ctx_key(struct cov_lcov_ctx *ctx, const struct cov_modules *ms)
{
	ctx->mod = calloc(ms->nmod + 1, sizeof(*ctx->mod));
	ctx->map = malloc((ms->nmap + 1) * sizeof(*ctx->map));
	if (!ctx->mod || !ctx->map)
		return -1;
	for (size_t m = 0; m < ms->nmod; m++) {
		const struct cov_module *x = &ms->mod[m];

		ctx->mod[m] = (struct ctx_mod){ .start = x->start, .end = x->end,
						.bias = x->bias, .has_bias = x->has_bias,
						.synthetic = x->synthetic };
		ctx->mod[m].path = strdup(x->path);
		ctx->nmod = m + 1;
		if (!ctx->mod[m].path)
			return -1;
	}
	if (ms->nmap)
		memcpy(ctx->map, ms->map, ms->nmap * sizeof(*ctx->map));
	ctx->nmap = ms->nmap;
	return 0;
}

/*
 * Read the tables of @ms into the cleared @ctx: every ELF module's line
 * rows, declarations and symbols, sorted, the functions' lines, the lines
 * owning a byte, the lines and files in the tracefile's order. 0, or -1
 * (ENOMEM; @ctx is left invalid).
 */
static int ctx_read(struct cov_lcov_ctx *ctx, const struct cov_modules *ms)
{
	struct lc *lc = &ctx->lc;

	lc->walk_row = -1;
	ctx->noline = calloc(ms->nmod + 1, sizeof(*ctx->noline));
	ctx->base = calloc(ms->nmod + 1, sizeof(*ctx->base));
	ctx->dwfl = dwfl_begin(&callbacks);
	if (!ctx->dwfl || !ctx->noline || !ctx->base || ctx_key(ctx, ms))
		return -1;
	elf_version(EV_CURRENT);
	for (size_t m = 0; m < ms->nmod; m++) {
		const struct cov_module *mod = &ms->mod[m];
		int type;
		int64_t bias;
		uint64_t entry;
		Dwfl_Module *dm;
		long nr;

		if (mod->synthetic)
			continue;
		bias = cov_modules_elf(ms, m, &type, &entry);
		if (type != ET_EXEC && type != ET_DYN)
			continue;	/* not ELF: a raw blob */
		dwfl_report_begin_add(ctx->dwfl);
		ctx->base[m] = (uint64_t)(type == ET_EXEC ? 0 : bias);
		dm = dwfl_report_elf(ctx->dwfl, mod->path, mod->path, -1,
				     (GElf_Addr)ctx->base[m], true);
		dwfl_report_end(ctx->dwfl, NULL, NULL);
		if (!dm)
			continue;
		nr = read_rows(lc, dm);
		if (nr < 0 || read_funcs(lc, dm, m))
			return -1;
		ctx->noline[m] = !nr;
	}
	if (lc->nrows && sort_rows(lc))
		return -1;
	if (lc->nfn && sort_fns(lc))
		return -1;
	if (lc->ndecl)
		qsort(lc->decl, lc->ndecl, sizeof(*lc->decl), decl_cmp);
	for (size_t i = 0; i < lc->nfn; i++) {
		lc->fn[i].line = decl_of(lc, lc->fn[i].addr);
		if (lc->fn[i].line == NO_LINE)
			lc->fn[i].line = line_of(lc, lc->fn[i].addr);
	}
	/* which lines exist: those owning at least one byte */
	ctx->owns = calloc(lc->nlines + 1, sizeof(*ctx->owns));
	ctx->lsorted = malloc((lc->nlines + 1) * sizeof(*ctx->lsorted));
	ctx->forder = malloc((lc->files.n + 1) * sizeof(*ctx->forder));
	if (!ctx->owns || !ctx->lsorted || !ctx->forder)
		return -1;
	for (size_t i = 0; i < lc->nrows; i++)
		if (lc->rows[i].line != NO_LINE &&
		    (i + 1 == lc->nrows || lc->rows[i + 1].addr > lc->rows[i].addr))
			ctx->owns[lc->rows[i].line] = true;
	/* (file, number) and paths are distinct: total orders, so a call's
	 * lines, filtered from lsorted, come in the order a sort gives */
	for (uint32_t i = 0; i < lc->nlines; i++)
		ctx->lsorted[i] = i;
	qsort_r(ctx->lsorted, lc->nlines, sizeof(*ctx->lsorted), line_cmp_idx, lc->lines);
	for (uint32_t i = 0; i < lc->files.n; i++)
		ctx->forder[i] = i;
	qsort_r(ctx->forder, lc->files.n, sizeof(*ctx->forder), str_cmp_idx, lc->files.s);
	ctx->valid = true;
	return 0;
}

/* A call's counts cleared: the lines', the functions', the branches, the
 * lookups' cursors. */
static void ctx_reset(struct cov_lcov_ctx *ctx)
{
	struct lc *lc = &ctx->lc;

	for (size_t i = 0; i < lc->nlines; i++) {
		lc->lines[i].count = 0;
		lc->lines[i].hit = false;
	}
	for (size_t i = 0; i < lc->nfn; i++)
		lc->fn[i].count = 0;
	lc->nbr = 0;
	lc->nomem = false;
	lc->near = 0;
	lc->row_near = 0;
	lc->walk_row = -1;
	lc->walk_addr = 0;
	lc->walk_gap = false;
}

int cov_lcov_write(struct cov_merge *out, FILE *sum, const char *prog,
		   struct cov_flow *f, const struct cov_edges *acc,
		   const struct cov_modules *ms, const struct lpt_cov_image *img,
		   struct cov_lcov_run *run, struct cov_lcov_ctx *ctx)
{
	struct cov_lcov_ctx local = { 0 };
	struct lc *lc;
	uint32_t *lorder = NULL;
	int ret = -1;

	if (!ctx)
		ctx = &local;	/* a fresh context, for this call */
	if (!ctx_is(ctx, ms)) {
		ctx_clear(ctx);
		if (ctx_read(ctx, ms)) {
			ctx_clear(ctx);
			goto nomem;
		}
	} else {
		ctx_reset(ctx);
	}
	lc = &ctx->lc;
	for (size_t m = 0; m < ms->nmod; m++) {
		if (!ctx->noline[m])
			continue;
		if (run) {
			long p = run_path(run, ms->mod[m].path);

			if (p < 0)
				goto nomem;
			if (run->said[p])
				continue;	/* said once a run */
			run->said[p] = true;
		}
		if (sum)
			fprintf(sum, "%s: %s: no line table (no DWARF .debug_line): "
				"function coverage only, in this summary\n", prog,
				ms->mod[m].path);
	}
	count_lines(lc, f, acc, img);
	if (count_funcs(lc, f, acc))
		goto nomem;
	if (find_branches(lc, f, acc, img))
		goto nomem;

	for (size_t i = 0; i < lc->nfn; i++) {
		const struct func *fn = &lc->fn[i];

		if (fn->line == NO_LINE || ctx->owns[fn->line] || (i && fn[-1].addr == fn->addr))
			continue;
		lc->lines[fn->line].count += fn->count;
		lc->lines[fn->line].hit = true;
	}
	lorder = malloc((lc->nlines + 1) * sizeof(*lorder));
	if (!lorder)
		goto nomem;
	size_t nl = 0;

	for (size_t k = 0; k < lc->nlines; k++) {
		uint32_t i = ctx->lsorted[k];

		if (ctx->owns[i] || lc->lines[i].hit)
			lorder[nl++] = i;
	}
	struct order ord;

	if (make_order(&ord, lc, lorder, nl)) {
		free_order(&ord);
		goto nomem;
	}
	for (size_t i = 0; out && i < lc->files.n; i++) {
		if (write_file(out, lc, ctx->forder[i], &ord)) {
			free_order(&ord);
			goto nomem;
		}
	}
	free_order(&ord);
	/* functions without lines: in the run's summary */
	for (size_t m = 0; run && m < ms->nmod; m++)
		if (run_add_fns(run, lc, m, ms->mod[m].path, ctx->base[m]))
			goto nomem;
	/* or in this summary */
	for (size_t m = 0; !run && sum && m < ms->nmod; m++) {
		size_t fnf = 0, fnh = 0;

		for (size_t i = 0; i < lc->nfn; i++)
			if (lc->fn[i].mod == m && lc->fn[i].line == NO_LINE &&
			    !(i && lc->fn[i - 1].addr == lc->fn[i].addr)) {
				fnf++;
				fnh += lc->fn[i].count > 0;
			}
		if (fnf)
			fprintf(sum, "Module '%s' (code without lines)\n"
				"Functions executed:%.2f%% of %zu\n\n",
				ms->mod[m].path, pct(fnh, fnf), fnf);
	}
	ret = 0;
	goto out;
nomem:
	errno = ENOMEM;
out:
	free(lorder);
	if (ctx == &local)
		ctx_clear(&local);
	return ret;
}
