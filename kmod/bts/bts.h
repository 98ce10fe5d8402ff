/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Branch Trace Store subsystem of lwpt (issue 37): /dev/bts, per-thread
 * BTS captures into buffers the caller maps, the per-CPU DS save area.
 * Shared by lwpt.ko and lwpt_sim.ko; it reaches the processor only through
 * the hardware layer (hw.h).
 */
#ifndef LWPT_KMOD_BTS_BTS_H
#define LWPT_KMOD_BTS_BTS_H

#include <linux/fs.h>

#include "../lwpt.h"

/* The file operations of /dev/bts (dev.c registers the device). */
extern const struct file_operations bts_fops;

/**
 * bts_init - set up BTS if detection found it
 * @caps: detection result; nothing is done unless @caps->bts
 *
 * Allocates the per-CPU DS save areas (SDM 17.4.9.1) and probes the
 * scheduler's sched_switch and sched_process_exit tracepoints.
 *
 * Return: 0; -ENOMEM; -ENODEV if a tracepoint is missing.
 */
int bts_init(const struct lwpt_caps *caps);

/**
 * bts_exit - undo bts_init()
 *
 * No capture runs: an open /dev/bts holds a module reference.
 */
void bts_exit(void);

#endif /* LWPT_KMOD_BTS_BTS_H */
