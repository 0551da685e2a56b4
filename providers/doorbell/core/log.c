// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/* doorbell is silent unless DOORBELL_DEBUG is set, or it refuses to load. */
#include <stdarg.h>
#include <stdio.h>

#include "core/doorbell.h"

/* printf-like, so that -Wformat-nonliteral checks the callers' formats. */
static void db_vline(const char *fmt, va_list ap)
	__attribute__((format(printf, 1, 0)));

static void db_vline(const char *fmt, va_list ap)
{
	char line[512];

	vsnprintf(line, sizeof(line), fmt, ap);
	/* One write per line, so lines of concurrent threads do not mix. */
	fprintf(stderr, DB_NAME ": %s\n", line);
}

void db_debug(const char *fmt, ...)
{
	va_list ap;

	if (!db_config()->debug)
		return;
	va_start(ap, fmt);
	db_vline(fmt, ap);
	va_end(ap);
}

void db_refuse(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	db_vline(fmt, ap);
	va_end(ap);
}
