# tracecost build. `make` builds build/tracecost; `make test` runs the Criterion suite;
# `make sanitize` builds and tests with ASan+UBSan in build-sanitize/.
# Plain `make` never installs anything: it checks for the Debian packages it needs and names the
# missing ones with the command that installs them; `make deps` (and `make test-deps`) install them
# through scripts/setup-deps.sh (it says what it installs).

CC      ?= cc
BUILD   ?= build
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror
CPPFLAGS += -D_DEFAULT_SOURCE -I.
LDLIBS   = -lyajl $(ISAL_LIBS) -lz -lm -ldl -pthread
# ISA-L (libisal-dev, setup group `speed`) inflates gzip about 3x faster than zlib; zlib is used when
# it is missing. Checked when used (recursive =), so a `make` that installs it also builds with it.
ISAL_H    = /usr/include/isa-l/igzip_lib.h
ISAL_LIBS = $(shell test -f $(ISAL_H) && echo -lisal)
ISAL_DEFS = $(shell test -f $(ISAL_H) && echo -DTC_HAVE_ISAL)
SAN     :=

# Folders are layers (docs/architecture.md): base -> model -> parsers -> analyzer -> reports -> cli.
# cupti/record.c and envutil.c are the `record` launcher (no CUDA dependency); the rest of cupti/
# is the injected library, built by cupti/cupti.mk and never linked into the analyzer.
# cli/mpi/mpi_main.c and mpi_job.c include mpi.h: only `make mpi` compiles them (mpicc).
LAYERS    := base model parsers analyzer reports cli
MPI_SRCS  := cli/mpi/mpi_main.c cli/mpi/mpi_job.c
LIB_SRCS  := $(foreach d,$(LAYERS),$(wildcard $(d)/*.c)) $(filter-out $(MPI_SRCS),$(wildcard cli/mpi/*.c)) \
             cupti/record.c cupti/envutil.c
LIB_SRCS  := $(filter-out cli/main.c,$(LIB_SRCS))
MAIN_SRCS := cli/main.c
TEST_SRCS := $(filter-out tests/test_cupti_convert.c tests/test_record.c,$(wildcard tests/test_*.c)) # those two: test-cupti

LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
MAIN_OBJS := $(MAIN_SRCS:%.c=$(BUILD)/obj/%.o)
TEST_OBJS := $(TEST_SRCS:%.c=$(BUILD)/obj/%.o)

.PHONY: all deps test-deps test sanitize robustness clean tools install uninstall bench mpi test-mpi test-mpi-sanitize golden-update check-layers check-functions pairs
# `make` with no target builds the tool, the trace generator and (where CUDA is) the tracer
all: $(BUILD)/tracecost tools cupti

deps:
	@mkdir -p $(BUILD)
	@scripts/setup-deps.sh base
	@scripts/setup-deps.sh speed || echo "ISA-L (libisal-dev) not installed: gzip inflates with zlib" >&2
	@touch $(BUILD)/.deps-base
test-deps:
	@mkdir -p $(BUILD)
	@scripts/setup-deps.sh base test
	@touch $(BUILD)/.deps-base $(BUILD)/.deps-test
# The checks behind every build: stop with the missing packages named (scripts/setup-deps.sh --check).
$(BUILD)/.deps-base: scripts/setup-deps.sh
	@mkdir -p $(BUILD)
	@scripts/setup-deps.sh --check base
	@touch $@
$(BUILD)/.deps-test: scripts/setup-deps.sh
	@mkdir -p $(BUILD)
	@scripts/setup-deps.sh --check base test
	@touch $@

$(BUILD)/obj/%.o: %.c $(BUILD)/.deps-base
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(SAN) $(CPPFLAGS) $(ISAL_DEFS) -MMD -MP -c $< -o $@

$(BUILD)/libtracecost.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

# Build features reported by `tracecost --version` (main.c only): CUPTI when the tracer's source
# is here and the CUDA toolkit's cupti.h is found (the tracer library is then built), MPI off in
# the plain build.
CUDA_HOME ?= /usr/local/cuda
CUPTI_BUILD := $(BUILD)
include cupti/cupti.mk
TC_HAVE_CUPTI ?= $(if $(CUPTI_FOUND),1,0)
TC_HAVE_MPI ?= 0
$(BUILD)/obj/cli/main.o: CPPFLAGS += -DTC_HAVE_CUPTI=$(TC_HAVE_CUPTI) -DTC_HAVE_MPI=$(TC_HAVE_MPI)
$(BUILD)/obj/cli/main.o: $(BUILD)/.features-$(TC_HAVE_CUPTI)$(TC_HAVE_MPI)
$(BUILD)/.features-%:
	@mkdir -p $(BUILD)
	@rm -f $(BUILD)/.features-*
	@touch $@

$(BUILD)/tracecost: $(MAIN_OBJS) $(BUILD)/libtracecost.a
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(LDLIBS)

tools: $(if $(wildcard bench/tracegen.c),$(BUILD)/tracegen)
TRACEGEN_SRCS := $(wildcard bench/*.c)
$(BUILD)/tracegen: $(TRACEGEN_SRCS) $(wildcard bench/*.h) $(BUILD)/.deps-base
	@mkdir -p $(BUILD)
	$(CC) $(WARN) -O2 $(SAN) -o $@ $(TRACEGEN_SRCS) -lz -lm

$(BUILD)/obj/tests/%.o: tests/%.c $(BUILD)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -Wall -Wextra -Werror $(CFLAGS) $(SAN) $(CPPFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/test-tracecost: $(TEST_OBJS) $(BUILD)/libtracecost.a
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ -lcriterion $(LDLIBS)

# Tests run from the repository root (they read samples/ and tests/data/ and run build/tracecost).
test: $(BUILD)/.deps-test $(BUILD)/tracecost $(BUILD)/test-tracecost tools cupti check-layers check-functions
	COLUMNS=100 TRACECOST_BIN=$(BUILD)/tracecost TRACEGEN_BIN=$(BUILD)/tracegen $(BUILD)/test-tracecost --jobs 2
	TRACECOST=$(BUILD)/tracecost TRACEGEN=$(BUILD)/tracegen tests/golden/run.sh check
	TRACECOST=$(BUILD)/tracecost tests/hostile/run.sh
	TRACECOST_BIN=$(BUILD)/tracecost $(MAKE) --no-print-directory test-cupti BUILD=$(BUILD)

# The layer rule (docs/architecture.md): includes only point to the same or an earlier layer; and no
# function of the product over 120 lines. Both run in `make test`.
check-layers:
	@scripts/check-layers.sh
check-functions:
	@scripts/check-functions.sh

# Rewrites tests/golden/expected from this build: only on purpose, committed alone with the reason.
golden-update: $(BUILD)/tracecost tools
	TRACECOST=$(BUILD)/tracecost TRACEGEN=$(BUILD)/tracegen tests/golden/run.sh update

SANITIZE_SAN := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
# A leak in a test's process (Criterion runs each test in a child of its own) prints
# LeakSanitizer's report but does not fail the test: the log is searched for one afterwards.
sanitize:
	@mkdir -p build-sanitize
	@{ LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	   $(MAKE) BUILD=build-sanitize SAN="$(SANITIZE_SAN)" CFLAGS="-O1 -g" test 2>&1; echo $$? > build-sanitize/test.rc; } \
	   | tee build-sanitize/test.log
	@test "$$(cat build-sanitize/test.rc)" = 0
	@if grep -q 'ERROR: LeakSanitizer' build-sanitize/test.log; then \
	   echo "sanitize: FAIL: LeakSanitizer reports in build-sanitize/test.log"; exit 1; fi
	@echo "sanitize: ok (no sanitizer report)"

# The hostile inputs (tests/hostile/, docs/damage.md) on the release and the sanitize build, which
# must agree: every case of tests/hostile/cases.txt (make test runs them for its own build too),
# then stress.sh: a trace that shrinks while it is parsed, large traces through a FIFO and pipes,
# and tracecost-mpi on a FIFO when `make mpi` built it. .ci/run runs it.
robustness: $(BUILD)/tracecost tools
	$(MAKE) --no-print-directory BUILD=build-sanitize SAN="$(SANITIZE_SAN)" CFLAGS="-O1 -g" build-sanitize/tracecost
	@for b in $(BUILD)/tracecost build-sanitize/tracecost; do \
	    TRACECOST=$$b tests/hostile/run.sh && \
	    TRACECOST=$$b TRACEGEN=$(BUILD)/tracegen TRACECOST_MPI=$(wildcard $(BUILD)/tracecost-mpi) tests/hostile/stress.sh \
	    || exit 1; \
	done

# ---- MPI: build/tracecost-mpi (docs/mpi.md) ----
# `make mpi` compiles the MPI entry point with mpicc (Open MPI: scripts/setup-deps.sh mpi) and links
# it with the same library as build/tracecost; the plain build never sees mpi.h. `make test-mpi`
# checks that mpirun -np 2 and -np 3 write the same reports as the single-process tool.
MPICC     ?= mpicc
MPI_OBJS  := $(MPI_SRCS:%.c=$(BUILD)/obj-mpi/%.o)
$(BUILD)/obj-mpi/%.o: %.c $(BUILD)/.deps-base
	@command -v $(MPICC) >/dev/null || { echo "make mpi: $(MPICC) not found: run scripts/setup-deps.sh mpi" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(MPICC) $(WARN) $(CFLAGS) $(SAN) $(CPPFLAGS) $(ISAL_DEFS) -DTC_HAVE_MPI=1 -MMD -MP -c $< -o $@
$(BUILD)/tracecost-mpi: $(MPI_OBJS) $(BUILD)/libtracecost.a
	$(MPICC) $(CFLAGS) $(SAN) -o $@ $^ $(LDLIBS)
mpi: $(BUILD)/tracecost-mpi
test-mpi: $(BUILD)/tracecost $(BUILD)/tracecost-mpi tools
	TRACECOST=$(BUILD)/tracecost TRACECOST_MPI=$(BUILD)/tracecost-mpi TRACEGEN=$(BUILD)/tracegen tests/mpi_check.sh

# The same check on the ASan+UBSan builds: a name left pointing into a freed string table prints
# whatever lies there now, which the release build's comparison catches only now and then. Leak
# detection is off: Open MPI keeps allocations of its own until exit (make sanitize checks ours).
test-mpi-sanitize: tools
	$(MAKE) --no-print-directory BUILD=build-sanitize SAN="$(SANITIZE_SAN)" CFLAGS="-O1 -g" build-sanitize/tracecost build-sanitize/tracecost-mpi
	ASAN_OPTIONS=detect_leaks=0 TRACECOST=build-sanitize/tracecost TRACECOST_MPI=build-sanitize/tracecost-mpi \
	    TRACEGEN=$(BUILD)/tracegen tests/mpi_check.sh

# ---- robustness: libFuzzer harness and valgrind (docs/damage.md) ----
# `make fuzz` builds build-fuzz/fuzz_parse: every library source compiled by clang with coverage,
# ASan and UBSan. `make fuzz-run` runs it over fuzz/corpus for FUZZ_TIME seconds (new inputs it
# finds go to build-fuzz/corpus, not into the committed seed corpus).
FUZZ_CC   ?= clang
FUZZ_TIME ?= 60
FUZZ_SAN  := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_OBJS := $(LIB_SRCS:%.c=build-fuzz/obj/%.o)
build-fuzz/obj/%.o: %.c $(BUILD)/.deps-base
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(WARN) -O1 -g -fsanitize=fuzzer-no-link $(FUZZ_SAN) $(CPPFLAGS) -DSTR_CAP=40 -MMD -MP -c $< -o $@
build-fuzz/fuzz_parse: fuzz/fuzz_parse.c $(FUZZ_OBJS)
	$(FUZZ_CC) $(WARN) -O1 -g -fsanitize=fuzzer $(FUZZ_SAN) $(CPPFLAGS) -o $@ $^ $(LDLIBS)
.PHONY: fuzz fuzz-run valgrind
fuzz: build-fuzz/fuzz_parse
fuzz-run: build-fuzz/fuzz_parse
	@mkdir -p build-fuzz/corpus build-fuzz/artifacts
	build-fuzz/fuzz_parse -max_total_time=$(FUZZ_TIME) -timeout=10 -dict=fuzz/kineto.dict -rss_limit_mb=2048 -max_len=65536 \
	    -artifact_prefix=build-fuzz/artifacts/ build-fuzz/corpus fuzz/corpus

# the pairs of issue 29: every kind's job on a slow and a fast fabric (bench/TRACEGEN.md, "Pairs")
pairs: tools
	bench/pairs.sh $(BUILD)/tracegen bench/data/pairs

# Speed and memory against json_verify, gzip -dc and cat, one interleaved run (bench/bench.sh: the four
# layouts, plain and gzip, 2/3/8 files of unequal sizes, the byte-identity checks across -j, layouts
# and scanner paths), then the rank scaling (bench/ranks.sh). RUNS=N rounds (bench.sh: 5, ranks.sh: 3);
# generates what is missing of bench/data/ (about 6 GB; docs/performance.md, "Measuring").
bench: $(BUILD)/.deps-test $(BUILD)/tracecost tools
	TRACECOST=$(BUILD)/tracecost TRACEGEN=$(BUILD)/tracegen bench/bench.sh $(RUNS)
	TRACECOST=$(BUILD)/tracecost TRACEGEN=$(BUILD)/tracegen bench/ranks.sh $(RUNS)


# ---- install / uninstall (PREFIX, DESTDIR). uninstall removes exactly what install puts. ----
PREFIX     ?= /usr/local
STRIP      ?= strip
BINDIR     := $(DESTDIR)$(PREFIX)/bin
TCLIBDIR   := $(DESTDIR)$(PREFIX)/lib/tracecost
MAN1DIR    := $(DESTDIR)$(PREFIX)/share/man/man1
BASHCOMPDIR:= $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
CUPTI_LIB  := $(BUILD)/libtracecost_cupti.so

install: $(BUILD)/tracecost
	install -d $(BINDIR) $(MAN1DIR) $(BASHCOMPDIR) $(ZSHCOMPDIR)
	install -m 755 $(BUILD)/tracecost $(BINDIR)/tracecost
	$(STRIP) $(BINDIR)/tracecost
	install -m 644 docs/tracecost.1 $(MAN1DIR)/tracecost.1
	install -m 644 completions/tracecost.bash $(BASHCOMPDIR)/tracecost
	install -m 644 completions/_tracecost $(ZSHCOMPDIR)/_tracecost
	@if [ -f $(CUPTI_LIB) ]; then \
	  echo "install -d $(TCLIBDIR) && install -m 755 $(CUPTI_LIB) $(TCLIBDIR)/"; \
	  install -d $(TCLIBDIR) && install -m 755 $(CUPTI_LIB) $(TCLIBDIR)/libtracecost_cupti.so; \
	fi

uninstall:
	rm -f $(BINDIR)/tracecost $(MAN1DIR)/tracecost.1 $(BASHCOMPDIR)/tracecost $(ZSHCOMPDIR)/_tracecost
	rm -f $(TCLIBDIR)/libtracecost_cupti.so
	-rmdir $(TCLIBDIR) 2>/dev/null || true

# valgrind over small sample traces in tests/data (real and damaged), hostile gzip containers (a
# 300 KiB file name in the header, data after the gzip stream, a bad CRC: tests/hostile/gen.sh) and
# a generated 2-rank job in plain Kineto layout (the parallel path reads it in pieces on two
# threads; the two files together on four): any error or definite/indirect leak fails (exit 9);
# exit codes 0 and 3 (damaged input) are expected.
VALGRIND_SAMPLES ?= tests/data/ref/alexnet_cuda_sync.json.gz tests/data/ref/mi250_minitoy_train_ROCm6_2_kineto.json.gz \
    tests/data/ref/ns_resolution.pt.trace.json.gz $(wildcard tests/data/damage/*.json) \
    $(BUILD)/valgrind-hostile/gz_long_name.json.gz $(BUILD)/valgrind-hostile/gz_then_plain.json.gz \
    $(BUILD)/valgrind-hostile/gz_bad_crc.json.gz \
    $(BUILD)/valgrind-job/rank0.pt.trace.json "-j4 $(BUILD)/valgrind-job/rank0.pt.trace.json $(BUILD)/valgrind-job/rank1.pt.trace.json"
valgrind: $(BUILD)/tracecost tools
	@rm -rf $(BUILD)/valgrind-job && $(BUILD)/tracegen -o $(BUILD)/valgrind-job --ranks 2 --steps 30 --straggler 1 >/dev/null
	@rm -rf $(BUILD)/valgrind-hostile && sh tests/hostile/gen.sh $(BUILD)/valgrind-hostile
	@for f in $(VALGRIND_SAMPLES); do \
	    echo "valgrind: $$f"; \
	    valgrind -q --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite,indirect \
	        $(BUILD)/tracecost analyze -q --json /dev/null $$f; rc=$$?; \
	    if [ $$rc -eq 9 ]; then echo "valgrind: errors in $$f"; exit 1; fi; \
	    if [ $$rc -ne 0 ] && [ $$rc -ne 3 ]; then echo "valgrind: $$f: exit $$rc"; exit 1; fi; \
	done; echo "valgrind: clean"

clean:
	rm -rf build build-sanitize build-fuzz

-include $(FUZZ_OBJS:.o=.d) $(MPI_OBJS:.o=.d) $(LIB_OBJS:.o=.d) $(MAIN_OBJS:.o=.d) $(TEST_OBJS:.o=.d)
