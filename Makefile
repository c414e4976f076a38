# tracecost build. `make` builds build/tracecost; `make test` runs the Criterion suite;
# `make sanitize` builds and tests with ASan+UBSan in build-sanitize/.
# Missing Debian packages are installed by scripts/setup-deps.sh (it says what it installs).

CC      ?= cc
BUILD   ?= build
CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror
CPPFLAGS += -D_DEFAULT_SOURCE
LDLIBS   = -lyajl $(ISAL_LIBS) -lz -lm -pthread
# ISA-L (libisal-dev, setup group `speed`) inflates gzip about 3x faster than zlib; zlib is used when
# it is missing. Checked when used (recursive =), so a `make` that installs it also builds with it.
ISAL_H    = /usr/include/isa-l/igzip_lib.h
ISAL_LIBS = $(shell test -f $(ISAL_H) && echo -lisal)
ISAL_DEFS = $(shell test -f $(ISAL_H) && echo -DTC_HAVE_ISAL)
SAN     :=

LIB_SRCS  := $(wildcard parsers/*.c) $(filter-out analyzer/main.c,$(wildcard analyzer/*.c)) $(wildcard reports/*.c)
MAIN_SRCS := analyzer/main.c
TEST_SRCS := $(wildcard tests/test_*.c)

LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/obj/%.o)
MAIN_OBJS := $(MAIN_SRCS:%.c=$(BUILD)/obj/%.o)
TEST_OBJS := $(TEST_SRCS:%.c=$(BUILD)/obj/%.o)

.PHONY: all deps test-deps test sanitize clean tools bench
all: $(BUILD)/tracecost tools

deps: $(BUILD)/.deps-base
$(BUILD)/.deps-base: scripts/setup-deps.sh
	@mkdir -p $(BUILD)
	@scripts/setup-deps.sh base
	@scripts/setup-deps.sh speed || echo "ISA-L (libisal-dev) not installed: gzip inflates with zlib" >&2
	@touch $@
test-deps: $(BUILD)/.deps-test
$(BUILD)/.deps-test: scripts/setup-deps.sh
	@mkdir -p $(BUILD)
	@scripts/setup-deps.sh base test
	@touch $@

$(BUILD)/obj/%.o: %.c $(BUILD)/.deps-base
	@mkdir -p $(dir $@)
	$(CC) $(WARN) $(CFLAGS) $(SAN) $(CPPFLAGS) $(ISAL_DEFS) -MMD -MP -c $< -o $@

$(BUILD)/libtracecost.a: $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/tracecost: $(MAIN_OBJS) $(BUILD)/libtracecost.a
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ $(LDLIBS)

tools: $(if $(wildcard bench/tracegen.c),$(BUILD)/tracegen)
$(BUILD)/tracegen: bench/tracegen.c $(BUILD)/.deps-base
	@mkdir -p $(BUILD)
	$(CC) $(WARN) -O2 $(SAN) -o $@ bench/tracegen.c -lz -lm

$(BUILD)/obj/tests/%.o: tests/%.c $(BUILD)/.deps-test
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -Wall -Wextra -Werror $(CFLAGS) $(SAN) $(CPPFLAGS) -MMD -MP -c $< -o $@

$(BUILD)/test-tracecost: $(TEST_OBJS) $(BUILD)/libtracecost.a
	$(CC) $(CFLAGS) $(SAN) -o $@ $^ -lcriterion $(LDLIBS)

# Tests run from the repository root (they read samples/ and tests/data/ and run build/tracecost).
test: $(BUILD)/.deps-test $(BUILD)/tracecost $(BUILD)/test-tracecost tools
	TRACECOST_BIN=$(BUILD)/tracecost TRACEGEN_BIN=$(BUILD)/tracegen $(BUILD)/test-tracecost --jobs 2

sanitize:
	$(MAKE) BUILD=build-sanitize SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" CFLAGS="-O1 -g" test

# Speed and memory against json_verify, gzip -dc and cat (bench/bench.sh; generates bench/data/).
bench: $(BUILD)/.deps-test $(BUILD)/tracecost tools
	TRACECOST=$(BUILD)/tracecost TRACEGEN=$(BUILD)/tracegen bench/bench.sh $(RUNS)

clean:
	rm -rf build build-sanitize

-include $(LIB_OBJS:.o=.d) $(MAIN_OBJS:.o=.d) $(TEST_OBJS:.o=.d)
