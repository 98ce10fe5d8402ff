// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * libpt capture: /dev/pt (include/uapi/lwpt/pt.h) behind include/lwpt/pt.h.
 * Configuration checks follow SDM 33.2.8.2 (IA32_RTIT_CTL) against the
 * capabilities the module decoded from CPUID 14H (SDM 33.3.1); the module
 * checks again (it is the authority), this copy names the field early and
 * lets tools validate without a device.
 */
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <lwpt/pt.h>
#include <lwpt/pt_cpuid.h>
#include <lwpt/pt_rtit.h>
#include <lwpt/pt_topa.h>

#include "libpt/capture_internal.h"

_Static_assert(sizeof(struct lwpt_pt_caps) == LWPT_PT_CAPS_SIZE_VER2, "uapi caps");
_Static_assert(offsetof(struct lwpt_pt_caps, mlock_avail) == LWPT_PT_CAPS_SIZE_VER0, "uapi caps");
_Static_assert(sizeof(struct lwpt_pt_config) == LWPT_PT_CONFIG_SIZE_VER3, "uapi config");
_Static_assert(sizeof(struct lwpt_pt_status) == LWPT_PT_STATUS_SIZE_VER5, "uapi status");
_Static_assert(sizeof(struct lwpt_pt_release) == LWPT_PT_RELEASE_SIZE_VER1, "uapi release");
_Static_assert(sizeof(struct lwpt_pt_switch) == LWPT_PT_SWITCH_SIZE_VER0, "uapi switch");
_Static_assert(sizeof(struct lwpt_pt_sideband) == LWPT_PT_SIDEBAND_SIZE_VER0, "uapi sideband");

#define LPT_PAGE	4096ull		/* ToPA region granularity, SDM 33.2.7.2 */

struct lpt_buf {
	const uint8_t *map;	/* read-only mapping, NULL if none */
	uint64_t size;		/* bytes mapped */
	uint64_t tail;		/* bytes delivered since start */
	uint64_t gap_seen;	/* the module's gap_head last seen */
	uint64_t gaps_seen;	/* the module's gaps count last seen */
	uint64_t serial;	/* the thread it holds (status serial) */
	unsigned int ngap;	/* the last read delivered ngap cuts ... */
	uint64_t gap_at[LWPT_PT_GAP_HEADS];	/* ... this many bytes into it */
};

struct lpt_dev {
	int fd;
	uint32_t abi_version;
	uint32_t abi_flags;
	struct lwpt_pt_caps caps;
	bool configured;
	uint32_t mode;
	uint32_t scope;
	uint64_t buffer_size;
	bool single;		/* single-range output (SDM 33.2.7.1) */
	uint32_t rule;		/* LWPT_PT_RULE_* of the last refused configure */
	int32_t holder;		/* its EBUSY: the process holding the capture */
	unsigned int nr_bufs;
	struct lpt_buf *bufs;	/* [nr_bufs] after configure: by buffer number */
	uint64_t joined;	/* per thread: threads joined when last mapped */
};

static int neg_errno(void)
{
	return errno ? -errno : -EIO;
}

int lpt_dev_open(const char *path, struct lpt_dev **devp)
{
	struct lwpt_abi_version abi;
	struct lpt_dev *dev;
	int err;

	if (!devp)
		return -EINVAL;
	*devp = NULL;
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->fd = open(path ? path : LPT_DEV_PATH, O_RDWR | O_CLOEXEC);
	if (dev->fd < 0) {
		err = neg_errno();
		goto free_dev;
	}
	memset(&abi, 0, sizeof(abi));
	if (ioctl(dev->fd, LWPT_IOC_GET_ABI_VERSION, &abi)) {
		err = errno == EFAULT || errno == EINVAL ? -ENOTTY : neg_errno();
		goto close_fd;
	}
	if (LWPT_ABI_VERSION_MAJOR(abi.version) != LWPT_ABI_MAJOR) {
		err = -EPROTO;
		goto close_fd;
	}
	dev->abi_version = abi.version;
	dev->abi_flags = abi.flags;
	dev->caps.size = sizeof(dev->caps);
	if (ioctl(dev->fd, LWPT_PT_IOC_GET_CAPS, &dev->caps)) {
		err = errno == ENOTTY ? -EOPNOTSUPP : neg_errno();
		goto close_fd;
	}
	*devp = dev;
	return 0;

close_fd:
	close(dev->fd);
free_dev:
	free(dev);
	return err;
}

static void unmap_all(struct lpt_dev *dev)
{
	unsigned int i;

	for (i = 0; i < dev->nr_bufs; i++)
		if (dev->bufs[i].map)
			munmap((void *)dev->bufs[i].map, dev->bufs[i].size);
	free(dev->bufs);
	dev->bufs = NULL;
	dev->nr_bufs = 0;
}

void lpt_dev_close(struct lpt_dev *dev)
{
	if (!dev)
		return;
	unmap_all(dev);
	close(dev->fd);
	free(dev);
}

const struct lwpt_pt_caps *lpt_dev_caps(const struct lpt_dev *dev)
{
	return &dev->caps;
}

void lpt_dev_abi(const struct lpt_dev *dev, uint32_t *version, uint32_t *flags)
{
	if (version)
		*version = dev->abi_version;
	if (flags)
		*flags = dev->abi_flags;
}

unsigned int lpt_dev_nr_cpus(const struct lpt_dev *dev)
{
	return dev->caps.nr_cpus;
}

/*
 * struct lwpt_pt_caps.caps bits by name: the "Name" column of SDM Table
 * 33-11 for the bits of leaf 14H (include/uapi/lwpt/pt.h says which), and
 * lwpt's own two bits with their source.
 */
static const struct {
	uint32_t cap;
	const char *name;
} lpt_cap_names[] = {
	{ LWPT_PT_CAP_CR3_FILTER,	"CR3 Filtering Support" },
	{ LWPT_PT_CAP_PSB_CYC,		"Configurable PSB and Cycle-Accurate Mode Supported" },
	{ LWPT_PT_CAP_IP_FILTER,	"IP Filtering and TraceStop supported, and Preserve "
					"Intel PT MSRs across warm reset" },
	{ LWPT_PT_CAP_MTC,		"MTC Supported" },
	{ LWPT_PT_CAP_PTWRITE,		"PTWRITE Supported" },
	{ LWPT_PT_CAP_POWER_EVENT,	"Power Event Trace Supported" },
	{ LWPT_PT_CAP_PSB_PMI_PRESERVE,	"PSB and PMI Preservation Supported" },
	{ LWPT_PT_CAP_EVENT_TRACE,	"Event Trace Supported" },
	{ LWPT_PT_CAP_TNT_DISABLE,	"TNT Disable Supported" },
	{ LWPT_PT_CAP_TOPA,		"ToPA Output Supported" },
	{ LWPT_PT_CAP_MENTRY,		"ToPA Tables Allow Multiple Output Entries" },
	{ LWPT_PT_CAP_SNGLRGNOUT,	"Single-Range Output Supported" },
	{ LWPT_PT_CAP_TRACE_TRANSPORT,	"Output to Trace Transport Subsystem Supported" },
	{ LWPT_PT_CAP_LIP,		"IP Payloads are LIP" },
	{ LWPT_PT_CAP_XSAVES,		"XSAVES of PT state (0DH.1:EAX[3] and ECX[8])" },
	{ LWPT_PT_CAP_ERRATUM_BDM106,	"Erratum BDM106: BranchEn kept set (no 14H.0:EBX[1])" },
	{ LWPT_PT_CAP_LBR_EXCLUSIVE,	"PT and LBRs mutually exclusive (SDM 33.3.1.2): "
					"no TraceEn while IA32_DEBUGCTL.LBR is set" },
	{ LWPT_PT_CAP_ERRATUM_SINGLE_4K, "Errata TGL052/ADL037/RPL017: single range "
					 "above 4 KiB configured as ToPA" },
};

const char *lpt_cap_name(uint32_t cap)
{
	size_t i;

	for (i = 0; i < sizeof(lpt_cap_names) / sizeof(lpt_cap_names[0]); i++)
		if (lpt_cap_names[i].cap == cap)
			return lpt_cap_names[i].name;
	return NULL;
}

bool lpt_cpu_has_pt(void)
{
	unsigned int eax, ebx, ecx, edx;

	/* __get_cpuid_count() checks the maximum basic leaf first. */
	if (!__get_cpuid_count(PT_CPUID_07H, 0, &eax, &ebx, &ecx, &edx))
		return false;
	return ebx & PT_CPUID_07H_EBX_INTEL_PT;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

void lpt_cap_config_init_size(struct lpt_cap_config *out, size_t out_size,
			      const struct lwpt_pt_caps *caps)
{
	uint64_t size = LPT_CAP_DEFAULT_BUFFER;
	struct lpt_cap_config defaults, *cfg = &defaults;

	memset(cfg, 0, sizeof(*cfg));
	/* SDM 33.2.8.2: TSCEn has no CPUID bit, every PT processor has it. */
	cfg->flags = LWPT_PT_CFG_USER | LWPT_PT_CFG_BRANCH | LWPT_PT_CFG_TSC;
	cfg->mode = LWPT_PT_MODE_WRAP;
	cfg->scope = LWPT_PT_SCOPE_CPU;
	if (caps) {
		if (caps->max_buffer_size && size > caps->max_buffer_size)
			size = caps->max_buffer_size & ~(LPT_PAGE - 1);
		if (!(caps->caps & LWPT_PT_CAP_MENTRY) && caps->max_region_size &&
		    size > caps->max_region_size)
			size = caps->max_region_size;
		if (!(caps->caps & LWPT_PT_CAP_MENTRY))
			while (!is_pow2(size))
				size &= size - 1;	/* round down to a power of two */
		if (size < LPT_PAGE)
			size = LPT_PAGE;
		/* Single-range output is the only scheme without ToPA. */
		if (!(caps->caps & LWPT_PT_CAP_TOPA) && (caps->caps & LWPT_PT_CAP_SNGLRGNOUT))
			cfg->flags |= LWPT_PT_CFG_SINGLE_RANGE;
	}
	cfg->buffer_size = size;
	/* Only the caller's version of the struct is written. */
	if (out_size > sizeof(*cfg))
		out_size = sizeof(*cfg);
	cfg->size = out_size;
	memcpy(out, cfg, out_size);
}

/*
 * The function of binaries built before lpt_cap_config_init() became a
 * macro over lpt_cap_config_init_size(): their struct is version 0.
 */
#undef lpt_cap_config_init
void lpt_cap_config_init(struct lpt_cap_config *cfg, const struct lwpt_pt_caps *caps)
{
	lpt_cap_config_init_size(cfg, LPT_CAP_CONFIG_SIZE_VER0, caps);
}

int lpt_dev_mlock_avail(struct lpt_dev *dev, uint64_t *bytes)
{
	struct lwpt_pt_caps c;

	*bytes = LWPT_PT_MLOCK_UNLIMITED;
	memset(&c, 0, sizeof(c));
	c.size = sizeof(c);
	if (ioctl(dev->fd, LWPT_PT_IOC_GET_CAPS, &c))
		return neg_errno();
	if (c.size < LWPT_PT_CAPS_SIZE_VER1)
		return -EOPNOTSUPP;
	*bytes = c.mlock_avail;
	return 0;
}

int lpt_dev_timing_leaves(const struct lpt_dev *dev, uint32_t leaf15[3],
			  uint32_t *leaf16_eax)
{
	/* Bytes the module did not write stay zero (calloc, size-versioned). */
	bool v2 = dev->caps.size >= LWPT_PT_CAPS_SIZE_VER2;

	memcpy(leaf15, v2 ? dev->caps.cpuid_15h : (const uint32_t[3]){ 0 },
	       3 * sizeof(uint32_t));
	if (leaf16_eax)
		*leaf16_eax = v2 ? dev->caps.cpuid_16h_eax : 0;
	return v2 ? 0 : -EOPNOTSUPP;
}

uint64_t lpt_cap_buffer_cost(uint64_t size, unsigned int nbuf, bool single)
{
	/* pt_mem_buf_pages(): one table page per 511 one-page regions. */
	const uint64_t per_table = LPT_PAGE / TOPA_ENTRY_BYTES - 1;
	uint64_t pages = size / LPT_PAGE;

	if (!single)
		pages += (pages + per_table - 1) / per_table;
	if (nbuf && pages > UINT64_MAX / LPT_PAGE / nbuf)
		return UINT64_MAX;
	return pages * LPT_PAGE * nbuf;
}

uint64_t lpt_cap_buffer_fit(uint64_t size, unsigned int nbuf, bool single, uint64_t avail)
{
	if (!nbuf)
		nbuf = 1;
	if (lpt_cap_buffer_cost(size, nbuf, single) <= avail)
		return size;
	while (size > LPT_CAP_MIN_BUFFER) {
		/* The largest power of two below @size (perf: rounddown_pow_of_two). */
		uint64_t p = LPT_CAP_MIN_BUFFER;

		while (p * 2 < size)
			p *= 2;
		size = p;
		if (lpt_cap_buffer_cost(size, nbuf, single) <= avail)
			return size;
	}
	return 0;
}

/*
 * The whitelist: each settable IA32_RTIT_CTL enable, the CPUID capability
 * it needs (SDM Table 33-11, 0 = architectural) and its field name.
 */
static const struct {
	uint32_t flag;
	uint32_t cap;
	enum lwpt_pt_field field;
} lpt_cfg_bits[] = {
	{ LWPT_PT_CFG_OS,		0,				LWPT_PT_FIELD_OS },
	{ LWPT_PT_CFG_USER,		0,				LWPT_PT_FIELD_USER },
	{ LWPT_PT_CFG_BRANCH,		0,				LWPT_PT_FIELD_BRANCH },
	{ LWPT_PT_CFG_TSC,		0,				LWPT_PT_FIELD_FLAGS },
	{ LWPT_PT_CFG_MTC,		LWPT_PT_CAP_MTC,		LWPT_PT_FIELD_MTC },
	{ LWPT_PT_CFG_CYC,		LWPT_PT_CAP_PSB_CYC,		LWPT_PT_FIELD_CYC },
	{ LWPT_PT_CFG_DISRETC,		0,				LWPT_PT_FIELD_FLAGS },
	{ LWPT_PT_CFG_PTW,		LWPT_PT_CAP_PTWRITE,		LWPT_PT_FIELD_PTW },
	{ LWPT_PT_CFG_FUPONPTW,		LWPT_PT_CAP_PTWRITE,		LWPT_PT_FIELD_FUPONPTW },
	{ LWPT_PT_CFG_PWREVT,		LWPT_PT_CAP_POWER_EVENT,	LWPT_PT_FIELD_PWREVT },
	{ LWPT_PT_CFG_EVENT,		LWPT_PT_CAP_EVENT_TRACE,	LWPT_PT_FIELD_EVENT },
	{ LWPT_PT_CFG_DISTNT,		LWPT_PT_CAP_TNT_DISABLE,	LWPT_PT_FIELD_DISTNT },
	{ LWPT_PT_CFG_INJECT_PSB_PMI,	LWPT_PT_CAP_PSB_PMI_PRESERVE,	LWPT_PT_FIELD_INJECT_PSB_PMI },
	{ LWPT_PT_CFG_CR3_FILTER,	LWPT_PT_CAP_CR3_FILTER,		LWPT_PT_FIELD_CR3_FILTER },
	{ LWPT_PT_CFG_PSBFREQ,		LWPT_PT_CAP_PSB_CYC,		LWPT_PT_FIELD_PSB_FREQ },
};

/* Canonical with 57-bit linear addresses at most (the module checks its own width). */
static bool canonical(uint64_t a)
{
	int64_t s = (int64_t)(a << 7) >> 7;

	return (uint64_t)s == a;
}

static int refuse(enum lwpt_pt_field *bad, enum lwpt_pt_field f, int err)
{
	if (bad)
		*bad = f;
	return err;
}

/*
 * The output scheme (SDM 33.2.7) and the buffer's size, as the module
 * decides them: ToPA (SDM 33.2.7.2), or single-range output (SDM 33.2.7.1)
 * when asked for or in wrap mode without ToPA; never a single range above
 * 4 KiB with errata TGL052/ADL037/RPL017 (ToPA instead, or refused
 * without it).
 * Return: 0, or a negative errno with the field in *@bad.
 */
static int check_output(const struct lpt_cap_config *c, const struct lwpt_pt_caps *caps,
			enum lwpt_pt_field *bad)
{
	bool single = c->flags & LWPT_PT_CFG_SINGLE_RANGE;
	bool big = (caps->caps & LWPT_PT_CAP_ERRATUM_SINGLE_4K) && c->buffer_size > LPT_PAGE;

	if (single && big) {
		if (!(caps->caps & LWPT_PT_CAP_TOPA))
			return refuse(bad, LWPT_PT_FIELD_BUFFER_SIZE, -EOPNOTSUPP);
		single = false;
	}
	if (!single && !(caps->caps & LWPT_PT_CAP_TOPA)) {
		if (!(caps->caps & LWPT_PT_CAP_SNGLRGNOUT) || big)
			return refuse(bad, LWPT_PT_FIELD_BUFFER_SIZE, -EOPNOTSUPP);
		if (c->mode != LWPT_PT_MODE_WRAP)	/* STOP and PMI are ToPA's */
			return refuse(bad, LWPT_PT_FIELD_MODE, -EOPNOTSUPP);
		single = true;
	}
	if (!single) {
		if (!c->buffer_size || c->buffer_size % LPT_PAGE ||
		    (caps->max_buffer_size && c->buffer_size > caps->max_buffer_size))
			return refuse(bad, LWPT_PT_FIELD_BUFFER_SIZE, -EINVAL);
		/* Without MENTRY the buffer is one output region (SDM 33.2.7.2). */
		if (!(caps->caps & LWPT_PT_CAP_MENTRY) &&
		    (!is_pow2(c->buffer_size) ||
		     (caps->max_region_size && c->buffer_size > caps->max_region_size)))
			return refuse(bad, LWPT_PT_FIELD_BUFFER_SIZE, -EINVAL);
		if (c->region_size &&
		    (!is_pow2(c->region_size) || c->region_size < LPT_PAGE ||
		     (caps->max_region_size && c->region_size > caps->max_region_size)))
			return refuse(bad, LWPT_PT_FIELD_REGION_SIZE, -EINVAL);
		return 0;
	}
	if (!(caps->caps & LWPT_PT_CAP_SNGLRGNOUT))
		return refuse(bad, LWPT_PT_FIELD_SINGLE_RANGE, -EOPNOTSUPP);
	/* No STOP, no PMI: the range wraps silently. */
	if (c->mode != LWPT_PT_MODE_WRAP)
		return refuse(bad, LWPT_PT_FIELD_MODE, -EINVAL);
	/* One naturally aligned block: a power of two, a page at least. */
	if (c->buffer_size < LPT_PAGE || !is_pow2(c->buffer_size) ||
	    (caps->max_region_size && c->buffer_size > caps->max_region_size))
		return refuse(bad, LWPT_PT_FIELD_BUFFER_SIZE, -EINVAL);
	if (c->region_size && c->region_size != c->buffer_size)
		return refuse(bad, LWPT_PT_FIELD_REGION_SIZE, -EINVAL);
	return 0;
}

/*
 * The CPU selection (lwpt_pt_config size version 2): per-CPU scope only,
 * both fields or neither, whole 64-bit words up to the module's cap, at
 * least one CPU and none it does not have.
 */
static int check_cpu_mask(const struct lpt_cap_config *c, const struct lwpt_pt_caps *caps,
			  enum lwpt_pt_field *bad)
{
	size_t w, words = c->cpu_mask_size / sizeof(uint64_t);
	bool any = false;

	if (!c->cpu_mask && !c->cpu_mask_size)
		return 0;
	if (!c->cpu_mask || !c->cpu_mask_size || c->cpu_mask_size % sizeof(uint64_t) ||
	    c->cpu_mask_size > LWPT_PT_CPU_MASK_MAX || c->scope != LWPT_PT_SCOPE_CPU)
		return refuse(bad, LWPT_PT_FIELD_CPU_MASK, -EINVAL);
	for (w = 0; w < words; w++) {
		uint64_t m = c->cpu_mask[w];

		if (!m)
			continue;
		any = true;
		/* The highest CPU of this word: 64 * w + 63 - clz. */
		if (64 * w + 63 - (size_t)__builtin_clzll(m) >= caps->nr_cpus)
			return refuse(bad, LWPT_PT_FIELD_CPU_MASK, -EINVAL);
	}
	return any ? 0 : refuse(bad, LWPT_PT_FIELD_CPU_MASK, -EINVAL);
}

int lpt_cap_config_check(const struct lpt_cap_config *cfg, const struct lwpt_pt_caps *caps,
			 enum lwpt_pt_field *bad)
{
	struct lpt_cap_config c;
	unsigned int i;
	int err;

	if (bad)
		*bad = LWPT_PT_FIELD_NONE;
	if (!cfg || !caps)
		return -EINVAL;
	if (cfg->size < LPT_CAP_CONFIG_SIZE_VER0)
		return refuse(bad, LWPT_PT_FIELD_SIZE, -EINVAL);
	memset(&c, 0, sizeof(c));
	memcpy(&c, cfg, cfg->size < sizeof(c) ? cfg->size : sizeof(c));

	if (c.flags & ~LWPT_PT_CFG_ALL)
		return refuse(bad, LWPT_PT_FIELD_FLAGS, -EINVAL);
	if (!(c.flags & (LWPT_PT_CFG_OS | LWPT_PT_CFG_USER)))
		return refuse(bad, LWPT_PT_FIELD_USER, -EINVAL);
	for (i = 0; i < sizeof(lpt_cfg_bits) / sizeof(lpt_cfg_bits[0]); i++)
		if ((c.flags & lpt_cfg_bits[i].flag) && lpt_cfg_bits[i].cap &&
		    !(caps->caps & lpt_cfg_bits[i].cap))
			return refuse(bad, lpt_cfg_bits[i].field, -EOPNOTSUPP);
	/* BDM106: BranchEn must stay set on first-generation PT. */
	if ((caps->caps & LWPT_PT_CAP_ERRATUM_BDM106) && !(c.flags & LWPT_PT_CFG_BRANCH))
		return refuse(bad, LWPT_PT_FIELD_BRANCH, -EINVAL);
	if (c.flags & LWPT_PT_CFG_MTC) {
		if (c.mtc_freq > 15 || !(caps->mtc_periods & (1u << c.mtc_freq)))
			return refuse(bad, LWPT_PT_FIELD_MTC_FREQ, -EINVAL);
	} else if (c.mtc_freq) {
		return refuse(bad, LWPT_PT_FIELD_MTC_FREQ, -EINVAL);
	}
	if (c.flags & LWPT_PT_CFG_CYC) {
		if (c.cyc_thresh > 15 || !(caps->cyc_thresholds & (1u << c.cyc_thresh)))
			return refuse(bad, LWPT_PT_FIELD_CYC_THRESH, -EINVAL);
	} else if (c.cyc_thresh) {
		return refuse(bad, LWPT_PT_FIELD_CYC_THRESH, -EINVAL);
	}
	if (c.flags & LWPT_PT_CFG_PSBFREQ) {
		if (c.psb_freq > 15 || !(caps->psb_periods & (1u << c.psb_freq)))
			return refuse(bad, LWPT_PT_FIELD_PSB_FREQ, -EINVAL);
	} else if (c.psb_freq) {
		return refuse(bad, LWPT_PT_FIELD_PSB_FREQ, -EINVAL);
	}
	if ((c.flags & LWPT_PT_CFG_FUPONPTW) && !(c.flags & LWPT_PT_CFG_PTW))
		return refuse(bad, LWPT_PT_FIELD_FUPONPTW, -EINVAL);
	if (c.mode > LWPT_PT_MODE_CONTINUOUS)
		return refuse(bad, LWPT_PT_FIELD_MODE, -EINVAL);
	if (c.scope > LWPT_PT_SCOPE_THREAD)
		return refuse(bad, LWPT_PT_FIELD_SCOPE, -EINVAL);
	if (c.pid < 0 ||
	    (!c.pid && ((c.flags & LWPT_PT_CFG_CR3_FILTER) || c.scope == LWPT_PT_SCOPE_THREAD)))
		return refuse(bad, LWPT_PT_FIELD_PID, -EINVAL);
	/* The threads are the filter; an exec would change the CR3 to match. */
	if ((c.flags & LWPT_PT_CFG_CR3_FILTER) && c.scope == LWPT_PT_SCOPE_THREAD)
		return refuse(bad, LWPT_PT_FIELD_CR3_FILTER, -EINVAL);
	err = check_output(&c, caps, bad);
	if (err)
		return err;
	err = check_cpu_mask(&c, caps, bad);
	if (err)
		return err;
	for (i = 0; i < LWPT_PT_ADDR_RANGES; i++) {
		const struct lwpt_pt_addr_range *r = &c.addr[i];
		enum lwpt_pt_field f = (enum lwpt_pt_field)(LWPT_PT_FIELD_ADDR0 + i);

		if (r->reserved || r->cfg > LWPT_PT_ADDR_STOP)
			return refuse(bad, f, -EINVAL);
		if (r->cfg == LWPT_PT_ADDR_UNUSED) {
			if (r->a || r->b)
				return refuse(bad, f, -EINVAL);
			continue;
		}
		if (i >= caps->nr_ranges)
			return refuse(bad, f, -EOPNOTSUPP);
		if (!canonical(r->a) || !canonical(r->b) || r->a > r->b)
			return refuse(bad, f, -EINVAL);
	}
	return 0;
}

static const char *const lpt_field_names[LWPT_PT_FIELD_NR] = {
	[LWPT_PT_FIELD_NONE]		= "none",
	[LWPT_PT_FIELD_SIZE]		= "size",
	[LWPT_PT_FIELD_FLAGS]		= "flags",
	[LWPT_PT_FIELD_OS]		= "OS",
	[LWPT_PT_FIELD_USER]		= "User",
	[LWPT_PT_FIELD_BRANCH]		= "BranchEn",
	[LWPT_PT_FIELD_MTC]		= "MTCEn",
	[LWPT_PT_FIELD_MTC_FREQ]	= "MTCFreq (mtc_freq)",
	[LWPT_PT_FIELD_CYC]		= "CYCEn",
	[LWPT_PT_FIELD_CYC_THRESH]	= "CycThresh (cyc_thresh)",
	[LWPT_PT_FIELD_PSB_FREQ]	= "PSBFreq (psb_freq)",
	[LWPT_PT_FIELD_PTW]		= "PTWEn",
	[LWPT_PT_FIELD_FUPONPTW]	= "FUPonPTW",
	[LWPT_PT_FIELD_PWREVT]		= "PwrEvtEn",
	[LWPT_PT_FIELD_EVENT]		= "EventEn",
	[LWPT_PT_FIELD_DISTNT]		= "DisTNT",
	[LWPT_PT_FIELD_INJECT_PSB_PMI]	= "InjectPsbPmiOnEnable",
	[LWPT_PT_FIELD_CR3_FILTER]	= "CR3Filter",
	[LWPT_PT_FIELD_PID]		= "pid",
	[LWPT_PT_FIELD_MODE]		= "mode",
	[LWPT_PT_FIELD_SCOPE]		= "scope",
	[LWPT_PT_FIELD_BUFFER_SIZE]	= "buffer_size",
	[LWPT_PT_FIELD_REGION_SIZE]	= "region_size",
	[LWPT_PT_FIELD_ADDR0]		= "ADDR0",
	[LWPT_PT_FIELD_ADDR1]		= "ADDR1",
	[LWPT_PT_FIELD_ADDR2]		= "ADDR2",
	[LWPT_PT_FIELD_ADDR3]		= "ADDR3",
	[LWPT_PT_FIELD_RESERVED]	= "reserved",
	[LWPT_PT_FIELD_SINGLE_RANGE]	= "single_range",
	[LWPT_PT_FIELD_CPU_MASK]	= "cpu_mask (CPU selection)",
};

const char *lpt_cap_field_name(enum lwpt_pt_field field)
{
	if ((unsigned int)field >= LWPT_PT_FIELD_NR || !lpt_field_names[field])
		return "?";
	return lpt_field_names[field];
}

/*
 * Status of buffer @index: by CPU in a per-CPU capture (size version 0
 * semantics, so older modules answer too), by buffer number per thread.
 */
static int raw_status(struct lpt_dev *dev, unsigned int index, struct lwpt_pt_status *st)
{
	memset(st, 0, sizeof(*st));
	st->size = sizeof(*st);
	if (dev->scope == LWPT_PT_SCOPE_THREAD) {
		st->query = LWPT_PT_STQ_BUFFER;
		st->buffer = index;
	} else {
		st->cpu = index;
	}
	return ioctl(dev->fd, LWPT_PT_IOC_GET_STATUS, st) ? neg_errno() : 0;
}

/* Map buffer @i if it exists now (a CPU offline at CONFIGURE has none). */
static int map_one(struct lpt_dev *dev, unsigned int i)
{
	struct lwpt_pt_status st;
	void *p;

	if (raw_status(dev, i, &st) || !(st.flags & LWPT_PT_ST_CONFIGURED) ||
	    !st.buffer_size)
		return 0;
	p = mmap(NULL, st.buffer_size, PROT_READ, MAP_SHARED, dev->fd, st.mmap_offset);
	if (p == MAP_FAILED)
		return neg_errno();
	memset(&dev->bufs[i], 0, sizeof(dev->bufs[i]));
	dev->bufs[i].map = p;
	dev->bufs[i].size = st.buffer_size;
	dev->bufs[i].serial = st.serial;
	return 0;
}

/*
 * Map buffers [dev->nr_bufs, n) that exist, growing dev->bufs; with
 * @joined (per thread) grown since the last call, also the numbers below
 * whose buffers were freed (lpt_dev_buffer_done()) and taken again.
 */
static int map_buffers(struct lpt_dev *dev, unsigned int n, uint64_t joined)
{
	struct lpt_buf *nb;
	unsigned int i;
	int err;

	if (joined != dev->joined) {
		for (i = 0; i < dev->nr_bufs; i++) {
			if (dev->bufs[i].map)
				continue;
			err = map_one(dev, i);
			if (err)
				return err;
		}
		dev->joined = joined;
	}
	if (n <= dev->nr_bufs)
		return 0;
	nb = realloc(dev->bufs, n * sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	memset(nb + dev->nr_bufs, 0, (n - dev->nr_bufs) * sizeof(*nb));
	dev->bufs = nb;
	for (i = dev->nr_bufs; i < n; i++) {
		err = map_one(dev, i);
		if (err) {
			dev->nr_bufs = i;
			return err;
		}
	}
	dev->nr_bufs = n;
	return 0;
}

int lpt_dev_configure(struct lpt_dev *dev, const struct lpt_cap_config *cfg,
		      enum lwpt_pt_field *bad)
{
	struct lwpt_pt_config k;
	struct lwpt_pt_status st;
	unsigned int n;
	int err;

	if (bad)
		*bad = LWPT_PT_FIELD_NONE;
	if (!dev || !cfg)
		return -EINVAL;
	if (dev->configured)
		return -EALREADY;
	err = lpt_cap_config_check(cfg, &dev->caps, bad);
	if (err)
		return err;
	/* A module before ABI 1.3 would refuse the bytes it does not know (E2BIG). */
	if (cfg->size >= LPT_CAP_CONFIG_SIZE_VER1 && cfg->cpu_mask &&
	    LWPT_ABI_VERSION_MINOR(dev->abi_version) < 3)
		return refuse(bad, LWPT_PT_FIELD_CPU_MASK, -EOPNOTSUPP);
	/* Nor one before ABI 1.5 a hold limit (it holds without one). */
	if (cfg->size >= LPT_CAP_CONFIG_SIZE_VER2 && cfg->hold_limit_ms &&
	    LWPT_ABI_VERSION_MINOR(dev->abi_version) < 5)
		return refuse(bad, LWPT_PT_FIELD_RESERVED, -EOPNOTSUPP);
	memset(&k, 0, sizeof(k));
	k.size = sizeof(k);
	k.flags = cfg->flags;
	k.mode = cfg->mode;
	k.scope = cfg->scope;
	k.mtc_freq = cfg->mtc_freq;
	k.cyc_thresh = cfg->cyc_thresh;
	k.psb_freq = cfg->psb_freq;
	k.pid = cfg->pid;
	k.buffer_size = cfg->buffer_size;
	k.region_size = cfg->region_size;
	memcpy(k.addr, cfg->addr, sizeof(k.addr));
	if (cfg->size >= LPT_CAP_CONFIG_SIZE_VER1 && cfg->cpu_mask) {
		k.cpu_mask = (uint64_t)(uintptr_t)cfg->cpu_mask;
		k.cpu_mask_size = (uint32_t)cfg->cpu_mask_size;
	}
	if (cfg->size >= LPT_CAP_CONFIG_SIZE_VER2)
		k.hold_limit_ms = cfg->hold_limit_ms;
	dev->rule = LWPT_PT_RULE_NONE;
	dev->holder = 0;
	if (ioctl(dev->fd, LWPT_PT_IOC_CONFIGURE, &k)) {
		err = neg_errno();
		if (bad)
			*bad = (enum lwpt_pt_field)k.bad_field;
		/* A module of size version 0 wrote back 152 bytes: rule stays 0. */
		dev->rule = k.size >= LWPT_PT_CONFIG_SIZE_VER1 ? k.rule : LWPT_PT_RULE_NONE;
		dev->holder = k.size >= LWPT_PT_CONFIG_SIZE_VER1 && err == -EBUSY ? k.holder : 0;
		return err;
	}
	dev->mode = cfg->mode;
	dev->scope = cfg->scope;
	dev->buffer_size = cfg->buffer_size;
	/* The module sets the flag when single-range output is its only scheme. */
	dev->single = k.flags & LWPT_PT_CFG_SINGLE_RANGE;
	dev->configured = true;
	n = dev->caps.nr_cpus;
	st.joined = 0;
	dev->joined = 0;
	if (dev->scope == LWPT_PT_SCOPE_THREAD) {
		err = raw_status(dev, 0, &st);
		n = err ? 0 : st.nr_buffers;
	}
	err = map_buffers(dev, n, st.joined);
	if (err) {
		unmap_all(dev);
		dev->configured = false;
	}
	return err;
}

int lpt_dev_nr_buffers(struct lpt_dev *dev)
{
	struct lwpt_pt_status st;
	int err;

	if (!dev)
		return -EINVAL;
	if (!dev->configured)
		return -ENODATA;
	if (dev->scope == LWPT_PT_SCOPE_THREAD) {
		err = raw_status(dev, 0, &st);
		if (err)
			return err;
		err = map_buffers(dev, st.nr_buffers, st.joined);
		if (err)
			return err;
	}
	return (int)dev->nr_bufs;
}

int lpt_dev_buffer_info(struct lpt_dev *dev, unsigned int buffer, struct lpt_buf_info *info)
{
	struct lwpt_pt_status st;
	struct lpt_buf_info i;
	int err;

	if (!dev || !info || info->size < sizeof(size_t))
		return -EINVAL;
	if (!dev->configured)
		return -ENODATA;
	if (buffer >= dev->nr_bufs)
		return -EINVAL;
	err = raw_status(dev, buffer, &st);
	if (err)
		return err;
	memset(&i, 0, sizeof(i));
	i.size = info->size < sizeof(i) ? info->size : sizeof(i);
	i.thread = st.flags & LWPT_PT_ST_THREAD;
	i.tid = st.tid;
	i.pid = st.pid;
	i.cpu = st.cpu;
	i.exited = st.flags & LWPT_PT_ST_EXITED;
	i.execed = st.flags & LWPT_PT_ST_EXECED;
	i.detached = st.flags & LWPT_PT_ST_DETACHED;
	i.offline = st.flags & LWPT_PT_ST_OFFLINE;
	i.threads_lost = st.threads_lost;
	/* Zero from a module of size version 1 (shorter answer). */
	i.stop_reason = st.stop_reason;
	i.ppid = st.ppid;
	/* Zero from a module before size version 5. */
	i.threads_refused = st.threads_refused;
	i.serial = st.serial;
	i.freed = st.flags & LWPT_PT_ST_FREED;
	memcpy(info, &i, i.size);
	return 0;
}

int lpt_dev_buffer_done(struct lpt_dev *dev, unsigned int buffer)
{
	struct lwpt_pt_release rel;
	struct lwpt_pt_status st;
	struct lpt_buf *b, saved;
	void *p;
	int err;

	if (!dev)
		return -EINVAL;
	if (!dev->configured)
		return -ENODATA;
	if (dev->scope != LWPT_PT_SCOPE_THREAD || !lpt_dev_has_buffer(dev, buffer))
		return -EINVAL;
	if (LWPT_ABI_VERSION_MINOR(dev->abi_version) < 5)
		return -EOPNOTSUPP;
	b = &dev->bufs[buffer];
	err = raw_status(dev, buffer, &st);
	if (err)
		return err;
	/* Still written into: exited, detached or preempted ends that. */
	if (!(st.flags & (LWPT_PT_ST_EXITED | LWPT_PT_ST_DETACHED)) &&
	    st.stop_reason == LWPT_PT_STOP_NONE)
		return -EBUSY;
	if (st.head != b->tail)
		return -EAGAIN;
	/* The module frees no buffer that is mapped (pt.rst). */
	saved = *b;
	munmap((void *)b->map, b->size);
	memset(b, 0, sizeof(*b));
	memset(&rel, 0, sizeof(rel));
	rel.size = sizeof(rel);
	rel.tail = st.head;
	rel.buffer = buffer;
	rel.query = LWPT_PT_STQ_BUFFER | LWPT_PT_REL_DONE;
	if (!ioctl(dev->fd, LWPT_PT_IOC_RELEASE, &rel))
		return 0;
	err = neg_errno();
	/* Refused (another mapping of it, say): the buffer stays as it was. */
	p = mmap(NULL, saved.size, PROT_READ, MAP_SHARED, dev->fd, st.mmap_offset);
	if (p != MAP_FAILED) {
		*b = saved;
		b->map = p;
	}
	return err;
}

int lpt_dev_start(struct lpt_dev *dev)
{
	unsigned int i;

	if (!dev->configured)
		return -ENODATA;
	if (ioctl(dev->fd, LWPT_PT_IOC_START))
		return neg_errno();
	/* START clears the buffers and their byte counts (Documentation/pt.rst). */
	for (i = 0; i < dev->nr_bufs; i++) {
		dev->bufs[i].tail = 0;
		dev->bufs[i].gap_seen = 0;
		dev->bufs[i].gaps_seen = 0;
		dev->bufs[i].ngap = 0;
	}
	return 0;
}

int lpt_dev_stop(struct lpt_dev *dev)
{
	if (!dev->configured)
		return -ENODATA;
	return ioctl(dev->fd, LWPT_PT_IOC_STOP) ? neg_errno() : 0;
}

bool lpt_dev_has_buffer(const struct lpt_dev *dev, unsigned int cpu)
{
	return dev->configured && cpu < dev->nr_bufs && dev->bufs[cpu].map;
}

int lpt_dev_status(struct lpt_dev *dev, unsigned int cpu, struct lpt_cap_status *out)
{
	struct lwpt_pt_status st;
	uint64_t s;
	int err;

	if (!dev || !out)
		return -EINVAL;
	if (!dev->configured)
		return -ENODATA;
	if (dev->scope == LWPT_PT_SCOPE_THREAD ? cpu >= dev->nr_bufs : cpu >= dev->caps.nr_cpus)
		return -EINVAL;
	err = raw_status(dev, cpu, &st);
	if (err)
		return err;
	memset(out, 0, sizeof(*out));
	s = st.rtit_status;
	out->rtit_status = s;
	out->rtit_ctl = st.rtit_ctl;
	out->filter_en = s & IA32_RTIT_STATUS_FILTEREN;
	out->context_en = s & IA32_RTIT_STATUS_CONTEXTEN;
	out->trigger_en = s & IA32_RTIT_STATUS_TRIGGEREN;
	out->error = s & IA32_RTIT_STATUS_ERROR;
	out->stopped = s & IA32_RTIT_STATUS_STOPPED;
	out->packet_byte_cnt = (uint32_t)((s & IA32_RTIT_STATUS_PACKETBYTECNT_MASK) >>
					  IA32_RTIT_STATUS_PACKETBYTECNT_SHIFT);
	out->bytes = st.head;
	out->offset = st.offset;
	out->buffer_size = st.buffer_size;
	out->wrapped = st.flags & LWPT_PT_ST_WRAPPED;
	out->wraps = st.wraps;
	out->lost = st.lost;
	out->tracing = st.flags & LWPT_PT_ST_TRACING;
	out->stalled = st.flags & LWPT_PT_ST_STALLED;
	out->interfered = st.flags & LWPT_PT_ST_INTERFERED;
	out->pmis = st.pmis;
	out->gap_head = st.gap_head;
	out->gaps = st.gaps;
	memcpy(out->gap_heads, st.gap_heads, sizeof(out->gap_heads));
	out->holds = st.holds;
	out->held_ns = st.held_ns;
	/* Zero from a module before size version 5. */
	out->pad_bytes = st.pad_bytes;
	out->pad_from = st.pad_from;
	out->pad_to = st.pad_to;
	out->lost_bytes = st.lost_bytes;
	out->hold_timeouts = st.hold_timeouts;
	return 0;
}

int64_t lpt_ring_copy(const uint8_t *map, uint64_t size, uint64_t tail, uint64_t head,
		      lpt_sink_fn sink, void *arg)
{
	uint64_t pos = tail;
	int64_t done = 0;
	int err;

	if (!size)
		return -EINVAL;
	if (head < pos)		/* a new start: the count began again */
		pos = 0;
	/* Only the newest @size bytes exist (SDM 33.2.7.2: the ToPA wraps). */
	if (head - pos > size)
		pos = head - size;
	while (pos < head) {
		uint64_t off = pos % size;
		uint64_t n = size - off;

		if (n > head - pos)
			n = head - pos;
		err = sink(arg, map + off, n);
		if (err < 0)
			return err;
		pos += n;
		done += (int64_t)n;
	}
	return done;
}

int64_t lpt_range_copy(const uint8_t *map, uint64_t size, uint64_t offset,
		       lpt_sink_fn sink, void *arg)
{
	uint64_t seg[2][2] = { { offset, size }, { 0, offset } };
	bool lead = true;
	int64_t done = 0;
	unsigned int i;
	int err;

	if (!size || offset >= size)
		return -EINVAL;
	for (i = 0; i < 2; i++) {
		uint64_t from = seg[i][0], to = seg[i][1];

		/* Never written, or PAD packets (00H): nothing for a decoder. */
		while (lead && from < to && !map[from])
			from++;
		if (from == to)
			continue;
		lead = false;
		err = sink(arg, map + from, to - from);
		if (err < 0)
			return err;
		done += (int64_t)(to - from);
	}
	return done;
}

bool lpt_dev_single_range(const struct lpt_dev *dev)
{
	return dev && dev->configured && dev->single;
}

/*
 * The cuts in the packet stream a read delivered (struct lwpt_pt_status
 * gaps and gap_heads; gap_head alone from a module before ABI 1.4): where
 * each falls in what was just delivered, which began at @from; a cut in
 * bytes no longer there is at the start.
 */
static void gaps_note(const struct lpt_dev *dev, struct lpt_buf *b,
		      const struct lpt_cap_status *st, uint64_t from)
{
	uint64_t n, head, at;

	b->ngap = 0;
	if (dev->single)
		return;
	if (!st->gaps) {
		if (!st->gap_head || st->gap_head == b->gap_seen)
			return;
		b->gap_seen = st->gap_head;
		b->gap_at[b->ngap++] = st->gap_head > from ? st->gap_head - from : 0;
		return;
	}
	n = st->gaps > b->gaps_seen + LWPT_PT_GAP_HEADS ? st->gaps - LWPT_PT_GAP_HEADS :
							  b->gaps_seen;
	for (; n < st->gaps; n++) {
		head = st->gap_heads[n % LWPT_PT_GAP_HEADS];
		at = head > from ? head - from : 0;
		if (!b->ngap || b->gap_at[b->ngap - 1] != at)
			b->gap_at[b->ngap++] = at;
	}
	b->gaps_seen = st->gaps;
	b->gap_seen = st->gap_head;
}

/*
 * [@b->tail, head) of a ring buffer without the PAD run the module wrote
 * and released itself (@st->pad_from, @st->pad_to): those bytes are PADs,
 * and by now maybe the next lap's.
 */
static int64_t ring_read(const struct lpt_buf *b, const struct lpt_cap_status *st,
			 lpt_sink_fn sink, void *arg)
{
	uint64_t pos = b->tail, head = st->bytes, from, to;
	int64_t n, done = 0;

	if (head < pos)		/* a new start: the count began again */
		pos = 0;
	if (st->pad_to > st->pad_from && st->pad_to > pos && st->pad_from < head) {
		from = st->pad_from > pos ? st->pad_from : pos;
		to = st->pad_to < head ? st->pad_to : head;
		if (from > pos) {
			n = lpt_ring_copy(b->map, b->size, pos, from, sink, arg);
			if (n < 0)
				return n;
			done += n;
		}
		pos = to;
	}
	n = lpt_ring_copy(b->map, b->size, pos, head, sink, arg);
	return n < 0 ? n : done + n;
}

int64_t lpt_dev_read(struct lpt_dev *dev, unsigned int cpu, lpt_sink_fn sink, void *arg)
{
	struct lpt_cap_status st;
	struct lpt_buf *b;
	int64_t done;
	int err;

	if (!dev || !sink || !lpt_dev_has_buffer(dev, cpu))
		return -EINVAL;
	b = &dev->bufs[cpu];
	err = lpt_dev_status(dev, cpu, &st);
	if (err)
		return err;
	/*
	 * A single range wraps without telling (SDM 33.2.7.1): the byte count
	 * is a lower bound, the offset exact. Its whole content is delivered,
	 * from the offset on, whenever something was written since last time.
	 */
	if (dev->single)
		done = st.bytes == b->tail ? 0 :
		       lpt_range_copy(b->map, b->size, st.offset, sink, arg);
	else
		done = ring_read(b, &st, sink, arg);
	if (done < 0)
		return done;
	/* Skipped PADs come before what follows them: the offsets hold. */
	gaps_note(dev, b, &st, st.bytes - (uint64_t)done);
	b->tail = st.bytes;
	if (dev->mode == LWPT_PT_MODE_CONTINUOUS) {
		struct lwpt_pt_release rel = {
			.size = sizeof(rel), .cpu = cpu, .tail = st.bytes,
		};

		/* Per thread by buffer number (size version 1); per CPU as v0. */
		if (dev->scope == LWPT_PT_SCOPE_THREAD) {
			rel.cpu = 0;
			rel.buffer = cpu;
			rel.query = LWPT_PT_STQ_BUFFER;
		} else {
			rel.size = LWPT_PT_RELEASE_SIZE_VER0;
		}
		if (ioctl(dev->fd, LWPT_PT_IOC_RELEASE, &rel))
			return neg_errno();
	}
	return done;
}

bool lpt_dev_read_gap(const struct lpt_dev *dev, unsigned int cpu, uint64_t *at)
{
	if (!dev || !at || !lpt_dev_has_buffer(dev, cpu) || !dev->bufs[cpu].ngap)
		return false;
	*at = dev->bufs[cpu].gap_at[dev->bufs[cpu].ngap - 1];
	return true;
}

unsigned int lpt_dev_read_gaps(const struct lpt_dev *dev, unsigned int cpu, uint64_t *at,
			       unsigned int max)
{
	unsigned int i;

	if (!dev || !at || !lpt_dev_has_buffer(dev, cpu))
		return 0;
	for (i = 0; i < dev->bufs[cpu].ngap && i < max; i++)
		at[i] = dev->bufs[cpu].gap_at[i];
	return i;
}

int lpt_dev_read_switches(struct lpt_dev *dev, unsigned int cpu, struct lwpt_pt_switch *recs,
			  unsigned int max, uint64_t *lost, uint32_t *pending)
{
	struct lwpt_pt_sideband sb;

	if (!dev || (max && !recs))
		return -EINVAL;
	if (!dev->configured)
		return -ENODATA;
	if (dev->scope != LWPT_PT_SCOPE_CPU)
		return -EOPNOTSUPP;
	if (!lpt_dev_has_buffer(dev, cpu))
		return -EINVAL;
	if (max > INT32_MAX)
		max = INT32_MAX;
	memset(&sb, 0, sizeof(sb));
	sb.size = sizeof(sb);
	sb.cpu = cpu;
	sb.records = (uint64_t)(uintptr_t)recs;
	sb.capacity = max;
	sb.record_size = sizeof(*recs);
	if (ioctl(dev->fd, LWPT_PT_IOC_READ_SIDEBAND, &sb))
		/* A module older than the sideband does not know the command. */
		return errno == ENOTTY ? -EOPNOTSUPP : neg_errno();
	if (sb.copied > max || sb.record_size < LWPT_PT_SWITCH_SIZE_VER0)
		return -EPROTO;
	if (lost)
		*lost = sb.lost;
	if (pending)
		*pending = sb.pending;
	return (int)sb.copied;
}

/* Append @s to @buf at *@pos if it fits; false (nothing written) if not. */
static bool put_str(char *buf, size_t size, size_t *pos, const char *s)
{
	size_t n = strlen(s);

	if (*pos + n >= size)
		return false;
	memcpy(buf + *pos, s, n + 1);
	*pos += n;
	return true;
}

int lpt_switch_format(char *buf, size_t size, const struct lwpt_pt_switch *sw)
{
	static const struct {
		uint32_t flag;
		const char *word;
	} words[] = {
		{ LWPT_PT_SW_PREV_IDLE, " prev-idle" },
		{ LWPT_PT_SW_PREV_KTHREAD, " prev-kthread" },
		{ LWPT_PT_SW_NEXT_IDLE, " next-idle" },
		{ LWPT_PT_SW_NEXT_KTHREAD, " next-kthread" },
		{ LWPT_PT_SW_PREEMPT, " preempt" },
	};
	uint32_t rest;
	char tmp[32];
	size_t pos;
	unsigned int i;
	int n;

	if (!buf || !sw)
		return -EINVAL;
	if (!size)
		return -ENOSPC;
	n = snprintf(buf, size, "%llu %u %d/%d %d/%d", (unsigned long long)sw->tsc, sw->cpu,
		     sw->prev_pid, sw->prev_tid, sw->next_pid, sw->next_tid);
	if (n < 0 || (size_t)n >= size)
		goto nospc;
	pos = (size_t)n;
	rest = sw->flags;
	for (i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (!(rest & words[i].flag))
			continue;
		rest &= ~words[i].flag;
		if (!put_str(buf, size, &pos, words[i].word))
			goto nospc;
	}
	if (rest) {
		snprintf(tmp, sizeof(tmp), " flags=0x%x", rest);
		if (!put_str(buf, size, &pos, tmp))
			goto nospc;
	}
	if (!put_str(buf, size, &pos, "\n"))
		goto nospc;
	return (int)pos;

nospc:
	buf[0] = 0;
	return -ENOSPC;
}

uint32_t lpt_dev_refused_rule(const struct lpt_dev *dev)
{
	return dev ? dev->rule : LWPT_PT_RULE_NONE;
}

const char *lpt_dev_rule_str(uint32_t rule)
{
	switch (rule) {
	case LWPT_PT_RULE_NONE:
		return NULL;
	case LWPT_PT_RULE_CAPABILITY:
		return "refused by the capability rule: kernel (OS) tracing and system-wide capture need CAP_PERFMON or CAP_SYS_ADMIN";
	case LWPT_PT_RULE_PARANOID:
		return "refused by the paranoid rule: the module parameter pt_paranoid is above 2 (as kernel.perf_event_paranoid 3), so every capture needs CAP_PERFMON; an administrator may lower it (Documentation/pt.rst)";
	case LWPT_PT_RULE_PTRACE:
		return "refused by the ptrace rule: the target process belongs to another user, runs a set-user-ID/set-group-ID program or is not dumpable (CAP_SYS_PTRACE or CAP_PERFMON would allow it)";
	case LWPT_PT_RULE_MEMLOCK:
		return "refused by the memory rule: the buffers exceed pt_mlock_kb plus RLIMIT_MEMLOCK for this user (use smaller buffers, raise ulimit -l, or CAP_IPC_LOCK)";
	default:
		return "refused by a rule this libpt does not know";
	}
}

int32_t lpt_dev_busy_holder(const struct lpt_dev *dev)
{
	return dev ? dev->holder : 0;
}

const char *lpt_dev_refusal(const struct lpt_dev *dev)
{
	return lpt_dev_rule_str(lpt_dev_refused_rule(dev));
}

const char *lpt_dev_stop_reason_str(uint32_t reason)
{
	switch (reason) {
	case LWPT_PT_STOP_NONE:
		return NULL;
	case LWPT_PT_STOP_EXIT:
		return "exited";
	case LWPT_PT_STOP_EXEC_CREDS:
		return "exec-credentials";
	case LWPT_PT_STOP_EXEC_DUMPABLE:
		return "exec-not-dumpable";
	case LWPT_PT_STOP_ERROR:
		return "error";
	case LWPT_PT_STOP_PREEMPTED:
		return "preempted";
	default:
		return "unknown";
	}
}

const char *lpt_dev_strerror(int err)
{
	switch (err) {
	case -ENOENT:
	case -ENODEV:
	case -ENXIO:
		return "no /dev/pt: load lwpt.ko (or lwpt_sim.ko)";
	/* A refused configure names its rule: lpt_dev_refusal(). */
	case -EACCES:
		return "permission denied: the device node's permission does not let you open it (root only unless an administrator gave a group access, Documentation/pt.rst), or a rule refused the capture";
	case -EPERM:
		return "not allowed: kernel or system-wide tracing needs CAP_PERFMON or CAP_SYS_ADMIN; other users' and set-user-ID processes cannot be traced";
	case -ENOTTY:
		return "not an lwpt PT device";
	case -EPROTO:
		return "the module's ABI major version differs from this libpt's: rebuild the tools or the module";
	case -EOPNOTSUPP:
		return "not supported by this processor or module";
	case -EBUSY:
		return "busy: another capture is configured, TraceEn is already set by someone else (perf intel_pt, firmware, a hypervisor), or IA32_DEBUGCTL.LBR is set on a processor where PT and LBRs are exclusive (perf record -b, a debugger; the kernel log names the CPU)";
	case -ENODATA:
		return "no capture configured";
	case -ESRCH:
		return "no such process";
	case -EALREADY:
		return "a capture is already configured on this file";
	default:
		return strerror(-err);
	}
}
