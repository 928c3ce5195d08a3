// SPDX-License-Identifier: GPL-2.0
/* --by: cgroup ids and comms as text (row_labels.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "row_labels.h"
#include "vmapscope.h"

struct cg_ent {
	uint64_t id;
	char *path;
};

struct row_labels {
	char *root;
	struct cg_ent *ents;
	size_t nr, cap;
	int walked;		/* walked since the last row_labels_new_read() */
};

#define CG_MAX_DEPTH	32
#define CG_MAX_ENTS	65536

/*
 * The cgroup v2 mount from /proc/self/mountinfo: /sys/fs/cgroup on a
 * unified host, /sys/fs/cgroup/unified on a hybrid one (where the v1
 * hierarchies under /sys/fs/cgroup have inode numbers of their own).
 */
static char *cgroup2_mount(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[4096], *found = NULL;

	while (f && !found && fgets(line, sizeof(line), f)) {
		char mnt[4096], fstype[64];
		const char *sep = strstr(line, " - ");

		/* id parent maj:min root mountpoint ... - fstype source opts */
		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    sscanf(sep + 3, "%63s", fstype) != 1 || strcmp(fstype, "cgroup2"))
			continue;
		found = strdup(mnt);
	}
	if (f)
		fclose(f);
	return found ? found : strdup("/sys/fs/cgroup");
}

struct row_labels *row_labels_new(const char *cgroup_root)
{
	struct row_labels *rl = calloc(1, sizeof(*rl));

	if (!rl)
		return NULL;
	rl->root = cgroup_root ? strdup(cgroup_root) : cgroup2_mount();
	if (!rl->root) {
		free(rl);
		return NULL;
	}
	return rl;
}

void row_labels_free(struct row_labels *rl)
{
	size_t i;

	if (!rl)
		return;
	for (i = 0; i < rl->nr; i++)
		free(rl->ents[i].path);
	free(rl->ents);
	free(rl->root);
	free(rl);
}

void row_labels_new_read(struct row_labels *rl)
{
	rl->walked = 0;
}

static struct cg_ent *cg_find(struct row_labels *rl, uint64_t id)
{
	size_t i;

	for (i = 0; i < rl->nr; i++)
		if (rl->ents[i].id == id)
			return &rl->ents[i];
	return NULL;
}

static void cg_put(struct row_labels *rl, uint64_t id, const char *path)
{
	struct cg_ent *e = cg_find(rl, id);
	char *p;

	if (e) {
		if (strcmp(e->path, path) && (p = strdup(path))) {
			free(e->path);
			e->path = p;
		}
		return;
	}
	if (rl->nr >= CG_MAX_ENTS)
		return;
	if (rl->nr == rl->cap) {
		size_t cap = rl->cap ? rl->cap * 2 : 64;
		struct cg_ent *n = realloc(rl->ents, cap * sizeof(*n));

		if (!n)
			return;
		rl->ents = n;
		rl->cap = cap;
	}
	p = strdup(path);
	if (!p)
		return;
	rl->ents[rl->nr++] = (struct cg_ent){ id, p };
}

/* Every directory under @dfd (the cgroup at @rel), depth first. */
static void cg_walk(struct row_labels *rl, int dfd, const char *rel, int depth, dev_t dev)
{
	struct stat st;
	struct dirent *de;
	DIR *d;

	/* one hierarchy: ids are inode numbers of its own file system */
	if (fstat(dfd, &st) || (depth && st.st_dev != dev)) {
		close(dfd);
		return;
	}
	dev = st.st_dev;
	cg_put(rl, st.st_ino, *rel ? rel : "/");
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	while (depth < CG_MAX_DEPTH && (de = readdir(d))) {
		char sub[4096];
		int fd;

		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s/%s", rel, de->d_name) >= sizeof(sub))
			continue;
		fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0)
			cg_walk(rl, fd, sub, depth + 1, dev);
	}
	closedir(d);
}

static const char *cg_path(struct row_labels *rl, uint64_t id)
{
	struct cg_ent *e = cg_find(rl, id);
	int fd;

	if (!e && !rl->walked) {
		rl->walked = 1;
		fd = open(rl->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0)
			cg_walk(rl, fd, "", 0, 0);
		e = cg_find(rl, id);
	}
	return e ? e->path : NULL;
}

void row_labels_text(struct row_labels *rl, int by, const uint64_t label[2],
		     char *buf, size_t len)
{
	const char *p;

	if (!len)
		return;
	buf[0] = 0;
	if (by == VMAPSCOPE_BY_CGROUP) {
		if (!label[0])		/* no label: the [unattributed] row, slot 0 */
			return;
		p = rl ? cg_path(rl, label[0]) : NULL;
		if (p)
			snprintf(buf, len, "%s", p);
		else
			snprintf(buf, len, "%llu", (unsigned long long)label[0]);
	} else if (by == VMAPSCOPE_BY_COMM) {
		char comm[VMAPSCOPE_COMM_LEN + 1];

		memcpy(comm, label, VMAPSCOPE_COMM_LEN);
		comm[VMAPSCOPE_COMM_LEN] = 0;
		snprintf(buf, len, "%s", comm);
	}
}
