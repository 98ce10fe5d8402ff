/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptflow's decoding core: one session (image, parameters, output options,
 * counters) and the decode loop over a trace buffer, separate from the
 * command line so that it can be tested in-process.
 *
 * Output format and error policy: Documentation/ptflow.rst.
 */
#ifndef LWPT_TOOLS_PTFLOW_DECODE_H
#define LWPT_TOOLS_PTFLOW_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <intel-pt.h>

#include <lwpt/pt_flow.h>
#include <lwpt/ptcap_dir.h>
#include "tools/ptflow/ptflow_calls.h"
#include "tools/ptflow/ptflow_disasm.h"
#include "tools/ptflow/ptflow_line.h"
#include "tools/ptflow/ptflow_resume.h"
#include "tools/ptflow/ptflow_sym.h"
#include "tools/ptflow/ptflow_time.h"

/*
 * Instructions decoded without the trace offset moving before ptflow calls
 * it an error. The instruction flow decoder follows direct branches without
 * reading trace, so a corrupt trace that lands in "jmp ." would loop
 * forever; real code cannot run this long without a conditional or indirect
 * branch or a return, which consume trace.
 */
#define PTFLOW_MAX_INSN_NO_PROGRESS	(1u << 22)
/* Instructions between two checks of that progress (a libipt call). */
#define PTFLOW_PROGRESS_SAMPLE		1024u

/*
 * Zero bytes that must follow every trace buffer handed to
 * ptflow_decode_buffer(). libipt 2.0.5's PSB search reads on past the end
 * of the buffer while the bytes look like PSB payload (02 82 ...), e.g. when
 * a trace is cut inside a PSB; zero bytes stop it at once. Found by the
 * guard-page tests in tests/tools/ptflow/test_ptflow_decode.c.
 */
#define PTFLOW_TRACE_PAD	64

/* Decode errors reported on the error stream before going quiet there. */
#define PTFLOW_MAX_STDERR_ERRORS	10

/* What to print; all false is the default output. */
struct ptflow_options {
	bool no_inst;		/* --no-inst: addresses only */
	bool quiet;		/* --quiet: no flow output */
	bool time;		/* --time: TSC before each instruction */
	bool offset;		/* --offset: trace offset before each line */
	bool raw_insn;		/* --raw-insn: instruction bytes */
	bool stat;		/* --stat: counts at the end (by the caller) */
	bool intel;		/* --intel: Intel syntax (default AT&T) */
	bool no_symbols;	/* --no-symbols: no <symbol+off> */
	bool line;		/* --line: DWARF file:line after the symbol */
	bool calls;		/* --calls: call/return trace, no flow */
	bool report;		/* --report: hot spots, no flow */
	bool export_chrome;	/* --export=chrome: timeline, no flow */
};

/* The decoder parameters, from the command line or a ptcap config. */
struct ptflow_params {
	struct pt_cpu cpu;		/* vendor pcv_unknown: no errata */
	bool has_cpu;
	uint8_t mtc_freq;		/* IA32_RTIT_CTL.MTCFreq */
	uint8_t nom_freq;		/* MSR_PLATFORM_INFO[15:8] */
	bool has_mtc_freq, has_nom_freq;
	uint32_t cpuid_15_eax;		/* CPUID.15H:EAX */
	uint32_t cpuid_15_ebx;		/* CPUID.15H:EBX */
	bool has_cpuid_15_eax, has_cpuid_15_ebx;
	uint64_t tsc_freq_hz;		/* TSC frequency (ptflow_time.h) */
	bool has_tsc_freq;
	/* The IP filter the trace was recorded with (a ptcap config's
	 * addr<n> lines): libipt needs it for erratum SKL014. */
	struct ptcap_addr_range addr[PTCAP_ADDR_RANGES];
};

struct lpt_cov_build_ids;

/* A decoding session; set up with ptflow_init(), torn down by ptflow_fini. */
struct ptflow {
	const char *prog;		/* prefix of error messages */
	FILE *out;			/* the flow */
	/*
	 * Instruction lines buffered for @out (ptflow_line.h); flushed before
	 * anything else is written there and when a trace is done.
	 */
	struct ptflow_line line;
	FILE *err;			/* error messages */
	struct ptflow_options opt;
	bool short_line;		/* only addresses and symbols (set by
					 * ptflow_decode_buffer()) */
	struct ptflow_params par;
	struct pt_image_section_cache *iscache;
	struct pt_image *image;		/* shared by all traces */
	struct ptflow_disasm *disasm;	/* created on first decode */
	const char *trace_name;		/* for error messages */
	uint64_t insns;			/* instructions decoded, all traces */
	uint64_t errors;		/* decode errors, all traces */
	uint64_t unreadable;		/* capture files that could not be
					 * read or parsed (exit status 1) */
	struct ptflow_sym *sym;		/* symbols of the image's files */
	struct ptflow_clock clock;	/* set up on first decode */
	bool have_clock;
	/* The views of --calls, --report and --export (ptflow_calls.h). */
	struct ptflow_calls calls;
	struct ptflow_report *total;	/* --report: all traces */
	size_t reports;			/* traces in @total */
	struct ptflow_chrome *chrome;	/* --export=chrome */
	/* The thread of the next ptflow_decode_buffer() (label, ids). */
	const char *thread;
	/* A BTS trace's first instruction, before its first record (its
	 * bts-start line, ptcap-format.rst), or 0: not known. */
	uint64_t bts_start;
	uint32_t pid, tid;
	/*
	 * System-wide captures (ptflow_sys.h). @span_cb, if set, is called
	 * when the decoder enters a span (after each sync, at enabled and
	 * overflow events) with the decoder and its trace offset, before the
	 * span's first instruction; it may set the decoder's image and the
	 * thread, and returns enum ptflow_span_action. With @own_views the
	 * caller starts and ends the views' threads (ptflow_view_begin()),
	 * not ptflow_decode_buffer().
	 */
	int (*span_cb)(struct ptflow *pf, struct pt_insn_decoder *dec,
		       uint64_t offset);
	void *span_ctx;
	bool own_views;
	bool mute;			/* decode without output or counts */
	uint64_t muted_errors;		/* decode errors while @mute */
	/*
	 * Where losses cut the next ptflow_decode_buffer()'s packet stream
	 * (ptcap_config_gaps(): byte offsets, ascending), set by the caller;
	 * @seg_base and @seg_cut describe the piece being decoded.
	 */
	const uint64_t *gaps;
	size_t ngaps;
	uint64_t seg_base;		/* offset of the piece in the trace */
	bool seg_cut;			/* the piece ends at a gap */
	/*
	 * Another engine (--engine=lwpt: ptflow_flow.h): when set, decodes
	 * each piece of a trace (a trace, or the part before a gap) instead
	 * of libipt, printing through ptflow_emit_*(); @engine_free(@engine)
	 * at ptflow_fini().
	 */
	int (*piece)(struct ptflow *pf, uint8_t *buf, size_t len, uint64_t base,
		     bool cut);
	void *engine;
	void (*engine_free)(void *engine);
	/*
	 * The time (TSC estimate, libipt's pt_insn_time()) of what the other
	 * engine hands to ptflow_emit_*() next: @emit_tsc for an instruction,
	 * an event, a block's instructions but its last, @emit_end_tsc for a
	 * block's last. 0 where the engine has none.
	 */
	uint64_t emit_tsc, emit_end_tsc;
	/* The trace offset --offset prints for what it hands over next
	 * (libipt's pt_insn_get_offset() before the call; @seg_base added). */
	uint64_t emit_off;
	/* The synthetic trace being decoded after a skipped span, or NULL. */
	const struct ptflow_resume *syn;
	uint64_t gaps_seen;		/* gaps met, all traces */
	/*
	 * -j N (0: not given, 1) and --chunk-size (0: the default): the
	 * lwpt engine's chunks of one trace piece on N threads
	 * (ptflow_flow.h).
	 */
	unsigned int jobs;
	size_t chunk;
	/* Build-ids (ptflow_buildid.h): --force, libpt's verdicts. */
	bool force_build_id;
	struct lpt_cov_build_ids *bids;
};

/* What @span_cb wants done with the span the decoder enters. */
enum ptflow_span_action {
	PTFLOW_SPAN_DECODE,	/* decode and print */
	PTFLOW_SPAN_MUTE,	/* decode, print and count nothing (a span
				 * that --pid/--tid did not select) */
	PTFLOW_SPAN_SKIP,	/* cannot be decoded: go on at the next PSB */
};

/**
 * ptflow_init() - set up a session with an empty image.
 * @pf:   the session, zeroed here.
 * @prog: program name for messages.
 * @out:  stream for the flow (stdout in the tool).
 * @err:  stream for error messages (stderr in the tool).
 *
 * Options and parameters may be set in @pf->opt and @pf->par afterwards,
 * images added to @pf->image through @pf->iscache (ptflow_image.h).
 *
 * The symbol table @pf->sym is filled by the caller (ptflow_sym.h) along
 * with the image.
 *
 * Return: 0, or -pte_nomem (the session is then already finalized).
 */
int ptflow_init(struct ptflow *pf, const char *prog, FILE *out, FILE *err);

/**
 * ptflow_fini() - release everything a session holds.
 * @pf: the session; may be partially initialized.
 */
void ptflow_fini(struct ptflow *pf);

/**
 * ptflow_params_from_config() - fill parameters not set yet from a config.
 * @par: the parameters; fields whose has_* flag is set are kept (the
 *       command line overrides the capture's config file).
 * @cfg: a parsed ptcap `config` file.
 */
void ptflow_params_from_config(struct ptflow_params *par,
			       const struct ptcap_config *cfg);

/**
 * ptflow_views_start() - set up the views chosen in @pf->opt (calls,
 * report, export) before the first ptflow_decode_buffer().
 * @pf: the session.
 *
 * Return: 0, or -1 when out of memory (after a message).
 */
int ptflow_views_start(struct ptflow *pf);

/**
 * ptflow_views_finish() - after the last trace: print the total report
 * (when more than one trace was reported).
 * @pf: the session.
 */
void ptflow_views_finish(struct ptflow *pf);

/**
 * ptflow_view_begin() - start the views' thread @pf->thread (@pf->pid,
 * @pf->tid) in @pf->calls: a new call stack, and a report with --report.
 * @pf: the session, after ptflow_views_start().
 *
 * Return: 0, or -1 when out of memory (after a message).
 */
int ptflow_view_begin(struct ptflow *pf);

/**
 * ptflow_view_end() - end the thread in @pf->calls: close its open frames,
 * print its report (--report) and add it to the total.
 * @pf: the session.
 *
 * Return: 0, or -1 when out of memory (after a message).
 */
int ptflow_view_end(struct ptflow *pf);

/**
 * ptflow_line_sync() - flush buffered instruction lines to @pf->out, before
 * a caller writes there itself.
 * @pf: the session.
 */
void ptflow_line_sync(struct ptflow *pf);

/**
 * ptflow_decode_buffer() - print the instruction flow of one trace.
 * @pf:   the session.
 * @buf:  the raw Intel PT bytes; read only (libipt's API takes non-const).
 *        Must be followed by PTFLOW_TRACE_PAD readable zero bytes.
 * @len:  number of bytes of trace in @buf (without the padding); 0 is a
 *        trace without PSB.
 * @name: the trace's name in error messages.
 *
 * With --calls, --report or --export the flow is not printed; the
 * instructions and events go to the call tracker as the thread
 * @pf->thread (pid @pf->pid, tid @pf->tid), and --report prints the
 * trace's table at its end.
 *
 * A trace with gaps (@pf->gaps: a loss ended the output mid-packet, e.g. a
 * ToPA stop, SDM 33.2.7.2) is decoded piece by piece: each piece ends at a
 * gap, which is printed as "[gap at offset 0x<off>: ...]" (a gap event
 * for the views) and is not a decode error, and the next piece starts at
 * the first PSB after it.
 *
 * Decodes from each PSB (SDM 33.4.2.17) on. Each problem in the trace is
 * one decode error: printed as "[resync at offset 0x<off>: <reason>]" on
 * @pf->out, on @pf->err for the first PTFLOW_MAX_STDERR_ERRORS, counted in
 * @pf->errors; decoding goes on at the next PSB (with @span_cb, at the
 * next span: ptflow_resume.h). Problems are libipt's decode errors, no PSB
 * at all, the trace ending while PacketEn=1 or inside a packet or PSB+,
 * and more than PTFLOW_MAX_INSN_NO_PROGRESS instructions without trace
 * progress (seen at the next check, every PTFLOW_PROGRESS_SAMPLE).
 * Decoded instructions are added to @pf->insns.
 *
 * Return: 0 when the trace was decoded (with or without decode errors);
 * -1 when decoding could not start (bad cpu for errata, out of memory),
 * after a message on @pf->err.
 */
int ptflow_decode_buffer(struct ptflow *pf, uint8_t *buf, size_t len,
			 const char *name);

/*
 * The output of another engine (@pf->piece), as libipt's flow is printed
 * or handed to the views: the same lines, the same counts.
 */

/**
 * ptflow_emit_insn() - one decoded instruction: counted, printed or handed
 * to the views, at time @pf->emit_tsc (trace offset @pf->emit_off).
 * @pf:   the session.
 * @insn: ip, size, mode, iclass; raw bytes where the output shows them
 *        (disassembly, --raw-insn) or --calls names a far transfer.
 */
void ptflow_emit_insn(struct ptflow *pf, const struct pt_insn *insn);

/**
 * ptflow_emit_block() - instructions at consecutive addresses of which
 * only the last may branch, where they are not printed one by one: counted
 * and handed to the views as one block (ptflow_calls_block()), the same
 * as ptflow_emit_insn() on each of them (at @pf->emit_tsc, the last one
 * at @pf->emit_end_tsc).
 * @pf:    the session.
 * @ip:    the first instruction's address.
 * @lens:  @ninsn instruction lengths in bytes.
 * @ninsn: instructions, >= 1.
 * @last:  the last instruction, as for ptflow_emit_insn().
 *
 * Return: false, doing nothing, when the flow is printed (then
 * ptflow_emit_insn() on each instruction), else true.
 */
bool ptflow_emit_block(struct ptflow *pf, uint64_t ip, const uint8_t *lens,
		       uint32_t ninsn, const struct pt_insn *last);

/**
 * ptflow_emit_blocks() - a flow engine's blocks (lwpt/pt_flow.h), in trace
 * order, where their instructions are not printed: ptflow_emit_block() on
 * each, from the first on, in one loop (ptflow_calls_blocks()), up to the
 * first block the views do not take whole.
 * @pf: the session.
 * @b:  @n blocks.
 * @n:  their number.
 *
 * Return: how many blocks from @b[0] on were taken; the next one, if any,
 * goes through ptflow_emit_block() (or ptflow_emit_insn() on each of its
 * instructions where the flow is printed: then 0).
 */
size_t ptflow_emit_blocks(struct ptflow *pf, const struct lpt_flow_block *b,
			  size_t n);

/**
 * ptflow_emit_event() - one event, printed ("[...]") or handed to the views
 * (at time @pf->emit_tsc, trace offset @pf->emit_off).
 * @pf: the session.
 * @ev: a libipt event (not a status update).
 */
void ptflow_emit_event(struct ptflow *pf, const struct pt_event *ev);

/**
 * ptflow_emit_error() - one decode error ("[resync at offset ...]"),
 * counted in @pf->errors.
 * @pf:     the session.
 * @offset: byte offset in the trace piece (@pf->seg_base is added).
 * @reason: text.
 * @ip:     the instruction it is at (", ip: ..."), or 0.
 */
void ptflow_emit_error(struct ptflow *pf, uint64_t offset, const char *reason,
		       uint64_t ip);

/**
 * ptflow_emit_end() - "[end of trace]" after a clean end, where the flow is
 * printed.
 * @pf: the session.
 */
void ptflow_emit_end(struct ptflow *pf);

/**
 * ptflow_emit_tail() - the end of a whole trace @buf of @len bytes that
 * another engine decoded (not cut by a gap), as libipt's decoding here
 * ends it: "[end of trace]" and a packet or PSB+ cut by the end of the
 * buffer reported. @after_error: the engine's last item was a decode
 * error, libipt's decoder then at trace offset @offset; libipt's user
 * says the end only when a PSB after it reads (pt_insn_sync_forward()).
 * @pf: the session (offsets printed at @pf->seg_base plus).
 */
void ptflow_emit_tail(struct ptflow *pf, uint8_t *buf, size_t len,
		      bool after_error, uint64_t offset);

#endif /* LWPT_TOOLS_PTFLOW_DECODE_H */
