/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptcap --bts: one thread's Branch Trace Store through /dev/bts
 * (include/uapi/lwpt/bts.h, Documentation/bts.rst "/dev/bts") into a
 * `format bts` trace file (Documentation/ptcap-format.rst "BTS trace
 * files"): the mapped buffer's records written as they are.
 */
#ifndef LWPT_TOOLS_PTCAP_BTSCAP_H
#define LWPT_TOOLS_PTCAP_BTSCAP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <uapi/lwpt/bts.h>

#define BTSCAP_DEV_PATH		"/dev/bts"
/* The default buffer: 4 MiB, 174762 records. */
#define BTSCAP_DEFAULT_SIZE	(4ull << 20)

struct btscap {
	int fd;
	const void *map;
	uint64_t size;
	bool switch_tsc;	/* per-CPU: switch records carry the TSC */
};

/**
 * btscap_start() - open /dev/bts, record a thread, map its buffer.
 * @b:      filled on success.
 * @dev:    the device path (BTSCAP_DEV_PATH when NULL).
 * @tid:    the thread (its TID).
 * @user:   record branches at CPL > 0 (LWPT_BTS_CFG_USER).
 * @kernel: record branches at CPL 0 (LWPT_BTS_CFG_KERNEL, CAP_PERFMON).
 * @lbr:    record the thread's LBR stack too (LWPT_BTS_CFG_LBR, ABI 1.7).
 * @ring:   a ring the caller drains with btscap_drain() while the thread
 *          runs, the thread held when it is full (LWPT_BTS_CFG_RING, ABI
 *          1.7); false: linear, recording stops when the buffer is full.
 * @hold_limit_ms: a ring's hold limit (lwpt_bts_config.hold_limit_ms, ABI
 *          1.9): 0 the module's default, LWPT_BTS_HOLD_LIMIT_NONE none;
 *          ignored for a linear buffer. Modules before 1.9 refuse non-zero.
 * @size:   buffer bytes, a page multiple within LWPT_BTS_BUFFER_MIN..MAX.
 * @bad:    receives LWPT_BTS_FIELD_* of a refused CONFIGURE (NONE else).
 *
 * Return: 0; a negative errno of open(2), the CONFIGURE ioctl (EINVAL,
 * EPERM, EACCES, EBUSY, ENOMEM, EOPNOTSUPP: bts.h) or mmap(2).
 */
int btscap_start(struct btscap *b, const char *dev, pid_t tid, bool user, bool kernel,
		 bool lbr, bool ring, uint32_t hold_limit_ms, uint64_t size, uint32_t *bad);

/**
 * btscap_drain() - append the records a ring capture holds to a file and
 * give their room back (LWPT_BTS_IOC_RING_STATUS, then
 * LWPT_BTS_IOC_CONSUME; Documentation/bts.rst "Ring captures").
 * @b:     a capture started with @ring.
 * @fd:    the trace file, written at its current offset: the records in
 *         order, the ring's padding records (from and to 0) left out.
 * @bytes: incremented by the bytes written.
 * @rs:    receives the ring's status as read (flags: LWPT_BTS_ST_RECORDING
 *         clear once recording ended; after that, head is final); its
 *         size says whether hold_timeouts is there (LWPT_BTS_RING_SIZE_VER1:
 *         ABI 1.11; a module before it is asked with the 56-byte command).
 *
 * Return: 0; a negative errno of an ioctl or of write(2) (the records not
 * written stay in the ring, not consumed).
 */
int btscap_drain(struct btscap *b, int fd, uint64_t *bytes, struct lwpt_bts_ring *rs);

/**
 * btscap_start_cpu() - open /dev/bts, record every thread on one CPU
 * (LWPT_BTS_IOC_CONFIGURE_CPU, ABI 1.7), map its buffer.
 * @b:      filled on success.
 * @dev:    the device path (BTSCAP_DEV_PATH when NULL).
 * @cpu:    the logical CPU, online.
 * @user:   record branches at CPL > 0.
 * @kernel: record branches at CPL 0.
 * @tsc:    ask for the TSC of each switch (LWPT_BTS_CFG_SWITCH_TSC, ABI
 *          1.10); a module that refuses it as an unknown flag (EINVAL,
 *          LWPT_BTS_FIELD_FLAGS: before 1.10) is asked again without, and
 *          @b->switch_tsc says which was granted.
 * @size:   buffer bytes, as btscap_start().
 * @bad:    receives LWPT_BTS_FIELD_* of a refused CONFIGURE_CPU.
 *
 * Return: 0; a negative errno of open(2), the ioctl (EPERM without
 * CAP_PERFMON, EBUSY, ENODEV, EINVAL, ENOTTY on a module before ABI 1.7:
 * bts.h) or mmap(2).
 */
int btscap_start_cpu(struct btscap *b, const char *dev, unsigned int cpu, bool user,
		     bool kernel, bool tsc, uint64_t size, uint32_t *bad);

/**
 * btscap_read_switches() - take the context switches a per-CPU capture
 * recorded since the last call (LWPT_BTS_IOC_READ_SWITCHES).
 * @b:       a capture started with btscap_start_cpu().
 * @recs:    room for @cap records, oldest first; their .tsc is the
 *           switch's TSC with @b->switch_tsc, 0 without.
 * @cap:     records that fit.
 * @lost:    receives the switches the module dropped since CONFIGURE.
 * @pending: receives the records left in the module's ring.
 *
 * Return: the records copied (>= 0) or a negative errno of the ioctl
 * (-EPROTO: the module said it copied more than @cap).
 */
int btscap_read_switches(const struct btscap *b, struct lwpt_bts_switch_tsc *recs,
			 unsigned int cap, uint64_t *lost, uint32_t *pending);

/**
 * btscap_stop() - end recording (LWPT_BTS_IOC_STOP; the thread may have
 * exited already) and read the status.
 * @b:  a started capture.
 * @st: receives the status (head: bytes of records).
 *
 * Return: 0 or a negative errno of the STATUS ioctl.
 */
int btscap_stop(struct btscap *b, struct lwpt_bts_status *st);

/**
 * btscap_save() - write the first @head bytes of the buffer (whole
 * records, at most the mapped size) to @path.
 * @b:    a stopped capture.
 * @head: bytes of records (struct lwpt_bts_status.head).
 * @path: the trace file, created or truncated.
 *
 * Return: the bytes written (>= 0) or a negative errno.
 */
int64_t btscap_save(const struct btscap *b, uint64_t head, const char *path);

/**
 * btscap_lbr_crash() - the LBR stack the thread had at its fatal signal
 * (LWPT_BTS_IOC_LBR_SNAPSHOT, LWPT_BTS_LBR_CRASH), written to @path in
 * the `lwpt-lbr 1` text format (Documentation/ptcap-format.rst, "LBR
 * stacks").
 * @b:     a capture started with @lbr; the thread has exited.
 * @tid:   the thread, for the file.
 * @path:  the file, created or truncated (nothing is written on ENODATA).
 * @signo: receives the signal.
 *
 * Return: 0; -ENODATA the thread took no fatal signal; another negative
 * errno of the ioctl or of writing @path.
 */
int btscap_lbr_crash(const struct btscap *b, pid_t tid, const char *path, int *signo);

/**
 * btscap_close() - unmap and close; a zeroed @b is a no-op.
 * @b: capture.
 */
void btscap_close(struct btscap *b);

#endif /* LWPT_TOOLS_PTCAP_BTSCAP_H */
