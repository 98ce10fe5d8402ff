// SPDX-License-Identifier: GPL-2.0
/*
 * ptcap --bts: /dev/bts per-thread captures into a `format bts` trace file
 * (btscap.h).
 */
#include "tools/ptcap/btscap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

/* Open /dev/bts (or @dev) for @b: the file descriptor, or -errno. */
static int btscap_open(struct btscap *b, const char *dev, uint32_t *bad)
{
	int fd;

	memset(b, 0, sizeof(*b));
	b->fd = -1;
	*bad = LWPT_BTS_FIELD_NONE;
	fd = open(dev ? dev : BTSCAP_DEV_PATH, O_RDWR | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

/*
 * After CONFIGURE's ioctl returned @r on @fd: map @size bytes of records
 * into @b and return 0, or close @fd and return -errno (*@bad keeps what a
 * refused CONFIGURE objected to).
 */
static int btscap_map(struct btscap *b, int fd, int r, uint64_t size)
{
	void *map;
	int err;

	if (r) {
		err = -errno;
		close(fd);
		return err;
	}
	map = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		err = -errno;
		close(fd);
		return err;
	}
	b->fd = fd;
	b->map = map;
	b->size = size;
	return 0;
}

int btscap_start(struct btscap *b, const char *dev, pid_t tid, bool user, bool kernel,
		 bool lbr, bool ring, uint32_t hold_limit_ms, uint64_t size, uint32_t *bad)
{
	struct lwpt_bts_config cfg;
	int fd, r;

	fd = btscap_open(b, dev, bad);
	if (fd < 0)
		return fd;
	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.flags = (user ? LWPT_BTS_CFG_USER : 0) | (kernel ? LWPT_BTS_CFG_KERNEL : 0) |
		    (lbr ? LWPT_BTS_CFG_LBR : 0) | (ring ? LWPT_BTS_CFG_RING : 0);
	cfg.pid = tid;
	cfg.buffer_size = size;
	cfg.hold_limit_ms = ring ? hold_limit_ms : 0;
	r = ioctl(fd, LWPT_BTS_IOC_CONFIGURE, &cfg);
	if (r)
		*bad = cfg.bad_field;
	return btscap_map(b, fd, r, size);
}

/* One CONFIGURE_CPU on @fd: the ioctl's result, *@bad what it objected to. */
static int btscap_configure_cpu(int fd, unsigned int cpu, uint32_t flags, uint64_t size,
				uint32_t *bad)
{
	struct lwpt_bts_cpu_config cfg;
	int r;

	memset(&cfg, 0, sizeof(cfg));
	cfg.size = sizeof(cfg);
	cfg.flags = flags;
	cfg.cpu = cpu;
	cfg.buffer_size = size;
	r = ioctl(fd, LWPT_BTS_IOC_CONFIGURE_CPU, &cfg);
	if (r)
		*bad = cfg.bad_field;
	return r;
}

int btscap_start_cpu(struct btscap *b, const char *dev, unsigned int cpu, bool user,
		     bool kernel, bool tsc, uint64_t size, uint32_t *bad)
{
	uint32_t flags = (user ? LWPT_BTS_CFG_USER : 0) | (kernel ? LWPT_BTS_CFG_KERNEL : 0);
	int fd, r;

	fd = btscap_open(b, dev, bad);
	if (fd < 0)
		return fd;
	r = btscap_configure_cpu(fd, cpu, flags | (tsc ? LWPT_BTS_CFG_SWITCH_TSC : 0), size,
				 bad);
	/*
	 * A module before ABI 1.10 refuses the flag as unknown (EINVAL,
	 * FLAGS): the same request without it. Whatever else the second
	 * refusal says is then about the rest of the request.
	 */
	if (r && tsc && errno == EINVAL && *bad == LWPT_BTS_FIELD_FLAGS) {
		*bad = LWPT_BTS_FIELD_NONE;
		tsc = false;
		r = btscap_configure_cpu(fd, cpu, flags, size, bad);
	}
	r = btscap_map(b, fd, r, size);
	if (!r)
		b->switch_tsc = tsc;
	return r;
}

int btscap_read_switches(const struct btscap *b, struct lwpt_bts_switch_tsc *recs,
			 unsigned int cap, uint64_t *lost, uint32_t *pending)
{
	struct lwpt_bts_switches rs;
	unsigned int i;

	memset(&rs, 0, sizeof(rs));
	rs.size = sizeof(rs);
	rs.capacity = cap;
	rs.records = (uint64_t)(uintptr_t)recs;
	if (ioctl(b->fd, LWPT_BTS_IOC_READ_SWITCHES, &rs))
		return -errno;
	*lost = rs.lost;
	*pending = rs.pending;
	if (rs.copied > cap)
		return -EPROTO;
	if (!b->switch_tsc) {
		/*
		 * 32-byte records packed at @recs: spread them to their
		 * slots, the last first (each moves up, never over one not
		 * moved yet), with no time.
		 */
		for (i = rs.copied; i-- > 0;) {
			struct lwpt_bts_switch sw;

			memcpy(&sw, (const char *)recs + (size_t)i * sizeof(sw), sizeof(sw));
			recs[i].sw = sw;
			recs[i].tsc = 0;
		}
	}
	return (int)rs.copied;
}

int btscap_stop(struct btscap *b, struct lwpt_bts_status *st)
{
	ioctl(b->fd, LWPT_BTS_IOC_STOP);	/* stopped already at exit: fine */
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	if (ioctl(b->fd, LWPT_BTS_IOC_STATUS, st))
		return -errno;
	return 0;
}

/* Write @len bytes at @p to @fd: 0 or -errno. */
static int write_all(int fd, const char *p, uint64_t len)
{
	while (len) {
		ssize_t n = write(fd, p, (size_t)len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (uint64_t)n;
	}
	return 0;
}

int btscap_drain(struct btscap *b, int fd, uint64_t *bytes, struct lwpt_bts_ring *rs)
{
	const struct lwpt_bts_record *ring = b->map;
	uint64_t t, run = 0, run_at = 0;
	int err;

	memset(rs, 0, sizeof(*rs));
	rs->size = sizeof(*rs);
	if (ioctl(b->fd, LWPT_BTS_IOC_RING_STATUS, rs)) {
		/* A module before ABI 1.11 knows only version 0's command. */
		if (errno != ENOTTY)
			return -errno;
		memset(rs, 0, sizeof(*rs));
		rs->size = LWPT_BTS_RING_SIZE_VER0;
		if (ioctl(b->fd, LWPT_BTS_IOC_RING_STATUS_VER0, rs))
			return -errno;
	}
	if (!rs->records_size || rs->records_size > b->size ||
	    rs->records_size % sizeof(*ring) || rs->head < rs->tail ||
	    rs->head - rs->tail > rs->records_size)
		return -EPROTO;	/* not what bts.h promises: refuse, keep the file */
	/* Runs of records contiguous in the mapping, padding skipped. */
	for (t = rs->tail; t < rs->head; t += sizeof(*ring)) {
		uint64_t at = t % rs->records_size;
		const struct lwpt_bts_record *r = &ring[at / sizeof(*ring)];
		bool pad = !r->from && !r->to;

		if (run && (pad || at != run_at + run)) {
			err = write_all(fd, (const char *)ring + run_at, run);
			if (err)
				return err;
			*bytes += run;
			run = 0;
		}
		if (pad)
			continue;
		if (!run)
			run_at = at;
		run += sizeof(*ring);
	}
	if (run) {
		err = write_all(fd, (const char *)ring + run_at, run);
		if (err)
			return err;
		*bytes += run;
	}
	if (rs->head != rs->tail && ioctl(b->fd, LWPT_BTS_IOC_CONSUME, &rs->head))
		return -errno;
	rs->tail = rs->head;
	return 0;
}

int64_t btscap_save(const struct btscap *b, uint64_t head, const char *path)
{
	const char *p = b->map;
	uint64_t len = head < b->size ? head : b->size, done = 0;
	int fd, err = 0;

	len -= len % sizeof(struct lwpt_bts_record);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	while (done < len) {
		ssize_t n = write(fd, p + done, (size_t)(len - done));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			break;
		}
		done += (uint64_t)n;
	}
	if (close(fd) && !err)
		err = -errno;
	return err ? err : (int64_t)done;
}

int btscap_lbr_crash(const struct btscap *b, pid_t tid, const char *path, int *signo)
{
	struct lwpt_bts_lbr l;
	unsigned int i;
	FILE *f;
	int err;

	memset(&l, 0, sizeof(l));
	l.size = sizeof(l);
	l.which = LWPT_BTS_LBR_CRASH;
	if (ioctl(b->fd, LWPT_BTS_IOC_LBR_SNAPSHOT, &l))
		return -errno;
	*signo = l.signo;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "lwpt-lbr 1\n");
	fprintf(f, "# the LBR stack at the fatal signal, most recent branch first\n");
	fprintf(f, "tid %d\nsignal %d\ndepth %u\nformat %u\nflags%s%s%s\n", (int)tid,
		l.signo, l.depth, l.format,
		l.flags & LWPT_BTS_LBR_F_MISPRED ? " mispred" : "",
		l.flags & LWPT_BTS_LBR_F_FROZEN ? " frozen" : "",
		l.flags & LWPT_BTS_LBR_F_TSX ? " tsx" : "");
	for (i = 0; i < l.nr && i < LWPT_LBR_ENTRIES_MAX; i++) {
		uint64_t e = l.entries[i].flags;

		fprintf(f, "branch 0x%llx 0x%llx%s%s%s",
			(unsigned long long)l.entries[i].from,
			(unsigned long long)l.entries[i].to,
			e & LWPT_LBR_E_MISPRED ? " mispred" : "",
			e & LWPT_LBR_E_IN_TX ? " in_tx" : "",
			e & LWPT_LBR_E_TSX_ABORT ? " abort" : "");
		if (e & LWPT_LBR_E_CYCLES)
			fprintf(f, " cycles=%u", (unsigned int)((e >> LWPT_LBR_E_CYCLES_SHIFT) &
							       LWPT_LBR_E_CYCLES_MASK));
		fputc('\n', f);
	}
	err = ferror(f) ? -EIO : 0;
	if (fclose(f) && !err)
		err = -errno;
	return err;
}

void btscap_close(struct btscap *b)
{
	if (b->map)
		munmap((void *)b->map, b->size);
	if (b->fd > 0)
		close(b->fd);
	memset(b, 0, sizeof(*b));
	b->fd = -1;
}
