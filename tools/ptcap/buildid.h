/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The "# build-id <hex> <path>" lines of a maps file
 * (Documentation/ptcap-format.rst "maps"): which binary each mapped file
 * was when the capture was made, so that a decoder refuses another one.
 */
#ifndef LWPT_TOOLS_PTCAP_BUILDID_H
#define LWPT_TOOLS_PTCAP_BUILDID_H

#include <stddef.h>
#include <stdio.h>

/**
 * maps_write_build_ids() - one "# build-id <hex> <path>" line per distinct
 * absolute path of @paths whose file has a GNU build-id (ELF note
 * NT_GNU_BUILD_ID, read now with libelf: lpt_perf_elf_build_id()), in the
 * order of their first occurrence, lower-case hex.
 * @f:     the maps file being written (after its mapping lines).
 * @paths: the mapping lines' paths, @n of them, repeats allowed. Relative
 *         paths (copies in the capture directory: vdso.so, JIT dumps), files
 *         that cannot be read, are not ELF or have no note get no line.
 * @n:     number of @paths.
 *
 * Return: the number of lines written.
 */
size_t maps_write_build_ids(FILE *f, const char *const *paths, size_t n);

#endif /* LWPT_TOOLS_PTCAP_BUILDID_H */
