// SPDX-License-Identifier: GPL-2.0
/*
 * Opening and reading the files a capture directory or a perf.data names
 * (include/lwpt/ptcap_dir.h ptcap_file_open(), ptcap_dir_read_file()):
 * regular files only, opened without blocking on a FIFO or a device, up to
 * a limit. The limits are in Documentation/ptcap-format.rst "Limits".
 */
#include <lwpt/ptcap_dir.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A file this size or smaller is never refused as sparse. */
#define SPARSE_MIN	(16ull << 20)

int ptcap_file_open(const char *dir, const char *name, uint64_t max,
		    unsigned int flags, uint64_t *size)
{
	int oflags = O_RDONLY | O_CLOEXEC | O_NONBLOCK, fd, fl, e;
	char *path = NULL;
	struct stat st;

	if (!name)
		return -PTCAP_E_INVAL;
	if (dir && asprintf(&path, "%s/%s", dir, name) < 0)
		return -PTCAP_E_NOMEM;
	if (flags & PTCAP_FILE_NOFOLLOW)
		oflags |= O_NOFOLLOW;
	fd = open(path ? path : name, oflags);
	e = errno;
	free(path);
	if (fd < 0) {
		errno = e;
		return -PTCAP_E_IO;
	}
	if (fstat(fd, &st)) {
		e = errno;
		close(fd);
		errno = e;
		return -PTCAP_E_IO;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return -PTCAP_E_NOT_REGULAR;
	}
	if ((flags & PTCAP_FILE_NOT_SPARSE) && (uint64_t)st.st_size > SPARSE_MIN &&
	    (uint64_t)st.st_blocks * 512 < (uint64_t)st.st_size / 64) {
		close(fd);
		return -PTCAP_E_SPARSE;
	}
	if (max && (uint64_t)st.st_size > max) {
		close(fd);
		return -PTCAP_E_TOO_LARGE;
	}
	/* A regular file does not block; reads see no EAGAIN either way. */
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	if (size)
		*size = (uint64_t)st.st_size;
	return fd;
}

int ptcap_dir_read_file_max(const char *dir, const char *name, uint64_t max,
			    char **buf, size_t *len)
{
	uint64_t size;
	size_t done = 0;
	char *data;
	int fd, e;

	if (!name || !buf || !len)
		return -PTCAP_E_INVAL;
	fd = ptcap_file_open(dir, name, max, PTCAP_FILE_NOT_SPARSE, &size);
	if (fd < 0)
		return fd;
	if (size >= SIZE_MAX) {
		close(fd);
		return -PTCAP_E_TOO_LARGE;
	}
	data = malloc((size_t)size + 1);
	if (!data) {
		close(fd);
		return -PTCAP_E_NOMEM;
	}
	/* Up to the size fstat() gave: a file that grows is read as it was
	 * then, one that shrinks as far as it goes. */
	while (done < size) {
		ssize_t n = read(fd, data + done, (size_t)size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			free(data);
			close(fd);
			errno = e;
			return -PTCAP_E_IO;
		}
		if (!n)
			break;
		done += (size_t)n;
	}
	close(fd);
	data[done] = '\0';
	*buf = data;
	*len = done;
	return 0;
}

int ptcap_dir_read_file(const char *dir, const char *name, char **buf,
			size_t *len)
{
	return ptcap_dir_read_file_max(dir, name, PTCAP_TEXT_MAX, buf, len);
}
