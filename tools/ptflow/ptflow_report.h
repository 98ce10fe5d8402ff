/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptflow --report: hot spots per function. Self counts are the instructions
 * (and TSC ticks) spent with the instruction pointer inside the function;
 * total ("children included") counts everything between its call and its
 * return, counted once for recursive activations. Output format:
 * Documentation/ptflow.rst, "Hot spots".
 */
#ifndef LWPT_TOOLS_PTFLOW_REPORT_H
#define LWPT_TOOLS_PTFLOW_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct ptflow_report;

/**
 * ptflow_report_alloc() - an empty report.
 *
 * Return: the report, or NULL when out of memory.
 */
struct ptflow_report *ptflow_report_alloc(void);

/**
 * ptflow_report_free() - release a report; NULL is ignored.
 * @r: the report.
 */
void ptflow_report_free(struct ptflow_report *r);

/**
 * ptflow_report_known() - whether the report has an entry for @key (then
 * ptflow_report_self() and ptflow_report_enter() do not read the name
 * they are given for it: a caller may skip making it).
 * @r:   the report.
 * @key: the function's identity (see ptflow_calls.h).
 *
 * Return: true when an entry for @key exists.
 */
bool ptflow_report_known(const struct ptflow_report *r, uint64_t key);

/**
 * ptflow_report_self() - count instructions and time inside a function.
 * @r:     the report.
 * @key:   the function's identity (its start address, see ptflow_calls.h).
 * @name:  its name, copied on first use.
 * @insns: instructions executed in it.
 * @ticks: TSC ticks spent in it.
 *
 * Return: 0, or -1 when out of memory.
 */
int ptflow_report_self(struct ptflow_report *r, uint64_t key,
		       const char *name, uint64_t insns, uint64_t ticks);

/**
 * ptflow_report_enter() - a function was entered (called, or found at the
 * start of a trace).
 * @r:      the report.
 * @key:    as for ptflow_report_self().
 * @name:   as for ptflow_report_self().
 * @called: true for a call (counted in the calls column).
 *
 * Return: 0, or -1 when out of memory.
 */
int ptflow_report_enter(struct ptflow_report *r, uint64_t key,
			const char *name, bool called);

/**
 * ptflow_report_leave() - an activation entered with ptflow_report_enter()
 * ended (return, unwind or end of trace).
 * @r:     the report.
 * @key:   as given to ptflow_report_enter().
 * @insns: instructions executed from its entry to here, callees included.
 * @ticks: TSC ticks from its entry to here.
 *
 * Only the outermost of nested activations of one function adds to its
 * total, so recursion is not counted twice.
 */
void ptflow_report_leave(struct ptflow_report *r, uint64_t key,
			 uint64_t insns, uint64_t ticks);

/**
 * ptflow_report_merge() - add the counts of @from to @into.
 * @into: the total report.
 * @from: a finished (per-thread) report.
 *
 * Return: 0, or -1 when out of memory.
 */
int ptflow_report_merge(struct ptflow_report *into,
			const struct ptflow_report *from);

/**
 * ptflow_report_print() - print the table, hottest function first.
 * @r:     the report.
 * @out:   the stream.
 * @title: the heading, "[report <title>]".
 * @hz:    TSC frequency for the time columns; 0 prints ticks.
 *
 * Rows are sorted by self instructions, then total instructions, then
 * name. The time columns are left out when no time passed in the trace
 * (no timing packets between its instructions).
 */
void ptflow_report_print(const struct ptflow_report *r, FILE *out,
			 const char *title, uint64_t hz);

#endif /* LWPT_TOOLS_PTFLOW_REPORT_H */
