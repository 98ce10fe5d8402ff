// SPDX-License-Identifier: GPL-2.0
/*
 * Module entry points, shared by lwpt.ko and lwpt_sim.ko: bring up the
 * hardware layer, detect LWP, PT and BTS, create the devices for what exists.
 */
#include <linux/init.h>
#include <linux/kernel.h>
#include <linux/module.h>

#include "lwpt.h"
#include "bts/bts.h"
#include "lwp/lwp.h"
#include "pt/pt.h"

static struct lwpt_caps lwpt_caps;

static int __init lwpt_init(void)
{
	int err;

	err = lwpt_hw_init();
	if (err)
		return err;

	lwpt_detect(&lwpt_caps);
	if (!lwpt_caps.lwp && !lwpt_caps.pt && !lwpt_caps.bts) {
		/* The one line that says why (issue 2 point 7). */
		pr_info(LWPT_PR_PREFIX "no LWP (%s), no Intel PT (%s) and no BTS (%s); not loading\n",
			lwpt_caps.no_lwp, lwpt_caps.no_pt, lwpt_caps.no_bts);
		err = -ENODEV;
		goto err_hw_exit;
	}

	err = lwp_init(&lwpt_caps);
	if (err)
		goto err_hw_exit;

	err = pt_init(&lwpt_caps);
	if (err)
		goto err_lwp_exit;

	err = bts_init(&lwpt_caps);
	if (err)
		goto err_pt_exit;

	err = lwpt_dev_register(&lwpt_caps);
	if (err)
		goto err_bts_exit;

	pr_info(LWPT_PR_PREFIX "%s: vendor %s, LWP %s, Intel PT %s, BTS %s\n",
		lwpt_hw_name(), lwpt_caps.vendor,
		lwpt_caps.lwp ? "present (/dev/lwp)" : "absent",
		lwpt_caps.pt ? "present (/dev/pt)" : "absent",
		lwpt_caps.bts ? "present (/dev/bts)" : "absent");
	return 0;

err_bts_exit:
	bts_exit();
err_pt_exit:
	pt_exit();
err_lwp_exit:
	lwp_exit();
err_hw_exit:
	lwpt_hw_exit();
	return err;
}

static void __exit lwpt_exit(void)
{
	lwpt_dev_unregister();
	bts_exit();
	pt_exit();
	lwp_exit();
	lwpt_hw_exit();
}

module_init(lwpt_init);
module_exit(lwpt_exit);
