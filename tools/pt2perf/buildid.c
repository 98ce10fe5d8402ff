// SPDX-License-Identifier: GPL-2.0
/* pt2perf: build-ids through elfutils (buildid.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <elfutils/libdwelf.h>
#include <libelf.h>

#include "buildid.h"

int pt2perf_build_id(const char *path, uint8_t id[PT2PERF_BUILD_ID_MAX], size_t *len)
{
	const void *bid = NULL;
	ssize_t n;
	int fd, err = 0;
	Elf *elf;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		err = -ENOEXEC;
		goto out;
	}
	n = dwelf_elf_gnu_build_id(elf, &bid);
	if (n <= 0 || n > PT2PERF_BUILD_ID_MAX) {
		err = -ENODATA;
		goto out;
	}
	memcpy(id, bid, (size_t)n);
	*len = (size_t)n;
out:
	if (elf)
		elf_end(elf);
	close(fd);
	return err;
}
