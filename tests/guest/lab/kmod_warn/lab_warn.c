// SPDX-License-Identifier: GPL-2.0
/*
 * lab_warn - raises one real WARN when loaded.  The lab self-test uses it to
 * check that a guest run whose kernel log holds a WARN fails on the host.
 */
#include <linux/bug.h>
#include <linux/module.h>

static int __init lab_warn_init(void)
{
	WARN(1, "lab_warn: deliberate warning for the lab self-test\n");
	return 0;
}

static void __exit lab_warn_exit(void)
{
}

module_init(lab_warn_init);
module_exit(lab_warn_exit);
MODULE_DESCRIPTION("vmapscope lab self-test: raise one WARN");
MODULE_LICENSE("GPL");
