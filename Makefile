# MQSS-Selector: thin wrapper over CMake. `make test` and `make demo` work on a
# fresh Debian 12 machine: they install what is missing first.
BUILD      ?= build
ASAN_BUILD ?= build-asan
TSAN_BUILD ?= build-tsan
FUZZ_BUILD ?= build-fuzz
FUZZ_S     ?= 60
JOBS       ?= $(shell nproc)

.PHONY: all deps build test test-unit test-asan test-tsan fuzz static test-static demo bench clean

all: build

deps:
	@./scripts/install-deps.sh

$(BUILD)/Makefile: CMakeLists.txt | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

build: deps $(BUILD)/Makefile
	cmake --build $(BUILD) -j$(JOBS)

test: build
	cd $(BUILD) && ctest --output-on-failure -j$(JOBS)

test-unit: build
	cd $(BUILD) && ctest --output-on-failure -L unit -j$(JOBS)

# Unit and lit tests again, built with clang under ASan + UBSan.
test-asan: deps
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
	  -DCMAKE_BUILD_TYPE=Debug -DMQSS_SANITIZE=ON >/dev/null
	cmake --build $(ASAN_BUILD) -j$(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:allocator_may_return_null=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  ctest --output-on-failure -j$(JOBS)

# The policy tests (8 threads on one shared policy) under ThreadSanitizer.
test-tsan: deps
	cmake -S . -B $(TSAN_BUILD) -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
	  -DCMAKE_BUILD_TYPE=Debug -DMQSS_TSAN=ON >/dev/null
	cmake --build $(TSAN_BUILD) -j$(JOBS) --target test_policy_threads test_policy
	cd $(TSAN_BUILD) && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
	  ctest --output-on-failure -R 'unit/test_policy(_threads)?$$'

# The libFuzzer harnesses (fuzz/, clang + ASan + UBSan), each run for FUZZ_S
# seconds from its seed corpus; fails if any finds a crash (docs/FUZZING.md).
fuzz: deps
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
	  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMQSS_FUZZ=ON >/dev/null
	cmake --build $(FUZZ_BUILD) -j$(JOBS) --target fuzzers
	./scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_S)
# The CLI linked against the static MLIR/LLVM archives: build/mqss-static.
static: deps $(BUILD)/Makefile
	cmake --build $(BUILD) -j$(JOBS) --target mqss-static

# ldd, select/opt/measure against the shared build, and the demo, with it.
test-static: build static
	./tests/static/check_static.sh $(BUILD)

demo: build
	@./scripts/demo.sh $(BUILD)

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(TSAN_BUILD) $(FUZZ_BUILD)
