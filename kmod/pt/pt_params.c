// SPDX-License-Identifier: GPL-2.0
/*
 * The PT policy knobs as module parameters (Documentation/pt.rst,
 * "Permissions" and "Memory"). The variables live in the shared objects
 * (pt_config.c), which may not use module_param (kmod/Kbuild): this file is
 * linked into lwpt.ko, and pt_params_sim.c includes it for lwpt_sim.ko.
 */
#include <linux/moduleparam.h>

#include "pt_int.h"

module_param(pt_paranoid, int, 0644);
MODULE_PARM_DESC(pt_paranoid,
		 "as kernel.perf_event_paranoid for /dev/pt: >2 (default 3) every capture needs CAP_PERFMON; <=2 users may trace their own processes in user mode");
module_param(pt_mlock_kb, uint, 0644);
MODULE_PARM_DESC(pt_mlock_kb,
		 "KiB per online CPU each user may pin in trace buffers before RLIMIT_MEMLOCK applies (as kernel.perf_event_mlock_kb; default 516)");
