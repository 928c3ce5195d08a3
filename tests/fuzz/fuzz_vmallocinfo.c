// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/vmallocinfo (or --vmallocinfo FILE) through vmallocinfo_read(),
 * and each line alone through vmallocinfo_parse_line().
 */
#include "fuzz.h"
#include "snapshot.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct snapshot_areas areas;
	struct snapshot_area a;
	char err[256], *keep, *s, *line, *save = NULL;
	FILE *f = fuzz_stream(data, size, &keep);

	if (!vmallocinfo_read(f, "fuzz", &areas, err, sizeof(err)))
		snapshot_areas_free(&areas);
	fclose(f);
	free(keep);

	s = fuzz_str(data, size);
	for (line = strtok_r(s, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		vmallocinfo_parse_line(line, &a);
	free(s);
	return 0;
}
