// SPDX-License-Identifier: GPL-2.0
/*
 * Option values as the tools parse them.  The first input byte picks a
 * parser, the rest is the value (as argv would hold it, up to a NUL):
 *
 *   the shared value parsers: parse_ulong (counts, sizes, --pid,
 *   --max-callers), api_parse_mask (--api), cli_parse_interval (the
 *   interval, vmaptop -d; where the tree has user/cli.c),
 *   top_col_parse (vmaptop -s), pmu_cpulist_check (-C), prom_listen_parse (--listen),
 *   prom_textfile_check (--textfile);
 *
 *   a whole command line (selector 8): the rest split at NULs into argv,
 *   parsed by argp with vmapstat's four argp children (select_argp, the
 *   selection both tools share, pmu_argp, prom_argp, snapshot_argp), end
 *   checks included;
 *
 *   every option with a value of those children, through the child's own
 *   parser (selectors from 9 on, in the order of their option tables).
 *
 * argp runs with ARGP_NO_EXIT | ARGP_NO_ERRS: a rejected value returns
 * instead of exiting.  The tools' own parse_arg() (vmapstat.c, vmaptop.c)
 * is static; its values go through the same shared parsers as here.
 */
#include <argp.h>
#include <limits.h>

#include "fuzz.h"
#include "vmapstat_groups.h"
#include "parse.h"
#include "pmu_count.h"
#include "prom_http.h"
#include "prom_textfile.h"
#include "select_opts.h"
#include "top_model.h"
#include "vocab.h"

#ifdef FUZZ_HAVE_CLI		/* mk/fuzz.mk: the tree has user/cli.c */
#include "cli.h"
#endif

struct child_opt {
	const struct argp *argp;
	int key;
};

static struct child_opt child_opts[64];
static int nr_child_opts;

static void add_children(const struct argp *a)
{
	for (const struct argp_option *o = a->options; o && (o->name || o->key); o++)
		if (o->arg && nr_child_opts < 64)
			child_opts[nr_child_opts++] = (struct child_opt){ a, o->key };
}

/* vmapstat's argp children, as its main() lists them; set by LLVMFuzzerInitialize() */
static struct argp_child children[5];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const struct argp *const all[] = {
		&select_argp, pmu_group.argp, prom_group.argp, snapshot_group.argp,
	};

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		add_children(all[i]);
		children[i] = (struct argp_child){ all[i], 0, NULL, 0 };
	}
	return 0;
}

enum {
	SEL_ULONG, SEL_ULONG_INT, SEL_API, SEL_INTERVAL, SEL_TOPCOL, SEL_CPUS, SEL_LISTEN,
	SEL_TEXTFILE, SEL_ARGV, SEL_NR_FIXED,
};

static void whole_command_line(char *s, size_t len)
{
	static const struct argp root = { .children = children };
	char *argv[33];
	int argc = 0;

	argv[argc++] = "vmapstat";
	for (size_t off = 0; off < len && argc < 32; off += strlen(s + off) + 1)
		argv[argc++] = s + off;
	argv[argc] = NULL;
	argp_parse(&root, argc, argv, ARGP_NO_EXIT | ARGP_NO_ERRS | ARGP_NO_HELP, NULL, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct argp_state st = { .flags = ARGP_NO_EXIT | ARGP_NO_ERRS, .name = "vmapstat" };
	struct prom_listen listen;
	unsigned long ul;
	unsigned int mask;
	char err[512], *s;
	int sel;
	double d;

	if (!size)
		return 0;
	sel = data[0] % (SEL_NR_FIXED + nr_child_opts);
	s = fuzz_str(data + 1, size - 1);
	switch (sel) {
	case SEL_ULONG:
		parse_ulong(s, ULONG_MAX, &ul);
		break;
	case SEL_ULONG_INT:
		parse_ulong(s, INT_MAX, &ul);
		break;
	case SEL_API:
		api_parse_mask(s, &mask);
		break;
	case SEL_INTERVAL:
#ifdef FUZZ_HAVE_CLI
		cli_parse_interval(s, 86400, &d);
		cli_parse_interval(s, 3600, &d);
#endif
		break;
	case SEL_TOPCOL:
		top_col_parse(s);
		break;
	case SEL_CPUS:
		pmu_cpulist_check(s, NULL, err, sizeof(err));
		break;
	case SEL_LISTEN:
		prom_listen_parse(s, &listen, err, sizeof(err));
		break;
	case SEL_TEXTFILE:
		prom_textfile_check(s, err, sizeof(err));
		break;
	case SEL_ARGV:
		whole_command_line(s, size - 1);
		break;
	default: {
		const struct child_opt *c = &child_opts[sel - SEL_NR_FIXED];

		st.root_argp = c->argp;
		c->argp->parser(c->key, s, &st);
	}
	}
	free(s);
	return 0;
}
