/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Intel Processor Trace: architectural definitions (umbrella header).
 *
 * Source: Intel SDM Vol. 3C chapter 33 ("Intel Processor Trace").
 *   <lwpt/pt_cpuid.h>    CPUID leaf 14H, Tables 33-11/33-12, capability table
 *   <lwpt/pt_rtit.h>     IA32_RTIT_* MSRs, 33.2.8; XSAVE PT state component
 *   <lwpt/pt_topa.h>     ToPA entries, 33.2.7.2
 *   <lwpt/pt_packets.h>  packet encodings, 33.4
 * and here the performance-monitoring bits the ToPA PMI uses (33.2.7.2).
 * Shared by kernel and user space.
 */
#ifndef LWPT_PT_ARCH_H
#define LWPT_PT_ARCH_H

#include <lwpt/pt_cpuid.h>
#include <lwpt/pt_rtit.h>
#include <lwpt/pt_topa.h>
#include <lwpt/pt_packets.h>
#include <lwpt/bts_arch.h>

/*
 * SDM 33.2.7.2 "ToPA PMI": a ToPA PMI is told from other PMIs by
 * IA32_PERF_GLOBAL_STATUS (38EH) bit 55, Trace_ToPA_PMI, and cleared by
 * writing 1 to bit 55 of IA32_PERF_GLOBAL_STATUS_RESET (390H, called
 * IA32_PERF_GLOBAL_OVF_CTRL before architectural perfmon version 4).
 * IA32_PERF_GLOBAL_STATUS_SET (391H, perfmon version 4) sets status bits.
 */
#ifndef IA32_PERF_GLOBAL_STATUS
#define IA32_PERF_GLOBAL_STATUS				0x38eu
#endif
#ifndef IA32_PERF_GLOBAL_STATUS_RESET
#define IA32_PERF_GLOBAL_STATUS_RESET			0x390u
#endif
#define IA32_PERF_GLOBAL_OVF_CTRL			IA32_PERF_GLOBAL_STATUS_RESET
#define IA32_PERF_GLOBAL_STATUS_SET			0x391u
#define IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI_SHIFT	55
#define IA32_PERF_GLOBAL_STATUS_TRACE_TOPA_PMI		(1ull << 55)

/* SDM 33.2.7.2 "ToPA PMI" step 1: the LVT Performance Monitor register. */
#define PT_APIC_LVTPC_XAPIC_OFFSET			0x340u
#define PT_APIC_LVTPC_X2APIC_MSR			0x834u

/*
 * SDM 33.2.9.4 "Intel PT and VMX": IA32_VMX_MISC (485H, with VMX,
 * CPUID.1:ECX[5]) bit 14 is 1 where PT may trace in VMX operation. Where it
 * is 0, VMXON clears IA32_RTIT_CTL.TraceEn and any WRMSR of IA32_RTIT_CTL
 * in VMX operation raises #GP.
 */
#define IA32_VMX_MISC					0x485u
#define IA32_VMX_MISC_PT_IN_VMX				(1ull << 14)

/*
 * IA32_DEBUGCTL (1D9H, SDM Vol. 3B 17.4.1, architectural on every processor
 * with PT): bit 0 LBR starts last-branch recording. SDM 33.3.1.2: on the
 * processors with DisplayFamily_DisplayModel 06_3DH, 06_47H, 06_4EH, 06_4FH,
 * 06_56H and 06_5EH the use of Intel PT and LBRs is mutually exclusive, and
 * (SDM 33.2.9.3) an RSM that enables both there causes a shutdown.
 * IA32_DEBUGCTL and its bits are defined in <lwpt/bts_arch.h>.
 */

#endif /* LWPT_PT_ARCH_H */
