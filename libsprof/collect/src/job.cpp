#include "sprof/job.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <initializer_list>

namespace sprof {
namespace {

// A non-negative decimal integer, or -1.
int number(const char* text) {
    if (!text || !*text) return -1;
    int value = -1;
    const char* end = text + std::char_traits<char>::length(text);
    auto [at, ec] = std::from_chars(text, end, value);
    return ec == std::errc{} && at == end && value >= 0 ? value : -1;
}

struct Launcher {
    const char* name;
    const char* rank;
    const char* size;
    std::initializer_list<const char*> job;  // the first one set is the job id
};

// In order of preference. Open MPI 4 exports its jobid as an MCA variable;
// PMIx names the job by its namespace; Slurm's job id is unique per cluster.
const Launcher kLaunchers[] = {
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE",
     {"SLURM_JOB_ID", "OMPI_MCA_ess_base_jobid", "PMIX_NAMESPACE"}},
    {"pmix", "PMIX_RANK", "PMIX_SIZE", {"SLURM_JOB_ID", "PMIX_NAMESPACE"}},
    {"pmi", "PMI_RANK", "PMI_SIZE", {"SLURM_JOB_ID", "PMI_KVSNAME"}},
    {"slurm", "SLURM_PROCID", "SLURM_NTASKS", {"SLURM_JOB_ID"}},
};

}  // namespace

JobPlace job_place(const std::function<const char*(const char*)>& get) {
    JobPlace place;
    for (const Launcher& l : kLaunchers) {
        int rank = number(get(l.rank));
        if (rank < 0) continue;
        place.rank = rank;
        place.size = std::max(number(get(l.size)), 0);
        place.launcher = l.name;
        for (const char* var : l.job) {
            const char* id = get(var);
            if (id && *id) {
                place.job_id = id;
                break;
            }
        }
        break;
    }
    return place;
}

}  // namespace sprof
