/* SPDX-License-Identifier: GPL-2.0 */
/*
 * PTWRITE on CPUs that raise #UD on it (sim_ptwrite.c).
 */
#ifndef LWPT_KMOD_SIM_PTWRITE_H
#define LWPT_KMOD_SIM_PTWRITE_H

/**
 * sim_ptwrite_init - execute PTWRITE where the CPU raises #UD on it
 *
 * If the simulated processor enumerates PTWRITE (CPUID.(14H,0):EBX[4]),
 * registers a die notifier that claims the #UD of PTWRITE in 64-bit user
 * mode and executes the instruction before the thread returns to user
 * mode (SDM Vol. 2 "PTWRITE"); else does nothing (PTWRITE #UDs, as on
 * hardware without it).
 *
 * Return: 0, or the error of register_die_notifier().
 */
int sim_ptwrite_init(void);

/**
 * sim_ptwrite_exit - undo sim_ptwrite_init()
 *
 * Unregisters the notifier and waits until no PTWRITE is being executed.
 */
void sim_ptwrite_exit(void);

#endif /* LWPT_KMOD_SIM_PTWRITE_H */
