// SPDX-License-Identifier: GPL-2.0
/*
 * The jitdump and perf map writer of lwpt-jitdemo (see jit_dump.h).
 */
#include "tools/lwpt-jitdemo/jit_dump.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* The file header (jitdump-specification.txt, "Header"). */
struct jitdump_header {
	uint32_t magic;
	uint32_t version;
	uint32_t total_size;	/* of this header */
	uint32_t elf_mach;
	uint32_t pad1;
	uint32_t pid;
	uint64_t timestamp;
	uint64_t flags;
};

/* JIT_CODE_LOAD, followed by the name and the code bytes. */
struct jitdump_code_load {
	uint32_t id;
	uint32_t total_size;	/* of the record, name and code included */
	uint64_t timestamp;
	uint32_t pid;
	uint32_t tid;
	uint64_t vma;
	uint64_t code_addr;
	uint64_t code_size;
	uint64_t code_index;
};

_Static_assert(sizeof(struct jitdump_header) == 40, "jitdump header");
_Static_assert(sizeof(struct jitdump_code_load) == 56, "JIT_CODE_LOAD");

static FILE *dump_file;
static uint64_t code_index;

/* CLOCK_MONOTONIC in ns: the clock perf's jitdump expects by default. */
static uint64_t dump_time(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int dump_open(void)
{
	const char *dir = getenv("LWPT_JITDUMP_DIR");
	struct jitdump_header h;
	char path[4096];
	long page = sysconf(_SC_PAGESIZE);
	void *mark;
	int fd;

	snprintf(path, sizeof(path), "%s/jit-%d.dump", dir ? dir : "/tmp",
		 (int)getpid());
	fd = open(path, O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	/* The marker mapping of jit-interface.txt: kept until exit. */
	mark = mmap(NULL, (size_t)page, PROT_READ | PROT_EXEC, MAP_PRIVATE,
		    fd, 0);
	dump_file = fdopen(fd, "w");
	if (!dump_file || mark == MAP_FAILED) {
		int err = errno;

		if (dump_file)
			fclose(dump_file);
		else
			close(fd);
		dump_file = NULL;
		return -err;
	}
	memset(&h, 0, sizeof(h));
	h.magic = JITDUMP_MAGIC;
	h.version = JITDUMP_VERSION;
	h.total_size = sizeof(h);
	h.elf_mach = EM_X86_64;
	h.pid = (uint32_t)getpid();
	h.timestamp = dump_time();
	if (fwrite(&h, sizeof(h), 1, dump_file) != 1)
		return -EIO;
	return 0;
}

int jit_dump_code(const char *name, const void *code, size_t size)
{
	struct jitdump_code_load r;
	size_t name_len = strlen(name) + 1;
	char path[64];
	int err = 0;
	FILE *map;

	if (!dump_file)
		err = dump_open();
	if (!err) {
		memset(&r, 0, sizeof(r));
		r.id = JITDUMP_CODE_LOAD;
		r.total_size = (uint32_t)(sizeof(r) + name_len + size);
		r.timestamp = dump_time();
		r.pid = (uint32_t)getpid();
		r.tid = (uint32_t)syscall(SYS_gettid);
		r.vma = (uint64_t)(uintptr_t)code;
		r.code_addr = r.vma;
		r.code_size = size;
		r.code_index = code_index++;
		if (fwrite(&r, sizeof(r), 1, dump_file) != 1 ||
		    fwrite(name, name_len, 1, dump_file) != 1 ||
		    fwrite(code, size, 1, dump_file) != 1 || fflush(dump_file))
			err = -EIO;
	}

	snprintf(path, sizeof(path), "/tmp/perf-%d.map", (int)getpid());
	map = fopen(path, "a");
	if (!map || fprintf(map, "%" PRIxPTR " %zx %s\n", (uintptr_t)code,
			    size, name) < 0 || fclose(map)) {
		if (!err)
			err = -errno;
	}
	if (err)
		fprintf(stderr, "lwpt-jitdemo: warning: jitdump/perf map: %s\n",
			strerror(-err));
	return err;
}
