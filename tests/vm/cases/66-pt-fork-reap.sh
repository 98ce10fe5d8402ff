#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-timeout: 1500
# Buffers of threads that ended are freed once read (issue 39 item 8;
# Documentation/pt.rst, "Buffers of threads that ended"): pt_test
# thread-reap, as uid 1000 with RLIMIT_MEMLOCK for 20 buffers and no free
# allowance (pt_mlock_kb=0), traces a forker that makes short-lived
# children one after another (8 at most alive or unread), reads each
# child's buffer and frees it (RELEASE with LWPT_PT_REL_DONE): more
# children than the module's 4096-buffer cap, all traced, none lost,
# buffer numbers reused (below 9), every charge given back (else the 21st
# child would find no buffer). Hostile checks: no free while the buffer is
# mapped (also moved by mremap, or half unmapped), while its thread is
# traced, or with bytes unread; a freed number's status and mmap; a burst
# of 64 exits stays within RLIMIT_MEMLOCK (VmPin) and counts the rest
# lost, and the freed charges trace the next children again. Run without
# the model's execution (pt_exec=0: the lifecycle, fast) and with it
# (trace bytes read). No spec violation, the module unloads.
. /lwpt/lib.sh

for combo in 0:4200 1:300; do
	exec=${combo%:*}
	n=${combo#*:}
	tag="full pt_exec=$exec"
	lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko "pt_profile=full pt_exec=$exec" >/dev/null ||
		fail "insmod $tag" || exit 1
	pt_test_run thread-reap "$n" 8 || exit 1
	echo "$out" | grep -E "^ok: reap: ([0-9]+ children|nr_buffers|a burst|VmPin|after the burst)"
	[ "$(sim_violations)" = 0 ] || fail "$tag: violations $(sim_violations)" || exit 1
	module_idle lwpt_sim
	lwpt_vmtool rmmod lwpt_sim >/dev/null || fail "$tag: rmmod" || exit 1
	ok "$tag: no spec violation, module unloads"
done
