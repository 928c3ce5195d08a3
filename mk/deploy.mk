# Deploying the host tools on a fleet, without the lab (docs/deploy.md).
#
#   make deps-tools    the Debian packages the host tools need to build and
#                      run (scripts/install-deps tools), nothing of the lab
#   make deps-test     those the test suites need (scripts/install-deps test)
#
# "make deps" (scripts/install-deps, every set) is in the top Makefile.

.PHONY: deps-tools deps-test

deps-tools:
	scripts/install-deps tools

deps-test:
	scripts/install-deps test
