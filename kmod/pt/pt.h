/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Intel PT subsystem of lwpt (issue 6): /dev/pt, ToPA buffers, per-CPU
 * capture, the ToPA PMI. Shared by lwpt.ko and lwpt_sim.ko; it reaches the
 * processor only through the hardware layer (hw.h).
 */
#ifndef LWPT_KMOD_PT_PT_H
#define LWPT_KMOD_PT_PT_H

#include <linux/fs.h>

#include "../lwpt.h"

/* The file operations of /dev/pt (dev.c registers the device). */
extern const struct file_operations pt_fops;

/**
 * pt_init - decode the PT capabilities and hook the ToPA PMI
 * @caps: detection result; nothing is done unless @caps->pt
 *
 * Decodes CPUID leaf 14H once, through the capability table of
 * <lwpt/pt_cpuid.h> (SDM 33.3.1, Tables 33-11 and 33-12), and registers the
 * PMI handler with lwpt_hw_pmi_register() (SDM 33.2.7.2).
 *
 * Return: 0, or the error of lwpt_hw_pmi_register() (-EBUSY, ...).
 */
int pt_init(const struct lwpt_caps *caps);

/**
 * pt_exit - undo pt_init()
 *
 * No capture can be running: an open /dev/pt holds a module reference, and
 * closing it stops and frees its capture.
 */
void pt_exit(void);

#endif /* LWPT_KMOD_PT_PT_H */
