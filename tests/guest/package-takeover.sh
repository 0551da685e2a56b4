#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# The packages' take-over of rxe devices, inside the throw-away guest with
# the stock provider visible and Debian's ibverbs-providers installed:
#
#   deb   dpkg -i makes doorbell serve rxe0 with no RDMAV_DRIVERS (rxe.driver
#         diverted out of /etc/libibverbs.d); the diversion survives a
#         reinstall of ibverbs-providers; dpkg -r and dpkg -P give rxe0 back
#         to the stock provider; the same with ibverbs-providers absent at
#         install time and installed afterwards.
#   rpm   (optional second argument) the spec's scriptlets and libibverbs
#         triggers, with rpm's own database in /tmp and a stand-in
#         "libibverbs" RPM that owns rxe.driver (tests/package/).
#
# "Served by doorbell" means an ib_send_bw pair on rxe0 over 127.0.0.1
# succeeds (results line) and both sides print DOORBELL_DEBUG's
# "doorbell: rxe0: serving the device with the rxe backend"; "served by
# the stock provider" means the pair succeeds and neither side prints any
# "doorbell:" line.  Neither may print a libibverbs warning.  Without
# ibverbs-providers the pair is ibv_rc_pingpong instead: perftest links
# ibverbs-providers' libmlx5 and libefa and cannot start.
#
# Distribution-neutral: nothing assumes one rdma-core release.  The private
# ABI version (PABI) of the installed libibverbs is read at run time from
# the file names of the distribution's own providers
# (<libdir>/libibverbs/lib*-rdmav<PABI>.so of ibverbs-providers, all one
# PABI), and the provider file checked is the one that libibverbs loads,
# libdoorbell-rdmav<PABI>.so.  "No doorbell file remains" after dpkg -r and
# dpkg -P means: no path of the .deb (dpkg-deb -c, the same list as dpkg -L
# once installed) that did not exist before the install exists any more.
# Runs in the Debian 12 guest (rdma-core 44, PABI 34) and in guests of other
# Debian releases with their own rdma-core, ibverbs-providers and perftest.
#
# Usage (cwd: the checkout):
#   tests/vm/run.sh --keep-stock -- tests/guest/package-takeover.sh DEB [RPM]
# or tests/package/run-takeover.sh, which builds both and runs this.
# The RPM must be built with %_libdir set to Debian's multiarch libdir (see
# tests/package/run-takeover.sh).  Prints one PASS/FAIL/SKIP line per
# behaviour; exits 1 if any failed.  Refuses to run outside the guest:
# it installs and removes packages.
set -u
deb=${1:?usage: package-takeover.sh DEB [RPM]}
rpm_pkg=${2:-}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=scripts/lib.sh
. "$here/../../scripts/lib.sh"

if [[ ${DOORBELL_VM:-} != 1 ]]; then
	fail package_takeover_runs_in_guest "not in the test guest (DOORBELL_VM unset); run it through tests/vm/run.sh --keep-stock"
	exit 2
fi

dev=$(db_ibdev)
gid=${DOORBELL_VM_GID_INDEX:-1}
addr=127.0.0.1
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
conf=/etc/libibverbs.d
stock=$conf/rxe.driver
diverted=/usr/share/doorbell/rxe.driver.stock
ours=$conf/doorbell.driver
provdir=/usr/lib/$multiarch/libibverbs
# pabi_of_stock_providers: the one PABI in the names of the installed
# lib*-rdmav<N>.so providers other than doorbell's (empty if none or mixed).
pabi_of_stock_providers() {
	local f n pabis=()
	for f in "$provdir"/lib*-rdmav*.so; do
		[[ -e $f && $f != */libdoorbell-* ]] || continue
		n=${f##*-rdmav}
		n=${n%.so}
		[[ $n =~ ^[0-9]+$ ]] && pabis+=("$n")
	done
	((${#pabis[@]})) || return 0
	printf '%s\n' "${pabis[@]}" | sort -u | paste -sd' '
}
pabi=$(pabi_of_stock_providers)
lib=$provdir/libdoorbell-rdmav${pabi:-UNKNOWN}.so
served="doorbell: $dev: serving the device with the rxe backend"
bw='^[[:space:]]+[0-9]+[[:space:]]+[0-9]+[[:space:]]+[0-9.]+[[:space:]]+[0-9.]+[[:space:]]+[0-9.]+'
logs=$(mktemp -d)
# shellcheck source=tests/guest/lib/pair-lib.sh
. "$here/lib/pair-lib.sh"	# wait_port, scaled

# Only the packages may select the provider.
unset RDMAV_DRIVERS IBV_DRIVERS LD_PRELOAD
export DOORBELL_DEBUG=1
export DEBIAN_FRONTEND=noninteractive
# man-db's trigger would index the man page: slow under TCG, and useless in
# a guest whose changes vanish at power-off.
rm -f /var/lib/man-db/auto-update

show() { # show FILE LABEL: the tail of a log, indented
	[[ -s $1 ]] && tail -n "${3:-12}" "$1" | sed "s/^/    $2| /"
}

# run LOG CMD...: a bounded command, output to LOG; its status.
run() {
	local log=$1
	shift
	echo "+ $*" >>"$log"
	timeout 300 "$@" </dev/null >>"$log" 2>&1
}

# pair LABEL [TOOL]: a server and a client on $dev over $addr, TOOL
# ib_send_bw (default) or ibv_rc_pingpong (needs only libibverbs, while
# perftest links ibverbs-providers' libmlx5 and libefa); sets why (empty if
# the transfer succeeded with clean output) and who (doorbell, stock or
# mixed).
pair() {
	local label=$1 tool=${2:-ib_send_bw} srv=$logs/$1.server cli=$logs/$1.client
	local rc_c rc_s results args
	if [[ $tool == ib_send_bw ]]; then
		args=(-d "$dev" -x "$gid" -F -n 200)
		results=$bw
	else
		args=(-d "$dev" -g "$gid" -n 200)
		results='iters in [0-9.]+ seconds'
	fi
	why="" who=""
	# Tried again only for perftest's clock (pair-lib.sh's one rule).
	pair_tries "$label" "$srv" "$cli" "$results" run_pair "$srv" "$cli" "$tool" "${args[@]}"
	if ((rc_c != 0 || rc_s != 0)); then
		why="$tool exit codes: client $rc_c, server $rc_s"
	elif grep -qi "completion with error\|failed status\|Couldn't\|Failed to" "$cli" "$srv"; then
		why="$tool reported an error"
	elif ! grep -Eq "$results" "$cli"; then
		why="no results line in the client's output"
	elif grep -q "libibverbs: Warning" "$cli" "$srv"; then
		why="libibverbs printed a warning: $(grep -h -m1 'libibverbs: Warning' "$cli" "$srv" | head -n1)"
	fi
	if grep -qF "$served" "$cli" && grep -qF "$served" "$srv"; then
		who=doorbell
	elif ! grep -q "^doorbell:" "$cli" "$srv"; then
		who=stock
	else
		who=mixed
	fi
}

# expect_served NAME doorbell|stock [TOOL]: a pair; FAIL line if it is
# not as expected (the caller prints PASS when it returns 0).
expect_served() {
	local name=$1 want=$2
	pair "$name" "${3:-}"
	if [[ -n $why ]]; then
		fail "$name" "$why"
	elif [[ $who != "$want" ]]; then
		fail "$name" "rxe0 served by $who, expected $want"
	else
		return 0
	fi
	show "$logs/$name.client" client
	show "$logs/$name.server" server 6
	return 1
}

# state_diverted: the files as the installed .deb leaves them; prints what
# is wrong.
state_diverted() {
	[[ ! -e $stock ]] || echo "$stock is still there"
	[[ $(dpkg-divert --listpackage "$stock") == doorbell ]] ||
		echo "$stock is not diverted by doorbell"
	[[ $(dpkg-divert --truename "$stock") == "$diverted" ]] ||
		echo "diverted to '$(dpkg-divert --truename "$stock")', not $diverted"
	[[ -f $ours ]] && grep -qx 'driver doorbell' "$ours" || echo "$ours missing"
	# The file libibverbs loads for its PABI: doorbell's module.
	if [[ ! -f $lib ]]; then
		echo "$lib missing"
	elif [[ $(dpkg-query -S "$lib" 2>/dev/null) != "doorbell"*": $lib" ]]; then
		echo "$lib is not doorbell's ($(dpkg-query -S "$lib" 2>&1 | head -n1))"
	fi
	# dpkg -L knows every path of the .deb.
	local listed
	listed=$(dpkg -L doorbell 2>/dev/null)
	for p in "${deb_paths[@]}"; do
		grep -qxF "$p" <<<"$listed" || echo "dpkg -L doorbell lacks $p"
	done
}

# leftovers: the .deb's paths that did not exist before the first install
# and exist now (a file, a link or a directory doorbell brought).
leftovers() {
	local p
	for p in "${new_paths[@]}"; do
		[[ -e $p || -L $p ]] && echo "$p is left over"
	done
}

# state_stock: the files as after dpkg -r/-P; prints what is wrong.
state_stock() {
	[[ -f $stock ]] && grep -qx 'driver rxe' "$stock" || echo "$stock is not back"
	[[ -z $(dpkg-divert --listpackage "$stock") ]] ||
		echo "$stock is still diverted ($(dpkg-divert --list "$stock"))"
	[[ ! -e /usr/share/doorbell ]] || echo "/usr/share/doorbell is left over"
	[[ ! -e $ours ]] || echo "$ours is left in $conf"
	[[ ! -e $lib ]] || echo "$lib is left over"
	leftovers
}

# none_wrong NAME "what is wrong" LOG: PASS if nothing is wrong.
none_wrong() {
	if [[ -z $2 ]]; then
		pass "$1"
	else
		fail "$1" "$(echo "$2" | paste -sd ';' | sed 's/;/; /g')"
		[[ -n ${3:-} ]] && show "$3" log
	fi
}

# The package of this machine's own architecture: a host that cross-builds
# has other architectures' copies of ibverbs-providers too (multiarch).
native=$(dpkg --print-architecture)
status_of() { dpkg-query -W -f '${db:Status-Abbrev}' "$1:$native" 2>/dev/null | tr -d ' '; }

# Such a host's other-architecture copies of rdma-core's packages share
# rxe.driver with the native ibverbs-providers; a machine that runs rxe has
# none.  This guest is thrown away, so they are purged from it first.
mapfile -t foreign < <(dpkg-query -W \
	-f '${source:Package} ${Package}:${Architecture} ${db:Status-Abbrev}\n' |
	awk -v n="$native" '$1 == "rdma-core" && $2 !~ ":(" n "|all)$" &&
		$3 != "un" { print $2 }')
if ((${#foreign[@]})); then
	echo "== other architectures' rdma-core packages, purged: ${foreign[*]}"
	dpkg --purge --force-depends "${foreign[@]}" >/dev/null 2>&1 ||
		echo "    dpkg --purge failed"
fi

# --- preconditions -------------------------------------------------------------
echo "== preconditions: stock provider visible, ibverbs-providers installed"
pre=""
[[ -f $deb ]] || pre+="no such file: $deb"$'\n'
[[ $(status_of ibverbs-providers) == ii ]] || pre+="ibverbs-providers is not installed"$'\n'
[[ -f $stock ]] || pre+="$stock missing (run.sh without --keep-stock?)"$'\n'
[[ -z $(status_of doorbell) || $(status_of doorbell) == un ]] ||
	pre+="doorbell is already installed ($(status_of doorbell))"$'\n'
[[ $pabi =~ ^[0-9]+$ ]] ||
	pre+="no single PABI in the names of $provdir/lib*-rdmav*.so: '${pabi}'"$'\n'
none_wrong guest_has_stock_provider "$pre"
if [[ -n $pre ]]; then
	rm -rf "$logs"
	exit 1
fi
echo "    libibverbs $(basename "$(realpath "/usr/lib/$multiarch/libibverbs.so.1")"), PABI $pabi: libibverbs loads $(basename "$lib")"

# The .deb's paths (as dpkg -L will list them) and those of them that do not
# exist yet: after dpkg -r / -P none of these may remain.
mapfile -t deb_paths < <(dpkg-deb -c "$deb" |
	awk '{ print $6 }' | sed 's|^\./|/|; s|/$||' | grep -v '^/\{0,1\}$')
new_paths=()
for p in "${deb_paths[@]}"; do
	[[ -e $p || -L $p ]] || new_paths+=("$p")
done
if printf '%s\n' "${deb_paths[@]}" | grep -qxF "$lib"; then
	pass deb_ships_provider_for_running_pabi
else
	fail deb_ships_provider_for_running_pabi "$(basename "$deb") has no $lib"
fi
expect_served stock_provider_serves_rxe0_before_install stock &&
	pass stock_provider_serves_rxe0_before_install

# --- dpkg -i / -r ---------------------------------------------------------------
echo "== dpkg -i $(basename "$deb")"
log=$logs/dpkg-install.log
if ! run "$log" dpkg -i "$deb" || [[ $(status_of doorbell) != ii ]]; then
	fail deb_installs "dpkg -i failed"
	show "$log" dpkg 20
else
	pass deb_installs
	none_wrong deb_install_diverts_stock_rxe_driver "$(state_diverted)" "$log"
	expect_served deb_install_makes_doorbell_serve_rxe0 doorbell &&
		pass deb_install_makes_doorbell_serve_rxe0
fi

# A new rxe.driver from ibverbs-providers must land at the diverted name.
ipv=$(dpkg-query -W -f '${Version}' "ibverbs-providers:$native" 2>/dev/null)
# (tests/vm/prepare.sh keeps the distribution roots' copy apart.)
ipdeb=$(compgen -G "/var/cache/apt/archives/ibverbs-providers_${ipv//:/%3a}_$native.deb" ||
	compgen -G "/var/cache/doorbell-vm-debs/ibverbs-providers_${ipv//:/%3a}_$native.deb")
ipdeb=${ipdeb%%$'\n'*}
if [[ -z $ipdeb ]]; then
	skip deb_diversion_survives_ibverbs_providers_reinstall "no ibverbs-providers_${ipv}_*.deb in /var/cache/apt/archives or /var/cache/doorbell-vm-debs"
else
	log=$logs/dpkg-reinstall-providers.log
	if ! run "$log" dpkg -i --force-confold "$ipdeb"; then
		fail deb_diversion_survives_ibverbs_providers_reinstall "dpkg -i $ipdeb failed"
		show "$log" dpkg 20
	else
		wrong=$(state_diverted)
		[[ -f $diverted ]] && grep -qx 'driver rxe' "$diverted" ||
			wrong+=$'\n'"no stock rxe.driver at $diverted"
		wrong=$(sed '/^$/d' <<<"$wrong")
		if [[ -n $wrong ]]; then
			none_wrong deb_diversion_survives_ibverbs_providers_reinstall "$wrong" "$log"
		elif expect_served deb_diversion_survives_ibverbs_providers_reinstall doorbell; then
			pass deb_diversion_survives_ibverbs_providers_reinstall
		fi
	fi
fi

echo "== dpkg -r doorbell"
log=$logs/dpkg-remove.log
if ! run "$log" dpkg -r doorbell; then
	fail deb_remove_restores_stock_provider "dpkg -r failed"
	show "$log" dpkg 20
else
	wrong=$(state_stock)
	[[ $(status_of doorbell) == rc ]] || wrong+=$'\n'"status $(status_of doorbell), expected rc"
	wrong=$(sed '/^$/d' <<<"$wrong")
	if [[ -n $wrong ]]; then
		none_wrong deb_remove_restores_stock_provider "$wrong" "$log"
	elif expect_served deb_remove_restores_stock_provider stock; then
		pass deb_remove_restores_stock_provider
	fi
fi

echo "== dpkg -i again (from config-files state), then dpkg -P doorbell"
log=$logs/dpkg-reinstall.log
if ! run "$log" dpkg -i "$deb" || [[ $(status_of doorbell) != ii ]]; then
	fail deb_reinstall_after_remove_serves_rxe0 "dpkg -i failed"
	show "$log" dpkg 20
else
	wrong=$(state_diverted)
	if grep -q "doorbell.driver" "$log"; then
		wrong+=$'\n'"dpkg said something about doorbell.driver: $(grep -m1 doorbell.driver "$log")"
	fi
	wrong=$(sed '/^$/d' <<<"$wrong")
	if [[ -n $wrong ]]; then
		none_wrong deb_reinstall_after_remove_serves_rxe0 "$wrong" "$log"
	elif expect_served deb_reinstall_after_remove_serves_rxe0 doorbell; then
		pass deb_reinstall_after_remove_serves_rxe0
	fi
fi
log=$logs/dpkg-purge.log
if ! run "$log" dpkg -P doorbell; then
	fail deb_purge_restores_stock_provider "dpkg -P failed"
	show "$log" dpkg 20
else
	wrong=$(state_stock)
	[[ -z $(status_of doorbell) || $(status_of doorbell) == un ]] ||
		wrong+=$'\n'"status $(status_of doorbell), expected not installed"
	[[ ! -e /var/lib/doorbell ]] || wrong+=$'\n'"/var/lib/doorbell is left over"
	wrong=$(sed '/^$/d' <<<"$wrong")
	if [[ -n $wrong ]]; then
		none_wrong deb_purge_restores_stock_provider "$wrong" "$log"
	elif expect_served deb_purge_restores_stock_provider stock; then
		pass deb_purge_restores_stock_provider
	fi
fi

# --- ibverbs-providers absent when doorbell is installed ------------------------
echo "== without ibverbs-providers: dpkg -i doorbell, then ibverbs-providers, then dpkg -P doorbell"
name=deb_install_without_ibverbs_providers
if [[ -z $ipdeb ]]; then
	skip "$name" "no ibverbs-providers .deb to put back afterwards"
else
	log=$logs/dpkg-no-providers.log
	if ! run "$log" dpkg -P --force-depends ibverbs-providers ||
		[[ -e $stock ]]; then
		fail "$name" "could not purge ibverbs-providers"
		show "$log" dpkg 20
	elif ! run "$log" dpkg -i "$deb"; then
		fail "$name" "dpkg -i failed"
		show "$log" dpkg 20
	else
		wrong=$(state_diverted)
		[[ ! -e $diverted ]] || wrong+=$'\n'"$diverted exists without ibverbs-providers"
		wrong=$(sed '/^$/d' <<<"$wrong")
		if [[ -n $wrong ]]; then
			none_wrong "$name" "$wrong" "$log"
		elif expect_served "$name" doorbell ibv_rc_pingpong; then
			pass "$name"
		fi
		name=deb_ibverbs_providers_installed_later_stays_diverted
		if ! run "$log" dpkg -i "$ipdeb"; then
			fail "$name" "dpkg -i ibverbs-providers failed"
			show "$log" dpkg 20
		else
			wrong=$(state_diverted)
			[[ -f $diverted ]] || wrong+=$'\n'"no rxe.driver at $diverted"
			wrong=$(sed '/^$/d' <<<"$wrong")
			if [[ -n $wrong ]]; then
				none_wrong "$name" "$wrong" "$log"
			elif expect_served "$name" doorbell; then
				pass "$name"
			fi
		fi
		name=deb_purge_after_late_ibverbs_providers_restores_stock
		if ! run "$log" dpkg -P doorbell; then
			fail "$name" "dpkg -P failed"
			show "$log" dpkg 20
		else
			wrong=$(sed '/^$/d' <<<"$(state_stock)")
			if [[ -n $wrong ]]; then
				none_wrong "$name" "$wrong" "$log"
			elif expect_served "$name" stock; then
				pass "$name"
			fi
		fi
	fi
fi

# --- RPM scriptlets and triggers (optional) -------------------------------------
# rpm keeps its database in /tmp; a stand-in "libibverbs" RPM
# (tests/package/libibverbs-standin.spec) owns rxe.driver as Fedora's
# libibverbs does, so that its install, upgrade and erase fire doorbell's
# triggers.  --nodeps: the database knows no other package.
# shellcheck disable=SC2317 # called indirectly, by name, from rpm_expect
rpm_state_taken() { # prints what is wrong
	[[ ! -e $stock ]] || echo "$stock is still there"
	[[ -f $diverted ]] && grep -qx 'driver rxe' "$diverted" || echo "no stock rxe.driver at $diverted"
	[[ -f $ours ]] || echo "$ours missing"
	[[ -f $lib ]] || echo "$lib missing (RPM built without Debian's _libdir?)"
}
# shellcheck disable=SC2317 # called indirectly, by name, from rpm_expect
rpm_state_stock() {
	[[ -f $stock ]] && grep -qx 'driver rxe' "$stock" || echo "$stock is not back"
	[[ ! -e /usr/share/doorbell ]] || echo "/usr/share/doorbell is left over"
	[[ ! -e $ours ]] || echo "$ours is left in $conf"
	[[ ! -e $lib ]] || echo "$lib is left over"
	leftovers
}
rpm_step() { # rpm_step NAME LOG ARGS...: rpm ARGS, FAIL NAME if it fails
	local name=$1 log=$2
	shift 2
	if ! run "$log" rpm "${rpmopts[@]}" "$@"; then
		fail "$name" "rpm $* failed"
		show "$log" rpm 20
		return 1
	fi
}
# rpm_expect NAME STATE_FN doorbell|stock LOG
rpm_expect() {
	local wrong
	wrong=$($2)
	if [[ -n $wrong ]]; then
		none_wrong "$1" "$wrong" "$4"
	elif expect_served "$1" "$3"; then
		pass "$1"
	fi
}
if [[ -n $rpm_pkg ]]; then
	echo "== rpm -i $(basename "$rpm_pkg"), stand-in libibverbs upgraded, rpm -e"
	log=$logs/rpm.log
	rpmopts=(--dbpath /tmp/rpmdb --nodeps)
	rpm --help 2>&1 | grep -q -- --force-debian && rpmopts+=(--force-debian)
	standin=$top/tests/package/libibverbs-standin.spec
	for rel in 1 2; do
		run "$log" rpmbuild -bb --define "_topdir $logs/rpmbuild" \
			--define "standin_release $rel" "$standin"
	done
	lv1=$(ls "$logs"/rpmbuild/RPMS/*/libibverbs-44.0-1.*.rpm 2>/dev/null)
	lv2=$(ls "$logs"/rpmbuild/RPMS/*/libibverbs-44.0-2.*.rpm 2>/dev/null)
	if [[ ! -f $rpm_pkg ]]; then
		fail rpm_install_makes_doorbell_serve_rxe0 "no such file: $rpm_pkg"
	elif [[ -z $lv1 || -z $lv2 ]]; then
		fail rpm_install_makes_doorbell_serve_rxe0 "could not build the stand-in libibverbs RPMs"
		show "$log" rpmbuild 20
	elif ! run "$log" rpm --dbpath /tmp/rpmdb --initdb ||
		! rpm_step rpm_standin_libibverbs_installs "$log" -i "$lv1"; then
		:
	else
		if rpm_step rpm_install_makes_doorbell_serve_rxe0 "$log" -i "$rpm_pkg"; then
			rpm_expect rpm_install_makes_doorbell_serve_rxe0 rpm_state_taken doorbell "$log"
		fi
		# rpm re-creates the missing config file; %triggerin moves it.
		if rpm_step rpm_libibverbs_upgrade_keeps_rxe_driver_aside "$log" -U "$lv2"; then
			rpm_expect rpm_libibverbs_upgrade_keeps_rxe_driver_aside rpm_state_taken doorbell "$log"
		fi
		if rpm_step rpm_erase_restores_stock_provider "$log" -e doorbell; then
			rpm_expect rpm_erase_restores_stock_provider rpm_state_stock stock "$log"
		fi
		# %triggerun: libibverbs erased for good drops the saved copy.
		name=rpm_libibverbs_erase_drops_saved_stock_file
		if rpm_step "$name" "$log" -i "$rpm_pkg" &&
			rpm_step "$name" "$log" -e libibverbs; then
			wrong=""
			[[ ! -e $diverted ]] || wrong="$diverted is left after libibverbs was erased"
			[[ ! -e $stock ]] || wrong+="${wrong:+; }$stock came back without libibverbs"
			none_wrong "$name" "$wrong" "$log"
			rpm_step "$name" "$log" -e doorbell
		fi
	fi
fi

rm -rf "$logs"
exit "$db_failed"
