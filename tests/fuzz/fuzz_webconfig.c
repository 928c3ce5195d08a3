// SPDX-License-Identifier: GPL-2.0
/*
 * --web.config.file (prom_webconfig.c): the input is the YAML file,
 * loaded from a directory of its own (relative cert_file and the like
 * name nothing there).  The loader checks each basic_auth_users hash by
 * computing bcrypt with the hash's own cost ("$2b$10$..."): up to 2^31
 * rounds, hours for cost 31.  That is not parsing, so the harness turns
 * every cost in the input into 04 (16 rounds) before writing the file.
 */
#include <fcntl.h>

#include "fuzz.h"
#include "prom_webconfig.h"

static char dir[] = "/tmp/vmapscope-fuzz-webconfig-XXXXXX";
static char path[128];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	int fd = open("/dev/null", O_RDONLY);

	/* a file naming /dev/stdin must not wait for a terminal */
	if (fd < 0 || dup2(fd, 0) < 0 || !mkdtemp(dir))
		abort();
	close(fd);
	snprintf(path, sizeof(path), "%s/web.yml", dir);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct prom_webconfig *wc = NULL;
	char err[512], *text = malloc(size ? size : 1);
	FILE *f = fopen(path, "w");

	if (!text)
		abort();
	memcpy(text, data, size);
	for (size_t i = 0; i + 6 < size; i++)
		if (text[i] == '$' && text[i + 1] == '2' && text[i + 3] == '$' && text[i + 6] == '$') {
			text[i + 4] = '0';
			text[i + 5] = '4';
		}
	if (!f || fwrite(text, 1, size, f) != size || fclose(f))
		abort();
	free(text);
	if (!prom_webconfig_load(path, &wc, err, sizeof(err))) {
		prom_webconfig_check_tls(wc, path, err, sizeof(err));
		prom_webconfig_free(wc);
	}
	return 0;
}
