/*
 * Random and invalid ioctls on /dev/cmdev: commands, sizes, pointers, event
 * attributes, counts and pids, mixed with valid calls so every state is
 * reached. Passes when all calls returned (the kernel log is checked by the
 * caller). Usage: cmdev_fuzz CALLS [SEED]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ktest.h"

#define FDS 4

static uint64_t rng_state;

static uint64_t rnd(void)
{
	/* xorshift64*: reproducible from the seed */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static unsigned below(unsigned n)
{
	return (unsigned)(rnd() % n);
}

static unsigned pick_u32(void)
{
	static const unsigned interesting[] = { 0, 1, 2, 3, 4, 8, 16, 24, 31, 32, 33, 64,
						 4095, 4096, 4097, 65536, 0x7fffffff, 0xffffffff };

	return below(4) ? interesting[below(sizeof(interesting) / sizeof(interesting[0]))]
			: (unsigned)rnd();
}

/* A page of random bytes that ends where an unmapped page begins. */
static unsigned char *edge;

static void *pick_pointer(void *valid)
{
	switch (below(8)) {
	case 0:
		return NULL;
	case 1:
		return (void *)0xffffffff81000000ul;	/* kernel text */
	case 2:
		return (void *)(uintptr_t)rnd();
	case 3:
		return edge + KTEST_PAGE - 1 - below(64);	/* runs into the guard page */
	case 4:
		return edge + KTEST_PAGE;		/* the guard page */
	default:
		return valid;
	}
}

static pid_t pick_pid(pid_t child)
{
	static const pid_t fixed[] = { 0, 1, 2, -1, 4000000, 0x7fffffff };

	switch (below(4)) {
	case 0:
		return getpid();
	case 1:
		return child;
	case 2:
		return (pid_t)below(300);
	default:
		return fixed[below(sizeof(fixed) / sizeof(fixed[0]))];
	}
}

static void random_events(struct cmdev_event *ev, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		ev[i].type = below(3) ? PERF_TYPE_SOFTWARE : below(4) ? below(16) : (unsigned)rnd();
		ev[i].flags = below(3) ? CMDEV_EV_EXCLUDE_KERNEL | CMDEV_EV_EXCLUDE_HV : pick_u32();
		ev[i].config = below(3) ? below(PERF_COUNT_SW_MAX + 2) : rnd();
	}
}

static void one_call(int fd, pid_t child)
{
	union {
		struct cmdev_version v;
		struct cmdev_config c;
		struct cmdev_attach a;
		struct cmdev_sample s;
		unsigned char raw[8192];
	} buf;
	static const unsigned long cmds[] = { CMDEV_IOC_VERSION, CMDEV_IOC_CONFIGURE,
					      CMDEV_IOC_ATTACH, CMDEV_IOC_SAMPLE, CMDEV_IOC_DETACH };
	struct cmdev_event events[40];
	unsigned long cmd = cmds[below(5)];
	char text[256];

	for (size_t i = 0; i < sizeof(buf.raw); i += 8)
		*(uint64_t *)(buf.raw + i) = below(4) ? 0 : rnd();
	random_events(events, 40);
	switch (below(10)) {
	case 0:
		cmd = (unsigned long)rnd();
		break;
	case 1:
		cmd = _IOC(below(4), CMDEV_IOC_MAGIC, below(12), below(1 << 14));
		break;
	case 2:
		if (read(fd, text, below(sizeof(text))) < 0)
			return;
		return;
	default:
		break;
	}
	/* The size field is the first word of every struct. */
	buf.s.size = below(3) ? (unsigned)sizeof(buf.s) : pick_u32() % 9000;
	if (cmd == CMDEV_IOC_CONFIGURE) {
		buf.c.size = below(3) ? (unsigned)sizeof(buf.c) : buf.c.size;
		buf.c.n_events = below(3) ? 1 + below(8) : pick_u32();
		buf.c.slots = below(3) ? 1 + below(buf.c.n_events ? buf.c.n_events : 1) : pick_u32();
		buf.c.event_size = below(3) ? (unsigned)sizeof(struct cmdev_event) : pick_u32();
		buf.c.events = (uintptr_t)pick_pointer(events);
	} else if (cmd == CMDEV_IOC_ATTACH) {
		buf.a.size = below(3) ? (unsigned)sizeof(buf.a) : buf.a.size;
		buf.a.flags = below(2) ? 0 : pick_u32();
		buf.a.pid = pick_pid(child);
		buf.a.reserved = below(5) ? 0 : pick_u32();
	}
	ioctl(fd, cmd, pick_pointer(&buf));
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 10000, done = 0;
	int fds[FDS];
	pid_t child;

	rng_state = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x5eed5eedull;
	edge = mmap(NULL, 2 * KTEST_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (edge == MAP_FAILED || munmap(edge + KTEST_PAGE, KTEST_PAGE)) {
		perror("cmdev_fuzz: mmap");
		return 1;
	}
	for (int i = 0; i < KTEST_PAGE; i++)
		edge[i] = (unsigned char)rnd();
	child = fork();	/* a live target that is not the caller */
	if (child == 0) {
		pause();
		_exit(0);
	}
	for (int i = 0; i < FDS; i++)
		fds[i] = open(KTEST_DEVICE, O_RDWR);
	for (; done < calls; done++) {
		int slot = below(FDS);

		if (below(50) == 0) {	/* close (with whatever state it holds) and reopen */
			close(fds[slot]);
			fds[slot] = open(KTEST_DEVICE, O_RDWR);
		}
		if (fds[slot] < 0)
			break;
		one_call(fds[slot], child);
	}
	for (int i = 0; i < FDS; i++)
		close(fds[i]);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
	ktest_report("random_ioctls", done == calls && calls >= 10000, "%ld of %ld calls returned",
		     done, calls);
	return done == calls ? 0 : 1;
}
