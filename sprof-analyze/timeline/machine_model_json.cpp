// MACHINE.json: the machine model as a file.
#include <fstream>

#include "machine_model.hpp"

namespace sprof::analyze {

Json to_json(const MachineModel& m) {
    Json per_event = Json::object();
    for (size_t k = 0; k < m.events.size(); ++k) per_event[m.events[k]] = m.seconds_per_event[k];
    return {{"kind", "sprof machine model"},
            {"host", m.host},
            {"estimator", to_string(m.estimator)},
            {"predicts", "reference seconds (CPU time of the sampled threads)"},
            {"seconds_per_event", per_event},
            {"observations", m.observations},
            {"rms_error_s", m.rms_error_s},
            {"rms_relative_error", m.rms_relative_error},
            {"profiles", m.profiles}};
}

void write_machine_model(const MachineModel& m, const std::string& path) {
    std::ofstream file(path);
    file << dump_json(to_json(m), 2) << '\n';
    file.close();
    if (!file) throw std::runtime_error("cannot write " + path);
}

MachineModel read_machine_model(const std::string& path) {
    Json j;
    {
        std::ifstream in(path);
        if (!in) throw std::runtime_error("cannot read the machine model " + path);
        try {
            j = Json::parse(in);
        } catch (const std::exception& e) {
            throw std::runtime_error(path + ": not JSON: " + e.what());
        }
    }
    if (!j.is_object() || !j.contains("seconds_per_event") || !j["seconds_per_event"].is_object())
        throw std::runtime_error(path + ": not a machine model (no seconds_per_event; make one with sprof --calibrate)");
    MachineModel m;
    for (auto& [name, v] : j["seconds_per_event"].items()) {
        if (!v.is_number()) throw std::runtime_error(path + ": seconds_per_event." + name + " is not a number");
        m.events.push_back(name);
        m.seconds_per_event.push_back(v.get<double>());
    }
    m.rms_relative_error = j.value("rms_relative_error", 0.0);
    return m;
}

}  // namespace sprof::analyze
