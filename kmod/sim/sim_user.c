// SPDX-License-Identifier: GPL-2.0
/*
 * lwpt_sim.ko: the signals an emulated instruction's fault sends to the
 * current thread, as the kernel sends them for the same fault on hardware
 * (do_trap()/force_sig_fault() in arch/x86/kernel/traps.c,
 * bad_area_nosemaphore()/bad_area_access_error() in arch/x86/mm/fault.c).
 * Shared by the LWP (lwp_emu.c) and PTWRITE (sim_ptwrite.c) emulations.
 */
#include <linux/mm.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>

#include "sim.h"

/**
 * sim_user_signal - send the current thread the signal of a user fault
 * @sig: SIGILL, SIGSEGV, SIGTRAP...
 * @code: its si_code (ILL_ILLOPN, SEGV_MAPERR, TRAP_TRACE...)
 * @addr: si_addr: the faulting instruction or data address
 *
 * Process context of the current thread (a task_work before the return
 * to user mode).
 */
void sim_user_signal(int sig, int code, u64 addr)
{
	struct kernel_siginfo info;

	clear_siginfo(&info);
	info.si_signo = sig;
	info.si_code = code;
	info.si_addr = (void __user *)addr;
	send_sig_info(sig, &info, current);
}

/**
 * sim_user_segv - SIGSEGV for a user data access at @addr that faulted
 * @addr: the data address
 *
 * SEGV_ACCERR if a mapping covers @addr (the access was not allowed),
 * else SEGV_MAPERR, as the page-fault handler decides. May sleep (takes
 * the mmap lock).
 */
void sim_user_segv(u64 addr)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	int code = SEGV_MAPERR;

	mmap_read_lock(mm);
	vma = find_vma(mm, addr);
	if (vma && vma->vm_start <= addr)
		code = SEGV_ACCERR;
	mmap_read_unlock(mm);
	sim_user_signal(SIGSEGV, code, addr);
}
