# sprof — top-level entry point.  `make demo` and `make check` work on a fresh
# Debian 12 machine: both install missing packages first (scripts/install-deps).
BUILD   ?= build
PREFIX  ?= /usr/local
JOBS    ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo

.PHONY: all deps configure build install demo check bench fuzz kmod-test clean

all: build

deps:
	@scripts/install-deps

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DCMAKE_INSTALL_PREFIX=$(PREFIX)

configure: $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

demo: deps
	@$(MAKE) --no-print-directory build
	@scripts/demo $(BUILD)

check: deps
	@$(MAKE) --no-print-directory build
	cd $(BUILD) && ctest --output-on-failure -j 2

bench: deps
	@$(MAKE) --no-print-directory build
	@bench/run $(BUILD)

# The libFuzzer target (clang, ASan+UBSan) in $(BUILD)/fuzz for FUZZ_SECONDS;
# a finding fails and is left in $(BUILD)/fuzz/findings/. `make check` runs
# it for a minute.
FUZZ_SECONDS ?= 600
fuzz: deps
	fuzz/run -b $(BUILD)/fuzz $(FUZZ_SECONDS)

clean:
	rm -rf $(BUILD)
