// SPDX-License-Identifier: GPL-2.0
/*
 * AFL++ 4.04c fork-server protocol, server side (afl_fsrv.h; AFL++
 * src/afl-forkserver.c, include/types.h, include/config.h).
 */
#include "afl_fsrv.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/ipc.h>
#include <sys/shm.h>
#include <unistd.h>

uint32_t afl_fsrv_hello_word(uint32_t map_size)
{
	if (map_size <= 1 || map_size > AFL_FS_OPT_MAX_MAPSIZE)
		return 0;
	return AFL_FS_OPT_ENABLED | AFL_FS_OPT_MAPSIZE | ((map_size - 1) << 1);
}

uint32_t afl_fsrv_error_word(uint32_t err)
{
	return AFL_FS_OPT_ERROR | ((err & 0xffff) << 8);
}

uint32_t afl_fsrv_map_size(uint32_t word)
{
	if ((word & AFL_FS_OPT_ERROR) == AFL_FS_OPT_ERROR)
		return 0;
	if ((word & (AFL_FS_OPT_ENABLED | AFL_FS_OPT_MAPSIZE)) !=
	    (AFL_FS_OPT_ENABLED | AFL_FS_OPT_MAPSIZE))
		return 0;
	return ((word & 0x00fffffe) >> 1) + 1;
}

int afl_fsrv_write4(int fd, uint32_t v)
{
	ssize_t n;

	do
		n = write(fd, &v, sizeof(v));
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == sizeof(v) ? 0 : -EPIPE;
}

int afl_fsrv_read4(int fd, uint32_t *v)
{
	size_t got = 0;
	ssize_t n;

	while (got < sizeof(*v)) {
		n = read(fd, (char *)v + got, sizeof(*v) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return got ? -EPROTO : -ENODATA;
		got += (size_t)n;
	}
	return 0;
}

int afl_fsrv_shm_attach(uint32_t map_size, uint8_t **mapp, uint32_t *err)
{
	const char *s = getenv(AFL_SHM_ENV);
	struct shmid_ds ds;
	char *end;
	long id;
	void *p;

	*err = AFL_FS_ERROR_SHM_OPEN;
	if (!s)
		return -ENOENT;
	errno = 0;
	id = strtol(s, &end, 10);
	if (errno || end == s || *end || id < 0 || id > INT32_MAX)
		return -EINVAL;
	if (shmctl((int)id, IPC_STAT, &ds))
		return -errno;
	if (ds.shm_segsz < map_size) {
		*err = AFL_FS_ERROR_MAP_SIZE;
		return -ENOSPC;
	}
	p = shmat((int)id, NULL, 0);
	if (p == (void *)-1) {
		*err = AFL_FS_ERROR_SHMAT;
		return -errno;
	}
	*mapp = p;
	*err = 0;
	return 0;
}
