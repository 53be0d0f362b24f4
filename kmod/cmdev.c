// SPDX-License-Identifier: GPL-2.0
/*
 * cmdev - per-task virtual event counters on /dev/cmdev.
 *
 * A session (one open file) counts N events of one task with the in-kernel
 * perf_event API but keeps only K of them live at a time. Each SAMPLE returns
 * the deltas of the live events since the previous SAMPLE and rotates the
 * live set: live set s = events {(s*K + j) mod N : j < K}, s < P = N/gcd(N,K),
 * visited round-robin, or (CMDEV_CONFIG_SHUFFLE) once per round of P samples
 * in an order drawn afresh for each round from the caller's seed, as
 * sprof's LiveSetScheduler does, so that no rhythm of the program can keep
 * an event live in the same part of it.
 * The ioctl ABI is in include/uapi/cmdev.h and docs/KMOD.md.
 *
 * Who may count what follows perf_event_open(2) as far as the exported API
 * allows: the device is for perfmon_capable() callers, a group the
 * administrator names (cmdev.gid=) or, with cmdev.allow_unprivileged=1,
 * everyone; kernel.perf_event_paranoid applies to all but perfmon_capable();
 * another task needs ptrace read access; and a task that execs a setuid or
 * otherwise non-dumpable program loses its counters, as with perf.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/gcd.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/minmax.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/mount.h>
#include <linux/mutex.h>
#include <linux/perf_event.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/sched/coredump.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "include/uapi/cmdev.h"

/* Bound on any struct size we accept, so hostile sizes cannot make us scan far. */
#define CMDEV_MAX_STRUCT_SIZE	PAGE_SIZE

/*
 * Who may open the device. Read-only once loaded: the node's mode is derived
 * from them when the device is registered.
 */
static int gid = -1;
module_param(gid, int, 0444);
MODULE_PARM_DESC(gid, "members of this group may use /dev/cmdev (node mode 0660; the node needs this group, e.g. from a udev rule); -1: none");
static bool allow_unprivileged;
module_param(allow_unprivileged, bool, 0444);
MODULE_PARM_DESC(allow_unprivileged, "anyone may open /dev/cmdev (mode 0666); kernel.perf_event_paranoid still applies");

static kgid_t cmdev_kgid = INVALID_GID;

/*
 * What the caller may do, weakest first. The weaker of the opener's class
 * and the current caller's class applies to every CONFIGURE and ATTACH, so a
 * descriptor handed to (or kept across setuid() by) a less privileged
 * process gives it no more than it could open itself.
 */
enum cmdev_priv {
	CMDEV_PRIV_NONE,	/* may not use the device */
	CMDEV_PRIV_USER,	/* allow_unprivileged: perf_event_paranoid applies in full */
	CMDEV_PRIV_GROUP,	/* member of cmdev.gid: as an unprivileged user at level <= 2 */
	CMDEV_PRIV_PERFMON,	/* perfmon_capable(): no paranoid limits, any task */
};

enum cmdev_state {
	CMDEV_NEW,		/* nothing configured */
	CMDEV_CONFIGURED,	/* events known, no counters */
	CMDEV_ATTACHED,		/* counters exist on s->task */
	CMDEV_GONE,		/* the task exited and its final values were returned */
	CMDEV_REVOKED,		/* the task exec'd a non-dumpable program: counters removed */
};

static const char *const cmdev_state_names[] = {
	[CMDEV_NEW] = "new",
	[CMDEV_CONFIGURED] = "configured",
	[CMDEV_ATTACHED] = "attached",
	[CMDEV_GONE] = "exited",
	[CMDEV_REVOKED] = "revoked",
};

struct cmdev_session {
	struct mutex lock;		/* serialises every operation on the session */
	enum cmdev_state state;
	u32 n_events, slots;
	u32 step, period;		/* position in the round, the round's length P */
	bool shuffle;			/* CMDEV_CONFIG_SHUFFLE */
	u64 rng;			/* splitmix64 state of the shuffled orders */
	u8 order[CMDEV_MAX_EVENTS];	/* this round's sets, in order */
	u8 next_order[CMDEV_MAX_EVENTS];	/* the next round's, drawn ahead */
	u32 live;			/* mask of the live events */
	u32 attach_flags;
	bool started;			/* counting has begun (at ATTACH, or at the exec) */
	enum cmdev_priv open_priv;	/* the opener's class */
	bool watcher_privileged;	/* the attacher passed the task check by capability */
	kuid_t watcher_uid;		/* the attacher's real ids, for the check at exit */
	kgid_t watcher_gid;
	u64 exec_id;			/* the task's self_exec_id when its counters last ran */
	u64 seq;			/* samples taken */
	struct cmdev_event events[CMDEV_MAX_EVENTS];
	struct perf_event *counters[CMDEV_MAX_EVENTS];
	struct perf_event *clock;	/* task-clock, always live: the reference time */
	u64 last_clock;
	u64 last_count[CMDEV_MAX_EVENTS];	/* values at the previous sample */
	u64 last_enabled[CMDEV_MAX_EVENTS];
	u64 last_running[CMDEV_MAX_EVENTS];
	struct task_struct *task;	/* held while attached */
	struct pid *pid;		/* its pid, printed as the reader's namespace sees it */
	struct list_head claim;		/* in cmdev_claims while attached */
	struct cmdev_sample out;	/* too big for the stack */
};

/* Tasks owned by a session: one session per task. */
static LIST_HEAD(cmdev_claims);
static DEFINE_MUTEX(cmdev_claims_lock);

static u32 cmdev_live_set(const struct cmdev_session *s, u32 set)
{
	u32 mask = 0, j;

	for (j = 0; j < s->slots; j++)
		mask |= BIT((set * s->slots + j) % s->n_events);
	return mask;
}

/* splitmix64 (Steele, Lea, Flood), as sprof's splitmix.hpp. */
static u64 cmdev_splitmix64(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ull);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* One round's order of the P sets: in turn, or a Fisher-Yates shuffle. */
static void cmdev_draw_order(struct cmdev_session *s, u8 *order)
{
	u32 i, j;

	for (i = 0; i < s->period; i++)
		order[i] = i;
	if (!s->shuffle)
		return;
	for (i = s->period; i > 1; i--) {
		j = (u32)(cmdev_splitmix64(&s->rng) >> 32) % i;
		swap(order[i - 1], order[j]);
	}
}

/* The live set after the current one. */
static u32 cmdev_next_set(const struct cmdev_session *s)
{
	return s->step + 1 < s->period ? s->order[s->step + 1] : s->next_order[0];
}

static void cmdev_advance(struct cmdev_session *s)
{
	if (++s->step < s->period)
		return;
	s->step = 0;
	memcpy(s->order, s->next_order, s->period);
	cmdev_draw_order(s, s->next_order);
}

/*
 * Reads the size field of a user struct and checks it: smaller than the first
 * ABI version is -EINVAL, absurdly large is -E2BIG.
 */
static int cmdev_user_size(const void __user *uarg, size_t min_size, u32 *usize)
{
	if (get_user(*usize, (const u32 __user *)uarg))
		return -EFAULT;
	if (*usize < min_size)
		return -EINVAL;
	if (*usize > CMDEV_MAX_STRUCT_SIZE)
		return -E2BIG;
	return 0;
}

/* Copies an input struct; a longer user struct must have a zero tail. */
static int cmdev_copy_in(void *dst, size_t ksize, const void __user *uarg)
{
	u32 usize;
	int err = cmdev_user_size(uarg, ksize, &usize);

	if (err)
		return err;
	return copy_struct_from_user(dst, ksize, uarg, usize);
}

/* Copies an output struct; the tail of a longer user struct reads as zero. */
static int cmdev_copy_out(void __user *uarg, u32 usize, const void *src, size_t ksize)
{
	if (copy_to_user(uarg, src, min_t(size_t, usize, ksize)))
		return -EFAULT;
	if (usize > ksize && clear_user(uarg + ksize, usize - ksize))
		return -EFAULT;
	return 0;
}

static int cmdev_version(void __user *uarg)
{
	struct cmdev_version v = {
		.abi_version = CMDEV_ABI_VERSION,
		.max_events = CMDEV_MAX_EVENTS,
		.event_flags = CMDEV_EV_FLAGS_ALL,
		.attach_flags = CMDEV_ATTACH_FLAGS_ALL,
		.config_flags = CMDEV_CONFIG_FLAGS_ALL,
	};
	u32 usize;
	int err = cmdev_user_size(uarg, sizeof(v), &usize);

	if (err)
		return err;
	v.size = sizeof(v);
	return cmdev_copy_out(uarg, usize, &v, sizeof(v));
}

/*
 * kernel.perf_event_paranoid, read through a procfs instance of our own:
 * sysctl_perf_event_paranoid and the perf_allow_*() helpers are not exported
 * to modules. The file is opened once at load; the value is read at every
 * check, so the administrator's changes apply at once. A private mount, not
 * the caller's /proc, so that nobody can show us another value by mounting
 * over their own /proc/sys in a user namespace.
 */
static struct vfsmount *cmdev_proc_mnt;
static struct file *cmdev_paranoid_file;

/* The most restrictive level, assumed when the sysctl cannot be read. */
#define CMDEV_PARANOID_MAX	3

static int cmdev_paranoid(void)
{
	char buf[16];
	loff_t pos = 0;
	ssize_t n;
	int level;

	if (!cmdev_paranoid_file)
		return CMDEV_PARANOID_MAX;
	n = kernel_read(cmdev_paranoid_file, buf, sizeof(buf) - 1, &pos);
	if (n <= 0)
		return CMDEV_PARANOID_MAX;
	buf[n] = 0;
	if (kstrtoint(strim(buf), 10, &level))
		return CMDEV_PARANOID_MAX;
	return min(level, CMDEV_PARANOID_MAX);
}

static void cmdev_paranoid_init(void)
{
	/* procfs is built in: get_fs_type() takes no module reference to put. */
	struct file_system_type *proc = get_fs_type("proc");
	struct vfsmount *mnt;
	struct file *file;

	mnt = proc ? kern_mount(proc) : ERR_PTR(-ENODEV);
	if (IS_ERR(mnt))
		goto fail;
	file = file_open_root_mnt(mnt, "sys/kernel/perf_event_paranoid", O_RDONLY, 0);
	if (IS_ERR(file)) {
		kern_unmount(mnt);
		goto fail;
	}
	cmdev_proc_mnt = mnt;
	cmdev_paranoid_file = file;
	return;
fail:
	pr_warn("cannot read kernel.perf_event_paranoid: level %d applies to all without CAP_PERFMON\n",
		CMDEV_PARANOID_MAX);
}

static void cmdev_paranoid_exit(void)
{
	if (cmdev_paranoid_file)
		fput(cmdev_paranoid_file);
	if (cmdev_proc_mnt)
		kern_unmount(cmdev_proc_mnt);
	cmdev_paranoid_file = NULL;
	cmdev_proc_mnt = NULL;
}

/* The class of the current caller. */
static enum cmdev_priv cmdev_caller_priv(void)
{
	if (perfmon_capable())
		return CMDEV_PRIV_PERFMON;
	if (gid_valid(cmdev_kgid) && in_group_p(cmdev_kgid))
		return CMDEV_PRIV_GROUP;
	if (allow_unprivileged)
		return CMDEV_PRIV_USER;
	return CMDEV_PRIV_NONE;
}

/*
 * The paranoid level that binds a class. Members of cmdev.gid were granted the
 * device by the administrator, so level 3 ("no unprivileged counting") does
 * not shut them out; below that they are held to the level like anyone.
 */
static int cmdev_level(enum cmdev_priv priv)
{
	int level;

	if (priv == CMDEV_PRIV_PERFMON)
		return -1;
	level = cmdev_paranoid();
	return priv == CMDEV_PRIV_GROUP ? min(level, 2) : level;
}

/*
 * The class that applies now: the weaker of the opener's and the caller's.
 * -EACCES when it may not count at all, as perf_event_open() at level 3.
 */
static int cmdev_priv_now(const struct cmdev_session *s, enum cmdev_priv *priv)
{
	*priv = min(s->open_priv, cmdev_caller_priv());
	if (*priv == CMDEV_PRIV_NONE || cmdev_level(*priv) > 2)
		return -EACCES;
	return 0;
}

/*
 * Breakpoints and tracepoints need attr fields this ABI does not carry.
 * Counting kernel mode needs level 1 or less or CAP_PERFMON, as
 * perf_allow_kernel(), which perf_event_create_kernel_counter() does not call.
 */
static int cmdev_check_event(const struct cmdev_event *ev, int level)
{
	const u32 all_excluded = CMDEV_EV_EXCLUDE_USER | CMDEV_EV_EXCLUDE_KERNEL |
				 CMDEV_EV_EXCLUDE_HV;

	if (ev->flags & ~CMDEV_EV_FLAGS_ALL)
		return -EINVAL;
	if ((ev->flags & all_excluded) == all_excluded)
		return -EINVAL;
	if (ev->type == PERF_TYPE_TRACEPOINT || ev->type == PERF_TYPE_BREAKPOINT)
		return -EINVAL;
	if (!(ev->flags & CMDEV_EV_EXCLUDE_KERNEL) && level > 1)
		return -EACCES;
	return 0;
}

/* Attached, whether or not the task still counts: the session holds counters and the task. */
static bool cmdev_holds_task(const struct cmdev_session *s)
{
	return s->state == CMDEV_ATTACHED || s->state == CMDEV_GONE || s->state == CMDEV_REVOKED;
}

static int cmdev_configure(struct cmdev_session *s, const void __user *uarg)
{
	struct cmdev_event events[CMDEV_MAX_EVENTS];
	enum cmdev_priv priv;
	struct cmdev_config c;
	const u8 __user *uev;
	int level;
	u32 i;
	int err;

	err = cmdev_copy_in(&c, sizeof(c), uarg);
	if (err)
		return err;
	if (cmdev_holds_task(s))
		return -EBUSY;
	err = cmdev_priv_now(s, &priv);
	if (err)
		return err;
	level = cmdev_level(priv);
	if (c.n_events > CMDEV_MAX_EVENTS)
		return -E2BIG;
	if (c.n_events == 0 || c.slots == 0 || c.slots > c.n_events)
		return -EINVAL;
	if (c.flags & ~CMDEV_CONFIG_FLAGS_ALL || c.reserved)
		return -EINVAL;
	if (c.event_size < sizeof(struct cmdev_event))
		return -EINVAL;
	if (c.event_size > CMDEV_MAX_STRUCT_SIZE)
		return -E2BIG;

	uev = u64_to_user_ptr(c.events);
	for (i = 0; i < c.n_events; i++) {
		err = copy_struct_from_user(&events[i], sizeof(events[i]),
					    uev + (size_t)i * c.event_size, c.event_size);
		if (err)
			return err;
		err = cmdev_check_event(&events[i], level);
		if (err)
			return err;
	}

	memcpy(s->events, events, c.n_events * sizeof(events[0]));
	s->n_events = c.n_events;
	s->slots = c.slots;
	s->shuffle = c.flags & CMDEV_CONFIG_SHUFFLE;
	s->rng = c.seed;
	s->state = CMDEV_CONFIGURED;
	return 0;
}

/* The ids part of the ptrace rule: the watcher's real ids are all of the task's ids. */
static bool cmdev_ids_match(kuid_t uid, kgid_t gid, const struct cred *tcred)
{
	return uid_eq(uid, tcred->euid) && uid_eq(uid, tcred->suid) && uid_eq(uid, tcred->uid) &&
	       gid_eq(gid, tcred->egid) && gid_eq(gid, tcred->sgid) && gid_eq(gid, tcred->gid);
}

/*
 * The rule of ptrace_may_access(task, PTRACE_MODE_READ_REALCREDS), which the
 * kernel does not export to modules: the caller's thread group, or the
 * caller's real uid and gid equal all of the target's ids and the target is
 * dumpable, or CAP_SYS_PTRACE over the target. Security modules are not asked
 * (security_ptrace_access_check() is not exported either). *by_cap tells
 * whether a capability, not the ids, granted it.
 */
static bool cmdev_may_access(struct task_struct *task, bool *by_cap)
{
	const struct cred *cred = current_cred(), *tcred;
	struct mm_struct *mm;
	bool ok, ids;

	*by_cap = false;
	if (same_thread_group(task, current))
		return true;

	task_lock(task);
	rcu_read_lock();
	tcred = __task_cred(task);
	ids = cmdev_ids_match(cred->uid, cred->gid, tcred);
	ok = ids || ns_capable(tcred->user_ns, CAP_SYS_PTRACE);
	rcu_read_unlock();
	*by_cap = !ids;
	if (ok) {
		/* Dumpability must be read after the credentials (pairs with commit_creds()). */
		smp_rmb();
		mm = task->mm;
		if (mm && get_dumpable(mm) != SUID_DUMP_USER) {
			ok = ns_capable(mm->user_ns, CAP_SYS_PTRACE);
			*by_cap = true;
		}
	}
	task_unlock(task);
	return ok;
}

static struct task_struct *cmdev_get_task(pid_t nr)
{
	struct task_struct *task;
	struct pid *pid;

	if (nr == 0) {
		get_task_struct(current);
		return current;
	}
	pid = find_get_pid(nr);
	if (!pid)
		return ERR_PTR(-ESRCH);
	task = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	return task ? task : ERR_PTR(-ESRCH);
}

/* Makes s the one session of task; -EBUSY when another session has it. */
static int cmdev_claim(struct cmdev_session *s, struct task_struct *task)
{
	struct cmdev_session *other;
	int err = 0;

	mutex_lock(&cmdev_claims_lock);
	list_for_each_entry(other, &cmdev_claims, claim) {
		if (other->task == task) {
			err = -EBUSY;
			break;
		}
	}
	if (!err) {
		s->task = task;
		list_add(&s->claim, &cmdev_claims);
	}
	mutex_unlock(&cmdev_claims_lock);
	return err;
}

static void cmdev_unclaim(struct cmdev_session *s)
{
	mutex_lock(&cmdev_claims_lock);
	list_del_init(&s->claim);
	mutex_unlock(&cmdev_claims_lock);
	s->task = NULL;
}

static void cmdev_release_counters(struct cmdev_session *s)
{
	u32 i;

	for (i = 0; i < CMDEV_MAX_EVENTS; i++) {
		if (s->counters[i])
			perf_event_release_kernel(s->counters[i]);
		s->counters[i] = NULL;
	}
	if (s->clock)
		perf_event_release_kernel(s->clock);
	s->clock = NULL;
}

static struct perf_event *cmdev_counter(struct perf_event_attr *attr, struct task_struct *task,
					u32 flags, bool live)
{
	const bool on_exec = flags & CMDEV_ATTACH_ON_EXEC;

	attr->size = sizeof(*attr);
	attr->inherit = !!(flags & CMDEV_ATTACH_INHERIT);
	attr->disabled = !live || on_exec;
	attr->enable_on_exec = live && on_exec;
	return perf_event_create_kernel_counter(attr, -1, task, NULL, NULL);
}

static int cmdev_create_counters(struct cmdev_session *s, struct task_struct *task, u32 flags)
{
	struct perf_event_attr clock_attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_TASK_CLOCK,
	};
	struct perf_event *counter;
	u32 i;

	counter = cmdev_counter(&clock_attr, task, flags, true);
	if (IS_ERR(counter))
		return PTR_ERR(counter);
	s->clock = counter;
	s->last_clock = 0;
	for (i = 0; i < s->n_events; i++) {
		const struct cmdev_event *ev = &s->events[i];
		struct perf_event_attr attr = {
			.type = ev->type,
			.config = ev->config,
			.exclude_user = !!(ev->flags & CMDEV_EV_EXCLUDE_USER),
			.exclude_kernel = !!(ev->flags & CMDEV_EV_EXCLUDE_KERNEL),
			.exclude_hv = !!(ev->flags & CMDEV_EV_EXCLUDE_HV),
		};

		counter = cmdev_counter(&attr, task, flags, s->live & BIT(i));
		if (IS_ERR(counter)) {
			cmdev_release_counters(s);
			return PTR_ERR(counter);
		}
		s->counters[i] = counter;
		s->last_count[i] = 0;
		s->last_enabled[i] = 0;
		s->last_running[i] = 0;
	}
	return 0;
}

static int cmdev_attach(struct cmdev_session *s, const void __user *uarg)
{
	struct task_struct *task;
	struct cmdev_attach a;
	enum cmdev_priv priv;
	bool by_cap;
	int err, level;
	u32 i;

	err = cmdev_copy_in(&a, sizeof(a), uarg);
	if (err)
		return err;
	if (a.flags & ~CMDEV_ATTACH_FLAGS_ALL || a.reserved || a.pid < 0)
		return -EINVAL;
	if (cmdev_holds_task(s))
		return -EBUSY;
	if (s->state != CMDEV_CONFIGURED)
		return -EINVAL;
	/*
	 * The exported perf API switches only the top-level counter, not the
	 * per-thread copies that inherit creates, so inherited counters cannot
	 * be rotated: they must all stay live.
	 */
	if (a.flags & CMDEV_ATTACH_INHERIT && s->slots != s->n_events)
		return -EINVAL;
	/* Counters are made now: the policy of now applies, as at perf_event_open(). */
	err = cmdev_priv_now(s, &priv);
	if (err)
		return err;
	level = cmdev_level(priv);
	for (i = 0; i < s->n_events; i++) {
		err = cmdev_check_event(&s->events[i], level);
		if (err)
			return err;
	}

	task = cmdev_get_task(a.pid);
	if (IS_ERR(task))
		return PTR_ERR(task);
	if (task->flags & PF_KTHREAD) {
		err = -EINVAL;
		goto out_put;
	}
	if (task->flags & PF_EXITING) {
		err = -ESRCH;
		goto out_put;
	}
	/* As perf_event_open(): hold off exec between the check and the counters. */
	err = down_read_interruptible(&task->signal->exec_update_lock);
	if (err)
		goto out_put;
	/* As perf_check_permission(): CAP_PERFMON may count any task. */
	if (priv == CMDEV_PRIV_PERFMON) {
		by_cap = true;
	} else if (!cmdev_may_access(task, &by_cap)) {
		err = -EPERM;
		goto out_unlock;
	}
	err = cmdev_claim(s, task);
	if (err)
		goto out_unlock;
	s->step = 0;
	s->period = s->n_events / gcd(s->n_events, s->slots);
	cmdev_draw_order(s, s->order);
	cmdev_draw_order(s, s->next_order);
	s->live = cmdev_live_set(s, s->order[0]);
	s->seq = 0;
	s->attach_flags = a.flags;
	s->started = !(a.flags & CMDEV_ATTACH_ON_EXEC);
	s->watcher_privileged = by_cap;
	s->watcher_uid = current_uid();
	s->watcher_gid = current_gid();
	s->exec_id = READ_ONCE(task->self_exec_id);
	err = cmdev_create_counters(s, task, a.flags);
	if (err) {
		cmdev_unclaim(s);
		goto out_unlock;
	}
	up_read(&task->signal->exec_update_lock);
	s->pid = get_task_pid(task, PIDTYPE_PID);
	s->state = CMDEV_ATTACHED;
	return 0;	/* the task reference now belongs to the session */

out_unlock:
	up_read(&task->signal->exec_update_lock);
out_put:
	put_task_struct(task);
	return err;
}

static void cmdev_detach_locked(struct cmdev_session *s)
{
	struct task_struct *task = s->task;

	cmdev_release_counters(s);
	cmdev_unclaim(s);
	put_task_struct(task);
	put_pid(s->pid);
	s->pid = NULL;
	s->state = CMDEV_CONFIGURED;
}

static int cmdev_detach(struct cmdev_session *s)
{
	if (!cmdev_holds_task(s))
		return -EINVAL;
	cmdev_detach_locked(s);
	return 0;
}

/*
 * Whether the kernel took the counters away from the task. An exec of a
 * setuid or otherwise non-dumpable program removes every perf counter from
 * the task (begin_new_exec() calls perf_event_exit_task()), as exit does; the
 * counters then read the same value forever. Counters in the EXIT state on a
 * task that is not exiting were removed by such an exec. If the task has
 * exited too by now, exit and exec cannot be told apart by the counters; the
 * exec shows when the task exec'd since the last sample and its ids no
 * longer match those of a watcher who had access by ids (a watcher with
 * CAP_SYS_PTRACE or CAP_PERFMON is told at exit only when it looked between).
 */
static bool cmdev_revoked(struct cmdev_session *s)
{
	struct task_struct *task = s->task;
	bool match;

	if (READ_ONCE(s->clock->state) != PERF_EVENT_STATE_EXIT) {
		s->exec_id = READ_ONCE(task->self_exec_id);
		return false;
	}
	/* PF_EXITING is set before do_exit() removes the counters. */
	smp_rmb();
	if (!(READ_ONCE(task->flags) & PF_EXITING))
		return true;
	if (s->watcher_privileged || READ_ONCE(task->self_exec_id) == s->exec_id)
		return false;
	rcu_read_lock();
	match = cmdev_ids_match(s->watcher_uid, s->watcher_gid, __task_cred(task));
	rcu_read_unlock();
	return !match;
}

/*
 * A task attached with ON_EXEC counts from its next exec, where perf enables
 * the events created with enable_on_exec: those of the first live set. Until
 * then nothing is rotated, so no other event is ever left waiting for the exec
 * (perf_event_disable() of an event that never ran does not clear its
 * enable_on_exec, and an event enabled before the exec would count the
 * monitor's side of fork). The clock is one of them: it leaves the OFF state
 * at the exec.
 */
static bool cmdev_waiting_for_exec(struct cmdev_session *s)
{
	if (!s->started && READ_ONCE(s->clock->state) != PERF_EVENT_STATE_OFF)
		s->started = true;
	return !s->started;
}

static int cmdev_sample(struct cmdev_session *s, void __user *uarg)
{
	struct cmdev_sample *out = &s->out;
	u64 clock, enabled, running;
	u32 usize, next, i;
	bool exited;
	int err;

	err = cmdev_user_size(uarg, sizeof(*out), &usize);
	if (err)
		return err;
	if (s->state == CMDEV_GONE)
		return -ESRCH;
	if (s->state == CMDEV_REVOKED)
		return -EPERM;
	if (s->state != CMDEV_ATTACHED)
		return -EINVAL;
	if (cmdev_revoked(s)) {
		s->state = CMDEV_REVOKED;
		return -EPERM;
	}

	/* exit_state is set after perf_event_exit_task(): the counts are final. */
	exited = READ_ONCE(s->task->exit_state) != 0;
	memset(out, 0, sizeof(*out));
	out->size = sizeof(*out);
	out->seq = ++s->seq;
	if (!exited && cmdev_waiting_for_exec(s)) {
		out->flags = CMDEV_SAMPLE_NOT_STARTED;
		out->next_mask = s->live;
		return cmdev_copy_out(uarg, usize, out, sizeof(*out));
	}

	next = exited ? s->live : cmdev_live_set(s, cmdev_next_set(s));
	out->live_mask = s->live;
	out->next_mask = next;
	clock = perf_event_read_value(s->clock, &enabled, &running);
	out->task_ns = clock - s->last_clock;
	s->last_clock = clock;

	/* Stop the outgoing events first so nothing they count after the read is lost. */
	for (i = 0; i < s->n_events; i++)
		if (s->live & ~next & BIT(i))
			perf_event_disable(s->counters[i]);
	for (i = 0; i < s->n_events; i++) {
		u64 count;

		if (!(s->live & BIT(i)))
			continue;
		count = perf_event_read_value(s->counters[i], &enabled, &running);
		out->delta[i] = count - s->last_count[i];
		out->enabled[i] = enabled - s->last_enabled[i];
		out->running[i] = running - s->last_running[i];
		s->last_count[i] = count;
		s->last_enabled[i] = enabled;
		s->last_running[i] = running;
	}
	for (i = 0; i < s->n_events; i++)
		if (next & ~s->live & BIT(i))
			perf_event_enable(s->counters[i]);

	s->live = next;
	cmdev_advance(s);
	if (exited) {
		out->flags |= CMDEV_SAMPLE_EXITED;
		s->state = CMDEV_GONE;
	}
	return cmdev_copy_out(uarg, usize, out, sizeof(*out));
}

static long cmdev_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct cmdev_session *s = file->private_data;
	void __user *uarg = (void __user *)arg;
	long err;

	if (cmd == CMDEV_IOC_VERSION)
		return cmdev_version(uarg);

	mutex_lock(&s->lock);
	switch (cmd) {
	case CMDEV_IOC_CONFIGURE:
		err = cmdev_configure(s, uarg);
		break;
	case CMDEV_IOC_ATTACH:
		err = cmdev_attach(s, uarg);
		break;
	case CMDEV_IOC_SAMPLE:
		err = cmdev_sample(s, uarg);
		break;
	case CMDEV_IOC_DETACH:
		err = cmdev_detach(s);
		break;
	default:
		err = -ENOTTY;
		break;
	}
	mutex_unlock(&s->lock);
	return err;
}

/*
 * The human-readable snapshot: current totals, without disturbing the
 * deltas. The task's pid is the one the reader's pid namespace gives it
 * (0 when the task is not visible there, or has been reaped).
 */
static size_t cmdev_snapshot(struct cmdev_session *s, char *buf, size_t size)
{
	const bool counting = cmdev_holds_task(s);
	u64 count, enabled, running;
	size_t n = 0;
	u32 i;

	n += scnprintf(buf + n, size - n, "cmdev abi %d\nstate %s\n", CMDEV_ABI_VERSION,
		       cmdev_state_names[s->state]);
	if (s->state == CMDEV_NEW)
		return n;
	n += scnprintf(buf + n, size - n, "events %u slots %u rotation %s\n", s->n_events, s->slots,
		       s->shuffle ? "shuffled" : "round-robin");
	if (counting)
		n += scnprintf(buf + n, size - n,
			       "task %d inherit %d on_exec %d started %d\nsamples %llu live 0x%x task_ns %llu\n",
			       pid_vnr(s->pid), !!(s->attach_flags & CMDEV_ATTACH_INHERIT),
			       !!(s->attach_flags & CMDEV_ATTACH_ON_EXEC), s->started, s->seq, s->live,
			       perf_event_read_value(s->clock, &enabled, &running));
	for (i = 0; i < s->n_events; i++) {
		const struct cmdev_event *ev = &s->events[i];

		n += scnprintf(buf + n, size - n, "event %u type %u config 0x%llx flags 0x%x", i,
			       ev->type, ev->config, ev->flags);
		if (counting) {
			count = perf_event_read_value(s->counters[i], &enabled, &running);
			n += scnprintf(buf + n, size - n,
				       " count %llu enabled_ns %llu running_ns %llu%s", count,
				       enabled, running, s->live & BIT(i) ? " live" : "");
		}
		n += scnprintf(buf + n, size - n, "\n");
	}
	return n;
}

/*
 * Every read() returns the whole snapshot of this moment, like read() of a
 * perf event: it has no file position and never ends. A buffer too small for
 * the snapshot is -ENOSPC (CMDEV_SNAPSHOT_MAX bytes always suffice).
 */
static ssize_t cmdev_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	struct cmdev_session *s = file->private_data;
	ssize_t ret;
	size_t n;
	char *buf;

	buf = kmalloc(CMDEV_SNAPSHOT_MAX, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	mutex_lock(&s->lock);
	n = cmdev_snapshot(s, buf, CMDEV_SNAPSHOT_MAX);
	mutex_unlock(&s->lock);
	if (len < n)
		ret = -ENOSPC;
	else
		ret = copy_to_user(ubuf, buf, n) ? -EFAULT : n;
	kfree(buf);
	return ret;
}

/*
 * The device is for perfmon_capable() callers and members of cmdev.gid, or
 * for everyone with allow_unprivileged as far as perf_event_paranoid lets
 * them count at all. The node's mode says the same, but is not relied on:
 * an administrator may have made it wider by accident.
 */
static int cmdev_open(struct inode *inode, struct file *file)
{
	enum cmdev_priv priv = cmdev_caller_priv();
	struct cmdev_session *s;

	if (priv == CMDEV_PRIV_NONE || cmdev_level(priv) > 2)
		return -EACCES;
	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	mutex_init(&s->lock);
	INIT_LIST_HEAD(&s->claim);
	s->open_priv = priv;
	file->private_data = s;
	return nonseekable_open(inode, file);
}

static int cmdev_release(struct inode *inode, struct file *file)
{
	struct cmdev_session *s = file->private_data;

	if (cmdev_holds_task(s))
		cmdev_detach_locked(s);
	mutex_destroy(&s->lock);
	kfree(s);
	return 0;
}

static const struct file_operations cmdev_fops = {
	.owner = THIS_MODULE,	/* a session pins the module */
	.open = cmdev_open,
	.release = cmdev_release,
	.read = cmdev_read,
	.unlocked_ioctl = cmdev_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = no_llseek,
};

static struct miscdevice cmdev_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "cmdev",
	.fops = &cmdev_fops,
};

static int __init cmdev_init(void)
{
	int err;

	if (gid < -1) {
		pr_err("gid=%d: not a group id\n", gid);
		return -EINVAL;
	}
	if (gid >= 0)
		cmdev_kgid = make_kgid(&init_user_ns, gid);
	/* The node's mode matches who open() lets in; root otherwise. */
	if (allow_unprivileged)
		cmdev_misc.mode = 0666;
	else if (gid_valid(cmdev_kgid))
		cmdev_misc.mode = 0660;
	else
		cmdev_misc.mode = 0600;
	cmdev_paranoid_init();
	err = misc_register(&cmdev_misc);
	if (err)
		cmdev_paranoid_exit();
	return err;
}

static void __exit cmdev_exit(void)
{
	misc_deregister(&cmdev_misc);
	cmdev_paranoid_exit();
}

module_init(cmdev_init);
module_exit(cmdev_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Per-task virtual event counters (multiplexed perf events) on /dev/cmdev");
