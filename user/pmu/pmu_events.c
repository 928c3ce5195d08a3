// SPDX-License-Identifier: GPL-2.0
/*
 * Event name resolution.  perf's own order (tools/perf/util/parse-events.c):
 * a PMU's sysfs alias wins, then the generic and CPU-specific names, which
 * libpfm4 knows (its "perf" tables spell perf's legacy hardware, software
 * and cache names; its Intel, AMD and Arm tables the CPU's own events).
 * Only the sysfs side (format/ fields, events/ aliases, tracefs ids) and
 * perf's modifiers are parsed here: libpfm4 does not read sysfs.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "errbuf.h"
#include "pmu_events.h"
/* after <linux/perf_event.h>, whose definitions libpfm4 then reuses */
#include <perfmon/pfmlib_perf_event.h>

int read_small_file(const char *path, char *buf, size_t len)
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

static void init_attr(struct perf_event_attr *attr, __u32 type, __u64 config)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
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

/* ------------------------------------------------------------------ */
/* sysfs PMUs: format/ fields and events/ aliases                      */

int pmu_format_apply(const char *format, unsigned long long value,
		     struct perf_event_attr *attr, char *err, size_t errlen)
{
	char buf[256], *colon, *tok, *save;
	int nbits = 0;
	__u64 *field, bits;

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
	/* The target bit positions, low to high as listed, take the value's bits. */
	bits = *field;
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
		for (; lo <= hi; lo++, nbits++) {
			if (nbits == 64) {
				errbuf_set(err, errlen, "format '%s' has over 64 bits",
					   format);
				return -1;
			}
			bits &= ~(1ULL << lo);
			bits |= (__u64)(value >> nbits & 1) << lo;
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
	*field = bits;
	return 0;
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
	if (!pmu_file(root, pmu, file, fmt, sizeof(fmt))) {
		if (pmu_format_apply(fmt, v, attr, err, errlen)) {
			errbuf_set(err, errlen, "PMU %s: term '%s': %s", pmu, term, err);
			return -1;
		}
		return 0;
	}
	/* Not a format field: maybe an event alias used as a term. */
	if (!eq && depth == 0 &&
	    !find_alias(root, pmu, term, file, sizeof(file))) {
		char path[300], body[512];
		int ret;

		snprintf(path, sizeof(path), "events/%s", file);
		ret = pmu_file(root, pmu, path, body, sizeof(body));
		if (ret) {
			errbuf_set(err, errlen, "PMU %s: cannot read events/%s: %s",
				   pmu, file, strerror(-ret));
			return -1;
		}
		return apply_terms(root, pmu, body, attr, depth + 1, err, errlen);
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

/* One instance on PMU @pmu from @terms (an events/ body or pmu/.../). */
static int pmu_instance(const char *root, const char *pmu, const char *terms,
			int depth, struct pmu_event *ev, char *err,
			size_t errlen)
{
	char buf[64];
	unsigned long long type;
	int ret = pmu_file(root, pmu, "type", buf, sizeof(buf));

	if (ret) {
		errbuf_set(err, errlen, "PMU %s: cannot read %s/%s/type: %s", pmu,
			   root, pmu, strerror(-ret));
		return -1;
	}
	if (!parse_u64(buf, &type) || type > 0xffffffffULL) {
		errbuf_set(err, errlen, "PMU %s: malformed type file '%s'", pmu,
			   buf);
		return -1;
	}
	init_attr(&ev->attr, type, 0);
	if (apply_terms(root, pmu, terms, &ev->attr, depth, err, errlen))
		return -1;
	snprintf(ev->pmu, sizeof(ev->pmu), "%s", pmu);
	if (pmu_file(root, pmu, "cpus", ev->cpus, sizeof(ev->cpus)) &&
	    pmu_file(root, pmu, "cpumask", ev->cpus, sizeof(ev->cpus)))
		ev->cpus[0] = '\0';
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
		errbuf_set(err, errlen, "%s:%s: cannot read %s: %s", sys, name,
			   path, strerror(-ret));
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

/* ------------------------------------------------------------------ */
/* perf's modifiers: :u :k :h :G :H :p                                 */

static bool is_modifier_string(const char *s)
{
	return *s && strspn(s, "ukhGHp") == strlen(s);
}

static int apply_modifiers(const char *spec, const char *mods,
			   struct perf_event_attr *attr, char *err,
			   size_t errlen)
{
	bool u = strchr(mods, 'u'), k = strchr(mods, 'k'), h = strchr(mods, 'h');
	bool G = strchr(mods, 'G'), H = strchr(mods, 'H');
	int precise = 0;

	for (const char *m = mods; *m; m++) {
		if (!strchr("ukhGHp", *m)) {
			errbuf_set(err, errlen,
				   "%s: unknown modifier '%c' (supported: u k h G H p)",
				   spec, *m);
			return -1;
		}
		precise += *m == 'p';
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
/* Names that are not sysfs aliases                                    */

/*
 * perf's generic names first (libpfm4's "perf" PMU, so that no CPU table can
 * take "cycles" from them), then the CPU's own events, e.g.
 * dtlb_load_misses.walk_completed or inst_retired.  The exclude bits stay
 * perf's (apply_modifiers): only the event's encoding is taken.
 * Returns 1, 0 when libpfm4 does not know @name, -1 on error.
 */
static int resolve_libpfm(const char *name, const char *core,
			  struct pmu_event *ev, char *err, size_t errlen)
{
	static int init_ret = -1;
	char qualified[PMU_NAME_LEN + 8], *fstr = NULL, *attrs;
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	int ret;

	if (init_ret == -1)
		init_ret = pfm_initialize();
	if (init_ret != PFM_SUCCESS)
		return 0;
	snprintf(qualified, sizeof(qualified), "perf::%s", name);
	for (int i = 0; i < 2; i++) {
		memset(&attr, 0, sizeof(attr));
		memset(&arg, 0, sizeof(arg));
		arg.size = sizeof(arg);
		arg.attr = &attr;
		arg.fstr = &fstr;
		ret = pfm_get_os_event_encoding(i ? name : qualified,
						PFM_PLM0 | PFM_PLM3,
						PFM_OS_PERF_EVENT, &arg);
		if (ret != PFM_ERR_NOTFOUND)
			break;
	}
	if (ret == PFM_SUCCESS && !strncmp(fstr, "perf_raw::", 10))
		ret = PFM_ERR_NOTFOUND;	/* raw is perf's rNNN only */
	if (ret == PFM_ERR_NOTFOUND) {
		free(fstr);
		return 0;
	}
	if (ret != PFM_SUCCESS) {
		errbuf_set(err, errlen, "%s: libpfm4: %s", name, pfm_strerror(ret));
		return -1;
	}
	init_attr(&ev->attr, attr.type, attr.config);
	ev->attr.config1 = attr.config1;
	ev->attr.config2 = attr.config2;
	snprintf(ev->pmu, sizeof(ev->pmu), "%s",
		 attr.type == PERF_TYPE_SOFTWARE ? "software" : core);
	/* "skl::DTLB_LOAD_MISSES:WALK_COMPLETED:e=0:...": name, no settings */
	attrs = strchr(fstr, '=');
	if (attrs) {
		*attrs = '\0';
		attrs = strrchr(fstr, ':');
		if (attrs)
			*attrs = '\0';
	}
	snprintf(ev->desc, sizeof(ev->desc), "libpfm4 %s", fstr);
	free(fstr);
	ev->cpus[0] = '\0';
	return 1;
}

/*
 * The Arm common events of the TLB studies this tool serves, for Arm CPUs
 * libpfm4 has no table for: QEMU's "-cpu max" (MIDR implementer 0) hides
 * them in sysfs too.  Their numbers are architected (Arm ARM, "Common event
 * numbers"), the same on every PMUv3.
 */
static const struct { const char *name; __u64 code; } arm_common[] = {
	{ "l1d_tlb_refill", 0x05 },
	{ "l1d_tlb",	    0x25 },
	{ "l2d_tlb_refill", 0x2D },
	{ "dtlb_walk",	    0x34 },
};

static int resolve_arm_common(const char *root, const char *name,
			      const char *arm_core, struct pmu_event *ev,
			      char *err, size_t errlen)
{
	for (size_t i = 0; i < sizeof(arm_common) / sizeof(arm_common[0]); i++) {
		if (strcasecmp(name, arm_common[i].name))
			continue;
		if (!*arm_core) {
			errbuf_set(err, errlen,
				   "%s: Arm PMUv3 event 0x%02llx, but no armv8_*/armv9_* PMU in %s",
				   name, (unsigned long long)arm_common[i].code,
				   root);
			return -1;
		}
		/* Raw type: the kernel routes it to the core PMU of each CPU. */
		init_attr(&ev->attr, PERF_TYPE_RAW, arm_common[i].code);
		snprintf(ev->pmu, sizeof(ev->pmu), "%s", arm_core);
		snprintf(ev->desc, sizeof(ev->desc),
			 "Arm common event 0x%02llx (not in sysfs; raw)",
			 (unsigned long long)arm_common[i].code);
		ev->cpus[0] = '\0';
		return 1;
	}
	return 0;
}

/* rNNN: raw hex config on the core PMU, hex digits only as perf's lexer. */
static int resolve_raw(const char *name, const char *core,
		       struct pmu_event *ev, char *err, size_t errlen)
{
	unsigned long long config;

	if (name[0] != 'r' || !name[1] ||
	    strspn(name + 1, "0123456789abcdefABCDEF") != strlen(name + 1))
		return 0;
	if (strlen(name + 1) > 16) {
		errbuf_set(err, errlen, "%s: raw config out of range", name);
		return -1;
	}
	config = strtoull(name + 1, NULL, 16);
	init_attr(&ev->attr, PERF_TYPE_RAW, config);
	snprintf(ev->pmu, sizeof(ev->pmu), "%s", core);
	snprintf(ev->desc, sizeof(ev->desc), "raw 0x%llx", config);
	ev->cpus[0] = '\0';
	return 1;
}

/* A name without '/' or ':' (modifiers already split off). */
static int resolve_named(const char *root, const char *name,
			 struct pmu_event *out, int max, char *err,
			 size_t errlen)
{
	/* Generic hardware and raw events land on the core PMU: name it. */
	char core[PMU_NAME_LEN] = "no core PMU", arm_core[PMU_NAME_LEN] = "";
	struct dirent **pmus = NULL;
	int npmus, n = 0, i, ret;

	for (const char *c = name; *c; c++) {
		if (!isalnum((unsigned char)*c) && !strchr("_-.", *c)) {
			errbuf_set(err, errlen, "%s: bad character '%c' in event name",
				   name, *c);
			return -1;
		}
	}
	npmus = scandir(root, &pmus, NULL, alphasort);
	for (i = 0; i < npmus; i++) {
		const char *pmu = pmus[i]->d_name;

		if (is_core_pmu(pmu) && !strcmp(core, "no core PMU"))
			snprintf(core, sizeof(core), "%.63s", pmu);
		if (is_arm_core_pmu(pmu) && !*arm_core)
			snprintf(arm_core, sizeof(arm_core), "%.63s", pmu);
	}
	ret = resolve_raw(name, core, &out[0], err, errlen);
	/* sysfs aliases in every PMU that has one (big.LITTLE: each core PMU). */
	for (i = 0; !ret && i < npmus; i++) {
		const char *pmu = pmus[i]->d_name;
		char file[256], path[300], body[512];
		int rc;

		if (pmu[0] == '.' || find_alias(root, pmu, name, file, sizeof(file)))
			continue;
		if (n == max) {
			errbuf_set(err, errlen, "%s: found in more than %d PMUs",
				   name, max);
			ret = -1;
			break;
		}
		snprintf(path, sizeof(path), "events/%s", file);
		rc = pmu_file(root, pmu, path, body, sizeof(body));
		if (rc) {
			errbuf_set(err, errlen, "%s: cannot read %s/%s/%s: %s", name,
				   root, pmu, path, strerror(-rc));
			ret = -1;
			break;
		}
		if (pmu_instance(root, pmu, body, 1, &out[n], err, errlen)) {
			errbuf_set(err, errlen, "%s: %s/%s/%s: %s", name, root, pmu,
				   path, err);
			ret = -1;
			break;
		}
		snprintf(out[n].desc, sizeof(out[n].desc), "%.40s/%.40s/ (%.40s)",
			 pmu, file, body);
		n++;
	}
	for (i = 0; i < npmus; i++)
		free(pmus[i]);
	free(pmus);
	if (ret)
		return ret;
	if (n)
		return n;
	ret = resolve_libpfm(name, core, &out[0], err, errlen);
	if (!ret)
		ret = resolve_arm_common(root, name, arm_core, &out[0], err, errlen);
	if (!ret) {
		errbuf_set(err, errlen,
			   "%s: unknown event (not a sysfs event in %s, a raw rNNN, or an event libpfm4 knows on this CPU)",
			   name, root);
		ret = -1;
	}
	return ret;
}

int pmu_event_resolve(const char *sysfs_root, const char *spec,
		      struct pmu_event *out, int max, char *err, size_t errlen)
{
	char buf[PMU_NAME_LEN], *mods = NULL, *slash, *colon;
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
	if (snprintf(buf, sizeof(buf), "%s", spec) >= (int)sizeof(buf)) {
		errbuf_set(err, errlen, "event '%.32s...' too long", spec);
		return -1;
	}

	slash = strchr(buf, '/');
	if (slash) {
		/* pmu/terms/[:]mods */
		char *close = strchr(slash + 1, '/'), probe[16];

		if (!close) {
			errbuf_set(err, errlen, "%s: missing closing '/'", spec);
			return -1;
		}
		*slash = '\0';
		*close = '\0';
		mods = close + 1 + (close[1] == ':');
		if (!*buf || strchr(buf, '.') || strchr(buf, ' ')) {
			errbuf_set(err, errlen, "%s: bad PMU name", spec);
			return -1;
		}
		if (pmu_file(sysfs_root, buf, "type", probe, sizeof(probe)) ==
		    -ENOENT) {
			errbuf_set(err, errlen, "%s: no PMU named '%s' in %s", spec,
				   buf, sysfs_root);
			return -1;
		}
		if (pmu_instance(sysfs_root, buf, slash + 1, 0, &out[0], err,
				 errlen)) {
			errbuf_set(err, errlen, "%s: %s", spec, err);
			return -1;
		}
		snprintf(out[0].desc, sizeof(out[0].desc), "%s/%s/", buf,
			 slash + 1);
		n = 1;
	} else {
		colon = strchr(buf, ':');
		n = 0;
		if (colon) {
			/* sys:name[:mods] when tracefs has it, else name:mods */
			char *second = strchr(colon + 1, ':');

			*colon = '\0';
			if (second)
				*second = '\0';
			n = resolve_tracepoint(buf, colon + 1, &out[0], err, errlen);
			if (n < 0)
				return -1;
			if (n) {
				mods = second ? second + 1 : NULL;
			} else {
				if (second)
					*second = ':';
				mods = colon + 1;
				if (!is_modifier_string(mods)) {
					errbuf_set(err, errlen,
						   "%s: no tracepoint %s:%s in %s/events and '%s' is not a modifier",
						   spec, buf, mods, tracefs(), mods);
					return -1;
				}
			}
		}
		if (!n) {
			if (!*buf) {
				errbuf_set(err, errlen, "%s: empty event name", spec);
				return -1;
			}
			n = resolve_named(sysfs_root, buf, out, max, err, errlen);
			if (n < 0)
				return -1;
		}
	}
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
	struct pmu_event *evs = NULL, tmp[PMU_MAX_INSTANCES], *grown;
	const char *p, *start = list;
	bool in_terms = false;
	int count = 0, n;

	*events = NULL;
	*nr = 0;
	for (p = list;; p++) {
		char one[256];
		size_t len = p - start;

		if (*p == '/')
			in_terms = !in_terms;	/* pmu/ opens, / closes */
		if (*p && (*p != ',' || in_terms))
			continue;
		if (len >= sizeof(one)) {
			errbuf_set(err, errlen, "event '%.32s...' too long", start);
			goto fail;
		}
		memcpy(one, start, len);
		one[len] = '\0';
		if (!len) {
			errbuf_set(err, errlen, "empty event name in list '%s'", list);
			goto fail;
		}
		if (in_terms) {
			errbuf_set(err, errlen, "%s: missing closing '/'", one);
			goto fail;
		}
		n = pmu_event_resolve(sysfs_root, one, tmp, PMU_MAX_INSTANCES,
				      err, errlen);
		if (n < 0)
			goto fail;
		grown = realloc(evs, (count + n) * sizeof(*evs));
		if (!grown) {
			errbuf_set(err, errlen, "out of memory");
			goto fail;
		}
		evs = grown;
		memcpy(evs + count, tmp, n * sizeof(*evs));
		count += n;
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
