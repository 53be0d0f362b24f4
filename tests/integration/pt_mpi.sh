# sprof_pt under Open MPI: a profile per rank, and the job's imbalance as
# the ranks measured it (common.sh: mpi_job_vs_truth).
source "$(dirname "$0")/common.sh" "$1"
mpi_job_vs_truth sprof_pt
