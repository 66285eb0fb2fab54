# Cross-compiles the C++ core and its tests for 64-bit ARM Linux with Debian's
# g++-aarch64-linux-gnu. Libraries (GoogleTest, zlib) come from Debian's arm64 multiarch
# packages in /usr/lib/aarch64-linux-gnu (dpkg --add-architecture arm64); the binaries run
# under qemu-aarch64 -L /usr/aarch64-linux-gnu (see scripts/arm64.js).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)

# Find arm64 libraries and headers only, never the build machine's x86-64 ones; programs
# (cmake helpers) from the build machine.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# gtest_discover_tests runs the test binary at build time to list its tests.
# The loader and libc must come from the same build: the cross toolchain's (the prefix), not
# the multiarch libc6:arm64 that the -dev packages pull in (mixing them hangs at start-up).
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64 -L /usr/aarch64-linux-gnu -E
    LD_LIBRARY_PATH=/usr/aarch64-linux-gnu/lib:/usr/lib/aarch64-linux-gnu)
