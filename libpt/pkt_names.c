// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Names for packet types, packet-block items (SDM Table 33-47), BBP types
 * (Table 33-45), CFE types (Table 33-50) and EVD types (Table 33-51).
 */
#include <lwpt/pebs.h>

#include "pkt_internal.h"

static const char *const type_names[LPT_PKT_NR] = {
	[LPT_PKT_INVALID] = "invalid",
	[LPT_PKT_PAD] = "pad",
	[LPT_PKT_TNT_8] = "tnt.8",
	[LPT_PKT_TNT_64] = "tnt.64",
	[LPT_PKT_TIP] = "tip",
	[LPT_PKT_TIP_PGE] = "tip.pge",
	[LPT_PKT_TIP_PGD] = "tip.pgd",
	[LPT_PKT_FUP] = "fup",
	[LPT_PKT_PIP] = "pip",
	[LPT_PKT_MODE_EXEC] = "mode.exec",
	[LPT_PKT_MODE_TSX] = "mode.tsx",
	[LPT_PKT_TRACESTOP] = "stop",
	[LPT_PKT_CBR] = "cbr",
	[LPT_PKT_TSC] = "tsc",
	[LPT_PKT_MTC] = "mtc",
	[LPT_PKT_TMA] = "tma",
	[LPT_PKT_CYC] = "cyc",
	[LPT_PKT_VMCS] = "vmcs",
	[LPT_PKT_OVF] = "ovf",
	[LPT_PKT_PSB] = "psb",
	[LPT_PKT_PSBEND] = "psbend",
	[LPT_PKT_MNT] = "mnt",
	[LPT_PKT_PTW] = "ptw",
	[LPT_PKT_EXSTOP] = "exstop",
	[LPT_PKT_MWAIT] = "mwait",
	[LPT_PKT_PWRE] = "pwre",
	[LPT_PKT_PWRX] = "pwrx",
	[LPT_PKT_BBP] = "bbp",
	[LPT_PKT_BIP] = "bip",
	[LPT_PKT_BEP] = "bep",
	[LPT_PKT_CFE] = "cfe",
	[LPT_PKT_EVD] = "evd",
	[LPT_PKT_TRIG] = "trig",
};

const char *lpt_pkt_type_name(int type)
{
	if (type < 0 || type >= LPT_PKT_NR || !type_names[type])
		return "invalid";
	return type_names[type];
}

/* SDM Table 33-47, BBP.Type 0x01: General-Purpose Registers. */
static const char *const bip_gpr[32] = {
	[PT_BIP_GPR_RFLAGS] = "R/EFLAGS",
	[PT_BIP_GPR_RIP] = "R/EIP",
	[PT_BIP_GPR_RAX] = "R/EAX",
	[PT_BIP_GPR_RCX] = "R/ECX",
	[PT_BIP_GPR_RDX] = "R/EDX",
	[PT_BIP_GPR_RBX] = "R/EBX",
	[PT_BIP_GPR_RSP] = "R/ESP",
	[PT_BIP_GPR_RBP] = "R/EBP",
	[PT_BIP_GPR_RSI] = "R/ESI",
	[PT_BIP_GPR_RDI] = "R/EDI",
	[PT_BIP_GPR_R8] = "R8",
	[PT_BIP_GPR_R9] = "R9",
	[PT_BIP_GPR_R10] = "R10",
	[PT_BIP_GPR_R11] = "R11",
	[PT_BIP_GPR_R12] = "R12",
	[PT_BIP_GPR_R13] = "R13",
	[PT_BIP_GPR_R14] = "R14",
	[PT_BIP_GPR_R15] = "R15",
};

/* BBP.Type 0x04: PEBS Basic Info (SDM 20.9.2.2.1). */
static const char *const bip_pebs_basic[32] = {
	[PT_BIP_BASIC_IP] = "Instruction Pointer",
	[PT_BIP_BASIC_APPLICABLE_COUNTERS] = "Applicable Counters",
	[PT_BIP_BASIC_TSC] = "Timestamp",
};

/* BBP.Type 0x05: PEBS Memory Info (SDM 20.9.2.2.2). */
static const char *const bip_pebs_mem[32] = {
	[PT_BIP_MEM_ACCESS_ADDRESS] = "MemAccessAddress",
	[PT_BIP_MEM_AUX_INFO] = "MemAuxInfo",
	[PT_BIP_MEM_ACCESS_LATENCY] = "MemAccessLatency",
	[PT_BIP_MEM_TSX_AUX_INFO] = "TSXAuxInfo",
};

/* BBP.Type 0x08-0x0a: LBR_0..LBR_2, and 0x10: XMM registers. The LBR
 * blocks continue one sequence: item g = (Type - 8) * 32 + ID is entry
 * TOS - g / 3, field FROM_IP, TO_IP, INFO for g % 3 = 0, 1, 2. */
static const char *const bip_lbr_0[32] = {
	[0x00] = "LBR[TOS-0]_FROM_IP",
	[0x01] = "LBR[TOS-0]_TO_IP",
	[0x02] = "LBR[TOS-0]_INFO",
	[0x03] = "LBR[TOS-1]_FROM_IP",
	[0x04] = "LBR[TOS-1]_TO_IP",
	[0x05] = "LBR[TOS-1]_INFO",
	[0x06] = "LBR[TOS-2]_FROM_IP",
	[0x07] = "LBR[TOS-2]_TO_IP",
	[0x08] = "LBR[TOS-2]_INFO",
	[0x09] = "LBR[TOS-3]_FROM_IP",
	[0x0a] = "LBR[TOS-3]_TO_IP",
	[0x0b] = "LBR[TOS-3]_INFO",
	[0x0c] = "LBR[TOS-4]_FROM_IP",
	[0x0d] = "LBR[TOS-4]_TO_IP",
	[0x0e] = "LBR[TOS-4]_INFO",
	[0x0f] = "LBR[TOS-5]_FROM_IP",
	[0x10] = "LBR[TOS-5]_TO_IP",
	[0x11] = "LBR[TOS-5]_INFO",
	[0x12] = "LBR[TOS-6]_FROM_IP",
	[0x13] = "LBR[TOS-6]_TO_IP",
	[0x14] = "LBR[TOS-6]_INFO",
	[0x15] = "LBR[TOS-7]_FROM_IP",
	[0x16] = "LBR[TOS-7]_TO_IP",
	[0x17] = "LBR[TOS-7]_INFO",
	[0x18] = "LBR[TOS-8]_FROM_IP",
	[0x19] = "LBR[TOS-8]_TO_IP",
	[0x1a] = "LBR[TOS-8]_INFO",
	[0x1b] = "LBR[TOS-9]_FROM_IP",
	[0x1c] = "LBR[TOS-9]_TO_IP",
	[0x1d] = "LBR[TOS-9]_INFO",
	[0x1e] = "LBR[TOS-10]_FROM_IP",
	[0x1f] = "LBR[TOS-10]_TO_IP",
};

static const char *const bip_lbr_1[32] = {
	[0x00] = "LBR[TOS-10]_INFO",
	[0x01] = "LBR[TOS-11]_FROM_IP",
	[0x02] = "LBR[TOS-11]_TO_IP",
	[0x03] = "LBR[TOS-11]_INFO",
	[0x04] = "LBR[TOS-12]_FROM_IP",
	[0x05] = "LBR[TOS-12]_TO_IP",
	[0x06] = "LBR[TOS-12]_INFO",
	[0x07] = "LBR[TOS-13]_FROM_IP",
	[0x08] = "LBR[TOS-13]_TO_IP",
	[0x09] = "LBR[TOS-13]_INFO",
	[0x0a] = "LBR[TOS-14]_FROM_IP",
	[0x0b] = "LBR[TOS-14]_TO_IP",
	[0x0c] = "LBR[TOS-14]_INFO",
	[0x0d] = "LBR[TOS-15]_FROM_IP",
	[0x0e] = "LBR[TOS-15]_TO_IP",
	[0x0f] = "LBR[TOS-15]_INFO",
	[0x10] = "LBR[TOS-16]_FROM_IP",
	[0x11] = "LBR[TOS-16]_TO_IP",
	[0x12] = "LBR[TOS-16]_INFO",
	[0x13] = "LBR[TOS-17]_FROM_IP",
	[0x14] = "LBR[TOS-17]_TO_IP",
	[0x15] = "LBR[TOS-17]_INFO",
	[0x16] = "LBR[TOS-18]_FROM_IP",
	[0x17] = "LBR[TOS-18]_TO_IP",
	[0x18] = "LBR[TOS-18]_INFO",
	[0x19] = "LBR[TOS-19]_FROM_IP",
	[0x1a] = "LBR[TOS-19]_TO_IP",
	[0x1b] = "LBR[TOS-19]_INFO",
	[0x1c] = "LBR[TOS-20]_FROM_IP",
	[0x1d] = "LBR[TOS-20]_TO_IP",
	[0x1e] = "LBR[TOS-20]_INFO",
	[0x1f] = "LBR[TOS-21]_FROM_IP",
};

static const char *const bip_lbr_2[32] = {
	[0x00] = "LBR[TOS-21]_TO_IP",
	[0x01] = "LBR[TOS-21]_INFO",
	[0x02] = "LBR[TOS-22]_FROM_IP",
	[0x03] = "LBR[TOS-22]_TO_IP",
	[0x04] = "LBR[TOS-22]_INFO",
	[0x05] = "LBR[TOS-23]_FROM_IP",
	[0x06] = "LBR[TOS-23]_TO_IP",
	[0x07] = "LBR[TOS-23]_INFO",
	[0x08] = "LBR[TOS-24]_FROM_IP",
	[0x09] = "LBR[TOS-24]_TO_IP",
	[0x0a] = "LBR[TOS-24]_INFO",
	[0x0b] = "LBR[TOS-25]_FROM_IP",
	[0x0c] = "LBR[TOS-25]_TO_IP",
	[0x0d] = "LBR[TOS-25]_INFO",
	[0x0e] = "LBR[TOS-26]_FROM_IP",
	[0x0f] = "LBR[TOS-26]_TO_IP",
	[0x10] = "LBR[TOS-26]_INFO",
	[0x11] = "LBR[TOS-27]_FROM_IP",
	[0x12] = "LBR[TOS-27]_TO_IP",
	[0x13] = "LBR[TOS-27]_INFO",
	[0x14] = "LBR[TOS-28]_FROM_IP",
	[0x15] = "LBR[TOS-28]_TO_IP",
	[0x16] = "LBR[TOS-28]_INFO",
	[0x17] = "LBR[TOS-29]_FROM_IP",
	[0x18] = "LBR[TOS-29]_TO_IP",
	[0x19] = "LBR[TOS-29]_INFO",
	[0x1a] = "LBR[TOS-30]_FROM_IP",
	[0x1b] = "LBR[TOS-30]_TO_IP",
	[0x1c] = "LBR[TOS-30]_INFO",
	[0x1d] = "LBR[TOS-31]_FROM_IP",
	[0x1e] = "LBR[TOS-31]_TO_IP",
	[0x1f] = "LBR[TOS-31]_INFO",
};

static const char *const bip_xmm[32] = {
	[0x00] = "XMM0_Q0",
	[0x01] = "XMM0_Q1",
	[0x02] = "XMM1_Q0",
	[0x03] = "XMM1_Q1",
	[0x04] = "XMM2_Q0",
	[0x05] = "XMM2_Q1",
	[0x06] = "XMM3_Q0",
	[0x07] = "XMM3_Q1",
	[0x08] = "XMM4_Q0",
	[0x09] = "XMM4_Q1",
	[0x0a] = "XMM5_Q0",
	[0x0b] = "XMM5_Q1",
	[0x0c] = "XMM6_Q0",
	[0x0d] = "XMM6_Q1",
	[0x0e] = "XMM7_Q0",
	[0x0f] = "XMM7_Q1",
	[0x10] = "XMM8_Q0",
	[0x11] = "XMM8_Q1",
	[0x12] = "XMM9_Q0",
	[0x13] = "XMM9_Q1",
	[0x14] = "XMM10_Q0",
	[0x15] = "XMM10_Q1",
	[0x16] = "XMM11_Q0",
	[0x17] = "XMM11_Q1",
	[0x18] = "XMM12_Q0",
	[0x19] = "XMM12_Q1",
	[0x1a] = "XMM13_Q0",
	[0x1b] = "XMM13_Q1",
	[0x1c] = "XMM14_Q0",
	[0x1d] = "XMM14_Q1",
	[0x1e] = "XMM15_Q0",
	[0x1f] = "XMM15_Q1",
};
const char *lpt_bip_name(unsigned int bbp_type, unsigned int id)
{
	const char *const *t;

	if (id >= 32)
		return NULL;
	switch (bbp_type) {
	case PT_BBP_TYPE_GPR:		t = bip_gpr; break;
	case PT_BBP_TYPE_PEBS_BASIC:	t = bip_pebs_basic; break;
	case PT_BBP_TYPE_PEBS_MEM:	t = bip_pebs_mem; break;
	case PT_BBP_TYPE_LBR_0:		t = bip_lbr_0; break;
	case PT_BBP_TYPE_LBR_1:		t = bip_lbr_1; break;
	case PT_BBP_TYPE_LBR_2:		t = bip_lbr_2; break;
	case PT_BBP_TYPE_XMM:		t = bip_xmm; break;
	default:			return NULL;
	}
	return t[id];
}

const char *lpt_bbp_type_name(unsigned int type)
{
	switch (type) {
	case PT_BBP_TYPE_GPR:		return "General-Purpose Registers";
	case PT_BBP_TYPE_PEBS_BASIC:	return "PEBS Basic";
	case PT_BBP_TYPE_PEBS_MEM:	return "PEBS Memory";
	case PT_BBP_TYPE_LBR_0:		return "LBR Block 0";
	case PT_BBP_TYPE_LBR_1:		return "LBR Block 1";
	case PT_BBP_TYPE_LBR_2:		return "LBR Block 2";
	case PT_BBP_TYPE_XMM:		return "XMM Registers";
	default:			return NULL;
	}
}

const char *lpt_cfe_type_name(unsigned int type)
{
	static const char *const names[32] = {
		[PT_CFE_TYPE_INTR] = "intr",
		[PT_CFE_TYPE_IRET] = "iret",
		[PT_CFE_TYPE_SMI] = "smi",
		[PT_CFE_TYPE_RSM] = "rsm",
		[PT_CFE_TYPE_SIPI] = "sipi",
		[PT_CFE_TYPE_INIT] = "init",
		[PT_CFE_TYPE_VMENTRY] = "vmentry",
		[PT_CFE_TYPE_VMEXIT] = "vmexit",
		[PT_CFE_TYPE_VMEXIT_INTR] = "vmexit_intr",
		[PT_CFE_TYPE_SHUTDOWN] = "shutdown",
		[PT_CFE_TYPE_UINTR] = "uintr",
		[PT_CFE_TYPE_UIRET] = "uiret",
		[PT_CFE_TYPE_SWINTR] = "swintr",
		[PT_CFE_TYPE_SYSCALL] = "syscall",
	};

	return type < 32 ? names[type] : NULL;
}

const char *lpt_evd_type_name(unsigned int type)
{
	switch (type) {
	case PT_EVD_TYPE_PFA:	return "pfa";
	case PT_EVD_TYPE_VMXQ:	return "vmxq";
	case PT_EVD_TYPE_VMXR:	return "vmxr";
	default:		return NULL;
	}
}
