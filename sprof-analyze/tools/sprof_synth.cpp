// Writes a synthetic profile of known structure (synthetic.hpp):
//   sprof_synth small|phases|hour OUTPUT
#include <cstring>
#include <iostream>

#include "sprof/profile_io.hpp"
#include "synthetic.hpp"

int main(int argc, char** argv) {
    using namespace sprof;
    if (argc != 3) {
        std::cerr << "usage: sprof_synth small|phases|hour OUTPUT\n";
        return 2;
    }
    Profile p;
    if (!std::strcmp(argv[1], "small")) p = synthetic::small_profile();
    else if (!std::strcmp(argv[1], "phases")) p = synthetic::build(synthetic::phases_spec());
    else if (!std::strcmp(argv[1], "hour")) p = synthetic::build(synthetic::hour_spec());
    else {
        std::cerr << "sprof_synth: unknown profile kind '" << argv[1] << "' (small, phases or hour)\n";
        return 2;
    }
    try {
        ProfileWriter w;
        w.open(argv[2], p.header);
        for (const auto& o : p.objects) w.add_object(o);
        for (const auto& f : p.functions) w.add_function(f);
        for (const auto& t : p.threads) w.add_thread(t);
        for (const auto& iv : p.intervals) w.add_interval(iv);
        w.finish(p.end);
    } catch (const std::exception& e) {
        std::cerr << "sprof_synth: " << e.what() << '\n';
        return 1;
    }
    return 0;
}
