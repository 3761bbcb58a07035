# pperf — build, test, demo, benchmark and install. `make V=1` shows full command lines;
# `make ASAN=1` builds with AddressSanitizer and UBSan into build-asan/.

prefix ?= /usr/local
ifdef PREFIX
prefix = $(PREFIX)
endif
bindir ?= $(prefix)/bin
datadir ?= $(prefix)/share
mandir ?= $(datadir)/man
man1dir ?= $(mandir)/man1
includedir ?= $(prefix)/include
pkgconfigdir ?= $(datadir)/pkgconfig
bashcompdir ?= $(datadir)/bash-completion/completions
zshcompdir ?= $(datadir)/zsh/site-functions
pperfdatadir ?= $(datadir)/pperf
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
# and the one file of arch/ for the compiler's target (arch/arch.h says what it holds)
ARCH := $(firstword $(subst -, ,$(shell $(CC) -dumpmachine)))
ifeq ($(wildcard arch/$(ARCH).c),)
$(error pperf runs on x86_64 and aarch64 (arch/*.c), not on '$(ARCH)')
endif
SRCS = pperf.c arch/$(ARCH).c $(foreach d,$(PARTS),$(wildcard $(d)/*.c))
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

# The HTML report's style sheet and script (report/html/), as C strings for cmd/report_html.c:
# each line a string literal, backslashes and quotes escaped.
HTML_ASSETS = report/html/report.css report/html/report.js
$(BUILD)/gen/report_html_assets.h: $(HTML_ASSETS)
	@mkdir -p $(dir $@)
	$(call quiet,GEN,$@){ for f in $(HTML_ASSETS); do \
		n=$$(basename $$f | tr '.' '_'); \
		echo "static const char report_html_$$n[] ="; \
		sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/^/\t"/' -e 's/$$/\\n"/' $$f; \
		echo ';'; \
	done; } > $@.tmp && mv $@.tmp $@
$(BUILD)/cmd/report_html.o: $(BUILD)/gen/report_html_assets.h
$(BUILD)/cmd/report_html.o: CPPFLAGS += -I$(BUILD)/gen

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

# What `make install` installs besides the binary: a man page per command, the completions,
# the plugin interface with its pkg-config file, and the scripts users run (not install-deps
# and demo, which belong to the source tree). Installing an already-built tree without
# rebuilding it: make -o $(BUILD)/pperf install (tests/e2e/install.sh does).
MANPAGES = $(wildcard docs/man/*.1)
USER_SCRIPTS = scripts/aggregate-runs scripts/plot-functions scripts/plot-timeline scripts/sim-meter

# The pkg-config file names the installed header's directory and the plugin interface's version
# (PPERF_PLUGIN_ABI_MAJOR.MINOR); made again when prefix or includedir change.
PC_DIRS = $(prefix) $(includedir)
$(BUILD)/.pcdirs: FORCE
	@mkdir -p $(BUILD)
	@echo '$(PC_DIRS)' | cmp -s - $@ || echo '$(PC_DIRS)' > $@

$(BUILD)/pperf-plugin.pc: include/pperf-plugin.pc.in include/pperf-plugin.h $(BUILD)/.pcdirs
	$(call quiet,GEN,$@)v=$$(awk '$$1 == "#define" && $$2 ~ /^PPERF_PLUGIN_ABI_(MAJOR|MINOR)$$/ \
		{ v = v (v == "" ? "" : ".") $$3 } END { print v }' include/pperf-plugin.h) && \
	sed -e 's|@prefix@|$(prefix)|g' \
		-e 's|@includedir@|$(patsubst $(prefix)/%,$${prefix}/%,$(includedir))|g' \
		-e "s|@version@|$$v|g" $< > $@.tmp && mv $@.tmp $@

install: all $(BUILD)/pperf-plugin.pc
	install -d $(DESTDIR)$(bindir) $(DESTDIR)$(man1dir) $(DESTDIR)$(bashcompdir) \
		$(DESTDIR)$(zshcompdir) $(DESTDIR)$(includedir) $(DESTDIR)$(pkgconfigdir) \
		$(DESTDIR)$(pperfdatadir)
	install -m 755 $(BUILD)/pperf $(DESTDIR)$(bindir)/pperf
	install -m 644 $(MANPAGES) $(DESTDIR)$(man1dir)
	install -m 644 scripts/completion/pperf.bash $(DESTDIR)$(bashcompdir)/pperf
	install -m 644 scripts/completion/_pperf $(DESTDIR)$(zshcompdir)/_pperf
	install -m 644 include/pperf-plugin.h $(DESTDIR)$(includedir)/pperf-plugin.h
	install -m 644 $(BUILD)/pperf-plugin.pc $(DESTDIR)$(pkgconfigdir)/pperf-plugin.pc
	install -m 755 $(USER_SCRIPTS) $(DESTDIR)$(pperfdatadir)

uninstall:
	rm -f $(DESTDIR)$(bindir)/pperf
	rm -f $(MANPAGES:docs/man/%=$(DESTDIR)$(man1dir)/%)
	rm -f $(DESTDIR)$(bashcompdir)/pperf $(DESTDIR)$(zshcompdir)/_pperf
	rm -f $(DESTDIR)$(includedir)/pperf-plugin.h $(DESTDIR)$(pkgconfigdir)/pperf-plugin.pc
	rm -f $(USER_SCRIPTS:scripts/%=$(DESTDIR)$(pperfdatadir)/%)
	rmdir $(DESTDIR)$(pperfdatadir) 2>/dev/null || true

clean:
	rm -rf build build-asan build-fuzz build-aarch64

.PHONY: all deps demo check bench install uninstall clean FORCE
