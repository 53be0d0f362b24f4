#include "fatal_signals.hpp"

#include <signal.h>

#include <cerrno>

#include "runtime.hpp"

namespace sprof::rt {
namespace {

// Signals whose default action ends the process and that programs rarely
// inspect before installing their own handler. Not SIGINT: some programs
// (Python) install their own handler only if they find SIGINT at SIG_DFL.
// Not the timer signals (SIGALRM, SIGVTALRM, SIGPROF) or SIGUSR1/2, for the
// same reason; SIGKILL cannot be caught (its profile ends with the last
// periodic part).
constexpr int kFatalSignals[] = {SIGHUP, SIGQUIT, SIGILL,  SIGTRAP, SIGABRT, SIGBUS, SIGFPE,
                                 SIGSEGV, SIGPIPE, SIGTERM, SIGXCPU, SIGXFSZ, SIGSYS};

// Async-signal-safe: end_profile only posts and polls.
void on_fatal(int signo, siginfo_t*, void*) {
    const int saved_errno = errno;
    end_profile(EndHow::signal, signo);
    struct sigaction dfl{};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(signo, &dfl, nullptr);
    // Pending while this handler runs (the signal is blocked in it); taken at
    // its default as the handler returns: a fault (SIGSEGV…) kills before the
    // faulting instruction runs again, kill/raise/abort kill just the same.
    raise(signo);
    errno = saved_errno;
}

}  // namespace

void install_fatal_handlers(int sampling_signo) {
    struct sigaction sa{};
    sa.sa_sigaction = on_fatal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;  // the program's alternate stack, if it set one
    sigfillset(&sa.sa_mask);
    for (int s : kFatalSignals) {
        if (s == sampling_signo) continue;
        struct sigaction old{};
        if (sigaction(s, nullptr, &old) == 0 && old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO))
            sigaction(s, &sa, nullptr);
    }
}

}  // namespace sprof::rt
