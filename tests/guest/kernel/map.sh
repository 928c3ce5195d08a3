#!/bin/sh
# vmap/vmalloc/vm_map_ram mappings: pages, data, granules, exact events.
. /opt/vmapscope/tests/kernel/lib.sh
run_vmap_test map
finish
