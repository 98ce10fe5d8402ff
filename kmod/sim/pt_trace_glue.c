// SPDX-License-Identifier: GPL-2.0
/*
 * The PT packet generator (model/pt/trace.c) and its binding to the PT
 * model (model/pt/trace_model.c), compiled into lwpt_sim.ko: one source
 * with user space. A unit of its own: its static names are its own.
 */
#include "model/pt/trace.c"
#include "model/pt/trace_model.c"
