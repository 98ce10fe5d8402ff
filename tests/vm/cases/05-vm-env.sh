#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The VM itself: 2 CPUs, debugfs mounted, and every dynamically linked
# program copied into /bin finds its shared libraries (tests/vm/run copies
# what ldd lists).
. /lwpt/lib.sh

[ "$(nproc)" -eq 2 ] || fail "$(nproc) CPUs, want 2" || exit 1
grep -q ' /sys/kernel/debug debugfs ' /proc/mounts || fail "no debugfs" || exit 1
ldso=$(ls /lib64/ld-linux-x86-64.so.2 2>/dev/null || true)
n=0
for p in /bin/*; do
	[ -L "$p" ] && continue		# busybox applets
	head -c 4 "$p" | grep -q 'ELF' || continue
	[ -n "$ldso" ] || continue		# everything is static
	# --verify: 0 for a dynamic executable, non-zero for a static one.
	"$ldso" --verify "$p" >/dev/null 2>&1 || continue
	out=$("$ldso" --list "$p" 2>&1)
	if echo "$out" | grep -q 'not found'; then
		echo "$out"
		fail "$p: missing libraries"
		exit 1
	fi
	n=$((n + 1))
done
ok "2 CPUs, debugfs, $n dynamic programs resolve their libraries"
