// SPDX-License-Identifier: GPL-2.0
/* Atomic node_exporter textfile writer (see prom_textfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "errbuf.h"
#include "prom_textfile.h"

/* Split PATH into a malloc'ed directory and a pointer to its base name. */
static char *dir_of(const char *path, const char **base)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		*base = path;
		return strdup(".");
	}
	*base = slash + 1;
	if (slash == path)
		return strdup("/");
	return strndup(path, (size_t)(slash - path));
}

int prom_textfile_check_name(const char *path, char *err, size_t errlen)
{
	size_t n = path ? strlen(path) : 0;
	const char *base;

	if (n < 6 || strcmp(path + n - 5, ".prom")) {
		errbuf_set(err, errlen,
			"--textfile '%s': name must end in .prom (node_exporter reads only *.prom)",
			path ? path : "");
		return -EINVAL;
	}
	base = strrchr(path, '/');
	if (!strcmp(base ? base + 1 : path, ".prom")) {
		errbuf_set(err, errlen, "--textfile '%s': empty file name", path);
		return -EINVAL;
	}
	return 0;
}

int prom_textfile_check(const char *path, char *err, size_t errlen)
{
	const char *base;
	struct stat st;
	char *dir;
	int rc = prom_textfile_check_name(path, err, errlen);

	if (rc)
		return rc;
	dir = dir_of(path, &base);
	if (!dir) {
		errbuf_set(err, errlen, "--textfile: out of memory");
		return -ENOMEM;
	}
	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		errbuf_set(err, errlen, "--textfile '%s': directory %s does not exist",
			path, dir);
		rc = -ENOENT;
	} else if (access(dir, W_OK | X_OK)) {
		rc = -errno;
		errbuf_set(err, errlen, "--textfile '%s': cannot write in %s: %s",
			path, dir, strerror(errno));
	} else if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		errbuf_set(err, errlen, "--textfile '%s': is a directory", path);
		rc = -EISDIR;
	}
	free(dir);
	return rc;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

int prom_textfile_write(const char *path, const char *text, size_t len,
			char *err, size_t errlen)
{
	const char *base;
	char *dir, *tmp = NULL;
	int fd = -1, rc;

	dir = dir_of(path, &base);
	if (!dir || asprintf(&tmp, "%s/.%s.XXXXXX", dir, base) < 0) {
		free(dir);
		errbuf_set(err, errlen, "--textfile: out of memory");
		return -ENOMEM;
	}
	free(dir);
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		rc = -errno;
		errbuf_set(err, errlen, "--textfile %s: cannot create %s: %s",
			path, tmp, strerror(errno));
		free(tmp);
		return rc;
	}
	/* mkostemp makes 0600; node_exporter usually runs as another user. */
	if (fchmod(fd, 0644) || (rc = write_all(fd, text, len)) ||
	    fsync(fd)) {
		rc = errno ? -errno : -EIO;
		goto fail;
	}
	if (close(fd)) {
		fd = -1;
		rc = -errno;
		goto fail;
	}
	fd = -1;
	if (rename(tmp, path)) {
		rc = -errno;
		goto fail;
	}
	free(tmp);
	return 0;
fail:
	errbuf_set(err, errlen, "--textfile %s: %s", path, strerror(-rc));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	return rc;
}
