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
#include <sys/resource.h>
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

/* An unprivileged user cannot attach to a root process, but can to itself. */
static void test_permission(void)
{
	struct cmdev_event ev = ktest_sw(PERF_COUNT_SW_PAGE_FAULTS);
	struct cmdev_event kernel_ev = ktest_sw(PERF_COUNT_SW_PAGE_FAULTS);
	pid_t root_pid = getpid(), child;
	int status = 0, pipefd[2];
	int results[3] = { 1, 1, 1 };

	kernel_ev.flags = 0;
	if (pipe(pipefd))
		return ktest_report("permission", 0, "pipe: %s", strerror(errno));
	child = fork();
	if (child == 0) {
		int fd_other = open(KTEST_DEVICE, O_RDWR), fd_self = open(KTEST_DEVICE, O_RDWR);

		if (setgid(65534) || setuid(65534))
			_exit(2);
		results[0] = ktest_configure(fd_other, &ev, 1, 1) ?: ktest_attach(fd_other, root_pid, 0);
		results[1] = ktest_configure(fd_self, &ev, 1, 1) ?: ktest_attach(fd_self, 0, 0);
		results[2] = ktest_configure(fd_other, &kernel_ev, 1, 1);
		if (write(pipefd[1], results, sizeof(results)) != sizeof(results))
			_exit(3);
		_exit(0);
	}
	close(pipefd[1]);
	if (read(pipefd[0], results, sizeof(results)) != sizeof(results))
		results[0] = results[1] = results[2] = 1;
	close(pipefd[0]);
	waitpid(child, &status, 0);
	ktest_report("permission_unprivileged",
		     (results[0] == -EPERM || results[0] == -EACCES) && results[1] == 0 &&
			     results[2] == -EPERM,
		     "uid 65534 -> root pid: %s; -> itself: %s; kernel-mode event: %s",
		     errname(results[0]), errname(results[1]), errname(results[2]));
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
	while (do_exit)
		asm volatile("syscall" : : "a"(SYS_exit_group), "D"(0) : "rcx", "r11", "memory");
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

static void test_read_snapshot(void)
{
	struct cmdev_event ev[2] = { ktest_sw(PERF_COUNT_SW_TASK_CLOCK),
				     ktest_sw(PERF_COUNT_SW_PAGE_FAULTS) };
	int fd = ktest_session(ev, 2, 1, 0, 0);
	char text[4096] = "";
	ssize_t n = fd < 0 ? -1 : read(fd, text, sizeof(text) - 1);

	if (n > 0)
		text[n] = 0;
	ktest_report("read_snapshot",
		     n > 0 && strstr(text, "state attached\n") && strstr(text, "events 2 slots 1\n") &&
			     strstr(text, "event 1 type 1 config 0x2 flags 0x6 count "),
		     "%zd bytes", n);
	if (fd >= 0)
		close(fd);
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
	CASE("hardware event without PMU", ktest_attach(fd, 0, 0), -ENOENT);
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

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: cmdev_tests /path/to/cmdev.ko\n");
		return 2;
	}
	test_version();
	test_page_faults_exact();
	test_task_clock();
	test_multiplex();
	test_permission();
	test_exclusive();
	test_target_exit();
	test_inherit();
	test_open_close_cycles();
	test_concurrent();
	test_read_snapshot();
	test_invalid();
	test_unload_reload(argv[1]);
	return 0;
}
