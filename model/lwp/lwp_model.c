// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * lwp_model: the LWP unit of AMD 43724 rev 3.04 in plain C.
 *
 * Every rule cites its section. Choices where the spec leaves freedom are
 * listed in Documentation/lwp-model.rst and marked "CHOICE" here.
 */
#include "model/model_env.h"
#include "model/lwp/lwp_model.h"

#define LWP_MODEL_PAGE_SIZE	4096ull
#define LWP_XCR0_BIT		LWP_XCR0_MASK
/* Counters live in a 26-bit signed field of the LWPCB (Table 6-1). */
#define LWP_COUNTER_MIN		(-(int32_t)LWP_LWPCB_EVENT_FIELD_SIGN)
#define LWP_COUNTER_MAX		((int32_t)LWP_LWPCB_EVENT_FIELD_SIGN - 1)

/* ---------------------------------------------------------------------- */
/* Small helpers                                                           */
/* ---------------------------------------------------------------------- */

const char *lwp_model_exc_str(enum lwp_model_exc exc)
{
	switch (exc) {
	case LWP_MODEL_EXC_NONE:
		return "none";
	case LWP_MODEL_EXC_UD:
		return "#UD";
	case LWP_MODEL_EXC_GP:
		return "#GP";
	case LWP_MODEL_EXC_PF:
		return "#PF";
	}
	return "unknown";
}

static struct lwp_model_result res_ok(void)
{
	struct lwp_model_result r;

	memset(&r, 0, sizeof(r));
	return r;
}

static struct lwp_model_result res_exc(enum lwp_model_exc exc)
{
	struct lwp_model_result r = res_ok();

	r.exc = exc;
	return r;
}

static void violation(struct lwp_model *m, const char *section, const char *msg)
{
	m->violations++;
	if (m->ops->violation)
		m->ops->violation(m->ctx, section, msg);
}

static uint32_t prof_reg(const struct lwp_model *m, unsigned int reg)
{
	uint32_t regs[4] = { 0, m->profile->fn8000_001c_ebx, m->profile->fn8000_001c_ecx,
			     m->profile->fn8000_001c_edx };

	return m->profile->lwp_supported ? regs[reg] : 0;
}

static uint32_t cap(const struct lwp_model *m, enum lwp_model_cap c)
{
	uint32_t regs[4] = { 0, prof_reg(m, 1), prof_reg(m, 2), prof_reg(m, 3) };

	return lwp_model_cap_get(regs, c);
}

static uint32_t ev_size(const struct lwp_model *m)
{
	uint32_t s = cap(m, LWP_MODEL_CAP_LWPEVENTSIZE);

	return s ? s : LWP_EVREC_SIZE_V1;
}

static uint32_t ev_offset(const struct lwp_model *m)
{
	return cap(m, LWP_MODEL_CAP_LWPEVENTOFFSET);
}

static unsigned int max_events(const struct lwp_model *m)
{
	unsigned int n = cap(m, LWP_MODEL_CAP_LWPMAXEVENTS);

	return n > LWP_EVENTID_MAX_V1 ? LWP_EVENTID_MAX_V1 : n;
}

static uint32_t cb_size(const struct lwp_model *m)
{
	return cap(m, LWP_MODEL_CAP_LWPCBSIZE) * 8u;
}

/*
 * §5.1 step 4, Table 6-1 BufferSize. CHOICE: a ring must also hold at least
 * one record (relevant when LwpMinBufferSize = 0).
 */
static uint32_t min_buffer_size(const struct lwp_model *m)
{
	uint32_t min = LWP_MIN_BUFFER_UNIT_RECORDS * cap(m, LWP_MODEL_CAP_LWPMINBUFFERSIZE) *
		       ev_size(m);

	return min > ev_size(m) ? min : ev_size(m);
}

/* Event bits (1..LwpMaxEvents) and INT that LWP_CFG may make available. */
static uint32_t feature_mask(const struct lwp_model *m)
{
	uint32_t events = 0;
	unsigned int n;

	for (n = 1; n <= max_events(m); n++)
		events |= LWP_EVENTID_BIT(n);
	return events | LWP_CPUID_LWPINT;
}

/* Available features: supported, set in LWP_CFG (Appendix A "Available"). */
static uint32_t available_features(const struct lwp_model *m)
{
	return (uint32_t)(m->lwp_cfg & LWP_CFG_FEATURES_MASK) & prof_reg(m, 3) &
	       feature_mask(m);
}

bool lwp_model_available(const struct lwp_model *m)
{
	return m->profile->lwp_supported && m->xcr0_lwp;
}

bool lwp_model_enabled(const struct lwp_model *m)
{
	return m->cbaddr != 0;
}

uint32_t lwp_model_flags(const struct lwp_model *m)
{
	return m->cbaddr ? m->flags : 0;
}

static bool canonical(uint64_t a)
{
	uint64_t top = a >> 47;

	return top == 0 || top == 0x1FFFF;
}

/* A [addr, addr + len) range usable in 64-bit mode: no wrap, canonical. */
static bool range_ok(uint64_t addr, uint64_t len)
{
	uint64_t last;

	if (len == 0)
		return canonical(addr);
	last = addr + len - 1;
	if (last < addr)
		return false;
	return canonical(addr) && canonical(last) && (addr >> 47) == (last >> 47);
}

static uint64_t trunc_opsize(uint64_t v, unsigned int opsize)
{
	if (opsize == 16)
		return v & 0xFFFFull;
	if (opsize == 32)
		return v & 0xFFFFFFFFull;
	return v;
}

static bool opsize_ok(unsigned int opsize)
{
	return opsize == 16 || opsize == 32 || opsize == 64;
}

/* Sign-extend a 26-bit LWPCB event field (Table 6-1). */
static int32_t sext26(uint32_t v)
{
	v &= LWP_LWPCB_EVENT_FIELD_MASK;
	if (v & LWP_LWPCB_EVENT_FIELD_SIGN)
		return (int32_t)(v | LWP_LWPCB_EVENT_RESERVED);
	return (int32_t)v;
}

static int32_t clamp_counter(int64_t v)
{
	if (v < LWP_COUNTER_MIN)
		return LWP_COUNTER_MIN;
	if (v > LWP_COUNTER_MAX)
		return LWP_COUNTER_MAX;
	return (int32_t)v;
}

/* Little-endian field access in a byte buffer. */
static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/*
 * Memory access through the callbacks, split at page boundaries so that a
 * #PF names the page that failed (CR2 = first byte of the failing piece).
 */
static bool mem_read(struct lwp_model *m, uint64_t addr, void *buf, size_t len,
		     struct lwp_model_result *r)
{
	uint8_t *p = buf;

	while (len) {
		size_t chunk = (size_t)(LWP_MODEL_PAGE_SIZE - (addr & (LWP_MODEL_PAGE_SIZE - 1)));

		if (chunk > len)
			chunk = len;
		if (m->ops->read(m->ctx, addr, p, chunk) != 0) {
			*r = res_exc(LWP_MODEL_EXC_PF);
			r->pf_addr = addr;
			r->pf_write = false;
			return false;
		}
		addr += chunk;
		p += chunk;
		len -= chunk;
	}
	return true;
}

static bool mem_write(struct lwp_model *m, uint64_t addr, const void *buf, size_t len,
		      struct lwp_model_result *r)
{
	const uint8_t *p = buf;

	while (len) {
		size_t chunk = (size_t)(LWP_MODEL_PAGE_SIZE - (addr & (LWP_MODEL_PAGE_SIZE - 1)));

		if (chunk > len)
			chunk = len;
		if (m->ops->write(m->ctx, addr, p, chunk) != 0) {
			*r = res_exc(LWP_MODEL_EXC_PF);
			r->pf_addr = addr;
			r->pf_write = true;
			return false;
		}
		addr += chunk;
		p += chunk;
		len -= chunk;
	}
	return true;
}

static bool cb_read32(struct lwp_model *m, uint32_t off, uint32_t *v,
		      struct lwp_model_result *r)
{
	uint8_t b[4];

	if (!mem_read(m, m->cbaddr + off, b, sizeof(b), r))
		return false;
	*v = get32(b);
	return true;
}

static bool cb_write32(struct lwp_model *m, uint32_t off, uint32_t v,
		       struct lwp_model_result *r)
{
	uint8_t b[4];

	put32(b, v);
	return mem_write(m, m->cbaddr + off, b, sizeof(b), r);
}

/* xorshift64* for the Random bits (§6 Random). */
static uint32_t rng_next(struct lwp_model *m)
{
	uint64_t x = m->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	m->rng = x;
	return (uint32_t)((x * 0x2545F4914F6CDD1Dull) >> 32);
}

/* Discard all per-thread LWP state (§4.3 zero write, §4.1, §7.5). */
static void lwp_disable(struct lwp_model *m)
{
	m->cbaddr = 0;
	m->flags = 0;
	m->head = 0;
	m->buffer_base = 0;
	m->buffer_size = 0;
	m->filters = 0;
	memset(&m->pending, 0, sizeof(m->pending));
	memset(m->counter, 0, sizeof(m->counter));
	m->cache_valid = false;
	memset(m->interval, 0, sizeof(m->interval));
	m->random_bits = 0;
	m->threshold = 0;
	m->base_ip = 0;
	m->limit_ip = 0;
	m->tail = 0;
}

/* ---------------------------------------------------------------------- */
/* Setup                                                                   */
/* ---------------------------------------------------------------------- */

int lwp_model_init(struct lwp_model *m, const struct lwp_model_profile *profile,
		   const struct lwp_model_ops *ops, void *ctx)
{
	if (!m || !profile || !ops || !ops->read || !ops->write)
		return -EINVAL;
	memset(m, 0, sizeof(*m));
	m->profile = profile;
	m->ops = ops;
	m->ctx = ctx;
	m->cpl = 3;
	m->rng = 1;
	m->head_flush = LWP_MODEL_HEAD_FLUSH_EVERY_STORE;
	return 0;
}

void lwp_model_set_cpl(struct lwp_model *m, unsigned int cpl)
{
	m->cpl = (uint8_t)(cpl & 3);
}

void lwp_model_set_seed(struct lwp_model *m, uint64_t seed)
{
	m->rng = seed ? seed : 1;
}

void lwp_model_set_head_flush(struct lwp_model *m, enum lwp_model_head_flush p)
{
	m->head_flush = p;
}

void lwp_model_set_xsave_drops_int(struct lwp_model *m, bool on)
{
	m->xsave_drops_int = on;
}

void lwp_model_xsave_drop_int(struct lwp_xsave_area *area)
{
	area->flags &= ~(uint32_t)LWP_LWPCB_FLAGS_INT;
}

uint64_t lwp_model_violations(const struct lwp_model *m)
{
	return m->violations;
}

/* ---------------------------------------------------------------------- */
/* CPUID, MSRs, XCR0                                                       */
/* ---------------------------------------------------------------------- */

bool lwp_model_cpuid(const struct lwp_model *m, uint32_t leaf, uint32_t subleaf,
		     uint32_t regs[4])
{
	bool sup = m->profile->lwp_supported;

	memset(regs, 0, 4 * sizeof(regs[0]));
	switch (leaf) {
	case LWP_CPUID_FN8000_0001:
		/* §3.1 */
		if (sup)
			regs[2] = LWP_CPUID_FN8000_0001_ECX_LWP;
		return true;
	case LWP_CPUID_FN8000_001C:
		/* §3.3: EAX[0] = XCR0[62], EAX[31:1] = LWP_CFG[31:1]. */
		if (!sup)
			return true;
		regs[0] = (uint32_t)(m->lwp_cfg & LWP_CFG_FEATURES_MASK) |
			  (m->xcr0_lwp ? LWP_CPUID_LWPAVAIL : 0);
		regs[1] = prof_reg(m, 1);
		regs[2] = prof_reg(m, 2);
		regs[3] = prof_reg(m, 3);
		return true;
	case LWP_CPUID_FN0000_000D:
		if (!sup)
			return subleaf == 0 || subleaf == LWP_CPUID_FN0000_000D_SUBLEAF_LWP;
		if (subleaf == 0) {
			/* §3.1, §3.2: the LWP area is included in the maxima. */
			regs[3] = LWP_CPUID_FN0000_000D_X0_EDX_LWP;
			regs[2] = LWP_XSAVE_AREA_OFFSET + LWP_XSAVE_AREA_SIZE;
			if (m->xcr0_lwp)
				regs[1] = LWP_XSAVE_AREA_OFFSET + LWP_XSAVE_AREA_SIZE;
			return true;
		}
		if (subleaf == LWP_CPUID_FN0000_000D_SUBLEAF_LWP) {
			regs[0] = LWP_XSAVE_AREA_SIZE;		/* §3.2 */
			regs[1] = LWP_XSAVE_AREA_OFFSET;	/* §3.2 */
			return true;
		}
		return false;
	default:
		return false;
	}
}

struct lwp_model_result lwp_model_rdmsr(struct lwp_model *m, uint32_t msr)
{
	struct lwp_model_result r = res_ok();

	if (!m->profile->lwp_supported) {
		/* §4: the MSRs exist only if Fn8000_0001_ECX[LWP]. */
		violation(m, "43724 §4", "RDMSR of an LWP MSR on a CPU without LWP: #GP");
		return res_exc(LWP_MODEL_EXC_GP);
	}
	if (msr == LWP_MSR_CFG) {
		r.value = m->lwp_cfg;
	} else if (msr == LWP_MSR_CBADDR) {
		r.value = m->cbaddr;	/* §4.3: no SLWPCB flush */
	} else {
		violation(m, "43724 §4", "RDMSR of a non-LWP MSR through the LWP model: #GP");
		return res_exc(LWP_MODEL_EXC_GP);
	}
	return r;
}

struct lwp_model_result lwp_model_wrmsr(struct lwp_model *m, uint32_t msr, uint64_t val)
{
	uint64_t allowed;

	if (!m->profile->lwp_supported) {
		violation(m, "43724 §4", "WRMSR of an LWP MSR on a CPU without LWP: #GP");
		return res_exc(LWP_MODEL_EXC_GP);
	}
	if (msr == LWP_MSR_CFG) {
		/* §4.2: only supported feature bits, COREID, VECTOR. */
		allowed = ((uint64_t)prof_reg(m, 3) & feature_mask(m) & LWP_CFG_FEATURES_MASK) |
			  LWP_CFG_COREID_MASK | LWP_CFG_VECTOR_MASK;
		if (m->profile->cfg_gp_mask || m->profile->cfg_ignore_mask) {
			/* The part's own masks (lwp_profile.c, fx8150). */
			if (val & m->profile->cfg_ignore_mask & ~allowed)
				violation(m, "43724 §4.2",
					  "WRMSR LWP_CFG sets a reserved bit (this part ignores it)");
			val &= ~m->profile->cfg_ignore_mask;
			allowed = ~m->profile->cfg_gp_mask;
		}
		if (val & ~allowed) {
			violation(m, "43724 §4.2",
				  "WRMSR LWP_CFG sets a reserved or unsupported bit: #GP");
			return res_exc(LWP_MODEL_EXC_GP);
		}
		/*
		 * §4.2: VECTOR "must be provided if INT=1". Vectors 0-31 are
		 * the architecture's exceptions, never a valid interrupt.
		 */
		if ((val & LWP_CFG_INT) &&
		    ((val & LWP_CFG_VECTOR_MASK) >> LWP_CFG_VECTOR_SHIFT) < 32)
			violation(m, "43724 §4.2",
				  "LWP_CFG.INT=1 without a valid VECTOR (must be provided, >= 32)");
		m->lwp_cfg = val;
		return res_ok();
	}
	if (msr == LWP_MSR_CBADDR) {
		/* §4.3 */
		if (val != 0) {
			violation(m, "43724 §4.3", "WRMSR LWP_CBADDR with a non-zero value: #GP");
			return res_exc(LWP_MODEL_EXC_GP);
		}
		lwp_disable(m);
		return res_ok();
	}
	violation(m, "43724 §4", "WRMSR of a non-LWP MSR through the LWP model: #GP");
	return res_exc(LWP_MODEL_EXC_GP);
}

struct lwp_model_result lwp_model_xsetbv(struct lwp_model *m, uint64_t xcr0)
{
	if ((xcr0 & LWP_XCR0_BIT) && !m->profile->lwp_supported) {
		violation(m, "43724 §4.1", "XSETBV sets XCR0[62] on a CPU without LWP: #GP");
		return res_exc(LWP_MODEL_EXC_GP);
	}
	if (!(xcr0 & LWP_XCR0_BIT))
		lwp_disable(m);	/* §4.1: stores 0 into LWP_CBADDR */
	m->xcr0_lwp = (xcr0 & LWP_XCR0_BIT) != 0;
	return res_ok();
}

uint64_t lwp_model_xgetbv(const struct lwp_model *m)
{
	return m->xcr0_lwp ? LWP_XCR0_BIT : 0;
}

/* ---------------------------------------------------------------------- */
/* Cached LWPCB fields (§8.3, §8.2.5)                                      */
/* ---------------------------------------------------------------------- */

static int32_t interval_fixup(const struct lwp_model *m, unsigned int n, int32_t iv)
{
	/* §5.1 step 7, Table 6-1 EventInterval1/2. */
	if (n == LWP_EVENTID_PROGRAMMED_VALUE)
		return iv < 0 ? 0 : iv;
	if (iv < 0 || (uint32_t)iv < m->profile->min_interval)
		return (int32_t)m->profile->min_interval;
	return iv;
}

/*
 * Refresh the fields that are not in the XSAVE area from the LWPCB, "when
 * needed in ring 3 after LWP state is restored via XRSTOR" (§8.3, §8.2.5).
 */
static bool cache_refresh(struct lwp_model *m, struct lwp_model_result *r)
{
	uint8_t fx[LWP_LWPCB_FIXED_SIZE];
	uint8_t ev[8];
	int32_t iv[LWP_EVENTID_MAX_V1 + 1] = { 0 };
	unsigned int n;
	uint32_t e = ev_offset(m);

	if (m->cache_valid)
		return true;
	if (!mem_read(m, m->cbaddr, fx, sizeof(fx), r))
		return false;
	for (n = 1; n <= max_events(m); n++) {
		if (!(m->flags & LWP_EVENTID_BIT(n)))
			continue;
		if (!mem_read(m, m->cbaddr + LWP_LWPCB_OFF_EVENT_INTERVAL(e, n), ev, 4, r))
			return false;
		iv[n] = interval_fixup(m, n, sext26(get32(ev)));
	}
	memcpy(m->interval, iv, sizeof(iv));
	m->random_bits = get32(fx + LWP_LWPCB_OFF_BUFFER_SIZE) >> LWP_LWPCB_RANDOM_SHIFT;
	m->threshold = get32(fx + LWP_LWPCB_OFF_THRESHOLD) / ev_size(m) * ev_size(m);
	m->base_ip = get64(fx + LWP_LWPCB_OFF_BASE_IP);
	m->limit_ip = get64(fx + LWP_LWPCB_OFF_LIMIT_IP);
	m->tail = get32(fx + LWP_LWPCB_OFF_BUFFER_TAIL_OFFSET);
	m->cache_valid = true;
	return true;
}

/* ---------------------------------------------------------------------- */
/* The ring buffer (§6 Table 6-1, §8.3)                                    */
/* ---------------------------------------------------------------------- */

static bool reread_tail(struct lwp_model *m, struct lwp_model_result *r)
{
	return cb_read32(m, LWP_LWPCB_OFF_BUFFER_TAIL_OFFSET, &m->tail, r);
}

static bool flush_head(struct lwp_model *m, struct lwp_model_result *r)
{
	return cb_write32(m, LWP_LWPCB_OFF_BUFFER_HEAD_OFFSET, m->head, r);
}

static uint32_t space_used(const struct lwp_model *m)
{
	/* Table 6-1 Threshold: (BufferHeadOffset - BufferTailOffset) % BufferSize. */
	uint64_t h = m->head, t = m->tail, s = m->buffer_size;

	return (uint32_t)((h + s - t % s) % s);
}

/*
 * Reset the counter of event n after its record was stored or missed (§1.1
 * step 5): the interval with its low Random bits randomised, reduced by any
 * overrun below -1.
 */
static void counter_reset(struct lwp_model *m, unsigned int n)
{
	int64_t v = m->interval[n];
	int32_t c = m->counter[n];

	if (m->random_bits) {
		uint32_t mask = (1u << m->random_bits) - 1;

		v = (int64_t)(((uint32_t)v & ~mask) | (rng_next(m) & mask));
	}
	if (c < -1)
		v += (int64_t)c + 1;
	m->counter[n] = clamp_counter(v);
}

/*
 * Store one record at the head (Table 6-1 BufferHeadOffset, MissedEvents,
 * Threshold; §8.3). On success r->stored is set and r->missed tells whether
 * the ring was full. On a fault the internal head is unchanged.
 */
static bool ring_store(struct lwp_model *m, const struct lwp_event_record *rec,
		       struct lwp_model_result *r)
{
	uint8_t b[LWP_EVREC_SIZE_V1];
	uint32_t next;

	if (!cache_refresh(m, r))
		return false;
	memset(b, 0, sizeof(b));
	b[0] = rec->event_id;
	b[1] = rec->core_id;
	b[2] = (uint8_t)rec->flags;
	b[3] = (uint8_t)(rec->flags >> 8);
	put32(b + 4, rec->data1);
	put64(b + 8, rec->ip);
	put64(b + 16, rec->data2);
	/* §2: reserved bytes 31-24 are zero. */
	if (!mem_write(m, m->buffer_base + m->head, b, ev_size(m) < sizeof(b) ? ev_size(m) :
		       sizeof(b), r))
		return false;

	next = m->head + ev_size(m);
	if (next >= m->buffer_size)
		next = 0;
	if (next == m->tail) {
		/* §8.3: reread the tail whenever the ring appears full. */
		if (!reread_tail(m, r))
			return false;
	}
	if (next == m->tail) {
		/* Table 6-1 MissedEvents: kept in memory (§8.3). */
		uint8_t me[8];

		if (!mem_read(m, m->cbaddr + LWP_LWPCB_OFF_MISSED_EVENTS, me, 8, r))
			return false;
		put64(me, get64(me) + 1);
		if (!mem_write(m, m->cbaddr + LWP_LWPCB_OFF_MISSED_EVENTS, me, 8, r))
			return false;
		if (!flush_head(m, r))	/* §8.3: flush at buffer full */
			return false;
		r->stored = true;
		r->missed = true;
		return true;
	}

	m->head = next;
	r->stored = true;
	r->missed = false;
	if ((m->flags & LWP_LWPCB_FLAGS_INT) && (m->lwp_cfg & LWP_CFG_INT) &&
	    space_used(m) >= m->threshold) {
		/* §8.3: reread the tail while the threshold appears reached. */
		if (!reread_tail(m, r))
			return false;
		if (space_used(m) >= m->threshold) {
			/* §8.3: exceeding the threshold forces the head out. */
			if (!flush_head(m, r))
				return false;
			if (m->ops->interrupt)
				m->ops->interrupt(m->ctx, (unsigned int)((m->lwp_cfg &
						  LWP_CFG_VECTOR_MASK) >> LWP_CFG_VECTOR_SHIFT));
			return true;
		}
	}
	if (m->head_flush == LWP_MODEL_HEAD_FLUSH_EVERY_STORE && !flush_head(m, r))
		return false;
	return true;
}

static struct lwp_event_record record_new(const struct lwp_model *m, uint8_t id, uint64_t ip)
{
	struct lwp_event_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.event_id = id;
	rec.core_id = (uint8_t)((m->lwp_cfg & LWP_CFG_COREID_MASK) >> LWP_CFG_COREID_SHIFT);
	rec.ip = ip;
	return rec;
}

/*
 * Store the pending record (§1.1 "Store"; §7.4 restored SavedEventRecord).
 * The CoreId is the one gathered with the record.
 */
static bool store_pending(struct lwp_model *m, struct lwp_model_result *r)
{
	struct lwp_event_record rec = m->pending;
	unsigned int n = rec.event_id;

	if (!n)
		return true;
	if (!ring_store(m, &rec, r))
		return false;
	memset(&m->pending, 0, sizeof(m->pending));
	if (n >= 1 && n <= LWP_EVENTID_MAX_V1 && (m->flags & LWP_EVENTID_BIT(n)))
		counter_reset(m, n);
	return true;
}

/* IP filtering (Table 6-2 IPF/IPI, Table 6-1 BaseIP/LimitIP). */
static bool ip_eligible(const struct lwp_model *m, uint64_t ip)
{
	bool in;

	if (!cap(m, LWP_MODEL_CAP_LWPIPFILTERING) || !(m->filters & LWP_LWPCB_FILTERS_IPF))
		return true;
	in = ip >= m->base_ip && ip <= m->limit_ip;
	return (m->filters & LWP_LWPCB_FILTERS_IPI) ? !in : in;
}

/* ---------------------------------------------------------------------- */
/* LLWPCB, SLWPCB (§5.1, §5.2)                                             */
/* ---------------------------------------------------------------------- */

/* §5.2: the flush. */
static bool lwp_flush(struct lwp_model *m, struct lwp_model_result *r)
{
	uint32_t e = ev_offset(m);
	unsigned int n;

	if (!store_pending(m, r))
		return false;
	for (n = 1; n <= max_events(m); n++) {
		if (!(m->flags & LWP_EVENTID_BIT(n)))
			continue;
		if (!cb_write32(m, LWP_LWPCB_OFF_EVENT_COUNTER(e, n),
				(uint32_t)m->counter[n] & LWP_LWPCB_EVENT_FIELD_MASK, r))
			return false;
	}
	return flush_head(m, r);
}

static void kernel_fault(struct lwp_model *m, const struct lwp_model_result *r,
			 const char *section, const char *what)
{
	/* §5.1-§5.4: at CPL != 3 the system software must keep it mapped. */
	if (m->cpl != 3 && r->exc != LWP_MODEL_EXC_NONE && r->exc != LWP_MODEL_EXC_UD)
		violation(m, section, what);
}

/*
 * §6: "All fields in the LWPCB ... marked as Reserved must be zero"; LLWPCB
 * raises #GP otherwise (issue 14, the behaviour of Family 15h). Figure 6-1:
 * bytes 23-20, 63-56, 68 to E-1 (E = LwpEventOffset); Table 6-2: Filters
 * bits 24:13. @fx holds the first LWP_LWPCB_FIXED_SIZE bytes. The reserved
 * bits 31:26 of the event fields are not checked: SLWPCB itself writes
 * counters as 26-bit fields (CHOICE, Documentation/lwp-model.rst).
 */
static bool lwpcb_reserved_zero(struct lwp_model *m, uint64_t addr, const uint8_t *fx,
				struct lwp_model_result *r)
{
	uint8_t gap[LWP_MODEL_PAGE_SIZE / 16];
	uint32_t e = ev_offset(m), off, n, i;

	if (get32(fx + LWP_LWPCB_OFF_RESERVED_20) ||
	    get64(fx + LWP_LWPCB_OFF_RESERVED_56) ||
	    (get32(fx + LWP_LWPCB_OFF_FILTERS) & LWP_LWPCB_FILTERS_RESERVED)) {
		*r = res_exc(LWP_MODEL_EXC_GP);
		return false;
	}
	for (off = LWP_LWPCB_FIXED_SIZE; off < e; off += n) {
		n = e - off < sizeof(gap) ? e - off : (uint32_t)sizeof(gap);
		if (!mem_read(m, addr + off, gap, n, r))
			return false;
		for (i = 0; i < n; i++) {
			if (gap[i]) {
				*r = res_exc(LWP_MODEL_EXC_GP);
				return false;
			}
		}
	}
	return true;
}

static struct lwp_model_result do_llwpcb(struct lwp_model *m, uint64_t addr)
{
	struct lwp_model_result r = res_ok();
	uint8_t fx[LWP_LWPCB_FIXED_SIZE];
	uint8_t evb[8 * LWP_EVENTID_MAX_V1];
	uint32_t e = ev_offset(m), nev = max_events(m);
	uint32_t flags_in, flags, bsize_word, size, head, tail;
	uint64_t base;
	int32_t iv[LWP_EVENTID_MAX_V1 + 1] = { 0 }, ct[LWP_EVENTID_MAX_V1 + 1] = { 0 };
	unsigned int n;

	/* Step 2: flush the active state first; a #PF keeps it active. */
	if (m->cbaddr && !lwp_flush(m, &r))
		return r;
	lwp_disable(m);
	/* Step 3 */
	if (addr == 0)
		return r;

	/* Step 4: validate. The whole LWPCB must be addressable. */
	if (!range_ok(addr, cb_size(m)) || cb_size(m) < e + 8 * nev)
		return res_exc(LWP_MODEL_EXC_GP);
	if (!mem_read(m, addr, fx, sizeof(fx), &r))
		return r;
	if (nev && !mem_read(m, addr + e, evb, 8 * nev, &r))
		return r;
	if (!lwpcb_reserved_zero(m, addr, fx, &r))
		return r;
	flags_in = get32(fx + LWP_LWPCB_OFF_FLAGS);
	bsize_word = get32(fx + LWP_LWPCB_OFF_BUFFER_SIZE);
	base = get64(fx + LWP_LWPCB_OFF_BUFFER_BASE);
	head = get32(fx + LWP_LWPCB_OFF_BUFFER_HEAD_OFFSET);
	tail = get32(fx + LWP_LWPCB_OFF_BUFFER_TAIL_OFFSET);
	/* Table 6-1 BufferSize: rounded down to a multiple of LwpEventSize. */
	size = (bsize_word & LWP_LWPCB_BUFFER_SIZE_MASK) / ev_size(m) * ev_size(m);
	if (size < min_buffer_size(m))
		return res_exc(LWP_MODEL_EXC_GP);
	if (!range_ok(base, size))
		return res_exc(LWP_MODEL_EXC_GP);

	/* Step 6: Flags &= available, always stored back. */
	flags = flags_in & available_features(m);
	m->cbaddr = addr;	/* for cb_write32; undone on failure */
	if (!cb_write32(m, LWP_LWPCB_OFF_FLAGS, flags, &r))
		goto fail;

	/* Step 7: intervals (minimum, written back), counters (negative -> 0). */
	for (n = 1; n <= nev; n++) {
		uint32_t raw_iv = get32(evb + 8 * (n - 1));
		int32_t v;

		if (!(flags & LWP_EVENTID_BIT(n)))
			continue;
		v = interval_fixup(m, n, sext26(raw_iv));
		if (v != sext26(raw_iv) &&
		    !cb_write32(m, LWP_LWPCB_OFF_EVENT_INTERVAL(e, n),
				(uint32_t)v & LWP_LWPCB_EVENT_FIELD_MASK, &r))
			goto fail;
		iv[n] = v;
		ct[n] = sext26(get32(evb + 8 * (n - 1) + 4));
		if (ct[n] < 0)
			ct[n] = 0;
	}

	/* Step 5 and 8: load the internal state and start. */
	m->flags = flags;
	m->buffer_base = base;
	m->buffer_size = size;
	/* Table 6-1 BufferHeadOffset: 0 if too large, rounded down. */
	m->head = head >= size ? 0 : head / ev_size(m) * ev_size(m);
	m->filters = get32(fx + LWP_LWPCB_OFF_FILTERS);
	memcpy(m->interval, iv, sizeof(iv));
	memcpy(m->counter, ct, sizeof(ct));
	m->random_bits = bsize_word >> LWP_LWPCB_RANDOM_SHIFT;
	m->threshold = get32(fx + LWP_LWPCB_OFF_THRESHOLD) / ev_size(m) * ev_size(m);
	m->base_ip = get64(fx + LWP_LWPCB_OFF_BASE_IP);
	m->limit_ip = get64(fx + LWP_LWPCB_OFF_LIMIT_IP);
	m->tail = tail;
	m->cache_valid = true;
	return r;
fail:
	lwp_disable(m);
	return r;
}

struct lwp_model_result lwp_model_llwpcb(struct lwp_model *m, uint64_t addr,
					 unsigned int opsize)
{
	struct lwp_model_result r;

	if (!lwp_model_available(m) || !opsize_ok(opsize))
		return res_exc(LWP_MODEL_EXC_UD);	/* §5.1 step 1 */
	r = do_llwpcb(m, trunc_opsize(addr, opsize));
	kernel_fault(m, &r, "43724 §5.1", "LLWPCB at CPL != 3 faulted");
	return r;
}

struct lwp_model_result lwp_model_slwpcb(struct lwp_model *m, unsigned int opsize)
{
	struct lwp_model_result r = res_ok();

	if (!lwp_model_available(m) || !opsize_ok(opsize))
		return res_exc(LWP_MODEL_EXC_UD);	/* §5.2 */
	if (!m->cbaddr)
		return r;				/* value 0 */
	if (!lwp_flush(m, &r)) {
		kernel_fault(m, &r, "43724 §5.2", "SLWPCB at CPL != 3 faulted");
		return r;
	}
	/* §5.2: effective address = linear - DS.base (0), truncated. */
	r.value = trunc_opsize(m->cbaddr, opsize);
	return r;
}

/* ---------------------------------------------------------------------- */
/* LWPVAL, LWPINS (§5.3, §5.4)                                             */
/* ---------------------------------------------------------------------- */

static bool read_operand(struct lwp_model *m, const struct lwp_model_operand *op,
			 uint32_t *v, struct lwp_model_result *r)
{
	uint8_t b[4];

	if (!op->is_mem) {
		*v = op->value;
		return true;
	}
	if (!range_ok(op->addr, 4)) {
		*r = res_exc(LWP_MODEL_EXC_GP);	/* §5.3/§5.4: segment limit */
		return false;
	}
	if (!mem_read(m, op->addr, b, 4, r))
		return false;
	*v = get32(b);
	return true;
}

static struct lwp_model_result do_user_insn(struct lwp_model *m, uint8_t id, uint64_t ip,
					    uint64_t src1, struct lwp_model_operand src2,
					    uint32_t imm, unsigned int opsize)
{
	struct lwp_model_result r = res_ok();
	struct lwp_model saved = *m;	/* the instruction restarts after a fault */
	struct lwp_event_record rec;
	uint32_t data1;
	unsigned int n = LWP_EVENTID_PROGRAMMED_VALUE;

	/*
	 * §5.3: "LWPVAL does nothing if ... the Programmed Value Sample event
	 * is not enabled": decided on the internal Flags, before any access to
	 * the LWPCB or the ring (no cache refresh, no pending-record store).
	 */
	if (id == LWP_EVENTID_PROGRAMMED_VALUE && !(m->flags & LWP_EVENTID_BIT(n)))
		return r;
	if (!cache_refresh(m, &r) || !store_pending(m, &r))
		goto fault;
	if (id == LWP_EVENTID_PROGRAMMED_VALUE) {
		/* IP filtering applies to event 1 (CHOICE). */
		if (!ip_eligible(m, ip))
			return r;
		m->counter[n] = clamp_counter((int64_t)m->counter[n] - 1);
		if (m->counter[n] >= 0)
			return r;	/* the memory operand is not accessed */
	}
	if (!read_operand(m, &src2, &data1, &r))
		goto fault;
	rec = record_new(m, id, ip);
	rec.flags = (uint16_t)(imm & LWP_EVREC_IMM_MASK);
	rec.data1 = data1;
	rec.data2 = trunc_opsize(src1, opsize);
	if (!ring_store(m, &rec, &r))
		goto fault;
	if (id == LWP_EVENTID_PROGRAMMED_VALUE)
		counter_reset(m, n);
	else
		r.cf = r.missed;	/* §5.4 */
	return r;
fault:
	saved.violations = m->violations;
	*m = saved;
	return r;
}

struct lwp_model_result lwp_model_lwpval(struct lwp_model *m, uint64_t ip, uint64_t src1,
					 struct lwp_model_operand src2, uint32_t imm,
					 unsigned int opsize)
{
	struct lwp_model_result r;

	if (!lwp_model_available(m) || !opsize_ok(opsize))
		return res_exc(LWP_MODEL_EXC_UD);
	if (!m->cbaddr)
		return res_ok();	/* §5.3: nothing if not enabled */
	r = do_user_insn(m, LWP_EVENTID_PROGRAMMED_VALUE, ip, src1, src2, imm, opsize);
	kernel_fault(m, &r, "43724 §5.3", "LWPVAL at CPL != 3 faulted");
	return r;
}

struct lwp_model_result lwp_model_lwpins(struct lwp_model *m, uint64_t ip, uint64_t src1,
					 struct lwp_model_operand src2, uint32_t imm,
					 unsigned int opsize)
{
	struct lwp_model_result r;

	if (!lwp_model_available(m) || !opsize_ok(opsize))
		return res_exc(LWP_MODEL_EXC_UD);
	if (!m->cbaddr)
		return res_ok();	/* §5.4: CF cleared */
	r = do_user_insn(m, LWP_EVENTID_PROGRAMMED_EVENT, ip, src1, src2, imm, opsize);
	kernel_fault(m, &r, "43724 §5.4", "LWPINS at CPL != 3 faulted");
	return r;
}

/* ---------------------------------------------------------------------- */
/* Execution events (§1.1 Count/Gather/Store/Reset, §2.2-§2.6)             */
/* ---------------------------------------------------------------------- */

/* LWP is active: enabled and CPL 3 (Appendix A "Active"). */
static bool active(const struct lwp_model *m)
{
	return m->cbaddr && m->cpl == 3 && lwp_model_available(m);
}

/*
 * Count `count` occurrences of event n; if the counter goes negative and no
 * record is pending, gather `rec` and store it. A #PF keeps it pending.
 */
static void count_event(struct lwp_model *m, unsigned int n, uint64_t count,
			const struct lwp_event_record *rec, struct lwp_model_result *r)
{
	if (!(m->flags & LWP_EVENTID_BIT(n)) || !count)
		return;
	m->counter[n] = clamp_counter((int64_t)m->counter[n] -
				      (count > (1u << 30) ? (1u << 30) : (int64_t)count));
	if (m->counter[n] >= 0 || m->pending.event_id)
		return;	/* §1.1: waits until the pending record is written */
	if (r->exc == LWP_MODEL_EXC_NONE && ring_store(m, rec, r)) {
		counter_reset(m, n);
		return;
	}
	/* §8.6: keep the record and retry the store later. */
	m->pending = *rec;
}

/*
 * Common prologue: LWP active, cached fields valid (needed for filtering),
 * then retry a pending record. A failed retry is reported in *r but counting
 * goes on (§1.1 "Other events continue counting").
 */
static bool exec_prologue(struct lwp_model *m, struct lwp_model_result *r)
{
	if (!active(m))
		return false;
	if (!cache_refresh(m, r))
		return false;
	store_pending(m, r);
	return true;
}

struct lwp_model_result lwp_model_insn_retired(struct lwp_model *m, uint64_t ip)
{
	struct lwp_model_result r = res_ok();
	struct lwp_event_record rec;

	if (!exec_prologue(m, &r) || !ip_eligible(m, ip))
		return r;
	rec = record_new(m, LWP_EVENTID_INSTRUCTIONS_RETIRED, ip);
	count_event(m, LWP_EVENTID_INSTRUCTIONS_RETIRED, 1, &rec, &r);
	return r;
}

static bool branch_eligible(const struct lwp_model *m, const struct lwp_model_branch *b)
{
	uint32_t f = m->filters;

	/* Table 6-2 NCB, NRB, NAB. */
	if (b->kind == LWP_MODEL_BR_COND && (f & LWP_LWPCB_FILTERS_NCB))
		return false;
	if (b->kind == LWP_MODEL_BR_UNCOND_REL && (f & LWP_LWPCB_FILTERS_NRB))
		return false;
	if (b->kind == LWP_MODEL_BR_INDIRECT && (f & LWP_LWPCB_FILTERS_NAB))
		return false;
	/* Table 6-2 NMB, NPB: with LwpBranchPrediction (CHOICE: known only). */
	if (cap(m, LWP_MODEL_CAP_LWPBRANCHPREDICTION)) {
		if (b->prediction == LWP_MODEL_PRED_MISPREDICTED && (f & LWP_LWPCB_FILTERS_NMB))
			return false;
		if (b->prediction == LWP_MODEL_PRED_CORRECT && (f & LWP_LWPCB_FILTERS_NPB))
			return false;
	}
	return true;
}

struct lwp_model_result lwp_model_branch_retired(struct lwp_model *m,
						 const struct lwp_model_branch *b)
{
	struct lwp_model_result r = res_ok();
	struct lwp_event_record rec;

	if (!b || !exec_prologue(m, &r) || !ip_eligible(m, b->ip) || !branch_eligible(m, b))
		return r;
	rec = record_new(m, LWP_EVENTID_BRANCHES_RETIRED, b->ip);
	/* Figure 2-4: TKN always 1 for unconditional branches. */
	if (b->taken || b->kind != LWP_MODEL_BR_COND)
		rec.flags |= LWP_EVREC_BR_TKN;
	if (b->fused)
		rec.flags |= LWP_EVREC_BR_FUS;
	if (b->prediction != LWP_MODEL_PRED_UNKNOWN) {
		rec.flags |= LWP_EVREC_BR_PRV;
		if (b->prediction == LWP_MODEL_PRED_CORRECT)
			rec.flags |= LWP_EVREC_BR_PRD;
	}
	rec.data2 = b->target;
	count_event(m, LWP_EVENTID_BRANCHES_RETIRED, 1, &rec, &r);
	return r;
}

struct lwp_model_result lwp_model_dcache_miss(struct lwp_model *m,
					      const struct lwp_model_dcache_miss *d)
{
	struct lwp_model_result r = res_ok();
	struct lwp_event_record rec;
	uint32_t rnd = cap(m, LWP_MODEL_CAP_LWPLATENCYRND);
	uint32_t lmax = cap(m, LWP_MODEL_CAP_LWPLATENCYMAX);
	uint64_t lat, cap_lat;

	if (!d || !exec_prologue(m, &r) || !ip_eligible(m, d->ip))
		return r;
	/* §2.4.1: rounded to 2^LwpLatencyRnd, saturating at 2^Max - 2^Rnd. */
	lat = d->latency & ~(uint64_t)((1u << rnd) - 1);
	cap_lat = lmax ? (1ull << lmax) - (1ull << rnd) : 0;
	if (lat > cap_lat)
		lat = cap_lat;
	/* Table 6-2 MinLatency (x16, capped at the maximum). */
	if (cap(m, LWP_MODEL_CAP_LWPCACHELATENCY)) {
		uint64_t min = (uint64_t)(m->filters & LWP_LWPCB_FILTERS_MINLATENCY_MASK) *
			       LWP_LWPCB_FILTERS_MINLATENCY_UNIT;

		if (min > cap_lat)
			min = cap_lat;
		if (min && lat < min)
			return r;
	}
	/* Table 6-2 CLF/NBC/RDC/RAM/OTH. */
	if (cap(m, LWP_MODEL_CAP_LWPCACHELEVELS) && (m->filters & LWP_LWPCB_FILTERS_CLF)) {
		uint32_t bit = 0;

		switch (d->src) {
		case LWP_DC_SRC_LOCAL_L3:
			bit = LWP_LWPCB_FILTERS_NBC;
			break;
		case LWP_DC_SRC_REMOTE:
			bit = LWP_LWPCB_FILTERS_RDC;
			break;
		case LWP_DC_SRC_DRAM:
			bit = LWP_LWPCB_FILTERS_RAM;
			break;
		case LWP_DC_SRC_OTHER:
			bit = LWP_LWPCB_FILTERS_OTH;
			break;
		default:
			break;	/* CHOICE: no valid status never matches */
		}
		if (!(m->filters & bit))
			return r;
	}
	rec = record_new(m, LWP_EVENTID_DCACHE_MISSES, d->ip);
	rec.flags = (uint16_t)((d->src << LWP_EVREC_DC_SRC_SHIFT) & LWP_EVREC_DC_SRC_MASK);
	rec.data1 = (uint32_t)lat;
	if (cap(m, LWP_MODEL_CAP_LWPDATAADDRESS)) {
		rec.flags |= LWP_EVREC_DC_DAV;
		rec.data2 = d->data_addr;
	}
	count_event(m, LWP_EVENTID_DCACHE_MISSES, 1, &rec, &r);
	return r;
}

struct lwp_model_result lwp_model_clocks(struct lwp_model *m, uint64_t ip,
					 uint64_t clocks, uint64_t ref_clocks)
{
	struct lwp_model_result r = res_ok();
	struct lwp_event_record rec;

	if (!exec_prologue(m, &r) || !ip_eligible(m, ip))
		return r;
	rec = record_new(m, LWP_EVENTID_CPU_CLOCKS_NOT_HALTED, ip);
	count_event(m, LWP_EVENTID_CPU_CLOCKS_NOT_HALTED, clocks, &rec, &r);
	rec = record_new(m, LWP_EVENTID_CPU_REF_CLOCKS_NOT_HALTED, ip);
	count_event(m, LWP_EVENTID_CPU_REF_CLOCKS_NOT_HALTED, ref_clocks, &rec, &r);
	return r;
}

struct lwp_model_result lwp_model_flush_pending(struct lwp_model *m)
{
	struct lwp_model_result r = res_ok();

	(void)exec_prologue(m, &r);
	return r;
}

/* ---------------------------------------------------------------------- */
/* XSAVE / XRSTOR (§7)                                                     */
/* ---------------------------------------------------------------------- */

struct lwp_model_result lwp_model_xsave(struct lwp_model *m, struct lwp_xsave_area *area,
					uint64_t rfbm, uint64_t *xstate_bv)
{
	unsigned int n;

	if (!area || !xstate_bv) {
		violation(m, "43724 §7.3", "XSAVE without a save area");
		return res_exc(LWP_MODEL_EXC_GP);
	}
	if (!(rfbm & LWP_XCR0_BIT) || !m->xcr0_lwp)
		return res_ok();
	if (!m->cbaddr) {
		*xstate_bv &= ~LWP_XCR0_BIT;	/* §7.3 */
		return res_ok();
	}
	memset(area, 0, sizeof(*area));
	area->lwpcb_address = m->cbaddr;
	/* Table 7-1: bit n = Countern active; CHOICE: INT kept in bit 31. */
	area->flags = m->flags;
	if (m->xsave_drops_int)
		lwp_model_xsave_drop_int(area);	/* rr, Family 15h */
	area->buffer_head_offset = m->head;
	area->buffer_base = m->buffer_base;
	area->buffer_size = m->buffer_size;
	area->filters = m->filters;
	area->saved_event_record = m->pending;
	for (n = 1; n <= LWP_EVENTID_MAX_V1; n++)
		if (m->flags & LWP_EVENTID_BIT(n))
			area->event_counter[n - 1] = (uint32_t)m->counter[n];
	*xstate_bv |= LWP_XCR0_BIT;
	return res_ok();
}

/*
 * §7.4 Check(): store-type checks of the first and last byte. 64-bit mode:
 * #GP for non-canonical or wrapping ranges (CHOICE: the FFFF_FFFFh wrap test
 * applies to legacy mode), #PF if a page is not accessible for writing.
 */
static bool xrstor_check(struct lwp_model *m, uint64_t addr, uint64_t size,
			 struct lwp_model_result *r)
{
	uint8_t b;
	uint64_t ends[2];
	int i;

	/*
	 * Size 0 (an empty ring, below any minimum): only the first byte is
	 * checked; LWP is then disabled by the minimum-size rule, no #GP.
	 */
	if (size == 0)
		size = 1;
	if (!range_ok(addr, size)) {
		*r = res_exc(LWP_MODEL_EXC_GP);
		return false;
	}
	ends[0] = addr;
	ends[1] = addr + size - 1;
	for (i = 0; i < 2; i++) {
		if (!mem_read(m, ends[i], &b, 1, r))
			return false;
		if (!mem_write(m, ends[i], &b, 1, r))
			return false;
	}
	return true;
}

struct lwp_model_result lwp_model_xrstor(struct lwp_model *m, const struct lwp_xsave_area *area,
					 uint64_t rfbm, uint64_t xstate_bv)
{
	struct lwp_model_result r = res_ok();
	uint32_t size, flags, head;
	unsigned int n;

	if (!(rfbm & LWP_XCR0_BIT) || !m->xcr0_lwp)
		return r;			/* §7.4: no change */
	if (!(xstate_bv & LWP_XCR0_BIT)) {
		lwp_disable(m);			/* §7.5 processor-supplied values */
		return r;
	}
	if (!area) {
		violation(m, "43724 §7.4", "XRSTOR without a save area");
		return res_exc(LWP_MODEL_EXC_GP);
	}
	/* §7.4: the old state is overwritten without being saved. */
	lwp_disable(m);
	if (!area->lwpcb_address)
		return r;			/* Table 7-1: rest ignored */
	head = area->buffer_head_offset;
	if (m->cpl != 0) {
		if (!xrstor_check(m, area->lwpcb_address, cb_size(m), &r) ||
		    !xrstor_check(m, area->buffer_base, area->buffer_size, &r))
			return r;		/* LWP left disabled */
		/*
		 * §7.4 pseudo-code (CPL != 0): "if (XSAVE.BufferHeadOffset >
		 * XSAVE.BufferSize - LwpEventSize) XSAVE.BufferHeadOffset = 0",
		 * on the saved (unrounded) BufferSize. A size below one record
		 * is below the minimum and disables LWP below.
		 */
		if (area->buffer_size >= ev_size(m) &&
		    head > area->buffer_size - ev_size(m))
			head = 0;
	} else if (!range_ok(area->lwpcb_address, cb_size(m)) ||
		   !range_ok(area->buffer_base, area->buffer_size)) {
		/* §7.4: the kernel is trusted not to alter the area. */
		violation(m, "43724 §7.4",
			  "XRSTOR at CPL 0 of an LWP area with invalid LWPCB/ring addresses");
	}
	size = area->buffer_size / ev_size(m) * ev_size(m);
	if (size < min_buffer_size(m))
		return r;			/* §7.4: LWP is disabled */
	flags = area->flags & available_features(m);
	m->cbaddr = area->lwpcb_address;
	m->flags = flags;
	m->buffer_base = area->buffer_base;
	m->buffer_size = size;
	/* §7.4: 0 if >= BufferSize, else rounded down to a record. */
	m->head = head >= size ? 0 : head / ev_size(m) * ev_size(m);
	m->filters = area->filters;
	for (n = 1; n <= max_events(m); n++)
		if (flags & LWP_EVENTID_BIT(n))
			m->counter[n] = clamp_counter((int32_t)area->event_counter[n - 1]);
	if (area->saved_event_record.event_id)
		m->pending = area->saved_event_record;
	m->cache_valid = false;		/* §8.2.5: refreshed in ring 3 */
	return r;
}
