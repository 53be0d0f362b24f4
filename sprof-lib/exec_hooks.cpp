// The exec family. Before the owner process execs: its profile is flushed
// and ended ("exec"), and the new image learns its number (SPROF_IMAGE in the
// environment it is given), so its own profile gets a name of its own and
// never truncates this one. If the exec fails, the program goes on and so
// does its profile. Every public entry point is hooked: glibc's calls between
// them are internal and cannot be interposed.
//
// exec may be called from a signal handler or a vfork child: nothing here
// allocates (arrays on the stack, functions looked up at load).
#include <alloca.h>
#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <cstdarg>
#include <cstring>

#include "runtime.hpp"
#include "sprof/run_profile.hpp"

namespace {

using execve_fn = int (*)(const char*, char* const[], char* const[]);
using fexecve_fn = int (*)(int, char* const[], char* const[]);
using execveat_fn = int (*)(int, const char*, char* const[], char* const[], int);

execve_fn real_execve = nullptr;
execve_fn real_execvpe = nullptr;
fexecve_fn real_fexecve = nullptr;
execveat_fn real_execveat = nullptr;

__attribute__((constructor(101))) void find_real_execs() {
    real_execve = reinterpret_cast<execve_fn>(dlsym(RTLD_NEXT, "execve"));
    real_execvpe = reinterpret_cast<execve_fn>(dlsym(RTLD_NEXT, "execvpe"));
    real_fexecve = reinterpret_cast<fexecve_fn>(dlsym(RTLD_NEXT, "fexecve"));
    real_execveat = reinterpret_cast<execveat_fn>(dlsym(RTLD_NEXT, "execveat"));
}

size_t count(char* const* v) {
    size_t n = 0;
    if (v)
        while (v[n]) ++n;
    return n;
}

bool is_image_entry(const char* e) {
    const size_t n = std::strlen(sprof::kImageVariable);
    return std::strncmp(e, sprof::kImageVariable, n) == 0 && e[n] == '=';
}

// `env`: room for count(envp) + 2 pointers. Copies envp with this process's
// next image number in place of any inherited one.
void with_image(char* const* envp, char** env) {
    size_t k = 0;
    for (size_t i = 0, n = count(envp); i < n; ++i)
        if (!is_image_entry(envp[i])) env[k++] = envp[i];
    if (const char* entry = sprof::rt::next_image_entry()) env[k++] = const_cast<char*>(entry);
    env[k] = nullptr;
}

// Runs `call(env)`, the real exec, around the profile's end and resumption.
template <typename Call>
int run_exec(char* const* envp, Call call) {
    using namespace sprof::rt;
    if (!is_owner()) return call(envp);  // a (v)fork child: not the profiled image
    char** env = static_cast<char**>(alloca((count(envp) + 2) * sizeof(char*)));
    with_image(envp, env);
    const bool suspended = suspend_for_exec();
    const int rc = call(env);
    const int err = errno;
    if (suspended) exec_failed();
    errno = err;
    return rc;
}

int missing() {
    errno = ENOSYS;
    return -1;
}

}  // namespace

// The list-argument forms: argv (and envp) are collected on the stack.
#define SPROF_COLLECT_ARGS(arg, argv, after)                                   \
    size_t n_args = 1;                                                         \
    {                                                                          \
        va_list ap;                                                            \
        va_start(ap, arg);                                                     \
        while (va_arg(ap, const char*)) ++n_args;                              \
        va_end(ap);                                                            \
    }                                                                          \
    char** argv = static_cast<char**>(alloca((n_args + 1) * sizeof(char*)));   \
    {                                                                          \
        va_list ap;                                                            \
        va_start(ap, arg);                                                     \
        argv[0] = const_cast<char*>(arg);                                      \
        for (size_t i = 1; i <= n_args; ++i) argv[i] = va_arg(ap, char*);      \
        after;                                                                 \
        va_end(ap);                                                            \
    }

#define SPROF_EXPORT extern "C" __attribute__((visibility("default")))

SPROF_EXPORT int execve(const char* path, char* const argv[], char* const envp[]) noexcept {
    return run_exec(envp, [&](char* const* env) { return real_execve ? real_execve(path, argv, env) : missing(); });
}

SPROF_EXPORT int execv(const char* path, char* const argv[]) noexcept { return execve(path, argv, environ); }

SPROF_EXPORT int execvpe(const char* file, char* const argv[], char* const envp[]) noexcept {
    return run_exec(envp, [&](char* const* env) { return real_execvpe ? real_execvpe(file, argv, env) : missing(); });
}

SPROF_EXPORT int execvp(const char* file, char* const argv[]) noexcept { return execvpe(file, argv, environ); }

SPROF_EXPORT int fexecve(int fd, char* const argv[], char* const envp[]) noexcept {
    return run_exec(envp, [&](char* const* env) { return real_fexecve ? real_fexecve(fd, argv, env) : missing(); });
}

SPROF_EXPORT int execveat(int dirfd, const char* path, char* const argv[], char* const envp[], int flags) noexcept {
    return run_exec(envp, [&](char* const* env) {
        return real_execveat ? real_execveat(dirfd, path, argv, env, flags) : missing();
    });
}

SPROF_EXPORT int execl(const char* path, const char* arg, ...) noexcept {
    SPROF_COLLECT_ARGS(arg, argv, (void)0)
    return execve(path, argv, environ);
}

SPROF_EXPORT int execlp(const char* file, const char* arg, ...) noexcept {
    SPROF_COLLECT_ARGS(arg, argv, (void)0)
    return execvpe(file, argv, environ);
}

SPROF_EXPORT int execle(const char* path, const char* arg, ...) noexcept {
    char* const* envp = nullptr;
    SPROF_COLLECT_ARGS(arg, argv, envp = va_arg(ap, char* const*))
    return execve(path, argv, envp);
}
