# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Debian s390x: cmake -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/s390x.cmake
# (packages: gcc-s390x-linux-gnu, libibverbs-dev:s390x, qemu-user-static).
set(db_triplet s390x-linux-gnu)
set(db_processor s390x)
set(db_qemu s390x)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
