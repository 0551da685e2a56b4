# shellcheck shell=bash
# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Sourced: the rdma-core releases doorbell serves, from the one place they
# are written, providers/doorbell/abi/releases.txt, into db_first, db_last
# and the array db_pabis (the first is the PABI the module is built as).
db_releases_file=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." &&
	pwd)/providers/doorbell/abi/releases.txt
db_first=$(awk '$1 == "first" { print $2 }' "$db_releases_file")
db_last=$(awk '$1 == "last" { print $2 }' "$db_releases_file")
read -r -a db_pabis <<<"$(awk '$1 == "pabis" { $1 = ""; print }' \
	"$db_releases_file")"
if ! [[ $db_first =~ ^[0-9]+$ && $db_last =~ ^[0-9]+$ &&
	${#db_pabis[@]} -gt 0 ]]; then
	echo "$db_releases_file: needs lines first N, last N, pabis N..." >&2
	exit 1
fi
