// SPDX-License-Identifier: GPL-2.0
/*
 * Guest entries of KVM vCPU threads, for the LWP subsystem (issue 28 §1).
 *
 * 43724 §8.2.2 asks a hypervisor to switch the LWP state at every world
 * switch; 6.1's KVM does not. kvm_load_guest_xsave_state() executes XSETBV
 * only if the guest's XCR0 differs from host_xcr0, which KVM read once at
 * its init: a vCPU thread with LWP (XCR0[62] = 1 while it runs, lwp_core.c)
 * would enter the guest with XCR0[62] set and its LWP_CBADDR loaded, and a
 * guest LLWPCB would make the processor write records into the VMM's
 * address space after the exit. Xen's svm_lwp_save() zeroes LWP_CFG and
 * LWP_CBADDR for this.
 *
 * The hook: KVM's kvm_entry tracepoint (arch/x86/kvm/trace.h), which 6.1's
 * svm_vcpu_run() and vmx_vcpu_run() fire with IRQs off, on the vCPU thread,
 * before kvm_load_guest_xsave_state() and VMRUN/VMLAUNCH. KVM is usually a
 * module that loads and unloads at any time: its tracepoints are found
 * through the tracepoint module notifier (kernel/tracepoint.c), and those
 * of a built-in KVM with lwpt_tracepoint_find(). A registered probe costs
 * every guest entry of the host one call. Other hypervisors (VirtualBox,
 * VMware) are not seen. See Documentation/lwp.rst, "KVM guests".
 *
 * host_xcr0 is read by kvm_arch_init() (6.1, arch/x86/kvm/x86.c), which
 * kvm_init() calls from the init of the vendor module, kvm_amd or kvm_intel,
 * in the thread that loads it (issue 38 §5): that thread loses LWP when the
 * vendor module is COMING (a module notifier), before its init runs.
 */
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/string.h>
#include <linux/tracepoint.h>

#include "lwp.h"

#define LWP_GUEST_TP	"kvm_entry"

/* KVM's vendor modules: their init calls kvm_init(), which reads host_xcr0. */
static const char *const lwp_guest_vendors[] = { "kvm_amd", "kvm_intel" };

static void (*lwp_guest_fn)(void);
/* The kvm_entry tracepoint our probe is on, or NULL. */
static struct tracepoint *lwp_guest_tp;
static DEFINE_MUTEX(lwp_guest_lock);

/*
 * Probe of kvm_entry (TP_PROTO(struct kvm_vcpu *vcpu, ...)): the arguments
 * are not used, so the probe takes the first only (the x86-64 calling
 * convention lets a callee ignore trailing arguments).
 */
static void lwp_guest_probe(void *data, void *vcpu)
{
	lwp_guest_fn();
}

/* Put the probe on @tp; lwp_guest_lock held. */
static void lwp_guest_attach(struct tracepoint *tp)
{
	int err;

	if (lwp_guest_tp)
		return;
	err = tracepoint_probe_register(tp, lwp_guest_probe, NULL);
	if (err) {
		pr_err(LWPT_PR_PREFIX "LWP: cannot probe KVM's %s tracepoint (%d): a vCPU thread with LWP would enter its guest with it\n",
		       LWP_GUEST_TP, err);
		return;
	}
	lwp_guest_tp = tp;
}

/* Take the probe off @tp (if it is ours); lwp_guest_lock held. */
static void lwp_guest_detach(struct tracepoint *tp)
{
	if (!lwp_guest_tp || lwp_guest_tp != tp)
		return;
	tracepoint_probe_unregister(tp, lwp_guest_probe, NULL);
	tracepoint_synchronize_unregister();
	lwp_guest_tp = NULL;
}

/* A module with tracepoints comes or goes (kvm.ko among them). */
static int lwp_guest_module(struct notifier_block *nb, unsigned long val,
			    void *data)
{
	struct tp_module *tp_mod = data;
	struct module *mod = tp_mod->mod;
	struct tracepoint *tp;
	unsigned int i;

	for (i = 0; i < mod->num_tracepoints; i++) {
		tp = tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);
		if (strcmp(tp->name, LWP_GUEST_TP))
			continue;
		mutex_lock(&lwp_guest_lock);
		if (val == MODULE_STATE_COMING)
			lwp_guest_attach(tp);
		else if (val == MODULE_STATE_GOING)
			lwp_guest_detach(tp);
		mutex_unlock(&lwp_guest_lock);
	}
	return NOTIFY_OK;
}

static struct notifier_block lwp_guest_nb = {
	.notifier_call = lwp_guest_module,
};

/*
 * Any module comes: if it is one of KVM's vendor modules, its init will
 * read host_xcr0 with XGETBV in this thread (kvm_init(), kvm_arch_init()).
 * With LWP here, bit 62 would be in host_xcr0 and KVM would set XCR0[62]
 * at every guest exit of every vCPU thread, with or without LWP. The
 * loader loses LWP as a guest entry would; it is in finit_module() until
 * the init returned, so it cannot enable LWP again before.
 */
static int lwp_guest_vendor(struct notifier_block *nb, unsigned long val,
			    void *data)
{
	struct module *mod = data;
	unsigned int i;

	if (val != MODULE_STATE_COMING)
		return NOTIFY_OK;
	for (i = 0; i < ARRAY_SIZE(lwp_guest_vendors); i++)
		if (!strcmp(mod->name, lwp_guest_vendors[i]))
			lwp_guest_fn();
	return NOTIFY_OK;
}

static struct notifier_block lwp_guest_vendor_nb = {
	.notifier_call = lwp_guest_vendor,
};

int lwp_guest_hook_init(void (*fn)(void))
{
	struct tracepoint *tp;
	int err;

	lwp_guest_fn = fn;
	tp = lwpt_tracepoint_find(LWP_GUEST_TP);
	if (tp) {
		mutex_lock(&lwp_guest_lock);
		lwp_guest_attach(tp);
		mutex_unlock(&lwp_guest_lock);
	}
	err = register_module_notifier(&lwp_guest_vendor_nb);
	if (!err)
		err = register_tracepoint_module_notifier(&lwp_guest_nb);
	if (err)
		lwp_guest_hook_exit();
	return err;
}

void lwp_guest_hook_exit(void)
{
	unregister_module_notifier(&lwp_guest_vendor_nb);
	/* Calls the notifier with GOING for every module: kvm.ko detached. */
	unregister_tracepoint_module_notifier(&lwp_guest_nb);
	mutex_lock(&lwp_guest_lock);
	if (lwp_guest_tp)
		lwp_guest_detach(lwp_guest_tp);
	mutex_unlock(&lwp_guest_lock);
}
