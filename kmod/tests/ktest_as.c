/*
 * Runs a command as another user, as setpriv --reuid --regid --groups would
 * (busybox's setpriv cannot change ids).
 * Usage: ktest_as UID GID[,GROUP...] COMMAND [ARG...]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ktest.h"

int main(int argc, char **argv)
{
	gid_t groups[16];
	int ngroups = 0, err;
	char *list, *tok;
	gid_t gid;

	if (argc < 4) {
		fprintf(stderr, "usage: ktest_as UID GID[,GROUP...] COMMAND [ARG...]\n");
		return 2;
	}
	list = argv[2];
	gid = (gid_t)strtoul(strsep(&list, ","), NULL, 10);
	while ((tok = strsep(&list, ",")) && ngroups < 16)
		groups[ngroups++] = (gid_t)strtoul(tok, NULL, 10);
	err = ktest_become((uid_t)strtoul(argv[1], NULL, 10), gid, ngroups, groups);
	if (err) {
		fprintf(stderr, "ktest_as: %s\n", strerror(-err));
		return 2;
	}
	execvp(argv[3], argv + 3);
	perror("ktest_as: exec");
	return 127;
}
