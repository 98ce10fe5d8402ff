// SPDX-License-Identifier: GPL-2.0
/*
 * lwpt_vmtool: the small things the in-VM tests need that busybox cannot do
 * precisely (exact errno of a module load, ioctls on /dev/lwp and /dev/pt).
 * Built static (tests/vm/build.mk) so it runs in the bare initramfs.
 *
 *   lwpt_vmtool insmod FILE [PARAMS]   load a module; exit 0 on success,
 *                                      else print the errno and exit with it
 *   lwpt_vmtool rmmod NAME             unload; exit 0 or the errno
 *   lwpt_vmtool abi DEVICE             print the LWPT_IOC_GET_ABI_VERSION
 *                                      answer; exit 0 if it is consistent
 *   lwpt_vmtool unknown-ioctl DEVICE   exit 0 if every unknown command
 *                                      fails with ENOTTY
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <uapi/lwpt/lwpt.h>

static const char *errno_name(int e)
{
	switch (e) {
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case ENOTTY: return "ENOTTY";
	case EEXIST: return "EEXIST";
	case ENOENT: return "ENOENT";
	case EBUSY: return "EBUSY";
	case EPERM: return "EPERM";
	case ENOEXEC: return "ENOEXEC";
	case EFAULT: return "EFAULT";
	default: return "?";
	}
}

static int fail_errno(const char *what, int e)
{
	printf("%s: errno %d (%s): %s\n", what, e, errno_name(e), strerror(e));
	return e ? e : 1;
}

static int cmd_insmod(const char *file, const char *params)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return fail_errno("open", errno);
	if (syscall(SYS_finit_module, fd, params ? params : "", 0)) {
		int e = errno;

		close(fd);
		return fail_errno("insmod", e);
	}
	close(fd);
	printf("insmod: %s loaded\n", file);
	return 0;
}

static int cmd_rmmod(const char *name)
{
	if (syscall(SYS_delete_module, name, O_NONBLOCK))
		return fail_errno("rmmod", errno);
	printf("rmmod: %s unloaded\n", name);
	return 0;
}

static int cmd_abi(const char *dev)
{
	struct lwpt_abi_version v;
	int fd = open(dev, O_RDONLY | O_CLOEXEC);
	int ok;

	if (fd < 0)
		return fail_errno("open", errno);
	memset(&v, 0xa5, sizeof(v));	/* poison: unwritten fields show */
	if (ioctl(fd, LWPT_IOC_GET_ABI_VERSION, &v)) {
		int e = errno;

		close(fd);
		return fail_errno("LWPT_IOC_GET_ABI_VERSION", e);
	}
	close(fd);
	printf("%s: abi size=%u version=%u.%u device=%s flags=%#x%s\n", dev,
	       v.size, LWPT_ABI_VERSION_MAJOR(v.version),
	       LWPT_ABI_VERSION_MINOR(v.version),
	       v.device == LWPT_DEVICE_LWP ? "lwp" :
	       v.device == LWPT_DEVICE_PT ? "pt" : "?", v.flags,
	       (v.flags & LWPT_ABI_F_SIM) ? " (model)" : "");
	ok = v.size == sizeof(v) && v.version == LWPT_ABI_VERSION &&
	     (v.device == LWPT_DEVICE_LWP || v.device == LWPT_DEVICE_PT) &&
	     !(v.flags & ~LWPT_ABI_F_SIM);
	return ok ? 0 : 1;
}

static int cmd_unknown_ioctl(const char *dev)
{
	/* Unknown numbers, wrong type, wrong size or direction of a known one. */
	static const unsigned long cmds[] = {
		_IO(LWPT_IOC_MAGIC, 0x0f),
		_IOR(LWPT_IOC_MAGIC, 0x7f, __u64),
		_IOW(LWPT_IOC_MAGIC, 0x00, struct lwpt_abi_version),
		_IOR(LWPT_IOC_MAGIC, 0x00, __u64),
		_IOR('x', 0x00, struct lwpt_abi_version),
		0,
	};
	char buf[64];
	size_t i;
	int fd = open(dev, O_RDONLY | O_CLOEXEC), bad = 0;

	if (fd < 0)
		return fail_errno("open", errno);
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		int r = ioctl(fd, cmds[i], buf);

		if (r != -1 || errno != ENOTTY) {
			printf("ioctl %#lx: returned %d errno %d, want ENOTTY\n",
			       cmds[i], r, r ? errno : 0);
			bad = 1;
		}
	}
	close(fd);
	if (!bad)
		printf("%s: %zu unknown ioctls -> ENOTTY\n", dev, i);
	return bad;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "insmod"))
		return cmd_insmod(argv[2], argc > 3 ? argv[3] : NULL);
	if (argc == 3 && !strcmp(argv[1], "rmmod"))
		return cmd_rmmod(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "abi"))
		return cmd_abi(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "unknown-ioctl"))
		return cmd_unknown_ioctl(argv[2]);
	fprintf(stderr,
		"usage: %s insmod FILE [PARAMS] | rmmod NAME | abi DEV | unknown-ioctl DEV\n",
		argv[0]);
	return 2;
}
