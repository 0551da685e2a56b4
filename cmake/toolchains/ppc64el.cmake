# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Debian ppc64el: cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/ppc64el.cmake
# (packages: gcc-powerpc64le-linux-gnu, libibverbs-dev:ppc64el, qemu-user-static).
set(db_triplet powerpc64le-linux-gnu)
set(db_processor ppc64le)
set(db_qemu ppc64le)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
