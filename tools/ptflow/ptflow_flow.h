/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptflow's lwpt engine (--engine=lwpt): libpt's flow engine
 * (lwpt/pt_flow.h) decodes the trace pieces, its blocks expanded into
 * the instructions and events ptflow prints (ptflow_emit_*()), so that
 * the output is libipt's engine's, byte for byte, for the views it
 * supports (Documentation/ptflow.rst "Engines").
 */
#ifndef LWPT_TOOLS_PTFLOW_FLOW_H
#define LWPT_TOOLS_PTFLOW_FLOW_H

#include <stdbool.h>

#include "tools/ptflow/ptflow_decode.h"

/**
 * ptflow_flow_unsupported() - why the lwpt engine cannot give the output
 * the options ask for.
 * @opt: the output options.
 *
 * Return: NULL when it can (the listing with or without disassembly,
 * symbols, --line, --raw-insn, --stat, --quiet, --time, --offset;
 * --calls, --report, --export), else the option it does not support yet
 * (none at present).
 */
const char *ptflow_flow_unsupported(const struct ptflow_options *opt);

/**
 * ptflow_flow_use() - decode @pf's traces with the lwpt engine from now
 * on (sets @pf->piece; the engine is set up at the first piece, from the
 * image and parameters given by then: @pf->par.cpu for errata,
 * @pf->par.addr for the IP filter).
 * @pf: the session.
 */
void ptflow_flow_use(struct ptflow *pf);

/**
 * ptflow_flow_bts_use() - decode @pf's traces as BTS records (a `format
 * bts` capture, Documentation/ptcap-format.rst "BTS trace files") with
 * libpt's BTS decoder (lwpt/bts_decode.h) from now on, its blocks and
 * events printed as the lwpt engine's (the listing, --calls, --report,
 * --export); sets @pf->piece.
 * @pf: the session.
 */
void ptflow_flow_bts_use(struct ptflow *pf);

#endif /* LWPT_TOOLS_PTFLOW_FLOW_H */
