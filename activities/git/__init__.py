"""The git layer of runs that change a repository: one working copy per run attempt, durable turns.

Layout under a worker's work directory:

    mirrors/<key>.git       a bare mirror per repository URL, shared by the runs on this worker; fetched, never
                            re-cloned. Remote branches land in refs/remotes/origin/*, so a fetch never touches
                            the office/* branches checked out in working copies.
    mirrors/<key>.lock      an flock (plus an asyncio lock in this worker's `Mirrors`) around fetch and worktree changes
    worktrees/<run>-<hex>   a `git worktree` of the mirror per run attempt, on branch office/<run-id>
    git-home                the HOME of every git command the worker runs: empty, owner-only

Modules, each depending only on those before it:

    runner     git with an environment built from nothing, its options for the network, its errors
    mirrors    `Mirrors`: the worker's bare mirrors, their locks and fetches (one object per worker)
    bounds     the size limits a commit's files are measured against before anything is checked out
    pushes     pushing a run's branch (with a lease) or a failed attempt's side ref, and why a push failed
    workcopy   the lifecycle of one attempt's working copy: check, prepare, commit, keep, reset, remove
"""
