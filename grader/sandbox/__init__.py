"""Where a submission's kernel runs: a bubblewrap sandbox with limits.

`kernel` (the kernel manager nbgrader starts: bubblewrap, environment, user id, limits),
`kernel_caches` (what every kernel would otherwise build anew: built once, seen read-only),
`warm_start` and `zygote` (each kernel forked, into the sandbox bubblewrap makes, from one
process that imported ipykernel, numpy and torch once), `namespace_init` (when every process
of a killed sandbox is gone), `uids` (the user ids kernels run as where no cgroup keeps them apart),
`cgroups` (one control group per kernel: memory and processes), `seccomp` (the filter that
refuses memory outside the address space when there is no cgroup), `preflight` (before
grading: a kernel in the sandbox imports the course the grader means).
"""
