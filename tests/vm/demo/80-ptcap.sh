#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The lwpt demo, Intel PT part: ptcap traces a real program (ptcap_hello)
# on lwpt_sim.ko, then ptdump and ptflow read the capture directory
# (Documentation/ptcap.rst, Documentation/ptcap-format.rst).
. /lwpt/lib.sh

echo "== ptcap: Intel PT capture of a program on the model (pt_profile=full)"
lwpt_vmtool insmod $LWPT_KMOD/lwpt_sim.ko pt_profile=full >/dev/null || exit 1
echo "\$ ptcap --size=64K -o /tmp/hello -- ptcap_hello"
ptcap --size=64K -o /tmp/hello -- ptcap_hello || exit 1
echo "\$ ls -l /tmp/hello"
ls -l /tmp/hello
echo "\$ cat /tmp/hello/config"
cat /tmp/hello/config
echo "\$ cat /tmp/hello/maps"
cat /tmp/hello/maps
echo
echo "The model does not generate packets from execution yet (Documentation/pt.rst,"
echo "\"Limits\"): the trace files are empty here and the decoders say so. On PT"
echo "hardware with lwpt.ko the same commands decode the program's instruction flow."
for f in /tmp/hello/*.pt; do
	echo "\$ ptdump $f"
	ptdump "$f" >/tmp/ptdump.out 2>&1
	rc=$?
	head -n 20 /tmp/ptdump.out
	echo "(ptdump exit status $rc)"
done
echo "\$ ptflow /tmp/hello"
ptflow /tmp/hello >/tmp/ptflow.out 2>&1
rc=$?
head -n 20 /tmp/ptflow.out
echo "(ptflow exit status $rc)"
echo
echo "spec violations: $(sim_violations)"
[ "$(sim_violations)" = 0 ] || exit 1
lwpt_vmtool rmmod lwpt_sim >/dev/null || exit 1
