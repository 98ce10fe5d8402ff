// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * liblwp hardware backend: LWP made available to the calling thread by the
 * lwpt kernel module through /dev/lwp (lwpt.ko on LWP hardware, lwpt_sim.ko
 * on the model in a VM; issue 4).
 *
 * STUB. The /dev/lwp ABI (include/uapi/lwpt/lwp.h) does not exist yet, so
 * this backend reports -ENODEV and lwp_open(LWP_BACKEND_AUTO) falls back to
 * the emulation. When the ABI lands, lwp_hw_query() reads the capabilities
 * ioctl (the CPUID values the kernel sees, LWP_CFG programmed), lwp_hw_open()
 * asks the module to make LWP available to the calling thread (XCR0[62] for
 * that thread only), lwp_hw_start()/lwp_hw_stop() execute the real LLWPCB
 * (lwp_llwpcb()), lwp_wait() polls the /dev/lwp descriptor, and the raw
 * instructions run on the CPU with no handler involved.
 */
#include <errno.h>
#include <unistd.h>

#include "liblwp/lwp_internal.h"

#define LWP_HW_DEVICE	"/dev/lwp"

int lwp_hw_query(struct lwp_caps *caps)
{
	caps->hw_available = 0;
	if (access(LWP_HW_DEVICE, R_OK | W_OK))
		return -ENODEV;
	/* TODO(issue 4): LWP capabilities ioctl of include/uapi/lwpt/lwp.h. */
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
