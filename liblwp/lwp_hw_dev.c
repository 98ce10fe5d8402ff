// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * liblwp: the /dev/lwp ioctls (include/uapi/lwpt/lwp.h) for lwp_hw.c.
 * The kernel decodes CPUID once; liblwp takes its values from here and
 * never executes CPUID Fn8000_001C itself on this backend.
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>

#include <uapi/lwpt/lwp.h>

#include "liblwp/lwp_hw_dev.h"

int lwp_hw_dev_caps(int fd, struct lwp_hw_dev_caps *out)
{
	struct lwpt_abi_version v = { .size = sizeof(v) };
	struct lwp_caps c;

	memset(out, 0, sizeof(*out));
	if (ioctl(fd, LWPT_IOC_GET_ABI_VERSION, &v))
		return -errno;
	if (v.device != LWPT_DEVICE_LWP)
		return -ENODEV;
	if (LWPT_ABI_VERSION_MAJOR(v.version) != LWPT_ABI_MAJOR)
		return -ENODEV;	/* an ABI this liblwp does not speak */
	out->abi_version = v.version;
	out->sim = !!(v.flags & LWPT_ABI_F_SIM);

	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	if (ioctl(fd, LWP_IOC_GET_CAPS, &c))
		return -errno;
	if (c.size < LWP_CAPS_SIZE_VER0)
		return -ENODEV;
	out->sim |= !!(c.flags & LWP_CAPS_F_SIM);
	out->irq = !!(c.flags & LWP_CAPS_F_INT);
	out->enabled = !!(c.flags & LWP_CAPS_F_ENABLED);
	out->refused = !!(c.flags & LWP_CAPS_F_REFUSED);
	memcpy(out->fn8000_001c, c.fn8000_001c, sizeof(out->fn8000_001c));
	out->lwp_cfg = c.lwp_cfg;
	return 0;
}

int lwp_hw_dev_enable(int fd)
{
	struct lwp_enable e = { .size = sizeof(e), .flags = 0 };

	return ioctl(fd, LWP_IOC_ENABLE, &e) ? -errno : 0;
}

int lwp_hw_dev_disable(int fd)
{
	return ioctl(fd, LWP_IOC_DISABLE, 0) ? -errno : 0;
}

int lwp_hw_dev_owner_enabled(int fd)
{
	struct lwp_stats st;

	memset(&st, 0, sizeof(st));
	st.size = sizeof(st);
	if (ioctl(fd, LWP_IOC_GET_STATS, &st))
		return -errno;
	return !!(st.flags & LWP_CAPS_F_ENABLED);
}
