# vmapscope top-level Makefile.
#
# Each concern keeps its rules in mk/<concern>.mk and adds its test target
# to CHECK_TARGETS; "make check" runs them all in order.  The two commands
# the README gives are "make demo" and "make check".

SHELL		:= /bin/bash
TOPDIR		:= $(CURDIR)
# Where built tools go: out/<arch>/ (bin/, bpf/, lib/); never committed.
OUTDIR		?= $(TOPDIR)/out
HOST_ARCH	:= $(shell uname -m | sed 's/aarch64/arm64/')
# Lab cache (kernel trees, builds); outside the repo on purpose.
export VMAPSCOPE_CACHE ?= /var/cache/vmapscope

CHECK_TARGETS	:=
CHECK_FULL_TARGETS :=

.PHONY: all deps demo check check-full clean
all:

# Install every package the project needs (idempotent; fast when done).
deps:
	scripts/install-deps

include $(sort $(wildcard mk/*.mk))

all: tools

check: deps
	@set -e; for t in $(CHECK_TARGETS); do \
		echo "==== make $$t"; $(MAKE) --no-print-directory $$t; done
	@echo "==== make check: all suites passed"

check-full: check
	@set -e; for t in $(CHECK_FULL_TARGETS); do \
		echo "==== make $$t"; $(MAKE) --no-print-directory $$t; done

clean:
	rm -rf $(OUTDIR)
