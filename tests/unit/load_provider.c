// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * load_provider PROVIDER: what libibverbs does to a provider, without a
 * device: load libibverbs.so.1 (local scope, as Python's ctypes would) and
 * then dlopen PROVIDER, whose constructor decides whether to register.
 * Prints "loaded" or "dlopen failed: <why>" on stdout; the provider's own
 * lines go to stderr.  Exit 0 if PROVIDER loaded, 1 if not.
 * tests/unit/provider-load.sh runs it against renamed libibverbs copies.
 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *lib, *prov;

	if (argc != 2) {
		fprintf(stderr, "usage: load_provider PROVIDER.so\n");
		return 2;
	}
	lib = dlopen("libibverbs.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		printf("dlopen failed: %s\n", dlerror());
		return 1;
	}
	prov = dlopen(argv[1], RTLD_NOW);
	if (!prov) {
		printf("dlopen failed: %s\n", dlerror());
		return 1;
	}
	printf("loaded\n");
	return 0;
}
