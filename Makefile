# Thin wrapper around CMake. `make study` and `make test` install dependencies first.
BUILD ?= build
SANITIZE ?= 0
WERROR ?= 0
RTL ?= 1
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# RTL=1: the RTL models when Verilator is installed (CMake's default, re-evaluated on every
# build, so a tree first configured by `make study` gets them back); RTL=0: never.
CMAKE_BASE = -DLAYSIM_SANITIZE=$(if $(filter 1,$(SANITIZE)),ON,OFF) \
             -DLAYSIM_WERROR=$(if $(filter 1,$(WERROR)),ON,OFF)
CMAKE_FLAGS = $(CMAKE_BASE) $(if $(filter 0,$(RTL)),-DLAYSIM_RTL=OFF,-ULAYSIM_RTL)

.PHONY: all deps deps-test build test test-quick study clean
all: build

deps:
	@scripts/deps.sh

# what only the tests need (headless Chromium for tests/cli/report_browser.sh)
deps-test:
	@scripts/deps.sh test

build: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

test: build deps-test
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# the quick tier (tests/CMakeLists.txt: every test but the slow ones; about a minute)
test-quick: build deps-test
	ctest --test-dir $(BUILD) -L quick --output-on-failure -j $(JOBS)

# The study needs only the laysim executable: no test binaries, and in a tree not configured
# yet no RTL models (`laysim cosim` is not part of the study); a configured tree keeps its
# configuration. The compiler's output goes to a log, shown when the build fails.
study: deps
	@[ -f $(BUILD)/CMakeCache.txt ] || cmake -S . -B $(BUILD) $(CMAKE_BASE) -DLAYSIM_RTL=OFF >/dev/null
	@echo "make study: building laysim (log: $(BUILD)/study-build.log)"
	@cmake --build $(BUILD) -j $(JOBS) --target laysim >$(BUILD)/study-build.log 2>&1 || \
	  { tail -n 40 $(BUILD)/study-build.log; echo "make study: the build failed (log: $(BUILD)/study-build.log)" >&2; exit 1; }
	@scripts/study.sh $(BUILD)

clean:
	rm -rf build build-asan
