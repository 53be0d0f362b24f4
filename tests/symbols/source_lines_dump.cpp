// What sprof's line resolution (ObjectLines) says of addresses in one file,
// in a form check_addr2line.py compares with addr2line -i and eu-addr2line -i:
// per address one line
//   ADDRESS FILE:LINE
// then one line per inlined call around it, innermost first,
//   FUNCTION @ CALL_FILE:CALL_LINE
// and an empty line.
//
// usage: source_lines_dump FILE ADDRESS... (link-time addresses, hex)
#include <cstdio>
#include <cstdlib>

#include "sprof/source_lines.hpp"

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s FILE ADDRESS...\n", argv[0]);
        return 2;
    }
    sprof::ObjectLines object(argv[1]);
    if (!object.has_lines()) {
        std::fprintf(stderr, "%s: no line information\n", argv[1]);
        return 1;
    }
    for (int i = 2; i < argc; ++i) {
        const uint64_t address = std::strtoull(argv[i], nullptr, 16);
        const sprof::SourcePosition pos = object.locate(address);
        std::printf("%#lx %s:%u\n", static_cast<unsigned long>(address), pos.file.c_str(), pos.line);
        for (const auto& call : pos.inlined)
            std::printf("%s @ %s:%u\n", call.function.c_str(), call.call_file.c_str(), call.call_line);
        std::printf("\n");
    }
    return 0;
}
