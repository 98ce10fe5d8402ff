// SPDX-License-Identifier: GPL-2.0
/*
 * ptcap's output directory (outdir.h): refuse to mix captures; --force
 * moves the old one aside to DIR.old.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outdir.h"

/* One of ptcap's file names (Documentation/ptcap-format.rst)? */
static bool capture_file(const char *name)
{
	static const char *const names[] = {
		"config", "maps", "switches", "vdso.so", "processes",
	};
	size_t len = strlen(name), i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	if (len > 3 && !strcmp(name + len - 3, ".pt"))
		return true;
	/* ptcap -a: maps.<pid>.<gen> */
	if (!strncmp(name, "maps.", 5) && name[5] >= '0' && name[5] <= '9')
		return true;
	return !strncmp(name, "snap.", 5) && name[5] >= '0' && name[5] <= '9';
}

int ptcap_outdir_check(const char *dir, enum ptcap_outdir_state *state)
{
	bool capture = false, other = false;
	struct dirent *de;
	struct stat sb;
	DIR *d;

	if (stat(dir, &sb)) {
		if (errno != ENOENT)
			return -errno;
		*state = PTCAP_OUTDIR_NONE;
		return 0;
	}
	if (!S_ISDIR(sb.st_mode))
		return -ENOTDIR;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (capture_file(de->d_name))
			capture = true;
		else
			other = true;
	}
	closedir(d);
	*state = other ? PTCAP_OUTDIR_OTHER : capture ? PTCAP_OUTDIR_CAPTURE :
		 PTCAP_OUTDIR_EMPTY;
	return 0;
}

/*
 * Remove a capture directory: its files and snap.<N> subdirectories (one
 * level, files only). Only called on a directory ptcap_outdir_check()
 * found to be a capture or empty.
 */
static int remove_capture(const char *dir, int depth)
{
	char path[PATH_MAX];
	struct dirent *de;
	int err = 0;
	DIR *d = opendir(dir);

	if (!d)
		return -errno;
	while (!err && (de = readdir(d))) {
		struct stat sb;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= sizeof(path))
			err = -ENAMETOOLONG;
		else if (lstat(path, &sb))
			err = -errno;
		else if (S_ISDIR(sb.st_mode) && depth == 0)
			err = remove_capture(path, 1);
		else if (S_ISDIR(sb.st_mode))
			err = -ENOTEMPTY;	/* not ptcap's layout: leave it */
		else if (unlink(path))
			err = -errno;
	}
	closedir(d);
	if (!err && rmdir(dir))
		err = -errno;
	return err;
}

int ptcap_outdir_prepare(const char *dir, bool force, bool *moved)
{
	enum ptcap_outdir_state st, old_st;
	char old[PATH_MAX];
	int err;

	if (moved)
		*moved = false;
	err = ptcap_outdir_check(dir, &st);
	if (err)
		return err;
	switch (st) {
	case PTCAP_OUTDIR_NONE:
		return mkdir(dir, 0777) ? -errno : 0;
	case PTCAP_OUTDIR_EMPTY:
		return 0;
	case PTCAP_OUTDIR_OTHER:
		return -ENOTEMPTY;
	case PTCAP_OUTDIR_CAPTURE:
		break;
	}
	if (!force)
		return -EEXIST;
	if ((size_t)snprintf(old, sizeof(old), "%s" PTCAP_OUTDIR_OLD, dir) >= sizeof(old))
		return -ENAMETOOLONG;
	err = ptcap_outdir_check(old, &old_st);
	if (err)
		return err;
	if (old_st == PTCAP_OUTDIR_OTHER)
		return -ENOTEMPTY;
	if (old_st != PTCAP_OUTDIR_NONE) {
		err = remove_capture(old, 0);
		if (err)
			return err;
	}
	if (rename(dir, old))
		return -errno;
	if (moved)
		*moved = true;
	return mkdir(dir, 0777) ? -errno : 0;
}
