/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Code generated at run time: perf's jitdump files (the code bytes and
 * names of JIT_CODE_LOAD records, tools/perf/Documentation/
 * jitdump-specification.txt) and perf maps (/tmp/perf-PID.map: names
 * only, tools/perf/Documentation/jit-interface.txt), as lwpt-jitdemo
 * writes them (tools/lwpt-jitdemo/jit_dump.h). A jitdump's code goes into
 * the decoder's image (read from the dump file itself), its names into the
 * symbol table. Documentation/ptflow.rst, "JIT code".
 */
#ifndef LWPT_TOOLS_PTFLOW_JIT_H
#define LWPT_TOOLS_PTFLOW_JIT_H

#include <stdbool.h>
#include <stddef.h>

#include <intel-pt.h>

#include "tools/ptflow/ptflow_sym.h"

/* Errors of the readers, returned negated. */
enum ptflow_jit_error {
	PTFLOW_JIT_OK = 0,
	PTFLOW_JIT_E_IO,	/* cannot open or read the file (errno) */
	PTFLOW_JIT_E_FORMAT,	/* not a jitdump / perf map, or corrupt */
	PTFLOW_JIT_E_NOMEM,
	PTFLOW_JIT_E_IMAGE,	/* libipt refused a code section */
	PTFLOW_JIT_E_NOT_REGULAR, /* a device, FIFO or directory: not read */
	PTFLOW_JIT_E_TOO_LARGE,	/* past PTCAP_DATA_MAX (jitdump) or
				 * PTCAP_TEXT_MAX (perf map) */
};

/**
 * ptflow_jit_strerror() - text of an enum ptflow_jit_error (negated or not).
 * @err: the code.
 *
 * Return: a static string.
 */
const char *ptflow_jit_strerror(int err);

/**
 * ptflow_jit_is_dump() - whether a path names a jitdump ("jit-<pid>.dump").
 * @path: a file path, e.g. from a `maps` line.
 *
 * Return: true for a base name of that form.
 */
bool ptflow_jit_is_dump(const char *path);

/**
 * ptflow_jit_read_dump() - load a jitdump file.
 * @path:    the file.
 * @image:   the decoder's image: each JIT_CODE_LOAD's code bytes are
 *           mapped at its code_addr (read from @path, at their offset).
 * @iscache: the section cache for @image.
 * @sym:     receives each function's name, code_addr and code_size.
 * @nfuncs:  receives the number of JIT_CODE_LOAD records.
 *
 * Records other than JIT_CODE_LOAD are skipped by their size; a record
 * cut at the end of the file (the JIT was still writing) ends the file.
 *
 * Return: 0; -PTFLOW_JIT_E_IO (errno set), -PTFLOW_JIT_E_NOT_REGULAR, -PTFLOW_JIT_E_TOO_LARGE, -PTFLOW_JIT_E_FORMAT for a bad
 * magic, version, header or record size, -PTFLOW_JIT_E_NOMEM,
 * -PTFLOW_JIT_E_IMAGE.
 */
int ptflow_jit_read_dump(const char *path, struct pt_image *image,
			 struct pt_image_section_cache *iscache,
			 struct ptflow_sym *sym, size_t *nfuncs);

/**
 * ptflow_jit_read_perf_map() - load the names of a perf map.
 * @path:   the file: lines "<start-hex> <size-hex> <name>".
 * @sym:    receives the names.
 * @nfuncs: receives the number of lines read.
 *
 * Return: 0; -PTFLOW_JIT_E_IO (errno set), -PTFLOW_JIT_E_NOT_REGULAR, -PTFLOW_JIT_E_TOO_LARGE, -PTFLOW_JIT_E_FORMAT for a
 * malformed line, -PTFLOW_JIT_E_NOMEM.
 */
int ptflow_jit_read_perf_map(const char *path, struct ptflow_sym *sym,
			     size_t *nfuncs);

#endif /* LWPT_TOOLS_PTFLOW_JIT_H */
