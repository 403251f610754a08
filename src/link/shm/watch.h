/* The clean-up of a job's shared memory on one node, however the job ends.
 *
 * Every process of a job holds a shared flock on /dev/shm/tw-<job id>-alive while it
 * may own shared-memory objects of the job; one watcher process per node and job id,
 * detached from the launcher's process tree, waits for an exclusive flock on that file
 * (granted once every such process has ended, killed or not) and then removes the
 * job's objects: /dev/shm/tw-<job id>-ep*, -heap*, /dev/shm/tollway-ids-<uid>-<job id>,
 * and the two lock files last. A winning watcher first removes the leftovers of other
 * jobs of this user whose alive file nobody holds. docs/process-managers.md, "Shared
 * memory after a job ends". */
#ifndef TW_LINK_SHM_WATCH_H
#define TW_LINK_SHM_WATCH_H

/* Takes this process's shared lock for job_id and starts a watcher for the node when
 * none runs. Call before creating the first object of the job. The descriptor to keep
 * open while objects of the job may be ours (closing it gives the lock up: the job
 * does, tw_job_detach), or -1 with the reason printed on stderr. */
int tw_shm_watch_join(const char *job_id);

#endif
