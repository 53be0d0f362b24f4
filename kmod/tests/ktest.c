/* Helpers shared by the guest test programs. */
#define _GNU_SOURCE
#include "ktest.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

void ktest_report(const char *name, int ok, const char *fmt, ...)
{
	char detail[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	printf("KTEST %s %s: %s\n", ok ? "PASS" : "FAIL", name, detail);
	fflush(stdout);
}

struct cmdev_event ktest_sw(unsigned long long config)
{
	struct cmdev_event ev = {
		.type = PERF_TYPE_SOFTWARE,
		.flags = CMDEV_EV_EXCLUDE_KERNEL | CMDEV_EV_EXCLUDE_HV,
		.config = config,
	};
	return ev;
}

static int ioctl_errno(int fd, unsigned long cmd, void *arg)
{
	return ioctl(fd, cmd, arg) < 0 ? -errno : 0;
}

int ktest_configure(int fd, const struct cmdev_event *events, unsigned n, unsigned slots)
{
	struct cmdev_config c = {
		.size = sizeof(c),
		.n_events = n,
		.slots = slots,
		.event_size = sizeof(*events),
		.events = (unsigned long)events,
	};
	return ioctl_errno(fd, CMDEV_IOC_CONFIGURE, &c);
}

int ktest_attach(int fd, pid_t pid, unsigned flags)
{
	struct cmdev_attach a = { .size = sizeof(a), .flags = flags, .pid = pid };

	return ioctl_errno(fd, CMDEV_IOC_ATTACH, &a);
}

int ktest_sample(int fd, struct cmdev_sample *s)
{
	s->size = sizeof(*s);
	return ioctl_errno(fd, CMDEV_IOC_SAMPLE, s);
}

int ktest_session(const struct cmdev_event *events, unsigned n, unsigned slots, pid_t pid,
		  unsigned flags)
{
	int fd = open(KTEST_DEVICE, O_RDWR | O_CLOEXEC);
	int err;

	if (fd < 0)
		return -errno;
	err = ktest_configure(fd, events, n, slots);
	if (!err)
		err = ktest_attach(fd, pid, flags);
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

char *ktest_fresh_pages(unsigned pages)
{
	char *mem = mmap(NULL, (size_t)pages * KTEST_PAGE, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		return NULL;
	madvise(mem, (size_t)pages * KTEST_PAGE, MADV_NOHUGEPAGE);
	return mem;
}

void ktest_touch(char *mem, unsigned pages)
{
	for (unsigned i = 0; i < pages; i++)
		((volatile char *)mem)[(size_t)i * KTEST_PAGE] = 1;
}

unsigned long long ktest_thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int ktest_become(uid_t uid, gid_t gid, int ngroups, const gid_t *groups)
{
	if (setgroups(ngroups, groups) || setresgid(gid, gid, gid) || setresuid(uid, uid, uid))
		return -errno;
	/*
	 * Changing ids made the process non-dumpable, which a process exec'd as
	 * this user (a login shell) is not; without this its own children
	 * could not be counted.
	 */
	return prctl(PR_SET_DUMPABLE, 1) ? -errno : 0;
}
