/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Finding a module's separate debug information for libdwfl, on this
 * machine only unless the user asked for debuginfod (Documentation/
 * ptflow.rst, "Symbols and source lines").
 */
#ifndef LWPT_TOOLS_PTFLOW_DEBUGINFO_H
#define LWPT_TOOLS_PTFLOW_DEBUGINFO_H

#include <elfutils/libdwfl.h>

/**
 * ptflow_find_debuginfo() - Dwfl_Callbacks.find_debuginfo of ptflow and
 * ptcov.
 * @mod:            the module (its build ID, if any, is read from it).
 * @userdata:       unused.
 * @modname:        unused.
 * @base:           unused.
 * @file_name:      the module's main file, or NULL.
 * @debuglink_file: its .gnu_debuglink name, or NULL.
 * @debuglink_crc:  unused (libdwfl checks what it opens by build ID).
 * @debuginfo_file_name: receives a malloc'ed path of the file opened.
 *
 * With DEBUGINFOD_URLS set and not empty: elfutils' own search,
 * dwfl_standard_find_debuginfo(), debuginfod included. Otherwise the same
 * places on this machine, without loading libdebuginfod (whose start-up,
 * libcurl and its TLS stack, costs more than decoding a small trace):
 * /usr/lib/debug/.build-id/NN/REST.debug by build ID, then the debuglink
 * name beside the file, in its .debug directory and under /usr/lib/debug
 * (the default debuginfo_path of elfutils, ":.debug:/usr/lib/debug").
 *
 * Return: an open read-only descriptor; -1 with errno ENOENT if none.
 */
int ptflow_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name,
			  const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name);

#endif /* LWPT_TOOLS_PTFLOW_DEBUGINFO_H */
