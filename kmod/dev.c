// SPDX-License-Identifier: GPL-2.0
/*
 * The character devices /dev/lwp, /dev/pt and /dev/bts and the ioctls they
 * share.
 */
#include <linux/compat.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/uaccess.h>

#include <uapi/lwpt/lwpt.h>

#include "lwpt.h"
#include "bts/bts.h"
#include "lwp/lwp.h"
#include "pt/pt.h"

/**
 * struct lwpt_dev - one misc device
 * @misc: the registered misc device; file->private_data points here
 * @device: LWPT_DEVICE_LWP, LWPT_DEVICE_PT or LWPT_DEVICE_BTS
 * @registered: misc_register() succeeded
 */
struct lwpt_dev {
	struct miscdevice misc;
	u32 device;
	bool registered;
};

static long lwpt_ioctl_abi_version(struct lwpt_dev *dev, void __user *arg)
{
	struct lwpt_abi_version v = {
		.size = sizeof(v),
		.version = LWPT_ABI_VERSION,
		.device = dev->device,
		.flags = (lwpt_hw_flags() & LWPT_HW_F_SIM) ? LWPT_ABI_F_SIM : 0,
	};

	if (copy_to_user(arg, &v, sizeof(v)))
		return -EFAULT;
	return 0;
}

long lwpt_dev_ioctl_misc(struct miscdevice *misc, unsigned int cmd,
			 unsigned long arg)
{
	struct lwpt_dev *dev = container_of(misc, struct lwpt_dev, misc);

	switch (cmd) {
	case LWPT_IOC_GET_ABI_VERSION:
		return lwpt_ioctl_abi_version(dev, (void __user *)arg);
	default:
		return -ENOTTY;
	}
}

/*
 * /dev/lwp is usable by everyone: LWP is a user-mode feature that a thread
 * enables for itself (43724 §1). /dev/pt is for root (or whoever the
 * administrator gives it to through udev); its CONFIGURE ioctl checks each
 * request against the caller anyway (Documentation/pt.rst, permissions).
 */
static struct lwpt_dev lwpt_devs[] = {
	{
		.misc = {
			.minor = MISC_DYNAMIC_MINOR,
			.name = "lwp",
			.fops = &lwp_fops,	/* lwp/lwp_core.c */
			.mode = 0666,
		},
		.device = LWPT_DEVICE_LWP,
	},
	{
		.misc = {
			.minor = MISC_DYNAMIC_MINOR,
			.name = "pt",
			.fops = &pt_fops,	/* pt/pt_core.c */
			.mode = 0600,
		},
		.device = LWPT_DEVICE_PT,
	},
	{
		/* As /dev/pt: CONFIGURE checks each request (bts.rst). */
		.misc = {
			.minor = MISC_DYNAMIC_MINOR,
			.name = "bts",
			.fops = &bts_fops,	/* bts/bts_core.c */
			.mode = 0600,
		},
		.device = LWPT_DEVICE_BTS,
	},
};

int lwpt_dev_register(const struct lwpt_caps *caps)
{
	size_t i;
	int err;

	for (i = 0; i < ARRAY_SIZE(lwpt_devs); i++) {
		struct lwpt_dev *dev = &lwpt_devs[i];

		if (dev->device == LWPT_DEVICE_LWP && !caps->lwp)
			continue;
		if (dev->device == LWPT_DEVICE_PT && !caps->pt)
			continue;
		if (dev->device == LWPT_DEVICE_BTS && !caps->bts)
			continue;
		err = misc_register(&dev->misc);
		if (err) {
			pr_err(LWPT_PR_PREFIX "cannot register /dev/%s: %d\n",
			       dev->misc.name, err);
			lwpt_dev_unregister();
			return err;
		}
		dev->registered = true;
	}
	return 0;
}

void lwpt_dev_unregister(void)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(lwpt_devs); i++) {
		if (!lwpt_devs[i].registered)
			continue;
		misc_deregister(&lwpt_devs[i].misc);
		lwpt_devs[i].registered = false;
	}
}
