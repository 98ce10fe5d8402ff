// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target of the capture-directory reader (include/lwpt/
 * ptcap_dir.h, Documentation/ptcap-format.rst; issue 36 point 6): every
 * input goes through each text parser a ptcap directory's files go through
 * (config with its thread.* and gaps.* lines, maps, switches, processes),
 * and what a parser accepts is walked whole. A crash, a sanitizer report,
 * a leak, a hang or memory out of proportion to the input is a bug;
 * refusals are fine. `make fuzz-ptcap_dir` (FUZZ_SECONDS), seeded with the
 * capture directories' files of ../shared/repro/inputs.
 */
#include <lwpt/ptcap_dir.h>

#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct ptcap_processes ps = { 0 };
	struct ptcap_switches sws = { 0 };
	struct ptcap_maps maps = { 0 };
	struct ptcap_config cfg;
	uint32_t tid, pid;
	uint64_t *gaps;
	size_t i, n, line;

	if (!ptcap_config_parse(text, size, &cfg, &line)) {
		(void)ptcap_config_thread(text, size, "tid1.pt", &tid, &pid);
		if (!ptcap_config_gaps(text, size, "cpu0.pt", &gaps, &n))
			free(gaps);
	}
	if (!ptcap_maps_parse(text, size, &maps, &line))
		ptcap_maps_free(&maps);
	if (!ptcap_switches_parse(text, size, &sws, &line)) {
		for (i = 0; i < 4; i++)
			(void)ptcap_switches_at(&sws, (uint32_t)i, 1000 * i);
		ptcap_switches_free(&sws);
	}
	if (!ptcap_processes_parse(text, size, &ps, &line)) {
		(void)ptcap_processes_find(&ps, 1, &n);
		ptcap_processes_free(&ps);
	}
	return 0;
}
