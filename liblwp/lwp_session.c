// SPDX-License-Identifier: LGPL-2.1-or-later OR MIT
/*
 * liblwp: capabilities, configuration, LWPCB and ring buffer set-up, and the
 * consumer side of the ring (43724 §3, §6, §8.3). Backend-independent: a
 * backend is reached only through its struct lwp_backend_ops (lwp_internal.h).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "model/lwp/lwp_model.h"
#include "liblwp/lwp_internal.h"

const char *lwp_backend_name(int backend)
{
	switch (backend) {
	case LWP_BACKEND_AUTO: return "auto";
	case LWP_BACKEND_HW: return "hw";
	case LWP_BACKEND_EMU: return "emu";
	default: return "?";
	}
}

static void caps_clear(struct lwp_caps *caps, int backend)
{
	memset(caps, 0, sizeof(*caps));
	caps->size = sizeof(*caps);
	caps->backend = (uint32_t)backend;
	caps->cpu_supported = (uint32_t)lwp_cpu_supported();
}

int lwp_query_backend(struct lwp_caps *caps, int backend)
{
	struct lwp_caps other;
	int ret;

	if (!caps)
		return -EINVAL;
	if (backend != LWP_BACKEND_HW && backend != LWP_BACKEND_EMU)
		return -EINVAL;
	caps_clear(caps, backend);
	caps_clear(&other, backend);
	if (backend == LWP_BACKEND_HW) {
		ret = lwp_backend_hw.query(caps);
		caps->emu_available = lwp_backend_emu.query(&other) == 0;
	} else {
		ret = lwp_backend_emu.query(caps);
		caps->hw_available = lwp_backend_hw.query(&other) == 0;
		caps->hw_abi_version = other.hw_abi_version;
		caps->hw_sim = other.hw_sim;
	}
	return ret;
}

/*
 * LIBLWP_BACKEND=hw|emu|auto forces the choice of LWP_BACKEND_AUTO (an
 * explicit lwp_config.backend wins). Anything else is ignored.
 */
static int backend_env(void)
{
	const char *e = getenv("LIBLWP_BACKEND");

	if (!e)
		return LWP_BACKEND_AUTO;
	if (!strcmp(e, "hw"))
		return LWP_BACKEND_HW;
	if (!strcmp(e, "emu"))
		return LWP_BACKEND_EMU;
	return LWP_BACKEND_AUTO;
}

int lwp_query(struct lwp_caps *caps)
{
	int ret, forced = backend_env();

	if (!caps)
		return -EINVAL;
	if (forced != LWP_BACKEND_AUTO)
		return lwp_query_backend(caps, forced);
	ret = lwp_query_backend(caps, LWP_BACKEND_HW);
	if (ret == 0)
		return 0;
	return lwp_query_backend(caps, LWP_BACKEND_EMU);
}

/*
 * Validation of a configuration against the capabilities, before any LWPCB
 * is written (43724 §6, Table 6-1; Figure 6-2; Figure 6-3).
 */
static int config_check(const struct lwp_config *c, const struct lwp_caps *caps)
{
	uint32_t known = LWP_FLAG_VAL | LWP_FLAG_IRE | LWP_FLAG_BRE |
			 LWP_FLAG_DME | LWP_FLAG_CNH | LWP_FLAG_RNH | LWP_FLAG_INT;
	uint64_t bytes;
	int n;

	if (c->flags & ~known)
		return -EINVAL;
	if (c->flags & ~caps->available_flags)
		return -EOPNOTSUPP;
	for (n = 1; n <= LWP_EVENT_MAX; n++) {
		if (!(c->flags & LWP_FLAG_EVENT(n)))
			continue;
		if (c->interval[n] < 0 || c->interval[n] > LWP_LWPCB_INTERVAL_MAX)
			return -EINVAL;
		if (c->counter[n] != LWP_COUNTER_FROM_INTERVAL &&
		    (c->counter[n] > LWP_LWPCB_INTERVAL_MAX ||
		     c->counter[n] < -LWP_LWPCB_INTERVAL_MAX - 1))
			return -EINVAL;
	}
	if (c->random_bits > (LWP_LWPCB_RANDOM_MASK >> LWP_LWPCB_RANDOM_SHIFT))
		return -EINVAL;
	if (c->filters & LWP_LWPCB_FILTERS_RESERVED)
		return -EINVAL;
	/*
	 * A ring of one record can never hold one: advancing the head would
	 * make it equal to the tail (§6 MissedEvents). LLWPCB's minimum is
	 * 32 x LwpMinBufferSize records (§3.3, §5.1 step 4).
	 */
	if (c->buffer_records < 2 || c->buffer_records < caps->min_buffer_records)
		return -EINVAL;
	bytes = (uint64_t)c->buffer_records * caps->event_size;
	if (bytes > LWP_LWPCB_BUFFER_SIZE_MASK)
		return -EINVAL;
	/*
	 * The space used never exceeds BufferSize - LwpEventSize, so a
	 * threshold of buffer_records or more never interrupts (§6 Threshold):
	 * with LWP_FLAG_INT that is a configuration error.
	 */
	if ((c->flags & LWP_FLAG_INT) &&
	    c->threshold_records != LWP_THRESHOLD_HALF &&
	    c->threshold_records >= c->buffer_records)
		return -EINVAL;
	return 0;
}

static void put32(uint8_t *cb, uint32_t off, uint32_t v)
{
	memcpy(cb + off, &v, sizeof(v));
}

static void put64(uint8_t *cb, uint32_t off, uint64_t v)
{
	memcpy(cb + off, &v, sizeof(v));
}

/* Write the LWPCB for the session's configuration (43724 Table 6-1). */
static void lwpcb_fill(struct lwp_session *s)
{
	const struct lwp_config *c = &s->cfg;
	uint32_t e = s->event_offset, n, ctr;

	memset(s->lwpcb, 0, s->lwpcb_size);	/* reserved fields are zero */
	put32(s->lwpcb, LWP_LWPCB_OFF_FLAGS, c->flags);
	put32(s->lwpcb, LWP_LWPCB_OFF_BUFFER_SIZE,
	      s->ring_size | (c->random_bits << LWP_LWPCB_RANDOM_SHIFT));
	put64(s->lwpcb, LWP_LWPCB_OFF_BUFFER_BASE, (uint64_t)(uintptr_t)s->ring);
	put32(s->lwpcb, LWP_LWPCB_OFF_THRESHOLD, s->threshold);
	put32(s->lwpcb, LWP_LWPCB_OFF_FILTERS, c->filters);
	put64(s->lwpcb, LWP_LWPCB_OFF_BASE_IP, c->base_ip);
	put64(s->lwpcb, LWP_LWPCB_OFF_LIMIT_IP, c->limit_ip);
	for (n = 1; n <= s->caps.max_event_id && n <= LWP_EVENT_MAX; n++) {
		if (LWP_LWPCB_OFF_EVENT_COUNTER(e, n) + 4 > s->lwpcb_size)
			break;
		ctr = c->counter[n] == LWP_COUNTER_FROM_INTERVAL ?
			(uint32_t)c->interval[n] : (uint32_t)c->counter[n];
		put32(s->lwpcb, LWP_LWPCB_OFF_EVENT_INTERVAL(e, n),
		      (uint32_t)c->interval[n] & LWP_LWPCB_EVENT_FIELD_MASK);
		put32(s->lwpcb, LWP_LWPCB_OFF_EVENT_COUNTER(e, n),
		      ctr & LWP_LWPCB_EVENT_FIELD_MASK);
	}
}

static size_t page_round(size_t n)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	return (n + pg - 1) / pg * pg;
}

static void *map_zero(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

static void session_free(struct lwp_session *s)
{
	if (s->efd >= 0)
		close(s->efd);
	if (s->ring)
		munmap(s->ring, s->ring_map);
	if (s->lwpcb)
		munmap(s->lwpcb, s->lwpcb_map);
	free(s);
}

int lwp_open(struct lwp_session **sp, const struct lwp_config *cfg)
{
	static const struct lwp_config defaults = LWP_CONFIG_INIT;
	struct lwp_session *s;
	int ret, backend;

	if (!sp)
		return -EINVAL;
	*sp = NULL;
	if (!cfg)
		cfg = &defaults;
	if (cfg->size < sizeof(struct lwp_config))
		return -EINVAL;
	backend = (int)cfg->backend;
	if (backend != LWP_BACKEND_AUTO && backend != LWP_BACKEND_HW &&
	    backend != LWP_BACKEND_EMU)
		return -EINVAL;

	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	s->efd = -1;
	s->cfg = *cfg;

	if (backend == LWP_BACKEND_AUTO)
		backend = backend_env();
	if (backend == LWP_BACKEND_AUTO)
		backend = lwp_query_backend(&s->caps, LWP_BACKEND_HW) == 0 ?
			  LWP_BACKEND_HW : LWP_BACKEND_EMU;
	if (backend == LWP_BACKEND_EMU)
		ret = lwp_query_backend(&s->caps, LWP_BACKEND_EMU);
	else
		ret = lwp_query_backend(&s->caps, LWP_BACKEND_HW);
	if (ret)
		goto err_free;
	s->backend = backend;
	s->ops = backend == LWP_BACKEND_EMU ? &lwp_backend_emu : &lwp_backend_hw;
	s->cfg.backend = (uint32_t)backend;
	if (!s->caps.available || !s->caps.event_size ||
	    s->caps.event_size < sizeof(struct lwp_event) ||
	    s->caps.lwpcb_size < LWP_LWPCB_FIXED_SIZE) {
		ret = -ENODEV;
		goto err_free;
	}

	ret = config_check(&s->cfg, &s->caps);
	if (ret)
		goto err_free;
	if (s->cfg.threshold_records == LWP_THRESHOLD_HALF)
		s->cfg.threshold_records = s->cfg.buffer_records / 2;

	s->event_size = s->caps.event_size;
	s->event_offset = s->caps.event_offset;
	s->lwpcb_size = s->caps.lwpcb_size;
	s->ring_size = s->cfg.buffer_records * s->event_size;
	s->threshold = (s->cfg.threshold_records < s->cfg.buffer_records ?
			s->cfg.threshold_records : s->cfg.buffer_records) *
		       s->event_size;

	/* §5.1: 64-byte aligned, within a page; Table 6-1: ring page aligned. */
	s->lwpcb_map = page_round(s->lwpcb_size);
	s->lwpcb = map_zero(s->lwpcb_map);
	s->ring_map = page_round(s->ring_size);
	s->ring = map_zero(s->ring_map);
	s->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!s->lwpcb || !s->ring || s->efd < 0) {
		ret = -ENOMEM;
		goto err_free;
	}
	lwpcb_fill(s);

	ret = s->ops->open(s);
	if (ret)
		goto err_free;
	*sp = s;
	return 0;

err_free:
	session_free(s);
	return ret;
}

int lwp_start(struct lwp_session *s)
{
	if (!s)
		return -EINVAL;
	return s->ops->start(s);
}

int lwp_stop(struct lwp_session *s)
{
	if (!s)
		return -EINVAL;
	return s->ops->stop(s);
}

int lwp_close(struct lwp_session *s)
{
	int ret;

	if (!s)
		return 0;
	ret = s->ops->close(s);
	if (ret)
		return ret;	/* nothing changed: the session stays open */
	session_free(s);
	return 0;
}

int lwp_session_backend(const struct lwp_session *s)
{
	return s ? s->backend : -EINVAL;
}

void *lwp_lwpcb(const struct lwp_session *s, size_t *size)
{
	if (!s)
		return NULL;
	if (size)
		*size = s->lwpcb_size;
	return s->lwpcb;
}

/* ---- Consumer side of the ring (43724 §6, §8.3) -------------------------- */

static uint32_t *cb_u32(const struct lwp_session *s, uint32_t off)
{
	return (uint32_t *)(void *)(s->lwpcb + off);
}

/*
 * BufferHeadOffset as LWP would use it: below BufferSize (else 0) and a
 * multiple of LwpEventSize (rounded down) - Table 6-1.
 */
static uint32_t head_load(const struct lwp_session *s)
{
	/* Pairs with the release ordering of the writer's stores (the model
	 * stores the record, then the head; x86 keeps stores in order). */
	uint32_t head = __atomic_load_n(cb_u32(s, LWP_LWPCB_OFF_BUFFER_HEAD_OFFSET),
					__ATOMIC_ACQUIRE);

	if (head >= s->ring_size)
		return 0;
	return head - head % s->event_size;
}

/*
 * LWP may keep BufferHeadOffset inside the unit (43724 §8.3: the flush "can
 * be deferred until a threshold or buffer full condition happens or until
 * the application executes LLWPCB or SLWPCB"). On the thread whose LWP runs
 * on this LWPCB, SLWPCB first, so that it reads every stored record; other
 * threads see what the unit flushed (Documentation/liblwp.rst).
 */
static void head_flush(struct lwp_session *s)
{
	s->ops->flush(s);
}

ssize_t lwp_read(struct lwp_session *s, struct lwp_event *out, size_t max)
{
	uint32_t *tailp, head, tail, chunk;
	size_t n = 0, k;

	if (!s || (!out && max))
		return -EINVAL;
	head_flush(s);
	tailp = cb_u32(s, LWP_LWPCB_OFF_BUFFER_TAIL_OFFSET);
	head = head_load(s);
	tail = *tailp;			/* only the reader writes it */
	if (tail >= s->ring_size || tail % s->event_size)
		tail = head;		/* corrupted by the program: resync */

	if (s->event_size == sizeof(struct lwp_event)) {
		while (n < max && tail != head) {
			chunk = (head > tail ? head : s->ring_size) - tail;
			k = chunk / s->event_size;
			if (k > max - n)
				k = max - n;
			memcpy(out + n, s->ring + tail, k * sizeof(*out));
			n += k;
			tail += (uint32_t)k * s->event_size;
			if (tail == s->ring_size)
				tail = 0;
		}
	} else {
		/* A larger LwpEventSize: the first 32 bytes are Figure 2-1. */
		while (n < max && tail != head) {
			memcpy(out + n++, s->ring + tail, sizeof(*out));
			tail += s->event_size;
			if (tail == s->ring_size)
				tail = 0;
		}
	}
	/*
	 * Release: the records are copied out before LWP may reuse their
	 * slots (pairs with the writer's read of BufferTailOffset, §8.3).
	 */
	__atomic_store_n(tailp, tail, __ATOMIC_RELEASE);
	return (ssize_t)n;
}

ssize_t lwp_pending(struct lwp_session *s)
{
	uint32_t head, tail;

	if (!s)
		return -EINVAL;
	head_flush(s);
	head = head_load(s);
	tail = __atomic_load_n(cb_u32(s, LWP_LWPCB_OFF_BUFFER_TAIL_OFFSET),
			       __ATOMIC_RELAXED);
	if (tail >= s->ring_size)
		return 0;
	return (ssize_t)(((head + s->ring_size - tail) % s->ring_size) /
			 s->event_size);
}

uint64_t lwp_missed(struct lwp_session *s)
{
	if (!s)
		return 0;
	return __atomic_load_n((uint64_t *)(void *)(s->lwpcb +
				LWP_LWPCB_OFF_MISSED_EVENTS), __ATOMIC_RELAXED);
}

int lwp_wait_fd(struct lwp_session *s)
{
	if (!s)
		return -EINVAL;
	if (!(s->cfg.flags & LWP_FLAG_INT))
		return -ENOTSUP;
	return s->efd;
}

/* Milliseconds left of @timeout_ms since @t0 (negative stays negative). */
static int wait_left(int timeout_ms, const struct timespec *t0)
{
	struct timespec t;
	long long ms;

	if (timeout_ms <= 0)
		return timeout_ms;
	clock_gettime(CLOCK_MONOTONIC, &t);
	ms = (long long)(t.tv_sec - t0->tv_sec) * 1000 +
	     (t.tv_nsec - t0->tv_nsec) / 1000000;
	return ms >= timeout_ms ? 0 : timeout_ms - (int)ms;
}

/*
 * The semantics (include/lwpt/lwp.h): a threshold interrupt wakes the
 * waiter only if records are still unread when it is consumed. A reader
 * that drained the ring with lwp_read() after the interrupt already has
 * the records it announced (the unit writes BufferHeadOffset to memory
 * before it signals, 43724 §8.3, so lwp_pending() sees them): the
 * notification is discarded and the wait goes on (issue 19).
 */
int lwp_wait(struct lwp_session *s, int timeout_ms)
{
	struct timespec t0;
	struct pollfd pfd;
	uint64_t cnt;
	int ret, left;

	if (!s)
		return -EINVAL;
	if (!(s->cfg.flags & LWP_FLAG_INT))
		return -ENOTSUP;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		left = wait_left(timeout_ms, &t0);
		pfd.fd = s->efd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		ret = poll(&pfd, 1, left < 0 ? -1 : left);
		if (ret < 0)
			return -errno;
		if (ret == 0)
			return 0;
		/* Consume, then re-arm: an interrupt in between re-signals. */
		(void)!read(s->efd, &cnt, sizeof(cnt));
		__atomic_store_n(&s->irq_pending, 0, __ATOMIC_RELEASE);
		if (lwp_pending(s) > 0)
			return 1;
		if (left == 0)
			return 0;
	}
}
