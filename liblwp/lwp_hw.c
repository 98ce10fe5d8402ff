// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * liblwp hardware backend: LWP made available to the calling thread by the
 * lwpt kernel module through /dev/lwp (lwpt.ko on LWP hardware, lwpt_sim.ko
 * on the model in a VM; issue 4).
 *
 * STUB. Of the /dev/lwp ABI only LWPT_IOC_GET_ABI_VERSION exists
 * (include/uapi/lwpt/lwpt.h): lwp_hw_query() reports the module's ABI
 * version and whether it is lwpt_sim.ko, then -ENODEV, and
 * lwp_open(LWP_BACKEND_AUTO) falls back to the emulation. When the LWP
 * ioctls land (include/uapi/lwpt/lwp.h), lwp_hw_query() reads the capabilities
 * ioctl (the CPUID values the kernel sees, LWP_CFG programmed), lwp_hw_open()
 * asks the module to make LWP available to the calling thread (XCR0[62] for
 * that thread only), lwp_hw_start()/lwp_hw_stop() execute the real LLWPCB
 * (lwp_llwpcb()), lwp_wait() polls the /dev/lwp descriptor, and the raw
 * instructions run on the CPU with no handler involved.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/types.h>

#include <uapi/lwpt/lwpt.h>

#include "liblwp/lwp_internal.h"

#define LWP_HW_DEVICE	"/dev/lwp"

int lwp_hw_query(struct lwp_caps *caps)
{
	struct lwpt_abi_version v = { .size = sizeof(v) };
	int fd;

	caps->hw_available = 0;
	fd = open(LWP_HW_DEVICE, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -ENODEV;
	if (ioctl(fd, LWPT_IOC_GET_ABI_VERSION, &v) == 0 &&
	    v.device == LWPT_DEVICE_LWP) {
		caps->hw_abi_version = v.version;
		caps->hw_sim = !!(v.flags & LWPT_ABI_F_SIM);
	}
	close(fd);
	/* TODO(issue 4): the LWP capabilities ioctl, then return 0. */
	return -ENODEV;
}

int lwp_hw_open(struct lwp_session *s)
{
	(void)s;
	return -ENODEV;
}

int lwp_hw_start(struct lwp_session *s)
{
	(void)s;
	return -ENODEV;
}

int lwp_hw_stop(struct lwp_session *s)
{
	(void)s;
	return -ENODEV;
}

void lwp_hw_close(struct lwp_session *s)
{
	(void)s;
}
