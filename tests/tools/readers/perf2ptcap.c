// SPDX-License-Identifier: GPL-2.0
/*
 * perf2ptcap [--symfs DIR] [--vmlinux FILE] PERF.DATA OUTDIR: write a
 * perf.data's capture as a ptcap directory with lpt_perf_write_ptcap(),
 * the conversion ptflow and ptcov made before they read a perf.data in
 * place (tests/tools/readers/perf_inplace.sh compares the two). OUTDIR
 * must exist and be empty. Exit 0, or 1 after a message.
 */
#include <lwpt/perf_data.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct lpt_perf_code_opts co;
	const char *symfs = NULL, *vmlinux = NULL;
	struct lpt_perf *p;
	int i = 1, e;

	for (; i + 1 < argc && argv[i][0] == '-'; i += 2) {
		if (!strcmp(argv[i], "--symfs"))
			symfs = argv[i + 1];
		else if (!strcmp(argv[i], "--vmlinux"))
			vmlinux = argv[i + 1];
		else
			break;
	}
	if (argc - i != 2) {
		fprintf(stderr, "usage: perf2ptcap [--symfs DIR] [--vmlinux FILE] "
			"PERF.DATA OUTDIR\n");
		return 1;
	}
	e = lpt_perf_open(argv[i], NULL, &p);
	if (e) {
		fprintf(stderr, "perf2ptcap: %s: %s: %s\n", argv[i], lpt_perf_strerror(e),
			lpt_perf_last_error());
		return 1;
	}
	lpt_perf_code_opts_init(p, &co);
	co.symfs = symfs;
	co.vmlinux = vmlinux;
	e = lpt_perf_write_ptcap(p, argv[i + 1], &co, stderr, "perf2ptcap");
	lpt_perf_close(p);
	if (e) {
		fprintf(stderr, "perf2ptcap: %s: %s\n", argv[i + 1], lpt_perf_strerror(e));
		return 1;
	}
	return 0;
}
