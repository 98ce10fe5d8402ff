/* SPDX-License-Identifier: LGPL-2.1-or-later OR MIT */
/*
 * liblwp: the /dev/lwp ioctls (include/uapi/lwpt/lwp.h), kept in their own
 * translation unit because the uapi header and include/lwpt/lwp.h both name
 * a "struct lwp_caps". Plain types only here.
 */
#ifndef LIBLWP_LWP_HW_DEV_H
#define LIBLWP_LWP_HW_DEV_H

#include <stdint.h>

/* What LWP_IOC_GET_CAPS and LWPT_IOC_GET_ABI_VERSION report. */
struct lwp_hw_dev_caps {
	uint32_t abi_version;	/* LWPT_ABI_VERSION of the module */
	uint32_t sim;		/* lwpt_sim.ko: LWP runs on the model */
	uint32_t irq;		/* LWP_CAPS_F_INT: threshold interrupts delivered */
	uint32_t enabled;	/* LWP_CAPS_F_ENABLED: caller has LWP via this fd */
	uint32_t refused;	/* LWP_CAPS_F_REFUSED: this kernel may not run LWP */
	uint32_t fn8000_001c[4];/* CPUID Fn8000_001C EAX..EDX (43724 Table 3-1) */
	uint64_t lwp_cfg;	/* LWP_CFG programmed (43724 Figure 4-1) */
};

/* Returns 0, or -errno of the ioctl (ENODEV: not an LWP device). */
int lwp_hw_dev_caps(int fd, struct lwp_hw_dev_caps *out);
/* LWP_IOC_ENABLE for the calling thread: 0 or -errno (EBUSY, EPERM, ...). */
int lwp_hw_dev_enable(int fd);
/* LWP_IOC_DISABLE for the calling thread: 0 or -errno (EPERM). */
int lwp_hw_dev_disable(int fd);
/*
 * LWP_IOC_GET_STATS: 1 if the file's owning thread has LWP available right
 * now, 0 if not, -errno on error.
 */
int lwp_hw_dev_owner_enabled(int fd);

#endif /* LIBLWP_LWP_HW_DEV_H */
