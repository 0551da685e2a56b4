# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Debian arm64: cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm64.cmake
# (packages: gcc-aarch64-linux-gnu, libibverbs-dev:arm64, qemu-user-static).
set(db_triplet aarch64-linux-gnu)
set(db_processor aarch64)
set(db_qemu aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
