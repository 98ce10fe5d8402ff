/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbols and source lines for the addresses ptflow prints, from the ELF
 * files the trace was decoded with (executable, shared libraries, the saved
 * vdso), through elfutils' libdwfl: symbol tables (.symtab, else .dynsym),
 * separate debug files found the usual way (build-id, .gnu_debuglink) and
 * DWARF line tables. No ELF symbol parsing of our own.
 *
 * Format and the rules for stripped files: Documentation/ptflow.rst,
 * "Symbols".
 */
#ifndef LWPT_TOOLS_PTFLOW_SYM_H
#define LWPT_TOOLS_PTFLOW_SYM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ptflow_sym;

/* What ptflow_sym_lookup() found for one address. */
struct ptflow_symbol {
	const char *name;	/* function (or object) symbol; NULL: none */
	size_t name_len;	/* strlen(@name), 0 without a name */
	uint64_t start;		/* address of the symbol (name != NULL) */
	uint64_t offset;	/* bytes from @start to the address */
	uint64_t size;		/* the symbol's st_size, 0 if unknown */
	const char *module;	/* file name of the module, NULL: none */
	uint64_t module_start;	/* lowest address of the module */
	const char *file;	/* DWARF source file (want_line), or NULL */
	int line;		/* its line, 0 if unknown */
};

/**
 * ptflow_sym_alloc() - an empty symbol table.
 * @err:  stream for notes (stripped files), or NULL for none.
 * @prog: prefix of the notes.
 *
 * Return: the table, or NULL when out of memory.
 */
struct ptflow_sym *ptflow_sym_alloc(FILE *err, const char *prog);

/**
 * ptflow_sym_free() - release a table; NULL is ignored.
 * @sym: the table.
 */
void ptflow_sym_free(struct ptflow_sym *sym);

/**
 * ptflow_sym_add_mapping() - add the file behind one mapping.
 * @sym:    the table.
 * @path:   the ELF file (a path that can be opened).
 * @start:  the virtual address of the mapping's first byte.
 * @offset: the file offset mapped at @start (page-aligned, as in
 *          /proc/PID/maps and a ptcap `maps` line).
 *
 * The load bias is the one that puts the PT_LOAD segment holding @offset
 * at @start (ET_EXEC files are never moved). A file is added once, by its
 * first mapping (give mappings in address order, as /proc/PID/maps and
 * ptcap's `maps` list them); later mappings of it are ignored. Files that
 * are not ELF are skipped (they may be data).
 *
 * Return: 0 (also when skipped); -1 when out of memory.
 */
int ptflow_sym_add_mapping(struct ptflow_sym *sym, const char *path,
			   uint64_t start, uint64_t offset);

/**
 * ptflow_sym_add_elf() - add an ELF file loaded as ptflow's --elf does.
 * @sym:      the table.
 * @path:     the ELF file.
 * @has_base: false: at its p_vaddr; true: its lowest PT_LOAD segment,
 *            rounded down to 4 KiB, at @base.
 * @base:     see @has_base.
 *
 * Return: 0 (also when not an ELF file); -1 when out of memory.
 */
int ptflow_sym_add_elf(struct ptflow_sym *sym, const char *path,
		       bool has_base, uint64_t base);

/**
 * ptflow_sym_add_symbol() - name a range outside every ELF file (JIT code
 * from a jitdump or a perf map, ptflow_jit.h).
 * @sym:    the table.
 * @name:   the function's name, copied.
 * @start:  its first address.
 * @size:   its length in bytes (> 0).
 * @module: a module name for it (e.g. "jit-123.dump"), copied.
 *
 * Used for addresses that no ELF file covers; a later symbol covering the
 * same address wins (code reloaded at an address).
 *
 * Return: 0, or -1 when out of memory.
 */
int ptflow_sym_add_symbol(struct ptflow_sym *sym, const char *name,
			  uint64_t start, uint64_t size, const char *module);

/**
 * ptflow_sym_lookup() - the symbol, module and line of an address.
 * @sym:       the table (NULL: nothing is found).
 * @addr:      a virtual address.
 * @want_line: look up the DWARF source line as well (slower).
 * @out:       filled; strings stay valid until ptflow_sym_free().
 *
 * A symbol is only reported when the address lies inside it, or after a
 * symbol without size in the same section (libdwfl's rule): an address in
 * a stripped file gets no name rather than a wrong one.
 *
 * Return: true when a symbol was found (@out->name set).
 */
bool ptflow_sym_lookup(struct ptflow_sym *sym, uint64_t addr, bool want_line,
		       struct ptflow_symbol *out);

/**
 * ptflow_sym_span() - the addresses around @addr that ptflow_sym_lookup()
 * answers alike (the same symbol or none, in the same module): the piece
 * of the table that holds @addr.
 * @sym:  the table (NULL: nothing is known).
 * @addr: a virtual address.
 * @lo:   receives the first address of the piece.
 * @hi:   receives the end of the piece (exclusive), > @addr.
 *
 * Return: true with [@lo, @hi) set; false, setting nothing, for an
 * address outside the modules (nothing is known around it).
 */
bool ptflow_sym_span(struct ptflow_sym *sym, uint64_t addr, uint64_t *lo,
		     uint64_t *hi);

/*
 * ptflow_sym_at()'s inline fast path: the first member of every struct
 * ptflow_sym is an array of PTFLOW_SYM_AT_SLOTS answers, direct-mapped by
 * the address's 64-byte block (the code of a loop and the functions it
 * calls stay apart). Cleared whenever a module or symbol is added.
 */
#define PTFLOW_SYM_AT_SHIFT	6
#define PTFLOW_SYM_AT_SLOTS	128
struct ptflow_sym_last {
	uint64_t lo, hi;		/* addresses [lo, hi) give @s */
	struct ptflow_symbol s;		/* @offset unset; no @name: none */
};

/* ptflow_sym_at() outside [lo, hi) of the slot of @addr. */
const struct ptflow_symbol *ptflow_sym_at_slow(struct ptflow_sym *sym,
					       uint64_t addr);

/**
 * ptflow_sym_at() - ptflow_sym_lookup() without a copy, for a line per
 * instruction (Documentation/performance.rst, "ptflow instruction flow"):
 * an address whose block's slot holds its symbol costs a compare.
 * @sym:  the table (NULL: nothing is found).
 * @addr: a virtual address.
 *
 * Return: the symbol containing @addr, valid until the next ptflow_sym_at()
 * or change of @sym; its @offset is not set (it is @addr - @start) and it
 * has no source line. NULL when no symbol contains @addr (the rule of
 * ptflow_sym_lookup()).
 */
static inline const struct ptflow_symbol *ptflow_sym_at(struct ptflow_sym *sym,
							uint64_t addr)
{
	const struct ptflow_sym_last *at;

	if (!sym)
		return NULL;
	at = (const struct ptflow_sym_last *)sym +
	     ((addr >> PTFLOW_SYM_AT_SHIFT) & (PTFLOW_SYM_AT_SLOTS - 1));
	if (addr - at->lo >= at->hi - at->lo)
		return ptflow_sym_at_slow(sym, addr);
	return at->s.name ? &at->s : NULL;
}

/**
 * ptflow_sym_lookup_dwfl() - ptflow_sym_lookup() without its caches and
 * address tables: libdwfl's dwfl_module_addrinfo() for @addr, every time
 * (a scan of the module's symbol table, tens of us). The reference that
 * the tests compare ptflow_sym_lookup() with, and bench_ptflow_sym's
 * uncached figure.
 * @sym:  the table (NULL: nothing is found).
 * @addr: a virtual address.
 * @out:  filled as by ptflow_sym_lookup() without a source line.
 *
 * Return: true when a symbol was found (@out->name set).
 */
bool ptflow_sym_lookup_dwfl(struct ptflow_sym *sym, uint64_t addr,
			    struct ptflow_symbol *out);

/**
 * ptflow_sym_format() - "name" or "name+0xOFF" of an address.
 * @sym:  the table.
 * @addr: the address.
 * @buf:  receives the text, NUL-terminated, cut to @size.
 * @size: size of @buf in bytes (> 0).
 *
 * Return: true when a symbol was found; false leaves "0x<addr>" in @buf.
 */
bool ptflow_sym_format(struct ptflow_sym *sym, uint64_t addr, char *buf,
		       size_t size);

#endif /* LWPT_TOOLS_PTFLOW_SYM_H */
