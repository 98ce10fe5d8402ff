/* SPDX-License-Identifier: GPL-2.0 OR MIT */
/*
 * Functions shared between the files of model/bts/ (not an API): the CPU
 * object and MSR dispatch (bts_model.c) calls into the DS/BTS part
 * (ds_model.c) and the LBR part (lbr_model.c); both report violations and
 * PMIs through bts_model.c.
 */
#ifndef LWPT_MODEL_BTS_INTERNAL_H
#define LWPT_MODEL_BTS_INTERNAL_H

#include "model/bts/bts_model.h"

/* bts_model.c */
void bts_model_violation(struct bts_model_cpu *cpu, enum bts_model_violation_kind kind,
			 const char *section, const char *what, uint32_t msr,
			 uint64_t value);
bool bts_model_canonical(const struct bts_model_cpu *cpu, uint64_t addr);
/* LBR/BTS/LER updates suspended by PT (33.3.1.2). */
bool bts_model_pt_suspends(const struct bts_model_cpu *cpu);
/* The BTS threshold interrupt: freeze (17.4.7), then ops->pmi. */
void bts_model_signal_pmi(struct bts_model_cpu *cpu);

/* ds_model.c: IA32_DEBUGCTL / IA32_DS_AREA rules and the BTS store. */
uint64_t ds_model_debugctl_valid(const struct bts_model_profile *prof);
int ds_model_wrmsr(struct bts_model_cpu *cpu, uint32_t msr, uint64_t val);
int ds_model_rdmsr(struct bts_model_cpu *cpu, uint32_t msr, uint64_t *val);
void ds_model_bts(struct bts_model_cpu *cpu, const struct bts_branch *br);

/* lbr_model.c: the LBR stack, LBR_SELECT, TOS, LER, freeze. */
int lbr_model_rdmsr(struct bts_model_cpu *cpu, uint32_t msr, uint64_t *val);
int lbr_model_wrmsr(struct bts_model_cpu *cpu, uint32_t msr, uint64_t val);
void lbr_model_branch(struct bts_model_cpu *cpu, const struct bts_branch *br);
void lbr_model_clear(struct bts_model_cpu *cpu);
void lbr_model_freeze(struct bts_model_cpu *cpu);

#endif /* LWPT_MODEL_BTS_INTERNAL_H */
