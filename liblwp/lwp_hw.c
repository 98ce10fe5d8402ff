// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * liblwp hardware backend: LWP made available to the calling thread by the
 * lwpt kernel module through /dev/lwp (lwpt.ko on LWP hardware, lwpt_sim.ko
 * on the model in a VM). ABI: include/uapi/lwpt/lwp.h, Documentation/lwp.rst.
 *
 *  - hw_query(): the kernel's CPUID Fn8000_001C values (LWP_IOC_GET_CAPS;
 *    the kernel decodes CPUID once, liblwp never executes it for this
 *    backend) decoded with the same extractor as the emulation.
 *  - hw_open(): LWP_IOC_ENABLE makes LWP available to the calling thread
 *    (XCR0[62] for that thread only, 43724 §8.7.1); the /dev/lwp descriptor
 *    becomes the session's wait descriptor (poll: threshold interrupts).
 *  - hw_start()/hw_stop(): the real LLWPCB (43724 §5.1) through the
 *    inline wrappers; no SIGILL handler is involved on this backend.
 *  - hw_close(): LLWPCB 0 if the LWPCB is still loaded, LWP_IOC_DISABLE.
 *
 * The UD2 marker: QEMU's TCG executes XOP 8F as POP instead of raising #UD,
 * so raw LWP instructions never reach lwpt_sim.ko's #UD emulation. With the
 * module parameter ud2_marker=1 the module executes "UD2; <LWP instruction>"
 * instead; liblwp probes the CPU once (SLWPCB in a child process) and, where
 * XOP does not trap, uses the marker if the module has it enabled and
 * reports the backend unusable otherwise (raw instructions would corrupt
 * the stack). Documentation/liblwp.rst, "The hardware backend".
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "liblwp/lwp_hw_dev.h"
#include "liblwp/lwp_internal.h"

#define LWP_HW_DEVICE		"/dev/lwp"
#define LWP_HW_UD2_PARAM	"/sys/module/lwpt_sim/parameters/ud2_marker"

static int hw_gettid(void)
{
	return (int)syscall(SYS_gettid);
}

/*
 * Does XOP raise #UD here (when LWP is not available)? Probed in a child:
 * SLWPCB (8F E9 F8 12 C8) with RCX = 1 after a PUSH of 0.
 *   SIGILL           -> #UD: the CPU decodes XOP (hardware);       exit 0
 *   RCX = 0          -> executed as POP %rcx; CLC; ADC %al,%cl (QEMU
 *                       TCG);                                      exit 1
 *   RCX = 1          -> SLWPCB executed (LWP inherited);           exit 0
 * Returns 1 if the UD2 marker is needed, 0 if not, -errno if the probe
 * could not run.
 */
static int hw_probe_no_ud(void)
{
	int st;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (pid == 0) {
		unsigned long rcx;

		signal(SIGILL, SIG_DFL);
		/* Below the red zone; RAX = 0 keeps ADC %al,%cl at 0. */
		__asm__ __volatile__("sub $128, %%rsp\n\t"
				     "xor %%eax, %%eax\n\t"
				     "mov $1, %%rcx\n\t"
				     "push $0\n\t"
				     ".byte 0x8f,0xe9,0xf8,0x12,0xc8\n\t"
				     "test %%rcx, %%rcx\n\t"
				     "jz 1f\n\t"
				     "add $8, %%rsp\n"
				     "1:\n\t"
				     "add $128, %%rsp\n\t"
				     "mov %%rcx, %0"
				     : "=r"(rcx) : : "rax", "rcx", "cc", "memory");
		_exit(rcx == 0 ? 1 : 0);
	}
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (WIFSIGNALED(st))
		return WTERMSIG(st) == SIGILL ? 0 : -EIO;
	return WIFEXITED(st) && WEXITSTATUS(st) == 1;
}

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int probe_result;

static void hw_probe_run(void)
{
	probe_result = hw_probe_no_ud();
}

/* lwpt_sim.ko's ud2_marker parameter is "Y". */
static int hw_ud2_param(void)
{
	char c = 0;
	int fd = open(LWP_HW_UD2_PARAM, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (read(fd, &c, 1) != 1)
		c = 0;
	close(fd);
	return c == 'Y' || c == '1';
}

static int hw_open_dev(void)
{
	int fd = open(LWP_HW_DEVICE, O_RDWR | O_CLOEXEC | O_NONBLOCK);

	if (fd >= 0)
		return fd;
	/* No module, no device node: the backend does not exist here. */
	if (errno == ENOENT || errno == ENXIO || errno == ENODEV)
		return -ENODEV;
	return -errno;			/* EACCES, EMFILE, ... */
}

static int hw_query(struct lwp_caps *caps)
{
	struct lwp_hw_dev_caps dc;
	uint32_t regs[4];
	int fd, ret;

	caps->hw_available = 0;
	fd = hw_open_dev();
	if (fd < 0)
		return fd;
	ret = lwp_hw_dev_caps(fd, &dc);
	close(fd);
	if (ret)
		return ret == -ENOTTY ? -ENODEV : ret;
	caps->hw_abi_version = dc.abi_version;
	caps->hw_sim = dc.sim;

	/*
	 * 43724 Table 3-1: EDX[0] LWP supported; EAX[0] is XCR0[62] of the
	 * caller, 0 until lwp_open() enables it. The capabilities describe the
	 * backend as lwp_open() makes it available: EAX[0] set for decoding,
	 * the raw register kept in cpuid_eax.
	 */
	memcpy(regs, dc.fn8000_001c, sizeof(regs));
	if (!(regs[3] & LWP_CPUID_LWPAVAIL))
		return -ENODEV;
	/* The module's kernel version gate (lwp.rst): LWP_BACKEND_AUTO takes
	 * the emulation, LWP_BACKEND_HW fails with EOPNOTSUPP. */
	if (dc.refused)
		return -EOPNOTSUPP;
	regs[0] |= LWP_CPUID_LWPAVAIL;
	lwp_caps_decode(caps, regs);
	caps->cpuid_eax = dc.fn8000_001c[0];
	/* Threshold interrupts only if the module delivers them (§8.5). */
	if (!dc.irq)
		caps->available_flags &= ~(uint32_t)LWP_FLAG_INT;

	pthread_once(&probe_once, hw_probe_run);
	if (probe_result < 0)
		return probe_result;
	if (probe_result) {
		/* XOP does not trap: only lwpt_sim.ko's UD2 marker works. */
		if (!dc.sim || !hw_ud2_param())
			return -ENODEV;
		caps->hw_ud2_marker = 1;
	}
	caps->hw_available = 1;
	return 0;
}

static int hw_open(struct lwp_session *s)
{
	int fd, ret;

	/* The thread's LWP is the emulation's (another session). */
	if (lwp_tls_emulated == LWP__TLS_EMU)
		return -EBUSY;
	fd = hw_open_dev();
	if (fd < 0)
		return fd;
	ret = lwp_hw_dev_enable(fd);
	if (ret) {
		close(fd);
		return ret;
	}
	/* Threshold interrupts of this thread arrive on fd (poll, read). */
	close(s->efd);
	s->efd = fd;
	s->hw_tid = hw_gettid();
	s->hw_started = 0;
	lwp_tls_emulated = s->caps.hw_ud2_marker ? LWP__TLS_UD2 : 0;
	return 0;
}

static int hw_start(struct lwp_session *s)
{
	struct lwp_hw_dev_caps dc;

	if (hw_gettid() != s->hw_tid)
		return -EBUSY;
	/* LLWPCB raises #UD (SIGILL) if LWP was taken away: check first. */
	if (lwp_hw_dev_caps(s->efd, &dc) || !dc.enabled)
		return -ENODEV;
	lwp_llwpcb(s->lwpcb);			/* 43724 §5.1 */
	if (lwp_slwpcb() != s->lwpcb)		/* §5.2 */
		return -EFAULT;
	s->hw_started = 1;
	return 0;
}

static int hw_stop(struct lwp_session *s)
{
	if (!s->hw_started)
		return 0;
	if (hw_gettid() != s->hw_tid)
		return -EPERM;
	/* §5.1 step 2: LLWPCB 0 flushes, then disables. */
	if (lwp_slwpcb() == s->lwpcb)
		lwp_llwpcb(NULL);
	s->hw_started = 0;
	return 0;
}

static int hw_close(struct lwp_session *s)
{
	struct lwp_hw_dev_caps dc;

	if (hw_gettid() == s->hw_tid) {
		if (lwp_hw_dev_caps(s->efd, &dc) == 0 && dc.enabled &&
		    lwp_slwpcb() == s->lwpcb)
			lwp_llwpcb(NULL);
		(void)lwp_hw_dev_disable(s->efd);
		if (lwp_tls_emulated == LWP__TLS_UD2)
			lwp_tls_emulated = 0;
	} else if (lwp_hw_dev_owner_enabled(s->efd) != 0) {
		/*
		 * The owner thread still has LWP and may still store into this
		 * LWPCB and ring: they cannot be freed from here (only the
		 * owner can execute LLWPCB). They are left mapped (a leak,
		 * documented); the thread keeps its reference on the file.
		 */
		s->lwpcb = NULL;
		s->ring = NULL;
	}
	s->hw_started = 0;
	return 0;
}

static void hw_flush(struct lwp_session *s)
{
	/* SLWPCB writes the internal head to the LWPCB (43724 §5.2, §8.3). */
	if (s->hw_started && hw_gettid() == s->hw_tid)
		(void)lwp_slwpcb();
}

int lwp_raw_insns_trap(void)
{
	pthread_once(&probe_once, hw_probe_run);
	if (probe_result < 0)
		return probe_result;
	return !probe_result;
}

const struct lwp_backend_ops lwp_backend_hw = {
	.id = LWP_BACKEND_HW,
	.query = hw_query,
	.open = hw_open,
	.start = hw_start,
	.stop = hw_stop,
	.close = hw_close,
	.flush = hw_flush,
	.jit_sequence = 0,
};
