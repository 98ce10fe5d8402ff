#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# lwpt-info and lwpt-jitdemo on the emulation backend: exit codes, help,
# lwpt-info's Intel PT section, and a value profile that matches the divisor distribution the demo
# generates (70% 10, 20% 3).
O=${O:-build}
BIN=$O/bin
pass=0
fail=0

check() {
	name=$1
	shift
	if "$@"; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "FAIL: $name"
	fi
}

out=$(mktemp)
trap 'rm -f "$out"' EXIT

"$BIN/lwpt-info" >"$out" 2>&1
check "lwpt-info exits 0 with the emulation" test $? -eq 0
check "lwpt-info shows the emu backend usable" \
	grep -q '^backend emu' "$out"
check "lwpt-info: emulation offers VAL and INT only" \
	grep -q 'events available (EAX)    VAL INT$' "$out"
check "lwpt-info: default backend" grep -q 'default backend: emu' "$out"
# Intel PT (SDM 33.3.1): the CPU's CPUID.(07H,0):EBX[25], and /dev/pt if
# the module is loaded (not on the test host: absent); the kernel's
# intel_pt flag implies the CPUID bit.
check "lwpt-info: Intel PT section" grep -q '^Intel PT:$' "$out"
check "lwpt-info: no placeholder left" sh -c "! grep -q 'not reported yet' '$out'"
check "lwpt-info: PT CPUID bit" \
	grep -Eq '^  Intel PT \(07H\.0:EBX\[25\]\) +(yes|no)$' "$out"
if grep -q '^flags.* intel_pt' /proc/cpuinfo; then
	check "lwpt-info: PT CPUID bit matches /proc/cpuinfo" \
		grep -q '^  Intel PT (07H.0:EBX\[25\])  *yes$' "$out"
fi
if [ -e /dev/pt ]; then
	check "lwpt-info: /dev/pt present" grep -q '^  /dev/pt  *present' "$out"
else
	check "lwpt-info: /dev/pt absent" grep -q '^  /dev/pt  *absent$' "$out"
fi
"$BIN/lwpt-info" --help >/dev/null 2>&1
check "lwpt-info --help exits 0" test $? -eq 0
"$BIN/lwpt-info" --bogus >/dev/null 2>&1
check "lwpt-info rejects a bad option with 2" test $? -eq 2
"$BIN/lwpt-info" -b emu >"$out" 2>&1
check "lwpt-info -b emu prints only emu" sh -c "! grep -q '^backend hw' '$out'"
check "lwpt-info -b emu prints no PT" sh -c "! grep -q '^Intel PT' '$out'"

# Issue 14 §3: -b names one backend and the exit status is that backend's.
if [ ! -e /dev/lwp ]; then
	"$BIN/lwpt-info" -b hw >"$out" 2>&1
	check "lwpt-info -b hw exits 1 without /dev/lwp" test $? -eq 1
	check "lwpt-info -b hw says why" grep -q 'usable  *no: no /dev/lwp' "$out"
fi
"$BIN/lwpt-info" -b emu >"$out" 2>&1
check "lwpt-info -b emu exits 0" test $? -eq 0
check "lwpt-info: raw LWP instructions trap on this CPU" \
	grep -q '^  raw LWP instructions  *trap (SIGILL): emulated$' "$out"
"$BIN/lwpt-jitdemo" -b foo >"$out" 2>&1
check "lwpt-jitdemo -b foo exits 2 (usage)" test $? -eq 2
check "lwpt-jitdemo names the wrong argument" \
	grep -q "^lwpt-jitdemo: -b/--backend 'foo': not auto, hw or emu$" "$out"
"$BIN/lwpt-jitdemo" -n 0 >"$out" 2>&1
check "lwpt-jitdemo -n 0 names -n" grep -q '^lwpt-jitdemo: -n: ' "$out"

"$BIN/lwpt-jitdemo" --help >/dev/null 2>&1
check "lwpt-jitdemo --help exits 0" test $? -eq 0
"$BIN/lwpt-jitdemo" -x >/dev/null 2>&1
check "lwpt-jitdemo rejects a bad option with 2" test $? -eq 2
"$BIN/lwpt-jitdemo" -n 20000 -i 9 >"$out" 2>&1
check "lwpt-jitdemo runs" test $? -eq 0
check "lwpt-jitdemo: 2 LWPINS markers, 2000 samples, none missed" \
	grep -q 'LWPINS markers: 2, LWPVAL samples: 2000, MissedEvents: 0' "$out"
top=$(awk '/value profile/ { getline; print $1, $3; exit }' "$out")
pct=${top#* }
check "lwpt-jitdemo: divisor 10 on top ($top)" test "${top%% *}" = 10
check "lwpt-jitdemo: 10 in 65..75% of samples ($pct)" \
	awk -v p="${pct%\%}" 'BEGIN { exit !(p >= 65 && p <= 75) }'
check "lwpt-jitdemo: cost per LWPVAL of the call sequences" \
	grep -Eq '^cost: [0-9.]+ ns CPU per LWPVAL executed, .*\(call sequences;' "$out"
# Raw instructions, trapped by the emulation (SIGILL): the same records.
"$BIN/lwpt-jitdemo" -n 200 -i 9 -R >"$out" 2>&1
check "lwpt-jitdemo -R runs" test $? -eq 0
check "lwpt-jitdemo -R: 20 samples, raw instructions" sh -c \
	"grep -q 'LWPVAL samples: 20, MissedEvents: 0' '$out' && grep -q '(raw instructions;' '$out'"
"$BIN/lwpt-jitdemo" -n 8 -i 0 -d >"$out" 2>&1
check "lwpt-jitdemo -d: 8 LWPVAL records with EventId 1" \
	test "$(grep -c '^  id   1 ' "$out")" -eq 8
check "lwpt-jitdemo -d: exit marker carries the sum" \
	grep -q '^  id 255 .*flags 0x0002 data1 0x00000008' "$out"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
