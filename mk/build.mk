# How the user-space code is built: one list of sources, one set of rules,
# instantiated once per flavour.  The top Makefile reads this file before
# every other fragment; they use the variables it defines (the flavours'
# directories and libraries) and add none to it.
#
#   make tools            host arch: out/$(HOST_ARCH)/bin/vmapstat and vmaptop
#   make tools-x86_64     out/x86_64/bin/*   (static)
#   make tools-arm64      out/arm64/bin/*    (static, aarch64-linux-gnu-gcc)
#   make tools-all        both
#   make tools-dynamic    out/$(HOST_ARCH)/bin-dynamic/vmapstat (with TLS)
#   make sanitize         out/sanitize/{bin,tests}/ (mk/sanitize.mk runs them)
#   make fuzz             out/fuzz/fuzz_* (mk/fuzz.mk builds and runs them)
#
# Sources:
#   - user/<tool>.c with <tool> in TOOL_NAMES is a tool's main file; each
#     flavour links its tools from it and the flavour's libvmapscope.a.
#   - every other .c under user/ goes into the library, linked by every
#     tool, unit test and fuzz target: a new source file needs no edit here.
#     (TLS_STUBS_SRC alone is not in it: see TLS below.)
#   - every bpf/<name>.bpf.c (and bench/floor's, BPF_DIRS) becomes
#     out/<arch>/bpf/<name>.bpf.o and the skeleton
#     out/<arch>/include/<name>.skel.h (bpftool gen skeleton), which every
#     flavour of that arch includes.  BPF objects are not instrumented, so
#     the host-arch flavours share the host arch's.
#   - the protobuf exposition's messages (user/prom/prom_proto.c) are C
#     that protoc-c generates from Debian's .proto files into
#     $(GEN_DIR), once for every flavour (see "generated code" below);
#     each flavour compiles them into its library.
#   - unit tests: tests/unit/test_<name>.c, one binary each, linked with a
#     flavour's library and cmocka; optional tests/unit/test_<name>.wrap
#     lists symbols to pass to -Wl,--wrap=.
#
# The flavours (FLAVOURS; each line of the table below sets, for flavour F,
# F_CC, F_ARCH (whose skeletons and -D it builds with), F_CFLAGS (after
# TOOLS_CFLAGS), F_LDFLAGS (every link), F_TOOL_LINK (the tools' link
# only), F_LDLIBS (after TOOLS_LDLIBS), F_TOOLS, and its directories
# F_OBJDIR, F_LIBDIR, F_BINDIR, F_TESTDIR):
#
#   x86_64, arm64  static tools; GnuTLS stand-ins instead of TLS
#   dynamic        host arch, -DVMAPSCOPE_TLS, linked against the shared
#                  libmicrohttpd and GnuTLS: the exporter that serves HTTPS
#   sanitize       host arch, clang, ASan + UBSan, every report fatal, with
#                  TLS as in dynamic (ASan has no static link)
#   fuzz           host arch, clang, ASan + UBSan + libFuzzer's coverage; the
#                  library only, mk/fuzz.mk links its targets with it
#
# TLS: Debian's libmicrohttpd.a is built with HTTPS support, and Debian
# ships no static GnuTLS that could follow it, so a static link takes the
# stand-ins of TLS_STUBS_SRC (F_TOOL_LINK), and its tools refuse TLS keys
# at start.  The unit tests of a static flavour are linked dynamically and
# get the real libgnutls.so through libmicrohttpd.so.

TOOL_NAMES	:= vmapstat vmaptop

CC_x86_64	:= gcc
CC_arm64	:= aarch64-linux-gnu-gcc
BPFARCH_x86_64	:= x86
BPFARCH_arm64	:= arm64
# UAPI asm/ headers for clang -target bpf (the BPF objects are built on the host).
BPF_SYSINC	:= -I/usr/include/$(shell gcc -print-multiarch)

CLANG		?= clang
BPFTOOL		?= bpftool
TOOLS_CFLAGS	:= -g -O2 -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
		   -D_GNU_SOURCE -std=gnu11 -fno-strict-aliasing
# --version names the build (user/cli.c).  make does not see a changed -D
# flag, so the string is also kept in a stamp file, rewritten only when it
# changes, and every flavour's cli.o depends on that file.
GIT_DESCRIBE	:= $(or $(shell git -C $(TOPDIR) describe --always --dirty 2>/dev/null),unknown)
GIT_DESCRIBE_STAMP := $(OUTDIR)/git-describe.stamp
TOOLS_CFLAGS	+= -DVMAPSCOPE_GIT_DESCRIBE='"$(GIT_DESCRIBE)"'

# What the library links against, in static link order (a library before
# those it uses): libpfm4 (PMU event names), libmicrohttpd + libyaml +
# libcrypt (the exporter, its web configuration and bcrypt), ncurses
# (vmaptop; static libncursesw.a needs libtinfo.a after it), protobuf-c
# (the exporter's protobuf exposition), json-c
# (compare files), libbpf + libelf + libz, libm, pthreads.
TOOLS_LDLIBS	:= -lpfm -lmicrohttpd -lprotobuf-c -lyaml -lcrypt -lncursesw -ltinfo -ljson-c \
		   -lbpf -lelf -lz -lm -lpthread

# ---- sources -------------------------------------------------------------
# user/ is the front end (the tools and their option layer); below it one
# folder per module (docs/architecture.md).  USES_<folder> lists the
# folders whose headers that folder's code may include: itself and those
# below it, never one above.  The compiler holds the code to it, since
# each object gets only those folders on its include path; the front end,
# the unit tests and the fuzz targets get them all.
USER_MODULES	:= lib collector pmu prom snapshot top
USES_lib	:= lib
USES_collector	:= collector lib
USES_snapshot	:= snapshot lib
USES_pmu	:= pmu collector lib
USES_prom	:= prom pmu snapshot lib
USES_top	:= top snapshot lib
USES_user	:= . $(USER_MODULES)

# ---- generated code ------------------------------------------------------
# The messages of Prometheus' protobuf exposition, from the metrics.proto
# Debian ships with the Go client model (golang-github-prometheus-client-
# model-dev) and the well-known Timestamp it imports (libprotobuf-dev),
# compiled by protoc-c (protobuf-c-compiler) into $(GEN_DIR): C that is
# the same for every arch, so generated once.  Only user/prom/ includes it
# (GEN_FOLDERS), and the tests that decode what the exporter encodes.
PROTOC_C	?= protoc-c
PROM_PROTO_DIR	?= /usr/share/gocode/src/github.com/prometheus/client_model
WKT_PROTO_DIR	?= /usr/include
GEN_DIR		:= $(OUTDIR)/gen
GEN_PROTOS	:= io/prometheus/client/metrics.proto google/protobuf/timestamp.proto
GEN_SRCS	:= $(GEN_PROTOS:%.proto=$(GEN_DIR)/%.pb-c.c)
GEN_HDRS	:= $(GEN_PROTOS:%.proto=$(GEN_DIR)/%.pb-c.h)
GEN_FOLDERS	:= prom

USER_DIRS	:= user $(USER_MODULES:%=user/%)
USER_SRCS	:= $(sort $(foreach d,$(USER_DIRS),$(wildcard $(d)/*.c)))
USER_HDRS	:= $(sort $(foreach d,$(USER_DIRS),$(wildcard $(d)/*.h)) $(wildcard include/*.h))
USER_INCS	:= -Iinclude $(USER_DIRS:%=-I%) -I$(GEN_DIR)
# The include path of source $(1): its folder's USES_ (and the generated
# code for GEN_FOLDERS).
user_folder	 = $(or $(patsubst user/%/,%,$(filter user/%/,$(dir $(1)))),user)
user_incs	 = -Iinclude $(patsubst %/.,%,$(USES_$(call user_folder,$(1)):%=-Iuser/%)) \
		   $(if $(filter $(call user_folder,$(1)),$(GEN_FOLDERS)),-I$(GEN_DIR))
TOOL_MAINS	:= $(TOOL_NAMES:%=user/%.c)
TLS_STUBS_SRC	:= user/prom/prom_tls_stubs.c
LIB_SRCS	:= $(filter-out $(TOOL_MAINS) $(TLS_STUBS_SRC),$(USER_SRCS))

BPF_DIRS	:= bpf bench/floor
BPF_HDRS	:= $(wildcard bpf/*.h include/*.h)
# The skeletons every user object may include (bench/floor's is its own).
BPF_NAMES	:= $(patsubst bpf/%.bpf.c,%,$(wildcard bpf/*.bpf.c))

UNIT_SRCS	:= $(wildcard tests/unit/test_*.c)
UNIT_NAMES	:= $(patsubst tests/unit/%.c,%,$(UNIT_SRCS))

# ---- the flavours --------------------------------------------------------
SAN_FLAGS	:= -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# clang: its UBSan shares ASan's runtime and so its log_path (mk/sanitize.mk);
# gcc's libubsan prints to stderr, where a test's expected error output
# would hide it.
SAN_CC		?= clang
FUZZ_CC		?= clang

FLAVOURS	:= $(ARCHES) dynamic sanitize fuzz

define static_flavour
$(1)_CC		:= $$(CC_$(1))
$(1)_ARCH	:= $(1)
$(1)_CFLAGS	:=
$(1)_LDFLAGS	:=
$(1)_TOOL_LINK	 = -static $$($(1)_OBJDIR)/$$(TLS_STUBS_SRC:user/%.c=%.o)
$(1)_LDLIBS	:=
$(1)_TOOLS	:= $$(TOOL_NAMES)
$(1)_OBJDIR	:= $$(OUTDIR)/$(1)/obj
$(1)_LIBDIR	:= $$(OUTDIR)/$(1)/lib
$(1)_BINDIR	:= $$(OUTDIR)/$(1)/bin
$(1)_TESTDIR	:= $$(OUTDIR)/$(1)/tests
endef
$(foreach a,$(ARCHES),$(eval $(call static_flavour,$(a))))

dynamic_CC	:= $(CC_$(HOST_ARCH))
dynamic_ARCH	:= $(HOST_ARCH)
dynamic_CFLAGS	:= -DVMAPSCOPE_TLS
dynamic_LDFLAGS	:=
dynamic_TOOL_LINK :=
dynamic_LDLIBS	:= -lgnutls
dynamic_TOOLS	:= vmapstat
dynamic_OBJDIR	:= $(OUTDIR)/$(HOST_ARCH)/obj-dynamic
dynamic_LIBDIR	:= $(OUTDIR)/$(HOST_ARCH)/lib-dynamic
dynamic_BINDIR	:= $(OUTDIR)/$(HOST_ARCH)/bin-dynamic
dynamic_TESTDIR	:= $(OUTDIR)/$(HOST_ARCH)/tests-dynamic

# -O1: near-full speed with exact report locations.
sanitize_CC	:= $(SAN_CC)
sanitize_ARCH	:= $(HOST_ARCH)
sanitize_CFLAGS	:= -O1 $(SAN_FLAGS) -DVMAPSCOPE_TLS
sanitize_LDFLAGS := $(SAN_FLAGS)
sanitize_TOOL_LINK :=
sanitize_LDLIBS	:= -lgnutls
sanitize_TOOLS	:= $(TOOL_NAMES)
sanitize_OBJDIR	:= $(OUTDIR)/sanitize/obj
sanitize_LIBDIR	:= $(OUTDIR)/sanitize/lib
sanitize_BINDIR	:= $(OUTDIR)/sanitize/bin
sanitize_TESTDIR := $(OUTDIR)/sanitize/tests

fuzz_CC		:= $(FUZZ_CC)
fuzz_ARCH	:= $(HOST_ARCH)
fuzz_CFLAGS	:= -O1 $(SAN_FLAGS) -fsanitize=fuzzer-no-link
fuzz_LDFLAGS	:= $(SAN_FLAGS)
fuzz_TOOL_LINK	:=
fuzz_LDLIBS	:=
fuzz_TOOLS	:=
fuzz_OBJDIR	:= $(OUTDIR)/fuzz/obj
fuzz_LIBDIR	:= $(OUTDIR)/fuzz/lib
fuzz_BINDIR	:= $(OUTDIR)/fuzz/bin
fuzz_TESTDIR	:= $(OUTDIR)/fuzz/tests

# ---- the rules -----------------------------------------------------------
# BPF source -> object, for arch $(1), of the *.bpf.c in directory $(2).
define bpf_obj_rules
$(OUTDIR)/$(1)/bpf/%.bpf.o: $(2)/%.bpf.c $$(BPF_HDRS)
	@mkdir -p $$(@D)
	$$(CLANG) -g -O2 -Wall -target bpf -D__TARGET_ARCH_$$(BPFARCH_$(1)) \
		-Iinclude -Ibpf $$(BPF_SYSINC) -c $$< -o $$@
	llvm-strip -g $$@
endef

# Any BPF object of arch $(1) -> its skeleton.
define bpf_skel_rules
SKELS_$(1)	:= $$(BPF_NAMES:%=$$(OUTDIR)/$(1)/include/%.skel.h)
.SECONDARY: $$(SKELS_$(1)) $$(BPF_NAMES:%=$$(OUTDIR)/$(1)/bpf/%.bpf.o)
$$(OUTDIR)/$(1)/include/%.skel.h: $$(OUTDIR)/$(1)/bpf/%.bpf.o
	@mkdir -p $$(@D)
	$$(BPFTOOL) gen skeleton $$< > $$@.tmp && mv $$@.tmp $$@
endef

# Flavour $(1): its objects, library, tools and unit tests.
# $(1)_CC_FLAGS is the compiler with the flavour's flags; $(1)_COMPILE
# adds every include folder (the tests' and fuzz targets' compile), an
# object gets its own folder's (user_incs).  $(1)_LIB is the library,
# $(1)_LINK_LIBS what follows it on a link line.
define flavour_rules
$(1)_CC_FLAGS	 = $$($(1)_CC) $$(TOOLS_CFLAGS) $$($(1)_CFLAGS) -I$$(OUTDIR)/$$($(1)_ARCH)/include
$(1)_COMPILE	 = $$($(1)_CC_FLAGS) $$(USER_INCS)
$(1)_LIB	:= $$($(1)_LIBDIR)/libvmapscope.a
$(1)_LINK_LIBS	 = $$($(1)_LIB) $$(TOOLS_LDLIBS) $$($(1)_LDLIBS)
$(1)_BINS	:= $$($(1)_TOOLS:%=$$($(1)_BINDIR)/%)
$(1)_UNIT_BINS	:= $$(UNIT_NAMES:%=$$($(1)_TESTDIR)/%)
.SECONDARY: $$(TOOL_NAMES:%=$$($(1)_OBJDIR)/%.o) $$(filter %.o,$$($(1)_TOOL_LINK))

# (mk/build.mk too: a change of a flavour's flags rebuilds its objects)
$$($(1)_OBJDIR)/%.o: user/%.c $$(USER_HDRS) $$(GEN_HDRS) $$(SKELS_$$($(1)_ARCH)) mk/build.mk
	@mkdir -p $$(@D)
	$$($(1)_CC_FLAGS) $$(call user_incs,$$<) -c $$< -o $$@

$$($(1)_OBJDIR)/gen/%.o: $$(GEN_DIR)/%.c $$(GEN_HDRS) mk/build.mk
	@mkdir -p $$(@D)
	$$($(1)_CC_FLAGS) -I$$(GEN_DIR) -c $$< -o $$@

$$($(1)_OBJDIR)/cli.o: $$(GIT_DESCRIBE_STAMP)

$$($(1)_LIB): $$(patsubst user/%.c,$$($(1)_OBJDIR)/%.o,$$(LIB_SRCS)) \
	      $$(patsubst $$(GEN_DIR)/%.c,$$($(1)_OBJDIR)/gen/%.o,$$(GEN_SRCS))
	@mkdir -p $$(@D)
	rm -f $$@ && ar rcs $$@ $$^

$$($(1)_BINDIR)/%: $$($(1)_OBJDIR)/%.o $$($(1)_LIB) $$(filter %.o,$$($(1)_TOOL_LINK))
	@mkdir -p $$(@D)
	$$($(1)_CC) $$($(1)_LDFLAGS) $$($(1)_TOOL_LINK) -o $$@ $$< $$($(1)_LINK_LIBS)

$$($(1)_TESTDIR)/%: tests/unit/%.c $$($(1)_LIB) $$(USER_HDRS) $$(wildcard tests/unit/*.h)
	@mkdir -p $$(@D)
	$$($(1)_COMPILE) $$($(1)_LDFLAGS) -DTEST_DATA_DIR='"$$(TOPDIR)/tests/unit/data"' -o $$@ $$< \
		$$(if $$(wildcard tests/unit/$$*.wrap),$$(foreach s,$$(shell cat tests/unit/$$*.wrap),-Wl,--wrap=$$(s))) \
		$$($(1)_LINK_LIBS) -lcmocka
endef

# protoc-c writes every file at once: into a fresh directory, moved into
# place whole, so an interrupted run leaves no half of it.
.SECONDARY: $(GEN_SRCS) $(GEN_HDRS)
$(GEN_SRCS) $(GEN_HDRS): $(GEN_DIR)/.generated
$(GEN_DIR)/.generated: $(PROM_PROTO_DIR)/io/prometheus/client/metrics.proto \
		       $(WKT_PROTO_DIR)/google/protobuf/timestamp.proto mk/build.mk
	rm -rf $(GEN_DIR).tmp && mkdir -p $(GEN_DIR).tmp
	$(PROTOC_C) -I$(PROM_PROTO_DIR) -I$(WKT_PROTO_DIR) --c_out=$(GEN_DIR).tmp $(GEN_PROTOS)
	rm -rf $(GEN_DIR) && mv $(GEN_DIR).tmp $(GEN_DIR) && touch $@

$(foreach a,$(ARCHES),$(eval $(call bpf_skel_rules,$(a))) \
	$(foreach d,$(BPF_DIRS),$(eval $(call bpf_obj_rules,$(a),$(d)))))
$(foreach f,$(FLAVOURS),$(eval $(call flavour_rules,$(f))))

# The recipe runs every time; the file changes (and cli.o is rebuilt) only
# when the string does.
.PHONY: git-describe-force
$(GIT_DESCRIBE_STAMP): git-describe-force
	@mkdir -p $(@D)
	@echo '$(GIT_DESCRIBE)' | cmp -s - $@ || echo '$(GIT_DESCRIBE)' >$@

.PHONY: tools tools-all $(ARCHES:%=tools-%) tools-dynamic sanitize
tools: tools-$(HOST_ARCH)
tools-all: $(ARCHES:%=tools-%)
$(foreach a,$(ARCHES),$(eval tools-$(a): $$($(a)_BINS)))
tools-dynamic: $(dynamic_BINS)
sanitize: $(sanitize_BINS) $(sanitize_UNIT_BINS)
