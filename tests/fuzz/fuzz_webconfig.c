// SPDX-License-Identifier: GPL-2.0
/*
 * --web.config.file (prom_webconfig.c): the input is the YAML file,
 * loaded from a directory of its own (relative cert_file and the like
 * name nothing there).  The loader checks each basic_auth_users hash by
 * computing bcrypt with the hash's own cost ("$2b$10$..."): up to 2^31
 * rounds, hours for cost 31.  That is not parsing, so the harness turns
 * every cost in the input into 04 (16 rounds) before writing the file.
 *
 * The file is YAML, where the structure is in lines and indentation,
 * which byte mutations rarely keep.  A custom mutator therefore also
 * works on blocks (a line and the more indented lines under it): it
 * copies one in place (the same key twice in one mapping, at any level),
 * drops one, or moves one under its predecessor (a key at another level);
 * the other mutations are libFuzzer's own.
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

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);

static uint64_t rnd_state;

static unsigned int rnd(unsigned int n)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return n ? (unsigned int)(rnd_state % n) : 0;
}

/* Offsets of the line starts of data[0..size), and size after the last. */
static size_t line_starts(const uint8_t *data, size_t size, size_t *start, size_t max)
{
	size_t n = 0, i;

	for (i = 0; i < size && n + 1 < max; i++)
		if (i == 0 || data[i - 1] == '\n')
			start[n++] = i;
	start[n] = size;
	return n;
}

static size_t indent_of(const uint8_t *data, size_t from, size_t to)
{
	size_t i = from;

	while (i < to && data[i] == ' ')
		i++;
	return i - from;
}

/* The end of line i's block: the next line not more indented (blank lines go along). */
static size_t block_end(const uint8_t *data, const size_t *start, size_t nlines, size_t i)
{
	size_t ind = indent_of(data, start[i], start[i + 1]), j;

	for (j = i + 1; j < nlines; j++) {
		size_t k = indent_of(data, start[j], start[j + 1]);

		if (start[j] + k < start[j + 1] && data[start[j] + k] != '\n' && k <= ind)
			break;
	}
	return start[j];
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	static size_t start[1025];
	size_t nlines, i, from, to, len;

	rnd_state = seed | (uint64_t)1 << 40;
	nlines = line_starts(data, size, start, sizeof(start) / sizeof(start[0]));
	if (nlines < 1 || rnd(2))
		return LLVMFuzzerMutate(data, size, max_size);
	i = rnd((unsigned int)nlines);
	from = start[i];
	to = block_end(data, start, nlines, i);
	len = to - from;
	switch (rnd(3)) {
	case 0:		/* the block twice: a duplicated key */
		if (size + len + 1 > max_size)
			return LLVMFuzzerMutate(data, size, max_size);
		if (len && data[to - 1] != '\n') {	/* the last line, unterminated */
			memmove(data + to + 1, data + to, size - to);
			data[to] = '\n';
			size++;
			to++;
			len++;
		}
		memmove(data + to + len, data + to, size - to);
		memcpy(data + to, data + from, len);
		return size + len;
	case 1:		/* the block gone */
		memmove(data + from, data + to, size - to);
		return size - len;
	default:	/* the block two spaces deeper: under the key above it */
		if (size + 2 * (nlines - i) > max_size)
			return LLVMFuzzerMutate(data, size, max_size);
		for (size_t j = nlines; j-- > i;) {
			if (start[j] >= to)
				continue;
			memmove(data + start[j] + 2, data + start[j], size - start[j]);
			data[start[j]] = ' ';
			data[start[j] + 1] = ' ';
			size += 2;
		}
		return size;
	}
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
