#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# perftest through doorbell under valgrind memcheck, inside the guest.
# ib_send_bw and ib_write_lat run as server/client pairs on the guest's
# device (db_ibdev); in each pair one side runs under memcheck (the server
# for ib_send_bw, the client for ib_write_lat, so both roles are covered).  A pair passes when both
# sides complete and memcheck reports no error with a doorbell frame in its
# stack (invalid reads/writes, uses of uninitialised values, bad frees,
# definitely-lost leaks allocated by doorbell).  Errors with no doorbell
# frame (libibverbs, perftest, libc) are counted and shown, not failed.
#
# Exit 1 if a pair failed.
#
# Usage: tests/guest/memcheck.sh   (run inside tests/vm/run.sh)
# Needs RDMAV_DRIVERS pointing at the doorbell build.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../../scripts/lib.sh"	# pass, fail, skip
dev=$(db_ibdev)
gid=${DOORBELL_VM_GID_INDEX:-1}
addr=${DOORBELL_VM_IPV4:-127.0.0.1}
logs=$(mktemp -d)
export DOORBELL_DEBUG=1
# shellcheck source=tests/guest/lib/pair-lib.sh
. "$here/lib/pair-lib.sh"

if ! command -v valgrind >/dev/null; then
	fail memcheck_available "valgrind is not installed"
	exit 1
fi

# Count the errors in a memcheck XML log: "total provider"; prints the
# provider ones (kind, top doorbell frame) on stderr.
count_errors() {
	/usr/bin/python3 - "$1" <<'EOF'
import sys
import xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except (ET.ParseError, FileNotFoundError) as e:
    print("-1 -1")
    sys.exit(0)
total = ours = 0
others = {}
for err in root.iter("error"):
    kind = err.findtext("kind") or "?"
    if kind.startswith("Leak_") and kind != "Leak_DefinitelyLost":
        continue
    total += 1
    frames = [(f.findtext("obj") or "", f.findtext("fn") or "?",
               f.findtext("file") or "", f.findtext("line") or "")
              for f in err.iter("frame")]
    mine = [f for f in frames if "libdoorbell" in f[0]]
    if mine:
        ours += 1
        o, fn, fl, ln = mine[0]
        print(f"    {kind}: {fn} ({fl}:{ln})", file=sys.stderr)
    elif frames:
        top = [f for f in frames if "vgpreload" not in f[0]] or frames
        o, fn = top[0][0].rsplit("/", 1)[-1], top[0][1]
        others[(kind, fn, o)] = others.get((kind, fn, o), 0) + 1
for (kind, fn, o), n in sorted(others.items()):
    print(f"    not doorbell: {n} x {kind} in {fn} ({o})", file=sys.stderr)
print(total, ours)
EOF
}

vg=(valgrind --tool=memcheck --xml=yes --leak-check=full
    --errors-for-leak-kinds=definite --child-silent-after-fork=yes)

# mc_try SIDE XML SRV_LOG CLI_LOG CMD...: one try of the pair, SIDE
# (server|client) under memcheck writing XML; sets rc_s and rc_c.
# shellcheck disable=SC2317 # called by pair_tries
mc_try() {
	local side=$1 x=$2 srv=$3 cli=$4 spid
	shift 4
	if [[ $side == server ]]; then
		timeout "$(scaled 600)" "${vg[@]}" --xml-file="$x" "$@" >"$srv" 2>&1 &
		spid=$!
		# memcheck starts slowly under TCG: wait for the port.
		rc_c=1
		: >"$cli"
		if wait_port "$(pair_port "$@")" "$spid" "$(scaled 120)"; then
			timeout "$(scaled 600)" "$@" "$addr" >"$cli" 2>&1
			rc_c=$?
		fi
		((rc_c == 0)) || kill "$spid" 2>/dev/null
		wait "$spid"
		rc_s=$?
	else
		timeout "$(scaled 600)" "$@" >"$srv" 2>&1 &
		spid=$!
		wait_port "$(pair_port "$@")" "$spid" "$(scaled 30)"
		timeout "$(scaled 600)" "${vg[@]}" --xml-file="$x" "$@" "$addr" \
			>"$cli" 2>&1
		rc_c=$?
		wait "$spid"
		rc_s=$?
	fi
}

# mc_pair NAME SIDE -- CMD...: SIDE (server|client) runs under memcheck;
# tries again only as pair-lib.sh's pair_tries allows.
mc_pair() {
	local name=$1 side=$2 x=$logs/$1.xml srv=$logs/$1.s cli=$logs/$1.c
	local why=""
	shift 3
	pair_tries "$name" "$srv" "$cli" "" mc_try "$side" "$x" "$srv" "$cli" "$@"
	read -r total ours < <(count_errors "$x" 2>"$logs/$name.ours")
	if ((rc_c != 0 || rc_s != 0)); then
		why="exit codes client $rc_c server $rc_s"
	elif ! grep -q "serving the device with the rxe backend" "$srv" ||
		! grep -q "serving the device with the rxe backend" "$cli"; then
		why="doorbell did not serve both sides"
	elif ((total < 0)); then
		why="no memcheck log"
	elif ((ours > 0)); then
		why="$ours memcheck errors in doorbell"
	fi
	if [[ -n $why ]]; then
		fail "$name" "$why"
		failed=1
		tail -8 "$cli" | sed 's/^/    client| /'
		tail -8 "$srv" | sed 's/^/    server| /'
	else
		pass "$name"
	fi
	echo "    memcheck ($side side): $total errors in all, $ours in doorbell"
	cat "$logs/$name.ours"
}

failed=0
pt=(-d "$dev" -x "$gid" -F -n 100)
mc_pair memcheck_ib_send_bw_server_no_provider_errors server -- \
	ib_send_bw "${pt[@]}"
mc_pair memcheck_ib_write_lat_client_no_provider_errors client -- \
	ib_write_lat "${pt[@]}"
rm -rf "$logs"
exit "$failed"
