/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * cmdev: per-task virtual event counters, /dev/cmdev.
 *
 * The contract between cmdev.ko and user space (docs/KMOD.md explains it).
 * A session is one open file: CONFIGURE the events, ATTACH to a task, then
 * each SAMPLE returns the deltas of the events that were live since the
 * previous SAMPLE and makes the next live set live. Close releases everything.
 *
 * Every struct starts with a size field that the caller sets to the size of
 * the struct it was compiled with; the command numbers never change when a
 * struct grows. A larger struct than the module knows is accepted when the
 * unknown tail is zero (else -E2BIG); a smaller one than version 1 is -EINVAL.
 */
#ifndef _UAPI_CMDEV_H
#define _UAPI_CMDEV_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define CMDEV_ABI_VERSION	1
#define CMDEV_MAX_EVENTS	32	/* N; live masks are 32 bits */

/* struct cmdev_event.flags: which privilege levels are not counted. */
#define CMDEV_EV_EXCLUDE_USER	(1u << 0)
#define CMDEV_EV_EXCLUDE_KERNEL	(1u << 1)
#define CMDEV_EV_EXCLUDE_HV	(1u << 2)
#define CMDEV_EV_FLAGS_ALL	0x7u

/* struct cmdev_attach.flags */
#define CMDEV_ATTACH_INHERIT	(1u << 0) /* also count threads/children created later; needs slots == n_events */
#define CMDEV_ATTACH_ON_EXEC	(1u << 1) /* start counting at the task's next execve */
#define CMDEV_ATTACH_FLAGS_ALL	0x3u

/* struct cmdev_config.flags */
#define CMDEV_CONFIG_SHUFFLE	(1u << 0) /* each round of the rotation in a random order, from .seed */
#define CMDEV_CONFIG_FLAGS_ALL	0x1u

/* struct cmdev_sample.flags */
#define CMDEV_SAMPLE_EXITED	(1u << 0) /* the task has exited: these deltas are final, the next SAMPLE is -ESRCH */
#define CMDEV_SAMPLE_NOT_STARTED (1u << 1) /* ATTACH_ON_EXEC and no exec yet: nothing counted, nothing rotated */

/* read() returns the session's text snapshot; a buffer of this size always holds it. */
#define CMDEV_SNAPSHOT_MAX	8192

struct cmdev_version {
	__u32 size;		/* in */
	__u32 abi_version;	/* out: CMDEV_ABI_VERSION */
	__u32 max_events;	/* out: CMDEV_MAX_EVENTS */
	__u32 event_flags;	/* out: supported cmdev_event.flags */
	__u32 attach_flags;	/* out: supported cmdev_attach.flags */
	__u32 reserved;		/* out: 0 */
	__u32 config_flags;	/* out: supported cmdev_config.flags (0 from modules before it) */
	__u32 reserved2;	/* out: 0 */
};

/* One event: a subset of struct perf_event_attr. */
struct cmdev_event {
	__u32 type;		/* PERF_TYPE_HARDWARE/SOFTWARE/HW_CACHE/RAW or a dynamic PMU type */
	__u32 flags;		/* CMDEV_EV_* */
	__u64 config;		/* as perf_event_attr.config */
};

struct cmdev_config {
	__u32 size;		/* in: sizeof(struct cmdev_config) */
	__u32 n_events;		/* in: 1..CMDEV_MAX_EVENTS */
	__u32 slots;		/* in: K, 1..n_events: events live at once */
	__u32 event_size;	/* in: sizeof(struct cmdev_event) */
	__u64 events;		/* in: user pointer to n_events struct cmdev_event */
	__u32 flags;		/* in: CMDEV_CONFIG_* */
	__u32 reserved;		/* in: 0 */
	__u64 seed;		/* in: with CMDEV_CONFIG_SHUFFLE, the state of the splitmix64 stream the orders are drawn from */
};

struct cmdev_attach {
	__u32 size;		/* in */
	__u32 flags;		/* in: CMDEV_ATTACH_* */
	__s32 pid;		/* in: thread id; 0 = the calling thread */
	__u32 reserved;		/* in: 0 */
};

struct cmdev_sample {
	__u32 size;		/* in */
	__u32 flags;		/* out: CMDEV_SAMPLE_* */
	__u32 live_mask;	/* out: bit e: event e was live in the interval that ends now */
	__u32 next_mask;	/* out: the live set from now on */
	__u64 seq;		/* out: number of this sample, from 1 */
	__u64 task_ns;		/* out: the task's CPU time in the interval (an always-live task-clock) */
	__u64 delta[CMDEV_MAX_EVENTS];	 /* out: count delta of each live event, 0 elsewhere */
	__u64 enabled[CMDEV_MAX_EVENTS]; /* out: ns the event was enabled (task on CPU) in the interval */
	__u64 running[CMDEV_MAX_EVENTS]; /* out: ns it really counted (< enabled if the PMU multiplexed it) */
};

#define CMDEV_IOC_MAGIC		0xCD
#define CMDEV_IOC_VERSION	_IOWR(CMDEV_IOC_MAGIC, 1, struct cmdev_version)
#define CMDEV_IOC_CONFIGURE	_IOW(CMDEV_IOC_MAGIC, 2, struct cmdev_config)
#define CMDEV_IOC_ATTACH	_IOW(CMDEV_IOC_MAGIC, 3, struct cmdev_attach)
#define CMDEV_IOC_SAMPLE	_IOWR(CMDEV_IOC_MAGIC, 4, struct cmdev_sample)
#define CMDEV_IOC_DETACH	_IO(CMDEV_IOC_MAGIC, 5)

#endif /* _UAPI_CMDEV_H */
