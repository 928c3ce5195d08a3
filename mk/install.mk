# Installation of the tools and their man pages.
#
#   make install [PREFIX=/usr/local] [DESTDIR=/staging]
#       out/<host arch>/bin/vmapstat, vmaptop  -> $(DESTDIR)$(PREFIX)/sbin/
#       man/vmapstat.8, man/vmaptop.8         -> $(DESTDIR)$(PREFIX)/share/man/man8/
#       the exporter's unit (contrib/systemd/vmapstat-exporter.service, with
#       the installed vmapstat's path)        -> $(DESTDIR)$(SYSTEMDUNITDIR)/
#       its user (contrib/sysusers.d/vmapscope.conf) -> $(DESTDIR)$(SYSUSERSDIR)/
#       optional pieces, enabled by hand (docs/deploy.md): the --live-bytes
#       drop-in, the kptr_restrict sysctl file, the Prometheus rules, the
#       Grafana dashboard
#                                             -> $(DESTDIR)$(PREFIX)/share/vmapscope/
#       SYSTEMDUNITDIR and SYSUSERSDIR default to $(PREFIX)/lib/..., which
#       systemd searches for PREFIX=/usr and /usr/local; with another
#       PREFIX give them (e.g. SYSTEMDUNITDIR=/etc/systemd/system).
#   make uninstall [PREFIX=...] [DESTDIR=...]
#       removes those files, and $(INSTALL_DATADIR) with its subdirectories
#       once empty (vmapscope's own); the shared directories (sbin, man8,
#       the unit and sysusers directories) stay
#   make check-host-install
#       installs into a temporary DESTDIR and checks the files, that each
#       page renders without a groff/man warning, and that every long
#       option of each tool's --help appears in its page (so they cannot
#       drift apart).
#
# sbin: both tools need root (CAP_BPF + CAP_PERFMON), as their section-8
# pages say; the exporter's unit grants its own user just those (and
# CAP_SYSLOG), see docs/deploy.md.

PREFIX		?= /usr/local
INSTALL_SBINDIR	 = $(PREFIX)/sbin
INSTALL_MAN8DIR	 = $(PREFIX)/share/man/man8
INSTALL_TOOLS	 = $(TOOL_NAMES)
INSTALL_MANS	 = $(INSTALL_TOOLS:%=man/%.8)
SYSTEMDUNITDIR	?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR	?= $(PREFIX)/lib/sysusers.d
INSTALL_DATADIR	 = $(PREFIX)/share/vmapscope
INSTALL_UNIT	:= vmapstat-exporter.service
# contrib file -> its place under $(INSTALL_DATADIR)
INSTALL_EXTRAS	:= systemd/live-bytes.conf sysctl.d/60-vmapscope-kptr-restrict.conf \
		   prometheus/vmapscope.rules.yml grafana/vmapscope-dashboard.json

.PHONY: install uninstall check-host-install

install: tools
	install -d $(DESTDIR)$(INSTALL_SBINDIR) $(DESTDIR)$(INSTALL_MAN8DIR)
	install -m 0755 $(INSTALL_TOOLS:%=$(OUTDIR)/$(HOST_ARCH)/bin/%) $(DESTDIR)$(INSTALL_SBINDIR)/
	install -m 0644 $(INSTALL_MANS) $(DESTDIR)$(INSTALL_MAN8DIR)/
	install -d $(DESTDIR)$(SYSTEMDUNITDIR) $(DESTDIR)$(SYSUSERSDIR) \
		$(sort $(dir $(INSTALL_EXTRAS:%=$(DESTDIR)$(INSTALL_DATADIR)/%)))
	sed 's|@SBINDIR@|$(INSTALL_SBINDIR)|g' contrib/systemd/$(INSTALL_UNIT) \
		>$(DESTDIR)$(SYSTEMDUNITDIR)/$(INSTALL_UNIT).tmp
	chmod 0644 $(DESTDIR)$(SYSTEMDUNITDIR)/$(INSTALL_UNIT).tmp
	mv $(DESTDIR)$(SYSTEMDUNITDIR)/$(INSTALL_UNIT).tmp $(DESTDIR)$(SYSTEMDUNITDIR)/$(INSTALL_UNIT)
	install -m 0644 contrib/sysusers.d/vmapscope.conf $(DESTDIR)$(SYSUSERSDIR)/
	$(foreach f,$(INSTALL_EXTRAS),install -m 0644 contrib/$(f) $(DESTDIR)$(INSTALL_DATADIR)/$(f) &&) true

uninstall:
	rm -f $(INSTALL_TOOLS:%=$(DESTDIR)$(INSTALL_SBINDIR)/%) \
	      $(INSTALL_TOOLS:%=$(DESTDIR)$(INSTALL_MAN8DIR)/%.8) \
	      $(DESTDIR)$(SYSTEMDUNITDIR)/$(INSTALL_UNIT) $(DESTDIR)$(SYSUSERSDIR)/vmapscope.conf \
	      $(INSTALL_EXTRAS:%=$(DESTDIR)$(INSTALL_DATADIR)/%)
	for d in $(sort $(dir $(INSTALL_EXTRAS:%=$(DESTDIR)$(INSTALL_DATADIR)/%))) \
		 $(DESTDIR)$(INSTALL_DATADIR); do \
		[ ! -d "$$d" ] || rmdir --ignore-fail-on-non-empty "$$d"; done

check-host-install: tools
	TOPDIR=$(TOPDIR) OUTDIR=$(OUTDIR) HOST_ARCH=$(HOST_ARCH) bash tests/host/install/check_install.sh

CHECK_TARGETS	+= check-host-install
