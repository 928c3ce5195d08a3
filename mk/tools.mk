# vmapscope user-space tools and their BPF objects (vmapstat, vmaptop, ...).
#
#   make tools            host arch: out/$(HOST_ARCH)/bin/vmapstat and vmaptop
#   make tools-x86_64     out/x86_64/bin/*   (static)
#   make tools-arm64      out/arm64/bin/*    (static, aarch64-linux-gnu-gcc)
#   make tools-all        both
#   make check-unit       cmocka unit tests (tests/unit/test_*.c, host arch)
#   make check-host       tests/host/*.sh against this machine's kernel (root)
#
# Naming rule for other modules (no edit of this file needed):
#   - user/<tool>.c with <tool> in TOOL_NAMES below is a tool's main file;
#     out/<arch>/bin/<tool> links it with libvmapscope.a.
#   - every other user/*.c goes into out/<arch>/lib/libvmapscope.a, linked by
#     every tool and every unit test.
#   - every bpf/<name>.bpf.c becomes out/<arch>/include/<name>.skel.h
#     (bpftool gen skeleton), available to all of user/.
#   - extra libraries for the tools: append to TOOLS_LDLIBS (static link).
#   - another directory of *.bpf.c (a program with a BPF object of its own):
#     append it to BPF_EXTRA_DIRS; its objects and skeletons are built by
#     the same rules, into out/<arch>/bpf/ and out/<arch>/include/.
#   - unit tests: tests/unit/test_<name>.c, one binary each, linked with
#     the library and cmocka; optional tests/unit/test_<name>.wrap lists
#     symbols to pass to -Wl,--wrap=.

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
# changes, and the objects of cli.c depend on that file.
GIT_DESCRIBE	:= $(or $(shell git -C $(TOPDIR) describe --always --dirty 2>/dev/null),unknown)
GIT_DESCRIBE_STAMP := $(OUTDIR)/git-describe.stamp
TOOLS_CFLAGS	+= -DVMAPSCOPE_GIT_DESCRIBE='"$(GIT_DESCRIBE)"'
TOOLS_LDLIBS	+= -ljson-c -lbpf -lelf -lz -lpthread

BPF_SRCS	:= $(wildcard bpf/*.bpf.c)
BPF_NAMES	:= $(patsubst bpf/%.bpf.c,%,$(BPF_SRCS))
BPF_HDRS	:= $(wildcard bpf/*.h include/*.h)
TOOL_MAINS	:= $(wildcard $(TOOL_NAMES:%=user/%.c))
TOOLS_BUILT	:= $(patsubst user/%.c,%,$(TOOL_MAINS))
LIB_SRCS	= $(filter-out $(TOOL_MAINS),$(wildcard user/*.c))
USER_HDRS	= $(wildcard user/*.h include/*.h)

.PHONY: tools tools-all $(ARCHES:%=tools-%) check-unit check-host

tools: tools-$(HOST_ARCH)
tools-all: $(ARCHES:%=tools-%)

# BPF source -> object, for arch $(1), of the *.bpf.c in directory $(2):
# out/<arch>/bpf/NAME.bpf.o, for bpf/ and every BPF_EXTRA_DIRS.
# tools_arch_rules turns any such object into out/<arch>/include/NAME.skel.h.
define bpf_obj_rules
$(OUTDIR)/$(1)/bpf/%.bpf.o: $(2)/%.bpf.c $$(BPF_HDRS)
	@mkdir -p $$(@D)
	$$(CLANG) -g -O2 -Wall -target bpf -D__TARGET_ARCH_$$(BPFARCH_$(1)) \
		-Iinclude -Ibpf $$(BPF_SYSINC) -c $$< -o $$@
	llvm-strip -g $$@
endef

# $(1) = arch
define tools_arch_rules
O_$(1)		:= $(OUTDIR)/$(1)
SKELS_$(1)	:= $$(BPF_NAMES:%=$$(O_$(1))/include/%.skel.h)
LIB_OBJS_$(1)	= $$(patsubst user/%.c,$$(O_$(1))/obj/%.o,$$(LIB_SRCS))

tools-$(1): $$(TOOLS_BUILT:%=$$(O_$(1))/bin/%)
.SECONDARY: $$(SKELS_$(1)) $$(BPF_NAMES:%=$$(O_$(1))/bpf/%.bpf.o) \
	    $$(TOOLS_BUILT:%=$$(O_$(1))/obj/%.o)

$$(O_$(1))/include/%.skel.h: $$(O_$(1))/bpf/%.bpf.o
	@mkdir -p $$(@D)
	$$(BPFTOOL) gen skeleton $$< > $$@.tmp && mv $$@.tmp $$@

$$(O_$(1))/obj/%.o: user/%.c $$(USER_HDRS) $$(SKELS_$(1))
	@mkdir -p $$(@D)
	$$(CC_$(1)) $$(TOOLS_CFLAGS) -Iinclude -Iuser -I$$(O_$(1))/include -c $$< -o $$@

$$(O_$(1))/lib/libvmapscope.a: $$(LIB_OBJS_$(1))
	@mkdir -p $$(@D)
	rm -f $$@ && ar rcs $$@ $$^

$$(O_$(1))/bin/%: $$(O_$(1))/obj/%.o $$(O_$(1))/lib/libvmapscope.a
	@mkdir -p $$(@D)
	$$(CC_$(1)) -static -o $$@ $$< $$(O_$(1))/lib/libvmapscope.a $$(TOOLS_LDLIBS)
endef
$(foreach a,$(ARCHES),$(eval $(call tools_arch_rules,$(a))) \
	$(foreach d,bpf $(BPF_EXTRA_DIRS),$(eval $(call bpf_obj_rules,$(a),$(d)))))

# The recipe runs every time; the file changes (and cli.o is rebuilt) only
# when the string does.
.PHONY: git-describe-force
$(GIT_DESCRIBE_STAMP): git-describe-force
	@mkdir -p $(@D)
	@echo '$(GIT_DESCRIBE)' | cmp -s - $@ || echo '$(GIT_DESCRIBE)' >$@
$(foreach a,$(ARCHES),$(OUTDIR)/$(a)/obj/cli.o) \
$(OUTDIR)/$(HOST_ARCH)/obj-dynamic/cli.o: $(GIT_DESCRIBE_STAMP)

# ---- unit tests (host arch, dynamic link with cmocka) --------------------
UNIT_SRCS	:= $(wildcard tests/unit/test_*.c)
UNIT_BINS	:= $(patsubst tests/unit/%.c,$(OUTDIR)/$(HOST_ARCH)/tests/%,$(UNIT_SRCS))

$(OUTDIR)/$(HOST_ARCH)/tests/%: tests/unit/%.c $(OUTDIR)/$(HOST_ARCH)/lib/libvmapscope.a $(USER_HDRS)
	@mkdir -p $(@D)
	$(CC_$(HOST_ARCH)) $(TOOLS_CFLAGS) -Iinclude -Iuser -I$(OUTDIR)/$(HOST_ARCH)/include \
		-DTEST_DATA_DIR='"$(TOPDIR)/tests/unit/data"' -o $@ $< \
		$(if $(wildcard tests/unit/$*.wrap),$(foreach s,$(shell cat tests/unit/$*.wrap),-Wl,--wrap=$(s))) \
		$(OUTDIR)/$(HOST_ARCH)/lib/libvmapscope.a $(TOOLS_LDLIBS) -lcmocka

check-unit: $(UNIT_BINS) tools
	@set -e; for t in $(UNIT_BINS); do echo "== $$t"; VMAPSTAT=$(OUTDIR)/$(HOST_ARCH)/bin/vmapstat $$t; done

# ---- host tests (this machine's kernel; need root) -----------------------
HOST_TESTS	:= $(sort $(wildcard tests/host/*.sh))

check-host: tools
	@set -e; for t in $(HOST_TESTS); do echo "== $$t"; \
		VMAPSTAT=$(OUTDIR)/$(HOST_ARCH)/bin/vmapstat TOPDIR=$(TOPDIR) bash $$t; done

CHECK_TARGETS	+= check-unit check-host
