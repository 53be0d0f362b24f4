// A profile's source lines, read from the objects that ran. Since format
// 1.7 the collectors record only which instructions they sampled (an address
// row each, with a location of its own whose file and line are unknown) and
// the analyzer finds their lines here, as perf report does: a profiled run
// never pays for opening debug info. An object is read only when it is the
// file that ran: a regular file at the recorded path with the recorded
// build-id (by path alone when none was recorded, as perf does).
#pragma once
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "sprof/profile.hpp"
#include "sprof/source_lines.hpp"

namespace sprof {

class ProfileLineReader {
public:
    // Gives every unknown location of `p` (SourceLines::resolved false) the
    // file:line and inline chain of its address, merges locations that are
    // now the same line, and the line cells of each interval with them.
    // An object that is gone or was replaced since the run keeps unknown
    // lines and gets one warning in p.warnings. Objects are opened once per
    // reader, so the ranks of a job share them.
    void resolve(Profile& p);

private:
    // The object's line tables, or null (with `why` set when the user should
    // hear of it).
    ObjectLines* lines_of(const ProfileObject& object, std::string& why);

    std::map<std::pair<std::string, std::string>, std::unique_ptr<ObjectLines>> files_;  // (path, build-id)
    std::map<std::pair<std::string, std::string>, std::string> unreadable_;             // → why
};

}  // namespace sprof
