# Deploying the host tools on a fleet, without the lab (docs/deploy.md).
#
#   make deps-tools    the Debian packages the host tools need to build and
#                      run (scripts/install-deps tools), nothing of the lab
#   make deps-test     those the test suites need (scripts/install-deps test)
#   make check-host-deploy-files   fast, no BPF: the dependency sets
#                      (tests/host/deploy/test_install_deps.sh), the Prometheus
#                      rules (promtool check rules, promtool test rules), the
#                      Grafana dashboard (tests/host/deploy/test_dashboard.sh),
#                      one default port in every document and the unit
#                      (tests/host/deploy/test_default_port.sh)
#   make check-host-deploy  root, BPF on this machine's kernel:
#                      tests/host/deploy/test_service.sh (the exporter's systemd
#                      unit: verify, sysusers, its capabilities one by one,
#                      its sandbox against a traced run),
#                      tests/host/deploy/test_rules_names.sh (the rules and the
#                      dashboard read only metrics and labels the exporter
#                      exports) and
#                      tests/host/deploy/test_quickstart.sh (the README's host-only
#                      commands in a fresh clone, the installed vmapstat run)
#
# "make deps" (scripts/install-deps, every set) is in the top Makefile.

DEPLOY_RULES	:= contrib/prometheus/vmapscope.rules.yml
DEPLOY_RULES_TESTS := tests/host/deploy/vmapscope.rules.test.yml

.PHONY: deps-tools deps-test check-host-deploy-files check-host-deploy

deps-tools:
	scripts/install-deps tools

deps-test:
	scripts/install-deps test

check-host-deploy-files:
	TOPDIR=$(TOPDIR) bash tests/host/deploy/test_install_deps.sh
	promtool check rules $(DEPLOY_RULES)
	promtool test rules $(DEPLOY_RULES_TESTS)
	TOPDIR=$(TOPDIR) bash tests/host/deploy/test_dashboard.sh
	TOPDIR=$(TOPDIR) bash tests/host/deploy/test_default_port.sh

check-host-deploy: tools
	@set -e; for t in tests/host/deploy/test_service.sh tests/host/deploy/test_rules_names.sh \
		 tests/host/deploy/test_quickstart.sh; do \
		echo "== $$t"; TOPDIR=$(TOPDIR) OUTDIR=$(OUTDIR) bash $$t; done

# for the tests: the value of a make variable (deploy-print-TOOLS_LDLIBS)
deploy-print-%:
	@echo '$($*)'

CHECK_TARGETS	+= check-host-deploy-files check-host-deploy
