#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# ptcap's command line without a device: help, option errors (status 2,
# ptcap.1 EXIT STATUS), the message
# when /dev/pt is missing, configuration errors named before anything runs.
# Captures themselves are tested in the VM (tests/vm/cases/80-ptcap-sim.sh).
#
# Usage: ptcap.sh [PTCAP]   (default: $O/bin/ptcap, O=build)

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../../.." && pwd)
ptcap=${1:-${PTCAP:-$top/${O:-build}/bin/ptcap}}

if [ ! -x "$ptcap" ]; then
	echo "ERROR: $ptcap not built"
	echo "0 passed, 1 failed"
	exit 1
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ptcap-sh.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
passed=0
failed=0

# expect NAME STATUS REGEX -- ARGS...: ptcap ARGS exits STATUS, stderr+stdout match REGEX
expect() {
	name=$1 want=$2 re=$3
	shift 4
	out=$("$ptcap" "$@" 2>&1)
	rc=$?
	if [ "$rc" = "$want" ] && printf '%s\n' "$out" | grep -qE -- "$re"; then
		passed=$((passed + 1))
	else
		echo "FAIL: $name: status $rc (want $want): $out"
		failed=$((failed + 1))
	fi
}

expect help 0 '^usage: ptcap -a' -- --help
expect help-options 0 '--mode=wrap[|]stop[|]continuous' -- -h
expect neither 2 'give one of -a, -p PID, -t TID or a command after' --
expect both 2 'give one of -a, -p PID, -t TID or a command after' -- -a -- true
expect pid-and-cmd 2 'give one of -a' -- -p 1 -- true
expect pid-and-tid 2 'give one of -a' -- -p 1 -t 1
# Attach (issue 16.1): several processes, one capture each; the ids must
# exist, each once; what takes one process is refused with several.
expect pids-twice 2 '^ptcap: -p: process 12 given twice' -- -p 12,13,12
expect pids-none 2 "^ptcap: -p: no process id in ','" -- -p ,
expect pids-cr3 2 '^ptcap: --cr3 is a per-CPU capture, of which there is one at a time' -- -p 12,13 --cr3
expect pids-snapshot 2 '^ptcap: --snapshot with several -p processes' -- -p 12,13 --snapshot
expect pids-symbolic 2 '^ptcap: symbolic --filter/--stop with several -p processes' -- -p 12,13 --filter=main
expect pids-gone 1 '^ptcap: -p 2147483646: no such process$' -- -p 2147483646,2147483645 -o "$tmp/out"
expect pid-zero 2 "^ptcap: -p: bad id '0'" -- -p 0
expect pid-word 2 "^ptcap: -p: bad number 'me'" -- -p me
expect snapshot-stop 2 '^ptcap: --snapshot is a flight recorder: wrap mode only, not --mode=stop' -- -a --snapshot --mode=stop
# Issue 27: --lossy is for continuous mode (the per-thread default).
expect lossy-wrap 2 '^ptcap: --lossy is for continuous mode .*, not --mode=wrap' -- --lossy --mode=wrap -- true
expect lossy-all 2 '^ptcap: --lossy is for continuous mode .*, not --mode=wrap' -- -a --lossy
expect help-lossy 0 '--lossy ' -- -h
# --bts: --mode is continuous (the ring, default) or, with a command, stop;
# -p takes one process; -a takes no --mode.
expect bts-wrap 2 '^ptcap: --bts --mode: continuous .* or, with a command, stop .*, not wrap' -- \
	--bts --mode=wrap -- true
expect bts-attach-stop 2 '^ptcap: --bts --mode: .*not stop with -p/-t' -- --bts --mode=stop -p 1
expect bts-all-mode 2 '^ptcap: --bts records .*--lbr-on-crash and --mode not with -a' -- \
	--bts -a --mode=stop
expect bts-pids 2 '^ptcap: --bts records .*one process' -- --bts -p 12,13
expect bts-nothing 2 '^ptcap: give one of -a, -p PID, -t TID or a command' -- --bts
expect bts-gone 1 '^ptcap: -p 2147483646: no such process$' -- --bts -p 2147483646 -o "$tmp/out"
expect bts-help 0 '--bts --mode=continuous' -- -h
expect tid-cr3 2 '^ptcap: --cr3 filters a whole address space: use -p, not -t' -- -t 1 --cr3
expect no-pid 1 '^ptcap: -p 2147483646: no such process$' -- -p 2147483646 -o "$tmp/out"
expect no-tid 1 '^ptcap: -t 2147483646: no such thread$' -- --tid=2147483646 -o "$tmp/out"
expect bad-option 2 'usage' -- --no-such-option
expect bad-mode 2 "--mode: expected wrap, stop or continuous, got 'ring'" -- -a --mode=ring
expect bad-mtc 2 '--mtc: encoding 16 out of 0..15' -- -a --mtc=16
expect bad-size 2 "--size: bad suffix in '4X'" -- -a --size=4X
expect bad-duration 2 "-d: bad duration '0'" -- -a -d 0
expect cpu-no-all 2 '^ptcap: -C selects the CPUs of a system-wide capture: give it with -a' -- -C 0 -- true
expect cpu-no-all-p 2 '^ptcap: -C selects the CPUs' -- -p 1 --cpu=0
expect cpu-bad-list 2 "^ptcap: -C: bad CPU list '0,,1' at ',1': give CPU numbers and ranges" -- -a -C 0,,1
expect cpu-reversed 2 "^ptcap: -C: bad CPU list '3-1' at '3-1'" -- -a --cpu=3-1
expect cpu-huge 2 "^ptcap: -C 0,99999: a CPU above 32767, the most a capture can select" -- -a -C 0,99999
expect bad-range 2 "^ptcap: --filter: '0x1000': expected A-B, SYMBOL, SYMBOL@FILE, FILE or START/SIZE@FILE" -- -a --filter=0x1000
expect bad-range-order 2 "^ptcap: --stop: '0x2000-0x1000': the range ends before it starts" -- -a --stop=0x2000-0x1000
expect bad-offset 2 "^ptcap: --filter: '0x10/0@/bin/true': expected START/SIZE@FILE" -- -a --filter=0x10/0@/bin/true
# Symbols need a process with -a (a position-dependent FILE would not).
expect sym-all 1 "^ptcap: --filter main: 'main': SYMBOL without @FILE needs a traced program" -- \
	--device=/dev/null -a --filter=main -o "$tmp/out"
expect too-many-ranges 2 '--stop: at most 4 address ranges' -- -a --filter=1-2 \
	--filter=3-4 --filter=5-6 --filter=7-8 --stop=9-10
expect cr3-all 2 '--cr3 needs a command' -- -a --cr3
# No device (the node does not exist): the remedy is named; with --device
# the path is named; nothing is created and no command runs.
if [ ! -e /dev/pt ]; then
	expect no-dev 1 '^ptcap: no /dev/pt: load lwpt.ko \(or lwpt_sim.ko\)$' -- \
		-a -o "$tmp/out"
fi
expect no-dev-path 1 "^ptcap: $tmp/nodev: no /dev/pt" -- --device="$tmp/nodev" \
	-o "$tmp/out" -- touch "$tmp/ran"
expect not-pt 1 '/dev/null: not an lwpt PT device' -- --device=/dev/null -a -o "$tmp/out"
if [ -e "$tmp/out" ] || [ -e "$tmp/ran" ]; then
	echo "FAIL: output directory created or command run before an error"
	failed=$((failed + 1))
else
	passed=$((passed + 1))
fi

# Output directory (issue 16.6): a capture in it is refused before the
# device is opened; --force moves it only once the capture can start (here
# the device is wrong: nothing moved); other files are never written into.
mkdir "$tmp/cap" "$tmp/home"
: > "$tmp/cap/config"
: > "$tmp/cap/cpu0.pt"
: > "$tmp/home/notes.txt"
expect outdir-capture 1 "^ptcap: $tmp/cap holds a capture: ptcap never mixes two; give another -o DIR, or --force to move it to $tmp/cap.old\$" -- \
	-a -o "$tmp/cap"
expect outdir-force-nodev 1 'not an lwpt PT device' -- --device=/dev/null --force -a -o "$tmp/cap"
expect outdir-other 1 "^ptcap: $tmp/home: not empty and not a ptcap capture: give a new or empty directory with -o\$" -- \
	--force -a -o "$tmp/home"
expect outdir-file 1 "^ptcap: $tmp/home/notes.txt: not a directory" -- -a -o "$tmp/home/notes.txt"
if [ -e "$tmp/cap/cpu0.pt" ] && [ ! -e "$tmp/cap.old" ] && [ ! -e "$tmp/home.old" ]; then
	passed=$((passed + 1))
else
	echo "FAIL: output directory touched before the capture could start"
	failed=$((failed + 1))
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
