/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel version gate of LWP (issue 38 §3, Documentation/lwp.rst,
 * "Kernel version gate"). lwp_core.c sets XCR0[62] while a thread with LWP
 * runs, so an XRSTOR the kernel executes for that thread restores
 * component 62 (an LWPCB address checked only at CPL 3, 43724 §7.4) if its
 * requested-feature mask has bit 62. sigreturn XRSTORs the signal frame
 * with the mask the frame itself names (fx_sw->xfeatures), unless it ANDs
 * it with fpstate->user_xfeatures (which never has bit 62). That AND came
 * with d877550eaf2d ("x86/fpu: Stop relying on userspace for info to fault
 * in xsave buffer", v6.8-rc4, CVE-2024-26603) and its stable backports.
 *
 * A pure function of the version numbers, so that the host unit test
 * (tests/kmod/lwp/test_lwp_kver.c) checks the same code the module runs.
 * The includer provides bool.
 */
#ifndef LWPT_KMOD_LWP_LWP_KVER_H
#define LWPT_KMOD_LWP_LWP_KVER_H

/* First sublevels of the stable series with d877550eaf2d. */
#define LWP_KVER_MASKED_6_1	79	/* Debian 6.1.82-1 lists it under 6.1.79 */
#define LWP_KVER_MASKED_6_6	18
#define LWP_KVER_MASKED_6_7	6

/**
 * lwp_kver_sigreturn_masked - does sigreturn mask what it restores from a
 *	signal frame with fpstate->user_xfeatures in this kernel?
 * @version: VERSION of the kernel's Makefile (LINUX_VERSION_MAJOR)
 * @patchlevel: PATCHLEVEL (LINUX_VERSION_PATCHLEVEL)
 * @sublevel: SUBLEVEL (LINUX_VERSION_SUBLEVEL; not capped at 255)
 *
 * True from v6.8 on and in the stable series that carry d877550eaf2d from
 * the sublevels above (6.1.79, 6.6.18, 6.7.6); false for every earlier
 * kernel (6.2 to 6.5 reached their end of life before the fix; before 6.1
 * nothing was reviewed). Evidence: Documentation/lwp.rst.
 *
 * Return: true if a forged signal frame cannot make sigreturn XRSTOR
 * component 62, so that /dev/lwp may enable LWP.
 */
static inline bool lwp_kver_sigreturn_masked(unsigned int version,
					     unsigned int patchlevel,
					     unsigned int sublevel)
{
	if (version != 6)
		return version > 6;
	switch (patchlevel) {
	case 1:
		return sublevel >= LWP_KVER_MASKED_6_1;
	case 6:
		return sublevel >= LWP_KVER_MASKED_6_6;
	case 7:
		return sublevel >= LWP_KVER_MASKED_6_7;
	default:
		return patchlevel >= 8;
	}
}

#endif /* LWPT_KMOD_LWP_LWP_KVER_H */
