/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * libpt capture API: Intel Processor Trace (SDM Vol. 3C chapter 33) through
 * lwpt's /dev/pt (include/uapi/lwpt/pt.h, Documentation/pt.rst). This is the
 * one header to include: it also brings the packet decoder (pt_pkt.h).
 *
 *	struct lpt_dev *dev;
 *	struct lpt_cap_config cfg;
 *	enum lwpt_pt_field bad;
 *	int err = lpt_dev_open(NULL, &dev);		// -ENOENT: no module
 *	lpt_cap_config_init(&cfg, lpt_dev_caps(dev));	// User, BranchEn, TSCEn
 *	err = lpt_dev_configure(dev, &cfg, &bad);	// lpt_cap_field_name(bad)
 *	err = lpt_dev_start(dev);
 *	...
 *	err = lpt_dev_stop(dev);
 *	n = lpt_dev_nr_buffers(dev);		// per CPU: nr_cpus; per thread: threads
 *	for (b = 0; b < n; b++)
 *		if (lpt_dev_has_buffer(dev, b))
 *			err = lpt_dev_read(dev, b, sink, file);	// oldest first
 *	// per CPU, while tracing and after: context switches with their TSC
 *	n = lpt_dev_read_switches(dev, cpu, recs, 256, &lost, &pending);
 *	lpt_dev_close(dev);
 *
 * Errors: every function returning int returns 0 (or a non-negative count)
 * on success and a negative errno on failure; lpt_dev_strerror() turns one
 * into a message that says what to do (e.g. load the module). errno itself
 * is not relied upon. See Documentation/libpt.rst.
 */
#ifndef LWPT_PT_H
#define LWPT_PT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uapi/lwpt/pt.h>
#include <lwpt/pt_pkt.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Default device node. */
#define LPT_DEV_PATH		"/dev/pt"

/** struct lpt_dev - an open /dev/pt with its configuration and mappings (opaque). */
struct lpt_dev;

/**
 * struct lpt_cap_config - what to trace (SDM 33.2.8.2 IA32_RTIT_CTL, 33.2.7
 * output). Size-versioned: set @size to sizeof(struct lpt_cap_config) with
 * lpt_cap_config_init(); fields may be appended in later versions, and a
 * smaller @size from an older caller means "the later fields are zero".
 * @size:	bytes of this struct the caller knows (>= LPT_CAP_CONFIG_SIZE_VER0)
 * @flags:	LWPT_PT_CFG_* bits (IA32_RTIT_CTL enables, one to one), and
 *		LWPT_PT_CFG_SINGLE_RANGE: single-range output (SDM 33.2.7.1,
 *		IA32_RTIT_CTL.ToPA=0) instead of ToPA; wrap mode only
 * @mode:	LWPT_PT_MODE_WRAP, _STOP or _CONTINUOUS (Documentation/pt.rst)
 * @scope:	LWPT_PT_SCOPE_CPU (all online CPUs) or LWPT_PT_SCOPE_THREAD
 * @mtc_freq:	MTCFreq encoding 0..15 (with LWPT_PT_CFG_MTC): an MTC every
 *		2^@mtc_freq ART ticks (SDM 33.3.6)
 * @cyc_thresh:	CycThresh encoding 0..15 (with LWPT_PT_CFG_CYC), SDM 33.3.6
 * @psb_freq:	PSBFreq encoding 0..15 (with LWPT_PT_CFG_PSBFREQ): a PSB
 *		every 2K << @psb_freq bytes of output (SDM 33.3.7)
 * @pid:	target process (LWPT_PT_CFG_CR3_FILTER, LWPT_PT_SCOPE_THREAD);
 *		0 otherwise
 * @buffer_size: bytes of trace buffer per CPU or per thread; multiple of 4096;
 *		a power of two without MENTRY (14H.0:ECX[1]); with single-range
 *		output a power of two from 4096 to caps->max_region_size
 * @region_size: largest ToPA output region in bytes (power of two >= 4096),
 *		0 = the module's choice (SDM 33.2.7.2); with single-range
 *		output 0 or @buffer_size
 * @addr:	ADDRn_A/B ranges (SDM 33.2.5.2) with LWPT_PT_ADDR_FILTER or
 *		LWPT_PT_ADDR_STOP; entries at or above caps.nr_ranges unused
 *
 * Version 1 (LPT_CAP_CONFIG_SIZE_VER1) appends the CPU selection of a
 * per-CPU capture (lwpt_pt_config size version 2, ABI 1.3):
 * @cpu_mask:	bitmap of the CPUs to trace (bit n of word n / 64 is CPU n,
 *		as lpt_cpu_list_parse() fills it), NULL for every online CPU
 * @cpu_mask_size: bytes at @cpu_mask (a multiple of 8, at most
 *		LWPT_PT_CPU_MASK_MAX); 0 with NULL
 *
 * Version 2 (LPT_CAP_CONFIG_SIZE_VER2) appends (lwpt_pt_config size
 * version 3, ABI 1.5):
 * @hold_limit_ms: per-thread continuous mode: the longest a thread is held
 *		for its reader at a time (Documentation/pt.rst, "Continuous
 *		mode: the hold"); 0 = the module's default
 *		(LWPT_PT_HOLD_LIMIT_DEFAULT_MS), LWPT_PT_HOLD_LIMIT_NONE = no
 *		limit. A module before ABI 1.5 has no limit: any other value
 *		is refused there (-EOPNOTSUPP, LWPT_PT_FIELD_RESERVED).
 */
struct lpt_cap_config {
	size_t size;
	uint32_t flags;
	uint32_t mode;
	uint32_t scope;
	uint32_t mtc_freq;
	uint32_t cyc_thresh;
	uint32_t psb_freq;
	int32_t pid;
	uint64_t buffer_size;
	uint64_t region_size;
	struct lwpt_pt_addr_range addr[LWPT_PT_ADDR_RANGES];
	const uint64_t *cpu_mask;
	size_t cpu_mask_size;
	uint32_t hold_limit_ms;
};

/* Size of the first version of struct lpt_cap_config (x86-64). */
#define LPT_CAP_CONFIG_SIZE_VER0	(offsetof(struct lpt_cap_config, addr) + \
					 LWPT_PT_ADDR_RANGES * sizeof(struct lwpt_pt_addr_range))
/* Size of version 1 (cpu_mask, cpu_mask_size). */
#define LPT_CAP_CONFIG_SIZE_VER1	(offsetof(struct lpt_cap_config, cpu_mask_size) + \
					 sizeof(size_t))
/* Size of version 2 (hold_limit_ms). */
#define LPT_CAP_CONFIG_SIZE_VER2	(offsetof(struct lpt_cap_config, hold_limit_ms) + \
					 sizeof(uint32_t))

/* Default per-CPU buffer, bytes (clamped to what the device allows). */
#define LPT_CAP_DEFAULT_BUFFER	(4ull << 20)
/* Smallest buffer, bytes: one page, the smallest ToPA region (SDM 33.2.7.2). */
#define LPT_CAP_MIN_BUFFER	4096ull

/**
 * struct lpt_cap_status - one CPU's capture state (Documentation/pt.rst).
 * @rtit_status: IA32_RTIT_STATUS as the module last read it (SDM 33.2.8.4)
 * @rtit_ctl:	IA32_RTIT_CTL as programmed (SDM 33.2.8.2)
 * @filter_en, @context_en, @trigger_en, @error, @stopped: its bits
 *		FilterEn, ContextEn, TriggerEn, Error (operational error,
 *		SDM 33.3.10), Stopped (ToPA STOP or TraceStop reached)
 * @packet_byte_cnt: STATUS.PacketByteCnt (bytes since the last PSB)
 * @bytes:	bytes the processor wrote since start (64-bit total); with
 *		single-range output (lpt_dev_single_range()) a lower bound: the
 *		range wraps without a PMI, laps between two reads are not seen
 * @offset:	where the next byte goes in the buffer, bytes
 * @buffer_size: bytes of the buffer
 * @wrapped:	older data was overwritten (wrap mode) or lost; with
 *		single-range output only a wrap the module saw
 * @wraps:	times the buffer wrapped (single range: at least)
 * @lost:	times trace data was lost (continuous-mode stall or overrun,
 *		operational error, CPU offline); not @stopped, which stop mode
 *		and TraceStop ranges cause as asked
 * @tracing:	TraceEn is set as last programmed
 * @stalled:	continuous mode: waiting for the reader (lpt_dev_read)
 * @pmis:	ToPA PMIs handled on this CPU (SDM 33.2.7.2)
 * @interfered:	someone else cleared TraceEn or moved the output pointers
 *		(another tracer, a VMM, VMXON; SDM 33.2.9): counted in @lost
 * @gap_head:	@bytes where a loss last cut the packet stream (struct
 *		lwpt_pt_status.gap_head); 0 none or an older module
 * @gaps:	cuts since start (0 from a module before ABI 1.4)
 * @gap_heads:	@bytes of cut n in [n % LWPT_PT_GAP_HEADS], the last
 *		LWPT_PT_GAP_HEADS cuts (struct lwpt_pt_status.gap_heads)
 * @holds:	per-thread continuous mode: times the thread was held in
 *		the kernel for its reader (Documentation/pt.rst, "Continuous
 *		mode: the hold"); 0 per CPU, with LWPT_PT_CFG_LOSSY and from
 *		a module before ABI 1.4
 * @held_ns:	nanoseconds it spent held
 * @pad_bytes:	bytes of @bytes that are PADs the module wrote (one output
 *		region, per-thread continuous mode: the rest of a lap skipped);
 *		lpt_dev_read() skips them unread. 0 from a module before ABI 1.5
 * @pad_from:	@bytes where the last such PAD run begins
 * @pad_to:	@bytes where it ends
 * @lost_bytes:	bytes of @bytes the reader can no longer get (continuous
 *		mode overrun). A reader that keeps up saves @bytes - @pad_bytes
 *		- @lost_bytes bytes
 * @hold_timeouts: holds that reached the capture's hold limit: the thread
 *		ran on and its buffer stalled, each stall counted in @lost
 *		(0 from a module before ABI 1.5)
 */
struct lpt_cap_status {
	uint64_t rtit_status;
	uint64_t rtit_ctl;
	bool filter_en, context_en, trigger_en, error, stopped;
	uint32_t packet_byte_cnt;
	uint64_t bytes;
	uint64_t offset;
	uint64_t buffer_size;
	bool wrapped;
	uint64_t wraps;
	uint64_t lost;
	bool tracing;
	bool stalled;
	uint64_t pmis;
	bool interfered;
	uint64_t gap_head;
	uint64_t gaps;
	uint64_t gap_heads[LWPT_PT_GAP_HEADS];
	uint64_t holds;
	uint64_t held_ns;
	uint64_t pad_bytes;
	uint64_t pad_from;
	uint64_t pad_to;
	uint64_t lost_bytes;
	uint64_t hold_timeouts;
};

/**
 * lpt_dev_open() - open the PT device and read its ABI version and caps.
 * @path:	device node, NULL for LPT_DEV_PATH
 * @devp:	out: the new device object (free with lpt_dev_close())
 *
 * Checks LWPT_IOC_GET_ABI_VERSION (major LWPT_ABI_MAJOR) and reads
 * LWPT_PT_IOC_GET_CAPS once: CPUID leaf 14H (SDM 33.3.1, Tables 33-11/12)
 * is decoded by the module, never again here.
 * Return: 0; -ENOENT/-ENODEV no device (module not loaded); -EACCES open
 * refused; -ENOTTY not an lwpt PT device; -EPROTO ABI major differs;
 * -EOPNOTSUPP the module reports no PT (GET_CAPS refused); -EINVAL @devp
 * NULL; -ENOMEM.
 */
int lpt_dev_open(const char *path, struct lpt_dev **devp);

/**
 * lpt_dev_close() - unmap, stop (closing the file stops a capture) and free.
 * @dev:	device from lpt_dev_open(), or NULL (no-op)
 */
void lpt_dev_close(struct lpt_dev *dev);

/**
 * lpt_dev_caps() - the capabilities the module reported (never NULL).
 * @dev:	open device
 */
const struct lwpt_pt_caps *lpt_dev_caps(const struct lpt_dev *dev);

/**
 * lpt_dev_abi() - ABI version and LWPT_ABI_F_* flags of the module.
 * @dev:	open device
 * @version:	out (may be NULL): LWPT_ABI_VERSION of the module
 * @flags:	out (may be NULL): e.g. LWPT_ABI_F_SIM on lwpt_sim.ko
 */
void lpt_dev_abi(const struct lpt_dev *dev, uint32_t *version, uint32_t *flags);

/**
 * lpt_dev_nr_cpus() - possible CPUs: CPU numbers below it may have a buffer.
 * @dev:	open device
 */
unsigned int lpt_dev_nr_cpus(const struct lpt_dev *dev);

/**
 * lpt_cap_config_init() - fill @cfg with defaults for @caps; a macro:
 * lpt_cap_config_init_size(@cfg, sizeof(*@cfg), @caps), so that a program
 * built against an older, smaller struct lpt_cap_config gets only its own
 * bytes written (a later libpt appends fields) and @cfg->size says which.
 * @cfg:	configuration to fill (all of the caller's struct is written)
 * @size:	(lpt_cap_config_init_size()) bytes of @cfg, at least
 *		LPT_CAP_CONFIG_SIZE_VER0; more than this libpt knows: its size
 * @caps:	capabilities (lpt_dev_caps()), or NULL for "unknown device"
 *
 * Defaults: User only (CPL > 0), BranchEn, TSCEn (always available with PT,
 * SDM 33.2.8.2), wrap mode, per-CPU scope, LPT_CAP_DEFAULT_BUFFER bytes
 * per CPU clamped to caps->max_buffer_size (and to a power of two no larger
 * than max_region_size without MENTRY), no filters. On a processor with
 * single-range output but no ToPA (14H.0:ECX[2] without ECX[0]) also
 * LWPT_PT_CFG_SINGLE_RANGE, its only output scheme.
 */
void lpt_cap_config_init_size(struct lpt_cap_config *cfg, size_t size,
			      const struct lwpt_pt_caps *caps);
#define lpt_cap_config_init(cfg, caps) \
	lpt_cap_config_init_size((cfg), sizeof(*(cfg)), (caps))
/* The function behind the name for binaries built before the macro: fills
 * LPT_CAP_CONFIG_SIZE_VER0 bytes (the parentheses keep the macro out). */
void (lpt_cap_config_init)(struct lpt_cap_config *cfg,
			   const struct lwpt_pt_caps *caps);

/**
 * lpt_dev_mlock_avail() - what the calling process may still pin in trace
 * buffers, asked now (LWPT_PT_IOC_GET_CAPS size version 1, caps.mlock_avail;
 * Documentation/pt.rst "Memory").
 * @dev:	open device
 * @bytes:	out: bytes; LWPT_PT_MLOCK_UNLIMITED if no limit applies
 * Return: 0; -EOPNOTSUPP the module predates caps.mlock_avail (@bytes is
 * then LWPT_PT_MLOCK_UNLIMITED: the module will say at configure); other
 * negative errno from the ioctl.
 */
int lpt_dev_mlock_avail(struct lpt_dev *dev, uint64_t *bytes);

/**
 * lpt_dev_timing_leaves() - CPUID leaves 15H and 16H of the processor the
 * module traces on (caps size version 2, ABI 1.3): natively the boot CPU's,
 * on lwpt_sim.ko the model's. Decoders convert MTC and CYC with them (SDM
 * 33.8.3); a tool records these rather than its own CPUID, which on the
 * model is the host's.
 * @dev:	open device
 * @leaf15:	out: CPUID.15H EAX (TSC:ART denominator), EBX (numerator),
 *		ECX (ART frequency in Hz); zeros where not enumerated
 * @leaf16_eax:	out (may be NULL): CPUID.16H:EAX[15:0], base frequency in
 *		MHz; 0 where not enumerated
 * Return: 0; -EOPNOTSUPP the module predates caps size version 2 (the
 * outputs are then 0: use the CPUID of the machine).
 */
int lpt_dev_timing_leaves(const struct lpt_dev *dev, uint32_t leaf15[3],
			  uint32_t *leaf16_eax);

/**
 * lpt_cpu_list_parse() - parse a CPU list as perf record -C takes it.
 * @list:	the text: CPU numbers and ranges a-b (a <= b), separated by
 *		commas, e.g. "0,2-3"; no blanks
 * @nr_cpus:	CPUs that exist (caps.nr_cpus, lpt_dev_nr_cpus()); a CPU at
 *		or above it is refused
 * @mask:	out: bit n of word n / 64 set for each listed CPU; the first
 *		@words words are zeroed first
 * @words:	64-bit words at @mask: at least (@nr_cpus + 63) / 64
 * @bad:	out (may be NULL): on error, the offset in @list of the element
 *		that is wrong
 * Return: the number of CPUs selected (> 0); -EINVAL NULL argument, empty
 * list or element, not a decimal number, a range whose end is below its
 * start, a character after a number that is neither ',' nor '-'; -ERANGE a
 * CPU at or above @nr_cpus; -ENOBUFS @words too small for @nr_cpus.
 */
int lpt_cpu_list_parse(const char *list, unsigned int nr_cpus, uint64_t *mask,
		       size_t words, size_t *bad);

/**
 * lpt_cpu_list_format() - write a CPU bitmap as a list ("0,2-3").
 * @mask:	bit n of word n / 64 is CPU n
 * @words:	64-bit words at @mask
 * @buf:	out: the text, NUL-terminated ("" for an empty mask)
 * @size:	bytes at @buf
 * Return: length of the text (without the NUL); -ENOSPC it does not fit
 * (@buf then holds as much as fits, NUL-terminated, if @size > 0);
 * -EINVAL NULL @mask or @buf.
 */
int lpt_cpu_list_format(const uint64_t *mask, size_t words, char *buf, size_t size);

/**
 * lpt_cap_buffer_fit() - the largest buffer size of which @nbuf buffers fit
 * in @avail bytes of pinned memory, as the module charges them (pt.rst
 * "Memory": a buffer's pages plus, with ToPA, one table page per 511
 * regions of one page), as perf record sizes its default buffers to
 * perf_event_mlock_kb (perf_event_mlock_kb_in_pages(), tools/perf/util/
 * evlist.c).
 * @size:	bytes wanted per buffer (a multiple of 4096)
 * @nbuf:	buffers (0 is taken as 1)
 * @single:	single-range output (no ToPA table)
 * @avail:	bytes that may be pinned (lpt_dev_mlock_avail())
 * Return: @size if it fits, else the largest power of two below it, at
 * least 4096, that fits; 0 if even @nbuf buffers of 4096 bytes do not.
 */
uint64_t lpt_cap_buffer_fit(uint64_t size, unsigned int nbuf, bool single, uint64_t avail);

/**
 * lpt_cap_buffer_cost() - bytes the module charges for @nbuf buffers of
 * @size bytes (see lpt_cap_buffer_fit()).
 * @size:	bytes per buffer (a multiple of 4096)
 * @nbuf:	buffers
 * @single:	single-range output (no ToPA table)
 * Return: bytes (saturates at UINT64_MAX).
 */
uint64_t lpt_cap_buffer_cost(uint64_t size, unsigned int nbuf, bool single);

/**
 * lpt_cap_config_check() - validate @cfg against @caps before any ioctl.
 * @cfg:	configuration (its @size is checked first)
 * @caps:	capabilities of the device
 * @bad:	out (may be NULL): the refused field, LWPT_PT_FIELD_NONE if valid
 *
 * The rules of SDM 33.2.8.2 and Table 33-11/12 that the module applies too:
 * each LWPT_PT_CFG_* bit needs its CPUID capability; MTCFreq, CycThresh and
 * PSBFreq encodings must be in their CPUID 14H.1 bitmaps; FUPonPTW needs
 * PTWEn; CR3Filter and thread scope need @pid and exclude each other;
 * ADDRn needs n < nr_ranges,
 * canonical A <= B; buffer and region sizes as struct lpt_cap_config says.
 * CPU selection (@cpu_mask, LWPT_PT_FIELD_CPU_MASK, -EINVAL): per-CPU scope
 * only, both fields or neither, a size that is a multiple of 8 up to
 * LWPT_PT_CPU_MASK_MAX, at least one CPU, none at or above caps.nr_cpus.
 * Output (SDM 33.2.7): LWPT_PT_CFG_SINGLE_RANGE needs SNGLRGNOUT
 * (-EOPNOTSUPP, LWPT_PT_FIELD_SINGLE_RANGE) and wrap mode (-EINVAL,
 * LWPT_PT_FIELD_MODE: a single range has no STOP and no PMI). Without ToPA
 * single-range output is implied in wrap mode, other modes are
 * -EOPNOTSUPP (LWPT_PT_FIELD_MODE), and without either scheme
 * -EOPNOTSUPP (LWPT_PT_FIELD_BUFFER_SIZE).
 * Return: 0; -EINVAL bad value; -EOPNOTSUPP a feature @caps lacks.
 */
int lpt_cap_config_check(const struct lpt_cap_config *cfg, const struct lwpt_pt_caps *caps,
			 enum lwpt_pt_field *bad);

/**
 * lpt_cap_field_name() - the name of a configuration field ("mtc_freq",
 * "ADDR1", ...) for messages; "?" for an unknown value.
 * @field:	LWPT_PT_FIELD_*
 */
const char *lpt_cap_field_name(enum lwpt_pt_field field);

/**
 * lpt_cap_name() - the SDM name of one capability bit of struct
 * lwpt_pt_caps.caps, for listing what a device offers.
 * @cap:	one LWPT_PT_CAP_* bit
 *
 * The bits of CPUID leaf 14H carry the "Name" column of SDM Table 33-11
 * ("CR3 Filtering Support", "ToPA Tables Allow Multiple Output Entries",
 * ...); LWPT_PT_CAP_XSAVES, LWPT_PT_CAP_ERRATUM_BDM106,
 * LWPT_PT_CAP_LBR_EXCLUSIVE and LWPT_PT_CAP_ERRATUM_SINGLE_4K, which lwpt
 * adds, say where they come from. Loop over bits 0..31 to list them all.
 * Return: a static string; NULL for 0, for several bits, or for a bit
 * without a meaning.
 */
const char *lpt_cap_name(uint32_t cap);

/**
 * lpt_cpu_has_pt() - whether the calling CPU reports Intel PT:
 * CPUID.(EAX=07H,ECX=0):EBX[25] (SDM 33.3.1), read with the cpuid
 * instruction (false when leaf 07H does not exist). What the module
 * decoded from leaf 14H is in lpt_dev_caps(); this needs no device, and
 * under a hypervisor it is what the hypervisor shows.
 * Return: true or false.
 */
bool lpt_cpu_has_pt(void);

/**
 * lpt_dev_configure() - validate @cfg and configure the capture; map buffers.
 * @dev:	open device, not configured yet
 * @cfg:	configuration (lpt_cap_config_init() then changes)
 * @bad:	out (may be NULL): the refused field (ours or the module's)
 *
 * Runs lpt_cap_config_check(), then LWPT_PT_IOC_CONFIGURE, then maps every
 * configured CPU's buffer read-only (mmap at the offset GET_STATUS reports):
 * with @cpu_mask only the selected CPUs have one (lpt_dev_has_buffer()).
 * Return: 0; -EINVAL/-EOPNOTSUPP field refused (@bad); -EOPNOTSUPP also a
 * @cpu_mask for a module before ABI 1.3 (@bad LWPT_PT_FIELD_CPU_MASK);
 * -ENODEV a selected CPU is offline (@bad LWPT_PT_FIELD_CPU_MASK);
 * -EPERM/-EACCES not allowed (kernel or system-wide without CAP_PERFMON,
 * another user's process); -EBUSY another capture is configured; -ESRCH no
 * such @pid; -EALREADY @dev is configured already; -ENOMEM.
 */
int lpt_dev_configure(struct lpt_dev *dev, const struct lpt_cap_config *cfg,
		      enum lwpt_pt_field *bad);

/**
 * lpt_dev_start() - set TraceEn on every configured CPU (SDM 33.3 order is
 * the module's job).
 * @dev:	configured device
 *
 * A start after lpt_dev_stop() begins a new trace in the same buffers: the
 * module clears them and their byte counts, and lpt_dev_read() reads from
 * their start again (ptcap --snapshot: stop, read, start).
 * Return: 0; -ENODATA not configured; -EBUSY TraceEn was already set by
 * someone else (perf, firmware, a hypervisor): lwpt never takes over.
 */
int lpt_dev_start(struct lpt_dev *dev);

/**
 * lpt_dev_stop() - clear TraceEn everywhere; buffers stay readable.
 * @dev:	configured device
 * Return: 0; -ENODATA not configured.
 */
int lpt_dev_stop(struct lpt_dev *dev);

/**
 * lpt_dev_has_buffer() - whether buffer @cpu is mapped (after configure).
 * @dev:	device
 * @cpu:	buffer number: the logical CPU of a per-CPU capture
 */
bool lpt_dev_has_buffer(const struct lpt_dev *dev, unsigned int cpu);

/**
 * lpt_dev_status() - one buffer's capture status (LWPT_PT_IOC_GET_STATUS).
 * @dev:	configured device
 * @cpu:	buffer number: the logical CPU (below lpt_dev_nr_cpus()) of a
 *		per-CPU capture, below lpt_dev_nr_buffers() per thread
 * @st:	out: the status, IA32_RTIT_STATUS bits split out (SDM 33.2.8.4)
 *
 * While tracing, the module briefly clears and sets TraceEn to read exact
 * numbers (the trace shows a TIP.PGD/TIP.PGE pair and a PSB+ there).
 * Return: 0; -EINVAL @cpu out of range or @st NULL; -ENODATA not configured.
 */
int lpt_dev_status(struct lpt_dev *dev, unsigned int cpu, struct lpt_cap_status *st);

/**
 * typedef lpt_sink_fn - where lpt_dev_read() delivers bytes.
 * @arg:	the caller's argument
 * @buf:	trace bytes, in the order the processor wrote them
 * @len:	bytes at @buf (> 0)
 * Return: 0 to go on, a negative errno to stop (passed back by the reader).
 */
typedef int (*lpt_sink_fn)(void *arg, const void *buf, size_t len);

/**
 * lpt_dev_read() - deliver the unread trace of buffer @cpu, oldest first.
 * @dev:	configured device
 * @cpu:	buffer number with a mapping (lpt_dev_has_buffer()); the CPU in
 *		a per-CPU capture
 * @sink:	called once or twice per call (twice when the data wraps
 *		around the end of the buffer)
 * @arg:	passed to @sink
 *
 * Reads the bytes written since the previous call (since start on the
 * first): of a buffer that wrapped, only the newest buffer_size bytes
 * exist, so the read starts at the oldest of them (the ToPA regions in
 * order, SDM 33.2.7.2). In continuous mode it then releases the bytes
 * (LWPT_PT_IOC_RELEASE) so the module may reuse them; call it often while
 * tracing. The PAD run the module wrote and released itself (struct
 * lpt_cap_status @pad_from, @pad_to) is skipped without being read: the
 * next lap may have overwritten it. In wrap and stop mode call it after
 * lpt_dev_stop().
 *
 * Single-range output (lpt_dev_single_range(), SDM 33.2.7.1) wraps
 * without a PMI, so how many bytes were written is not known: when
 * anything was written since the previous call, the whole buffer is
 * delivered from the processor's OutputOffset (the oldest byte if it
 * wrapped) to the end, then from 0 to OutputOffset, without the zero bytes
 * at the start of that stream (never written if it did not wrap, else PAD
 * packets, which decoders skip anyway); call it after lpt_dev_stop().
 * Return: bytes delivered (>= 0); -EINVAL no buffer for @cpu; the errors of
 * lpt_dev_status(); the first negative value @sink returned.
 */
int64_t lpt_dev_read(struct lpt_dev *dev, unsigned int cpu, lpt_sink_fn sink, void *arg);

/**
 * lpt_dev_read_gap() - did the last lpt_dev_read() deliver a cut stream?
 * @dev:	configured device
 * @cpu:	the buffer number given to that lpt_dev_read()
 * @at:		out: where the cut is, in bytes from the start of what that
 *		read delivered (0 if it lies in bytes overwritten before)
 *
 * A loss can cut the packet stream (struct lwpt_pt_status.gap_head: a ToPA
 * stop at the continuous-mode gate ends the output mid-packet, SDM 33.2.7.2
 * "ToPA STOP"): the bytes after the cut do not continue the packet before
 * it, and a decoder must synchronise again at the next PSB. This reports
 * the newest cut of that read (lpt_dev_read_gaps() gives them all); a
 * module without gap_head (status size version 2) reports none.
 * Return: true and *@at set if that read delivered a new cut, else false
 * (also for a NULL @dev or @at, or no buffer @cpu).
 */
bool lpt_dev_read_gap(const struct lpt_dev *dev, unsigned int cpu, uint64_t *at);

/**
 * lpt_dev_read_gaps() - every cut the last lpt_dev_read() delivered
 * @dev:	configured device
 * @cpu:	the buffer number given to that lpt_dev_read()
 * @at:		out: up to @max positions, oldest first, in bytes from the
 *		start of what that read delivered (0: in bytes overwritten
 *		before), as lpt_dev_read_gap() gives the newest
 * @max:	entries at @at
 *
 * A module of ABI 1.4 keeps every cut (struct lwpt_pt_status.gaps,
 * gap_heads): two cuts between two reads are both reported (up to
 * LWPT_PT_GAP_HEADS; more than that between two reads of one buffer lose
 * the older positions). An older module reports the newest only.
 * Return: cuts stored at @at (0 none, or NULL @dev / @at, no buffer @cpu).
 */
unsigned int lpt_dev_read_gaps(const struct lpt_dev *dev, unsigned int cpu, uint64_t *at,
			       unsigned int max);

/**
 * lpt_dev_single_range() - whether the configured capture uses single-range
 * output (SDM 33.2.7.1): asked for with LWPT_PT_CFG_SINGLE_RANGE, or chosen
 * by the module in wrap mode on a processor without ToPA.
 * @dev:	device (NULL or not configured: false)
 * Return: true or false.
 */
bool lpt_dev_single_range(const struct lpt_dev *dev);

/**
 * lpt_dev_nr_buffers() - the buffers of the capture now, newly joined
 * threads' buffers mapped.
 * @dev:	configured device
 * Per CPU it is lpt_dev_nr_cpus(); per thread it grows as threads of the
 * traced process are created (Documentation/pt.rst), so call it again
 * after the traced program ran.
 * Return: the count (>= 0); -ENODATA not configured; the errors of mmap()
 * and of LWPT_PT_IOC_GET_STATUS; -ENOMEM.
 */
int lpt_dev_nr_buffers(struct lpt_dev *dev);

/**
 * struct lpt_buf_info - whose a buffer is (LWPT_PT_IOC_GET_STATUS v1).
 * Size-versioned: set @size to sizeof(struct lpt_buf_info) before the call.
 * @size:	bytes of this struct the caller knows
 * @thread:	a thread's buffer (per-thread capture); else a CPU's
 * @tid:	the thread (in the caller's pid namespace), 0 for a CPU
 * @pid:	its process, 0 for a CPU
 * @cpu:	the CPU of a CPU's buffer, the last CPU the thread ran on, or
 *		UINT32_MAX
 * @exited:	the thread exited (its trace is complete)
 * @execed:	the thread called execve() while traced
 * @detached:	tracing stopped at an exec into a program the caller may not
 *		trace
 * @offline:	the CPU is offline (its trace stopped there; data kept)
 * @threads_lost: threads that joined without a buffer (not traced)
 * @stop_reason: LWPT_PT_STOP_*: why the thread's buffer stopped taking data
 *		(lpt_dev_stop_reason_str()); 0 while traced or from an older
 *		module
 * @ppid:	a thread of a process the capture followed at a fork: the
 *		traced process that forked it; 0 for the configured process
 * @threads_refused: threads of the traced processes that the permission
 *		rule refused (their own credentials are another user's, a
 *		capability the caller lacks): not traced; 0 from a module
 *		before ABI 1.5
 * @serial:	which thread the number holds: k for the k-th thread that
 *		joined (from 1); 0 from a module before ABI 1.5 and per CPU
 * @freed:	the number holds no buffer now: its buffer was freed
 *		(lpt_dev_buffer_done()) and no new thread took it yet
 */
struct lpt_buf_info {
	size_t size;
	bool thread;
	int32_t tid;
	int32_t pid;
	uint32_t cpu;
	bool exited, execed, detached, offline;
	uint32_t threads_lost;
	uint32_t stop_reason;
	int32_t ppid;
	uint32_t threads_refused;
	uint64_t serial;
	bool freed;
};

/**
 * lpt_dev_buffer_info() - whose buffer @buffer is.
 * @dev:	configured device
 * @buffer:	buffer number, below lpt_dev_nr_buffers()
 * @info:	out; its @size set by the caller
 * Return: 0; -EINVAL bad @buffer or @info; -ENODATA not configured; the
 * errors of LWPT_PT_IOC_GET_STATUS.
 */
int lpt_dev_buffer_info(struct lpt_dev *dev, unsigned int buffer, struct lpt_buf_info *info);

/**
 * lpt_dev_buffer_done() - free the buffer of a thread that ended, once read.
 * @dev:	device configured for a per-thread capture
 * @buffer:	buffer number whose thread exited (or was detached at an exec)
 *		and whose trace lpt_dev_read() delivered to its end
 *
 * Unmaps the buffer and tells the module the reader is done with it
 * (LWPT_PT_IOC_RELEASE with LWPT_PT_REL_DONE, ABI 1.5): its memory and
 * charge go back, and its number goes to the next thread that joins, which
 * lpt_dev_nr_buffers() maps then (lpt_buf_info.serial tells the threads of
 * a number apart). A capture that follows short-lived processes calls it
 * for each one it has read, and so never reaches the module's buffer
 * limits (Documentation/pt.rst, "Buffers of threads that ended").
 * Return: 0; -EINVAL not a mapped per-thread buffer; -EBUSY its thread is
 * still traced (nothing changed); -EAGAIN bytes written since the last
 * lpt_dev_read() (read again first); -EOPNOTSUPP a module before ABI
 * 1.5; -ENODATA not configured; the errors of LWPT_PT_IOC_GET_STATUS.
 */
int lpt_dev_buffer_done(struct lpt_dev *dev, unsigned int buffer);

/**
 * lpt_dev_read_switches() - take the context switches recorded on @cpu.
 * @dev:	device configured for a per-CPU capture (LWPT_PT_SCOPE_CPU)
 * @cpu:	a CPU with a buffer (lpt_dev_has_buffer())
 * @recs:	out: up to @max records, oldest first (may be NULL if @max is 0)
 * @max:	records that fit at @recs; 0 only reads the counters
 * @lost:	out (may be NULL): records the module dropped since start
 *		because @cpu's ring was full (read more often to avoid it)
 * @pending:	out (may be NULL): records still waiting after this call
 *
 * The module records, from lpt_dev_start() to lpt_dev_stop(), every
 * context switch on each CPU with a buffer: the TSC (the clock of the TSC
 * packets, SDM 33.4.2.11), prev and next pid/tid in the caller's pid
 * namespace, and LWPT_PT_SW_* flags (idle task, kernel thread, preempted);
 * records taken are not returned again (LWPT_PT_IOC_READ_SIDEBAND,
 * Documentation/pt.rst). Call it while tracing (each CPU's ring holds a few
 * thousand switches) and once more after lpt_dev_stop(), until @pending
 * is 0.
 * Return: records stored (>= 0); -EINVAL @dev NULL, @recs NULL with @max,
 * no buffer for @cpu; -ENODATA not configured; -EOPNOTSUPP per-thread
 * capture, or a module without sideband; -EFAULT; -EPERM.
 */
int lpt_dev_read_switches(struct lpt_dev *dev, unsigned int cpu, struct lwpt_pt_switch *recs,
			  unsigned int max, uint64_t *lost, uint32_t *pending);

/* The magic line of ptcap's switches file (Documentation/ptcap-format.rst). */
#define LPT_SWITCHES_MAGIC	"lwpt-ptcap-switches 1"

/* Longest line lpt_switch_format() writes, with its newline and NUL. */
#define LPT_SWITCH_LINE_MAX	192

/**
 * lpt_switch_format() - one context switch as a line of the switches file.
 * @buf:	out: the line, ending in a newline, NUL-terminated
 * @size:	bytes at @buf (LPT_SWITCH_LINE_MAX always suffice)
 * @sw:		the record
 *
 * Format (Documentation/ptcap-format.rst): ``<tsc> <cpu>
 * <prev-pid>/<prev-tid> <next-pid>/<next-tid>`` in decimal, then the words
 * ``prev-idle``, ``prev-kthread``, ``next-idle``, ``next-kthread`` and
 * ``preempt`` for the LWPT_PT_SW_* flags set (unknown flags: ``flags=0x..``).
 * Return: characters written without the NUL; -EINVAL @buf or @sw NULL;
 * -ENOSPC @size too small (@buf then holds no partial line).
 */
int lpt_switch_format(char *buf, size_t size, const struct lwpt_pt_switch *sw);

/**
 * lpt_dev_refused_rule() - the permission rule that refused the last
 * lpt_dev_configure() (-EPERM, -EACCES, -ENOMEM).
 * @dev:	device (NULL gives LWPT_PT_RULE_NONE)
 * Return: LWPT_PT_RULE_* (include/uapi/lwpt/pt.h); LWPT_PT_RULE_NONE when
 * the last configure succeeded, failed for another reason, or the module
 * predates the field.
 */
uint32_t lpt_dev_refused_rule(const struct lpt_dev *dev);

/**
 * lpt_dev_rule_str() - what rule @rule is and what to do about it.
 * @rule:	LWPT_PT_RULE_*
 * Return: a static message; NULL for LWPT_PT_RULE_NONE.
 */
const char *lpt_dev_rule_str(uint32_t rule);

/**
 * lpt_dev_refusal() - lpt_dev_rule_str(lpt_dev_refused_rule(@dev)).
 * @dev:	device
 * Return: a static message naming the rule that refused the last
 * configure, or NULL if none did.
 */
const char *lpt_dev_refusal(const struct lpt_dev *dev);

/**
 * lpt_dev_busy_holder() - who holds the capture that made the last
 * lpt_dev_configure() fail with -EBUSY.
 * @dev:	device (NULL gives 0)
 * Return: the pid (in the caller's pid namespace) of the process that
 * configured the capture in the way; 0 if the last configure was not
 * -EBUSY for that reason, the process is not visible, or the module
 * predates the field.
 */
int32_t lpt_dev_busy_holder(const struct lpt_dev *dev);

/**
 * lpt_dev_stop_reason_str() - a word for a thread buffer's stop reason.
 * @reason:	LWPT_PT_STOP_* (struct lpt_buf_info.stop_reason)
 * Return: "exited", "exec-credentials" (exec of a program whose
 * credentials are not the caller's: set-user-ID, set-group-ID),
 * "exec-not-dumpable", "error", "preempted" (a privileged capture ended
 * this unprivileged one), "unknown"; NULL for LWPT_PT_STOP_NONE.
 */
const char *lpt_dev_stop_reason_str(uint32_t reason);

/**
 * lpt_dev_strerror() - a message for a negative errno of this API, with the
 * remedy where there is one ("no /dev/pt: load lwpt.ko (or lwpt_sim.ko)").
 * @err:	negative errno
 */
const char *lpt_dev_strerror(int err);

#ifdef __cplusplus
}
#endif

#endif /* LWPT_PT_H */
