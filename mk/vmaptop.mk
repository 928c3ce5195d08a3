# vmaptop: top-style live view (user/vmaptop.c, user/top_*.c).
#
# mk/tools.mk builds out/<arch>/bin/vmaptop (static, x86_64 and arm64):
# user/vmaptop.c is a tool main file by name and user/top_*.c go into
# libvmapscope.a.  Unit tests (tests/unit/test_top_*.c) run in check-unit.

# Static: libncursesw.a needs libtinfo.a after it.
TOOLS_LDLIBS	+= -lncursesw -ltinfo
