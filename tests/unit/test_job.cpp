#include <doctest/doctest.h>

#include <map>
#include <string>

#include "sprof/job.hpp"

namespace {
sprof::JobPlace place_of(const std::map<std::string, std::string>& env) {
    return sprof::job_place([&](const char* name) -> const char* {
        auto it = env.find(name);
        return it == env.end() ? nullptr : it->second.c_str();
    });
}
}  // namespace

TEST_CASE("job place: outside a job") {
    auto p = place_of({{"HOME", "/root"}});
    CHECK_FALSE(p.in_job());
    CHECK(p.rank == -1);
    CHECK(p.launcher.empty());
}

TEST_CASE("job place: Open MPI's mpirun (as Open MPI 4.1 sets it)") {
    auto p = place_of({{"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "4"},
                       {"OMPI_MCA_ess_base_jobid", "1356267521"}, {"PMIX_RANK", "3"}});
    CHECK(p.in_job());
    CHECK(p.rank == 3);
    CHECK(p.size == 4);
    CHECK(p.job_id == "1356267521");
    CHECK(p.launcher == "openmpi");
}

TEST_CASE("job place: Slurm's srun, alone and with PMIx") {
    auto s = place_of({{"SLURM_PROCID", "7"}, {"SLURM_NTASKS", "16"}, {"SLURM_JOB_ID", "4242"}});
    CHECK(s.rank == 7);
    CHECK(s.size == 16);
    CHECK(s.job_id == "4242");
    CHECK(s.launcher == "slurm");
    auto x = place_of({{"SLURM_PROCID", "7"}, {"SLURM_NTASKS", "16"}, {"SLURM_JOB_ID", "4242"},
                       {"PMIX_RANK", "7"}, {"PMIX_NAMESPACE", "slurm.pmix.4242.0"}});
    CHECK(x.launcher == "pmix");
    CHECK(x.job_id == "4242");  // the cluster-wide id, not the namespace
}

TEST_CASE("job place: a value that is not a number is absent") {
    CHECK_FALSE(place_of({{"PMI_RANK", "x1"}}).in_job());
    CHECK_FALSE(place_of({{"PMI_RANK", "-1"}}).in_job());
    auto p = place_of({{"PMI_RANK", "2"}, {"PMI_SIZE", "many"}});
    CHECK(p.rank == 2);
    CHECK(p.size == 0);
}
