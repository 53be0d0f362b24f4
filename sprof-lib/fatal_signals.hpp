// Recording how a program that dies of a signal ended, without changing how
// it dies.
#pragma once

namespace sprof::rt {

// For each terminating signal the program leaves at its default (except the
// sampling signal `sampling_signo`): a handler that ends the profile (bounded
// wait), restores the default and raises the signal again, so the program
// dies exactly as it would have, with the same status. A handler the program
// installs later simply replaces ours.
void install_fatal_handlers(int sampling_signo);

}  // namespace sprof::rt
