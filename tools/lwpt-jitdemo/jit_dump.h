/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Telling profilers about generated code, the way perf expects it
 * (tools/perf/Documentation/jitdump-specification.txt and
 * tools/perf/Documentation/jit-interface.txt in linux-source-6.1):
 *
 *   - a jitdump file, <dir>/jit-<pid>.dump: a header and one
 *     JIT_CODE_LOAD record per function with its address, name and code
 *     bytes; the file is also mapped PROT_EXEC once, so that a recorder of
 *     the process's mappings (perf's mmap events, ptcap's `maps`) sees it;
 *   - a perf map, /tmp/perf-<pid>.map: "<start> <size> <name>" per line.
 *
 * ptflow reads both (Documentation/ptflow.rst, "JIT code").
 */
#ifndef LWPT_TOOLS_JITDEMO_JIT_DUMP_H
#define LWPT_TOOLS_JITDEMO_JIT_DUMP_H

#include <stddef.h>

/* The jitdump format constants (jitdump-specification.txt). */
#define JITDUMP_MAGIC		0x4A695444u	/* "JiTD" */
#define JITDUMP_VERSION		1u
#define JITDUMP_CODE_LOAD	0u		/* record id */

/**
 * jit_dump_code() - announce one function of generated code.
 * @name: its name (NUL-terminated).
 * @code: its first byte, where it runs.
 * @size: its length in bytes.
 *
 * The jitdump goes to $LWPT_JITDUMP_DIR, else /tmp. Creates the files on
 * the first call; later calls append. Failures only print a warning: the
 * program works without them.
 *
 * Return: 0, or -errno of the first file that could not be written.
 */
int jit_dump_code(const char *name, const void *code, size_t size);

#endif /* LWPT_TOOLS_JITDEMO_JIT_DUMP_H */
