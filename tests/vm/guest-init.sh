#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# PID 1 of the doorbell test VM, run from the host root (9p + tmpfs overlay)
# after the initramfs switch_root; for another distribution (run.sh
# --distro), the root is that distribution's tree and this script runs from
# the read-only checkout the initramfs mounted at /.dbvm-src. Sets up the guest (mounts, shares, dummy
# netdev d0, an RDMA device on it: Soft-RoCE rxe0, or KIND0 of run.sh's
# DOORBELL_VM_LINK_TYPE=KIND), runs the command described in the control
# share written by run.sh, stores its exit status there and powers off.
# Its own stdout/stderr go to the kernel console (console.log on the host).

# shellcheck disable=SC2154 # dbvm_* come from the sourced control file
# No "set -e": PID 1 must always reach the power-off below.
set -uo pipefail

ctl=/run/doorbell-vm
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LANG=C.UTF-8

say() { echo "doorbell-vm guest: $*"; }

uptime_s() {
	local up _
	read -r up _ </proc/uptime
	echo "$up"
}

power_off() {
	sync
	busybox poweroff -f
	echo o >/proc/sysrq-trigger
	sleep 10
}

# Give up: record why (the host reports it and exits 125) and power off.
die() {
	say "error: $*"
	if mountpoint -q "$ctl"; then
		echo "$*" >>"$ctl/guest-error"
	fi
	power_off
}

m9p() { # tag dir [options]
	mount -t 9p -o "trans=virtio,version=9p2000.L,msize=512000${3:+,$3}" "$1" "$2"
}

# --- basic mounts ------------------------------------------------------------
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /run || die "mount /run"
mkdir -p "$ctl"
m9p dbvmctl "$ctl" cache=none || die "cannot mount the control share"
uptime_s >"$ctl/booted"

# Defines the dbvm_* variables (written by run.sh).
# shellcheck source=/dev/null
source "$ctl/config" || die "cannot read $ctl/config"
if [[ $dbvm_trace == 1 ]]; then
	PS4='+ [$(uptime_s)] '
	set -x
fi

# (Builtins where possible: every exec costs ~0.1 s under TCG.)
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /tmp || die "mount /tmp"
mkdir -p /dev/pts /dev/shm /dev/mqueue
mount -t devpts -o gid=5,mode=620,ptmxmode=666 devpts /dev/pts || die "mount /dev/pts"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /dev/shm || die "mount /dev/shm"
mount -t mqueue mqueue /dev/mqueue 2>/dev/null
for l in fd:/proc/self/fd stdin:/proc/self/fd/0 stdout:/proc/self/fd/1 \
	stderr:/proc/self/fd/2 ptmx:pts/ptmx; do
	[[ -e /dev/${l%%:*} ]] || ln -s "${l#*:}" "/dev/${l%%:*}"
done
echo doorbell-vm >/proc/sys/kernel/hostname

# Distribution guests: the checkout and other host directories the command
# needs, read-only 9p shares at their host paths under tmpfs overlays (writes
# vanish, as with the host root). Parents come first (run.sh sorts them).
ovl() { # lower target name
	local w=/run/doorbell-vm-ovl/$3
	mkdir -p "$w/upper" "$w/work" "$2" &&
		mount -t overlay -o "lowerdir=$1,upperdir=$w/upper,workdir=$w/work" "dbvm-$3" "$2"
}
if [[ -n ${dbvm_src:-} ]]; then
	ovl /.dbvm-src "$dbvm_src" src || die "cannot mount the checkout at $dbvm_src"
fi
for ((i = 0; i < ${#dbvm_ro_shares[@]}; i++)); do
	d=${dbvm_ro_shares[i]}
	mkdir -p "/run/doorbell-vm-ro/$i" || die "mkdir /run/doorbell-vm-ro/$i"
	if ! m9p "dbvmro$i" "/run/doorbell-vm-ro/$i" ro,cache=loose ||
		! ovl "/run/doorbell-vm-ro/$i" "$d" "ro$i"; then
		die "cannot mount read-only share $d"
	fi
done

# Writable host directories, at the same path as on the host.
for ((i = 0; i < ${#dbvm_shares[@]}; i++)); do
	d=${dbvm_shares[i]}
	if ! mkdir -p "$d" || ! m9p "dbvm$i" "$d" cache=none; then die "cannot mount share $d"; fi
done

# Modules of the guest kernel (for modprobe/request_module after boot).
read -r kver </proc/sys/kernel/osrelease
if [[ -d $dbvm_moddir && ! -e /lib/modules/$kver ]]; then
	mkdir -p /lib/modules
	ln -s "$dbvm_moddir" "/lib/modules/$kver"
fi

# Hide the stock rxe provider unless asked to keep it.
if [[ $dbvm_keep_stock != 1 ]]; then
	rm -f /etc/libibverbs.d/rxe.driver
fi

ulimit -l unlimited || die "cannot raise RLIMIT_MEMLOCK"

# --- network + Soft-RoCE -------------------------------------------------------
ip -batch - <<EOF || die "cannot set up lo and the dummy netdev $dbvm_netdev"
link set lo up
link add $dbvm_netdev type dummy
addr add $dbvm_ipv4/$dbvm_prefix dev $dbvm_netdev
link set $dbvm_netdev up
EOF
rdma link add "$dbvm_ibdev" type "$dbvm_link_type" netdev "$dbvm_netdev" ||
	die "rdma link add $dbvm_ibdev failed (see kernel log)"

# IPv4-mapped GID ::ffff:a.b.c.d as sysfs prints it.
IFS=. read -r a b c d <<<"$dbvm_ipv4"
printf -v want_gid '0000:0000:0000:0000:0000:ffff:%02x%02x:%02x%02x' "$a" "$b" "$c" "$d"
port=/sys/class/infiniband/$dbvm_ibdev/ports/1
gid_index=
for ((t = 0; t < dbvm_rxe_wait * 10; t++)); do
	state=
	read -r state <"$port/state" 2>/dev/null
	if [[ $state == *ACTIVE* ]]; then
		for g in "$port"/gids/*; do
			gid=
			read -r gid <"$g" 2>/dev/null
			if [[ $gid == "$want_gid" ]]; then
				gid_index=${g##*/}
				break
			fi
		done
		[[ -n $gid_index ]] && break
	fi
	sleep 0.1
done
if [[ -z $gid_index ]]; then
	say "port state: $(cat "$port/state" 2>/dev/null)"
	grep -H . "$port"/gids/* 2>/dev/null | grep -v ':0000:0000:0000:0000:0000:0000:0000:0000$'
	die "$dbvm_ibdev not ACTIVE with GID $want_gid after ${dbvm_rxe_wait}s"
fi
# With the stock provider present, also check through libibverbs.
if [[ $dbvm_keep_stock == 1 ]] &&
	! timeout 30 ibv_devinfo -d "$dbvm_ibdev" | grep -q 'state:.*PORT_ACTIVE'; then
	die "ibv_devinfo -d $dbvm_ibdev does not show an ACTIVE port"
fi
echo "$(uptime_s) $gid_index" >"$ctl/ready"

# --- the command ---------------------------------------------------------------
cmd_env=("${dbvm_env[@]}"
	DOORBELL_VM=1
	DOORBELL_VM_IBDEV="$dbvm_ibdev"
	DOORBELL_VM_LINK_TYPE="$dbvm_link_type"
	DOORBELL_VM_NETDEV="$dbvm_netdev"
	DOORBELL_VM_IPV4="$dbvm_ipv4"
	DOORBELL_VM_GID_INDEX="$gid_index"
	DOORBELL_VM_OUT="$dbvm_out"
	DOORBELL_VM_KVER="$kver"
	DOORBELL_VM_DISTRO="$dbvm_distro"
	DOORBELL_VM_ARCH="${dbvm_arch:-amd64}")

cd "$dbvm_cwd" || die "cannot cd to $dbvm_cwd"
setsid -w env -i "${cmd_env[@]}" "${dbvm_cmd[@]}" \
	</dev/null >>"$ctl/stdout" 2>>"$ctl/stderr"
rc=$?
cd /
dmesg >"$ctl/dmesg" 2>/dev/null
echo "$rc" >"$ctl/status"
uptime_s >"$ctl/done"
power_off
