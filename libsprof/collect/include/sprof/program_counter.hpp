// Where the program counter is, wherever a collector finds it: in a signal's
// ucontext (sprof_lib's handler), in a stopped thread's registers (sprof_pt)
// and in perf's records of the user registers. The one place that knows the
// architecture.
#pragma once
#include <asm/perf_regs.h>
#include <sys/user.h>
#include <ucontext.h>

#include <cstdint>

namespace sprof {

#if defined(__x86_64__)
// The program counter's number in PERF_SAMPLE_REGS_USER.
constexpr uint64_t kPcRegister = PERF_REG_X86_IP;
// Async-signal-safe: read in the sampling handler.
inline uint64_t pc_of(const ucontext_t& uc) noexcept { return static_cast<uint64_t>(uc.uc_mcontext.gregs[REG_RIP]); }
inline uint64_t pc_of(const user_regs_struct& regs) noexcept { return regs.rip; }
#elif defined(__aarch64__)
constexpr uint64_t kPcRegister = PERF_REG_ARM64_PC;
inline uint64_t pc_of(const ucontext_t& uc) noexcept { return uc.uc_mcontext.pc; }
inline uint64_t pc_of(const user_regs_struct& regs) noexcept { return regs.pc; }
#else
#error "sprof: program counter extraction not implemented for this architecture"
#endif

}  // namespace sprof
