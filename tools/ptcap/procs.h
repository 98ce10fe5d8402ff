/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processes of a system-wide capture (ptcap -a, issue 15 point 5):
 * for every process the context-switch sideband names, its file-backed
 * mappings from /proc/PID/maps, its comm and the address where its user
 * code starts after its exec, read while the capture runs and kept per
 * exec generation, then written as `maps.<pid>.<gen>` files and a
 * `processes` index (Documentation/ptcap-format.rst, "processes").
 *
 * Reading /proc races with the process: one that exits before ptcap reads
 * it has no maps (listed as missing; a decoder reports its trace as
 * undecodable); one that execs between two reads gets a new generation.
 */
#ifndef LWPT_TOOLS_PTCAP_PROCS_H
#define LWPT_TOOLS_PTCAP_PROCS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct ptcap_procs;

/**
 * ptcap_procs_alloc() - an empty set of processes.
 *
 * Return: the set, or NULL when out of memory.
 */
struct ptcap_procs *ptcap_procs_alloc(void);

/**
 * ptcap_procs_free() - release a set; NULL is ignored.
 * @ps: the set.
 */
void ptcap_procs_free(struct ptcap_procs *ps);

/**
 * ptcap_procs_round() - start a new round of ptcap_procs_note() calls (one
 * drain of the switch records): each process is read at most once a round.
 * @ps: the set.
 */
void ptcap_procs_round(struct ptcap_procs *ps);

/**
 * ptcap_procs_note() - a process ran: read its maps (once per round).
 * @ps:  the set.
 * @pid: the process id (thread group id); <= 0 is ignored (idle task).
 * @tsc: the time stamp counter now (RDTSC), the clock of the switch
 *       records: the generation read is known to be current at @tsc.
 *
 * A process seen for the first time is read whole (maps, comm, entry):
 * generation 0. A known process is checked with one readlink() of
 * /proc/PID/exe: when the executable changed (it called execve) it is
 * read whole again as a new generation, else only the generation's
 * last-seen time moves (its mappings are read again at the end,
 * ptcap_procs_refresh()). A process that cannot be read (gone) is
 * remembered as missing when it has no generation yet.
 *
 * Return: 0, or -ENOMEM.
 */
int ptcap_procs_note(struct ptcap_procs *ps, pid_t pid, uint64_t tsc);

/**
 * ptcap_procs_refresh() - read every known process again (at the end of
 * the capture, for the libraries loaded since its last read).
 * @ps:  the set.
 * @tsc: the time stamp counter now.
 *
 * Return: 0, or -ENOMEM.
 */
int ptcap_procs_refresh(struct ptcap_procs *ps, uint64_t tsc);

/**
 * ptcap_procs_write() - write `processes` and one `maps.<pid>.<gen>` file
 * per generation into @dir (Documentation/ptcap-format.rst).
 * @ps:        the set.
 * @dir:       the capture directory.
 * @vdso:      the name of the vDSO copy in @dir ("vdso.so"), or NULL: each
 *             process's [vdso] mapping is mapped to it.
 * @vdso_size: its size in bytes (a process whose [vdso] has another size
 *             does not get it).
 * @missing:   receives the number of processes without maps.
 *
 * Return: the number of processes written, or -errno of the first file
 * that could not be written.
 */
int ptcap_procs_write(const struct ptcap_procs *ps, const char *dir,
		      const char *vdso, uint64_t vdso_size, unsigned int *missing);

#endif /* LWPT_TOOLS_PTCAP_PROCS_H */
