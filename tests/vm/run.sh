#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# Run a command inside a throw-away QEMU (TCG) guest booting Debian 12's 6.1
# kernel (or Debian 13's / sid's own, --distro; on a Debian 13 host, its own
# 6.12) with a Soft-RoCE device rxe0 on a dummy netdev d0, exit with its
# status. DOORBELL_VM_LINK_TYPE=KIND (default rxe) makes the device of that
# kind instead, KIND0 ("rdma link add KIND0 type KIND netdev d0").
#
# Usage: tests/vm/run.sh [options] -- COMMAND [ARGS...]
#   --out DIR        writable host directory, mounted at the same path in the
#                    guest (default: a new temporary directory, removed if empty;
#                    DOORBELL_VM_OUT in the guest names it)
#   --share DIR      one more writable host directory (repeatable)
#   --env NAME=VALUE set a variable for COMMAND (repeatable)
#   --keep-stock     keep /etc/libibverbs.d/rxe.driver (stock provider) visible
#   --distro D       bookworm (default, $DOORBELL_VM_DISTRO): the host root
#                    and Debian 12's 6.1 kernel (the host's own kernel when
#                    its archive has no 6.1: Debian 13); trixie or sid: that suite's
#                    root tree (prepare.sh builds and caches it) and kernel,
#                    plus the checkout and the host directories COMMAND names
#                    (cwd, COMMAND's dir, absolute paths in its arguments and
#                    --env values) read-only at their host paths
#   --arch A         amd64 (default, $DOORBELL_VM_ARCH), arm64 or s390x:
#                    Debian 12's root and 6.1 kernel of that architecture
#                    (prepare.sh --arch A builds and caches them) under
#                    qemu-system-aarch64 -M virt or qemu-system-s390x -M
#                    s390-ccw-virtio, host directories shared as with
#                    --distro; run binaries of A there
#                    (scripts/ci/build-arch.sh A)
#   --timeout SECS   kill the guest after SECS seconds (default 900), exit 124
#   --mem SIZE       guest memory (default 2G)
#   --smp N          guest CPUs (default 2)
#   --console FILE   save the guest kernel console log to FILE
#   --vfio-user SOCK add a vfio-user PCI device served on the UNIX socket
#                    SOCK (scripts/cx.sh's software ConnectX); QEMU is then
#                    sid's (prepare.sh --qemu-root: Debian 12's has no
#                    vfio-user-pci) and guest memory a shared memfd;
#                    given again, one more device
#   -v, --verbose    print progress, timings and the kernel console on stderr
#   -h, --help       this text
#
# The guest sees the host root (or the distribution's) read-only (9p) under a
# tmpfs overlay, so installed tools and the checkout are at the same paths;
# writes outside the shares are lost. COMMAND runs as root in the caller's cwd with PATH, LANG,
# the caller's DOORBELL_*, RDMAV_*, IBV_* and VERBS_* variables, the --env ones,
# and DOORBELL_VM_{IBDEV,LINK_TYPE,NETDEV,IPV4,GID_INDEX,OUT,KVER,DISTRO}. Its stdout/stderr are
# streamed to ours; the kernel console is kept apart.
# Exit status: COMMAND's; 124 on timeout; 125 if the guest failed to set up
# or died without reporting a status.

set -euo pipefail
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../scripts/lib.sh"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd -P)

out=${DOORBELL_VM_OUT_DIR:-}
shares=()
extra_env=()
keep_stock=${DOORBELL_VM_KEEP_STOCK:-0}
distro=${DOORBELL_VM_DISTRO:-bookworm}
arch=${DOORBELL_VM_ARCH:-amd64}
timeout_s=${DOORBELL_VM_TIMEOUT:-900}
mem=${DOORBELL_VM_MEM:-2G}
smp=${DOORBELL_VM_SMP:-2}
console_copy=${DOORBELL_VM_CONSOLE:-}
verbose=${DOORBELL_VM_VERBOSE:-0}
link_type=$(db_link_type)
vfio_user=()

say() { echo "doorbell-vm: $*" >&2; }
log() { if [[ $verbose == 1 ]]; then say "$@"; fi; }
usage() { sed -n '3,/^$/s/^# \{0,1\}//p' "$0"; }
die() {
	say "error: $*"
	exit 125
}

while (($#)); do
	case "$1" in
	--out) out=${2:?--out needs a directory}; shift ;;
	--out=*) out=${1#*=} ;;
	--share) shares+=("${2:?--share needs a directory}"); shift ;;
	--share=*) shares+=("${1#*=}") ;;
	--env) extra_env+=("${2:?--env needs NAME=VALUE}"); shift ;;
	--env=*) extra_env+=("${1#*=}") ;;
	--keep-stock) keep_stock=1 ;;
	--distro) distro=${2:?--distro needs bookworm, trixie or sid}; shift ;;
	--distro=*) distro=${1#*=} ;;
	--arch) arch=${2:?--arch needs amd64, arm64 or s390x}; shift ;;
	--arch=*) arch=${1#*=} ;;
	--timeout) timeout_s=${2:?--timeout needs seconds}; shift ;;
	--timeout=*) timeout_s=${1#*=} ;;
	--mem) mem=${2:?}; shift ;;
	--mem=*) mem=${1#*=} ;;
	--smp) smp=${2:?}; shift ;;
	--smp=*) smp=${1#*=} ;;
	--console) console_copy=${2:?}; shift ;;
	--console=*) console_copy=${1#*=} ;;
	--vfio-user) vfio_user+=("${2:?--vfio-user needs a socket path}"); shift ;;
	--vfio-user=*) vfio_user+=("${1#*=}") ;;
	-v | --verbose) verbose=1 ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	*) say "unknown option '$1' (COMMAND goes after --)"; usage >&2; exit 2 ;;
	esac
	shift
done
(($#)) || { usage >&2; exit 2; }
[[ $timeout_s =~ ^[0-9]+$ && $timeout_s -gt 0 ]] || die "bad --timeout '$timeout_s'"
[[ $link_type =~ ^[a-z][a-z0-9_]*$ ]] || die "bad DOORBELL_VM_LINK_TYPE '$link_type'"
for e in "${extra_env[@]}"; do
	[[ $e =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "bad --env '$e' (want NAME=VALUE)"
done

t_start=$(date +%s.%N)

# --- kernel, initramfs, host packages ----------------------------------------
case "$distro" in
bookworm | trixie | sid) ;;
*) say "unknown --distro '$distro' (bookworm, trixie or sid)"; exit 2 ;;
esac
case "$arch" in
amd64 | arm64 | s390x) ;;
*) say "unknown --arch '$arch' (amd64, arm64 or s390x)"; exit 2 ;;
esac
prep_args=(--print-env --distro "$distro" --arch "$arch")
[[ $verbose == 1 ]] && prep_args+=(-v)
vm_env=$("$here/prepare.sh" "${prep_args[@]}") || die "prepare.sh failed"
vm_kernel='' vm_initrd='' vm_moddir='' vm_kver='' vm_root=''
eval "$vm_env"
[[ ($distro == bookworm && $arch == amd64) || -d $vm_root ]] ||
	die "prepare.sh gave no $distro $arch root"
# The guest's root: the host's (own_root=1), or a tree of another
# distribution or architecture, with the host directories shared into it.
own_root=1
[[ -z $vm_root ]] || own_root=0
[[ -f $vm_kernel && -f $vm_initrd ]] || die "prepare.sh gave no kernel/initramfs"
t_prepared=$(date +%s.%N)

# --- control and output directories -------------------------------------------
ctl=$(mktemp -d "${TMPDIR:-/tmp}/doorbell-vm.XXXXXX")
out_is_tmp=0
if [[ -z $out ]]; then
	out=$(mktemp -d "${TMPDIR:-/tmp}/doorbell-vm-out.XXXXXX")
	out_is_tmp=1
fi
mkdir -p "$out"
out=$(realpath "$out")

qemu_pid=
tail_pids=()
# shellcheck disable=SC2317 # invoked by trap
cleanup() {
	local rc=$?
	if [[ -n $qemu_pid ]] && kill -0 "$qemu_pid" 2>/dev/null; then
		kill -TERM "$qemu_pid" 2>/dev/null || true
		wait "$qemu_pid" 2>/dev/null || true
	fi
	for p in "${tail_pids[@]}"; do kill "$p" 2>/dev/null || true; done
	rm -rf "$ctl"
	if ((out_is_tmp)); then
		if rmdir "$out" 2>/dev/null; then :; else say "output kept in $out"; fi
	fi
	exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Writable shares: the output directory first, then --share ones. Paths the
# guest covers with its own tmpfs (/tmp, /run, /dev/shm) are invisible there
# unless shared, so share the cwd and COMMAND's directory if they live there.
all_shares=("$out")
for s in "${shares[@]}"; do
	[[ -d $s ]] || die "--share $s: not a directory"
	all_shares+=("$(realpath "$s")")
done
covered() { # path: is it inside one of the shares?
	local s
	for s in "${all_shares[@]}"; do
		[[ $1 == "$s" || $1 == "$s"/* ]] && return 0
	done
	return 1
}
hidden() { # path: under a directory the guest covers with a fresh tmpfs?
	case "$1" in
	/tmp | /tmp/* | /run | /run/* | /dev/shm | /dev/shm/*) return 0 ;;
	esac
	return 1
}
cwd=$(pwd -P)
# The cwd and COMMAND's directory must stay visible in the guest.
for d in "$cwd" "$(dirname "$(realpath -m "$1")")"; do
	[[ $1 == */* || $d == "$cwd" ]] || continue
	if hidden "$d" && ! covered "$d"; then
		case "$d" in
		/tmp | /run | /dev/shm)
			die "the cwd or COMMAND is directly in $d, a fresh tmpfs in the guest: use a subdirectory (shared automatically) or --share DIR" ;;
		esac
		log "sharing $d writable (hidden by a guest tmpfs otherwise)"
		all_shares+=("$d")
	fi
done

# Host directories named by absolute paths in COMMAND's arguments and in the
# --env/passed variables (a build dir, RDMAV_DRIVERS=...): the directory, or
# the parent of a file or of a path prefix. Not the system ones.
named_dirs() {
	local a v p
	for a in "$@"; do
		v=${a#*=} # NAME=/path too
		for p in "$a" "$v"; do
			[[ $p == /* ]] || continue
			if [[ -d $p ]]; then
				realpath "$p"
			elif [[ -d ${p%/*} && ${p%/*} != "" ]]; then
				realpath "${p%/*}"
			fi
		done
	done | sort -u
}
system_dir() {
	case "$1" in
	/ | /usr | /usr/* | /etc | /etc/* | /bin | /bin/* | /sbin | /sbin/* | /lib | /lib/* | \
		/lib32* | /lib64* | /libx32* | /proc | /proc/* | /sys | /sys/* | /dev | /dev/* | \
		/boot | /boot/* | /var | /var/lib | /var/lib/* | /var/cache | /var/cache/* | \
		/tmp | /run | /var/tmp | /root | /home) return 0 ;;
	esac
	return 1
}
passed_env=()
for e in "${extra_env[@]}"; do passed_env+=("$e"); done
while IFS= read -r name; do
	passed_env+=("$name=${!name}")
done < <(compgen -e | grep -E '^(DOORBELL_|RDMAV_|IBV_|VERBS_)' || true)
while IFS= read -r d; do
	if [[ -z $d ]] || ! hidden "$d" || system_dir "$d" || covered "$d"; then continue; fi
	log "sharing $d writable (named by COMMAND; hidden by a guest tmpfs otherwise)"
	all_shares+=("$d")
done < <(named_dirs "$@" "${passed_env[@]}")

# Other distributions: the checkout, and the cwd and named host directories
# outside it, read-only under tmpfs overlays (parents first).
ro_shares=()
if ((!own_root)); then
	[[ $top != *[[:space:]]* ]] || die "the checkout path must not contain white space ($top)"
	while IFS= read -r d; do
		if [[ -z $d ]] || system_dir "$d" || covered "$d"; then continue; fi
		[[ $d == "$top" || $d == "$top"/* ]] && continue
		for s in "${ro_shares[@]}"; do [[ $d == "$s" || $d == "$s"/* ]] && continue 2; done
		log "sharing $d read-only"
		ro_shares+=("$d")
	done < <({
		echo "$cwd"
		if [[ $1 == */* ]]; then dirname "$(realpath -m "$1")"; fi
		named_dirs "$@" "${passed_env[@]}"
	} | awk '{ print length($0) " " $0 }' | sort -n | cut -d' ' -f2-)
fi

# --- guest configuration ---------------------------------------------------------
cmd_env=("PATH=$PATH" "LANG=${LANG:-C.UTF-8}" "HOME=/root")
while IFS= read -r name; do
	cmd_env+=("$name=${!name}")
done < <(compgen -e | grep -E '^(DOORBELL_|RDMAV_|IBV_|VERBS_)' || true)
cmd_env+=("${extra_env[@]}")

arr() { # name values...: a bash array assignment
	local n=$1
	shift
	printf '%s=(' "$n"
	(($#)) && printf ' %q' "$@"
	printf ' )\n'
}
{
	printf 'dbvm_cwd=%q\n' "$cwd"
	printf 'dbvm_out=%q\n' "$out"
	printf 'dbvm_moddir=%q\n' "$vm_moddir"
	printf 'dbvm_keep_stock=%q\n' "$keep_stock"
	printf 'dbvm_distro=%q\n' "$distro"
	printf 'dbvm_arch=%q\n' "$arch"
	if ((!own_root)); then printf 'dbvm_src=%q\n' "$top"; fi
	arr dbvm_ro_shares "${ro_shares[@]}"
	printf 'dbvm_link_type=%q\n' "$link_type"
	printf 'dbvm_ibdev=%q\n' "${link_type}0"
	printf 'dbvm_netdev=d0\n'
	printf 'dbvm_ipv4=10.77.0.1\n'
	printf 'dbvm_prefix=24\n'
	printf 'dbvm_rxe_wait=%q\n' "${DOORBELL_VM_RXE_WAIT:-60}"
	printf 'dbvm_trace=%q\n' "${DOORBELL_VM_TRACE:-0}"
	arr dbvm_shares "${all_shares[@]}"
	arr dbvm_env "${cmd_env[@]}"
	arr dbvm_cmd "$@"
} >"$ctl/config"
: >"$ctl/stdout"
: >"$ctl/stderr"
: >"$ctl/console.log"

# --- QEMU --------------------------------------------------------------------------
ginit=$here/guest-init.sh
[[ $ginit != *[[:space:]]* ]] || die "the checkout path must not contain white space ($ginit)"
rootdir=/
if ((!own_root)); then
	# The initramfs mounts the checkout at /.dbvm-src; guest-init.sh
	# mounts it again at its host path (which may be under the guest's /tmp).
	ginit="/.dbvm-src${here#"$top"}/guest-init.sh"
	rootdir=$vm_root
fi
# oops=panic: a kernel oops (e.g. rxe fed a bad WQE) ends the run at once
# (exit 125, oops shown) instead of leaving a dead process behind.
case $arch in
amd64) console=ttyS0 ;;
arm64) console=ttyAMA0 ;;
s390x) console=ttysclp0 ;; # -serial is the SCLP console on s390-ccw-virtio
esac
kappend="console=$console panic=-1 oops=panic dbvm.init=$ginit"
((own_root)) || kappend+=" dbvm.src=/.dbvm-src"
# no_timer_check: on a loaded host, 6.12 under TCG failed its IO-APIC timer
# check at boot ("IO-APIC + timer doesn't work!", panic). Every kernel but
# Debian 12's 6.1 (a Debian 13 host boots 6.12 with its own root).
[[ $vm_kver == 6.1.* ]] || kappend+=" no_timer_check"
[[ $verbose == 1 ]] || kappend+=" quiet"
kappend+=" ${DOORBELL_VM_APPEND:-}"

qopt() { printf '%s' "${1//,/,,}"; } # escape commas in QEMU option values
# shellcheck disable=SC2054 # commas are QEMU's
case $arch in
# -erms,-fsrm: offered "fast REP MOVSB", the guest's kernel and glibc copy
# with REP MOVSB, which TCG runs more slowly than the copies they use
# without it (doorbell-itest on rxe0 in one boot: 63 s against 70 s on
# Debian 12's 6.1 and 64 s against 71 s on sid's kernel;
# docs/evidence/2026-12-07-ci-budget.md).
amd64) qemu=(qemu-system-x86_64) machine=q35 cpu=max,-erms,-fsrm ;;
# pauth-impdef: QEMU's own pointer-authentication hash, faster to emulate
# than the architected QARMA one (QEMU's Arm CPU-features documentation;
# the same instructions for the guest).
arm64) qemu=(qemu-system-aarch64) machine=virt cpu=max,pauth-impdef=on ;;
# -virtfs makes virtio-9p-ccw devices there (QEMU's virtio aliases).
s390x) qemu=(qemu-system-s390x) machine=s390-ccw-virtio cpu=max ;;
esac
if ((${#vfio_user[@]})); then
	[[ $arch == amd64 ]] || die "--vfio-user is for amd64 guests"
	# sid's QEMU runs on this host through sid's own loader and libraries
	# (no chroot: every host path below stays valid); its modules and
	# firmware come from the same tree.
	for v in "${vfio_user[@]}"; do
		[[ $v == /* && $v != *[\"\\]* ]] ||
			die "--vfio-user wants an absolute path without quotes or backslashes"
	done
	qroot=$("$here/prepare.sh" --qemu-root) || die "prepare.sh --qemu-root failed"
	qlib=$qroot/usr/lib/x86_64-linux-gnu
	qemu=(env "QEMU_MODULE_DIR=$qlib/qemu" "$qroot/lib64/ld-linux-x86-64.so.2"
		--library-path "$qlib:$qroot/lib/x86_64-linux-gnu"
		"$qroot/usr/bin/qemu-system-x86_64" -L "$qroot/usr/share/qemu")
	# The device server maps guest memory: it must be a shared memfd.
	machine=q35,memory-backend=dbvmmem
	qemu+=(-object "memory-backend-memfd,id=dbvmmem,size=$mem,share=on")
	for v in "${vfio_user[@]}"; do
		qemu+=(-device "{\"driver\":\"vfio-user-pci\",\"socket\":{\"type\":\"unix\",\"path\":\"$v\"}}")
	done
fi
qemu+=(-nodefaults -no-user-config -display none -no-reboot
	-machine "$machine" -accel tcg -cpu "$cpu" -smp "$smp" -m "$mem"
	-kernel "$vm_kernel" -initrd "$vm_initrd" -append "$kappend"
	-serial "file:$ctl/console.log"
	-virtfs "local,path=$(qopt "$rootdir"),mount_tag=hostroot,security_model=none,readonly=on,multidevs=remap"
	-virtfs "local,path=$(qopt "$ctl"),mount_tag=dbvmctl,security_model=none")
if ((!own_root)); then
	qemu+=(-virtfs "local,path=$(qopt "$top"),mount_tag=dbvmsrc,security_model=none,readonly=on,multidevs=remap")
fi
for i in "${!ro_shares[@]}"; do
	qemu+=(-virtfs "local,path=$(qopt "${ro_shares[i]}"),mount_tag=dbvmro$i,security_model=none,readonly=on,multidevs=remap")
done
for i in "${!all_shares[@]}"; do
	qemu+=(-virtfs "local,path=$(qopt "${all_shares[i]}"),mount_tag=dbvm$i,security_model=none,multidevs=remap")
done
# shellcheck disable=SC2206
qemu+=(${DOORBELL_VM_QEMU_ARGS:-})

# boot: one QEMU run of the guest, to its end; sets qrc, t_launch, t_end.
boot() {
	log "booting $distro $arch $vm_kver (timeout ${timeout_s}s): $*"
	t_launch=$(date +%s.%N)
	timeout -k 5 "$timeout_s" "${qemu[@]}" </dev/null >"$ctl/qemu.log" 2>&1 &
	qemu_pid=$!

	tail -q -s 0.2 -n +1 -f --pid="$qemu_pid" "$ctl/stdout" &
	tail_pids+=($!)
	tail -q -s 0.2 -n +1 -f --pid="$qemu_pid" "$ctl/stderr" >&2 &
	tail_pids+=($!)
	if [[ $verbose == 1 ]]; then
		tail -q -s 0.2 -n +1 -f --pid="$qemu_pid" "$ctl/console.log" | sed -u 's/^/[console] /' >&2 &
		tail_pids+=($!)
	fi

	# A kernel that hangs at boot (seen once with 7.2 on a loaded host: nothing
	# after the SMP bring-up) would cost the whole --timeout: give up when the
	# guest init has not started after DOORBELL_VM_BOOT_TIMEOUT seconds.
	boot_to=${DOORBELL_VM_BOOT_TIMEOUT:-300}
	# Its output goes nowhere: a sleep holding our stdout would keep every
	# "run.sh | ..." pipeline open for boot_to seconds after the guest is done.
	(
		exec >/dev/null 2>&1 </dev/null
		sleep "$boot_to" &
		trap 'kill $! 2>/dev/null; exit 0' TERM
		wait $!
		if [[ ! -e $ctl/booted ]]; then
			: >"$ctl/boot-timeout"
			kill -TERM "$qemu_pid" 2>/dev/null
		fi
	) &
	watchdog=$!
	qrc=0
	wait "$qemu_pid" || qrc=$?
	qemu_pid=
	kill "$watchdog" 2>/dev/null || true
	wait "$watchdog" 2>/dev/null || true
	t_end=$(date +%s.%N)
	for p in "${tail_pids[@]}"; do wait "$p" 2>/dev/null || true; done
	tail_pids=()
}

# The kernel that dies before the guest init starts (no $ctl/booted: a 6.12
# panic in sched_clock_cpu at 1.8 s under TCG on a loaded host, the CI run
# at 777d01f; the boot hang above) ran none of the command: it is booted
# once more, saying so. A kernel that dies after the init started is never
# booted again.
boot "$@"
if [[ ! -e $ctl/booted ]] && ((qrc != 124 && qrc != 137)) &&
	[[ ! -s $ctl/status && ! -s $ctl/stdout && ! -s $ctl/stderr ]]; then
	say "the guest kernel died before the guest init started (qemu rc $qrc): booting once more; its console said:"
	grep -aE -m 4 'Kernel panic|RIP:|BUG:|Oops|did not start' "$ctl/console.log" |
		cut -c1-160 | sed 's/^/  /' >&2 || true
	[[ ! -e $ctl/boot-timeout ]] || say "  (no guest init within ${boot_to}s)"
	rm -f "$ctl/boot-timeout"
	: >"$ctl/console.log"
	boot "$@"
fi

[[ -n $console_copy ]] && cp "$ctl/console.log" "$console_copy"

show_diag() {
	if [[ -s $ctl/guest-error ]]; then say "guest: $(cat "$ctl/guest-error")"; fi
	if [[ $verbose != 1 && -s $ctl/console.log ]]; then
		say "last lines of the guest console:"
		tail -n 40 "$ctl/console.log" | sed 's/^/  /' >&2
	fi
	if [[ -s $ctl/qemu.log ]]; then
		say "qemu output:"
		tail -n 20 "$ctl/qemu.log" | sed 's/^/  /' >&2
	fi
}

since() { # file: seconds from QEMU launch to the file's mtime
	[[ -e $1 ]] && awk -v a="$t_launch" -v b="$(stat -c %.3Y "$1")" 'BEGIN { printf "%.1f", b - a }'
}

if [[ $verbose == 1 ]]; then
	read -r ready_up gid 2>/dev/null <"$ctl/ready" || true
	say "timings: prepare $(awk -v a="$t_start" -v b="$t_prepared" 'BEGIN { printf "%.1f", b - a }')s," \
		"guest init started $(since "$ctl/booted")s, rxe ready $(since "$ctl/ready")s" \
		"(guest uptime ${ready_up:-?}s, gid index ${gid:-?}), done $(since "$ctl/done")s," \
		"total $(awk -v a="$t_start" -v b="$t_end" 'BEGIN { printf "%.1f", b - a }')s"
fi

if [[ -e $ctl/boot-timeout ]]; then
	say "guest init did not start within ${boot_to}s (kernel hung at boot?)"
	show_diag
	exit 125
fi
if ((qrc == 124 || qrc == 137)) && [[ ! -e $ctl/status ]]; then
	say "TIMEOUT: guest killed after ${timeout_s}s (command: $*)"
	show_diag
	exit 124
fi
if [[ ! -s $ctl/status ]]; then
	say "guest died without reporting an exit status (qemu rc $qrc)"
	show_diag
	exit 125
fi
rc=$(cat "$ctl/status")
# Kernel warnings are easy to miss with a quiet console: point them out.
if grep -qE 'WARNING:|BUG:|Oops|Call Trace:|general protection|UBSAN|KASAN' "$ctl/dmesg" 2>/dev/null; then
	say "kernel warnings during the run (guest dmesg):"
	grep -E -A3 'WARNING:|BUG:|Oops|Call Trace:|general protection|UBSAN|KASAN' "$ctl/dmesg" |
		head -n 40 | sed 's/^/  /' >&2
fi
[[ $rc =~ ^[0-9]+$ ]] || die "bad status '$rc' from the guest"
log "command exited with status $rc"
exit "$rc"
