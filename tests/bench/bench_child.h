/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the whole-process benchmarks (bench_ptdump, bench_ptflow):
 * run a program and take its CPU time, read a figure it prints, load a
 * trace as the reference loops do. Figures only; nothing here asserts.
 */
#ifndef LWPT_TESTS_BENCH_CHILD_H
#define LWPT_TESTS_BENCH_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

/**
 * bench_child_run() - run a program to its end.
 * @argv:  program path and arguments, NULL-terminated.
 * @outfd: its stdout; its stderr goes to /dev/null.
 * @cpu:   if not NULL, its CPU time (user + system, from wait4()) in
 *         seconds: on a shared machine wall time measures the others.
 *
 * Return: its exit status; -1 if it could not be started or was killed.
 */
int bench_child_run(char *const argv[], int outfd, double *cpu);

/**
 * bench_child_time() - run a program to its end with its stdout in a file.
 * @argv: as bench_child_run().
 * @path: the file its stdout goes to (created or truncated, mode 0600);
 *        NULL: /dev/null.
 *
 * Return: its CPU time in seconds (as bench_child_run()'s @cpu); < 0 if
 * the file could not be opened or the program did not exit with 0.
 */
double bench_child_time(char *const argv[], const char *path);

/**
 * bench_child_wait() - wait for a child started by the caller.
 * @pid: the child.
 * @cpu: as bench_child_run().
 *
 * Return: as bench_child_run().
 */
int bench_child_wait(pid_t pid, double *cpu);

/**
 * bench_child_value() - a number a program prints.
 * @argv: as bench_child_run().
 * @key:  the line "<key>: <number>" of its stdout to read.
 *
 * Return: the number; 0 if the line is missing or the program failed.
 */
unsigned long long bench_child_value(char *const argv[], const char *key);

/**
 * bench_listing_next_ip() - the next instruction address of a ptflow
 * listing (`--no-inst` lines: hex address, leading blanks allowed; lines
 * that start with '[' are events and skipped).
 * @f:  the listing.
 * @ip: receives the address.
 *
 * Return: true with *@ip set; false at the end of @f or on a line that
 * does not start with an address.
 */
bool bench_listing_next_ip(FILE *f, unsigned long long *ip);

/**
 * bench_load_file() - a whole file in malloc'ed memory, read with stdio as
 * libipt's tools load a trace (ptdump/src/ptdump.c load_file()).
 * @path: the file.
 * @len:  its size in bytes.
 *
 * Return: the buffer (free() it), or NULL if the file is empty or cannot
 * be read (errno set).
 */
uint8_t *bench_load_file(const char *path, size_t *len);

/**
 * bench_flow_data() - the flow generator's traces of trace_flow_prog
 * (tests/model/pt, the input of bench_ptflow and bench_perf_read): runs
 * `LWPT_TRACE_FLOW_DUMP=DIR test_pt_trace_flow` once when
 * @bindir/../bench-data/flow/trace_flow_0.pt is missing.
 * @bindir: the directory of the running bench (build/bench).
 * @data:   receives @bindir/../bench-data/flow.
 * @size:   size of @data.
 *
 * Return: 0 when the traces are there, -1 when the generator is not built
 * or could not write them (ptrace not permitted).
 */
int bench_flow_data(const char *bindir, char *data, size_t size);

/**
 * bench_repeat_opt() - the benches' one option, -n REPEAT (decodes per
 * measurement), parsed with getopt().
 * @argc, @argv: main()'s arguments.
 * @def:  REPEAT when -n is not given.
 *
 * Return: REPEAT (a value below 1 counts as 1), or -1 after a usage line
 * on stderr for any other option (the caller exits 2).
 */
int bench_repeat_opt(int argc, char **argv, int def);

#endif /* LWPT_TESTS_BENCH_CHILD_H */
