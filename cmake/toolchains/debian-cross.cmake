# SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
# Cross builds with Debian's cross compilers (gcc-<triplet>) against the
# multiarch libibverbs-dev:<arch>, run under qemu-user.  Included by the
# per-architecture files next to it, which set db_triplet, db_processor and
# db_qemu first; docs/architectures.md says how to use them.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${db_processor})
set(CMAKE_C_COMPILER ${db_triplet}-gcc)

# The target's libraries: the cross libc under /usr/<triplet>, the
# multiarch packages (libibverbs1:<arch>, libnl) under /usr/lib/<triplet>.
# libibverbs' headers are /usr/include/infiniband, shared by every
# architecture; the cross compiler searches /usr/include last, after its
# own libc and <linux/...> headers.
set(CMAKE_FIND_ROOT_PATH /usr/${db_triplet})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_LIBRARY_ARCHITECTURE ${db_triplet})
set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/${db_triplet}/pkgconfig:/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")

# ctest (and the test listing at ctest time) runs every target program
# through qemu-user (qemu-user-static; no binfmt_misc registration is
# needed).  The programs run on the multiarch libc6:<arch> that
# libibverbs1:<arch> brings, loader included (-L /): with
# -L /usr/<triplet> the cross libc's ld.so would load the multiarch
# libc.so.6 that /etc/ld.so.cache names, and on ppc64el and s390x that pair
# aborts before main ("stack smashing detected"), even for an empty program.
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-${db_qemu}-static -L /)
