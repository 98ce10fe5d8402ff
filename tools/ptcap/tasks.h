/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptcap --bts -p PID: the threads of a process as /proc/PID/task lists
 * them, looked at again while the capture runs (threads the process
 * creates after the attach are recorded from when ptcap finds them,
 * Documentation/ptcap.rst "--bts -p"), and the process's end through a
 * pidfd (pidfd_open(2), Linux 5.3), which no later process with the same
 * pid can be taken for.
 */
#ifndef LWPT_TOOLS_PTCAP_TASKS_H
#define LWPT_TOOLS_PTCAP_TASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/**
 * struct ptcap_tasks - a growable set of thread ids
 * @v:   the ids, in the order added or, after ptcap_tasks_sort(),
 *       ascending (malloc'ed; NULL when empty)
 * @n:   ids in @v
 * @cap: room of @v
 * @sorted: @v is ascending (ptcap_tasks_sort() since the last change):
 *       look-ups are binary searches
 */
struct ptcap_tasks {
	pid_t *v;
	size_t n, cap;
	bool sorted;
};

/**
 * ptcap_tasks_add() - append @tid to @s (no check for a duplicate).
 * @s:   the set.
 * @tid: a thread id (> 0).
 *
 * Return: 0; -ENOMEM when the set cannot grow (@s unchanged).
 */
int ptcap_tasks_add(struct ptcap_tasks *s, pid_t tid);

/**
 * ptcap_tasks_has() - whether @tid is in @s: O(log n) once sorted
 * (ptcap_tasks_sort()), O(n) otherwise.
 * @s:   the set.
 * @tid: a thread id.
 *
 * Return: true if it is.
 */
bool ptcap_tasks_has(const struct ptcap_tasks *s, pid_t tid);

/**
 * ptcap_tasks_keep() - keep in @s only the ids that are also in @in (the
 * order of @s kept).
 * @s:  the set, filtered in place.
 * @in: the ids to keep (sorted: O(|@s| log |@in|)).
 */
void ptcap_tasks_keep(struct ptcap_tasks *s, const struct ptcap_tasks *in);

/**
 * ptcap_tasks_sort() - sort @s ascending, for O(log n) look-ups until the
 * next ptcap_tasks_add() or ptcap_tasks_read(). A process of thousands of
 * threads looked at every round then costs n log n, not n squared.
 * @s: the set.
 */
void ptcap_tasks_sort(struct ptcap_tasks *s);

/**
 * ptcap_tasks_read() - the threads of process @pid now: the numeric
 * entries of @proc/@pid/task, in directory order.
 * @s:    emptied, then filled (its memory reused).
 * @proc: the proc mount, "/proc" (another directory for tests).
 * @pid:  the process (its thread group id).
 *
 * Return: 0 (@s may be empty: the process is a zombie whose threads are
 * all gone); a negative errno of opendir(3) (-ENOENT: no such process)
 * or -ENOMEM.
 */
int ptcap_tasks_read(struct ptcap_tasks *s, const char *proc, pid_t pid);

/**
 * ptcap_tasks_free() - release @s's memory; @s is empty after.
 * @s: the set.
 */
void ptcap_tasks_free(struct ptcap_tasks *s);

/**
 * ptcap_pidfd_open() - a pidfd of process @pid (pidfd_open(2), flags 0),
 * close-on-exec: poll(2) says POLLIN once every thread of the process
 * exited (a zombie thread group leader whose other threads run is not
 * an end).
 * @pid: a thread group id.
 *
 * Return: the file descriptor, or a negative errno (-ESRCH: no such
 * process; -EINVAL: @pid is not a thread group leader; -ENOSYS: a kernel
 * before 5.3).
 */
int ptcap_pidfd_open(pid_t pid);

#endif /* LWPT_TOOLS_PTCAP_TASKS_H */
