/* A link: how the device reaches a peer's endpoint. A table of operations plus the
 * capabilities the layers above choose by.
 *
 * Two kinds of link exist. A link with TW_LINK_MAPPED (shm) maps the peer's segment
 * — mailbox, notification queue, ATU table, RMA rings —, so the device writes the
 * peer's rings itself, as EXTOLL's VELO unit writes the target's mailbox: it sends
 * and moves RMA data without an operation of the table, and uses the table for the
 * segments themselves (naming, creating, mapping, removing) and for the copy into a
 * peer's memory that is not mapped. Any other link (udp) carries device messages: the
 * device hands it VELO messages and RMA requests and answers (rma_wire.h) through the
 * table, and the link hands what arrives back to the device through the
 * tw_link_device_t the device gave it at open. The target's device then executes the
 * RMA when it makes progress.
 *
 * An endpoint's address is a list of fields separated by ',', one per link it opened,
 * each tagged with the link's name ("<name>:..."); the mapped link's field comes first.
 * The device finds the link of a field by its tag (tw_link_of_field), never by a
 * name of its own.
 *
 * A link may include runtime and common headers, never device ones: it sees the
 * device only through tw_link_device_t. Not thread-safe: the device serialises its
 * calls into one link instance (see device/progress.h).
 *
 * Adding a link: a folder src/link/<name>/ with its transport and one table
 * `const tw_link_t tw_link_<name>`, listed in tw_links (links.c). */
#ifndef TW_LINK_LINK_H
#define TW_LINK_LINK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <tollway/endpoint.h>

#include "link/rma_wire.h"
#include "runtime/job.h"

/* Capabilities (tw_link_t.caps). */
enum {
    /* The peer's segment is mapped here: the device writes its rings itself (the
     * inline VELO send) and, as initiator, moves the bytes of an RMA itself. */
    TW_LINK_MAPPED = 1u << 0,
    /* A put is the cheaper way to move a large message (one way, answered by
     * the target's device); without it, a get is. */
    TW_LINK_PUT_CHEAPER = 1u << 1,
    /* Both sides can copy parts of one large message at once. */
    TW_LINK_SHARED_COPY = 1u << 2,
    /* Messages arrive only when the link is polled (tw_link_t.poll). */
    TW_LINK_POLLED = 1u << 3,
};

/* What a mapped link's operations answer beyond the tw_status codes, and take. */
enum {
    /* tw_link_t.copy: the kernel refuses the copy (ptrace policy); the device moves the
     * bytes another way */
    TW_LINK_COPY_REFUSED = 1,
    /* the longest name of a segment, its terminator included */
    TW_LINK_SEGMENT_NAME_MAX = 96,
};
/* segment_create, segment_map, segment_populate: every page of the segment. */
#define TW_LINK_POPULATE_ALL ((size_t)-1)

/* A registration of the endpoint's memory, as region (tw_link_device_t) describes it. */
typedef struct tw_link_region {
    uint64_t nla;    /* its first byte's NLA (that of byte k is nla + k) */
    uint64_t base;   /* its first byte's address in the owner */
    uint64_t length; /* bytes */
    unsigned perms;  /* TW_PERM_* */
} tw_link_region_t;

/* One open instance of a link, private to its implementation. */
typedef struct tw_link_ctx tw_link_ctx_t;

/* What the device gives a link at open, to hand it what arrives. `dev` is the
 * device's own pointer, passed back unchanged. Every record comes from the network:
 * the device checks it before use. */
typedef struct tw_link_device {
    /* A VELO message from source: TW_OK when taken, TW_RETRY when the mailbox has no
     * room now (the link offers it again), TW_ERR_CORRUPT when malformed (dropped). */
    int (*velo)(void *dev, uint32_t source, unsigned tag, const void *data, size_t len);
    /* An RMA request (rma_req_t, then its put data) or answer (rma_answer_t, then
     * its get data): TW_OK when done, TW_RETRY when there is no room for what it
     * owes now (nothing was done: offered again), TW_ERR_CORRUPT when malformed. */
    int (*rma_request)(void *dev, uint32_t source, const void *msg, size_t len);
    int (*rma_answer)(void *dev, uint32_t source, const void *msg, size_t len);
    /* Receiving in place (see tw_udp_lander_t): where the data after the record
     * goes, *skip set to the record's size; NULL to take the message the usual way.
     * landed follows with ok = 1 when it arrived whole (taken), 0 when it did not. */
    void *(*land_request)(void *dev, uint32_t source, const void *msg, size_t len, size_t *skip);
    void *(*land_answer)(void *dev, uint32_t source, const void *msg, size_t len, size_t *skip);
    void (*landed)(void *dev, uint32_t source, size_t len, int ok);
    /* The link declared source lost, for cause (TW_ERR_LOST: it stopped answering;
     * TW_ERR_RESET: it had declared us lost; TW_ERR_DESYNC: it gave up data we never
     * received): once per peer, from poll. */
    void (*peer_lost)(void *dev, uint32_t source, int cause);
    /* The registration an access to nla with key would reach, checked as the device
     * checks an access (valid, that generation, that key): TW_OK with it in *out, or
     * the fault (TW_ERR_STALE, TW_ERR_KEY). For a link that lets initiators reach
     * registered memory with the fabric's own one-sided operations: the key is checked
     * here, at the owner, before the fabric's is handed out. */
    int (*region)(void *dev, uint64_t nla, uint64_t key, tw_link_region_t *out);
} tw_link_device_t;

typedef struct tw_link {
    const char *name; /* also the tag of its field in an endpoint's address */
    unsigned caps;    /* TW_LINK_* */
    size_t velo_max;  /* the longest VELO message it carries */
    /* a link that carries messages: the most put data a request, and get data an answer,
     * carries (at most REMOTE_CHUNK_MAX); the device refuses requests asking for more */
    size_t rma_chunk_max;

    /* The operations of a link that carries device messages (NULL for a mapped link,
     * whose peers the device reaches through memory; fd and the counters are optional). */

    /* Opens an instance for this endpoint (rank of size); its address, to publish,
     * into addr ("<name>:..."). NULL on failure, with a message on stderr. */
    tw_link_ctx_t *(*open)(const tw_job_t *job, const tw_link_device_t *dev, void *dev_ctx,
                           char *addr, size_t cap);
    /* Where rank is, from the field of its address that names this link. */
    int (*connect)(tw_link_ctx_t *l, int rank, const char *addr);
    /* A VELO message (hdr then buf): TW_OK, TW_RETRY (no room now), or an error. */
    int (*velo_send)(tw_link_ctx_t *l, int dest, unsigned tag, const void *hdr, size_t hlen,
                     const void *buf, size_t len);
    /* An RMA request and len bytes of put data, sent from where they lie: the caller
     * keeps the data until the request is answered. TW_OK, TW_RETRY, or an error. */
    int (*rma_request)(tw_link_ctx_t *l, int dest, const rma_req_t *r, const void *data,
                       size_t len);
    /* 1 when the first request r of an operation, with len bytes of put data, would go
     * to dest now (asked before the device reserves anything for it: a refusal after
     * that leaves cancelled slots in our queue). r has every field but its handle. */
    int (*rma_can_request)(tw_link_ctx_t *l, int dest, const rma_req_t *r, size_t len);
    /* Bytes of put data per request (and of get data per answer) it prefers for the
     * operation r (every field but its handle, chunk_len and b) to dest: at most
     * rma_chunk_max, or all of a put the link moves by other means than its messages
     * (the fabric's writes) when it can now. */
    uint64_t (*rma_chunk)(tw_link_ctx_t *l, int dest, const rma_req_t *r);
    /* 1 when an answer can be taken now (sent or queued): asked before serving. */
    int (*rma_can_answer)(tw_link_ctx_t *l);
    /* An answer with len bytes of get data (copied); may_wait: it may be held back
     * to go with the answers of the operation's next chunks. */
    void (*rma_answer)(tw_link_ctx_t *l, int dest, const rma_answer_t *a, const void *data,
                       size_t len, int may_wait);
    /* Receives (handing messages to the device), acknowledges, retransmits, sends
     * what waited. Returns the number of messages handed over. */
    int (*poll)(tw_link_ctx_t *l);
    /* A descriptor that becomes readable when something arrives (-1: none). */
    int (*fd)(tw_link_ctx_t *l);
    /* Optional, before a wait blocks on fd: readies it (libfabric's descriptors stay
     * readable from the first completion until fi_trywait clears them). 0 when the wait
     * may block; else something is to be read first, and fd stays readable. */
    int (*arm)(tw_link_ctx_t *l);
    /* 1 when nothing waits that it must be polled for by a time (no packet in flight, no
     * acknowledgement owed): a wait may then sleep on fd until something arrives. NULL:
     * never (its waits sleep for bounded times). */
    int (*quiet)(tw_link_ctx_t *l);
    /* Sends what is owed (lingering as TCP does) and releases the instance. */
    void (*close)(tw_link_ctx_t *l);
    void (*print_stats)(tw_link_ctx_t *l, FILE *out, int rank, int index);
    /* Its counters for tools (tw_link_counter_info; link names this link), and a
     * reader of counter i < ncounters. A link without counters: NULL, 0. */
    const tw_link_counter_info_t *counters;
    unsigned ncounters;
    uint64_t (*counter)(tw_link_ctx_t *l, unsigned i);
    /* TW_LINK=auto (NULL: always): 1 when a job spanning nodes opens this link for its
     * peers on other nodes. */
    int (*chosen_by_auto)(void);
    /* For tools (twinfo), never on a job's path: 1 when this machine can use the link
     * now, with what was found in note; 0 with the reason in note. segment_size: the
     * bytes of one endpoint's segment with the current settings. */
    int (*probe)(size_t segment_size, char *note, size_t cap);
    /* Optional: g (its key, key) is about to be named to dest for one put covering its
     * last byte, with a completer notification (tw_offer_put): a link that lets
     * initiators write with the fabric's own operations may hand dest what it needs for
     * that put now, ahead of the message naming g. Under the device's lock. */
    void (*offer_put)(tw_link_ctx_t *l, int dest, const tw_link_region_t *g, uint64_t key);
    /* Optional: the registration nla names is going (tw_dereg); once this returns, no
     * access through the fabric reaches its memory. Under the device's lock. */
    void (*region_gone)(tw_link_ctx_t *l, uint64_t nla);

    /* The operations of a mapped link (TW_LINK_MAPPED; NULL for the others): segments of
     * memory on this node that peers map — an endpoint's own (its rings and tables) and
     * its shared-heap blocks —, and the initiator's copy into a peer's other memory. The
     * device lays out and checks what a segment holds; the link names it, creates it,
     * maps it, and sees that it goes when the job ends. */

    /* Before the first segment of the job in this process: from now on the job's
     * segments on this node are removed once the job ends, however it ends, and never
     * while this process may own one. TW_OK, or TW_ERR_SYSTEM with the reason on stderr. */
    int (*hold)(tw_job_t *job);
    /* The name of the segment of the endpoint (rank, index) of job (heap_id 0), or of
     * its shared-heap block heap_id, into name (TW_LINK_SEGMENT_NAME_MAX bytes). */
    void (*segment_name)(const tw_job_t *job, int rank, int index, uint32_t heap_id, char *name,
                         size_t cap);
    /* Creates, sizes and maps a new segment, its first `populate` bytes populated. NULL
     * on failure, errno set; EEXIST when the name exists: it is never replaced here, since
     * a live job may hold it. */
    void *(*segment_create)(const char *name, size_t size, size_t populate);
    /* Maps an existing segment read-write, its first `populate` bytes populated; its
     * size comes back in *size. NULL on failure (errno set): missing, or smaller than
     * min_size. */
    void *(*segment_map)(const char *name, size_t min_size, size_t populate, size_t *size);
    /* Populates the first bytes of a mapping of size bytes (once the caller knows how
     * much of it is hot). */
    void (*segment_populate)(void *base, size_t size, size_t populate);
    void (*segment_unmap)(void *base, size_t size);
    void (*segment_unlink)(const char *name);
    /* This endpoint's field of its address ("<name>:..."), naming the segment so that
     * peers on this node find it: the length written, or -1 when cap is too small. */
    int (*segment_field)(const tw_job_t *job, const char *segment, char *field, size_t cap);
    /* A peer's field (up to ',' or the end): 1 with its segment's name in segment when
     * the peer is on this node, 0 when it is on another, -1 when the field is malformed. */
    int (*segment_of)(const tw_job_t *job, const char *field, char *segment, size_t cap);
    /* One copy between this process's memory at local and len bytes at remote in process
     * pid (write: to it). TW_OK, TW_LINK_COPY_REFUSED, or TW_ERR_SYSTEM. */
    int (*copy)(pid_t pid, void *local, uint64_t remote, uint64_t len, int write);
} tw_link_t;

/* The links this build has, in the order the device prefers them: a mapped link first;
 * of two links a peer's address names, the earlier reaches it. */
extern const tw_link_t *const tw_links[];
extern const unsigned tw_links_count;

/* The link named by the len bytes at name; NULL when no link of this build is. */
const tw_link_t *tw_link_named(const char *name, size_t len);
/* The link an address field ("<name>:...") belongs to, by its tag; NULL for a tag no
 * link of this build has, or a field without one. */
const tw_link_t *tw_link_of_field(const char *field);
/* The field of link in addr (fields separated by ','), or NULL when addr has none. */
const char *tw_link_field(const char *addr, const tw_link_t *link);

#endif
