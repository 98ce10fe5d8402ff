/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptflow: the LBR stack a thread had at its fatal signal (ptcap
 * --lbr-on-crash, Documentation/ptcap-format.rst "LBR stacks"), printed as
 * its last branches with symbols.
 */
#ifndef LWPT_TOOLS_PTFLOW_LBR_H
#define LWPT_TOOLS_PTFLOW_LBR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ptflow;

/* Most branches an `lwpt-lbr 1` file holds (LWPT_LBR_ENTRIES_MAX). */
#define PTFLOW_LBR_MAX	32

/**
 * struct ptflow_lbr - one parsed `lwpt-lbr 1` file
 * @tid:    the thread.
 * @signal: the fatal signal.
 * @depth:  entries of the processor's stack.
 * @nr:     branches in @from/@to, most recent first.
 * @from:   source of each branch.
 * @to:     its target.
 * @mispred: the branch was mispredicted (known where the file's flags say
 *          "mispred").
 * @in_tx:  it was in a TSX transaction (known where the flags say "tsx").
 * @abort:  it was a transaction's abort (likewise).
 * @cycles: core cycles since the previous LBR record (LBR format 5), or
 *          -1 where the file gives none.
 */
struct ptflow_lbr {
	uint32_t tid;
	int signal;
	unsigned int depth;
	unsigned int nr;
	uint64_t from[PTFLOW_LBR_MAX];
	uint64_t to[PTFLOW_LBR_MAX];
	bool mispred[PTFLOW_LBR_MAX];
	bool in_tx[PTFLOW_LBR_MAX];
	bool abort[PTFLOW_LBR_MAX];
	int32_t cycles[PTFLOW_LBR_MAX];
};

/**
 * ptflow_lbr_parse() - parse an `lwpt-lbr 1` file.
 * @text: its contents (need not be NUL-terminated).
 * @len:  bytes of @text.
 * @out:  filled.
 *
 * Unknown keys are skipped (later versions add lines), so are unknown
 * words after a branch's addresses.
 * Return: 0; -1 for a file that is not `lwpt-lbr 1`, a malformed branch
 * line (a cycles= word not a number up to 65535 included) or more than
 * PTFLOW_LBR_MAX branches.
 */
int ptflow_lbr_parse(const char *text, size_t len, struct ptflow_lbr *out);

/**
 * ptflow_lbr_config_file() - the LBR file ptcap wrote for a trace file,
 * from its "lbr-crash.<trace> <file> signal=<n>" config line.
 * @config: the config file's text.  @clen: its length.
 * @trace:  the trace file's name, e.g. "tid123.bts".
 * @file:   receives the LBR file's name (NUL-terminated).
 * @size:   bytes of @file.
 *
 * Return: true if the line exists and the name fits and has no '/'.
 */
bool ptflow_lbr_config_file(const char *config, size_t clen, const char *trace,
			    char *file, size_t size);

/**
 * ptflow_lbr_print() - print the last branches on @pf's output, with the
 * symbols of @pf's image: "last branches of tid N (signal S), most recent
 * first:" then one line per branch, "FROM sym+off -> TO sym+off", then
 * "(mispredicted)", "(in transaction)", "(transaction abort)" and "N
 * cycles" where the file says so.
 * @pf:  the session (symbols loaded).
 * @lbr: the stack.
 */
void ptflow_lbr_print(struct ptflow *pf, const struct ptflow_lbr *lbr);

#endif /* LWPT_TOOLS_PTFLOW_LBR_H */
