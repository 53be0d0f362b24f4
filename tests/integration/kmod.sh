# cmdev.ko on Debian's kernel in QEMU: module tests, and the profilers with
# --backend cmdev when this build has them. See scripts/kmod-test.
set -euo pipefail
exec "$(dirname "$0")/../../scripts/kmod-test" "${1:?usage: $0 BUILD_DIR}"
