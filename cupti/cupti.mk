# cupti/cupti.mk: build rules for the CUPTI tracer (issue 9); included by the root Makefile.
#
# Defines
#   CUDA_HOME      CUDA toolkit root (default /usr/local/cuda)
#   CUPTI_FOUND    non-empty when $(CUDA_HOME)/include/cupti.h has the CUDA 13 record types
#   CUPTI_LIB      build/libtracecost_cupti.so, the injected tracer (needs the toolkit)
#   CUPTI_ALL      what `make` should build for the tracer: $(CUPTI_LIB), or cupti-skip
#   RECORD_SRCS    launcher sources to link into build/tracecost (no CUDA dependency)
#   RECORD_HDRS    their headers
# Targets
#   cupti          builds $(CUPTI_ALL); without the toolkit it prints that it skipped
#   test-cupti     builds and runs build/test-cupti (Criterion): converter, launcher, and the
#                  tracer driven by a stand-in libcupti (no GPU needed)
#   cupti-clean    removes what these rules built
# The tracer library uses its own flags (CUPTI_CFLAGS), not the root CFLAGS, so sanitizer or
# coverage flags of the analyzer build never end up inside the traced program.

CUDA_HOME ?= /usr/local/cuda
CUPTI_CC ?= $(CC)
CUPTI_CFLAGS ?= -std=c11 -O2 -g -Wall -Wextra -Werror
CUPTI_TEST_CFLAGS ?= -std=c11 -O1 -g -Wall -Wextra -Werror
CUPTI_BUILD ?= build

# CUDA 13 record types the converter is written against.
CUPTI_TYPES := CUpti_ActivityKernel10 CUpti_ActivityMemcpy6 CUpti_ActivityMemset4 \
  CUpti_ActivityDevice5 CUpti_ActivityMarker2 CUpti_ActivityMarkerData2 \
  CUpti_ActivitySynchronization2 CUpti_ActivityMemcpyPtoP4 CUpti_ActivityContext3
CUPTI_HEADER := $(wildcard $(CUDA_HOME)/include/cupti.h)
CUPTI_FOUND := $(if $(CUPTI_HEADER),$(shell for t in $(CUPTI_TYPES); do \
  grep -q "} $$t;" $(CUDA_HOME)/include/cupti_activity.h || exit 0; done; echo yes),)
CUPTI_SONAME := $(or $(if $(CUPTI_FOUND),$(shell objdump -p $(CUDA_HOME)/lib64/libcupti.so \
  2>/dev/null | awk '/SONAME/ {print $$2}')),libcupti.so.13)

CUPTI_LIB := $(CUPTI_BUILD)/libtracecost_cupti.so
CUPTI_CONV_SRCS := cupti/convert_doc.c cupti/convert_events.c
CUPTI_LIB_SRCS := cupti/tracer.c $(CUPTI_CONV_SRCS) cupti/envutil.c
CUPTI_LIB_HDRS := cupti/convert.h cupti/convert_int.h cupti/envutil.h base/utf8.h
RECORD_SRCS := cupti/record.c cupti/envutil.c
RECORD_HDRS := cupti/record.h cupti/envutil.h

CUPTI_FAKE_LIB := $(CUPTI_BUILD)/cupti-fake/$(CUPTI_SONAME)
CUPTI_FAKE_APP := $(CUPTI_BUILD)/cupti-fake-app
CUPTI_TEST := $(CUPTI_BUILD)/test-cupti
CUPTI_TEST_LIBS := -lcriterion -lyajl -lz -ldl -lpthread

ifneq ($(CUPTI_FOUND),)
CUPTI_ALL := $(CUPTI_LIB)
CUPTI_TEST_SRCS := tests/test_cupti_convert.c tests/test_record.c $(CUPTI_CONV_SRCS) \
  cupti/test/synthetic.c $(RECORD_SRCS)
CUPTI_TEST_DEPS := $(CUPTI_LIB) $(CUPTI_FAKE_APP)
CUPTI_TEST_DEFS := -isystem $(CUDA_HOME)/include
else
CUPTI_ALL := cupti-skip
CUPTI_TEST_SRCS := tests/test_record.c $(RECORD_SRCS)
CUPTI_TEST_DEPS :=
CUPTI_TEST_DEFS := -DTC_NO_CUPTI
endif

.PHONY: cupti cupti-skip test-cupti cupti-clean

cupti: $(CUPTI_ALL)

cupti-skip:
	@echo "tracecost: CUDA toolkit not found, skipping the CUPTI tracer"$(if $(CUPTI_HEADER), \
	  "($(CUDA_HOME) has cupti.h but not the CUDA 13 record types)")

$(CUPTI_LIB): $(CUPTI_LIB_SRCS) $(CUPTI_LIB_HDRS) cupti/cupti.mk
	@mkdir -p $(dir $@)
	$(CUPTI_CC) $(CUPTI_CFLAGS) -I. -fPIC -fvisibility=hidden -shared -isystem $(CUDA_HOME)/include \
	  $(CUPTI_LIB_SRCS) -o $@ -L$(CUDA_HOME)/lib64 -Wl,-rpath,$(CUDA_HOME)/lib64 \
	  -Wl,-z,defs -Wl,-Bsymbolic -lcupti -lpthread -lz -ldl

# Stand-in libcupti with the real soname, and a fake "CUDA program" linked against it.
$(CUPTI_FAKE_LIB): cupti/test/fake_cupti.c cupti/test/fake_cupti.h cupti/test/records.h cupti/cupti.mk
	@mkdir -p $(dir $@)
	$(CUPTI_CC) $(CUPTI_TEST_CFLAGS) -fPIC -shared -Wl,-soname,$(CUPTI_SONAME) \
	  -isystem $(CUDA_HOME)/include $< -o $@ -lpthread

$(CUPTI_FAKE_APP): cupti/test/fake_app.c cupti/test/fake_cupti.h $(CUPTI_FAKE_LIB)
	$(CUPTI_CC) $(CUPTI_TEST_CFLAGS) $< -o $@ $(CUPTI_FAKE_LIB) \
	  -Wl,-rpath,'$$ORIGIN/cupti-fake' -ldl

$(CUPTI_TEST): $(CUPTI_TEST_SRCS) $(CUPTI_LIB_HDRS) $(RECORD_HDRS) cupti/test/synthetic.h cupti/test/records.h \
  cupti/test/tjson.h cupti/cupti.mk $(CUPTI_TEST_DEPS)
	@mkdir -p $(dir $@)
	$(CUPTI_CC) $(CUPTI_TEST_CFLAGS) -I. $(CUPTI_TEST_DEFS) $(CUPTI_TEST_SRCS) -o $@ \
	  $(CUPTI_TEST_LIBS)

test-cupti: $(CUPTI_TEST)
	$(if $(CUPTI_FOUND),,@echo "tracecost: CUDA toolkit not found: only the launcher tests run")
	$(abspath $(CUPTI_TEST))

cupti-clean:
	rm -rf $(CUPTI_LIB) $(CUPTI_TEST) $(CUPTI_FAKE_APP) $(CUPTI_BUILD)/cupti-fake
