/*
 * Functional tests of /dev/cmdev, run as root inside the test VM.
 * Usage: cmdev_tests /path/to/cmdev.ko   (the module must be loaded)
 * Each test prints one KTEST PASS/FAIL line with the values it compared.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktest.h"

#define FAULT_PAGES 256

static const char *errname(int err)
{
	return err < 0 ? strerror(-err) : "ok";
}

static void test_version(void)
{
	struct cmdev_version v = { .size = sizeof(v) };
	struct cmdev_version tiny = { .size = 4 };
	int fd = open(KTEST_DEVICE, O_RDWR);
	int r1 = ioctl(fd, CMDEV_IOC_VERSION, &v);
	int r2 = ioctl(fd, CMDEV_IOC_VERSION, &tiny);
	int e2 = errno;

	close(fd);
	ktest_report("version", r1 == 0 && v.abi_version == CMDEV_ABI_VERSION &&
			 v.max_events == CMDEV_MAX_EVENTS && r2 < 0 && e2 == EINVAL,
		     "abi %u max_events %u, size 4 -> %s", v.abi_version, v.max_events,
		     strerror(e2));
}

/* P fresh pages touched between two samples give exactly P user page faults. */
static void test_page_faults_exact(void)
{
	struct cmdev_event ev = ktest_sw(PERF_COUNT_SW_PAGE_FAULTS);
	char *warm = ktest_fresh_pages(1), *mem = ktest_fresh_pages(FAULT_PAGES);
	struct cmdev_sample s0, s1;
	int fd, r;

	ktest_touch(warm, 1);
	fd = ktest_session(&ev, 1, 1, 0, 0);
	r = fd < 0 ? fd : ktest_sample(fd, &s0);
	ktest_touch(mem, FAULT_PAGES);
	if (!r)
		r = ktest_sample(fd, &s1);
	ktest_report("page_faults_exact", !r && s1.live_mask == 1 && s1.delta[0] == FAULT_PAGES,
		     "%u pages -> %llu faults (%s)", FAULT_PAGES,
		     r ? 0ull : (unsigned long long)s1.delta[0], errname(r));
	if (fd >= 0)
		close(fd);
}

/* Spins until the thread's CPU clock reaches end_ns (at once if it has). */
static void spin_until_ns(unsigned long long end_ns)
{
	while (ktest_thread_ns() < end_ns)
		;
}

static void spin_cpu_ns(unsigned long long ns)
{
	spin_until_ns(ktest_thread_ns() + ns);
}

static double rel_err(double est, double truth)
{
	return truth == 0 ? (est == 0 ? 0 : 1) : (est - truth) / truth;
}

/* task-clock, its enabled time and task_ns all equal the thread's CPU clock within 1 %. */
static void test_task_clock(void)
{
	struct cmdev_event ev = ktest_sw(PERF_COUNT_SW_TASK_CLOCK);
	unsigned long long t0, t1;
	struct cmdev_sample s;
	double e_count = 1, e_enabled = 1, e_task = 1;
	int fd, r;

	fd = ktest_session(&ev, 1, 1, 0, 0);
	r = fd < 0 ? fd : ktest_sample(fd, &s);
	t0 = ktest_thread_ns();
	spin_cpu_ns(1000000000ull);	/* long enough that the two ioctls around it are noise */
	t1 = ktest_thread_ns();
	if (!r)
		r = ktest_sample(fd, &s);
	if (!r) {
		e_count = rel_err(s.delta[0], t1 - t0);
		e_enabled = rel_err(s.enabled[0], t1 - t0);
		e_task = rel_err(s.task_ns, t1 - t0);
	}
	ktest_report("task_clock_1pct",
		     !r && fabs(e_count) < 0.01 && fabs(e_enabled) < 0.01 && fabs(e_task) < 0.01,
		     "thread clock %llu ns, task-clock %+.3f%%, enabled %+.3f%%, task_ns %+.3f%% (%s)",
		     t1 - t0, 100 * e_count, 100 * e_enabled, 100 * e_task, errname(r));
	if (fd >= 0)
		close(fd);
}

/*
 * Six events on two slots over uniform rounds; the coverage estimate
 * count x total_time / live_time of each event (time: task_ns, as the
 * backend uses it) is compared with the truth from getrusage(), the thread
 * clock and the pages touched. Every round ends when the thread has used
 * ROUND_NS of CPU since the round began, so host noise in the emulated
 * machine cannot give one live set more time than another.
 */
static void test_multiplex(void)
{
	enum { ROUNDS = 600, PAGES_PER_ROUND = 4, N = 6, K = 2 };
	const unsigned long long ROUND_NS = 4000000;
	struct cmdev_event ev[N] = {
		ktest_sw(PERF_COUNT_SW_TASK_CLOCK),  ktest_sw(PERF_COUNT_SW_CPU_CLOCK),
		ktest_sw(PERF_COUNT_SW_PAGE_FAULTS), ktest_sw(PERF_COUNT_SW_PAGE_FAULTS_MIN),
		ktest_sw(PERF_COUNT_SW_CONTEXT_SWITCHES), ktest_sw(PERF_COUNT_SW_PAGE_FAULTS),
	};
	static const char *const names[N] = { "task-clock", "cpu-clock", "page-faults",
					      "minor-faults", "context-switches", "page-faults:u" };
	double count[N] = { 0 }, live_ns[N] = { 0 }, total_ns = 0, truth[N], worst = 0;
	char *mem = ktest_fresh_pages(ROUNDS * PAGES_PER_ROUND);
	unsigned long long t0, t1;
	struct rusage ru0, ru1;
	struct cmdev_sample s;
	char detail[400];
	size_t used = 0;
	int fd, r, e;

	ev[0].flags = ev[1].flags = ev[2].flags = ev[3].flags = ev[4].flags = 0;
	fd = ktest_session(ev, N, K, 0, 0);
	r = fd < 0 ? fd : ktest_sample(fd, &s);
	getrusage(RUSAGE_THREAD, &ru0);
	t0 = ktest_thread_ns();
	for (int round = 0; round < ROUNDS && !r; round++) {
		unsigned long long round_start = ktest_thread_ns();

		ktest_touch(mem + (size_t)round * PAGES_PER_ROUND * KTEST_PAGE, PAGES_PER_ROUND);
		usleep(100);
		spin_until_ns(round_start + ROUND_NS);
		r = ktest_sample(fd, &s);
		total_ns += s.task_ns;
		for (e = 0; e < N; e++) {
			if (!(s.live_mask & (1u << e)))
				continue;
			count[e] += s.delta[e];
			live_ns[e] += s.task_ns;
		}
	}
	t1 = ktest_thread_ns();
	getrusage(RUSAGE_THREAD, &ru1);
	truth[0] = truth[1] = t1 - t0;
	truth[2] = truth[3] = (ru1.ru_minflt - ru0.ru_minflt) + (ru1.ru_majflt - ru0.ru_majflt);
	truth[4] = (ru1.ru_nvcsw - ru0.ru_nvcsw) + (ru1.ru_nivcsw - ru0.ru_nivcsw);
	truth[5] = ROUNDS * PAGES_PER_ROUND;
	for (e = 0; e < N && !r; e++) {
		double est = live_ns[e] > 0 ? count[e] * total_ns / live_ns[e] : 0;
		double err = rel_err(est, truth[e]);

		if (err < 0)
			err = -err;
		if (err > worst)
			worst = err;
		used += snprintf(detail + used, sizeof(detail) - used, "%s %.0f/%.0f ", names[e],
				 est, truth[e]);
	}
	ktest_report("multiplex_6_on_2_5pct", !r && worst < 0.05, "%sworst %.2f%% (%s)",
		     r ? "" : detail, 100 * worst, errname(r));
	if (fd >= 0)
		close(fd);
}

/* The live masks of `samples` SAMPLEs of a session of 6 events on 2 slots. */
static int shuffled_masks(unsigned flags, unsigned long long seed, unsigned *masks, int samples)
{
	struct cmdev_event ev[6];
	struct cmdev_config c = {
		.size = sizeof(c), .n_events = 6, .slots = 2, .event_size = sizeof(ev[0]),
		.events = (unsigned long)ev, .flags = flags, .seed = seed,
	};
	struct cmdev_sample s;
	int fd = open(KTEST_DEVICE, O_RDWR | O_CLOEXEC), r;

	for (int e = 0; e < 6; e++)
		ev[e] = ktest_sw(PERF_COUNT_SW_TASK_CLOCK);
	if (fd < 0)
		return -errno;
	r = ioctl(fd, CMDEV_IOC_CONFIGURE, &c) ? -errno : ktest_attach(fd, 0, 0);
	for (int i = 0; i < samples && !r; i++) {
		r = ktest_sample(fd, &s);
		masks[i] = s.live_mask;
	}
	close(fd);
	return r;
}

/*
 * CMDEV_CONFIG_SHUFFLE: each round of 3 samples visits the 3 sets once, the
 * rounds in different orders, and the sequence is the one sprof's
 * LiveSetScheduler draws from the same stream (tests/unit/test_scheduler.cpp
 * holds the same twelve masks), so kernel and user space rotate alike.
 */
static void test_shuffled_rotation(void)
{
	static const unsigned want[12] = { 12, 48, 3, 12, 48, 3, 3, 12, 48, 12, 3, 48 };
	enum { SAMPLES = 300 };
	unsigned masks[SAMPLES], rr[6], orders = 0, seen_orders[6] = { 0 };
	int rounds_ok = 1, same = 1, r, r2, bad;
	struct cmdev_version v = { .size = sizeof(v) };
	int vfd = open(KTEST_DEVICE, O_RDWR);

	ioctl(vfd, CMDEV_IOC_VERSION, &v);
	close(vfd);
	r = shuffled_masks(CMDEV_CONFIG_SHUFFLE, 0x5eed, masks, SAMPLES);
	for (int i = 0; i < 12; i++)
		same &= masks[i] == want[i];
	for (int round = 0; round < SAMPLES / 3; round++) {
		const unsigned *m = masks + 3 * round;
		unsigned order = (m[0] == 3 ? 0 : m[0] == 12 ? 1 : 2) * 9 + (m[1] == 3 ? 0 : m[1] == 12 ? 1 : 2);

		rounds_ok &= (m[0] | m[1] | m[2]) == 0x3f && m[0] != m[1] && m[1] != m[2];
		for (unsigned k = 0; k < 6; k++) {
			if (seen_orders[k] == order + 1)
				break;
			if (!seen_orders[k]) {
				seen_orders[k] = order + 1;
				orders++;
				break;
			}
		}
	}
	r2 = shuffled_masks(0, 0x5eed, rr, 6);
	bad = shuffled_masks(0x80, 0, rr + 0, 0);
	ktest_report("shuffled_rotation",
		     !r && !r2 && v.config_flags == CMDEV_CONFIG_FLAGS_ALL && same && rounds_ok && orders == 6 &&
			     rr[0] == 3 && rr[1] == 12 && rr[2] == 48 && rr[3] == 3 && bad == -EINVAL,
		     "config_flags 0x%x; first masks %u %u %u %u %u %u (as LiveSetScheduler: %s); every round a "
		     "permutation: %s; %u of 6 orders seen in %d rounds; round-robin %u %u %u %u; unknown flag %s",
		     v.config_flags, masks[0], masks[1], masks[2], masks[3], masks[4], masks[5],
		     same ? "yes" : "NO", rounds_ok ? "yes" : "NO", orders, SAMPLES / 3, rr[0], rr[1], rr[2], rr[3],
		     errname(bad));
}

/* One session per task: a second attach is -EBUSY until the first closes. */
static void test_exclusive(void)
{
	struct cmdev_event ev = ktest_sw(PERF_COUNT_SW_TASK_CLOCK);
	int fd1 = ktest_session(&ev, 1, 1, 0, 0);
	int fd2 = open(KTEST_DEVICE, O_RDWR);
	int busy, again, after;

	ktest_configure(fd2, &ev, 1, 1);
	busy = ktest_attach(fd2, 0, 0);
	again = ktest_attach(fd1, 0, 0);
	close(fd1);
	after = ktest_attach(fd2, 0, 0);
	close(fd2);
	ktest_report("exclusive", fd1 >= 0 && busy == -EBUSY && again == -EBUSY && after == 0,
		     "second session: %s; same session again: %s; after close: %s",
		     errname(busy), errname(again), errname(after));
}

/*
 * The target's touch loop and its exit are one function, warmed up by a call
 * that does not exit, so the measured run faults on nothing but the pages.
 */
static void __attribute__((noinline)) touch_then_exit(char *mem, unsigned pages, int do_exit)
{
	for (unsigned i = 0; i < pages; i++)
		((volatile char *)mem)[(size_t)i * KTEST_PAGE] = 1;
	while (do_exit) {
#if defined(__x86_64__)
		asm volatile("syscall" : : "a"(SYS_exit_group), "D"(0) : "rcx", "r11", "memory");
#elif defined(__aarch64__)
		register long nr asm("x8") = SYS_exit_group;
		register long status asm("x0") = 0;
		asm volatile("svc #0" : : "r"(nr), "r"(status) : "memory");
#else
#error "touch_then_exit: the exit_group system call for this architecture"
#endif
	}
}

/* A target that exits: the next sample has its final counts, the one after -ESRCH. */
static void test_target_exit(void)
{
	struct cmdev_event ev = ktest_sw(PERF_COUNT_SW_PAGE_FAULTS);
	int ready[2], go[2], fd, r_final = 1, r_after = 1;
	struct cmdev_sample s = { 0 }, after;
	char byte = 0;
	pid_t child;

	if (pipe(ready) || pipe(go))
		return ktest_report("target_exit", 0, "pipe: %s", strerror(errno));
	child = fork();
	if (child == 0) {
		char *mem = ktest_fresh_pages(FAULT_PAGES), *warm = ktest_fresh_pages(1);

		touch_then_exit(warm, 1, 0);
		if (write(ready[1], &byte, 1) != 1 || read(go[0], &byte, 1) != 1)
			_exit(1);
		touch_then_exit(mem, FAULT_PAGES, 1);
	}
	if (read(ready[0], &byte, 1) != 1)
		return ktest_report("target_exit", 0, "child did not start");
	fd = ktest_session(&ev, 1, 1, child, 0);
	if (write(go[1], &byte, 1) != 1)
		return ktest_report("target_exit", 0, "write: %s", strerror(errno));
	waitpid(child, NULL, 0);
	if (fd >= 0) {
		r_final = ktest_sample(fd, &s);
		r_after = ktest_sample(fd, &after);
		close(fd);
	}
	ktest_report("target_exit",
		     fd >= 0 && r_final == 0 && (s.flags & CMDEV_SAMPLE_EXITED) &&
			     s.delta[0] == FAULT_PAGES && r_after == -ESRCH,
		     "attach %s; final sample %s flags 0x%x faults %llu (expected %u); next: %s",
		     errname(fd < 0 ? fd : 0), errname(r_final), s.flags,
		     (unsigned long long)s.delta[0], FAULT_PAGES, errname(r_after));
	close(ready[0]), close(ready[1]), close(go[0]), close(go[1]);
}

struct inherit_thread {
	char *mem;
	int ready[2], go[2], done[2];
};

static void *inherit_worker(void *arg)
{
	struct inherit_thread *t = arg;
	char byte = 0;

	ktest_touch(t->mem + FAULT_PAGES * KTEST_PAGE, 1);	/* warm-up page */
	if (write(t->ready[1], &byte, 1) != 1 || read(t->go[0], &byte, 1) != 1)
		return NULL;
	ktest_touch(t->mem, FAULT_PAGES);
	if (write(t->done[1], &byte, 1) != 1)
		return NULL;
	return NULL;
}

/* With CMDEV_ATTACH_INHERIT a thread created after attach is counted. */
static void test_inherit(void)
{
	struct cmdev_event ev = ktest_sw(PERF_COUNT_SW_PAGE_FAULTS);
	struct cmdev_event two[2] = { ev, ev };
	struct inherit_thread t = { .mem = ktest_fresh_pages(FAULT_PAGES + 1) };
	struct cmdev_sample s = { 0 };
	int fd, fd_rotating, r = 1;
	pthread_t thread;
	char byte = 0;

	fd_rotating = ktest_session(two, 2, 1, 0, CMDEV_ATTACH_INHERIT);
	if (fd_rotating >= 0)
		close(fd_rotating);
	if (pipe(t.ready) || pipe(t.go) || pipe(t.done))
		return ktest_report("inherit", 0, "pipe: %s", strerror(errno));
	fd = ktest_session(&ev, 1, 1, 0, CMDEV_ATTACH_INHERIT);
	pthread_create(&thread, NULL, inherit_worker, &t);
	if (read(t.ready[0], &byte, 1) == 1 && fd >= 0)
		r = ktest_sample(fd, &s);
	if (write(t.go[1], &byte, 1) == 1 && read(t.done[0], &byte, 1) == 1 && !r)
		r = ktest_sample(fd, &s);
	pthread_join(thread, NULL);
	ktest_report("inherit_thread",
		     fd >= 0 && !r && s.delta[0] == FAULT_PAGES && fd_rotating == -EINVAL,
		     "new thread touched %u pages -> %llu faults (%s); inherit with 1 of 2 slots: %s",
		     FAULT_PAGES, (unsigned long long)s.delta[0], errname(r),
		     errname(fd_rotating < 0 ? fd_rotating : 0));
	if (fd >= 0)
		close(fd);
	close(t.ready[0]), close(t.ready[1]), close(t.go[0]), close(t.go[1]);
	close(t.done[0]), close(t.done[1]);
}

static long module_refcount(void)
{
	FILE *f = fopen("/sys/module/cmdev/refcnt", "r");
	long n = -1;

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

/* Active objects of the perf_event slab cache and objects per slab; -1 if unknown. */
static long perf_event_objects(long *per_slab)
{
	FILE *f = fopen("/proc/slabinfo", "r");
	char line[512], name[64];
	long active = -1, n, total, size, per;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s %ld %ld %ld %ld", name, &n, &total, &size, &per) == 5 &&
		    !strcmp(name, "perf_event"))
			active = n, *per_slab = per;
	if (f)
		fclose(f);
	return active;
}

static int open_close(int cycles, const struct cmdev_event *ev, unsigned n)
{
	struct cmdev_sample s;
	int failed = 0;

	for (int i = 0; i < cycles; i++) {
		int fd = ktest_session(ev, n, 1, 0, 0);

		if (fd < 0 || ktest_sample(fd, &s))
			failed++;
		if (fd >= 0)
			close(fd);
	}
	return failed;
}

static void test_open_close_cycles(void)
{
	enum { CYCLES = 1000 };
	struct cmdev_event ev[2] = { ktest_sw(PERF_COUNT_SW_TASK_CLOCK),
				     ktest_sw(PERF_COUNT_SW_PAGE_FAULTS) };
	long per_slab = 0, before, after, refs;
	int failed;

	/* Warm the slab cache first so only a leak can make it grow. */
	failed = open_close(50, ev, 2);
	before = perf_event_objects(&per_slab);
	failed += open_close(CYCLES, ev, 2);
	sleep(1);	/* counters are freed after an RCU grace period */
	after = perf_event_objects(&per_slab);
	refs = module_refcount();
	/*
	 * 3000 counters were made; one leaked per cycle would add 1000 objects,
	 * while per-CPU slabs and pending RCU frees move the count by a few slabs.
	 */
	ktest_report("open_close_1000",
		     !failed && refs == 0 && before >= 0 && after - before < CYCLES / 4,
		     "%d failed cycles, module refcount %ld, perf_event objects %ld -> %ld "
		     "(slab of %ld)", failed, refs, before, after, per_slab);
}

/* Sessions in several processes at once, each counting exactly its own faults. */
static void test_concurrent(void)
{
	enum { PROCS = 4 };
	struct cmdev_event ev = ktest_sw(PERF_COUNT_SW_PAGE_FAULTS);
	int go[2], ok = 0;
	pid_t kids[PROCS];
	char byte = 0;

	if (pipe(go))
		return ktest_report("concurrent", 0, "pipe: %s", strerror(errno));
	for (int i = 0; i < PROCS; i++) {
		kids[i] = fork();
		if (kids[i] == 0) {
			unsigned pages = 100 * (i + 1);
			char *mem = ktest_fresh_pages(pages), *warm = ktest_fresh_pages(1);
			struct cmdev_sample s;
			int fd, r;

			ktest_touch(warm, 1);
			close(go[1]);
			fd = ktest_session(&ev, 1, 1, 0, 0);
			r = fd < 0 ? fd : ktest_sample(fd, &s);
			if (read(go[0], &byte, 1) != 0)	/* EOF when the parent closes */
				_exit(2);
			for (int rep = 0; rep < 20 && !r; rep++)
				r = ktest_sample(fd, &s);	/* overlapping ioctls */
			ktest_touch(mem, pages);
			if (!r)
				r = ktest_sample(fd, &s);
			_exit(!r && s.delta[0] == pages ? 0 : 1);
		}
	}
	close(go[0]);
	close(go[1]);
	for (int i = 0; i < PROCS; i++) {
		int status = 0;

		waitpid(kids[i], &status, 0);
		ok += WIFEXITED(status) && WEXITSTATUS(status) == 0;
	}
	ktest_report("concurrent_sessions", ok == PROCS, "%d of %d processes counted exactly", ok,
		     PROCS);
}

/* The count of event e in a read() snapshot; -1 when absent. */
static long long snapshot_count(const char *text, unsigned e)
{
	char key[32];
	const char *line, *count;

	snprintf(key, sizeof(key), "event %u ", e);
	line = strstr(text, key);
	count = line ? strstr(line, " count ") : NULL;
	return count ? atoll(count + 7) : -1;
}

/* Reads one snapshot; returns its length or -errno. */
static ssize_t read_snapshot(int fd, char *text, size_t size)
{
	ssize_t n = read(fd, text, size - 1);

	if (n < 0)
		return -errno;
	text[n] = 0;
	return n;
}

/*
 * Every read() is a fresh snapshot: a second read after touching P fresh
 * pages shows the page-fault count P higher; a buffer too small is -ENOSPC
 * and does not spoil the next read.
 */
static void test_read_snapshot(void)
{
	enum { PAGES = 64 };
	struct cmdev_event ev[2] = { ktest_sw(PERF_COUNT_SW_PAGE_FAULTS),
				     ktest_sw(PERF_COUNT_SW_TASK_CLOCK) };
	char *warm = ktest_fresh_pages(1), *mem = ktest_fresh_pages(PAGES);
	char text[CMDEV_SNAPSHOT_MAX], small[16];
	long long c1 = -1, c2 = -1, c3 = -1;
	ssize_t n1, n2, n_small, n3;
	int fd;

	/* Fault in the parsing code and the buffers now, not between the reads. */
	ktest_touch(warm, 1);
	snprintf(text, sizeof(text), "event 0 type 1 count 1\n");
	snapshot_count(text, 0);
	memset(small, 0, sizeof(small));
	fd = ktest_session(ev, 2, 2, 0, 0);
	n1 = fd < 0 ? fd : read_snapshot(fd, text, sizeof(text));
	if (n1 > 0)
		c1 = snapshot_count(text, 0);
	ktest_touch(mem, PAGES);
	n2 = fd < 0 ? fd : read_snapshot(fd, text, sizeof(text));
	if (n2 > 0)
		c2 = snapshot_count(text, 0);
	n_small = fd < 0 ? fd : read_snapshot(fd, small, sizeof(small));
	n3 = fd < 0 ? fd : read_snapshot(fd, text, sizeof(text));
	if (n3 > 0)
		c3 = snapshot_count(text, 0);
	ktest_report("read_snapshot_repeatable",
		     n1 > 0 && n2 > 0 && n3 > 0 && strstr(text, "state attached\n") &&
			     strstr(text, "events 2 slots 2 rotation round-robin\n") &&
			     strstr(text, "event 0 type 1 config 0x2 flags 0x6 count ") &&
			     c1 >= 0 && c2 - c1 == PAGES && c3 == c2 && n_small == -ENOSPC,
		     "reads of %zd, %zd, %zd bytes; page faults %lld -> %lld (+%d pages) -> %lld; "
		     "16-byte buffer: %s", n1, n2, n3, c1, c2, PAGES, c3,
		     errname(n_small < 0 ? (int)n_small : 0));
	if (fd >= 0)
		close(fd);
}

/*
 * What perf_event_open says to the event for this thread, user space only:
 * ENOENT for a hardware event where there is no PMU (x86 under TCG), 0 where
 * there is one (arm64's emulated PMU). cmdev must say the same.
 */
static int perf_open_status(const struct cmdev_event *ev)
{
	struct perf_event_attr attr = { .type = ev->type, .size = sizeof(attr), .config = ev->config,
					.disabled = 1, .exclude_kernel = 1, .exclude_hv = 1 };
	int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/* Invalid arguments get the documented error numbers. */
static void test_invalid(void)
{
	struct cmdev_event ev = ktest_sw(PERF_COUNT_SW_TASK_CLOCK), bad = ev;
	struct cmdev_event hw = { .type = PERF_TYPE_HARDWARE, .flags = ev.flags, .config = 0 };
	unsigned char big[64] = { 0 };
	struct cmdev_config *c = (struct cmdev_config *)big;
	struct cmdev_sample s;
	int fd = open(KTEST_DEVICE, O_RDWR), failures = 0;
	struct {
		const char *what;
		int got, want;
	} cases[20];
	int n = 0;

#define CASE(what_, expr_, want_) \
	cases[n++] = (typeof(cases[0])){ what_, (expr_), (want_) }
	CASE("sample before attach", ktest_sample(fd, &s), -EINVAL);
	CASE("attach before configure", ktest_attach(fd, 0, 0), -EINVAL);
	CASE("0 events", ktest_configure(fd, &ev, 0, 1), -EINVAL);
	CASE("33 events", ktest_configure(fd, &ev, 33, 1), -E2BIG);
	CASE("0 slots", ktest_configure(fd, &ev, 1, 0), -EINVAL);
	CASE("slots > events", ktest_configure(fd, &ev, 1, 2), -EINVAL);
	CASE("NULL events", ktest_configure(fd, NULL, 1, 1), -EFAULT);
	bad.flags = 0x80;
	CASE("unknown event flag", ktest_configure(fd, &bad, 1, 1), -EINVAL);
	bad.flags = ev.flags, bad.type = PERF_TYPE_TRACEPOINT;
	CASE("tracepoint type", ktest_configure(fd, &bad, 1, 1), -EINVAL);
	*c = (struct cmdev_config){ .size = sizeof(big), .n_events = 1, .slots = 1,
				    .event_size = sizeof(ev), .events = (unsigned long)&ev };
	big[sizeof(big) - 1] = 1;
	CASE("non-zero tail", ioctl(fd, CMDEV_IOC_CONFIGURE, c) < 0 ? -errno : 0, -E2BIG);
	CASE("unknown command", ioctl(fd, _IO(CMDEV_IOC_MAGIC, 99)) < 0 ? -errno : 0, -ENOTTY);
	CASE("NULL argument", ioctl(fd, CMDEV_IOC_ATTACH, NULL) < 0 ? -errno : 0, -EFAULT);
	ktest_configure(fd, &ev, 1, 1);
	CASE("negative pid", ktest_attach(fd, -1, 0), -EINVAL);
	CASE("no such pid", ktest_attach(fd, 4000000, 0), -ESRCH);
	CASE("kernel thread", ktest_attach(fd, 2, 0), -EINVAL);
	ktest_configure(fd, &hw, 1, 1);
	CASE("hardware event as perf_event_open has it", ktest_attach(fd, 0, 0), perf_open_status(&hw));
#undef CASE
	close(fd);
	for (int i = 0; i < n; i++) {
		if (cases[i].got == cases[i].want)
			continue;
		failures++;
		ktest_report("invalid_arguments", 0, "%s: got %s, want %s", cases[i].what,
			     errname(cases[i].got), errname(cases[i].want));
	}
	if (!failures)
		ktest_report("invalid_arguments", 1, "%d cases gave the documented errors", n);
}

/* The module cannot go while a session is open; unload and reload then work. */
static void test_unload_reload(const char *ko_path)
{
	int fd = open(KTEST_DEVICE, O_RDWR), busy, unloaded, loaded, reopened, ko;

	busy = syscall(SYS_delete_module, "cmdev", O_NONBLOCK) < 0 ? -errno : 0;
	close(fd);
	unloaded = syscall(SYS_delete_module, "cmdev", O_NONBLOCK) < 0 ? -errno : 0;
	ko = open(ko_path, O_RDONLY | O_CLOEXEC);
	loaded = syscall(SYS_finit_module, ko, "", 0) < 0 ? -errno : 0;
	close(ko);
	fd = open(KTEST_DEVICE, O_RDWR);
	reopened = fd < 0 ? -errno : 0;
	close(fd);
	ktest_report("unload_reload",
		     fd >= 0 && (busy == -EWOULDBLOCK || busy == -EBUSY) && !unloaded && !loaded &&
			     !reopened,
		     "rmmod while open: %s; after close: %s; reload: %s; open: %s", errname(busy),
		     errname(unloaded), errname(loaded), errname(reopened));
}

/* ---- policy: who may open the device and count what ---- */

#define USER_A 1000	/* a user in the cmdev group when it is 3000 */
#define USER_B 1001	/* another user, in no group */
#define CMDEV_GROUP 3000
#define SUID_OWNER 2000	/* owner of the setuid copy of this program */
#define SUID_PROG "/tmp/cmdev_suid"

static const char *ko_path;

static int set_paranoid(int level)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "w");
	int ok = f && fprintf(f, "%d\n", level) > 0;

	if (f && fclose(f))
		ok = 0;
	return ok ? 0 : -EIO;
}

/* Loads cmdev.ko afresh with these parameters; 0 or -errno. */
static int reload(const char *params)
{
	int ko, err;

	if (syscall(SYS_delete_module, "cmdev", O_NONBLOCK) < 0 && errno != ENOENT)
		return -errno;
	ko = open(ko_path, O_RDONLY | O_CLOEXEC);
	if (ko < 0)
		return -errno;
	err = syscall(SYS_finit_module, ko, params, 0) < 0 ? -errno : 0;
	close(ko);
	return err;
}

static int open_errno(void)
{
	int fd = open(KTEST_DEVICE, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

/*
 * Runs fn(arg, results) in a child that has become uid/gid with the given
 * supplementary groups, and returns the child's results (each 0 or -errno);
 * 1 in every slot when the child could not report.
 */
static void run_as(uid_t uid, gid_t gid, int ngroups, const gid_t *groups,
		   void (*fn)(void *arg, int *results), void *arg, int *results, int n)
{
	int pipefd[2];
	pid_t child;

	for (int i = 0; i < n; i++)
		results[i] = 1;
	if (pipe(pipefd))
		return;
	child = fork();
	if (child == 0) {
		close(pipefd[0]);
		if (ktest_become(uid, gid, ngroups, groups))
			_exit(2);
		fn(arg, results);
		if (write(pipefd[1], results, n * sizeof(int)) != (ssize_t)(n * sizeof(int)))
			_exit(3);
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], results, n * sizeof(int)) != (ssize_t)(n * sizeof(int)))
		for (int i = 0; i < n; i++)
			results[i] = 1;
	close(pipefd[0]);
	waitpid(child, NULL, 0);
}

static void just_open(void *arg, int *r)
{
	(void)arg;
	r[0] = open_errno();
}

/* A process of another user that lives until its pipe closes; returns its pid. */
static pid_t other_user_process(uid_t uid, int *keep)
{
	int fds[2];
	char byte;
	pid_t pid;

	if (pipe(fds))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(fds[1]);
		if (ktest_become(uid, uid, 0, NULL))
			_exit(2);
		while (read(fds[0], &byte, 1) > 0)
			;
		_exit(0);
	}
	close(fds[0]);
	*keep = fds[1];
	return pid;
}

struct access_probe {
	pid_t root_pid, other_pid;
};

/*
 * As an unprivileged caller: open, count itself in user space, count kernel
 * mode, attach to a root process, attach to another user's process.
 */
static void probe_access(void *arg, int *r)
{
	const struct access_probe *p = arg;
	struct cmdev_event ev = ktest_sw(PERF_COUNT_SW_PAGE_FAULTS), kev = ev;
	int fd = open(KTEST_DEVICE, O_RDWR | O_CLOEXEC), fd2;

	kev.flags = CMDEV_EV_EXCLUDE_HV;
	r[0] = fd < 0 ? -errno : 0;
	if (fd < 0)
		return;
	r[1] = ktest_configure(fd, &ev, 1, 1) ?: ktest_attach(fd, 0, 0);
	close(fd);	/* one session per task: the next one counts this task too */
	fd2 = open(KTEST_DEVICE, O_RDWR | O_CLOEXEC);
	r[2] = ktest_configure(fd2, &kev, 1, 1);
	if (!r[2])
		r[2] = ktest_attach(fd2, 0, 0);
	close(fd2);
	fd2 = open(KTEST_DEVICE, O_RDWR | O_CLOEXEC);
	r[3] = ktest_configure(fd2, &ev, 1, 1) ?: ktest_attach(fd2, p->root_pid, 0);
	close(fd2);
	fd2 = open(KTEST_DEVICE, O_RDWR | O_CLOEXEC);
	r[4] = ktest_configure(fd2, &ev, 1, 1) ?: ktest_attach(fd2, p->other_pid, 0);
	close(fd2);
}

static unsigned node_mode(gid_t *gid)
{
	struct stat st;

	if (stat(KTEST_DEVICE, &st))
		return 0;
	*gid = st.st_gid;
	return st.st_mode & 07777;
}

/*
 * Default load: the node is 0600 root; an unprivileged user is refused by the
 * mode and, with the node opened wide by mistake, by the module itself; a
 * descriptor root opened is refused once its holder dropped to that user.
 */
static void test_policy_default(void)
{
	struct cmdev_event ev = ktest_sw(PERF_COUNT_SW_PAGE_FAULTS);
	int loaded = reload(""), by_mode, by_module, handed = 1, status = 0;
	gid_t node_gid = 1;
	unsigned mode = node_mode(&node_gid);
	pid_t child;
	int fd;

	run_as(USER_B, USER_B, 0, NULL, just_open, NULL, &by_mode, 1);
	chmod(KTEST_DEVICE, 0666);
	run_as(USER_B, USER_B, 0, NULL, just_open, NULL, &by_module, 1);
	chmod(KTEST_DEVICE, 0600);
	fd = open(KTEST_DEVICE, O_RDWR | O_CLOEXEC);
	child = fork();
	if (child == 0) {
		if (ktest_become(USER_B, USER_B, 0, NULL))
			_exit(2);
		_exit(-(ktest_configure(fd, &ev, 1, 1)));
	}
	waitpid(child, &status, 0);
	if (WIFEXITED(status))
		handed = -WEXITSTATUS(status);
	close(fd);
	ktest_report("policy_default_root_only",
		     !loaded && mode == 0600 && node_gid == 0 && by_mode == -EACCES &&
			     by_module == -EACCES && handed == -EACCES && fd >= 0,
		     "load %s; node %04o gid %u; uid %d open: %s; node made 0666: %s; "
		     "root's fd after dropping to uid %d: %s", errname(loaded), mode, node_gid,
		     USER_B, errname(by_mode), errname(by_module), USER_B, errname(handed));
}

/*
 * gid=3000: the node is 0660 (its group is udev's job; here chgrp). A member
 * counts its own tasks in user space; not kernel mode at paranoid 3 or 2, but
 * at 1; not root's or another user's process. A non-member is refused.
 */
static void test_policy_group(void)
{
	const gid_t group = CMDEV_GROUP;
	int loaded = reload("gid=3000"), bad_gid, keep = -1, outsider, kernel_at_1[5];
	struct access_probe p = { .root_pid = getpid() };
	gid_t node_gid = 0;
	unsigned mode = node_mode(&node_gid);
	int r[5];

	chown(KTEST_DEVICE, 0, CMDEV_GROUP);
	p.other_pid = other_user_process(USER_B, &keep);
	run_as(USER_A, USER_A, 1, &group, probe_access, &p, r, 5);
	run_as(USER_B, USER_B, 0, NULL, just_open, NULL, &outsider, 1);
	set_paranoid(1);
	run_as(USER_A, USER_A, 1, &group, probe_access, &p, kernel_at_1, 5);
	set_paranoid(3);
	close(keep);
	waitpid(p.other_pid, NULL, 0);
	ktest_report("policy_group",
		     !loaded && mode == 0660 && !r[0] && !r[1] && r[2] == -EACCES &&
			     r[3] == -EPERM && r[4] == -EPERM && outsider == -EACCES &&
			     !kernel_at_1[2],
		     "load %s; node %04o; member uid %d: open %s, itself %s, kernel mode %s "
		     "(at paranoid 1: %s), root's pid %s, uid %d's pid %s; non-member uid %d: %s",
		     errname(loaded), mode, USER_A, errname(r[0]), errname(r[1]), errname(r[2]),
		     errname(kernel_at_1[2]), errname(r[3]), USER_B, errname(r[4]), USER_B,
		     errname(outsider));
	bad_gid = reload("gid=-5");
	ktest_report("policy_bad_gid", bad_gid == -EINVAL, "gid=-5: %s", errname(bad_gid));
	reload("gid=3000");
	chown(KTEST_DEVICE, 0, CMDEV_GROUP);
}

/*
 * allow_unprivileged=1: the node is 0666 and perf_event_paranoid decides, read
 * at every open: 3 refuses; 2 lets a user count its own tasks in user space;
 * 1 allows kernel mode too. Another user's task stays refused.
 */
static void test_policy_unprivileged(void)
{
	int loaded = reload("allow_unprivileged=1"), keep = -1;
	struct access_probe p = { .root_pid = getpid() };
	int at3[5], at2[5], at1[5];
	gid_t node_gid;
	unsigned mode = node_mode(&node_gid);

	p.other_pid = other_user_process(USER_B, &keep);
	run_as(USER_A, USER_A, 0, NULL, probe_access, &p, at3, 5);
	set_paranoid(2);
	run_as(USER_A, USER_A, 0, NULL, probe_access, &p, at2, 5);
	set_paranoid(1);
	run_as(USER_A, USER_A, 0, NULL, probe_access, &p, at1, 5);
	set_paranoid(3);
	close(keep);
	waitpid(p.other_pid, NULL, 0);
	ktest_report("policy_unprivileged_paranoid",
		     !loaded && mode == 0666 && at3[0] == -EACCES && !at2[0] && !at2[1] &&
			     at2[2] == -EACCES && at2[3] == -EPERM && at2[4] == -EPERM &&
			     !at1[0] && !at1[1] && !at1[2] && at1[4] == -EPERM,
		     "load %s; node %04o; uid %d at paranoid 3: open %s; at 2: open %s, itself %s, "
		     "kernel mode %s, root's pid %s, uid %d's pid %s; at 1: kernel mode %s, "
		     "uid %d's pid %s", errname(loaded), mode, USER_A, errname(at3[0]),
		     errname(at2[0]), errname(at2[1]), errname(at2[2]), errname(at2[3]), USER_B,
		     errname(at2[4]), errname(at1[2]), USER_B, errname(at1[4]));
}

/* ---- exec of the target ---- */

/*
 * What an exec'd target runs (this program, or its setuid copy):
 * --exec-child READY_FD WAIT_FD PAGES: touches PAGES fresh pages and spins
 * 20 ms, reports on READY_FD, then waits for WAIT_FD to close.
 */
static int exec_child_main(char **argv)
{
	int ready = atoi(argv[0]), wait_fd = atoi(argv[1]);
	unsigned pages = (unsigned)atoi(argv[2]);
	char *mem = ktest_fresh_pages(pages), byte = 0;

	ktest_touch(mem, pages);
	spin_cpu_ns(20000000);
	if (write(ready, &byte, 1) != 1)
		return 1;
	while (read(wait_fd, &byte, 1) > 0)
		;
	return 0;
}

struct exec_target {
	pid_t pid;
	int go, ready, release;	/* our ends: start the exec; it ran; let it exit */
};

/*
 * Forks a target that waits for a byte on go, then execs prog --exec-child
 * (prog "-": just exits, without exec).
 */
static int start_exec_target(struct exec_target *t, const char *prog, unsigned pages)
{
	int go[2], ready[2], release[2];

	if (pipe(go) || pipe(ready) || pipe(release))
		return -errno;
	t->pid = fork();
	if (t->pid == 0) {
		char rfd[16], wfd[16], npages[16], byte;

		close(go[1]), close(ready[0]), close(release[1]);
		if (read(go[0], &byte, 1) != 1 || !strcmp(prog, "-"))
			_exit(0);
		snprintf(rfd, sizeof(rfd), "%d", ready[1]);
		snprintf(wfd, sizeof(wfd), "%d", release[0]);
		snprintf(npages, sizeof(npages), "%u", pages);
		execl(prog, prog, "--exec-child", rfd, wfd, npages, (char *)NULL);
		_exit(127);
	}
	close(go[0]), close(ready[1]), close(release[0]);
	t->go = go[1], t->ready = ready[0], t->release = release[1];
	return 0;
}

/* Lets the target exec and waits until the new program has run; 0 or -errno. */
static int exec_target_go(struct exec_target *t)
{
	char byte = 0;

	if (write(t->go, &byte, 1) != 1)
		return -errno;
	return read(t->ready, &byte, 1) == 1 ? 0 : -ECHILD;
}

static void end_exec_target(struct exec_target *t)
{
	close(t->go), close(t->ready), close(t->release);
	waitpid(t->pid, NULL, 0);
}

/*
 * ATTACH_ON_EXEC with 2 events on 1 slot: SAMPLEs before the exec count and
 * rotate nothing, so only event 0 is enabled at the exec; event 1, never
 * live, must read 0 (before the fix a pre-exec SAMPLE left it armed too).
 */
static void test_on_exec_rotation(void)
{
	enum { PAGES = 256 };
	struct cmdev_event ev[2] = { ktest_sw(PERF_COUNT_SW_PAGE_FAULTS),
				     ktest_sw(PERF_COUNT_SW_PAGE_FAULTS) };
	struct cmdev_sample pre[3] = { 0 }, post = { 0 }, next = { 0 };
	int fd, r = 1, pre_ok = 1, started;
	char text[CMDEV_SNAPSHOT_MAX] = "";
	struct exec_target t;
	long long never_live = -1;

	if (start_exec_target(&t, "/proc/self/exe", PAGES))
		return ktest_report("on_exec_rotation", 0, "pipe: %s", strerror(errno));
	fd = ktest_session(ev, 2, 1, t.pid, CMDEV_ATTACH_ON_EXEC);
	for (int i = 0; i < 3 && fd >= 0; i++) {
		r = ktest_sample(fd, &pre[i]);
		pre_ok &= !r && pre[i].flags == CMDEV_SAMPLE_NOT_STARTED && pre[i].live_mask == 0 &&
			  pre[i].next_mask == 1 && pre[i].delta[0] == 0 && pre[i].delta[1] == 0;
	}
	started = exec_target_go(&t);
	if (fd >= 0 && !started) {
		if (read_snapshot(fd, text, sizeof(text)) > 0)
			never_live = snapshot_count(text, 1);
		r = ktest_sample(fd, &post) ?: ktest_sample(fd, &next);
	}
	end_exec_target(&t);
	ktest_report("on_exec_rotation",
		     fd >= 0 && pre_ok && !started && !r && post.flags == 0 &&
			     post.live_mask == 1 && post.delta[0] >= PAGES && never_live == 0 &&
			     next.live_mask == 2,
		     "3 samples before exec: %s (live 0x%x next 0x%x flags 0x%x); after exec: "
		     "live 0x%x faults %llu (>= %d), never-live event counted %lld; next live 0x%x (%s)",
		     pre_ok ? "nothing counted or rotated" : "WRONG", pre[2].live_mask,
		     pre[2].next_mask, pre[2].flags, post.live_mask,
		     (unsigned long long)post.delta[0], PAGES, never_live, next.live_mask,
		     errname(fd < 0 ? fd : r));
	if (fd >= 0)
		close(fd);
}

/* Makes SUID_PROG: a copy of this program owned by SUID_OWNER, mode 4755. */
static int make_setuid_copy(void)
{
	int in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	int out = open(SUID_PROG, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	char buf[65536];
	ssize_t n;
	int err = 0;

	if (in < 0 || out < 0)
		err = -errno;
	while (!err && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			err = -EIO;
	if (!err && (fchown(out, SUID_OWNER, SUID_OWNER) || fchmod(out, 04755)))
		err = -errno;
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return err;
}

struct exec_probe {
	const char *prog;	/* what the target execs */
	int wait_for_exit;	/* sample after the target exited (reaped) */
};

/*
 * Watches a target that execs probe->prog: r[0] the sample before the exec,
 * r[1] the sample after it, r[2] the one after that, r[3] 1 when the snapshot
 * says "state revoked", r[4] the task_ns of the sample after the exec.
 */
static void probe_exec(void *arg, int *r)
{
	const struct exec_probe *p = arg;
	struct cmdev_event ev = ktest_sw(PERF_COUNT_SW_TASK_CLOCK);
	struct cmdev_sample s = { 0 };
	char text[CMDEV_SNAPSHOT_MAX] = "";
	struct exec_target t;
	int fd;

	if (start_exec_target(&t, p->prog, 16))
		return;
	fd = ktest_session(&ev, 1, 1, t.pid, 0);
	if (fd < 0) {
		r[0] = fd;
		end_exec_target(&t);
		return;
	}
	r[0] = ktest_sample(fd, &s);
	r[1] = exec_target_go(&t);
	if (p->wait_for_exit) {
		close(t.release);
		t.release = -1;
		waitpid(t.pid, NULL, 0);
	}
	if (!r[1])
		r[1] = ktest_sample(fd, &s);
	r[4] = (int)(s.task_ns / 1000000);
	r[2] = ktest_sample(fd, &s);
	r[3] = read_snapshot(fd, text, sizeof(text)) > 0 && strstr(text, "state revoked\n");
	close(fd);
	end_exec_target(&t);
}

/*
 * A target that execs a setuid program loses its counters in the kernel (as
 * with perf): the session must end with -EPERM, not read zeros forever; also
 * when the target exits before the watcher looks. A plain exec keeps counting.
 */
static void test_setuid_exec(void)
{
	const gid_t group = CMDEV_GROUP;
	struct exec_probe plain = { "/proc/self/exe", 0 }, suid = { SUID_PROG, 0 },
			  suid_exit = { SUID_PROG, 1 };
	int made = make_setuid_copy(), loaded = reload("gid=3000");
	int rp[5], rs[5], rx[5], rr[5];

	chown(KTEST_DEVICE, 0, CMDEV_GROUP);
	run_as(USER_A, USER_A, 1, &group, probe_exec, &plain, rp, 5);
	run_as(USER_A, USER_A, 1, &group, probe_exec, &suid, rs, 5);
	run_as(USER_A, USER_A, 1, &group, probe_exec, &suid_exit, rx, 5);
	probe_exec(&suid, rr);
	ktest_report("setuid_exec_ends_session",
		     !made && !loaded && !rp[0] && !rp[1] && !rp[2] && rp[4] >= 15 &&
			     !rs[0] && rs[1] == -EPERM && rs[2] == -EPERM && rs[3] == 1 &&
			     !rx[0] && rx[1] == -EPERM && !rr[0] && rr[1] == -EPERM &&
			     rr[2] == -EPERM,
		     "uid %d watching its child: plain exec %s/%s (%d ms after it); setuid exec "
		     "%s then %s, %s (snapshot %s); setuid exec then exit %s; root watching: "
		     "setuid exec %s then %s",
		     USER_A, errname(rp[0]), errname(rp[1]), rp[4], errname(rs[0]), errname(rs[1]),
		     errname(rs[2]), rs[3] == 1 ? "revoked" : "not revoked", errname(rx[1]),
		     errname(rr[1]), errname(rr[2]));
	unlink(SUID_PROG);
}

/* ---- pid namespaces ---- */

/*
 * Pids are those of the caller's pid namespace: inside a new namespace a
 * process attaches to pid 1 (itself) and the snapshot says "task 1"; a pid of
 * the parent namespace is not found there; from outside, the same process is
 * attached by its global pid and shown with it.
 */
static void test_pid_namespace(void)
{
	struct cmdev_event ev = ktest_sw(PERF_COUNT_SW_TASK_CLOCK);
	int report[2], results[2], release[2], inside[3] = { 1, 1, 1 }, outside = 1, fd;
	pid_t middle, outer_pid = getpid(), global = -1, shown = -1;
	char text[CMDEV_SNAPSHOT_MAX], byte;

	if (pipe(report) || pipe(results) || pipe(release))
		return ktest_report("pid_namespace", 0, "pipe: %s", strerror(errno));
	middle = fork();
	if (middle == 0) {
		pid_t init;

		close(release[1]);	/* else the read below never sees EOF */
		if (unshare(CLONE_NEWPID))
			_exit(2);
		init = fork();
		if (init == 0) {	/* pid 1 of the new namespace */
			int r[3];

			fd = ktest_session(&ev, 1, 1, 1, 0);
			r[0] = fd < 0 ? fd : read_snapshot(fd, text, sizeof(text));
			r[1] = r[0] > 0 && strstr(text, "\ntask 1 ") ? 0 : -EINVAL;
			if (fd >= 0)
				close(fd);
			fd = ktest_session(&ev, 1, 1, outer_pid, 0);
			r[2] = fd;
			if (fd >= 0)
				close(fd);
			if (write(results[1], r, sizeof(r)) != sizeof(r))
				_exit(3);
			while (read(release[0], &byte, 1) > 0)
				;
			_exit(0);
		}
		if (write(report[1], &init, sizeof(init)) != sizeof(init))
			_exit(3);
		waitpid(init, NULL, 0);
		_exit(0);
	}
	close(release[0]), close(report[1]), close(results[1]);	/* EOF if the children fail */
	if (read(report[0], &global, sizeof(global)) != sizeof(global) ||
	    read(results[0], inside, sizeof(inside)) != sizeof(inside))
		global = -1;
	fd = global > 0 ? ktest_session(&ev, 1, 1, global, 0) : -ESRCH;
	outside = fd < 0 ? fd : 0;
	if (fd >= 0 && read_snapshot(fd, text, sizeof(text)) > 0) {
		const char *task = strstr(text, "\ntask ");

		shown = task ? atoi(task + 6) : -1;
	}
	if (fd >= 0)
		close(fd);
	close(release[1]);
	waitpid(middle, NULL, 0);
	close(report[0]), close(results[0]);
	ktest_report("pid_namespace",
		     inside[0] > 0 && !inside[1] && inside[2] == -ESRCH && !outside &&
			     shown == global,
		     "inside: attach to pid 1 %s, shown as 1: %s; parent's pid %d: %s; outside: "
		     "attach to global pid %d %s, shown as %d",
		     errname(inside[0] > 0 ? 0 : inside[0]), inside[1] ? "no" : "yes", outer_pid,
		     errname(inside[2] < 0 ? inside[2] : 0), global, errname(outside), shown);
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "--exec-child"))
		return exec_child_main(argv + 2);
	if (argc != 2) {
		fprintf(stderr, "usage: cmdev_tests /path/to/cmdev.ko\n");
		return 2;
	}
	ko_path = argv[1];
	test_version();
	test_page_faults_exact();
	test_task_clock();
	test_multiplex();
	test_shuffled_rotation();
	test_exclusive();
	test_target_exit();
	test_inherit();
	test_open_close_cycles();
	test_concurrent();
	test_read_snapshot();
	test_invalid();
	test_on_exec_rotation();
	test_pid_namespace();
	test_policy_default();
	test_policy_group();
	test_setuid_exec();
	test_policy_unprivileged();
	test_unload_reload(argv[1]);
	return 0;
}
