/* SPDX-License-Identifier: GPL-2.0 */
/*
 * pt2perf: the GNU build-id of an ELF file (the NT_GNU_BUILD_ID note the
 * linker writes, read with elfutils' libdw dwelf_elf_gnu_build_id()), for
 * perf's HEADER_BUILD_ID and MMAP2 records.
 */
#ifndef LWPT_TOOLS_PT2PERF_BUILDID_H
#define LWPT_TOOLS_PT2PERF_BUILDID_H

#include <stddef.h>
#include <stdint.h>

/* perf keeps at most 20 bytes (SHA-1), util/build-id.h BUILD_ID_SIZE. */
#define PT2PERF_BUILD_ID_MAX	20

/**
 * pt2perf_build_id() - read the build-id of an ELF file.
 * @path: the file.
 * @id:   receives up to PT2PERF_BUILD_ID_MAX bytes.
 * @len:  receives their number.
 *
 * Return: 0; -ENOENT (or another -errno) when the file cannot be opened,
 * -ENOEXEC when it is not an ELF file, -ENODATA when it has no build-id
 * note (or one longer than 20 bytes).
 */
int pt2perf_build_id(const char *path, uint8_t id[PT2PERF_BUILD_ID_MAX], size_t *len);

#endif /* LWPT_TOOLS_PT2PERF_BUILDID_H */
