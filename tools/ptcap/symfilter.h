/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbolic --filter and --stop ranges for ptcap (issue 16 point 3):
 * SYMBOL, SYMBOL@FILE, FILE (its executable segments), START/SIZE@FILE and
 * A-B, resolved through libelf (elfutils) against the traced process's
 * mappings, so position-independent executables and shared libraries get
 * the addresses they are loaded at. Documentation/ptcap.rst, "Symbolic
 * filters". The ranges become IA32_RTIT_ADDRn_A/B (SDM 33.2.5.3,
 * 33.2.8.5), inclusive at both ends.
 */
#ifndef LWPT_TOOLS_PTCAP_SYMFILTER_H
#define LWPT_TOOLS_PTCAP_SYMFILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One file-backed mapping of the traced process (/proc/PID/maps). */
struct ptcap_vma {
	uint64_t start, end;	/* virtual addresses, end exclusive */
	uint64_t offset;	/* file offset of @start */
	char *path;		/* as /proc/PID/maps names it */
};

/* What a --filter/--stop argument names. */
enum ptcap_spec_kind {
	PTCAP_SPEC_ADDR,	/* A-B: virtual addresses, inclusive */
	PTCAP_SPEC_SYMBOL,	/* SYMBOL or SYMBOL@FILE */
	PTCAP_SPEC_FILE,	/* FILE: its executable PT_LOAD segments */
	PTCAP_SPEC_OFFSET,	/* START/SIZE@FILE: ELF addresses of FILE */
};

/**
 * struct ptcap_spec - one parsed --filter/--stop argument.
 * @kind:	what it names
 * @a:		ADDR: first address; OFFSET: START (an address as FILE's
 *		own symbols and program headers give it)
 * @b:		ADDR: last address (inclusive); OFFSET: SIZE in bytes
 * @sym:	SYMBOL (NUL-terminated), empty otherwise
 * @file:	FILE, empty for the main executable
 */
struct ptcap_spec {
	enum ptcap_spec_kind kind;
	uint64_t a, b;
	char sym[256];
	char file[4096];
};

/* One resolved range, inclusive at both ends (ADDRn_A, ADDRn_B). */
struct ptcap_range {
	uint64_t a, b;
};

/**
 * ptcap_spec_parse() - parse a --filter/--stop argument.
 * @arg:	"A-B" (numbers in C syntax), "START/SIZE@FILE",
 *		"SYMBOL@FILE", "FILE" (contains a '/') or "SYMBOL"
 * @sp:		out: the parsed spec
 * @err:	out: a message naming what is wrong, on error
 * @errlen:	bytes at @err
 *
 * Return: 0; -EINVAL for a malformed argument (A > B, SIZE 0, an empty
 * SYMBOL or FILE, a name too long).
 */
int ptcap_spec_parse(const char *arg, struct ptcap_spec *sp, char *err, size_t errlen);

/**
 * ptcap_spec_resolve() - the virtual address ranges a spec names.
 * @sp:		a parsed spec
 * @exe:	path of the traced process's main executable (its
 *		/proc/PID/exe), or NULL without a process (ptcap -a)
 * @vma:	the process's file-backed mappings, @nvma of them (may be 0)
 * @nvma:	number of @vma
 * @out:	out: up to @max ranges
 * @max:	room at @out
 * @err:	out: a message naming the spec and what is wrong, on error
 * @errlen:	bytes at @err
 *
 * An ELF address of FILE (a symbol's value, a PT_LOAD's p_vaddr) is
 * turned into a file offset through the PT_LOAD that contains it, then
 * into the virtual address of the mapping of FILE that holds that offset:
 * right for ET_EXEC, PIE and shared libraries alike. Without a process an
 * ET_EXEC's addresses are used as they are. SYMBOL is looked up in .symtab
 * and .dynsym (functions, STT_FUNC/STT_GNU_IFUNC, with a size); a global
 * definition wins over local ones. FILE without '/' matches a mapped file
 * by its base name ("libc.so.6").
 *
 * Return: the number of ranges (>= 1); -ENOENT FILE is not mapped in the
 * process (yet: a library before the dynamic loader ran) or no process
 * maps it; -ESRCH SYMBOL is not in FILE (or has no size); -ENOTUNIQ
 * several definitions of SYMBOL or FILE names several files; -ENOEXEC
 * FILE is not ELF or has no executable segment; -ENOSPC more than @max
 * ranges; -EINVAL a position-dependent question without a process (a PIE
 * or library with ptcap -a); another -errno opening FILE.
 */
int ptcap_spec_resolve(const struct ptcap_spec *sp, const char *exe,
		       const struct ptcap_vma *vma, size_t nvma, struct ptcap_range *out,
		       size_t max, char *err, size_t errlen);

#endif /* LWPT_TOOLS_PTCAP_SYMFILTER_H */
