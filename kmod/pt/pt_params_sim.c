// SPDX-License-Identifier: GPL-2.0
/* The PT policy parameters of lwpt_sim.ko: the same as lwpt.ko's. */
#include <linux/kstrtox.h>

#include "pt_params.c"

/*
 * A test aid of the model only: writing it runs what the reboot notifier
 * runs (pt_quiesce()), without rebooting (tests/vm/cases/69-pt-quiesce.sh).
 * Reading says whether it ran.
 */
static int pt_sim_quiesce_set(const char *val, const struct kernel_param *kp)
{
	bool on;
	int err = kstrtobool(val, &on);

	if (err)
		return err;
	if (on)
		pt_quiesce();
	return 0;
}

static const struct kernel_param_ops pt_sim_quiesce_ops = {
	.set = pt_sim_quiesce_set,
	.get = param_get_bool,
};

module_param_cb(pt_reboot_quiesce, &pt_sim_quiesce_ops, &pt_quiesced, 0644);
MODULE_PARM_DESC(pt_reboot_quiesce,
		 "Model test aid: write 1 to quiesce PT as the reboot/kexec notifier does (no way back until unload); reads 1 once quiesced");
