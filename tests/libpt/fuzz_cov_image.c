// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the coverage decoder's code loaders (include/lwpt/
 * pt_cov.h; issue 36 point 6): a kAFL/Nyx page cache (PREFIX.addr and
 * PREFIX.dump, lpt_cov_image_add_pagecache()) and a capture directory's
 * `maps` file (lpt_cov_image_add_ptcap()), both made from the input in a
 * private directory, then read back at the addresses they name. An input
 * that starts with the maps magic ("lwpt-ptcap-maps") is a `maps` file;
 * any other is a page cache, its first two bytes the length of the .addr
 * part. A crash, a sanitizer report, a leak, a hang or
 * memory out of proportion to the input is a bug; refusals are fine.
 * `make fuzz-cov_image` (FUZZ_SECONDS), seeded with kAFL's page caches and
 * the capture directories of ../shared/repro/inputs.
 */
#include <lwpt/pt_cov.h>
#include <lwpt/ptcap_dir.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static int put(const char *name, const uint8_t *data, size_t size)
{
	char path[128];
	int fd, ok;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	ok = size == 0 || write(fd, data, size) == (ssize_t)size;
	close(fd);
	return ok ? 0 : -1;
}

static void cleanup(void)
{
	static const char *const names[] = { "pc.addr", "pc.dump", "maps",
					     "code" };
	char path[128];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint8_t code[4096] = { 0xc3 };
	struct lpt_cov_image *img;
	char prefix[96];
	uint8_t buf[64];
	size_t i, alen;

	if (!dir[0]) {
		const char *tmp = getenv("TMPDIR");

		snprintf(dir, sizeof(dir), "%s/fuzz-cov-XXXXXX",
			 tmp ? tmp : "/tmp");
		if (!mkdtemp(dir))
			abort();
		atexit(cleanup);
		/* A file `maps` lines may name by a relative path. */
		if (put("code", code, sizeof(code)))
			abort();
	}
	if (size < 1)
		return 0;
	img = lpt_cov_image_alloc();
	if (!img)
		return 0;
	if (size >= sizeof(PTCAP_MAPS_MAGIC) - 1 &&
	    !memcmp(data, PTCAP_MAPS_MAGIC, sizeof(PTCAP_MAPS_MAGIC) - 1)) {
		if (!put("maps", data, size))
			(void)lpt_cov_image_add_ptcap(img, dir, NULL, NULL);
	} else if (size >= 2) {
		alen = (size_t)(data[0] | data[1] << 8);
		data += 2;
		size -= 2;
		if (alen > size)
			alen = size;
		snprintf(prefix, sizeof(prefix), "%s/pc", dir);
		if (!put("pc.addr", data, alen) &&
		    !put("pc.dump", data + alen, size - alen))
			(void)lpt_cov_image_add_pagecache(img, prefix);
	}
	/* Read back at the addresses the input names (8-byte words). */
	for (i = 0; i + 8 <= size && i < 512; i += 8) {
		uint64_t addr;

		memcpy(&addr, data + i, 8);
		(void)lpt_cov_image_read(img, addr, buf, sizeof(buf));
		(void)lpt_cov_image_read(img, addr & ~0xfffull, buf,
					 sizeof(buf));
	}
	lpt_cov_image_free(img);
	return 0;
}
