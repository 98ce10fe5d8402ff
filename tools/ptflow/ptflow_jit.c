// SPDX-License-Identifier: GPL-2.0
/*
 * jitdump and perf map readers (see ptflow_jit.h).
 */
#include "tools/ptflow/ptflow_jit.h"

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <lwpt/ptcap_dir.h>

#include "tools/ptflow/ptflow_image.h"

/* jitdump-specification.txt: the header and the record layouts. */
#define JD_MAGIC		0x4A695444u	/* "JiTD" as a host u32 */
#define JD_VERSION		1u
#define JD_HEADER_SIZE		40u
#define JD_RECORD_SIZE		16u	/* id, total_size, timestamp */
#define JD_CODE_LOAD		0u
#define JD_CODE_LOAD_FIXED	40u	/* pid .. code_index */

const char *ptflow_jit_strerror(int err)
{
	switch (err < 0 ? -err : err) {
	case PTFLOW_JIT_OK: return "success";
	case PTFLOW_JIT_E_IO: return "cannot read the file";
	case PTFLOW_JIT_E_FORMAT: return "not a jitdump or perf map, or corrupt";
	case PTFLOW_JIT_E_NOMEM: return "out of memory";
	case PTFLOW_JIT_E_IMAGE: return "cannot map the code";
	case PTFLOW_JIT_E_NOT_REGULAR: return "not a regular file (a device, FIFO or directory): not read";
	case PTFLOW_JIT_E_TOO_LARGE: return "larger than the limit (4 GiB; perf maps 256 MiB)";
	default: return "unknown error";
	}
}

bool ptflow_jit_is_dump(const char *path)
{
	const char *b = strrchr(path, '/');
	size_t n;

	b = b ? b + 1 : path;
	n = strlen(b);
	return n > 9 && !strncmp(b, "jit-", 4) && !strcmp(b + n - 5, ".dump");
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* The whole file, a regular one of at most PTCAP_DATA_MAX bytes
 * (ptcap_file_open(): a FIFO or a device is refused, never read). */
static int read_all(const char *path, uint8_t **buf, size_t *len)
{
	int err = ptcap_dir_read_file_max(NULL, path, PTCAP_DATA_MAX, (char **)buf, len);

	switch (err) {
	case 0:
		return 0;
	case -PTCAP_E_NOT_REGULAR:
		return -PTFLOW_JIT_E_NOT_REGULAR;
	case -PTCAP_E_TOO_LARGE:
		return -PTFLOW_JIT_E_TOO_LARGE;
	case -PTCAP_E_NOMEM:
		return -PTFLOW_JIT_E_NOMEM;
	default:
		return -PTFLOW_JIT_E_IO;
	}
}

int ptflow_jit_read_dump(const char *path, struct pt_image *image,
			 struct pt_image_section_cache *iscache,
			 struct ptflow_sym *sym, size_t *nfuncs)
{
	const char *module = strrchr(path, '/');
	size_t len, off;
	uint8_t *b;
	int err;

	*nfuncs = 0;
	module = module ? module + 1 : path;
	err = read_all(path, &b, &len);
	if (err)
		return err;
	if (len < JD_HEADER_SIZE || get32(b) != JD_MAGIC ||
	    get32(b + 4) != JD_VERSION || get32(b + 8) < JD_HEADER_SIZE ||
	    get32(b + 8) > len) {
		free(b);
		return -PTFLOW_JIT_E_FORMAT;
	}
	for (off = get32(b + 8); len - off >= JD_RECORD_SIZE;) {
		uint32_t id = get32(b + off), size = get32(b + off + 4);
		const uint8_t *r = b + off + JD_RECORD_SIZE;
		uint64_t addr, csize, rest;
		const char *name;
		size_t nlen;

		if (size < JD_RECORD_SIZE) {
			err = -PTFLOW_JIT_E_FORMAT;
			break;
		}
		if (size > len - off)
			break;		/* cut off: the JIT was still writing */
		if (id != JD_CODE_LOAD) {
			off += size;
			continue;
		}
		if (size < JD_RECORD_SIZE + JD_CODE_LOAD_FIXED + 1) {
			err = -PTFLOW_JIT_E_FORMAT;
			break;
		}
		/* pid, tid, vma, code_addr, code_size, code_index, name */
		addr = get64(r + 16);
		csize = get64(r + 24);
		name = (const char *)r + JD_CODE_LOAD_FIXED;
		rest = size - JD_RECORD_SIZE - JD_CODE_LOAD_FIXED;
		nlen = strnlen(name, rest);
		if (nlen == rest || rest - nlen - 1 != csize || !csize ||
		    addr + csize < addr) {
			err = -PTFLOW_JIT_E_FORMAT;
			break;
		}
		if (ptflow_image_add_raw(image, iscache, path,
					 (uint64_t)(name + nlen + 1 -
						    (const char *)b),
					 csize, addr) < 0) {
			err = -PTFLOW_JIT_E_IMAGE;
			break;
		}
		if (ptflow_sym_add_symbol(sym, name, addr, csize, module)) {
			err = -PTFLOW_JIT_E_NOMEM;
			break;
		}
		(*nfuncs)++;
		off += size;
	}
	free(b);
	return err;
}

int ptflow_jit_read_perf_map(const char *path, struct ptflow_sym *sym,
			     size_t *nfuncs)
{
	const char *module = strrchr(path, '/');
	char line[4096];
	int err = 0, fd;
	FILE *f;

	*nfuncs = 0;
	module = module ? module + 1 : path;
	fd = ptcap_file_open(NULL, path, PTCAP_TEXT_MAX, 0, NULL);
	if (fd == -PTCAP_E_NOT_REGULAR)
		return -PTFLOW_JIT_E_NOT_REGULAR;
	if (fd == -PTCAP_E_TOO_LARGE)
		return -PTFLOW_JIT_E_TOO_LARGE;
	f = fd < 0 ? NULL : fdopen(fd, "r");
	if (!f) {
		if (fd >= 0)
			close(fd);
		return -PTFLOW_JIT_E_IO;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long start, size;
		int name_at = 0;

		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		if (sscanf(line, "%llx %llx %n", &start, &size, &name_at) != 2 ||
		    !name_at || !line[name_at] || !size || start + size < start) {
			err = -PTFLOW_JIT_E_FORMAT;
			break;
		}
		if (ptflow_sym_add_symbol(sym, line + name_at, start, size,
					  module)) {
			err = -PTFLOW_JIT_E_NOMEM;
			break;
		}
		(*nfuncs)++;
	}
	fclose(f);
	return err;
}
