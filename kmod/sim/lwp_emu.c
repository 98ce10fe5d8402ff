// SPDX-License-Identifier: GPL-2.0
/*
 * lwpt_sim.ko: the LWP instructions executed by user code (issue 3 point 8).
 *
 * This CPU has no LWP, so LLWPCB, SLWPCB, LWPINS and LWPVAL raise #UD. A die
 * notifier sees the #UD (DIE_TRAP, X86_TRAP_UD, IRQs off). If the faulting
 * thread has LWP (lwp_current_file()) and the bytes at RIP decode as an LWP
 * instruction, it claims the trap and queues a task_work that runs before
 * the return to user mode, where page faults are allowed:
 *   1. read the instruction again and decode it (model/lwp/lwp_xop.c);
 *   2. XSAVE component 62 of this CPU through the hardware layer - the
 *      register file that context switches save and restore - and load it
 *      into a model execution unit (lwp_model_xrstor at CPL 0), with this
 *      CPU's LWP_CFG and XCR0[62];
 *   3. execute the instruction on the model at CPL 3, with user memory
 *      through copy_from_user()/copy_to_user();
 *   4. XSAVE the model and XRSTOR the result into the CPU's register file
 *      (both without the Family 15h quirks: the unit's own state);
 *      apply the registers, RFLAGS.CF and RIP to the thread, or turn the
 *      model's exception into the signal the kernel sends for it.
 * Preemption between 2 and 4 is harmless: the thread's sched-out saves and
 * its sched-in restores the register file, which step 4 then updates.
 * Everything else - other threads, non-LWP instructions, invalid LWP
 * encodings - keeps the kernel's SIGILL (NOTIFY_DONE).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/kdebug.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/signal.h>
#include <linux/task_work.h>
#include <linux/uaccess.h>

#include <asm/msr.h>
#include <asm/ptrace.h>
#include <asm/traps.h>

#include "model/lwp/lwp_xop.h"
#include "model/x86/x86_cofi.h"

#include "../lwp/lwp.h"
#include "../x86_cpuid.h"
#include "sim.h"
#include "sim_step.h"

static uint lwp_features = ~0u;
module_param(lwp_features, uint, 0444);
MODULE_PARM_DESC(lwp_features,
		 "Mask of LWP_CFG[31:1] features (43724 Figure 4-1) the module may enable; default all that CPUID Fn8000_001C_EDX reports");

/*
 * lwp_unsafe_kernel=1: the module behaves as on a kernel whose sigreturn
 * does not mask the restored XSAVE features with user_xfeatures (issue 38
 * §3, kmod/lwp/lwp_kver.h): /dev/lwp refuses LWP_IOC_ENABLE. A test aid:
 * the test VM's kernel has the mask.
 */
static bool lwp_unsafe_kernel;
module_param(lwp_unsafe_kernel, bool, 0444);
MODULE_PARM_DESC(lwp_unsafe_kernel,
		 "Test aid: treat the kernel as one whose sigreturn can XRSTOR component 62 from a signal frame (before 6.1.79): /dev/lwp will not enable LWP (default off)");

/*
 * QEMU's TCG executes XOP 8F as POP instead of raising #UD, so a VM without
 * KVM never traps on the raw instructions. With ud2_marker=1, UD2 directly
 * followed by an LWP instruction executes that instruction (RIP moves past
 * both; the record's InstructionAddress is the LWP instruction's). A test
 * aid only: hardware raises #UD at such a UD2. Documentation/lwp.rst.
 */
static bool ud2_marker;
module_param(ud2_marker, bool, 0644);
MODULE_PARM_DESC(ud2_marker,
		 "Test aid for CPUs/emulators that do not raise #UD on XOP (QEMU TCG): UD2 followed by an LWP instruction executes it (default off)");

/*
 * 43724 §8.3: the unit "need not flush the head pointer to the LWPCB every
 * time it stores an event record"; with lwp_lazy_head=1 it writes
 * BufferHeadOffset only at threshold, ring full, LLWPCB and SLWPCB.
 */
static bool lwp_lazy_head;
module_param(lwp_lazy_head, bool, 0644);
MODULE_PARM_DESC(lwp_lazy_head,
		 "BufferHeadOffset written to the LWPCB only when 43724 §8.3 requires it (threshold, ring full, LLWPCB, SLWPCB), not after every record (default off)");

/*
 * lwp_kvm_run: the VM has no KVM, so a write of 1 makes the writing thread
 * do what a KVM_RUN does to the LWP state (issue 28 §1): the guest-entry
 * hook lwp_guest.c puts on KVM's kvm_entry tracepoint (lwp_guest_entry(),
 * IRQs off), then 6.1's kvm_load_guest_xsave_state() for a guest whose XCR0
 * equals host_xcr0 (no XSETBV): the guest runs with this CPU's XCR0 and
 * LWP_CBADDR. If XCR0[62] is still set there, the guest would see the
 * thread's LWP state (43724 §8.2.2): a spec violation. Reading it gives the
 * number of modelled guest entries.
 */
static atomic_t lwp_kvm_runs = ATOMIC_INIT(0);

static int lwp_kvm_run_set(const char *val, const struct kernel_param *kp)
{
	bool run;
	u64 xcr0 = 0;
	int err = kstrtobool(val, &run);

	if (err || !run)
		return err;
	local_irq_disable();
	lwp_guest_entry();
	err = lwpt_hw_xgetbv(0, &xcr0);
	local_irq_enable();
	if (!err && (xcr0 & LWP_XCR0_MASK))
		sim_violation("KVM guest entry with the thread's XCR0[62] (43724 §8.2.2)");
	atomic_inc(&lwp_kvm_runs);
	return err;
}

static int lwp_kvm_run_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&lwp_kvm_runs));
}

static const struct kernel_param_ops lwp_kvm_run_ops = {
	.set = lwp_kvm_run_set,
	.get = lwp_kvm_run_get,
};
module_param_cb(lwp_kvm_run, &lwp_kvm_run_ops, NULL, 0644);
MODULE_PARM_DESC(lwp_kvm_run,
		 "Test aid: writing 1 makes the writing thread enter a modelled KVM guest (the kvm_entry hook, then a guest XCR0 equal to the host's); reads the number of such entries");

/* UD2 (0F 0B, SDM Vol. 2 UD): the marker's length. */
#define LWP_EMU_UD2_LEN	2

/* Bytes of the marker before the LWP instruction at @bytes, or 0. */
static unsigned int lwp_emu_marker(const u8 *bytes, size_t len)
{
	if (READ_ONCE(ud2_marker) && len >= LWP_EMU_UD2_LEN &&
	    bytes[0] == 0x0F && bytes[1] == 0x0B)
		return LWP_EMU_UD2_LEN;
	return 0;
}

/* The model profile whose CPUID the simulated CPUs report. */
static const struct lwp_model_profile *lwp_emu_profile;
/* CPUID Fn0000_000D_x3E EBX: offset of component 62 in the XSAVE area. */
static u32 lwp_emu_offset;

u32 lwp_variant_feature_policy(void)
{
	return lwp_features;
}

bool lwp_variant_kernel_unsafe(void)
{
	return lwp_unsafe_kernel;
}

static int lwp_emu_read(void *ctx, u64 addr, void *buf, size_t len)
{
	return copy_from_user(buf, (const void __user *)addr, len) ? -EFAULT : 0;
}

static int lwp_emu_write(void *ctx, u64 addr, const void *buf, size_t len)
{
	return copy_to_user((void __user *)addr, buf, len) ? -EFAULT : 0;
}

/* The model's threshold interrupt stands for the LWP_CFG.VECTOR one. */
static void lwp_emu_interrupt(void *ctx, unsigned int vector)
{
	preempt_disable();
	hw_sim_raise_lwp_irq();
	preempt_enable();
}

static void lwp_emu_violation(void *ctx, const char *section,
			      const char *msg)
{
	sim_violation(msg);
}

static const struct lwp_model_ops lwp_emu_ops = {
	.read = lwp_emu_read,
	.write = lwp_emu_write,
	.interrupt = lwp_emu_interrupt,
	.violation = lwp_emu_violation,
};

/* pt_regs in the x86 GPR encoding order used by struct lwp_xop_regs. */
static unsigned long *lwp_emu_gpr(struct pt_regs *regs, unsigned int n)
{
	static const size_t off[16] = {
		offsetof(struct pt_regs, ax), offsetof(struct pt_regs, cx),
		offsetof(struct pt_regs, dx), offsetof(struct pt_regs, bx),
		offsetof(struct pt_regs, sp), offsetof(struct pt_regs, bp),
		offsetof(struct pt_regs, si), offsetof(struct pt_regs, di),
		offsetof(struct pt_regs, r8), offsetof(struct pt_regs, r9),
		offsetof(struct pt_regs, r10), offsetof(struct pt_regs, r11),
		offsetof(struct pt_regs, r12), offsetof(struct pt_regs, r13),
		offsetof(struct pt_regs, r14), offsetof(struct pt_regs, r15),
	};

	return (unsigned long *)((u8 *)regs + off[n]);
}

static void lwp_emu_regs_in(struct pt_regs *regs, struct lwp_xop_regs *xr)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(xr->gpr); i++)
		xr->gpr[i] = *lwp_emu_gpr(regs, i);
	xr->rip = regs->ip;
	xr->rflags = regs->flags;
	/* In the kernel FS_BASE and the inactive GS base hold user values. */
	preempt_disable();
	rdmsrl(MSR_FS_BASE, xr->fs_base);
	rdmsrl(MSR_KERNEL_GS_BASE, xr->gs_base);
	preempt_enable();
}

static void lwp_emu_regs_out(struct pt_regs *regs,
			     const struct lwp_xop_regs *xr)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(xr->gpr); i++)
		*lwp_emu_gpr(regs, i) = xr->gpr[i];
	regs->ip = xr->rip;
	/* LWPINS changes CF only (43724 §5.4); nothing else in RFLAGS. */
	regs->flags = (regs->flags & ~X86_EFLAGS_CF) |
		      (xr->rflags & LWP_XOP_RFLAGS_CF ? X86_EFLAGS_CF : 0);
}

/* What the model does between lwp_emu_run()'s load and store. */
typedef struct lwp_model_result (*lwp_emu_op_fn)(struct lwp_model *m, void *arg);

/*
 * Run @op on the model with this CPU's LWP state (steps 2-4 above): XSAVE
 * the register file, load it into a model unit, run, XSAVE the unit and
 * XRSTOR the result. Return the model's result; #UD if LWP is not available.
 */
static struct lwp_model_result lwp_emu_run(struct lwp_file *lf, lwp_emu_op_fn op,
					   void *arg)
{
	struct lwp_model_result res = { .exc = LWP_MODEL_EXC_UD };
	u8 *area = lf->emu_area;
	u64 *hdr = (u64 *)(area + X86_XSAVE_HDR_OFFSET);
	struct lwp_xsave_area *comp = (void *)(area + lwp_emu_offset);
	struct lwp_model m;
	u64 xcr0, cfg, bv;
	int err;

	memset(area, 0, lwp_area_size());
	preempt_disable();
	err = lwpt_hw_xgetbv(0, &xcr0);
	if (!err && (xcr0 & LWP_XCR0_MASK))
		err = lwpt_hw_rdmsr(LWP_MSR_CFG, &cfg) ?:
		      hw_sim_lwp_state_get(area);
	else
		err = -ENODEV;
	preempt_enable();
	if (err)
		return res;

	if (lwp_model_init(&m, lwp_emu_profile, &lwp_emu_ops, NULL))
		return res;
	lwp_model_set_seed(&m, atomic64_read(&lf->emulated) + 1);
	lwp_model_set_head_flush(&m, READ_ONCE(lwp_lazy_head) ?
				 LWP_MODEL_HEAD_FLUSH_LAZY :
				 LWP_MODEL_HEAD_FLUSH_EVERY_STORE);
	if (lwp_model_wrmsr(&m, LWP_MSR_CFG, cfg).exc ||
	    lwp_model_xsetbv(&m, LWP_XCR0_MASK).exc)
		return res;
	lwp_model_set_cpl(&m, 0);
	if (lwp_model_xrstor(&m, comp, LWP_XCR0_MASK, hdr[0]).exc)
		return res;
	lwp_model_set_cpl(&m, 3);

	res = op(&m, arg);
	/* Read at every return to user mode (lwp_emu_follow()). */
	WRITE_ONCE(lf->emu_flags, lwp_model_flags(&m));

	memset(hdr, 0, X86_XSAVE_HDR_SIZE);
	bv = 0;
	lwp_model_set_cpl(&m, 0);
	lwp_model_xsave(&m, comp, LWP_XCR0_MASK, &bv);
	hdr[0] = bv & LWP_XCR0_MASK;
	preempt_disable();
	err = hw_sim_lwp_state_set(area);
	preempt_enable();
	if (err)
		pr_err_ratelimited("cannot store the emulated LWP state\n");
	return res;
}

struct lwp_emu_exec_arg {
	const struct lwp_xop_insn_info *info;
	struct lwp_xop_regs *xr;
};

static struct lwp_model_result lwp_emu_op_exec(struct lwp_model *m, void *arg)
{
	struct lwp_emu_exec_arg *a = arg;

	return lwp_xop_execute(m, a->info, a->xr);
}

/* Run one decoded LWP instruction on the model. */
static struct lwp_model_result lwp_emu_exec(struct lwp_file *lf,
					    const struct lwp_xop_insn_info *info,
					    struct lwp_xop_regs *xr)
{
	struct lwp_emu_exec_arg a = { .info = info, .xr = xr };

	return lwp_emu_run(lf, lwp_emu_op_exec, &a);
}

/* Deliver the model's exception for a user-mode access at @ip. */
static void lwp_emu_fault(const struct lwp_model_result *res, u64 ip)
{
	switch (res->exc) {
	case LWP_MODEL_EXC_NONE:
		break;
	case LWP_MODEL_EXC_GP:
		/* As do_general_protection(): SIGSEGV, SI_KERNEL. */
		force_sig(SIGSEGV);
		break;
	case LWP_MODEL_EXC_PF:
		sim_user_segv(res->pf_addr);
		break;
	default:
		sim_user_signal(SIGILL, ILL_ILLOPN, ip);
		break;
	}
}

/* --- Execution events 2 and 3 (43724 §2.2, §2.3), from sim_step.c ------- */

/* struct sim_unit.follow (@cr3 unused: LWP follows the thread) */
static bool lwp_emu_follow(u64 cr3)
{
	struct lwp_file *lf = lwp_current_file();

	return lf && (READ_ONCE(lf->emu_flags) &
		      (LWP_LWPCB_FLAGS_IRE | LWP_LWPCB_FLAGS_BRE));
}

/*
 * §2.3: near JMP, Jcc, JrCXZ, LOOPcc, near CALL and RET count; far
 * transfers, traps, interrupts, SYSCALL and the like do not.
 */
static bool lwp_emu_branch_kind(enum x86_cofi_kind k,
				enum lwp_model_branch_kind *kind)
{
	switch (k) {
	case X86_COFI_JCC:
		*kind = LWP_MODEL_BR_COND;
		return true;
	case X86_COFI_JMP_REL:
	case X86_COFI_CALL_REL:
	case X86_COFI_RET:
		*kind = LWP_MODEL_BR_UNCOND_REL;
		return true;
	case X86_COFI_JMP_IND:
	case X86_COFI_CALL_IND:
		*kind = LWP_MODEL_BR_INDIRECT;
		return true;
	default:
		return false;
	}
}

static struct lwp_model_result lwp_emu_op_retired(struct lwp_model *m, void *arg)
{
	const struct sim_step_insn *r = arg;
	struct lwp_model_result res = lwp_model_insn_retired(m, r->ip);
	struct lwp_model_branch b = {
		.ip = r->ip,
		.target = r->next_ip,
		/* No fusing and no prediction information (PRV = 0). */
		.prediction = LWP_MODEL_PRED_UNKNOWN,
	};

	if (res.exc || !lwp_emu_branch_kind(r->kind, &b.kind))
		return res;
	/* Always 1 for unconditional branches (Figure 2-4 TKN). */
	b.taken = b.kind != LWP_MODEL_BR_COND || r->next_ip != r->ip + r->len;
	return lwp_model_branch_retired(m, &b);
}

/* struct sim_unit.retired */
static void lwp_emu_retired(const struct sim_step_insn *r)
{
	struct lwp_file *lf = lwp_current_file();
	struct lwp_model_result res;

	if (!lf || !(READ_ONCE(lf->emu_flags) &
		     (LWP_LWPCB_FLAGS_IRE | LWP_LWPCB_FLAGS_BRE)))
		return;
	res = lwp_emu_run(lf, lwp_emu_op_retired, (void *)r);
	/* A ring the thread cannot write: as the store of a record would. */
	if (res.exc != LWP_MODEL_EXC_UD)
		lwp_emu_fault(&res, r->ip);
}

static void lwp_emu_work(struct callback_head *cb)
{
	struct lwp_file *lf = container_of(cb, struct lwp_file, emu_work);
	struct pt_regs *regs = task_pt_regs(current);
	u8 bytes[LWP_EMU_UD2_LEN + LWP_INSN_MAX_LENGTH];
	struct lwp_xop_insn_info info;
	struct lwp_model_result res;
	struct lwp_xop_regs xr;
	unsigned int skip;
	size_t len;
	u64 ip = regs->ip;

	/* Exiting, or RIP moved (ptrace): the instruction is not executed. */
	if ((current->flags & PF_EXITING) || ip != lf->emu_ip)
		goto out;
	len = sizeof(bytes) - copy_from_user(bytes, (const void __user *)ip,
					     sizeof(bytes));
	skip = lwp_emu_marker(bytes, len);
	lwp_emu_regs_in(regs, &xr);
	xr.rip += skip;
	if (lwp_current_file() != lf ||
	    lwp_xop_decode(bytes + skip, len - skip, &xr, &info) != LWP_XOP_OK) {
		sim_user_signal(SIGILL, ILL_ILLOPN, ip);
		goto out;
	}
	res = lwp_emu_exec(lf, &info, &xr);
	if (res.exc == LWP_MODEL_EXC_NONE) {
		lwp_emu_regs_out(regs, &xr);
		atomic64_inc(&lf->emulated);
	}
	lwp_emu_fault(&res, ip);
out:
	fput(lf->file);
}

/* DIE_TRAP of #UD: IRQs are off, no page faults, no sleeping. */
static int lwp_emu_die(struct notifier_block *nb, unsigned long val,
		       void *data)
{
	struct die_args *args = data;
	struct pt_regs *regs = args->regs;
	u8 bytes[LWP_EMU_UD2_LEN + LWP_INSN_MAX_LENGTH];
	struct lwp_xop_insn_info info;
	struct lwp_file *lf;
	unsigned int skip;
	int st;

	if (val != DIE_TRAP || args->trapnr != X86_TRAP_UD ||
	    !user_mode(regs) || !user_64bit_mode(regs))
		return NOTIFY_DONE;
	lf = lwp_current_file();
	if (!lf)
		return NOTIFY_DONE;
	/* The CPU just fetched these bytes; if they are gone, decide later. */
	if (!copy_from_user_nofault(bytes, (const void __user *)regs->ip,
				    sizeof(bytes))) {
		skip = lwp_emu_marker(bytes, sizeof(bytes));
		st = lwp_xop_decode(bytes + skip, sizeof(bytes) - skip, NULL,
				    &info);
		if (st == LWP_XOP_NOT_LWP || st == LWP_XOP_INVALID)
			return NOTIFY_DONE;
	}
	/*
	 * The work cannot be queued already: it runs before this thread
	 * returns to user mode, hence before its next #UD. It holds a file
	 * reference so that @lf outlives it even if the thread exits first.
	 */
	lf->emu_ip = regs->ip;
	get_file(lf->file);
	init_task_work(&lf->emu_work, lwp_emu_work);
	if (task_work_add(current, &lf->emu_work, TWA_RESUME)) {
		fput(lf->file);
		return NOTIFY_DONE;
	}
	return NOTIFY_STOP;
}

static struct notifier_block lwp_emu_nb = {
	.notifier_call = lwp_emu_die,
};

static const struct sim_unit lwp_emu_unit = {
	.follow = lwp_emu_follow,
	.retired = lwp_emu_retired,
};

/* The model profile with the CPUID the simulated CPU reports (one source). */
static const struct lwp_model_profile *lwp_emu_find_profile(void)
{
	static const char * const names[] = {
		"fx8150", "full", "user", "user-exec",
	};
	const struct lwp_model_profile *p;
	struct lwpt_cpuid_regs r;
	size_t i;

	preempt_disable();
	lwpt_hw_cpuid(LWP_CPUID_FN8000_001C, 0, &r);
	preempt_enable();
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		p = lwp_model_profile_find(names[i]);
		if (p && p->fn8000_001c_ebx == r.ebx &&
		    p->fn8000_001c_ecx == r.ecx && p->fn8000_001c_edx == r.edx)
			return p;
	}
	return NULL;
}

int lwp_variant_init(void)
{
	struct lwpt_cpuid_regs r;
	int err;

	lwp_emu_profile = lwp_emu_find_profile();
	if (!lwp_emu_profile) {
		pr_err("LWP: no model profile matches the simulated CPUID\n");
		return -ENODEV;
	}
	preempt_disable();
	lwpt_hw_cpuid(LWP_CPUID_FN0000_000D, LWP_CPUID_FN0000_000D_SUBLEAF_LWP,
		      &r);
	preempt_enable();
	lwp_emu_offset = r.ebx;
	if (lwp_emu_offset + sizeof(struct lwp_xsave_area) > lwp_area_size())
		return -ENODEV;
	err = register_die_notifier(&lwp_emu_nb);
	if (!err)
		sim_unit_register(SIM_UNIT_LWP, &lwp_emu_unit);
	return err;
}

void lwp_variant_exit(void)
{
	sim_unit_register(SIM_UNIT_LWP, NULL);
	unregister_die_notifier(&lwp_emu_nb);
}
