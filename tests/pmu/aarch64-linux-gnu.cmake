# Cross-building the collectors and the guest's test programs for arm64
# (scripts/pmu-test): Debian's cross compilers, and the arm64 libraries
# installed as multiarch packages (libpfm4-dev:arm64, libdw-dev:arm64, ...),
# which the cross compilers find in /usr/lib/aarch64-linux-gnu by themselves.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# pkg-config reads the arm64 .pc files only.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
