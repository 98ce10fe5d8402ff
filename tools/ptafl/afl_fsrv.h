/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fork-server side of AFL++'s fork-server protocol, as afl-fuzz 4.04c
 * speaks it (AFL++ src/afl-forkserver.c afl_fsrv_start() and
 * afl_fsrv_run_target(), include/config.h, include/types.h; Debian 12's
 * afl++ 4.04c). Written from that description, no AFL++ code:
 *
 *   afl-fuzz -> server: file descriptor AFL_FSRV_CTL_FD (198)
 *   server -> afl-fuzz: file descriptor AFL_FSRV_ST_FD (199)
 *   1. hello: the server writes 4 bytes: FS_OPT_ENABLED | FS_OPT_MAPSIZE |
 *      FS_OPT_SET_MAPSIZE(map size) (or FS_OPT_ERROR | error bits)
 *   2. per run: afl-fuzz writes 4 bytes (1 if the previous run timed out
 *      and it killed the child, else 0); the server writes the child's pid
 *      (4 bytes), then, when the child is gone, its wait status (4 bytes).
 *      afl-fuzz handles time-outs itself: it kills the pid it was given.
 *   The coverage map is System V shared memory whose id afl-fuzz puts in
 *   the environment variable __AFL_SHM_ID (MAP_SIZE 2^16 bytes by default).
 * Host byte order throughout (afl-fuzz and the server share the machine).
 */
#ifndef LWPT_TOOLS_PTAFL_AFL_FSRV_H
#define LWPT_TOOLS_PTAFL_AFL_FSRV_H

#include <stddef.h>
#include <stdint.h>

#define AFL_FSRV_CTL_FD		198	/* config.h FORKSRV_FD */
#define AFL_FSRV_ST_FD		199	/* FORKSRV_FD + 1 */
#define AFL_SHM_ENV		"__AFL_SHM_ID"	/* config.h SHM_ENV_VAR */
#define AFL_MAP_SIZE_DEFAULT	65536u	/* config.h MAP_SIZE (1 << 16) */

/* types.h: option bits of the hello word. */
#define AFL_FS_OPT_ENABLED	0x80000001u
#define AFL_FS_OPT_MAPSIZE	0x40000000u
#define AFL_FS_OPT_ERROR	0xf800008fu
#define AFL_FS_OPT_MAX_MAPSIZE	((0x00fffffeu >> 1) + 1)	/* 2^23 */
/* types.h FS_ERROR_*: what failed, in an FS_OPT_ERROR hello. */
#define AFL_FS_ERROR_MAP_SIZE	1
#define AFL_FS_ERROR_SHM_OPEN	4
#define AFL_FS_ERROR_SHMAT	8
#define AFL_FS_ERROR_MMAP	16
/* config.h EXEC_FAIL_SIG: the first 4 map bytes when the exec failed. */
#define AFL_EXEC_FAIL_SIG	0xfee1deadu

/**
 * afl_fsrv_hello_word() - the hello word announcing a map of @map_size.
 * @map_size:	bytes, 2 .. AFL_FS_OPT_MAX_MAPSIZE (types.h
 *		FS_OPT_SET_MAPSIZE(): (size - 1) << 1 in bits 1..23)
 * Return: FS_OPT_ENABLED | FS_OPT_MAPSIZE | the size bits; 0 for a size
 * the protocol cannot carry.
 */
uint32_t afl_fsrv_hello_word(uint32_t map_size);

/**
 * afl_fsrv_error_word() - the hello word reporting a set-up error.
 * @err:	AFL_FS_ERROR_* (types.h FS_OPT_SET_ERROR(): bits 8..23)
 * Return: FS_OPT_ERROR | (@err << 8); afl-fuzz prints what failed and stops.
 */
uint32_t afl_fsrv_error_word(uint32_t err);

/**
 * afl_fsrv_map_size() - the map size a hello word announces.
 * @word:	the hello word (as afl-fuzz reads it)
 * Return: bytes (types.h FS_OPT_GET_MAPSIZE()); 0 if @word has no
 * FS_OPT_ENABLED | FS_OPT_MAPSIZE or is an error word.
 */
uint32_t afl_fsrv_map_size(uint32_t word);

/**
 * afl_fsrv_write4() - write one protocol word on @fd, retrying EINTR.
 * @fd:		AFL_FSRV_ST_FD (or a test's pipe)
 * @v:		the word
 * Return: 0; -EPIPE afl-fuzz is gone; another negative errno of write().
 */
int afl_fsrv_write4(int fd, uint32_t v);

/**
 * afl_fsrv_read4() - read one protocol word from @fd, retrying EINTR.
 * @fd:		AFL_FSRV_CTL_FD (or a test's pipe)
 * @v:		out: the word
 * Return: 0; -ENODATA end of file (afl-fuzz closed the pipe: stop
 * serving); -EPROTO a short word; another negative errno of read().
 */
int afl_fsrv_read4(int fd, uint32_t *v);

/**
 * afl_fsrv_shm_attach() - attach the coverage map named by __AFL_SHM_ID.
 * @map_size:	bytes the caller will use; the segment must hold them
 * @mapp:	out: the map (detached by exit)
 * @err:	out: the AFL_FS_ERROR_* to report on failure
 * Return: 0; -ENOENT no __AFL_SHM_ID (not run by afl-fuzz); -EINVAL it is
 * not a number; -ENOSPC the segment is smaller than @map_size; another
 * negative errno of shmctl()/shmat().
 */
int afl_fsrv_shm_attach(uint32_t map_size, uint8_t **mapp, uint32_t *err);

#endif /* LWPT_TOOLS_PTAFL_AFL_FSRV_H */
