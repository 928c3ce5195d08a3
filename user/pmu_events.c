// SPDX-License-Identifier: GPL-2.0
/*
 * Event name resolution, following tools/perf/util/parse-events.c of the
 * 6.12 tree: sysfs aliases win over legacy names (perf prefers a PMU's own
 * event, "ARM requires this"), legacy hardware/cache/software names next,
 * then the Arm PMUv3 common events perf knows from its JSON tables.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "errbuf.h"
#include "pmu_events.h"

/* Read a small sysfs file into @buf, trailing whitespace removed. */
static int read_small_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(buf, 1, len - 1, f);
	if (ferror(f)) {
		int e = errno ? errno : EIO;

		fclose(f);
		return -e;
	}
	fclose(f);
	buf[n] = '\0';
	if (memchr(buf, '\0', n))
		return -EINVAL;		/* binary junk */
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return 0;
}

static int pmu_file(const char *root, const char *pmu, const char *rel,
		    char *buf, size_t len)
{
	char path[1024];

	if (snprintf(path, sizeof(path), "%s/%s/%s", root, pmu, rel) >=
	    (int)sizeof(path))
		return -ENAMETOOLONG;
	return read_small_file(path, buf, len);
}

/* Parse a decimal or 0x-hex unsigned number that must fill the string. */
static bool parse_u64(const char *s, unsigned long long *v)
{
	char *end;

	if (!*s || *s == '-' || *s == '+' || isspace((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end;
}

static __u64 *attr_field(struct perf_event_attr *attr, const char *name)
{
	if (!strcmp(name, "config"))
		return (__u64 *)&attr->config;
	if (!strcmp(name, "config1"))
		return (__u64 *)&attr->config1;
	if (!strcmp(name, "config2"))
		return (__u64 *)&attr->config2;
#ifdef PERF_ATTR_SIZE_VER8
	if (!strcmp(name, "config3"))
		return (__u64 *)&attr->config3;
#endif
	return NULL;
}

int pmu_format_apply(const char *format, unsigned long long value,
		     struct perf_event_attr *attr, char *err, size_t errlen)
{
	char buf[256], *colon, *tok, *save;
	unsigned long long bits[64];
	int nbits = 0, i;
	__u64 *field;

	if (snprintf(buf, sizeof(buf), "%s", format) >= (int)sizeof(buf)) {
		errbuf_set(err, errlen, "format '%.40s...' too long", format);
		return -1;
	}
	colon = strchr(buf, ':');
	if (!colon) {
		errbuf_set(err, errlen, "malformed format '%s' (want configN:lo-hi)",
		       format);
		return -1;
	}
	*colon = '\0';
	field = attr_field(attr, buf);
	if (!field) {
		errbuf_set(err, errlen, "format '%s' names unknown field '%s'",
		       format, buf);
		return -1;
	}
	/* Collect the target bit positions, low to high as listed. */
	for (tok = strtok_r(colon + 1, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		unsigned long long lo, hi;
		char *dash = strchr(tok, '-');

		if (dash)
			*dash = '\0';
		if (!parse_u64(tok, &lo) || (dash && !parse_u64(dash + 1, &hi))) {
			errbuf_set(err, errlen, "malformed bit range in format '%s'",
			       format);
			return -1;
		}
		if (!dash)
			hi = lo;
		if (lo > 63 || hi > 63 || lo > hi) {
			errbuf_set(err, errlen, "bad bit range %llu-%llu in format '%s'",
			       lo, hi, format);
			return -1;
		}
		for (; lo <= hi; lo++) {
			if (nbits == 64) {
				errbuf_set(err, errlen, "format '%s' has over 64 bits",
				       format);
				return -1;
			}
			bits[nbits++] = lo;
		}
	}
	if (!nbits) {
		errbuf_set(err, errlen, "format '%s' has no bits", format);
		return -1;
	}
	if (nbits < 64 && (value >> nbits)) {
		errbuf_set(err, errlen, "value 0x%llx too big for format '%s' (%d bits)",
		       value, format, nbits);
		return -1;
	}
	for (i = 0; i < nbits; i++) {
		__u64 bit = 1ULL << bits[i];

		if (value & (1ULL << i))
			*field |= bit;
		else
			*field &= ~bit;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* Legacy (generic) events                                             */

struct sym_event {
	const char *name;
	__u32 type;
	__u64 config;
};

static const struct sym_event legacy_events[] = {
	{ "cpu-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
	{ "instructions",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
	{ "cache-references",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
	{ "cache-misses",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
	{ "branch-instructions",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branches",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ "branch-misses",		PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
	{ "bus-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES },
	{ "stalled-cycles-frontend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "idle-cycles-frontend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND },
	{ "stalled-cycles-backend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "idle-cycles-backend",	PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND },
	{ "ref-cycles",			PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES },
	{ "cpu-clock",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK },
	{ "task-clock",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
	{ "page-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "faults",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
	{ "context-switches",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cs",				PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "migrations",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
	{ "minor-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
	{ "major-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
	{ "alignment-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_ALIGNMENT_FAULTS },
	{ "emulation-faults",		PERF_TYPE_SOFTWARE, PERF_COUNT_SW_EMULATION_FAULTS },
	{ "dummy",			PERF_TYPE_SOFTWARE, PERF_COUNT_SW_DUMMY },
};

/* Cache name tables, spelled as perf's evsel__hw_cache* tables. */
static const char *const cache_names[PERF_COUNT_HW_CACHE_MAX][5] = {
	[PERF_COUNT_HW_CACHE_L1D]  = { "L1-dcache", "l1-d", "l1d", "L1-data" },
	[PERF_COUNT_HW_CACHE_L1I]  = { "L1-icache", "l1-i", "l1i", "L1-instruction" },
	[PERF_COUNT_HW_CACHE_LL]   = { "LLC", "L2" },
	[PERF_COUNT_HW_CACHE_DTLB] = { "dTLB", "d-tlb", "Data-TLB" },
	[PERF_COUNT_HW_CACHE_ITLB] = { "iTLB", "i-tlb", "Instruction-TLB" },
	[PERF_COUNT_HW_CACHE_BPU]  = { "branch", "branches", "bpu", "btb", "bpc" },
	[PERF_COUNT_HW_CACHE_NODE] = { "node" },
};
static const char *const cache_ops[PERF_COUNT_HW_CACHE_OP_MAX][5] = {
	[PERF_COUNT_HW_CACHE_OP_READ]	  = { "load", "loads", "read" },
	[PERF_COUNT_HW_CACHE_OP_WRITE]	  = { "store", "stores", "write" },
	[PERF_COUNT_HW_CACHE_OP_PREFETCH] = { "prefetch", "prefetches",
					      "speculative-read", "speculative-load" },
};
static const char *const cache_results[PERF_COUNT_HW_CACHE_RESULT_MAX][5] = {
	[PERF_COUNT_HW_CACHE_RESULT_ACCESS] = { "refs", "Reference", "ops", "access" },
	[PERF_COUNT_HW_CACHE_RESULT_MISS]   = { "misses", "miss" },
};
/* Which ops each cache supports (perf's evsel__hw_cache_stat). */
#define OPS_R	(1 << PERF_COUNT_HW_CACHE_OP_READ)
#define OPS_RWP	(OPS_R | (1 << PERF_COUNT_HW_CACHE_OP_WRITE) | \
		 (1 << PERF_COUNT_HW_CACHE_OP_PREFETCH))
static const unsigned char cache_valid_ops[PERF_COUNT_HW_CACHE_MAX] = {
	[PERF_COUNT_HW_CACHE_L1D]  = OPS_RWP,
	[PERF_COUNT_HW_CACHE_L1I]  = OPS_R | (1 << PERF_COUNT_HW_CACHE_OP_PREFETCH),
	[PERF_COUNT_HW_CACHE_LL]   = OPS_RWP,
	[PERF_COUNT_HW_CACHE_DTLB] = OPS_RWP,
	[PERF_COUNT_HW_CACHE_ITLB] = OPS_R,
	[PERF_COUNT_HW_CACHE_BPU]  = OPS_R,
	[PERF_COUNT_HW_CACHE_NODE] = OPS_RWP,
};

/*
 * Longest case-insensitive alias of @table that prefixes @s and ends at a
 * '-' or the end of @s.  Returns the index, *len = matched length.
 */
static int match_alias(const char *s, const char *const (*table)[5], int rows,
		       int *len)
{
	int best = -1, best_len = 0, i, j;

	for (i = 0; i < rows; i++) {
		for (j = 0; j < 5 && table[i][j]; j++) {
			int n = strlen(table[i][j]);

			if (n > best_len && !strncasecmp(s, table[i][j], n) &&
			    (s[n] == '\0' || s[n] == '-')) {
				best = i;
				best_len = n;
			}
		}
	}
	*len = best_len;
	return best;
}

/* "dTLB-load-misses" → PERF_TYPE_HW_CACHE config; false if not a cache name. */
static bool decode_cache_event(const char *name, __u64 *config)
{
	int type, op = -1, result = -1, len;
	const char *s = name;

	type = match_alias(s, cache_names, PERF_COUNT_HW_CACHE_MAX, &len);
	if (type < 0)
		return false;
	s += len;
	/* Up to two more sections: op and result, in either order. */
	for (int section = 0; section < 2 && *s == '-'; section++) {
		s++;
		if (op < 0) {
			int o = match_alias(s, cache_ops,
					    PERF_COUNT_HW_CACHE_OP_MAX, &len);
			if (o >= 0) {
				if (!(cache_valid_ops[type] & (1 << o)))
					return false;
				op = o;
				s += len;
				continue;
			}
		}
		if (result < 0) {
			int r = match_alias(s, cache_results,
					    PERF_COUNT_HW_CACHE_RESULT_MAX, &len);
			if (r >= 0) {
				result = r;
				s += len;
				continue;
			}
		}
		return false;
	}
	if (*s)
		return false;
	if (op < 0)
		op = PERF_COUNT_HW_CACHE_OP_READ;
	if (result < 0)
		result = PERF_COUNT_HW_CACHE_RESULT_ACCESS;
	*config = type | (op << 8) | ((__u64)result << 16);
	return true;
}

/*
 * Arm PMUv3 common events (Arm ARM, "Common event numbers").  perf resolves
 * these from its JSON tables even when the PMU's sysfs events/ directory
 * does not list them (sysfs only shows what PMCEID advertises).
 */
static const struct { const char *name; __u64 code; } arm_presets[] = {
	{ "l1d_tlb_refill", 0x05 },
	{ "l1d_tlb",	    0x25 },
	{ "l2d_tlb_refill", 0x2D },
	{ "l2d_tlb",	    0x2F },
	{ "dtlb_walk",	    0x34 },
	{ "itlb_walk",	    0x35 },
};

const char *pmu_type_name(__u32 type)
{
	switch (type) {
	case PERF_TYPE_HARDWARE:	return "hardware";
	case PERF_TYPE_SOFTWARE:	return "software";
	case PERF_TYPE_TRACEPOINT:	return "tracepoint";
	case PERF_TYPE_HW_CACHE:	return "hw_cache";
	case PERF_TYPE_RAW:		return "raw";
	case PERF_TYPE_BREAKPOINT:	return "breakpoint";
	default:			return "pmu";
	}
}

/* ------------------------------------------------------------------ */
/* sysfs PMUs                                                          */

static int list_pmus(const char *root, struct dirent ***names)
{
	return scandir(root, names, NULL, alphasort);
}

static void free_names(struct dirent **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

static bool is_arm_core_pmu(const char *name)
{
	return !strncmp(name, "armv8_", 6) || !strncmp(name, "armv9_", 6);
}

static bool is_core_pmu(const char *name)
{
	return is_arm_core_pmu(name) || !strcmp(name, "cpu") ||
	       !strcmp(name, "cpu_core") || !strcmp(name, "cpu_atom");
}

/* Case-insensitive lookup of events/<name> in one PMU; fills @file. */
static int find_alias(const char *root, const char *pmu, const char *name,
		      char *file, size_t filelen)
{
	char dir[1024];
	struct dirent *de;
	DIR *d;
	int ret = -ENOENT;

	snprintf(dir, sizeof(dir), "%s/%s/events", root, pmu);
	d = opendir(dir);
	if (!d)
		return -ENOENT;
	while ((de = readdir(d))) {
		if (!strcasecmp(de->d_name, name)) {
			snprintf(file, filelen, "%s", de->d_name);
			ret = 0;
			break;
		}
	}
	closedir(d);
	return ret;
}

static int pmu_type(const char *root, const char *pmu, __u32 *type,
		    char *err, size_t errlen)
{
	char buf[64];
	unsigned long long v;
	int ret = pmu_file(root, pmu, "type", buf, sizeof(buf));

	if (ret) {
		errbuf_set(err, errlen, "PMU %s: cannot read %s/%s/type: %s", pmu,
		       root, pmu, strerror(-ret));
		return -1;
	}
	if (!parse_u64(buf, &v) || v > 0xffffffffULL) {
		errbuf_set(err, errlen, "PMU %s: malformed type file '%s'", pmu, buf);
		return -1;
	}
	*type = v;
	return 0;
}

static int apply_terms(const char *root, const char *pmu, const char *terms,
		       struct perf_event_attr *attr, int depth,
		       char *err, size_t errlen);

/* One "name[=value]" term inside pmu/.../ or an events/ file. */
static int apply_term(const char *root, const char *pmu, char *term,
		      struct perf_event_attr *attr, int depth,
		      char *err, size_t errlen)
{
	char *eq = strchr(term, '='), fmt[256], file[256];
	unsigned long long v = 1;	/* a bare term means "=1" */
	__u64 *raw;
	int ret;

	if (eq) {
		*eq = '\0';
		if (!parse_u64(eq + 1, &v)) {
			errbuf_set(err, errlen, "PMU %s: bad value '%s' for term '%s'",
			       pmu, eq + 1, term);
			return -1;
		}
	}
	if (!*term) {
		errbuf_set(err, errlen, "PMU %s: empty term", pmu);
		return -1;
	}
	/* Terms perf handles itself rather than through format/. */
	raw = attr_field(attr, term);
	if (raw && eq) {
		*raw = v;
		return 0;
	}
	if (!strcmp(term, "period") && eq) {
		attr->sample_period = v;
		return 0;
	}
	snprintf(file, sizeof(file), "format/%s", term);
	ret = pmu_file(root, pmu, file, fmt, sizeof(fmt));
	if (ret == 0) {
		if (pmu_format_apply(fmt, v, attr, err, errlen)) {
			char inner[PMU_DESC_LEN];

			snprintf(inner, sizeof(inner), "%s", err);
			errbuf_set(err, errlen, "PMU %s: term '%s': %s", pmu, term,
			       inner);
			return -1;
		}
		return 0;
	}
	/* Not a format field: maybe an event alias used as a term. */
	if (!eq && depth == 0 &&
	    find_alias(root, pmu, term, file, sizeof(file)) == 0) {
		char path[300], body[512];

		snprintf(path, sizeof(path), "events/%s", file);
		ret = pmu_file(root, pmu, path, body, sizeof(body));
		if (ret) {
			errbuf_set(err, errlen, "PMU %s: cannot read events/%s: %s",
			       pmu, file, strerror(-ret));
			return -1;
		}
		return apply_terms(root, pmu, body, attr, depth + 1, err,
				   errlen);
	}
	errbuf_set(err, errlen, "PMU %s has no format field or event '%s'", pmu,
	       term);
	return -1;
}

static int apply_terms(const char *root, const char *pmu, const char *terms,
		       struct perf_event_attr *attr, int depth,
		       char *err, size_t errlen)
{
	char buf[512], *tok, *save;

	if (snprintf(buf, sizeof(buf), "%s", terms) >= (int)sizeof(buf)) {
		errbuf_set(err, errlen, "PMU %s: terms too long", pmu);
		return -1;
	}
	if (!*buf) {
		if (depth) {
			errbuf_set(err, errlen, "PMU %s: empty event file", pmu);
			return -1;
		}
		return 0;	/* pmu// : all-zero config, as perf */
	}
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*tok))
			tok++;
		if (apply_term(root, pmu, tok, attr, depth, err, errlen))
			return -1;
	}
	return 0;
}

static void init_attr(struct perf_event_attr *attr, __u32 type, __u64 config)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
}

static void fill_cpus(const char *root, const char *pmu, struct pmu_event *ev)
{
	ev->cpus[0] = '\0';
	if (pmu_file(root, pmu, "cpus", ev->cpus, sizeof(ev->cpus)) &&
	    pmu_file(root, pmu, "cpumask", ev->cpus, sizeof(ev->cpus)))
		ev->cpus[0] = '\0';
}

/* Build one instance for PMU @pmu with @terms (an events/ body or the
 * user's pmu/.../ terms). */
static int pmu_instance(const char *root, const char *pmu, const char *terms,
			int depth, struct pmu_event *ev, char *err,
			size_t errlen)
{
	__u32 type;

	if (pmu_type(root, pmu, &type, err, errlen))
		return -1;
	init_attr(&ev->attr, type, 0);
	if (apply_terms(root, pmu, terms, &ev->attr, depth, err, errlen))
		return -1;
	snprintf(ev->pmu, sizeof(ev->pmu), "%s", pmu);
	fill_cpus(root, pmu, ev);
	return 0;
}

/* ------------------------------------------------------------------ */
/* Tracepoints (perf's sys:name)                                       */

const char *pmu_tracefs_root;

static const char *tracefs(void)
{
	static const char *const roots[] = { "/sys/kernel/tracing",
					     "/sys/kernel/debug/tracing" };
	char path[300];

	if (pmu_tracefs_root)
		return pmu_tracefs_root;
	for (size_t i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/events", roots[i]);
		if (!access(path, R_OK))
			return roots[i];
	}
	return roots[0];
}

/*
 * "sys:name" naming a tracefs event: PERF_TYPE_TRACEPOINT with its id.
 * Returns 1 when resolved, 0 when tracefs has no such event, -1 on error.
 */
static int resolve_tracepoint(const char *sys, const char *name,
			      struct pmu_event *ev, char *err, size_t errlen)
{
	char path[512], buf[64];
	unsigned long long id;
	const char *root = tracefs();
	int ret;

	if (!*sys || !*name || strchr(sys, '/') || strchr(name, '/') ||
	    sys[0] == '.' || name[0] == '.')
		return 0;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, sys, name);
	ret = read_small_file(path, buf, sizeof(buf));
	if (ret == -ENOENT || ret == -ENOTDIR)
		return 0;
	if (ret) {
		errbuf_set(err, errlen, "%s:%s: cannot read %s: %s", sys, name, path,
		       strerror(-ret));
		return -1;
	}
	if (!parse_u64(buf, &id)) {
		errbuf_set(err, errlen, "%s:%s: malformed tracepoint id '%s' in %s",
		       sys, name, buf, path);
		return -1;
	}
	init_attr(&ev->attr, PERF_TYPE_TRACEPOINT, id);
	snprintf(ev->pmu, sizeof(ev->pmu), "tracepoint");
	snprintf(ev->desc, sizeof(ev->desc), "tracepoint %.40s:%.60s id %llu",
		 sys, name, id);
	ev->cpus[0] = '\0';
	return 1;
}

static bool is_modifier_string(const char *s)
{
	return *s && strspn(s, "ukhGHp") == strlen(s);
}

/* ------------------------------------------------------------------ */
/* Modifiers                                                           */

static int apply_modifiers(const char *spec, const char *mods,
			   struct perf_event_attr *attr, char *err,
			   size_t errlen)
{
	bool u = false, k = false, h = false, G = false, H = false;
	int precise = 0;

	for (const char *m = mods; *m; m++) {
		switch (*m) {
		case 'u': u = true; break;
		case 'k': k = true; break;
		case 'h': h = true; break;
		case 'G': G = true; break;
		case 'H': H = true; break;
		case 'p': precise++; break;
		default:
			errbuf_set(err, errlen, "%s: unknown modifier '%c' (supported: u k h G H p)",
			       spec, *m);
			return -1;
		}
	}
	if (precise > 3) {
		errbuf_set(err, errlen, "%s: at most 3 'p' modifiers", spec);
		return -1;
	}
	/* perf: naming any of u/k/h excludes the others. */
	if (u || k || h) {
		attr->exclude_user = !u;
		attr->exclude_kernel = !k;
		attr->exclude_hv = !h;
	}
	if (G || H) {
		attr->exclude_guest = !G;
		attr->exclude_host = !H;
	} else if (u || precise) {
		attr->exclude_guest = 1;	/* perf does this when not in guest mode */
	}
	attr->precise_ip = precise;
	return 0;
}

/* ------------------------------------------------------------------ */

static bool valid_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.';
}

static int resolve_plain(const char *root, const char *name,
			 struct pmu_event *out, int max, char *err,
			 size_t errlen)
{
	struct dirent **pmus = NULL;
	int npmus, n = 0, i;
	bool arm_pmu = false;
	char arm_name[PMU_NAME_LEN] = "";
	/* Generic hardware/raw events land on the core PMU; name it. */
	char core[PMU_NAME_LEN] = "no core PMU";
	__u64 config;

	for (const char *c = name; *c; c++) {
		if (!valid_name_char(*c)) {
			errbuf_set(err, errlen, "%s: bad character '%c' in event name",
			       name, *c);
			return -1;
		}
	}

	/* Which core PMU generic and raw events will land on. */
	npmus = list_pmus(root, &pmus);
	for (i = 0; i < npmus; i++) {
		const char *pmu = pmus[i]->d_name;

		if (is_core_pmu(pmu) && !strcmp(core, "no core PMU"))
			snprintf(core, sizeof(core), "%.63s", pmu);
		if (is_arm_core_pmu(pmu) && !arm_pmu) {
			arm_pmu = true;
			snprintf(arm_name, sizeof(arm_name), "%.63s", pmu);
		}
	}
	if (npmus > 0)
		free_names(pmus, npmus);

	/* Raw: rNNN (hex digits only, as perf's lexer). */
	if (name[0] == 'r' && name[1] && strspn(name + 1, "0123456789abcdefABCDEF") ==
	    strlen(name + 1)) {
		errno = 0;
		config = strtoull(name + 1, NULL, 16);
		if (errno || strlen(name + 1) > 16) {
			errbuf_set(err, errlen, "%s: raw config out of range", name);
			return -1;
		}
		init_attr(&out[0].attr, PERF_TYPE_RAW, config);
		snprintf(out[0].pmu, sizeof(out[0].pmu), "%s", core);
		snprintf(out[0].desc, sizeof(out[0].desc), "raw 0x%llx",
			 (unsigned long long)config);
		out[0].cpus[0] = '\0';
		return 1;
	}

	/* sysfs aliases in every PMU that has one. */
	npmus = list_pmus(root, &pmus);
	for (i = 0; i < npmus; i++) {
		const char *pmu = pmus[i]->d_name;
		char file[256], path[300], body[512];
		int ret;

		if (pmu[0] == '.')
			continue;
		if (find_alias(root, pmu, name, file, sizeof(file)))
			continue;
		if (n == max) {
			errbuf_set(err, errlen, "%s: found in more than %d PMUs", name,
			       max);
			free_names(pmus, npmus);
			return -1;
		}
		snprintf(path, sizeof(path), "events/%s", file);
		ret = pmu_file(root, pmu, path, body, sizeof(body));
		if (ret) {
			errbuf_set(err, errlen, "%s: cannot read %s/%s/%s: %s", name,
			       root, pmu, path, strerror(-ret));
			free_names(pmus, npmus);
			return -1;
		}
		if (pmu_instance(root, pmu, body, 1, &out[n], err, errlen)) {
			char inner[PMU_DESC_LEN * 2];

			snprintf(inner, sizeof(inner), "%s", err);
			errbuf_set(err, errlen, "%s: %s/%s/%s: %s", name, root, pmu,
			       path, inner);
			free_names(pmus, npmus);
			return -1;
		}
		snprintf(out[n].desc, sizeof(out[n].desc), "%.40s/%.40s/ (%.40s)", pmu,
			 file, body);
		n++;
	}
	if (npmus > 0)
		free_names(pmus, npmus);
	if (n)
		return n;

	/* Legacy names. */
	for (i = 0; i < (int)(sizeof(legacy_events) / sizeof(legacy_events[0])); i++) {
		if (!strcasecmp(name, legacy_events[i].name)) {
			init_attr(&out[0].attr, legacy_events[i].type,
				  legacy_events[i].config);
			snprintf(out[0].pmu, sizeof(out[0].pmu), "%s",
				 legacy_events[i].type == PERF_TYPE_HARDWARE ?
				 core : "software");
			snprintf(out[0].desc, sizeof(out[0].desc),
				 "generic %s event %s",
				 pmu_type_name(legacy_events[i].type),
				 legacy_events[i].name);
			out[0].cpus[0] = '\0';
			return 1;
		}
	}
	if (decode_cache_event(name, &config)) {
		init_attr(&out[0].attr, PERF_TYPE_HW_CACHE, config);
		snprintf(out[0].pmu, sizeof(out[0].pmu), "%s", core);
		snprintf(out[0].desc, sizeof(out[0].desc),
			 "generic cache event 0x%llx", (unsigned long long)config);
		out[0].cpus[0] = '\0';
		return 1;
	}

	for (i = 0; i < (int)(sizeof(arm_presets) / sizeof(arm_presets[0])); i++) {
		if (strcasecmp(name, arm_presets[i].name))
			continue;
		if (!arm_pmu) {
			errbuf_set(err, errlen,
			       "%s: Arm PMUv3 event 0x%02llx, but no armv8_*/armv9_* PMU in %s",
			       name, (unsigned long long)arm_presets[i].code,
			       root);
			return -1;
		}
		/* Raw type: the kernel routes it to the core PMU of each CPU. */
		init_attr(&out[0].attr, PERF_TYPE_RAW, arm_presets[i].code);
		snprintf(out[0].pmu, sizeof(out[0].pmu), "%s", arm_name);
		snprintf(out[0].desc, sizeof(out[0].desc),
			 "Arm common event 0x%02llx (not in sysfs; raw)",
			 (unsigned long long)arm_presets[i].code);
		out[0].cpus[0] = '\0';
		return 1;
	}
	errbuf_set(err, errlen,
	       "%s: unknown event (not a sysfs event in %s, a generic event, a raw rNNN or an Arm preset)",
	       name, root);
	return -1;
}

int pmu_event_resolve(const char *sysfs_root, const char *spec,
		      struct pmu_event *out, int max, char *err, size_t errlen)
{
	char buf[256], *mods = NULL, *slash;
	int n, i;

	if (!sysfs_root)
		sysfs_root = PMU_SYSFS_ROOT;
	if (max < 1)
		max = 1;
	if (max > PMU_MAX_INSTANCES)
		max = PMU_MAX_INSTANCES;
	if (!*spec) {
		errbuf_set(err, errlen, "empty event name");
		return -1;
	}
	if (snprintf(buf, sizeof(buf), "%s", spec) >= (int)sizeof(buf) ||
	    strlen(spec) >= PMU_NAME_LEN) {
		errbuf_set(err, errlen, "event '%.32s...' too long", spec);
		return -1;
	}

	slash = strchr(buf, '/');
	if (slash) {
		/* pmu/terms/[:]mods */
		char *close = strchr(slash + 1, '/');
		char pmu[PMU_NAME_LEN];

		if (!close) {
			errbuf_set(err, errlen, "%s: missing closing '/'", spec);
			return -1;
		}
		*slash = '\0';
		*close = '\0';
		if (!*buf) {
			errbuf_set(err, errlen, "%s: empty PMU name", spec);
			return -1;
		}
		snprintf(pmu, sizeof(pmu), "%.63s", buf);
		mods = close + 1;
		if (*mods == ':')
			mods++;
		if (strchr(pmu, '.') || strchr(pmu, ' ')) {
			errbuf_set(err, errlen, "%s: bad PMU name", spec);
			return -1;
		}
		{
			char probe[16];
			int ret = pmu_file(sysfs_root, pmu, "type", probe,
					   sizeof(probe));

			if (ret == -ENOENT) {
				errbuf_set(err, errlen, "%s: no PMU named '%s' in %s",
				       spec, pmu, sysfs_root);
				return -1;
			}
		}
		if (pmu_instance(sysfs_root, pmu, slash + 1, 0, &out[0], err,
				 errlen)) {
			char inner[PMU_DESC_LEN * 2];

			snprintf(inner, sizeof(inner), "%s", err);
			errbuf_set(err, errlen, "%s: %s", spec, inner);
			return -1;
		}
		snprintf(out[0].desc, sizeof(out[0].desc), "%s/%s/", pmu,
			 slash + 1);
		n = 1;
	} else {
		char *colon = strchr(buf, ':');

		if (colon) {
			char *second = strchr(colon + 1, ':');
			int tp;

			*colon = '\0';
			if (second)
				*second = '\0';
			tp = resolve_tracepoint(buf, colon + 1, &out[0], err, errlen);
			if (tp < 0)
				return -1;
			if (tp) {
				mods = second ? second + 1 : NULL;
				n = 1;
				goto named;
			}
			if (second)
				*second = ':';
			if (!is_modifier_string(colon + 1)) {
				errbuf_set(err, errlen,
				       "%s: no tracepoint %s:%s in %s/events and '%s' is not a modifier",
				       spec, buf, colon + 1, tracefs(), colon + 1);
				return -1;
			}
			mods = colon + 1;
		}
		if (!*buf) {
			errbuf_set(err, errlen, "%s: empty event name", spec);
			return -1;
		}
		n = resolve_plain(sysfs_root, buf, out, max, err, errlen);
		if (n < 0) {
			/* resolve_plain names the bare event; keep that. */
			return -1;
		}
	}
named:
	for (i = 0; i < n; i++) {
		if (mods && apply_modifiers(spec, mods, &out[i].attr, err, errlen))
			return -1;
		if (n > 1)
			snprintf(out[i].name, sizeof(out[i].name), "%.30s/%.30s",
				 out[i].pmu, spec);
		else
			snprintf(out[i].name, sizeof(out[i].name), "%s", spec);
	}
	return n;
}

int pmu_event_list_resolve(const char *sysfs_root, const char *list,
			   struct pmu_event **events, int *nr,
			   char *err, size_t errlen)
{
	struct pmu_event *evs = NULL, tmp[PMU_MAX_INSTANCES];
	const char *p = list, *start = list;
	bool in_terms = false;
	int count = 0;

	*events = NULL;
	*nr = 0;
	for (;; p++) {
		if (*p == '/') {
			in_terms = !in_terms;	/* pmu/ opens, / closes */
			continue;
		}
		if (*p && (*p != ',' || in_terms))
			continue;
		{
			char one[256];
			size_t len = p - start;
			int n;

			if (len >= sizeof(one)) {
				errbuf_set(err, errlen, "event '%.32s...' too long", start);
				goto fail;
			}
			memcpy(one, start, len);
			one[len] = '\0';
			if (!len) {
				errbuf_set(err, errlen, "empty event name in list '%s'",
				       list);
				goto fail;
			}
			if (in_terms) {
				errbuf_set(err, errlen, "%s: missing closing '/'", one);
				goto fail;
			}
			n = pmu_event_resolve(sysfs_root, one, tmp,
					      PMU_MAX_INSTANCES, err, errlen);
			if (n < 0)
				goto fail;
			{
				struct pmu_event *grown =
					realloc(evs, (count + n) * sizeof(*evs));

				if (!grown) {
					errbuf_set(err, errlen, "out of memory");
					goto fail;
				}
				evs = grown;
			}
			memcpy(evs + count, tmp, n * sizeof(*evs));
			count += n;
		}
		if (!*p)
			break;
		start = p + 1;
	}
	*events = evs;
	*nr = count;
	return 0;
fail:
	free(evs);
	return -1;
}
