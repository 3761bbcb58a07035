# pperf — build, test, demo, benchmark and install. `make V=1` shows full command lines;
# `make ASAN=1` builds with AddressSanitizer and UBSan into build-asan/.

prefix ?= /usr/local
bindir ?= $(prefix)/bin
mandir ?= $(prefix)/share/man
DESTDIR ?=

CC ?= cc
CFLAGS ?= -O2 -g
WARNINGS = -Wall -Wextra -Werror -Wno-missing-field-initializers
CPPFLAGS += -D_GNU_SOURCE -MMD -MP
LDLIBS += -ldw -lelf -lpfm -liberty -lz -lpthread -ldl -lm

ifeq ($(ASAN),1)
BUILD ?= build-asan
CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS += -fsanitize=address,undefined
else
BUILD ?= build
endif

ifneq ($(V),1)
Q = @
quiet = @printf '  %-7s %s\n' $(1) $(2);
endif

# Every .c of these parts goes into the binary; a new file needs no Makefile change.
PARTS = lib formats pmu sampler cmd report
SRCS = pperf.c $(foreach d,$(PARTS),$(wildcard $(d)/*.c))
OBJS = $(SRCS:%.c=$(BUILD)/%.o)
LIBOBJS = $(filter-out $(BUILD)/pperf.o $(BUILD)/cmd/%,$(OBJS))

all: $(BUILD)/pperf

# Rebuild everything when the flags change.
FLAGS_SIG = $(CC) $(CPPFLAGS) $(CFLAGS) $(WARNINGS) $(LDFLAGS) $(LDLIBS)
$(BUILD)/.flags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(FLAGS_SIG)' | cmp -s - $@ || echo '$(FLAGS_SIG)' > $@

$(BUILD)/%.o: %.c $(BUILD)/.flags
	@mkdir -p $(dir $@)
	$(call quiet,CC,$<)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARNINGS) -c -o $@ $<

$(BUILD)/pperf: $(OBJS)
	$(call quiet,LINK,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libpperf.a: $(LIBOBJS)
	$(call quiet,AR,$@)rm -f $@ && ar rcs $@ $^

-include $(OBJS:.o=.d)
include tests/Makefile.inc
include bench/Makefile.inc

deps:
	$(Q)scripts/install-deps

# Record the bundled example and show what was recorded.
demo: deps
	$(Q)$(MAKE) --no-print-directory all tests
	$(Q)scripts/demo $(BUILD)

# Every test, with the default build and under ASan+UBSan.
check: deps
	$(Q)$(MAKE) --no-print-directory all tests
	$(Q)$(MAKE) --no-print-directory ASAN=1 all tests
	$(Q)tests/run --build build --build build-asan

bench: deps
	$(Q)$(MAKE) --no-print-directory all tests $(BENCH_BINS)
	$(Q)bench/run $(BUILD)

install: all
	install -d $(DESTDIR)$(bindir)
	install -m 755 $(BUILD)/pperf $(DESTDIR)$(bindir)/pperf

uninstall:
	rm -f $(DESTDIR)$(bindir)/pperf

clean:
	rm -rf build build-asan build-fuzz

.PHONY: all deps demo check bench install uninstall clean FORCE
