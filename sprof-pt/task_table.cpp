#include "task_table.hpp"

namespace sprof::pt {

TracedThread& TaskTable::add_thread(pid_t tid, pid_t pid) {
    remove_thread(tid);
    auto& slot = threads_[tid];
    slot = std::make_unique<TracedThread>();
    slot->tid = tid;
    slot->pid = pid;
    return *slot;
}

TracedThread* TaskTable::thread(pid_t tid) {
    auto it = threads_.find(tid);
    return it == threads_.end() ? nullptr : it->second.get();
}

void TaskTable::set_ticker(TracedThread& t, std::unique_ptr<CpuTicker> ticker) {
    watch_ticks(t, ticker->fd());
    t.ticker = std::move(ticker);
}

void TaskTable::watch_ticks(TracedThread& t, int fd) {
    by_ticker_[fd] = t.tid;
    t.tick_fd = fd;
}

TracedThread* TaskTable::thread_by_ticker(int fd) {
    auto it = by_ticker_.find(fd);
    return it == by_ticker_.end() ? nullptr : thread(it->second);
}

void TaskTable::rename_thread(pid_t from, pid_t to) {
    auto it = threads_.find(from);
    if (it == threads_.end()) return;
    std::unique_ptr<TracedThread> t = std::move(it->second);
    threads_.erase(it);
    remove_thread(to);
    t->tid = to;
    if (t->tick_fd >= 0) by_ticker_[t->tick_fd] = to;
    threads_[to] = std::move(t);
}

void TaskTable::remove_thread(pid_t tid) {
    auto it = threads_.find(tid);
    if (it == threads_.end()) return;
    if (it->second->tick_fd >= 0) by_ticker_.erase(it->second->tick_fd);
    threads_.erase(it);
}

std::vector<pid_t> TaskTable::threads_of(pid_t pid) const {
    std::vector<pid_t> tids;
    for (const auto& [tid, t] : threads_)
        if (t->pid == pid) tids.push_back(tid);
    return tids;
}

TracedProcess& TaskTable::add_process(pid_t pid, std::string program) {
    TracedProcess& p = processes_[pid];
    p.pid = pid;
    p.program = std::move(program);
    return p;
}

TracedProcess* TaskTable::process(pid_t pid) {
    auto it = processes_.find(pid);
    return it == processes_.end() ? nullptr : &it->second;
}

void TaskTable::remove_process(pid_t pid) { processes_.erase(pid); }

}  // namespace sprof::pt
