# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
#
# CMake toolchain file: build doorbell for arm64 on a Debian 12 host with
# Debian's cross compiler and the arm64 libibverbs of multiarch:
#   dpkg --add-architecture arm64 && apt-get update
#   apt-get install gcc-aarch64-linux-gnu libibverbs-dev:arm64
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# Debian's cross gcc searches /usr/include after its own headers and links
# from /usr/lib/aarch64-linux-gnu, where multiarch puts libibverbs.so.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# pkg-config reads the arm64 .pc files only (libibverbs.pc names
# /usr/lib/aarch64-linux-gnu).
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
