# Thin wrapper around CMake. `make study` and `make test` install dependencies first.
BUILD ?= build
SANITIZE ?= 0
WERROR ?= 0
RTL ?= 1
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS = -DLAYSIM_SANITIZE=$(if $(filter 1,$(SANITIZE)),ON,OFF) \
              -DLAYSIM_WERROR=$(if $(filter 1,$(WERROR)),ON,OFF) \
              $(if $(filter 0,$(RTL)),-DLAYSIM_RTL=OFF,)

.PHONY: all deps build test test-quick study clean
all: build

deps:
	@scripts/deps.sh

build: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j $(JOBS)

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# the quick tier (tests/CMakeLists.txt: every test but the slow ones; about a minute)
test-quick: build
	ctest --test-dir $(BUILD) -L quick --output-on-failure -j $(JOBS)

study: build
	@scripts/study.sh $(BUILD)

clean:
	rm -rf build build-asan
