# SPDX-License-Identifier: GPL-2.0-or-later
# tptools - plain GNU make build.
#
#   make                 build $(BUILD)/bin/tp, the command symlinks and the lease's
#                        programs in $(BUILD)/lib/tptools
#   make check           install missing packages, build, check the layers, run unit +
#                        shell (+ VM) tests (LAYERS_STRICT=0: layer findings report only)
#   make check-layers    build the objects, run scripts/check-layers.sh
#   make check-exports   build the objects, run scripts/check-exports.sh (no
#                        exported function the product does not use, but
#                        those scripts/exports-allow.txt lists)
#   make check-boot      boot a Debian 12 system with the package installed, under
#                        QEMU, four times (test/vm/boot.sh)
#   make SANITIZE=1 check   the same with ASan+UBSan (objects in build-san/)
#   make install DESTDIR=... PREFIX=...   binary, links, the lease's programs
#                        (PREFIX/lib/tptools), man, udev rules, systemd units, bash
#                        completion (UDEVDIR, SYSTEMDUNITDIR, COMPLETIONDIR), from a
#                        release build (below)
#   make deb             a Debian package in $(BUILD)/deb/ of the release build
#                        (scripts/mkdeb.sh)
#   make demo            install missing packages, build, run scripts/demo.sh
#   make clean
#
# Sources are found by wildcard: each layer directory's *.c goes into its own
# archive (LAYERS below); tools/*.c into tp, but for the lease's programs
# (LEASE_PROGS: tools/NAME.c, a main each); test/unit/*.c into the unit runner.
# test/lib/*.c (the tests' own engines: test/lib/io_test.h) goes into the unit
# runner and the fuzz harnesses only, never into tp, whatever TESTHOOKS says.
# BUILD=dir keeps objects apart (helpers and sanitizer builds use their own).
#
# TESTHOOKS=1 (the default) compiles the test pauses and faults in
# (TP_TEST_HOOKS=1, lib/base/critical.h: TP_TEST_PAUSE, TP_TEST_FAIL): the
# build the tests run (make, make tests, make check and its build-san) needs
# them. TESTHOOKS=0 leaves them out (a release build: no hook's name, no
# TP_TEST_* in the binary), in a directory of its own by default (build-rel,
# build-san-rel with SANITIZE=1), so that switching recompiles nothing.
# `make install` and `make deb` always install a release build: without
# TESTHOOKS=0 they make it (SANITIZE=0) in RELEASE_BUILD (default: BUILD
# without -san, then -rel: build-rel for build and build-san), kept up to
# date by make's dependencies, so the tests that install compile it once.

SANITIZE ?= 0
TESTHOOKS ?= 1
ifeq ($(TESTHOOKS),1)
REL_SUFFIX :=
else
REL_SUFFIX := -rel
endif
ifeq ($(SANITIZE),1)
BUILD ?= build-san$(REL_SUFFIX)
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
BUILD ?= build$(REL_SUFFIX)
SANFLAGS :=
endif
RELEASE_BUILD ?= $(patsubst %-san,%,$(BUILD))-rel

CC      ?= gcc
PREFIX  ?= /usr/local
DESTDIR ?=
PKGS    := devmapper blkid libudev popt expat libcryptsetup
VERSION := $(shell cat VERSION 2>/dev/null || echo 0.1.0)

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
# libcryptsetup is loaded when an encrypted volume needs it
# (lib/base/cryptsetup_dl.c), not linked: its headers only
PKG_LIBS   := $(shell pkg-config --libs $(filter-out libcryptsetup,$(PKGS)) 2>/dev/null)
CUNIT_LIBS := $(shell pkg-config --libs cunit 2>/dev/null || echo -lcunit)

CFLAGS  ?= -O2 -g
WARN    := -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wno-missing-field-initializers
CPPFLAGS += -D_GNU_SOURCE -D_FILE_OFFSET_BITS=64 -DTP_VERSION='"$(VERSION)"' -I. $(PKG_CFLAGS)
ifeq ($(TESTHOOKS),1)
CPPFLAGS += -DTP_TEST_HOOKS=1
HARDEN_LD :=
else
# the release build (make install, make deb) is hardened as Debian's
# packages are: fortified libc calls, read-only relocations bound at start
CPPFLAGS += -D_FORTIFY_SOURCE=2
HARDEN_LD := -Wl,-z,relro -Wl,-z,now
endif
ALL_CFLAGS = $(WARN) $(CFLAGS) $(SANFLAGS) -MMD -MP
LDLIBS  := $(PKG_LIBS) -lsanlock_client -lm
# zlib: thin_metadata_pack's compression (metadata/pdata/pack.c)
LDLIBS  += -lz
# the kill path (tp-lease-fence) talks to device-mapper only: no sanlock
FENCE_LIBS := $(PKG_LIBS) -lm

# $(BUILD)/.flags holds the flags its objects were compiled with; it is
# rewritten when they differ (TESTHOOKS, SANITIZE, CFLAGS or CC changed for
# the same BUILD) and every object depends on it, so such a change
# recompiles them instead of mixing two kinds of object in one directory.
FLAGS_FILE := $(BUILD)/.flags
FLAGS_NOW   = $(CC) $(CPPFLAGS) $(ALL_CFLAGS)
FLAGS_SH    = '$(subst ','\'',$(FLAGS_NOW))'

# The layers, top to bottom (docs/ARCHITECTURE.md "Layers"; lib/pool is its
# public face over its modules): name:directory, one archive
# $(BUILD)/lib/libtpNAME.a each, linked in this order so that a layer finds
# only what lies below it. scripts/check-layers.sh holds the rules (what each
# directory may include and call) and checks them; keep the two in step.
LAYERS := face:lib/pool monitor:lib/pool/monitor admin:lib/pool/admin check:lib/pool/check \
          crypt:lib/pool/crypt unlock:lib/pool/unlock stream:lib/pool/stream volume:lib/pool/volume removal:lib/pool/removal \
          plock:lib/pool/lease mirror:lib/pool/mirror \
          owner:lib/pool/owner data:lib/pool/data core:lib/pool/core \
          host:lib/pool/host policy:lib/pool/policy \
          thin:metadata/thin vg:metadata/vg kernel:kernel lease:lease \
          pdata:metadata/pdata dev:lib/dev base:lib/base
layer_name = $(word 1,$(subst :, ,$1))
layer_dir  = $(word 2,$(subst :, ,$1))
layer_lib  = $(BUILD)/lib/libtp$(call layer_name,$1).a
layer_objs = $(patsubst %.c,$(BUILD)/%.o,$(sort $(wildcard $(call layer_dir,$1)/*.c)))

LIB_SRCS  := $(sort $(foreach l,$(LAYERS),$(wildcard $(call layer_dir,$l)/*.c)))
# The lease's programs of their own, in a private directory (not on PATH):
# $(BUILD)/lib/tptools as $(PREFIX)/lib/tptools is beside $(PREFIX)/sbin,
# so that tp finds them from its own path (lib/pool/lease/pool_lease.c)
LEASE_PROGS := tp-lease-holder tp-lease-fence
LEASE_SRCS := $(LEASE_PROGS:%=tools/%.c)
TOOL_SRCS := $(filter-out $(LEASE_SRCS),$(sort $(wildcard tools/*.c)))
UNIT_SRCS := $(sort $(wildcard test/unit/*.c))
TESTLIB_SRCS := $(sort $(wildcard test/lib/*.c))
AUX_SRCS  := $(sort $(wildcard test/tools/*.c))
FUZZ_SRCS := $(sort $(wildcard test/fuzz/fuzz_*.c))

LIB_OBJS  := $(LIB_SRCS:%.c=$(BUILD)/%.o)
TOOL_OBJS := $(TOOL_SRCS:%.c=$(BUILD)/%.o)
LEASE_OBJS := $(LEASE_SRCS:%.c=$(BUILD)/%.o)
UNIT_OBJS := $(UNIT_SRCS:%.c=$(BUILD)/%.o)
TESTLIB_OBJS := $(TESTLIB_SRCS:%.c=$(BUILD)/%.o)
AUX_BINS  := $(AUX_SRCS:test/tools/%.c=$(BUILD)/test/bin/%)
FUZZ_BINS := $(FUZZ_SRCS:test/fuzz/%.c=$(BUILD)/test/bin/%)

LIBTP   := $(foreach l,$(LAYERS),$(call layer_lib,$l))
TP      := $(BUILD)/bin/tp
UNIT    := $(BUILD)/test/unit-tests
# One symlink per command in the table (tools/commands.def).
COMMANDS := $(shell sed -n 's/^TP_COMMAND.\([a-z]*\),.*/\1/p' tools/commands.def 2>/dev/null)
LINKS   := $(COMMANDS:%=$(BUILD)/bin/%)
HOLDER  := $(BUILD)/lib/tptools/tp-lease-holder
FENCER  := $(BUILD)/lib/tptools/tp-lease-fence

LAYERS_STRICT ?= 1

.PHONY: FORCE all check check-unit check-shell check-vm check-boot check-fuzz check-layers check-exports demo install deb clean \
        deps tests libs print-libs
all: $(TP) $(LINKS) $(HOLDER) $(FENCER)

# V=1 shows the full commands.
Q := $(if $(V),,@)

$(FLAGS_FILE): FORCE
	@mkdir -p $(@D); printf '%s\n' $(FLAGS_SH) | cmp -s - $@ || printf '%s\n' $(FLAGS_SH) >$@

$(BUILD)/%.o: %.c $(FLAGS_FILE)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -c -o $@ $<

define layer_rule
$(call layer_lib,$1): $(call layer_objs,$1)
	@mkdir -p $$(@D)
	$$(Q)rm -f $$@
	$$(Q)ar rcs $$@ $$^
endef
$(foreach l,$(LAYERS),$(eval $(call layer_rule,$l)))

# the layer archives in link order (scripts/fuzz.sh links its harnesses with them)
libs: $(LIBTP)
print-libs:
	@echo $(LIBTP)

$(TP): $(TOOL_OBJS) $(LIBTP)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(HARDEN_LD) -o $@ $(TOOL_OBJS) $(LIBTP) $(LDLIBS)

$(LINKS): $(TP)
	$(Q)ln -sf tp $@

# The lease's programs; --as-needed: each records only the shared
# libraries it uses (the holder libsanlock_client, the fencer none of it)
$(HOLDER): $(BUILD)/tools/tp-lease-holder.o $(BUILD)/tools/config_keys.o \
           $(BUILD)/tools/monitor_value.o $(LIBTP)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(HARDEN_LD) -Wl,--as-needed -o $@ $(filter %.o,$^) $(LIBTP) $(LDLIBS)

$(FENCER): $(BUILD)/tools/tp-lease-fence.o $(LIBTP)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) $(HARDEN_LD) -Wl,--as-needed -o $@ $(filter %.o,$^) $(LIBTP) $(FENCE_LIBS)

$(UNIT): $(UNIT_OBJS) $(TESTLIB_OBJS) $(LIBTP)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(ALL_CFLAGS) -o $@ $(UNIT_OBJS) $(TESTLIB_OBJS) $(filter-out $(BUILD)/tools/tp.o,$(TOOL_OBJS)) $(LIBTP) $(LDLIBS) $(CUNIT_LIBS)

# A test tool that needs a library the commands do not: AUX_LIBS_<name>
# (none today: sanlock's client library is in LDLIBS since the commands
# take leases, lib/pool/lease/pool_lease.c)
$(BUILD)/test/bin/%: test/tools/%.c $(LIBTP)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< $(LIBTP) $(LDLIBS) $(AUX_LIBS_$*)

# A harness of a parser that lives in tools/ links those sources too
# (scripts/fuzz.sh reads these lines): FUZZ_EXTRA_<name> := FILES
FUZZ_EXTRA_config := tools/config_keys.c tools/monitor_value.c
$(BUILD)/test/bin/fuzz_config: $(FUZZ_EXTRA_config)
FUZZ_EXTRA_vg := test/unit/vg_text_ref.c
$(BUILD)/test/bin/fuzz_vg: $(FUZZ_EXTRA_vg)

$(BUILD)/test/bin/fuzz_%: test/fuzz/fuzz_%.c test/fuzz/replay.c $(TESTLIB_OBJS) $(LIBTP)
	@mkdir -p $(@D)
	$(if $(Q),@echo "  LINK    $@")
	$(Q)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -o $@ $< test/fuzz/replay.c $(FUZZ_EXTRA_$*) \
		$(TESTLIB_OBJS) $(LIBTP) $(LDLIBS)

tests: all $(UNIT) $(AUX_BINS) $(FUZZ_BINS)

# The layer rules on the sources and on the objects of each archive.
check-layers: $(LIBTP) $(TOOL_OBJS) $(LEASE_OBJS)
	@LAYERS_STRICT=$(LAYERS_STRICT) scripts/check-layers.sh -b $(BUILD)

# Dead exports: a function of the layers no other object of the product uses.
check-exports: $(LIBTP) $(TOOL_OBJS) $(LEASE_OBJS)
	@LAYERS_STRICT=$(LAYERS_STRICT) scripts/check-exports.sh -b $(BUILD)

deps:
	@scripts/install-deps.sh

# The README's test command: installs what is missing, builds, runs everything.
# Without SANITIZE=1 it also builds build-san/ and runs the unit and shell
# tests again under ASan+UBSan (LeakSanitizer included).
# Both builds compile on every CPU (a fresh CI clone compiled one file at
# a time: minutes with the other CPU idle) unless make was given -j.
CHECK_JOBS = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc 2>/dev/null || echo 1))
check: deps
	@$(MAKE) --no-print-directory $(CHECK_JOBS) tests
ifeq ($(SANITIZE),1)
	@LAYERS_STRICT=$(LAYERS_STRICT) BUILD=$(BUILD) test/run-all.sh
else
	@$(MAKE) --no-print-directory $(CHECK_JOBS) SANITIZE=1 BUILD=build-san tests
	@LAYERS_STRICT=$(LAYERS_STRICT) BUILD=$(BUILD) SAN_BUILD=build-san test/run-all.sh
endif

check-unit: tests
	@BUILD=$(BUILD) test/run-all.sh unit

check-shell: tests
	@BUILD=$(BUILD) test/run-all.sh shell

check-fuzz: tests
	@BUILD=$(BUILD) test/run-all.sh fuzz

# The VM scenarios on Debian 12's kernel (6.1) and Debian 13's (6.12, skipped
# when not fetched: scripts/fetch-kernel.sh 6.12); TP_VM_KERNELS=6.12 runs one.
check-vm: tests
	@BUILD=$(BUILD) test/run-all.sh vm

# The boot test: a Debian 12 system with systemd and the package installed
# by dpkg, booted four times under QEMU (test/vm/boot.sh; the root is made
# once by scripts/mkbootroot.sh). make check runs it too, after the VM
# stage's kernels, every other day (the two-host scenarios the others;
# 5-7 minutes; TP_VM_BOOT=0 leaves it out).
check-boot: tests
	@BUILD=$(BUILD) test/run-all.sh boot

demo: deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) scripts/demo.sh

# Where udev rules and systemd units go: the system's directories, not
# under PREFIX (udev and systemd look nowhere else); DESTDIR applies.
UDEVDIR        ?= /lib/udev
SYSTEMDUNITDIR ?= /lib/systemd/system
COMPLETIONDIR  ?= $(PREFIX)/share/bash-completion/completions
# Rules and units name /usr/sbin/tp...; an install elsewhere rewrites that.
SBIN_SED := sed 's|/usr/sbin/tp|$(PREFIX)/sbin/tp|g'

ifneq ($(TESTHOOKS),1)
install: all
	install -d $(DESTDIR)$(PREFIX)/sbin $(DESTDIR)$(PREFIX)/share/man/man5 \
	           $(DESTDIR)$(PREFIX)/share/man/man7 $(DESTDIR)$(PREFIX)/share/man/man8 \
	           $(DESTDIR)$(UDEVDIR)/rules.d $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(COMPLETIONDIR)
	install -m 0755 $(TP) $(DESTDIR)$(PREFIX)/sbin/tp
	install -d $(DESTDIR)$(PREFIX)/lib/tptools
	install -m 0755 $(HOLDER) $(FENCER) $(DESTDIR)$(PREFIX)/lib/tptools/
	for c in $(COMMANDS); do ln -sf tp $(DESTDIR)$(PREFIX)/sbin/$$c; done
	for m in man/*.[578]; do [ -e "$$m" ] || continue; \
	  s=$${m##*.}; install -m 0644 $$m $(DESTDIR)$(PREFIX)/share/man/man$$s/; done
	for r in udev/*.rules; do $(SBIN_SED) $$r >$(DESTDIR)$(UDEVDIR)/rules.d/$${r##*/} && \
	  chmod 0644 $(DESTDIR)$(UDEVDIR)/rules.d/$${r##*/} || exit 1; done
	for u in systemd/*.service; do $(SBIN_SED) $$u >$(DESTDIR)$(SYSTEMDUNITDIR)/$${u##*/} && \
	  chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/$${u##*/} || exit 1; done
	install -m 0644 completion/tp $(DESTDIR)$(COMPLETIONDIR)/tp
	for c in $(COMMANDS); do ln -sf tp $(DESTDIR)$(COMPLETIONDIR)/$$c; done
else
# the release build, in its own directory, installed from there
install:
	@$(MAKE) --no-print-directory TESTHOOKS=0 SANITIZE=0 BUILD=$(RELEASE_BUILD) install
endif

# A Debian package of `make install` (PREFIX /usr, so the release build):
# scripts/mkdeb.sh, into $(BUILD)/deb/.
deb:
	@BUILD=$(BUILD) VERSION=$(VERSION) scripts/mkdeb.sh

clean:
	rm -rf build build-san build-*

-include $(LIB_OBJS:.o=.d) $(TOOL_OBJS:.o=.d) $(LEASE_OBJS:.o=.d) $(UNIT_OBJS:.o=.d) \
	 $(TESTLIB_OBJS:.o=.d)
