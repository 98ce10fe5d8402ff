// SPDX-License-Identifier: GPL-2.0
/*
 * ptflow, ptcov: a module's separate debug information (ptflow_debuginfo.h).
 */
#include "tools/ptflow/ptflow_debuginfo.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEBUG_ROOT	"/usr/lib/debug"

/* Open @path read-only for libdwfl; on success its name in *@name. */
static int try_open(const char *path, char **name)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	*name = strdup(path);
	if (!*name) {
		close(fd);
		return -1;
	}
	return fd;
}

/* /usr/lib/debug/.build-id/NN/REST.debug of @mod's build ID. */
static int by_build_id(Dwfl_Module *mod, char **name)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	char path[sizeof(DEBUG_ROOT "/.build-id/") + 2 * 64 + 8];
	size_t n;
	int len = dwfl_module_build_id(mod, &bits, &vaddr), i;

	if (len < 2 || len > 64)
		return -1;
	n = (size_t)snprintf(path, sizeof(path), DEBUG_ROOT "/.build-id/%02x/", bits[0]);
	for (i = 1; i < len; i++)
		n += (size_t)snprintf(path + n, sizeof(path) - n, "%02x", bits[i]);
	snprintf(path + n, sizeof(path) - n, ".debug");
	return try_open(path, name);
}

/* @link beside @file, in its .debug, under /usr/lib/debug. */
static int by_debuglink(const char *file, const char *link, char **name)
{
	const char *slash;
	char *dir, *path;
	int fd = -1, k;

	if (!file || !link || !*link || strchr(link, '/'))
		return -1;
	/* The file's directory with its slash, or "" */
	slash = strrchr(file, '/');
	dir = strndup(file, slash ? (size_t)(slash - file) + 1 : 0);
	if (!dir)
		return -1;
	/* /usr/lib/debug mirrors absolute directories only. */
	for (k = 0; k < (dir[0] == '/' ? 3 : 2) && fd < 0; k++) {
		if (asprintf(&path, k == 0 ? "%s%s" : k == 1 ? "%s.debug/%s" : DEBUG_ROOT "%s%s",
			     dir, link) < 0)
			break;
		/* Not the file itself (a debuglink naming its own file). */
		if (strcmp(path, file))
			fd = try_open(path, name);
		free(path);
	}
	free(dir);
	return fd;
}

int ptflow_find_debuginfo(Dwfl_Module *mod, void **userdata, const char *modname,
			  Dwarf_Addr base, const char *file_name,
			  const char *debuglink_file, GElf_Word debuglink_crc,
			  char **debuginfo_file_name)
{
	const char *urls = getenv("DEBUGINFOD_URLS");
	int fd;

	if (urls && *urls)
		return dwfl_standard_find_debuginfo(mod, userdata, modname, base, file_name,
						    debuglink_file, debuglink_crc,
						    debuginfo_file_name);
	fd = by_build_id(mod, debuginfo_file_name);
	if (fd < 0)
		fd = by_debuglink(file_name, debuglink_file, debuginfo_file_name);
	if (fd < 0)
		errno = ENOENT;
	return fd;
}
