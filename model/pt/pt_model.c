// SPDX-License-Identifier: GPL-2.0 OR MIT
/*
 * The Intel PT unit model: RTIT MSRs (SDM 33.2.8, 33.3.1), trace output
 * (33.2.7), ToPA PMI, XSAVES/XRSTORS of PT state (SDM Vol. 1 13.5.6).
 * See pt_model.h for the API and Documentation/pt-model.rst for the choices
 * made where the SDM leaves room.
 */
#include "model/pt/pt_model.h"

/* --- Strings ------------------------------------------------------------- */

const char *pt_model_strerror(int err)
{
	switch (err) {
	case PT_MODEL_OK:	return "success";
	case PT_MODEL_EGP:	return "general-protection fault (#GP)";
	case PT_MODEL_ENOMSR:	return "MSR not implemented by the PT model";
	case PT_MODEL_EINVAL:	return "invalid argument";
	}
	return "unknown error";
}

static const char *const viol_str[PT_VIOL_NR] = {
	[PT_VIOL_NONE]			= "none",
	[PT_VIOL_RESERVED_BIT]		= "reserved or unenumerated bit set",
	[PT_VIOL_BAD_ENCODING]		= "unsupported field encoding",
	[PT_VIOL_WRITE_WHILE_TRACING]	= "configuration MSR written while TraceEn=1",
	[PT_VIOL_NO_OUTPUT_SCHEME]	= "TraceEn set with no supported output scheme",
	[PT_VIOL_NON_CANONICAL]		= "non-canonical address",
	[PT_VIOL_MSR_NOT_ENUMERATED]	= "MSR not enumerated by CPUID",
	[PT_VIOL_READ_ONLY_MSR]		= "write to a read-only MSR",
	[PT_VIOL_XRSTORS_TRACING]	= "XRSTORS of PT state while TraceEn=1",
	[PT_VIOL_XSS_UNSUPPORTED]	= "IA32_XSS[8] set without XSAVES support for PT",
	[PT_VIOL_OPERATIONAL_ERROR]	= "operational error",
	[PT_VIOL_PMI_STORM]		= "ToPA PMI re-pended endlessly (PendTopaPMI not cleared)",
	[PT_VIOL_TOPA_MODIFIED]		= "current ToPA entry modified while TraceEn=1",
	[PT_VIOL_ERRATUM]		= "a model-specific erratum hit (#GP, lost output)",
	[PT_VIOL_LBR_EXCLUSIVE]		= "TraceEn set with IA32_DEBUGCTL.LBR=1 (PT/LBR exclusive)",
};

const char *pt_model_violation_str(enum pt_model_violation_kind kind)
{
	if ((unsigned int)kind >= PT_VIOL_NR)
		return "unknown violation";
	return viol_str[kind];
}

static const char *const operr_str[PT_OPERR_NR] = {
	[PT_OPERR_NONE]			= "none",
	[PT_OPERR_TOPA_RESERVED]	= "ToPA entry reserved bit set",
	[PT_OPERR_TOPA_TABLE_ALIGN]	= "ToPA table base not 4K aligned",
	[PT_OPERR_TOPA_REGION_ALIGN]	= "ToPA region base not aligned to its size",
	[PT_OPERR_TOPA_MAXPHYADDR]	= "ToPA base above MAXPHYADDR",
	[PT_OPERR_TOPA_OUTPUT_OFFSET]	= "OutputOffset not below the ToPA region size",
	[PT_OPERR_TOPA_END_INT_STOP]	= "ToPA END entry with INT or STOP",
	[PT_OPERR_TOPA_END_ENTRY0]	= "ToPA END bit in entry 0",
	[PT_OPERR_TOPA_SINGLE_NOT_END]	= "single-region ToPA: entry 1 is not END",
	[PT_OPERR_TOPA_SINGLE_END_BASE]	= "single-region ToPA: END does not point to the table",
	[PT_OPERR_SINGLE_MASK]		= "single-range mask not contiguous",
	[PT_OPERR_SINGLE_BASE_MASK]	= "single-range base and mask overlap",
	[PT_OPERR_SINGLE_OFFSET]	= "single-range OutputOffset above mask",
	[PT_OPERR_RESTRICTED_MEMORY]	= "trace output or ToPA read refused (restricted memory)",
};

const char *pt_model_operr_str(enum pt_model_operr operr)
{
	if ((unsigned int)operr >= PT_OPERR_NR)
		return "unknown operational error";
	return operr_str[operr];
}

/* --- Helpers ------------------------------------------------------------- */

static uint32_t cap(const struct pt_model_cpu *cpu, enum pt_cpuid_cap c)
{
	return pt_cpuid_cap(&cpu->prof->leaf, c);
}

static unsigned int num_ranges(const struct pt_model_cpu *cpu)
{
	unsigned int n;

	if (!cap(cpu, PT_CPUID_CAP_IP_FILTER))
		return 0;
	n = cap(cpu, PT_CPUID_CAP_NUM_RANGES);
	return n > PT_ADDR_RANGES_MAX ? PT_ADDR_RANGES_MAX : n;
}

static bool tracing(const struct pt_model_cpu *cpu)
{
	return cpu->ctl & IA32_RTIT_CTL_TRACEEN;
}

static bool has_output_msrs(const struct pt_model_cpu *cpu)
{
	/* SDM 33.2.8.7/33.2.8.8: ECX[0] or ECX[2]. */
	return cap(cpu, PT_CPUID_CAP_TOPA) || cap(cpu, PT_CPUID_CAP_SNGLRGNOUT);
}

static bool canonical(uint64_t addr, unsigned int bits)
{
	uint64_t top = addr >> (bits - 1);

	return top == 0 || top == (~0ull >> (bits - 1));
}

/* A violation about to be reported: filled by the check functions. */
struct viol {
	enum pt_model_violation_kind kind;
	const char *section;
	const char *what;
};

static int set_viol(struct viol *v, enum pt_model_violation_kind kind, const char *section,
		    const char *what)
{
	v->kind = kind;
	v->section = section;
	v->what = what;
	return PT_MODEL_EGP;
}

static void report(struct pt_model_cpu *cpu, enum pt_model_violation_kind kind,
		   enum pt_model_operr operr, const char *section, const char *what,
		   uint32_t msr, uint64_t value)
{
	struct pt_model_violation v = {
		.kind = kind, .operr = operr, .section = section, .what = what,
		.msr = msr, .value = value,
	};

	cpu->stats.violations++;
	cpu->stats.by_kind[kind]++;
	if (cpu->ops->log)
		cpu->ops->log(cpu->ctx, cpu, &v);
}

static int fault(struct pt_model_cpu *cpu, const struct viol *v, uint32_t msr, uint64_t value)
{
	report(cpu, v->kind, PT_OPERR_NONE, v->section, v->what, msr, value);
	return PT_MODEL_EGP;
}

/* --- Output MSR fields --------------------------------------------------- */

static uint64_t table_offset(const struct pt_model_cpu *cpu)
{
	/* SDM 33.2.7.2: MaskOrTableOffset[31:7] = proc_trace_table_offset[27:3]. */
	return ((cpu->output_mask_ptrs & IA32_RTIT_OUTPUT_MASK_PTRS_MASKORTABLEOFFSET_MASK) >>
		IA32_RTIT_OUTPUT_MASK_PTRS_MASKORTABLEOFFSET_SHIFT) * TOPA_ENTRY_BYTES;
}

static void set_table_offset(struct pt_model_cpu *cpu, uint64_t off)
{
	cpu->output_mask_ptrs &= ~IA32_RTIT_OUTPUT_MASK_PTRS_MASKORTABLEOFFSET_MASK;
	cpu->output_mask_ptrs |= ((off / TOPA_ENTRY_BYTES) <<
				  IA32_RTIT_OUTPUT_MASK_PTRS_MASKORTABLEOFFSET_SHIFT) &
				 IA32_RTIT_OUTPUT_MASK_PTRS_MASKORTABLEOFFSET_MASK;
}

static uint64_t output_offset(const struct pt_model_cpu *cpu)
{
	return cpu->output_mask_ptrs >> IA32_RTIT_OUTPUT_MASK_PTRS_OUTPUTOFFSET_SHIFT;
}

static void set_output_offset(struct pt_model_cpu *cpu, uint64_t off)
{
	cpu->output_mask_ptrs &= ~IA32_RTIT_OUTPUT_MASK_PTRS_OUTPUTOFFSET_MASK;
	cpu->output_mask_ptrs |= (off << IA32_RTIT_OUTPUT_MASK_PTRS_OUTPUTOFFSET_SHIFT) &
				 IA32_RTIT_OUTPUT_MASK_PTRS_OUTPUTOFFSET_MASK;
}

static void stop_trigger(struct pt_model_cpu *cpu, uint64_t why)
{
	cpu->status |= why;
	cpu->status &= ~IA32_RTIT_STATUS_TRIGGEREN;
	cpu->entry_valid = false;
}

/* SDM 33.3.10: set Error, clear TriggerEn, report. */
static void operr(struct pt_model_cpu *cpu, enum pt_model_operr e, const char *section,
		  uint64_t value)
{
	stop_trigger(cpu, IA32_RTIT_STATUS_ERROR);
	cpu->stats.operrs++;
	report(cpu, PT_VIOL_OPERATIONAL_ERROR, e, section, operr_str[e], 0, value);
}

/* --- The ToPA PMI -------------------------------------------------------- */

static void raise_pmi(struct pt_model_cpu *cpu)
{
	/* SDM 33.2.7.2 "ToPA PMI", "PMI Preservation". */
	cpu->perf_global_status |= IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI;
	if ((cpu->ctl & IA32_RTIT_CTL_INJECTPSBPMIONENABLE) &&
	    cap(cpu, PT_CPUID_CAP_PSB_PMI_PRESERVE))
		cpu->status |= IA32_RTIT_STATUS_PENDTOPAPMI;
	cpu->stats.pmis++;
	/* 33.2.7.2 "ToPA PMI": not precise; the skid runs from here. */
	if (!cpu->pmi_pending)
		cpu->skid_left = cpu->pmi_skid;
	cpu->pmi_pending = true;
}

/* Bytes stored while a PMI is pending use up its skid. */
static void pmi_skid_consume(struct pt_model_cpu *cpu, uint64_t n)
{
	if (cpu->pmi_pending)
		cpu->skid_left -= n < cpu->skid_left ? n : cpu->skid_left;
}

/*
 * Deliver a pended PMI once the model is consistent. The LVT entry is masked
 * while the handler runs, so a PMI raised inside the handler is delivered
 * when it returns (SDM 33.2.7.2: "taken when the handler for the first
 * completes").
 */
static void deliver_pmi(struct pt_model_cpu *cpu)
{
	unsigned int n = 0;

	if (cpu->in_pmi)
		return;
	/* The skid: output goes on until it is used up or output stops. */
	if (cpu->pmi_pending && cpu->skid_left && tracing(cpu) &&
	    (cpu->status & IA32_RTIT_STATUS_TRIGGEREN))
		return;
	while (cpu->pmi_pending) {
		cpu->pmi_pending = false;
		if (!cpu->ops->pmi)
			continue;
		if (++n > PT_MODEL_PMI_STORM_LIMIT) {
			report(cpu, PT_VIOL_PMI_STORM, PT_OPERR_NONE,
			       "SDM 33.2.7.2 PMI Preservation", viol_str[PT_VIOL_PMI_STORM],
			       IA32_RTIT_STATUS, cpu->status);
			break;
		}
		cpu->in_pmi = true;
		cpu->ops->pmi(cpu->ctx, cpu);
		cpu->in_pmi = false;
	}
}

/* --- ToPA traversal, SDM 33.2.7.2 ---------------------------------------- */

static bool mentry(const struct pt_model_cpu *cpu)
{
	return cap(cpu, PT_CPUID_CAP_MENTRY);
}

/* ToPA entries are little-endian 64-bit values (Figure 33-2). */
static uint64_t le64_value(const void *p)
{
	const uint8_t *b = p;
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < TOPA_ENTRY_BYTES; i++)
		v |= (uint64_t)b[i] << (8 * i);
	return v;
}

static bool read_entry(struct pt_model_cpu *cpu, uint64_t pa, uint64_t *e)
{
	uint8_t b[TOPA_ENTRY_BYTES];

	if (cpu->ops->read_phys(cpu->ctx, pa, b, sizeof(b)) < 0) {
		operr(cpu, PT_OPERR_RESTRICTED_MEMORY, "SDM 33.2.7.4, Table 33-5", pa);
		return false;
	}
	*e = le64_value(b);
	return true;
}

/* Check one entry by itself ("ToPA Errors" 1, 2b, 2c, 4a, 4b). */
static enum pt_model_operr check_entry(const struct pt_model_cpu *cpu, uint64_t e, uint64_t idx)
{
	unsigned int maxphy = cpu->prof->maxphyaddr;

	if (e & TOPA_ENTRY_RESERVED_LOW)
		return PT_OPERR_TOPA_RESERVED;
	if (e & (~0ull << maxphy))
		return PT_OPERR_TOPA_MAXPHYADDR;
	if (e & TOPA_ENTRY_END) {
		if (e & (TOPA_ENTRY_INT | TOPA_ENTRY_STOP))
			return PT_OPERR_TOPA_END_INT_STOP;
		if (idx == 0)
			return PT_OPERR_TOPA_END_ENTRY0;
		return PT_OPERR_NONE;
	}
	if (topa_entry_base(e, maxphy) & (topa_entry_region_bytes(e) - 1))
		return PT_OPERR_TOPA_REGION_ALIGN;
	return PT_OPERR_NONE;
}

/*
 * Make the entry at (OUTPUT_BASE, table offset) the current output region,
 * following END entries. Reports an operational error and returns false if
 * the entry reached is malformed.
 */
static bool topa_load(struct pt_model_cpu *cpu)
{
	unsigned int hops;

	for (hops = 0; hops < 2; hops++) {
		uint64_t table = cpu->output_base, off = table_offset(cpu), idx, e;
		enum pt_model_operr err;

		if (table & IA32_RTIT_OUTPUT_BASE_TOPA_MISALIGN) {
			operr(cpu, PT_OPERR_TOPA_TABLE_ALIGN, "SDM 33.2.7.2 ToPA Errors 2a", table);
			return false;
		}
		idx = off / TOPA_ENTRY_BYTES;
		if (!mentry(cpu) && idx > 1) {
			/* Only entries 0 and 1 exist on MENTRY=0 processors. */
			operr(cpu, PT_OPERR_TOPA_SINGLE_NOT_END, "SDM 33.2.7.2 ToPA Errors 4c",
			      off);
			return false;
		}
		if (!read_entry(cpu, table + off, &e))
			return false;
		err = check_entry(cpu, e, idx);
		if (err == PT_OPERR_NONE && !mentry(cpu) && idx == 1 && !(e & TOPA_ENTRY_END))
			err = PT_OPERR_TOPA_SINGLE_NOT_END;
		if (err == PT_OPERR_NONE && !mentry(cpu) && idx == 1 &&
		    topa_entry_base(e, cpu->prof->maxphyaddr) != table)
			err = PT_OPERR_TOPA_SINGLE_END_BASE;
		if (err != PT_OPERR_NONE) {
			operr(cpu, err, "SDM 33.2.7.2 ToPA Errors", e);
			return false;
		}
		if (e & TOPA_ENTRY_END) {
			/* Next table; its entry 0 cannot be END (error 4b). */
			cpu->output_base = topa_entry_base(e, cpu->prof->maxphyaddr);
			set_table_offset(cpu, 0);
			set_output_offset(cpu, 0);
			cpu->stats.wraps++;
			continue;
		}
		if (!mentry(cpu)) {
			/* SDM 33.2.7.2 4c: entry 1 must be END pointing back to the table. */
			uint64_t e1;

			if (!read_entry(cpu, table + TOPA_ENTRY_BYTES, &e1))
				return false;
			err = check_entry(cpu, e1, 1);
			if (err == PT_OPERR_NONE && !(e1 & TOPA_ENTRY_END))
				err = PT_OPERR_TOPA_SINGLE_NOT_END;
			if (err == PT_OPERR_NONE &&
			    topa_entry_base(e1, cpu->prof->maxphyaddr) != table)
				err = PT_OPERR_TOPA_SINGLE_END_BASE;
			if (err != PT_OPERR_NONE) {
				set_table_offset(cpu, TOPA_ENTRY_BYTES);
				operr(cpu, err, "SDM 33.2.7.2 ToPA Errors 4c", e1);
				return false;
			}
		}
		if (output_offset(cpu) >= topa_entry_region_bytes(e)) {
			operr(cpu, PT_OPERR_TOPA_OUTPUT_OFFSET, "SDM 33.2.7.2 ToPA Errors 3",
			      cpu->output_mask_ptrs);
			return false;
		}
		cpu->entry = e;
		cpu->entry_valid = true;
		return true;
	}
	/* Unreachable: an END always leads to entry 0, which cannot be END. */
	operr(cpu, PT_OPERR_TOPA_END_ENTRY0, "SDM 33.2.7.2 ToPA Errors 4b", cpu->output_base);
	return false;
}

/* The current region is full (SDM 33.2.7.2, "ToPA STOP", "ToPA PMI"). */
static void topa_region_filled(struct pt_model_cpu *cpu)
{
	uint64_t e = cpu->entry, off, now;

	cpu->stats.regions_filled++;
	/*
	 * The processor may cache entries, so software must clear TraceEn
	 * before modifying the current table (33.2.7.2). The model keeps using
	 * the cached entry and reports a change it can see.
	 */
	if (cpu->ops->read_phys(cpu->ctx, cpu->output_base + table_offset(cpu), &now,
				sizeof(now)) == 0 && le64_value(&now) != e)
		report(cpu, PT_VIOL_TOPA_MODIFIED, PT_OPERR_NONE, "SDM 33.2.7.2",
		       viol_str[PT_VIOL_TOPA_MODIFIED], 0, le64_value(&now));
	if (e & TOPA_ENTRY_STOP) {
		/*
		 * STOP happens before INT. OUTPUT_BASE and the table offset stay
		 * on the STOP entry; OutputOffset is the region size (one past
		 * the last byte): see Documentation/pt-model.rst.
		 */
		stop_trigger(cpu, IA32_RTIT_STATUS_STOPPED);
		if ((e & TOPA_ENTRY_INT) && !cpu->mentry0_pmi_sent)
			raise_pmi(cpu);
		return;
	}
	/* With MENTRY=0 the PMI of this fill may have come early already. */
	if ((e & TOPA_ENTRY_INT) && !cpu->mentry0_pmi_sent)
		raise_pmi(cpu);
	cpu->mentry0_pmi_sent = false;

	off = table_offset(cpu) + TOPA_ENTRY_BYTES;
	if (off > TOPA_TABLE_OFFSET_MAX) {
		/* No END or STOP in the largest table: wrap to entry 0. */
		off = 0;
		cpu->stats.wraps++;
	}
	set_table_offset(cpu, off);
	set_output_offset(cpu, 0);
	cpu->entry_valid = false;
	/* The next entry is "reached" now: follow END, check it (33.2.7.2). */
	topa_load(cpu);
}

static size_t topa_write(struct pt_model_cpu *cpu, const uint8_t *bytes, size_t len)
{
	size_t done = 0;

	while (done < len && (cpu->status & IA32_RTIT_STATUS_TRIGGEREN)) {
		uint64_t size, off, n, base;
		bool early = false;

		if (!cpu->entry_valid && !topa_load(cpu))
			break;
		size = topa_entry_region_bytes(cpu->entry);
		base = topa_entry_base(cpu->entry, cpu->prof->maxphyaddr);
		off = output_offset(cpu);
		n = size - off;
		if (n > len - done)
			n = len - done;
		if (!mentry(cpu) && (cpu->entry & TOPA_ENTRY_INT) && !cpu->mentry0_pmi_sent) {
			/* MENTRY=0: the PMI comes before the region is filled. */
			early = off + n >= size - PT_MODEL_MENTRY0_PMI_MARGIN;
		}
		if (cpu->ops->write_phys(cpu->ctx, base + off, bytes + done, (size_t)n) < 0) {
			operr(cpu, PT_OPERR_RESTRICTED_MEMORY, "SDM 33.2.7.4, Table 33-5",
			      base + off);
			break;
		}
		done += (size_t)n;
		cpu->stats.bytes_written += n;
		pmi_skid_consume(cpu, n);
		set_output_offset(cpu, off + n);
		if (early) {
			cpu->mentry0_pmi_sent = true;
			raise_pmi(cpu);
		}
		if (off + n == size)
			topa_region_filled(cpu);
	}
	return done;
}

/* --- Single-range output, SDM 33.2.7.1 ----------------------------------- */

static uint64_t single_mask(const struct pt_model_cpu *cpu)
{
	return cpu->output_mask_ptrs & IA32_RTIT_OUTPUT_MASK_PTRS_SINGLE_MASK;
}

static bool single_check(struct pt_model_cpu *cpu)
{
	uint64_t mask = single_mask(cpu);

	if (mask & (mask + 1)) {
		operr(cpu, PT_OPERR_SINGLE_MASK, "SDM 33.2.7.1", cpu->output_mask_ptrs);
		return false;
	}
	if (cpu->output_base & mask) {
		operr(cpu, PT_OPERR_SINGLE_BASE_MASK, "SDM 33.2.7.1", cpu->output_base);
		return false;
	}
	if (output_offset(cpu) > mask) {
		operr(cpu, PT_OPERR_SINGLE_OFFSET, "SDM 33.2.7.1", cpu->output_mask_ptrs);
		return false;
	}
	return true;
}

/*
 * Errata TGL052/ADL037/RPL017: single-range output above 4 KiB is
 * unreliable. The model's unkind choice: only the first 4 KiB of the range
 * is stored (Documentation/pt-model.rst).
 */
#define PT_MODEL_ERRATUM_SINGLE_MAX	4096u

/* Does @cpu's single range lose bytes to the erratum? */
static bool single_erratum(const struct pt_model_cpu *cpu)
{
	return cpu->prof->erratum_single_4k && single_mask(cpu) >= PT_MODEL_ERRATUM_SINGLE_MAX;
}

static size_t single_write(struct pt_model_cpu *cpu, const uint8_t *bytes, size_t len)
{
	uint64_t mask = single_mask(cpu), base = cpu->output_base & ~mask;
	size_t done = 0;

	while (done < len) {
		uint64_t pos = output_offset(cpu) & mask, n = mask + 1 - pos;
		int rc = 0;

		if (n > len - done)
			n = len - done;
		/* The erratum: nothing reaches memory past the first 4 KiB. */
		if (single_erratum(cpu) && pos + n > PT_MODEL_ERRATUM_SINGLE_MAX) {
			if (pos < PT_MODEL_ERRATUM_SINGLE_MAX)
				n = PT_MODEL_ERRATUM_SINGLE_MAX - pos;
			else
				rc = 1;
		}
		/*
		 * trace_store_phys_addr :=
		 *	(OutputBase & ~OutputMask) + (OutputOffset & OutputMask)
		 */
		if (rc) {
			cpu->stats.bytes_dropped += n;
			cpu->stats.erratum_dropped += n;
		} else if (cpu->ops->write_phys(cpu->ctx, base + pos, bytes + done,
						(size_t)n) < 0) {
			operr(cpu, PT_OPERR_RESTRICTED_MEMORY, "SDM 33.2.7.4, Table 33-5",
			      base + pos);
			break;
		}
		done += (size_t)n;
		if (!rc)
			cpu->stats.bytes_written += n;
		pmi_skid_consume(cpu, n);
		pos += n;
		if (pos > mask) {
			pos = 0;	/* the range is circular */
			cpu->stats.wraps++;
		}
		set_output_offset(cpu, pos);
	}
	return done;
}

/* --- PSB accounting, SDM 33.2.8.4 PacketByteCnt, 33.3.7 ------------------ */

static uint64_t psb_period(const struct pt_model_cpu *cpu)
{
	if (!cap(cpu, PT_CPUID_CAP_PSB_CYC))
		return PT_MODEL_FIXED_PSB_PERIOD;
	return IA32_RTIT_PSBFREQ_BYTES((cpu->ctl & IA32_RTIT_CTL_PSBFREQ_MASK) >>
				       IA32_RTIT_CTL_PSBFREQ_SHIFT);
}

static uint64_t packet_byte_cnt(const struct pt_model_cpu *cpu)
{
	if (!cap(cpu, PT_CPUID_CAP_PSB_CYC))
		return cpu->psb_count;
	return (cpu->status & IA32_RTIT_STATUS_PACKETBYTECNT_MASK) >>
	       IA32_RTIT_STATUS_PACKETBYTECNT_SHIFT;
}

static void set_packet_byte_cnt(struct pt_model_cpu *cpu, uint64_t n)
{
	uint64_t max = IA32_RTIT_STATUS_PACKETBYTECNT_MASK >> IA32_RTIT_STATUS_PACKETBYTECNT_SHIFT;

	if (n > max)
		n = max;	/* saturates; a PSB is due long before */
	if (!cap(cpu, PT_CPUID_CAP_PSB_CYC)) {
		cpu->psb_count = n;
		return;
	}
	cpu->status &= ~IA32_RTIT_STATUS_PACKETBYTECNT_MASK;
	cpu->status |= n << IA32_RTIT_STATUS_PACKETBYTECNT_SHIFT;
}

static void count_bytes(struct pt_model_cpu *cpu, uint64_t n)
{
	uint64_t cnt = packet_byte_cnt(cpu) + n;

	set_packet_byte_cnt(cpu, cnt);
	if (cnt >= psb_period(cpu)) {
		cpu->psb_due = true;
		if ((cpu->ctl & IA32_RTIT_CTL_INJECTPSBPMIONENABLE) &&
		    cap(cpu, PT_CPUID_CAP_PSB_PMI_PRESERVE))
			cpu->status |= IA32_RTIT_STATUS_PENDPSB;
	}
}

/* --- The output sink ----------------------------------------------------- */

size_t pt_model_output(struct pt_model_cpu *cpu, const uint8_t *bytes, size_t len)
{
	size_t done = 0;

	if (!cpu || (!bytes && len))
		return 0;
	if (tracing(cpu) && (cpu->status & IA32_RTIT_STATUS_TRIGGEREN) &&
	    !(cpu->ctl & IA32_RTIT_CTL_FABRICEN)) {
		if (cpu->ctl & IA32_RTIT_CTL_TOPA)
			done = topa_write(cpu, bytes, len);
		else
			done = single_write(cpu, bytes, len);
		count_bytes(cpu, done);
	}
	cpu->stats.bytes_dropped += len - done;
	deliver_pmi(cpu);
	return done;
}

/* --- IA32_RTIT_CTL, SDM 33.2.8.2 / 33.2.8.3 ------------------------------ */

/* IA32_RTIT_CTL value checks: one home, <lwpt/pt_rtit.h> (Table 33-6). */
static int ctl_check(const struct pt_model_cpu *cpu, uint64_t val, struct viol *v)
{
	switch (pt_rtit_ctl_check(&cpu->prof->leaf, val, NULL)) {
	case PT_RTIT_CTL_VALID:
		/* Broadwell erratum BDM106: enabling with BranchEn=0 #GPs. */
		if (cpu->prof->erratum_bdm106 && (val & IA32_RTIT_CTL_TRACEEN) &&
		    !(val & IA32_RTIT_CTL_BRANCHEN))
			return set_viol(v, PT_VIOL_ERRATUM,
					"SDM 33.2.6.4; Broadwell erratum BDM106",
					"TraceEn with BranchEn=0 on a BDM106 part");
		return PT_MODEL_OK;
	case PT_RTIT_CTL_FAULT_RESERVED:
		return set_viol(v, PT_VIOL_RESERVED_BIT, "SDM 33.2.8.2, Table 33-6, Table 33-11",
				"IA32_RTIT_CTL reserved or unenumerated bit");
	case PT_RTIT_CTL_FAULT_MTCFREQ:
		return set_viol(v, PT_VIOL_BAD_ENCODING, "SDM 33.2.8.2, Table 33-12",
				"MTCFreq encoding not in CPUID.(14H,1):EAX[31:16]");
	case PT_RTIT_CTL_FAULT_CYCTHRESH:
		return set_viol(v, PT_VIOL_BAD_ENCODING, "SDM 33.2.8.2, Table 33-12",
				"CycThresh encoding not in CPUID.(14H,1):EBX[15:0]");
	case PT_RTIT_CTL_FAULT_PSBFREQ:
		return set_viol(v, PT_VIOL_BAD_ENCODING, "SDM 33.2.8.2, Table 33-12",
				"PSBFreq encoding not in CPUID.(14H,1):EBX[31:16]");
	case PT_RTIT_CTL_FAULT_ADDR_CFG:
		return set_viol(v, PT_VIOL_BAD_ENCODING, "SDM 33.2.8.2, Table 33-6",
				"ADDRn_CFG encoding 3..15 is reserved");
	case PT_RTIT_CTL_FAULT_NO_OUTPUT:
		return set_viol(v, PT_VIOL_NO_OUTPUT_SCHEME, "SDM 33.2.8.2, Table 33-6 (ToPA)",
				"TraceEn with ToPA=0 and FabricEn=0 but no single-range output");
	}
	return set_viol(v, PT_VIOL_RESERVED_BIT, "SDM 33.2.8.2", "IA32_RTIT_CTL");
}

static bool filter_configured(const struct pt_model_cpu *cpu)
{
	unsigned int n;

	for (n = 0; n < num_ranges(cpu); n++)
		if (((cpu->ctl & IA32_RTIT_CTL_ADDRn_CFG_MASK(n)) >>
		     IA32_RTIT_CTL_ADDRn_CFG_SHIFT(n)) == IA32_RTIT_ADDR_CFG_FILTER)
			return true;
	return false;
}

/* TraceEn 0 -> 1 (SDM 33.2.8.3); cpu->ctl already holds the new value. */
static void trace_enable(struct pt_model_cpu *cpu)
{
	bool inject = (cpu->ctl & IA32_RTIT_CTL_INJECTPSBPMIONENABLE) &&
		      cap(cpu, PT_CPUID_CAP_PSB_PMI_PRESERVE);

	cpu->entry_valid = false;
	cpu->mentry0_pmi_sent = false;
	if (!(cpu->status & (IA32_RTIT_STATUS_ERROR | IA32_RTIT_STATUS_STOPPED)))
		cpu->status |= IA32_RTIT_STATUS_TRIGGEREN;
	if (!filter_configured(cpu))
		cpu->status |= IA32_RTIT_STATUS_FILTEREN;	/* 33.2.6.5 */
	else
		cpu->status &= ~IA32_RTIT_STATUS_FILTEREN;

	/* 33.3.1.2: PT and LBRs are mutually exclusive on this model. */
	if (cpu->prof->lbr_exclusive && (cpu->debugctl & IA32_DEBUGCTL_LBR))
		report(cpu, PT_VIOL_LBR_EXCLUSIVE, PT_OPERR_NONE, "SDM 33.3.1.2, 33.2.9.3",
		       "TraceEn set while IA32_DEBUGCTL.LBR=1 on a PT/LBR-exclusive model",
		       IA32_RTIT_CTL, cpu->ctl);
	if (cpu->status & IA32_RTIT_STATUS_TRIGGEREN) {
		/* 33.3.10: the model detects output errors as soon as TraceEn is set. */
		if (!(cpu->ctl & IA32_RTIT_CTL_FABRICEN)) {
			if (cpu->ctl & IA32_RTIT_CTL_TOPA)
				topa_load(cpu);
			else if (single_check(cpu) && single_erratum(cpu))
				report(cpu, PT_VIOL_ERRATUM, PT_OPERR_NONE,
				       "SDM 33.2.7.1; errata TGL052, ADL037, RPL017",
				       "single-range output larger than 4 KiB",
				       IA32_RTIT_OUTPUT_MASK_PTRS, cpu->output_mask_ptrs);
		}
		/* 33.2.8.3, Table 33-11 EBX[1], 33.2.8.4 PendPSB. */
		if (!cap(cpu, PT_CPUID_CAP_PSB_CYC) || packet_byte_cnt(cpu) == 0 ||
		    (inject && (cpu->status & IA32_RTIT_STATUS_PENDPSB)))
			cpu->psb_due = true;
	}
	/* 33.2.8.4 PendTopaPMI: a PMI is pended when TraceEn goes 0 -> 1. */
	if (inject && (cpu->status & IA32_RTIT_STATUS_PENDTOPAPMI)) {
		cpu->perf_global_status |= IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI;
		cpu->stats.pmis++;
		cpu->pmi_pending = true;
		cpu->skid_left = 0;	/* pended at enable: taken at once */
	}
	if (cpu->ops->trace_en)
		cpu->ops->trace_en(cpu->ctx, cpu, true);
	deliver_pmi(cpu);
}

/* TraceEn 1 -> 0: flush (the model has no internal buffer), output MSRs stable. */
static void trace_disable(struct pt_model_cpu *cpu, uint64_t new_ctl)
{
	if (cpu->ops->trace_en)
		cpu->ops->trace_en(cpu->ctx, cpu, false);
	cpu->ctl = new_ctl;
	cpu->status &= ~IA32_RTIT_STATUS_TRIGGEREN;
	cpu->entry_valid = false;
	cpu->psb_due = false;
}

static int ctl_write(struct pt_model_cpu *cpu, uint64_t val, struct viol *v)
{
	uint64_t old = cpu->ctl;
	int rc;

	if (old & IA32_RTIT_CTL_TRACEEN) {
		if (val == old)
			return PT_MODEL_OK;	/* 33.2.8.1 note: same value, no #GP */
		if (val & IA32_RTIT_CTL_TRACEEN)
			return set_viol(v, PT_VIOL_WRITE_WHILE_TRACING, "SDM 33.2.8.3",
					"IA32_RTIT_CTL modified while TraceEn=1");
	}
	rc = ctl_check(cpu, val, v);
	if (rc)
		return rc;
	if ((old & IA32_RTIT_CTL_TRACEEN) && !(val & IA32_RTIT_CTL_TRACEEN)) {
		trace_disable(cpu, val);
	} else if (!(old & IA32_RTIT_CTL_TRACEEN) && (val & IA32_RTIT_CTL_TRACEEN)) {
		cpu->ctl = val;
		trace_enable(cpu);
	} else {
		cpu->ctl = val;
	}
	return PT_MODEL_OK;
}

/* --- Other MSRs: check, then apply --------------------------------------- */

static uint64_t status_writable(const struct pt_model_cpu *cpu)
{
	uint64_t w = IA32_RTIT_STATUS_ERROR | IA32_RTIT_STATUS_STOPPED;

	if (cap(cpu, PT_CPUID_CAP_PSB_PMI_PRESERVE))
		w |= IA32_RTIT_STATUS_PENDPSB | IA32_RTIT_STATUS_PENDTOPAPMI;
	if (cap(cpu, PT_CPUID_CAP_PSB_CYC))
		w |= IA32_RTIT_STATUS_PACKETBYTECNT_MASK;
	return w;
}

static int range_of(uint32_t msr)
{
	if (msr < IA32_RTIT_ADDR0_A || msr > IA32_RTIT_ADDR3_B)
		return -1;
	return (int)((msr - IA32_RTIT_ADDR0_A) / 2);
}

/* Is @msr accessible at all on this profile? (33.3.1, 33.2.8.5-33.2.8.8) */
static int msr_enumerated(const struct pt_model_cpu *cpu, uint32_t msr, struct viol *v)
{
	int n = range_of(msr);

	if (n >= 0 && (unsigned int)n >= num_ranges(cpu))
		return set_viol(v, PT_VIOL_MSR_NOT_ENUMERATED, "SDM 33.2.8.5, Table 33-11 EBX[2]",
				"IA32_RTIT_ADDRn beyond CPUID.(14H,1):EAX.RANGECNT");
	if (msr == IA32_RTIT_CR3_MATCH && !cap(cpu, PT_CPUID_CAP_CR3_FILTER))
		return set_viol(v, PT_VIOL_MSR_NOT_ENUMERATED, "SDM 33.2.8.6, Table 33-11 EBX[0]",
				"IA32_RTIT_CR3_MATCH without CR3 filtering");
	if ((msr == IA32_RTIT_OUTPUT_BASE || msr == IA32_RTIT_OUTPUT_MASK_PTRS) &&
	    !has_output_msrs(cpu))
		return set_viol(v, PT_VIOL_MSR_NOT_ENUMERATED, "SDM 33.2.8.7, 33.2.8.8",
				"output MSRs without ToPA or single-range output");
	if (msr == IA32_PERF_GLOBAL_STATUS_SET && cpu->prof->perfmon_version < 4)
		return set_viol(v, PT_VIOL_MSR_NOT_ENUMERATED, "SDM Vol. 3B 20.2.4",
				"IA32_PERF_GLOBAL_STATUS_SET needs perfmon version 4");
	return PT_MODEL_OK;
}

static bool is_model_msr(uint32_t msr)
{
	switch (msr) {
	case IA32_RTIT_CTL: case IA32_RTIT_STATUS: case IA32_RTIT_CR3_MATCH:
	case IA32_RTIT_OUTPUT_BASE: case IA32_RTIT_OUTPUT_MASK_PTRS:
	case IA32_XSS: case IA32_PERF_GLOBAL_STATUS:
	case IA32_PERF_GLOBAL_STATUS_RESET: case IA32_PERF_GLOBAL_STATUS_SET:
	case IA32_DEBUGCTL:
		return true;
	}
	return range_of(msr) >= 0;
}

/*
 * Value checks of a configuration MSR other than IA32_RTIT_CTL, as WRMSR
 * (and XRSTORS) apply them with TraceEn=0.
 */
static int value_check(const struct pt_model_cpu *cpu, uint32_t msr, uint64_t val,
		       struct viol *v)
{
	switch (msr) {
	case IA32_RTIT_STATUS:
		if (val & ~(status_writable(cpu) | IA32_RTIT_STATUS_READ_ONLY))
			return set_viol(v, PT_VIOL_RESERVED_BIT,
					"SDM 33.2.8.4, Table 33-7, Table 33-11",
					"IA32_RTIT_STATUS reserved or unenumerated bit");
		return PT_MODEL_OK;
	case IA32_RTIT_CR3_MATCH:
		if (val & IA32_RTIT_CR3_MATCH_RESERVED)
			return set_viol(v, PT_VIOL_RESERVED_BIT, "SDM 33.2.8.6",
					"IA32_RTIT_CR3_MATCH[4:0] must be 0");
		return PT_MODEL_OK;
	case IA32_RTIT_OUTPUT_BASE:
		if (val & IA32_RTIT_OUTPUT_BASE_RESERVED(cpu->prof->maxphyaddr))
			return set_viol(v, PT_VIOL_RESERVED_BIT, "SDM 33.2.8.7, Table 33-8",
					"IA32_RTIT_OUTPUT_BASE bits 6:0 or above MAXPHYADDR");
		return PT_MODEL_OK;
	case IA32_RTIT_OUTPUT_MASK_PTRS:
		return PT_MODEL_OK;	/* LowerMask ignored, no reserved bits */
	}
	if (range_of(msr) >= 0 && !canonical(val, cpu->prof->linear_bits))
		return set_viol(v, PT_VIOL_NON_CANONICAL, "SDM 33.2.8.5",
				"IA32_RTIT_ADDRn_A/B not canonical");
	return PT_MODEL_OK;
}

static void value_apply(struct pt_model_cpu *cpu, uint32_t msr, uint64_t val)
{
	int n = range_of(msr);

	switch (msr) {
	case IA32_RTIT_STATUS:
		/* 33.2.8.4: FilterEn, ContextEn, TriggerEn writes are ignored. */
		cpu->status = (cpu->status & IA32_RTIT_STATUS_READ_ONLY) |
			      (val & status_writable(cpu));
		return;
	case IA32_RTIT_CR3_MATCH:
		cpu->cr3_match = val;
		return;
	case IA32_RTIT_OUTPUT_BASE:
		cpu->output_base = val;
		return;
	case IA32_RTIT_OUTPUT_MASK_PTRS:
		cpu->output_mask_ptrs = val | IA32_RTIT_OUTPUT_MASK_PTRS_LOWERMASK;
		return;
	}
	if (n < 0)
		return;
	if (msr & 1)
		cpu->addr_b[n] = val;
	else
		cpu->addr_a[n] = val;
}

/* --- Public MSR interface ------------------------------------------------ */

int pt_model_cpu_init(struct pt_model_cpu *cpu, const struct pt_model_profile *prof,
		      const struct pt_model_ops *ops, void *ctx, int id)
{
	if (!cpu || !prof || !ops || !ops->read_phys || !ops->write_phys)
		return PT_MODEL_EINVAL;
	memset(cpu, 0, sizeof(*cpu));
	cpu->prof = prof;
	cpu->ops = ops;
	cpu->ctx = ctx;
	cpu->id = id;
	/* Table 33-9: LowerMask reads 7FH at reset; everything else is 0. */
	cpu->output_mask_ptrs = IA32_RTIT_OUTPUT_MASK_PTRS_LOWERMASK;
	return PT_MODEL_OK;
}

void pt_model_reset(struct pt_model_cpu *cpu, bool warm)
{
	unsigned int n;

	if (!cpu)
		return;
	cpu->entry_valid = false;
	cpu->pmi_pending = false;
	cpu->skid_left = 0;
	cpu->mentry0_pmi_sent = false;
	cpu->psb_due = false;
	if (warm && cap(cpu, PT_CPUID_CAP_IP_FILTER)) {
		/* Table 33-11 EBX[2], 33.3.4: only TraceEn is cleared. */
		cpu->ctl &= ~IA32_RTIT_CTL_TRACEEN;
		cpu->status &= ~IA32_RTIT_STATUS_TRIGGEREN;
		return;
	}
	cpu->ctl = 0;
	cpu->status = 0;
	cpu->output_base = 0;
	cpu->output_mask_ptrs = IA32_RTIT_OUTPUT_MASK_PTRS_LOWERMASK;
	cpu->cr3_match = 0;
	cpu->psb_count = 0;
	for (n = 0; n < PT_ADDR_RANGES_MAX; n++) {
		cpu->addr_a[n] = 0;
		cpu->addr_b[n] = 0;
	}
	cpu->perf_global_status = 0;
	if (!warm) {
		cpu->xss = 0;
		cpu->debugctl = 0;	/* Vol. 3B 17.4.1: 0 at power-up */
	}
}

int pt_model_cpuid(const struct pt_model_cpu *cpu, uint32_t leaf, uint32_t subleaf,
		   uint32_t regs[4])
{
	const struct pt_cpuid_leaf *l;

	if (!cpu || !regs)
		return PT_MODEL_EINVAL;
	memset(regs, 0, 4 * sizeof(regs[0]));
	l = &cpu->prof->leaf;
	switch (leaf) {
	case PT_CPUID_07H:
		if (subleaf == 0)
			regs[PT_CPUID_EBX] = PT_CPUID_07H_EBX_INTEL_PT;
		break;
	case PT_CPUID_LEAF:
		if (subleaf < PT_CPUID_SUBLEAVES &&
		    subleaf <= (l->regs[0][PT_CPUID_EAX] & PT_CPUID_0_EAX_MAX_SUBLEAF_MASK))
			memcpy(regs, l->regs[subleaf], 4 * sizeof(regs[0]));
		break;
	case PT_CPUID_0DH:
		/* SDM Vol. 1 13.2: only the PT parts of the XSAVE leaf. */
		if (!cpu->prof->xsaves_pt)
			break;
		if (subleaf == 1) {
			regs[PT_CPUID_EAX] = PT_CPUID_0DH_1_EAX_XSAVES;
			regs[PT_CPUID_ECX] = (uint32_t)IA32_XSS_PT;
		} else if (subleaf == PT_XSTATE_COMPONENT) {
			regs[PT_CPUID_EAX] = PT_XSAVE_STATE_SIZE;
			regs[PT_CPUID_ECX] = PT_CPUID_0DH_N_ECX_XSS;
		}
		break;
	case PT_CPUID_80000008H:
		/* EAX[7:0] MAXPHYADDR, EAX[15:8] linear-address width. */
		regs[PT_CPUID_EAX] = cpu->prof->maxphyaddr | (cpu->prof->linear_bits << 8);
		break;
	}
	return PT_MODEL_OK;
}

int pt_model_rdmsr(struct pt_model_cpu *cpu, uint32_t msr, uint64_t *val)
{
	struct viol v;
	int n;

	if (!cpu || !val)
		return PT_MODEL_EINVAL;
	if (!is_model_msr(msr) || msr == IA32_PERF_GLOBAL_STATUS_RESET ||
	    msr == IA32_PERF_GLOBAL_STATUS_SET)
		return PT_MODEL_ENOMSR;
	if (msr_enumerated(cpu, msr, &v))
		return fault(cpu, &v, msr, 0);
	n = range_of(msr);
	switch (msr) {
	case IA32_RTIT_CTL:
		*val = cpu->ctl;
		break;
	case IA32_RTIT_STATUS:
		*val = cpu->status;
		break;
	case IA32_RTIT_CR3_MATCH:
		*val = cpu->cr3_match;
		break;
	case IA32_RTIT_OUTPUT_BASE:
		*val = cpu->output_base;
		break;
	case IA32_RTIT_OUTPUT_MASK_PTRS:
		*val = cpu->output_mask_ptrs;
		break;
	case IA32_XSS:
		*val = cpu->xss;
		break;
	case IA32_PERF_GLOBAL_STATUS:
		*val = cpu->perf_global_status;
		break;
	case IA32_DEBUGCTL:
		*val = cpu->debugctl;
		break;
	default:
		*val = (msr & 1) ? cpu->addr_b[n] : cpu->addr_a[n];
		break;
	}
	return PT_MODEL_OK;
}

int pt_model_wrmsr(struct pt_model_cpu *cpu, uint32_t msr, uint64_t val)
{
	struct viol v;
	int rc;

	if (!cpu)
		return PT_MODEL_EINVAL;
	if (!is_model_msr(msr))
		return PT_MODEL_ENOMSR;
	if (msr_enumerated(cpu, msr, &v))
		return fault(cpu, &v, msr, val);

	switch (msr) {
	case IA32_RTIT_CTL:
		rc = ctl_write(cpu, val, &v);
		if (rc)
			return fault(cpu, &v, msr, val);
		/* A PMI still in its skid is taken once output stops. */
		deliver_pmi(cpu);
		return PT_MODEL_OK;
	case IA32_XSS:
		/* SDM Vol. 1 13.3: bit 8 only where XSAVES manages PT state. */
		if ((val & IA32_XSS_PT) && !cpu->prof->xsaves_pt) {
			set_viol(&v, PT_VIOL_XSS_UNSUPPORTED, "SDM Vol. 1 13.3",
				 "IA32_XSS[8] set but CPUID.(0DH,1):ECX[8] = 0");
			return fault(cpu, &v, msr, val);
		}
		cpu->xss = val;
		return PT_MODEL_OK;
	case IA32_PERF_GLOBAL_STATUS:
		set_viol(&v, PT_VIOL_READ_ONLY_MSR, "SDM 33.2.7.2 ToPA PMI",
			 "IA32_PERF_GLOBAL_STATUS is read-only");
		return fault(cpu, &v, msr, val);
	case IA32_PERF_GLOBAL_STATUS_RESET:
		/* 33.2.7.2: writing 1 to bit 55 clears Trace_ToPA_PMI. */
		cpu->perf_global_status &= ~(val & IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI);
		return PT_MODEL_OK;
	case IA32_PERF_GLOBAL_STATUS_SET:
		cpu->perf_global_status |= val & IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI;
		return PT_MODEL_OK;
	case IA32_DEBUGCTL:
		/*
		 * 33.3.1.2: accepted while TraceEn=1 (LBRs suspended); on a
		 * PT/LBR-exclusive model both set is a hazard (33.2.9.3: an
		 * RSM enabling both shuts down), counted, not a violation of
		 * lwpt's: another agent writes this MSR.
		 */
		if (cpu->prof->lbr_exclusive && tracing(cpu) &&
		    (val & IA32_DEBUGCTL_LBR) && !(cpu->debugctl & IA32_DEBUGCTL_LBR))
			cpu->stats.lbr_overlaps++;
		cpu->debugctl = val;
		return PT_MODEL_OK;
	}
	/* The other configuration MSRs: SDM 33.2.8.1, written only with TraceEn=0. */
	if (tracing(cpu)) {
		set_viol(&v, PT_VIOL_WRITE_WHILE_TRACING, "SDM 33.2.8.1",
			 "configuration MSR written while TraceEn=1");
		return fault(cpu, &v, msr, val);
	}
	if (value_check(cpu, msr, val, &v))
		return fault(cpu, &v, msr, val);
	value_apply(cpu, msr, val);
	return PT_MODEL_OK;
}

/* --- XSAVES / XRSTORS, SDM Vol. 1 13.5.6, SDM 33.3.5.2 ------------------- */

static bool xsave_pt(const struct pt_model_cpu *cpu, uint64_t rfbm)
{
	return (cpu->xss & IA32_XSS_PT) && (rfbm & IA32_XSS_PT);
}

int pt_model_xsaves(struct pt_model_cpu *cpu, uint64_t rfbm, struct pt_xsave_state *area,
		    bool *saved)
{
	if (!cpu || !area)
		return PT_MODEL_EINVAL;
	if (saved)
		*saved = false;
	if (!xsave_pt(cpu, rfbm))
		return PT_MODEL_OK;
	/* Save IA32_RTIT_CTL, clear TraceEn, then save the rest. */
	area->rtit_ctl = cpu->ctl;
	if (tracing(cpu))
		trace_disable(cpu, cpu->ctl & ~IA32_RTIT_CTL_TRACEEN);
	area->rtit_output_base = cpu->output_base;
	area->rtit_output_mask_ptrs = cpu->output_mask_ptrs;
	area->rtit_status = cpu->status;
	area->rtit_cr3_match = cpu->cr3_match;
	area->rtit_addr0_a = cpu->addr_a[0];
	area->rtit_addr0_b = cpu->addr_b[0];
	area->rtit_addr1_a = cpu->addr_a[1];
	area->rtit_addr1_b = cpu->addr_b[1];
	if (saved)
		*saved = true;
	/* As for WRMSR: a PMI still in its skid is taken once output stops. */
	deliver_pmi(cpu);
	return PT_MODEL_OK;
}

int pt_model_xrstors(struct pt_model_cpu *cpu, uint64_t rfbm,
		     const struct pt_xsave_state *area, bool xstate_bv_pt)
{
	static const struct pt_xsave_state init_state;	/* Vol. 1 13.6: all nine MSRs 0 */
	const struct pt_xsave_state *s;
	struct {
		uint32_t msr;
		uint64_t val;
	} load[8];
	unsigned int i;
	struct viol v;

	if (!cpu || (xstate_bv_pt && !area))
		return PT_MODEL_EINVAL;
	if (!xsave_pt(cpu, rfbm))
		return PT_MODEL_OK;
	if (tracing(cpu)) {
		set_viol(&v, PT_VIOL_XRSTORS_TRACING, "SDM Vol. 1 13.5.6",
			 "XRSTORS would restore PT state with TraceEn=1");
		return fault(cpu, &v, IA32_RTIT_CTL, cpu->ctl);
	}
	s = xstate_bv_pt ? area : &init_state;
	load[0].msr = IA32_RTIT_OUTPUT_BASE;	load[0].val = s->rtit_output_base;
	load[1].msr = IA32_RTIT_OUTPUT_MASK_PTRS; load[1].val = s->rtit_output_mask_ptrs;
	load[2].msr = IA32_RTIT_STATUS;		load[2].val = s->rtit_status;
	load[3].msr = IA32_RTIT_CR3_MATCH;	load[3].val = s->rtit_cr3_match;
	load[4].msr = IA32_RTIT_ADDR0_A;	load[4].val = s->rtit_addr0_a;
	load[5].msr = IA32_RTIT_ADDR0_B;	load[5].val = s->rtit_addr0_b;
	load[6].msr = IA32_RTIT_ADDR1_A;	load[6].val = s->rtit_addr1_a;
	load[7].msr = IA32_RTIT_ADDR1_B;	load[7].val = s->rtit_addr1_b;

	/* Check everything first: on #GP nothing is modified (Vol. 1 13.5.6). */
	for (i = 0; i < 8; i++) {
		if (msr_enumerated(cpu, load[i].msr, &v)) {
			if (load[i].val == 0)
				continue;	/* absent MSR, state 0: nothing to load */
			return fault(cpu, &v, load[i].msr, load[i].val);
		}
		if (value_check(cpu, load[i].msr, load[i].val, &v))
			return fault(cpu, &v, load[i].msr, load[i].val);
	}
	if (ctl_check(cpu, s->rtit_ctl, &v))
		return fault(cpu, &v, IA32_RTIT_CTL, s->rtit_ctl);

	for (i = 0; i < 8; i++)
		if (!msr_enumerated(cpu, load[i].msr, &v))
			value_apply(cpu, load[i].msr, load[i].val);
	/* IA32_RTIT_CTL last: TraceEn=1 starts tracing. */
	cpu->ctl = s->rtit_ctl;
	if (tracing(cpu))
		trace_enable(cpu);
	return PT_MODEL_OK;
}

void pt_model_set_pmi_skid(struct pt_model_cpu *cpu, uint64_t bytes)
{
	if (cpu)
		cpu->pmi_skid = bytes;
}

/* --- Hooks for the packet generator -------------------------------------- */

bool pt_model_trigger_en(const struct pt_model_cpu *cpu)
{
	return cpu && tracing(cpu) && (cpu->status & IA32_RTIT_STATUS_TRIGGEREN);
}

uint64_t pt_model_ctl(const struct pt_model_cpu *cpu)
{
	return cpu ? cpu->ctl : 0;
}

void pt_model_set_enables(struct pt_model_cpu *cpu, bool context_en, bool filter_en)
{
	if (!cpu || !(cpu->status & IA32_RTIT_STATUS_TRIGGEREN))
		return;		/* 33.2.6.3: not updated while TriggerEn=0 */
	cpu->status &= ~(IA32_RTIT_STATUS_CONTEXTEN | IA32_RTIT_STATUS_FILTEREN);
	if (context_en)
		cpu->status |= IA32_RTIT_STATUS_CONTEXTEN;
	if (filter_en || !filter_configured(cpu))
		cpu->status |= IA32_RTIT_STATUS_FILTEREN;
}

void pt_model_trace_stop(struct pt_model_cpu *cpu)
{
	if (!cpu || !(cpu->status & IA32_RTIT_STATUS_TRIGGEREN))
		return;
	stop_trigger(cpu, IA32_RTIT_STATUS_STOPPED);	/* 33.2.5.3 TraceStop */
}

bool pt_model_psb_due(const struct pt_model_cpu *cpu)
{
	return cpu && pt_model_trigger_en(cpu) && cpu->psb_due;
}

void pt_model_psb_begin(struct pt_model_cpu *cpu)
{
	if (!cpu)
		return;
	cpu->psb_due = false;
	set_packet_byte_cnt(cpu, 0);
	cpu->status &= ~IA32_RTIT_STATUS_PENDPSB;	/* 33.2.8.4 PendPSB */
}

const struct pt_model_stats *pt_model_get_stats(const struct pt_model_cpu *cpu)
{
	return &cpu->stats;
}
