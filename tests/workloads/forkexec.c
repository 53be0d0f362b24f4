/* A parent that works in parent_work() while its child works in child_work()
 * and then execs another program (argv after "--"). The child's profile must
 * switch to the new image's symbols at the exec. Prints "child PID".
 *
 * usage: forkexec [-t SECONDS] -- PROGRAM [ARGS...] */
#include "workload_common.h" /* first: it defines _GNU_SOURCE */

#include <sys/wait.h>

static volatile double sink;

__attribute__((noinline)) void parent_work(double s) { spin_cpu(s, &sink); }
__attribute__((noinline)) void child_work(double s) { spin_cpu(s, &sink); }

int main(int argc, char **argv) {
    double seconds = 0.5;
    int c;
    while ((c = getopt(argc, argv, "t:")) != -1) {
        if (c != 't') return 2;
        seconds = atof(optarg);
    }
    if (optind >= argc) {
        fprintf(stderr, "usage: %s [-t seconds] -- program [args...]\n", argv[0]);
        return 2;
    }
    pid_t pid = fork();
    if (pid < 0) return perror("fork"), 3;
    if (pid == 0) {
        child_work(seconds);
        execvp(argv[optind], argv + optind);
        perror(argv[optind]);
        _exit(127);
    }
    printf("child %d\n", (int)pid);
    fflush(stdout);
    parent_work(seconds);
    int status;
    if (waitpid(pid, &status, 0) != pid) return perror("waitpid"), 3;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
