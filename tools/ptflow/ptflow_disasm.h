/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Disassembly of single traced instructions for ptflow, through Capstone.
 */
#ifndef LWPT_TOOLS_PTFLOW_DISASM_H
#define LWPT_TOOLS_PTFLOW_DISASM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <intel-pt.h>

struct ptflow_disasm;

/**
 * ptflow_disasm_alloc() - create a disassembler.
 * @intel: true for Intel syntax, false for AT&T syntax (GNU objdump's
 *         default).
 *
 * Return: the disassembler, or NULL if Capstone cannot be opened for x86 or
 * memory is short.
 */
struct ptflow_disasm *ptflow_disasm_alloc(bool intel);

/**
 * ptflow_disasm_free() - release a disassembler.
 * @d: may be NULL.
 */
void ptflow_disasm_free(struct ptflow_disasm *d);

/**
 * ptflow_disasm_insn() - format one instruction as text.
 * @d:    the disassembler.
 * @mode: libipt's execution mode of the instruction (16, 32 or 64 bit,
 *        from MODE.Exec, SDM 33.4.2.8).
 * @raw:  the instruction bytes.
 * @size: number of bytes in @raw (1..15).
 * @ip:   the instruction's address, for branch targets.
 * @buf:  output, "<mnemonic> <operands>" NUL-terminated, truncated to @len.
 * @len:  size of @buf in bytes (> 0).
 *
 * Return: 0 on success; -1 if @mode is unknown or Capstone cannot decode
 * the bytes; @buf then holds "(bad)".
 */
int ptflow_disasm_insn(struct ptflow_disasm *d, enum pt_exec_mode mode,
		       const uint8_t *raw, size_t size, uint64_t ip,
		       char *buf, size_t len);

#endif /* LWPT_TOOLS_PTFLOW_DISASM_H */
