#!/bin/sh
# vmap/vmalloc/vm_map_ram mappings: pages, data, granules, exact events.
. "$(dirname "$0")/lib.sh"
run_vmap_test map
finish
