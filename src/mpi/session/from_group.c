/* Communicators from groups with no parent communicator (MPI-4.1 7.4.2 and 7.6.2):
 * MPI_Comm_create_from_group and MPI_Intercomm_create_from_groups.
 *
 * The group's members agree on a context as the other creations do (comm.c): each
 * tells the group's first member its used table entries, and that member hands the
 * lowest entry free everywhere back. With no parent, they talk on MPI_COMM_WORLD's
 * collective context, which every process of the job has from its first start
 * (runtime.c), under a tag of this kind made from a digest of the stringtag and the
 * group: calls with other tags or groups at the same time do not meet. Before that
 * each member sends the first member its group size and the full 64-bit digest, and
 * the first member answers whether all agree, so that two calls whose 29-bit tags
 * collide end in an error instead of one communicator. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi/comm/comm.h"
#include "mpi/comm_create/comm_create.h"
#include "mpi/env/errhandler.h"
#include "mpi/env/error.h"
#include "mpi/comm/group.h"
#include "mpi/env/info.h"
#include "mpi/session/session.h"
#include "mpi/session/wire.h"
#include "mpi/env/state.h"

/* Whether the members all called with the same stringtag and group: a check to the
 * first member and its verdict back. MPI_SUCCESS, or MPI_ERR_ARG naming what differs
 * in *why. */
static int members_agree(uint32_t context, int tag, const tw_mpi_group_t *g, int me,
                         uint64_t digest, const char **why) {
    *why = NULL;
    if (me == 0) {
        int verdict = 0;
        for (int k = 1; k < g->size; k++) {
            tw_from_group_check_t got;
            size_t len = tw_mpi_exchange(context, tag, -1, NULL, 0, g->world[k], &got, sizeof got);
            const char *bad = tw_from_group_check_decode(&got, len, (uint32_t)g->size, digest);
            if (bad && !*why) *why = bad;
            if (bad) verdict = 1;
        }
        for (int k = 1; k < g->size; k++)
            tw_mpi_exchange(context, tag, g->world[k], &verdict, sizeof verdict, -1, NULL, 0);
        return verdict ? MPI_ERR_ARG : MPI_SUCCESS;
    }
    tw_from_group_check_t mine = {TW_FROM_GROUP_MAGIC, (uint32_t)g->size, digest};
    int answer[2] = {1, 0}, verdict = 1; /* one int more: a longer answer is seen as such */
    size_t len = tw_mpi_exchange(context, tag, g->world[0], &mine, sizeof mine, g->world[0], answer,
                                 sizeof answer);
    if (!tw_from_group_verdict_decode(answer, len, &verdict)) {
        *why = "the group's first member answered with no verdict";
        return MPI_ERR_INTERN;
    }
    if (verdict) *why = "the members gave other groups or stringtags";
    return verdict ? MPI_ERR_ARG : MPI_SUCCESS;
}

/* MPI_Comm_create_from_group's work, its errors reported by the caller. */
static int from_group(const tw_mpi_group_t *g, const char *stringtag, MPI_Info info,
                      MPI_Errhandler errhandler, MPI_Comm *newcomm, const char **why) {
    *why = NULL;
    int me = -1;
    for (int k = 0; k < g->size; k++)
        if (g->world[k] == tw_mpi.rank) me = k;
    if (me < 0) {
        *why = "the calling process is not in the group";
        return MPI_ERR_GROUP;
    }
    if (tw_mpi_check_worlds(g->size, g->world)) {
        *why = "the group names a process outside the job";
        return MPI_ERR_GROUP;
    }
    uint64_t digest = tw_from_group_digest(stringtag, g->size, g->world);
    uint32_t context = tw_mpi_comm_get(MPI_COMM_WORLD)->context + TW_CTX_COLL;
    int tag = tw_mpi_creation_tag(TW_MPI_TAG_FROM_GROUP, (int)(digest & 0x1fffffff));
    int rc = members_agree(context, tag, g, me, digest, why);
    if (rc) return rc;
    tw_mpi_comm_creating++;
    rc = tw_mpi_create_round(context, tag, g->size, me, g->world, me, errhandler, newcomm);
    tw_mpi_comm_creating--;
    if (rc) return rc;
    tw_mpi_comm_t *c = tw_mpi_comm_get(*newcomm);
    c->session = g->session;
    c->hints = tw_mpi_comm_hints(info, 0);
    return MPI_SUCCESS;
}

/* The checks both calls share; MPI_SUCCESS or the class, with *why. */
static int arguments(const char *stringtag, MPI_Info info, MPI_Errhandler errhandler,
                     const void *out, const char **why) {
    *why = NULL;
    if (!out)
        *why = "the result argument is NULL";
    else if (!stringtag)
        *why = "stringtag is NULL";
    else if (strlen(stringtag) >= MPI_MAX_STRINGTAG_LEN)
        *why = "stringtag is MPI_MAX_STRINGTAG_LEN characters or longer";
    else if (!tw_mpi_eh_settable(errhandler, TW_EH_COMM))
        *why = "not an error handler for communicators";
    if (*why) return MPI_ERR_ARG;
    return tw_mpi_info_ok(info) ? MPI_SUCCESS : MPI_ERR_INFO;
}

/* Errors of these calls go to the handler of the group's session (MPI-4.1 9.3), or,
 * for a group of no session, to the handler given for the new communicator. */
static int report(const tw_mpi_group_t *g, MPI_Errhandler errhandler, const char *call, int rc,
                  const char *why) {
    MPI_Session s = g ? tw_mpi_session_handle(g->session) : MPI_SESSION_NULL;
    return tw_mpi_session_error(
        s, tw_mpi_eh_settable(errhandler, TW_EH_COMM) ? errhandler : MPI_ERRORS_ARE_FATAL, call, rc,
        why);
}

int MPI_Comm_create_from_group(MPI_Group group, const char *stringtag, MPI_Info info,
                               MPI_Errhandler errhandler, MPI_Comm *newcomm) {
    const char *call = "MPI_Comm_create_from_group", *why;
    NEED_INIT(call);
    tw_mpi_group_t *g = tw_mpi_group_get(group);
    if (!g || group == MPI_GROUP_EMPTY)
        return report(NULL, errhandler, call, MPI_ERR_GROUP, g ? "the group is empty" : NULL);
    int rc = arguments(stringtag, info, errhandler, newcomm, &why);
    if (!rc) {
        *newcomm = MPI_COMM_NULL;
        rc = from_group(g, stringtag, info, errhandler, newcomm, &why);
    }
    return rc ? report(g, errhandler, call, rc, why) : MPI_SUCCESS;
}

/* A stringtag of the library's own, made from the program's, for the helper
 * communicators of an intercommunicator: never one the program may give (too long). */
static void helper_tag(char *out, size_t cap, const char *stringtag, const char *part) {
    snprintf(out, cap, "%s%*s#tollway-intercomm-%s", stringtag, MPI_MAX_STRINGTAG_LEN, "", part);
}

static int inter_from_groups(tw_mpi_group_t *l, int local_leader, tw_mpi_group_t *r,
                             int remote_leader, const char *stringtag, MPI_Info info,
                             MPI_Errhandler errhandler, MPI_Comm *out, const char **why) {
    if (local_leader < 0 || local_leader >= l->size || remote_leader < 0 ||
        remote_leader >= r->size) {
        *why = "a leader is not a rank of its group";
        return MPI_ERR_RANK;
    }
    char tag[2 * MPI_MAX_STRINGTAG_LEN + 64];
    MPI_Comm local = MPI_COMM_NULL, leaders = MPI_COMM_NULL;
    helper_tag(tag, sizeof tag, stringtag, "local");
    int rc = from_group(l, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &local, why);
    if (rc) return rc;
    tw_mpi_comm_t *lc = tw_mpi_comm_get(local);
    int other = r->world[remote_leader], peer_rank = 0;
    if (lc->rank == local_leader) { /* the two leaders alone, the lower world rank first */
        int pair[2] = {tw_mpi.rank < other ? tw_mpi.rank : other,
                       tw_mpi.rank < other ? other : tw_mpi.rank};
        tw_mpi_group_t two = {1, 2, pair, 0};
        peer_rank = pair[0] == other ? 0 : 1;
        helper_tag(tag, sizeof tag, stringtag, "leaders");
        rc = other == tw_mpi.rank
                 ? MPI_ERR_GROUP
                 : from_group(&two, tag, MPI_INFO_NULL, MPI_ERRORS_RETURN, &leaders, why);
        if (other == tw_mpi.rank) *why = "the local and remote leaders are one process";
    }
    /* a leader with no pair goes on with MPI_COMM_NULL, so its members learn of it */
    lc->errhandler = MPI_ERRORS_RETURN;
    int joined = MPI_Intercomm_create(local, local_leader, leaders, peer_rank, 0, out);
    if (!rc) rc = joined;
    if (joined && !*why) *why = "the groups could not be joined (are they disjoint?)";
    if (!joined && rc) MPI_Comm_free(out);
    if (leaders != MPI_COMM_NULL) MPI_Comm_free(&leaders);
    MPI_Comm_free(&local);
    if (rc) return rc;
    tw_mpi_comm_t *c = tw_mpi_comm_get(*out);
    c->errhandler = errhandler;
    c->session = l->session;
    c->hints = tw_mpi_comm_hints(info, 0);
    return MPI_SUCCESS;
}

int MPI_Intercomm_create_from_groups(MPI_Group local_group, int local_leader,
                                     MPI_Group remote_group, int remote_leader,
                                     const char *stringtag, MPI_Info info,
                                     MPI_Errhandler errhandler, MPI_Comm *newintercomm) {
    const char *call = "MPI_Intercomm_create_from_groups", *why;
    NEED_INIT(call);
    tw_mpi_group_t *l = tw_mpi_group_get(local_group), *r = tw_mpi_group_get(remote_group);
    if (!l || !r || local_group == MPI_GROUP_EMPTY || remote_group == MPI_GROUP_EMPTY)
        return report(l, errhandler, call, MPI_ERR_GROUP, "a group is invalid or empty");
    int rc = arguments(stringtag, info, errhandler, newintercomm, &why);
    if (!rc) {
        *newintercomm = MPI_COMM_NULL;
        rc = inter_from_groups(l, local_leader, r, remote_leader, stringtag, info, errhandler,
                               newintercomm, &why);
    }
    return rc ? report(l, errhandler, call, rc, why) : MPI_SUCCESS;
}
