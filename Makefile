# runai toolsuite: one non-recursive GNU Makefile.
#
#   make                 build runai, runai-adm, rntop (in build/default)
#   make check           -Werror build, C unit tests, Bats e2e against real peers
#   make check SANITIZE=1   the same under ASan+UBSan (in build/sanitize)
#   make check-valgrind  the same under valgrind
#   make docs            regenerate man/ and completions/ from the command tables
#   make demo            start the emulated cluster and try runai against it
#   make install [PREFIX=/usr/local] [DESTDIR=...]   / make uninstall
#   make deps            install the Debian/npm packages the build and tests need
#   make fuzz [FUZZ_TIME=60]  run each libFuzzer target (clang) for FUZZ_TIME s
#   make lint            clang-tidy (.clang-tidy) and scan-build over lib/ and cmd/
#   make deb             runai-tools_<version>_<arch>.deb (in build/default)
#   make dist            runai-tools-<version>.tar.gz of HEAD (in build/default)
#   make V=1             show full command lines

VERSION		:= 0.1.0
PREFIX		?= /usr/local
BINDIR		?= $(PREFIX)/bin
SBINDIR		?= $(PREFIX)/sbin
MANDIR		?= $(PREFIX)/share/man
BASHCOMPDIR	?= $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR	?= $(PREFIX)/share/zsh/site-functions
DESTDIR		?=

CC		?= cc
PKG_CONFIG	?= pkg-config
PYTHON		?= /usr/bin/python3
PKGS		:= libcurl libcjson yaml-0.1 openssl libssh2 ncursesw zlib

CFLAGS		?= -O2 -g
WARNINGS	:= -std=c99 -Wall -Wextra -Wshadow -Wmissing-prototypes \
		   -Wstrict-prototypes -Wwrite-strings -Wformat=2 -Wcast-qual \
		   -Wpointer-arith -Wvla -Wno-unused-parameter \
		   -Wno-missing-field-initializers
ifeq ($(WERROR),1)
WARNINGS	+= -Werror
endif

ifeq ($(SANITIZE),1)
O		?= build/sanitize
SAN_FLAGS	:= -fsanitize=address,undefined -fno-omit-frame-pointer \
		   -fno-sanitize-recover=undefined
else
O		?= build/default
SAN_FLAGS	:=
endif

PKG_CFLAGS	:= $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS	:= $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
GIT_COMMIT	:= $(shell git rev-parse --short HEAD 2>/dev/null)

# Debian's hardening: checked buffer functions (which need optimising,
# and are left to ASan in a sanitizer build), stack protector, full
# RELRO and immediate binding.
ifneq ($(SANITIZE),1)
HARDEN_CPPFLAGS	:= $(if $(filter -O1 -O2 -O3 -Os,$(CFLAGS)),-D_FORTIFY_SOURCE=2)
endif
HARDEN_CFLAGS	:= -fstack-protector-strong
HARDEN_LDFLAGS	:= -Wl,-z,relro -Wl,-z,now

ALL_CPPFLAGS	:= -D_DEFAULT_SOURCE -Ilib -DRAI_VERSION='"$(VERSION)"' \
		   -DRAI_GIT_COMMIT='"$(GIT_COMMIT)"' $(HARDEN_CPPFLAGS) $(CPPFLAGS)
ALL_CFLAGS	:= $(WARNINGS) $(HARDEN_CFLAGS) $(CFLAGS) $(SAN_FLAGS) \
		   $(PKG_CFLAGS) -MMD -MP
ALL_LDFLAGS	:= $(HARDEN_LDFLAGS) $(LDFLAGS) $(SAN_FLAGS)
LIBS		:= $(PKG_LIBS) -lm

ifneq ($(V),1)
Q_CC		= @echo '   CC      $@';
Q_AR		= @echo '   AR      $@';
Q_LINK		= @echo '   LINK    $@';
Q_GEN		= @echo '   GEN     $@';
endif

LIB_SRCS	:= $(sort $(wildcard lib/*/*.c))
LIB_OBJS	:= $(LIB_SRCS:%.c=$(O)/%.o)
LIBRAI		:= $(O)/lib/librai.a

RUNAI_SRCS	:= $(sort $(wildcard cmd/runai/*.c))
ADM_SRCS	:= $(sort $(wildcard cmd/runai-adm/*.c))
RNTOP_SRCS	:= $(sort $(wildcard cmd/rntop/*.c))
PROGRAMS	:= $(O)/runai $(O)/runai-adm $(O)/rntop

UNIT_SRCS	:= $(sort $(wildcard tests/unit/t_*.c))
UNIT_BINS	:= $(UNIT_SRCS:tests/unit/%.c=$(O)/tests/unit/%)
HELPER_SRCS	:= $(sort $(wildcard tests/helper/*.c))
HELPER_BIN	:= $(if $(HELPER_SRCS),$(O)/tests/helper/rai-test-tool)

.PHONY: all check check-valgrind test-bins docs demo install uninstall \
	deps clean fuzz fuzz-bins deb dist lint lint-tidy lint-scan
.DEFAULT_GOAL := all

# kube-sim's WebSocket mask in C, loaded by its Python through ctypes
# (kubesim/wsproto.py masks in Python where it is missing). Plain flags
# whatever the build: Debian's python3 loads it, without a sanitizer's
# runtime.
KUBESIM_MASK	:= contrib/kube-sim/kubesim/_wsmask.so

all: $(PROGRAMS) $(KUBESIM_MASK)
ifeq ($(O),build/default)
	@ln -sf $(O)/runai runai; ln -sf $(O)/runai-adm runai-adm; ln -sf $(O)/rntop rntop
endif

$(O)/%.o: %.c
	@mkdir -p $(@D)
	$(Q_CC)$(CC) $(ALL_CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

$(LIBRAI): $(LIB_OBJS)
	$(Q_AR)rm -f $@ && $(AR) rcs $@ $^

$(O)/runai: $(RUNAI_SRCS:%.c=$(O)/%.o) $(LIBRAI)
	$(Q_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)
$(O)/runai-adm: $(ADM_SRCS:%.c=$(O)/%.o) $(LIBRAI)
	$(Q_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)
$(O)/rntop: $(RNTOP_SRCS:%.c=$(O)/%.o) $(LIBRAI)
	$(Q_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(KUBESIM_MASK): contrib/kube-sim/native/wsmask.c
	$(Q_CC)$(CC) -O2 -fPIC -shared $(WARNINGS) -o $@ $<

$(O)/tests/unit/%: $(O)/tests/unit/%.o $(LIBRAI)
	$(Q_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)
$(O)/tests/helper/rai-test-tool: $(HELPER_SRCS:%.c=$(O)/%.o) $(LIBRAI)
	$(Q_LINK)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

test-bins: $(PROGRAMS) $(UNIT_BINS) $(HELPER_BIN)

# The README's test command. tests/run ends with "N passed, N failed".
check:
	@$(MAKE) --no-print-directory WERROR=1 test-bins all
	@RAI_BUILD_DIR=$(O) SANITIZE=$(SANITIZE) tests/run

check-valgrind:
	@$(MAKE) --no-print-directory WERROR=1 test-bins all
	@RAI_BUILD_DIR=$(O) RAI_VALGRIND=1 tests/run

docs: $(PROGRAMS)
	@rm -rf $(O)/docs && mkdir -p $(O)/docs/man
	@for p in runai runai-adm rntop; do \
		$(O)/$$p __gen man $(O)/docs/man || exit 1; \
		$(O)/$$p __gen completion bash >completions/$$p.bash || exit 1; \
		$(O)/$$p __gen completion zsh >completions/_$$p || exit 1; \
	done
	@rm -f man/*.[18] && cp $(O)/docs/man/* man/
	@echo '   GEN     man/ completions/'

# A sub-make, so "make deps demo" on a fresh machine sees the libraries
# deps just installed (pkg-config ran when this Makefile was read).
demo:
	@$(MAKE) --no-print-directory all
	@contrib/demo.sh

install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 755 $(O)/runai $(O)/rntop $(DESTDIR)$(BINDIR)/
	install -m 755 $(O)/runai-adm $(DESTDIR)$(SBINDIR)/
	install -m 644 $(wildcard man/*.1) $(DESTDIR)$(MANDIR)/man1/
	$(if $(wildcard man/*.8),install -m 644 $(wildcard man/*.8) $(DESTDIR)$(MANDIR)/man8/)
	for p in runai runai-adm rntop; do \
		install -m 644 completions/$$p.bash $(DESTDIR)$(BASHCOMPDIR)/$$p; \
		install -m 644 completions/_$$p $(DESTDIR)$(ZSHCOMPDIR)/_$$p; \
	done

# The Debian package of this build: contrib/deb/build-deb.sh.
deb: all
	@contrib/deb/build-deb.sh $(VERSION) $(O) $(O)

# The source tarball of HEAD (committed files only; man/ and completions/
# are committed, so "make" alone builds it).
dist:
	@mkdir -p $(O)
	@git archive --format=tar --prefix=runai-tools-$(VERSION)/ HEAD | \
		gzip -9n >$(O)/runai-tools-$(VERSION).tar.gz
	@echo $(O)/runai-tools-$(VERSION).tar.gz

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/runai $(DESTDIR)$(BINDIR)/rntop \
		$(DESTDIR)$(SBINDIR)/runai-adm
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(wildcard man/*.1)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man8/,$(notdir $(wildcard man/*.8)))
	for p in runai runai-adm rntop; do \
		rm -f $(DESTDIR)$(BASHCOMPDIR)/$$p $(DESTDIR)$(ZSHCOMPDIR)/_$$p; \
	done

# make fuzz [FUZZ_TIME=60]: clang's libFuzzer (Debian: clang and
# libclang-rt-14-dev). Each tests/fuzz/fuzz_<name>.c is linked with the
# library, all built with ASan+UBSan, into $(O)/fuzz/, then run for
# FUZZ_TIME seconds from the seeds in tests/fuzz/corpus/<name>/. New
# inputs go to a temporary directory, so the committed corpus never
# changes; a crash is kept as $(O)/fuzz/crash-<sha1> and fails the run.
FUZZ_CC		?= clang
FUZZ_TIME	?= 60
FUZZ_CFLAGS	?= -O1 -g
FUZZ_SAN	:= -fsanitize=address,undefined -fno-omit-frame-pointer \
		   -fno-sanitize-recover=undefined
# gcc's -Werror build is the warnings gate; clang's -Wformat=2 differs
FUZZ_WARNINGS	:= $(filter-out -Werror,$(WARNINGS)) -Wno-format-nonliteral
FUZZ_SRCS	:= $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BINS	:= $(FUZZ_SRCS:tests/fuzz/%.c=$(O)/fuzz/%)
FUZZ_LIB	:= $(O)/fuzz/librai.a

$(O)/fuzz/%.o: %.c
	@mkdir -p $(@D)
	$(Q_CC)$(FUZZ_CC) $(ALL_CPPFLAGS) $(FUZZ_WARNINGS) $(FUZZ_CFLAGS) \
		$(FUZZ_SAN) -fsanitize=fuzzer-no-link $(PKG_CFLAGS) -MMD -MP \
		-c -o $@ $<
$(FUZZ_LIB): $(LIB_SRCS:%.c=$(O)/fuzz/%.o)
	$(Q_AR)rm -f $@ && $(AR) rcs $@ $^
$(FUZZ_BINS): $(O)/fuzz/%: $(O)/fuzz/tests/fuzz/%.o $(FUZZ_LIB)
	$(Q_LINK)$(FUZZ_CC) $(LDFLAGS) $(FUZZ_SAN) -fsanitize=fuzzer -o $@ \
		$^ $(LIBS)

fuzz-bins: $(FUZZ_BINS)

fuzz: $(FUZZ_BINS)
	@for f in $(FUZZ_BINS); do \
		echo "   FUZZ    $${f##*/fuzz_} for $(FUZZ_TIME) s"; \
		tests/fuzz/run-target $$f $(FUZZ_TIME) || exit 1; \
	done

# make lint: clang-tidy with the checks in .clang-tidy (why each group
# is in or out is written there), one file per job (make -j2 lint), and
# clang's static analyzer through scan-build on a separate build of the
# programs. Any finding fails. A false positive is silenced at its line
# (NOLINT(check) with the reason beside it), never by dropping a check.
CLANG_TIDY	?= clang-tidy
SCAN_BUILD	?= scan-build
LINT_SRCS	:= $(LIB_SRCS) $(RUNAI_SRCS) $(ADM_SRCS) $(RNTOP_SRCS)
LINT_HDRS	:= $(wildcard lib/*/*.h cmd/*/*.h)
LINT_CFLAGS	:= $(ALL_CPPFLAGS) -O1 $(FUZZ_WARNINGS) $(PKG_CFLAGS)
# the default checkers plus portability of POSIX calls, float loop
# counters and va_list misuse
SCAN_CHECKERS	:= -enable-checker optin.portability.UnixAPI \
		   -enable-checker security.FloatLoopCounter -enable-checker valist

$(O)/lint/%.tidy: %.c .clang-tidy $(LINT_HDRS)
	@mkdir -p $(@D)
	@echo '   TIDY    $<'
	@$(CLANG_TIDY) --quiet $< -- $(LINT_CFLAGS) >$@.log 2>&1 || \
		{ grep -v 'warnings* generated' $@.log; exit 1; }
	@mv $@.log $@

lint-tidy: $(LINT_SRCS:%.c=$(O)/lint/%.tidy)

lint-scan:
	@rm -rf $(O)/lint/scan && mkdir -p $(O)/lint
	@echo '   SCAN    lib/ cmd/ (scan-build)'
	@$(SCAN_BUILD) --status-bugs --use-cc=clang -o $(O)/lint/scan/report \
		$(SCAN_CHECKERS) $(MAKE) --no-print-directory -s \
		O=$(O)/lint/scan/obj CFLAGS='-O0 -g' \
		WARNINGS='$(FUZZ_WARNINGS)' all >$(O)/lint/scan.log 2>&1 || \
		{ grep -E 'warning:|bugs? found|scan-view' $(O)/lint/scan.log; \
		exit 1; }

lint: lint-tidy lint-scan

deps:
	@contrib/install-deps.sh

clean:
	rm -rf build runai runai-adm rntop $(KUBESIM_MASK)

-include $(shell find $(O) -name '*.d' 2>/dev/null)
