// The checksum every record carries from format 1.12 on (docs/FORMAT.md):
// whether a record's bytes are those its writer wrote, and where the next
// such record starts after a damaged one. It tells a damaged file from one
// cut short: a cut leaves one record incomplete at the end, damage leaves
// a record whose checksum fails, or whose length runs past the end of the
// file while complete records follow it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace sprof::records {

enum class RecordCheck {
    incomplete,  // fewer bytes than its header and its length say
    intact,      // complete, and its checksum matches
    damaged,     // complete, and its checksum does not match (or it has no room for one)
};

// The record at `at` of `bytes` (of a file of minor 12 or later).
RecordCheck check_record(std::string_view bytes, size_t at, bool swap);

// Why the complete record at `at` is damaged, for the error message.
std::string damage_of(std::string_view bytes, size_t at, bool swap);

// Whether the record at the start of `tail` would be intact if its length
// said it ends where `tail` ends: a damaged length, not a cut-short write,
// when it is the file's last record.
bool intact_to_end(std::string_view tail, bool swap);

// The first offset from `from` on where an intact record starts, or npos.
// A scan of the bytes one offset at a time, stopped (npos) when its
// checksums have read 16 times the bytes scanned and 1 MiB more: only
// crafted bytes come near that, and their tail is then taken as cut short.
size_t next_intact_record(std::string_view bytes, size_t from, bool swap);

}  // namespace sprof::records
