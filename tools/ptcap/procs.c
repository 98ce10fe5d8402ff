// SPDX-License-Identifier: GPL-2.0
/*
 * The processes of a system-wide capture: /proc/PID/maps, comm and exec
 * identity per exec generation (procs.h, Documentation/ptcap-format.rst).
 */
#include "procs.h"
#include "buildid.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One file-backed mapping. */
struct procs_vma {
	uint64_t start, end, offset;
	char *path;
};

/* What one exec of a process mapped. */
struct procs_gen {
	uint64_t first_tsc, last_tsc;	/* reads that found this generation */
	uint64_t entry;			/* first user IP after the exec; 0 */
	uint64_t vdso_start, vdso_end;
	char exe[PATH_MAX];		/* /proc/PID/exe */
	char comm[64];
	struct procs_vma *v;
	size_t n, cap;
};

struct procs_proc {
	pid_t pid;
	unsigned int round;		/* last round it was read in */
	bool gone;			/* its last read found no process */
	struct procs_gen *gen;
	size_t ngen;
};

/*
 * @p in the order first seen; @slot, a power-of-two open-addressing index
 * by pid into @p (index + 1, 0 empty) at most half full: a busy machine
 * names tens of thousands of processes over a capture, and every switch
 * record looks two of them up.
 */
struct ptcap_procs {
	struct procs_proc *p;
	size_t n, cap;
	uint32_t *slot;
	size_t nslot;
	unsigned int round;
};

struct ptcap_procs *ptcap_procs_alloc(void)
{
	return calloc(1, sizeof(struct ptcap_procs));
}

static void gen_fini(struct procs_gen *g)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		free(g->v[i].path);
	free(g->v);
}

void ptcap_procs_free(struct ptcap_procs *ps)
{
	size_t i, k;

	if (!ps)
		return;
	for (i = 0; i < ps->n; i++) {
		for (k = 0; k < ps->p[i].ngen; k++)
			gen_fini(&ps->p[i].gen[k]);
		free(ps->p[i].gen);
	}
	free(ps->p);
	free(ps->slot);
	free(ps);
}

void ptcap_procs_round(struct ptcap_procs *ps)
{
	ps->round++;
}

static int vma_add(struct procs_gen *g, uint64_t s, uint64_t e, uint64_t off,
		   const char *path)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (g->v[i].start == s && g->v[i].end == e &&
		    g->v[i].offset == off && !strcmp(g->v[i].path, path))
			return 0;	/* known from an earlier read */
	if (g->n == g->cap) {
		size_t nc = g->cap ? 2 * g->cap : 32;
		struct procs_vma *nv = realloc(g->v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		g->v = nv;
		g->cap = nc;
	}
	g->v[g->n].path = strdup(path);
	if (!g->v[g->n].path)
		return -ENOMEM;
	g->v[g->n].start = s;
	g->v[g->n].end = e;
	g->v[g->n].offset = off;
	g->n++;
	return 0;
}

/*
 * The first user-mode IP after the exec of @pid: its interpreter's entry
 * point (AT_BASE + the interpreter's e_entry) for a dynamic program, else
 * AT_ENTRY (System V ABI auxiliary vector). 0 when unknown.
 */
static uint64_t exec_entry(pid_t pid)
{
	uint64_t auxv[2], entry = 0, base = 0, e_entry;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	while (read(fd, auxv, sizeof(auxv)) == (ssize_t)sizeof(auxv) && auxv[0] != AT_NULL) {
		if (auxv[0] == AT_ENTRY)
			entry = auxv[1];
		else if (auxv[0] == AT_BASE)
			base = auxv[1];
	}
	close(fd);
	if (!base)
		return entry;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (pread(fd, &e_entry, sizeof(e_entry),
		  (off_t)(base + offsetof(Elf64_Ehdr, e_entry))) != (ssize_t)sizeof(e_entry))
		e_entry = 0;
	close(fd);
	return e_entry ? base + e_entry : 0;
}

/* Read @pid into @g (zeroed by the caller); 0, -ESRCH if gone, -ENOMEM. */
static int gen_read(pid_t pid, struct procs_gen *g)
{
	char path[64], line[4400];
	ssize_t n;
	FILE *f;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	n = readlink(path, g->exe, sizeof(g->exe) - 1);
	g->exe[n > 0 ? n : 0] = '\0';
	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "r");
	if (f) {
		if (fgets(g->comm, sizeof(g->comm), f))
			g->comm[strcspn(g->comm, "\n")] = '\0';
		fclose(f);
	}
	g->entry = exec_entry(pid);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -ESRCH;
	while (!err && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off;
		char perms[8], *p;
		int pos = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms,
			   &off, &pos) < 4 || !pos)
			continue;
		p = line + pos;
		p[strcspn(p, "\n")] = '\0';
		if (!strcmp(p, "[vdso]")) {
			g->vdso_start = s;
			g->vdso_end = e;
		}
		/* Anonymous, [heap], deleted files: no file to read code from. */
		if (p[0] != '/' || strstr(p, " (deleted)"))
			continue;
		err = vma_add(g, s, e, off, p);
	}
	fclose(f);
	/* A process that exited while we read: an empty, unusable read. */
	if (!err && !g->n && !g->exe[0])
		return -ESRCH;
	return err;
}

/* The slot of @pid in @ps->slot: where it is, or the empty one to take. */
static size_t slot_of(const struct ptcap_procs *ps, pid_t pid)
{
	size_t mask = ps->nslot - 1, i = ((uint32_t)pid * 2654435761u) & mask;

	while (ps->slot[i] && ps->p[ps->slot[i] - 1].pid != pid)
		i = (i + 1) & mask;
	return i;
}

/* Index @ps->p[0..n) in a table of @nslot slots; -ENOMEM. */
static int slots_build(struct ptcap_procs *ps, size_t nslot)
{
	uint32_t *slot = calloc(nslot, sizeof(*slot));
	size_t i;

	if (!slot)
		return -ENOMEM;
	free(ps->slot);
	ps->slot = slot;
	ps->nslot = nslot;
	for (i = 0; i < ps->n; i++)
		ps->slot[slot_of(ps, ps->p[i].pid)] = (uint32_t)(i + 1);
	return 0;
}

static struct procs_proc *proc_find(struct ptcap_procs *ps, pid_t pid)
{
	size_t i;

	if (ps->nslot) {
		i = ps->slot[slot_of(ps, pid)];
		if (i)
			return &ps->p[i - 1];
	}
	if (ps->n == ps->cap) {
		size_t nc = ps->cap ? 2 * ps->cap : 64;
		struct procs_proc *np;

		if (nc > UINT32_MAX - 1)
			return NULL;
		np = realloc(ps->p, nc * sizeof(*np));
		if (!np)
			return NULL;
		ps->p = np;
		ps->cap = nc;
	}
	if (2 * (ps->n + 1) > ps->nslot && slots_build(ps, ps->cap * 2))
		return NULL;
	memset(&ps->p[ps->n], 0, sizeof(ps->p[ps->n]));
	ps->p[ps->n].pid = pid;
	ps->slot[slot_of(ps, pid)] = (uint32_t)(ps->n + 1);
	return &ps->p[ps->n++];
}

/* Read @p now; a changed exec identity opens a new generation. */
static int proc_read(struct procs_proc *p, uint64_t tsc)
{
	struct procs_gen g, *last, *ng;
	size_t i;
	int err;

	memset(&g, 0, sizeof(g));
	err = gen_read(p->pid, &g);
	p->gone = err == -ESRCH;
	if (err) {
		gen_fini(&g);
		return p->gone ? 0 : err;
	}
	last = p->ngen ? &p->gen[p->ngen - 1] : NULL;
	if (last && last->entry == g.entry && !strcmp(last->exe, g.exe)) {
		/* Same exec: mappings added since (dlopen) join it. */
		for (i = 0; i < g.n && !err; i++)
			err = vma_add(last, g.v[i].start, g.v[i].end, g.v[i].offset,
				      g.v[i].path);
		last->last_tsc = tsc;
		memcpy(last->comm, g.comm, sizeof(g.comm));
		gen_fini(&g);
		return err;
	}
	ng = realloc(p->gen, (p->ngen + 1) * sizeof(*ng));
	if (!ng) {
		gen_fini(&g);
		return -ENOMEM;
	}
	p->gen = ng;
	g.first_tsc = tsc;
	g.last_tsc = tsc;
	p->gen[p->ngen++] = g;
	return 0;
}

/*
 * Whether @p still runs the program of its last generation: the same
 * /proc/PID/exe. One readlink(), so that a drain that names many known
 * processes stays cheap (ptcap -a traces its own code too).
 */
static bool proc_same_exec(const struct procs_proc *p)
{
	char path[64], exe[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)p->pid);
	n = readlink(path, exe, sizeof(exe) - 1);
	if (n < 0)
		return true;	/* gone (or a kernel thread): nothing new */
	exe[n] = '\0';
	return !strcmp(exe, p->gen[p->ngen - 1].exe);
}

int ptcap_procs_note(struct ptcap_procs *ps, pid_t pid, uint64_t tsc)
{
	struct procs_proc *p;

	if (pid <= 0)
		return 0;
	p = proc_find(ps, pid);
	if (!p)
		return -ENOMEM;
	/*
	 * Once a round, also when the read found no process: the switches
	 * of a round name each short-lived process many times, most of them
	 * gone by the time they are read (seen: thousands of failing /proc
	 * lookups a second on a slow kernel, the trace left undrained).
	 */
	if (p->round == ps->round)
		return 0;
	p->round = ps->round;
	/* Known and not execed since: only the time it was seen current. */
	if (p->ngen && proc_same_exec(p)) {
		p->gen[p->ngen - 1].last_tsc = tsc;
		return 0;
	}
	return proc_read(p, tsc);
}

int ptcap_procs_refresh(struct ptcap_procs *ps, uint64_t tsc)
{
	size_t i;
	int err;

	for (i = 0; i < ps->n; i++) {
		if (ps->p[i].gone)
			continue;	/* a later process with its pid was never seen */
		err = proc_read(&ps->p[i], tsc);
		if (err)
			return err;
	}
	return 0;
}

static FILE *open_in(const char *dir, const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return fopen(path, "w");
}

static int close_checked(FILE *f)
{
	int bad = ferror(f);

	if (fclose(f) || bad)
		return -(errno ? errno : EIO);
	return 0;
}

/* maps.<pid>.<gen>: the format of `maps` (ptcap-format.rst). */
static int gen_write(const char *dir, pid_t pid, size_t k, const struct procs_gen *g,
		     const char *vdso, uint64_t vdso_size)
{
	char name[64];
	FILE *f;
	size_t i;

	snprintf(name, sizeof(name), "maps.%d.%zu", (int)pid, k);
	f = open_in(dir, name);
	if (!f)
		return -errno;
	fprintf(f, "lwpt-ptcap-maps 1\n# process %d, exec generation %zu (%s): "
		"/proc/%d/maps (file-backed)\n# start end offset path\n", (int)pid, k,
		g->exe[0] ? g->exe : "?", (int)pid);
	for (i = 0; i < g->n; i++)
		fprintf(f, "0x%" PRIx64 " 0x%" PRIx64 " 0x%" PRIx64 " %s\n", g->v[i].start,
			g->v[i].end, g->v[i].offset, g->v[i].path);
	if (vdso && g->vdso_end && g->vdso_end - g->vdso_start == vdso_size)
		fprintf(f, "0x%" PRIx64 " 0x%" PRIx64 " 0x0 %s\n", g->vdso_start,
			g->vdso_end, vdso);
	/* which binaries these were: a decoder refuses other ones */
	const char **paths = calloc(g->n + 1, sizeof(*paths));

	if (!paths) {
		fclose(f);
		return -ENOMEM;
	}
	for (i = 0; i < g->n; i++)
		paths[i] = g->v[i].path;
	maps_write_build_ids(f, paths, g->n);
	free(paths);
	return close_checked(f);
}

int ptcap_procs_write(const struct ptcap_procs *ps, const char *dir,
		      const char *vdso, uint64_t vdso_size, unsigned int *missing)
{
	FILE *f = open_in(dir, "processes");
	size_t i, k;
	int err = 0;

	*missing = 0;
	if (!f)
		return -errno;
	fprintf(f, "lwpt-ptcap-processes 1\n"
		"# pid gen first-tsc last-tsc entry maps comm: each process the context\n"
		"# switches name, per exec generation; \"<pid> missing\": exited before\n"
		"# ptcap could read /proc/<pid>/maps (its trace cannot be decoded)\n");
	for (i = 0; i < ps->n && !err; i++) {
		const struct procs_proc *p = &ps->p[i];

		if (!p->ngen) {
			fprintf(f, "%d missing\n", (int)p->pid);
			(*missing)++;
			continue;
		}
		for (k = 0; k < p->ngen && !err; k++) {
			const struct procs_gen *g = &p->gen[k];

			fprintf(f, "%d %zu %" PRIu64 " %" PRIu64 " 0x%" PRIx64
				" maps.%d.%zu %s\n", (int)p->pid, k, g->first_tsc,
				g->last_tsc, g->entry, (int)p->pid, k, g->comm);
			err = gen_write(dir, p->pid, k, g, vdso, vdso_size);
		}
	}
	if (err) {
		fclose(f);
		return err;
	}
	err = close_checked(f);
	return err ? err : (int)ps->n;
}
