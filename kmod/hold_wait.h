/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The wait of a thread held for its reader on the way to user mode: PT's
 * hold (pt/pt_thread.c) and BTS's ring hold (bts/bts_thread.c), both
 * from task_work, both interruptible (a signal is delivered first, then
 * the hold is queued again: issue 39 point 1).
 */
#ifndef LWPT_KMOD_HOLD_WAIT_H
#define LWPT_KMOD_HOLD_WAIT_H

#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/wait.h>

/**
 * lwpt_hold_wait - wait until @cond, interruptibly, for at most @timeout
 * @wq: the wait queue woken when @cond may have changed
 * @cond: the condition that ends the hold
 * @timeout: in jiffies; MAX_SCHEDULE_TIMEOUT: no limit
 *
 * wait_event_interruptible_timeout(), except that a task_work queued with
 * TWA_SIGNAL (io_uring) with no signal behind it does not end the wait:
 * its TIF_NOTIFY_SIGNAL is cleared, as get_signal() does before it runs
 * task_work (that work then runs after the hold, in the same
 * task_work_run()), and the wait goes on for what is left of @timeout.
 *
 * Return: as wait_event_interruptible_timeout(): -ERESTARTSYS for a
 * signal, 0 if @timeout elapsed with @cond false, else the jiffies left
 * (at least 1).
 */
#define lwpt_hold_wait(wq, cond, timeout)					\
({										\
	long __left = (timeout), __ret;						\
	unsigned long __end = jiffies + __left;					\
										\
	for (;;) {								\
		__ret = wait_event_interruptible_timeout(wq, cond, __left);	\
		if (__ret != -ERESTARTSYS || task_sigpending(current) ||	\
		    !test_thread_flag(TIF_NOTIFY_SIGNAL))			\
			break;							\
		clear_notify_signal();						\
		if (__left != MAX_SCHEDULE_TIMEOUT)				\
			__left = max_t(long, 1, (long)(__end - jiffies));	\
	}									\
	__ret;									\
})

#endif
