#pragma once
// Where a process sits in a parallel job, from what its launcher put in the
// environment: Open MPI's mpirun, a PMIx or PMI launcher (prterun, hydra) or
// Slurm's srun. Profiles record it, and output names use it (%r, %j), so the
// ranks of one job never write one file.

#include <functional>
#include <string>

namespace sprof {

struct JobPlace {
    int rank = -1;           // this process's rank in the job; -1 outside a job
    int size = 0;            // ranks in the job; 0 when unknown
    std::string job_id;      // the launcher's id of the job (empty when unknown)
    std::string launcher;    // "openmpi", "pmix", "pmi", "slurm"; empty outside a job

    bool in_job() const { return rank >= 0; }
};

// Reads the launcher's variables through `get` (getenv by default). The MPI
// launcher's own numbering wins over Slurm's when both are set (srun
// --mpi=pmix sets both, and they agree); a value that is not a number is
// taken as absent.
JobPlace job_place(const std::function<const char*(const char*)>& get = ::getenv);

}  // namespace sprof
