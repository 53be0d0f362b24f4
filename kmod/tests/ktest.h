/* Helpers shared by the guest test programs: result lines and cmdev calls. */
#ifndef KTEST_H
#define KTEST_H

#include <linux/perf_event.h>
#include <sys/types.h>

#include "uapi/cmdev.h"

#define KTEST_DEVICE "/dev/cmdev"
#define KTEST_PAGE 4096

/*
 * Prints "KTEST PASS name: detail" or "KTEST FAIL name: detail" on the
 * console; scripts/kmod-test counts these lines.
 */
void ktest_report(const char *name, int ok, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A user-space-only software event (allowed without CAP_PERFMON). */
struct cmdev_event ktest_sw(unsigned long long config);

/* Each returns 0 or -errno. */
int ktest_configure(int fd, const struct cmdev_event *events, unsigned n, unsigned slots);
int ktest_attach(int fd, pid_t pid, unsigned flags);
int ktest_sample(int fd, struct cmdev_sample *s);

/* open + configure + attach; returns the fd or -errno. */
int ktest_session(const struct cmdev_event *events, unsigned n, unsigned slots, pid_t pid,
		  unsigned flags);

/* Fresh anonymous memory that faults once per 4 KiB page (no THP). */
char *ktest_fresh_pages(unsigned pages);

/* Writes one byte to each page; its code and stack are warm after one call. */
void ktest_touch(char *mem, unsigned pages);

/* Thread CPU time in ns. */
unsigned long long ktest_thread_ns(void);

/*
 * Drops root for good: supplementary groups, then gid, then uid (real,
 * effective and saved), and stays dumpable. Returns 0 or -errno.
 */
int ktest_become(uid_t uid, gid_t gid, int ngroups, const gid_t *groups);

#endif
