/* Runs a command and reports its main thread's task-clock: the clock sprof's
 * ticks run on (workload_common.h says how it parts from the CPU clock),
 * for a program that cannot read it itself, such as a shell.
 *
 * usage: main_thread_clock OUT COMMAND [ARG…]
 * The counter is opened on the child before it execs COMMAND and follows
 * that thread through every exec (a collector's launcher execs the program
 * in place), not its other threads. OUT gets "cpu0 SECONDS"; the exit status
 * is the command's (128 + signal when killed). */
#include "workload_common.h" /* first: it defines _GNU_SOURCE */

#include <signal.h>
#include <sys/wait.h>

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUT COMMAND [ARG...]\n", argv[0]);
        return 2;
    }
    int go[2];
    if (pipe(go) != 0) {
        perror("pipe");
        return 2;
    }
    const pid_t child = fork();
    if (child < 0) {
        perror("fork");
        return 2;
    }
    if (child == 0) { /* waits until its counter is open, then becomes the command */
        char c;
        close(go[1]);
        if (read(go[0], &c, 1) != 1) _exit(2);
        execvp(argv[2], argv + 2);
        perror(argv[2]);
        _exit(127);
    }
    close(go[0]);
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_TASK_CLOCK;
    int fd = (int)syscall(SYS_perf_event_open, &a, child, -1, -1, 0);
    if (fd < 0) { /* user space only where a user may count no more; task-clock counts the same */
        a.exclude_kernel = a.exclude_hv = 1;
        fd = (int)syscall(SYS_perf_event_open, &a, child, -1, -1, 0);
    }
    if (fd < 0) {
        perror("perf_event_open(task-clock of the child)");
        kill(child, SIGKILL);
        return 2;
    }
    if (write(go[1], "g", 1) != 1) return 2;
    int status;
    if (waitpid(child, &status, 0) != child) return 2;
    uint64_t ns = 0;
    if (read(fd, &ns, sizeof ns) != (ssize_t)sizeof ns) {
        perror("read(task-clock)");
        return 2;
    }
    FILE *out = fopen(argv[1], "w");
    if (!out || fprintf(out, "cpu0 %.9f\n", ns / 1e9) < 0 || fclose(out) != 0) {
        perror(argv[1]);
        return 2;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
