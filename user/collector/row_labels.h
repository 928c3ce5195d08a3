/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --by: the text of a row's label (rows.h, vmapscope_row.label).
 *
 * A cgroup id (bpf_get_current_cgroup_id()) is the inode number of the
 * cgroup's directory in the cgroup v2 hierarchy: the path is found by
 * walking the hierarchy's directories, once per id not seen before (a
 * cache of id -> path, walked again at most once per read for ids it
 * lacks).  An id with no directory (the cgroup is gone, or no cgroup v2
 * mount) is shown as its number.  A comm is the task's 16 bytes, up to
 * the first NUL.
 */
#ifndef VMAPSCOPE_ROW_LABELS_H
#define VMAPSCOPE_ROW_LABELS_H

#include <stddef.h>
#include <stdint.h>

struct row_labels;

/*
 * @cgroup_root: the cgroup v2 hierarchy's directory; NULL: the cgroup2
 * mount of /proc/self/mountinfo, else /sys/fs/cgroup.  NULL on -ENOMEM.
 */
struct row_labels *row_labels_new(const char *cgroup_root);
void row_labels_free(struct row_labels *rl);

/* Forget which ids were missed: the next miss walks the hierarchy again. */
void row_labels_new_read(struct row_labels *rl);

/* The label text of @label for dimension @by (enum vmapscope_by) into buf. */
void row_labels_text(struct row_labels *rl, int by, const uint64_t label[2],
		     char *buf, size_t len);

#endif /* VMAPSCOPE_ROW_LABELS_H */
