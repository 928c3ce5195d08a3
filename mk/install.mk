# Installation of the tools and their man pages.
#
#   make install [PREFIX=/usr/local] [DESTDIR=/staging]
#       out/<host arch>/bin/vmapstat, vmaptop  -> $(DESTDIR)$(PREFIX)/sbin/
#       man/vmapstat.8, man/vmaptop.8         -> $(DESTDIR)$(PREFIX)/share/man/man8/
#   make uninstall [PREFIX=...] [DESTDIR=...]
#   make check-install
#       installs into a temporary DESTDIR and checks the files, that each
#       page renders without a groff/man warning, and that every long
#       option of each tool's --help appears in its page (so they cannot
#       drift apart).
#
# sbin: both tools need root (CAP_BPF + CAP_PERFMON), as their section-8
# pages say.

PREFIX		?= /usr/local
INSTALL_SBINDIR	 = $(PREFIX)/sbin
INSTALL_MAN8DIR	 = $(PREFIX)/share/man/man8
INSTALL_TOOLS	:= vmapstat vmaptop
INSTALL_MANS	:= $(INSTALL_TOOLS:%=man/%.8)

.PHONY: install uninstall check-install

install: tools
	install -d $(DESTDIR)$(INSTALL_SBINDIR) $(DESTDIR)$(INSTALL_MAN8DIR)
	install -m 0755 $(INSTALL_TOOLS:%=$(OUTDIR)/$(HOST_ARCH)/bin/%) $(DESTDIR)$(INSTALL_SBINDIR)/
	install -m 0644 $(INSTALL_MANS) $(DESTDIR)$(INSTALL_MAN8DIR)/

uninstall:
	rm -f $(INSTALL_TOOLS:%=$(DESTDIR)$(INSTALL_SBINDIR)/%) \
	      $(INSTALL_TOOLS:%=$(DESTDIR)$(INSTALL_MAN8DIR)/%.8)

check-install: tools
	TOPDIR=$(TOPDIR) OUTDIR=$(OUTDIR) HOST_ARCH=$(HOST_ARCH) bash tests/install/check_install.sh

CHECK_TARGETS	+= check-install
