/* Tollway MPI: the C binding (usable from C++).
 *
 * Handles are integers with their kind in the top bits (as in MPICH), so a handle of
 * the wrong kind is recognised and answered with the right error class.
 *
 * This header declares what the library implements, and nothing more: a program
 * that needs a call not yet here fails to compile, not to link or to run. */
#ifndef TOLLWAY_MPI_H
#define TOLLWAY_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION    4
#define MPI_SUBVERSION 1

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Request;
typedef int MPI_Errhandler;
typedef int MPI_Message;
typedef int MPI_Op;
typedef int MPI_Group;
typedef int MPI_Info;
typedef intptr_t MPI_Aint;
typedef long long MPI_Count;
typedef long long MPI_Offset;
typedef int MPI_Win;

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int tw_count_lo; /* bytes received, low and high halves */
    int tw_count_hi;
    int tw_cancelled;
} MPI_Status;

#define MPI_STATUS_IGNORE   ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)

/* handle kinds: 0x44 communicator, 0x4c predefined datatype (0x4d: a MINLOC/MAXLOC pair
 * whose C struct pads), 0x8c derived datatype,
 * 0x2c request, 0x54 errhandler, 0x6c message, 0x58 op, 0x48 group, 0x5c info, 0x24
 * attribute key, 0xa8 window; a kind's null handle has the kind's top two bits clear */
#define MPI_COMM_NULL  ((MPI_Comm)0x04000000)
#define MPI_COMM_WORLD ((MPI_Comm)0x44000000)
#define MPI_COMM_SELF  ((MPI_Comm)0x44000001)

#define MPI_REQUEST_NULL ((MPI_Request)0x2c000000)

#define MPI_MESSAGE_NULL    ((MPI_Message)0x6c000000)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)0x6c010000)

#define MPI_ERRHANDLER_NULL  ((MPI_Errhandler)0x14000000)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)0x54000000)
#define MPI_ERRORS_RETURN    ((MPI_Errhandler)0x54000001)

/* predefined datatypes: 0x4c | extent << 8 | id; 0x4d for the pair types whose C structs
 * have padding, so that their extent is not their size (the library tells them apart
 * from the contiguous types by the kind alone) */
#define TW_MPI_TYPE(id, size)        ((MPI_Datatype)(0x4c000000 | ((size) << 8) | (id)))
#define TW_MPI_PADDED_TYPE(id, size) ((MPI_Datatype)(0x4d000000 | ((size) << 8) | (id)))
#define MPI_DATATYPE_NULL            ((MPI_Datatype)0x0c000000)
#define MPI_CHAR                     TW_MPI_TYPE(1, 1)
#define MPI_SIGNED_CHAR              TW_MPI_TYPE(2, 1)
#define MPI_UNSIGNED_CHAR            TW_MPI_TYPE(3, 1)
#define MPI_BYTE                     TW_MPI_TYPE(4, 1)
#define MPI_WCHAR                    TW_MPI_TYPE(5, 4)
#define MPI_SHORT                    TW_MPI_TYPE(6, 2)
#define MPI_UNSIGNED_SHORT           TW_MPI_TYPE(7, 2)
#define MPI_INT                      TW_MPI_TYPE(8, 4)
#define MPI_UNSIGNED                 TW_MPI_TYPE(9, 4)
#define MPI_LONG                     TW_MPI_TYPE(10, 8)
#define MPI_UNSIGNED_LONG            TW_MPI_TYPE(11, 8)
#define MPI_LONG_LONG_INT            TW_MPI_TYPE(12, 8)
#define MPI_LONG_LONG                MPI_LONG_LONG_INT
#define MPI_UNSIGNED_LONG_LONG       TW_MPI_TYPE(13, 8)
#define MPI_FLOAT                    TW_MPI_TYPE(14, 4)
#define MPI_DOUBLE                   TW_MPI_TYPE(15, 8)
#define MPI_LONG_DOUBLE              TW_MPI_TYPE(16, 16)
#define MPI_C_BOOL                   TW_MPI_TYPE(17, 1)
#define MPI_INT8_T                   TW_MPI_TYPE(18, 1)
#define MPI_INT16_T                  TW_MPI_TYPE(19, 2)
#define MPI_INT32_T                  TW_MPI_TYPE(20, 4)
#define MPI_INT64_T                  TW_MPI_TYPE(21, 8)
#define MPI_UINT8_T                  TW_MPI_TYPE(22, 1)
#define MPI_UINT16_T                 TW_MPI_TYPE(23, 2)
#define MPI_UINT32_T                 TW_MPI_TYPE(24, 4)
#define MPI_UINT64_T                 TW_MPI_TYPE(25, 8)
#define MPI_AINT                     TW_MPI_TYPE(26, 8)
#define MPI_COUNT                    TW_MPI_TYPE(27, 8)
#define MPI_OFFSET                   TW_MPI_TYPE(28, 8)
#define MPI_PACKED                   TW_MPI_TYPE(29, 1)
#define MPI_C_FLOAT_COMPLEX          TW_MPI_TYPE(30, 8)
#define MPI_C_COMPLEX                MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX         TW_MPI_TYPE(31, 16)
#define MPI_C_LONG_DOUBLE_COMPLEX    TW_MPI_TYPE(32, 32)
#define MPI_CXX_BOOL                 TW_MPI_TYPE(33, 1)
#define MPI_CXX_FLOAT_COMPLEX        TW_MPI_TYPE(34, 8)
#define MPI_CXX_DOUBLE_COMPLEX       TW_MPI_TYPE(35, 16)
#define MPI_CXX_LONG_DOUBLE_COMPLEX  TW_MPI_TYPE(36, 32)
/* the pairs of MPI_MINLOC and MPI_MAXLOC: struct { value; int index; } */
#define MPI_FLOAT_INT       TW_MPI_TYPE(37, 8)
#define MPI_DOUBLE_INT      TW_MPI_PADDED_TYPE(38, 16)
#define MPI_LONG_INT        TW_MPI_PADDED_TYPE(39, 16)
#define MPI_2INT            TW_MPI_TYPE(40, 8)
#define MPI_SHORT_INT       TW_MPI_PADDED_TYPE(41, 8)
#define MPI_LONG_DOUBLE_INT TW_MPI_PADDED_TYPE(42, 32)
/* 16-bit floating point under MPICH's and Open MPI's names: IEEE binary16 (C23's
 * _Float16) and bfloat16 (a float's upper half); MPI_MAX, MPI_MIN, MPI_SUM and
 * MPI_PROD compute in float and round to nearest even */
#define MPIX_C_FLOAT16 TW_MPI_TYPE(63, 2)
#define MPIX_BFLOAT16  TW_MPI_TYPE(64, 2)

#define MPI_ANY_SOURCE     (-2)
#define MPI_ANY_TAG        (-1)
#define MPI_PROC_NULL      (-1)
#define MPI_ROOT           (-3) /* the root of an intercommunicator collective */
#define MPI_UNDEFINED      (-32766)
#define MPI_BSEND_OVERHEAD 16 /* bytes of attached buffer a buffered send needs beyond its data */
#define TW_MPI_TAG_UB      0x7fffffff /* the largest tag, the value of the MPI_TAG_UB attribute */

#define MPI_THREAD_SINGLE     0
#define MPI_THREAD_FUNNELED   1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE   3

#define MPI_MAX_PROCESSOR_NAME         128
#define MPI_MAX_ERROR_STRING           512
#define MPI_MAX_LIBRARY_VERSION_STRING 256

/* error classes */
#define MPI_SUCCESS          0
#define MPI_ERR_BUFFER       1
#define MPI_ERR_COUNT        2
#define MPI_ERR_TYPE         3
#define MPI_ERR_TAG          4
#define MPI_ERR_COMM         5
#define MPI_ERR_RANK         6
#define MPI_ERR_REQUEST      7
#define MPI_ERR_ROOT         8
#define MPI_ERR_GROUP        9
#define MPI_ERR_OP           10
#define MPI_ERR_ARG          13
#define MPI_ERR_UNKNOWN      14
#define MPI_ERR_TRUNCATE     15
#define MPI_ERR_OTHER        16
#define MPI_ERR_INTERN       17
#define MPI_ERR_IN_STATUS    18
#define MPI_ERR_PENDING      19
#define MPI_ERR_ASSERT       53
#define MPI_ERR_BASE         46
#define MPI_ERR_DISP         52
#define MPI_ERR_NO_MEM       34
#define MPI_ERR_WIN          45
#define MPI_ERR_LOCKTYPE     47
#define MPI_ERR_KEYVAL       48
#define MPI_ERR_RMA_CONFLICT 49
#define MPI_ERR_RMA_SYNC     50
#define MPI_ERR_SIZE         51
#define MPI_ERR_RMA_RANGE    55
#define MPI_ERR_RMA_ATTACH   56
#define MPI_ERR_RMA_SHARED   57
#define MPI_ERR_RMA_FLAVOR   58
/* the classes of the rest of the standard, with MPICH's values where ours are free */
#define MPI_ERR_DIMS                  11
#define MPI_ERR_TOPOLOGY              12
#define MPI_ERR_ACCESS                20
#define MPI_ERR_AMODE                 21
#define MPI_ERR_BAD_FILE              22
#define MPI_ERR_CONVERSION            23
#define MPI_ERR_DUP_DATAREP           24
#define MPI_ERR_FILE_EXISTS           25
#define MPI_ERR_FILE_IN_USE           26
#define MPI_ERR_FILE                  27
#define MPI_ERR_INFO                  28
#define MPI_ERR_INFO_KEY              29
#define MPI_ERR_INFO_VALUE            30
#define MPI_ERR_INFO_NOKEY            31
#define MPI_ERR_IO                    32
#define MPI_ERR_NAME                  33
#define MPI_ERR_NOT_SAME              35
#define MPI_ERR_NO_SPACE              36
#define MPI_ERR_NO_SUCH_FILE          37
#define MPI_ERR_PORT                  38
#define MPI_ERR_QUOTA                 39
#define MPI_ERR_READ_ONLY             40
#define MPI_ERR_SERVICE               41
#define MPI_ERR_SPAWN                 42
#define MPI_ERR_UNSUPPORTED_DATAREP   43
#define MPI_ERR_UNSUPPORTED_OPERATION 44
/* the tools interface's own return codes (MPI_T_*) */
#define MPI_T_ERR_MEMORY            59
#define MPI_T_ERR_NOT_INITIALIZED   60
#define MPI_T_ERR_CANNOT_INIT       61
#define MPI_T_ERR_INVALID_INDEX     62
#define MPI_T_ERR_INVALID_ITEM      63
#define MPI_T_ERR_INVALID_HANDLE    64
#define MPI_T_ERR_OUT_OF_HANDLES    65
#define MPI_T_ERR_OUT_OF_SESSIONS   66
#define MPI_T_ERR_INVALID_SESSION   67
#define MPI_T_ERR_CVAR_SET_NOT_NOW  68
#define MPI_T_ERR_CVAR_SET_NEVER    69
#define MPI_T_ERR_PVAR_NO_STARTSTOP 70
#define MPI_T_ERR_PVAR_NO_WRITE     71
#define MPI_T_ERR_PVAR_NO_ATOMIC    72
#define MPI_T_ERR_INVALID_NAME      73
#define MPI_T_ERR_INVALID           74
#define MPI_T_ERR_NOT_SUPPORTED     80 /* MPI-4 */
#define MPI_T_ERR_NOT_ACCESSIBLE    81 /* MPI-4 */
/* A peer process failed (was declared lost): Open MPI's ULFM value. Each lost peer
 * has its own error code of this class, whose MPI_Error_string names it and why. */
#define MPIX_ERR_PROC_FAILED 75
/* ULFM's other classes, named as MPICH and Open MPI name them, so that a program's
 * checks of them compile and a face's values of them keep their meaning; Tollway has
 * no pending-failure or revoke state and reports neither */
#define MPIX_ERR_PROC_FAILED_PENDING 82
#define MPIX_ERR_REVOKED             83
#define MPI_ERR_LASTCODE             0x3fffffff

/* environment */

/* communicator comparison results */
#define MPI_IDENT     0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR   2
#define MPI_UNEQUAL   3

/* predefined attribute keys */
#define MPI_TAG_UB          0x64400001
#define MPI_HOST            0x64400003
#define MPI_IO              0x64400005
#define MPI_WTIME_IS_GLOBAL 0x64400007
#define MPI_UNIVERSE_SIZE   0x64400009
#define MPI_LASTUSEDCODE    0x6440000b
#define MPI_APPNUM          0x6440000d

/* communicators */

/* groups, communicator management and attribute caching (MPI-3.1 chapter 6) */
#define MPI_GROUP_NULL     ((MPI_Group)0x08000000)
#define MPI_GROUP_EMPTY    ((MPI_Group)0x48000000)
#define MPI_INFO_NULL      ((MPI_Info)0x1c000000)
#define MPI_KEYVAL_INVALID 0x24000000

#define MPI_MAX_OBJECT_NAME  128
#define MPI_COMM_TYPE_SHARED 1

typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                          void *extra_state);
/* the predefined callbacks: copy nothing, copy the value, delete nothing */
int MPI_COMM_NULL_COPY_FN(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                          void *attribute_val_in, void *attribute_val_out, int *flag);
int MPI_COMM_DUP_FN(MPI_Comm oldcomm, int comm_keyval, void *extra_state, void *attribute_val_in,
                    void *attribute_val_out, int *flag);
int MPI_COMM_NULL_DELETE_FN(MPI_Comm comm, int comm_keyval, void *attribute_val, void *extra_state);

/* datatypes */

/* derived datatypes */
#define MPI_BOTTOM          ((void *)0)
#define MPI_MAX_OBJECT_NAME 128

#define MPI_COMBINER_NAMED          1
#define MPI_COMBINER_DUP            2
#define MPI_COMBINER_CONTIGUOUS     3
#define MPI_COMBINER_VECTOR         4
#define MPI_COMBINER_HVECTOR        5
#define MPI_COMBINER_INDEXED        6
#define MPI_COMBINER_HINDEXED       7
#define MPI_COMBINER_INDEXED_BLOCK  8
#define MPI_COMBINER_HINDEXED_BLOCK 9
#define MPI_COMBINER_STRUCT         10
#define MPI_COMBINER_SUBARRAY       11
#define MPI_COMBINER_DARRAY         12
#define MPI_COMBINER_RESIZED        13

#define MPI_ORDER_C              56
#define MPI_ORDER_FORTRAN        57
#define MPI_DISTRIBUTE_BLOCK     121
#define MPI_DISTRIBUTE_CYCLIC    122
#define MPI_DISTRIBUTE_NONE      123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)

/* point-to-point */

/* collectives and reduction operations */
#define MPI_IN_PLACE ((void *)-1)
#define MPI_OP_NULL  ((MPI_Op)0x18000000)
#define MPI_MAX      ((MPI_Op)0x58000001)
#define MPI_MIN      ((MPI_Op)0x58000002)
#define MPI_SUM      ((MPI_Op)0x58000003)
#define MPI_PROD     ((MPI_Op)0x58000004)
#define MPI_LAND     ((MPI_Op)0x58000005)
#define MPI_BAND     ((MPI_Op)0x58000006)
#define MPI_LOR      ((MPI_Op)0x58000007)
#define MPI_BOR      ((MPI_Op)0x58000008)
#define MPI_LXOR     ((MPI_Op)0x58000009)
#define MPI_BXOR     ((MPI_Op)0x5800000a)
#define MPI_MINLOC   ((MPI_Op)0x5800000b)
#define MPI_MAXLOC   ((MPI_Op)0x5800000c)
#define MPI_REPLACE  ((MPI_Op)0x5800000d)
#define MPI_NO_OP    ((MPI_Op)0x5800000e)

typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);

/* non-blocking collectives */

/* buffered sends */

/* persistent requests */

/* one-sided communication (MPI-3.1 chapter 11) */
#define MPI_WIN_NULL ((MPI_Win)0x28000000)

#define MPI_MODE_NOCHECK   1024
#define MPI_MODE_NOSTORE   2048
#define MPI_MODE_NOPUT     4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384

#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED    235

/* window attributes (MPI_Win_get_attr) */
#define MPI_WIN_BASE          0x64400021
#define MPI_WIN_SIZE          0x64400023
#define MPI_WIN_DISP_UNIT     0x64400025
#define MPI_WIN_CREATE_FLAVOR 0x64400027
#define MPI_WIN_MODEL         0x64400029

#define MPI_WIN_FLAVOR_CREATE   1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC  3
#define MPI_WIN_FLAVOR_SHARED   4

#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED  2

typedef void MPI_Win_errhandler_function(MPI_Win *win, int *errorcode, ...);

/* info objects (MPI-3.1 chapter 9) */
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
#define MPI_INFO_ENV     ((MPI_Info)0x5c000001) /* read-only: cannot be changed or freed */

/* end of info */

/* datatypes: external32, Fortran types and sizes, the MPI-1 type calls */
/* the Fortran types, usable from C: INTEGER and LOGICAL are 4 bytes, REAL 4, DOUBLE
 * PRECISION 8; REAL16 and COMPLEX32 hold the C long double (x86's 80-bit format in
 * 16 bytes); the pairs of MINLOC and MAXLOC hold two values of the one type */
#define MPI_CHARACTER         TW_MPI_TYPE(43, 1)
#define MPI_LOGICAL           TW_MPI_TYPE(44, 4)
#define MPI_INTEGER           TW_MPI_TYPE(45, 4)
#define MPI_REAL              TW_MPI_TYPE(46, 4)
#define MPI_DOUBLE_PRECISION  TW_MPI_TYPE(47, 8)
#define MPI_COMPLEX           TW_MPI_TYPE(48, 8)
#define MPI_DOUBLE_COMPLEX    TW_MPI_TYPE(49, 16)
#define MPI_INTEGER1          TW_MPI_TYPE(50, 1)
#define MPI_INTEGER2          TW_MPI_TYPE(51, 2)
#define MPI_INTEGER4          TW_MPI_TYPE(52, 4)
#define MPI_INTEGER8          TW_MPI_TYPE(53, 8)
#define MPI_REAL4             TW_MPI_TYPE(54, 4)
#define MPI_REAL8             TW_MPI_TYPE(55, 8)
#define MPI_REAL16            TW_MPI_TYPE(56, 16)
#define MPI_COMPLEX8          TW_MPI_TYPE(57, 8)
#define MPI_COMPLEX16         TW_MPI_TYPE(58, 16)
#define MPI_COMPLEX32         TW_MPI_TYPE(59, 32)
#define MPI_2REAL             TW_MPI_TYPE(60, 8)
#define MPI_2DOUBLE_PRECISION TW_MPI_TYPE(61, 16)
#define MPI_2INTEGER          TW_MPI_TYPE(62, 8)
/* sizes no C type of this machine has */
#define MPI_INTEGER16 MPI_DATATYPE_NULL
#define MPI_REAL2     MPI_DATATYPE_NULL
#define MPI_COMPLEX4  MPI_DATATYPE_NULL

/* the combiners of the Fortran-only constructors and of MPI_Type_create_f90_* */
#define MPI_COMBINER_HVECTOR_INTEGER  14
#define MPI_COMBINER_HINDEXED_INTEGER 15
#define MPI_COMBINER_STRUCT_INTEGER   16
#define MPI_COMBINER_F90_REAL         17
#define MPI_COMBINER_F90_COMPLEX      18
#define MPI_COMBINER_F90_INTEGER      19

#define MPI_TYPECLASS_REAL    1
#define MPI_TYPECLASS_INTEGER 2
#define MPI_TYPECLASS_COMPLEX 3

/* the portable packed form: only "external32" (MPI-3.1 section 13.5.2) */

/* the MPI-1 calls MPI-3.0 removed, kept as calls of their replacements */
/* end of datatypes */

/* process topologies and neighbourhood collectives (MPI-3.1 chapter 7) */
/* MPI_Topo_test's answers (MPI_UNDEFINED: no topology) */
#define MPI_GRAPH      1
#define MPI_CART       2
#define MPI_DIST_GRAPH 3
/* weights of the distributed graph calls: none, and none for a rank with no edges;
 * distinct non-NULL sentinels, real objects (as in MPICH) so that compilers checking
 * array arguments take them for arrays */
extern int *const MPI_UNWEIGHTED;
extern int *const MPI_WEIGHTS_EMPTY;

/* end of topology */

/* process creation and management (MPI-3.1 chapter 10) */
#define MPI_MAX_PORT_NAME   256
#define MPI_ARGV_NULL       ((char **)0)
#define MPI_ARGVS_NULL      ((char ***)0)
#define MPI_ERRCODES_IGNORE ((int *)0)
/* end of dynamic */

/* error handlers, attributes, generalized requests, handle conversion and the rest */
/* Fortran handles are the C handles' values (handles are ints) */
typedef int MPI_Fint;
typedef int MPI_File;
/* files (MPI-4.1 chapter 14): MPI_FILE_NULL's error handler is the default of file
 * calls and of the files opened after it is set */
#define MPI_FILE_NULL ((MPI_File)0x30000000)
/* access modes, seek whences and the rest: MPICH's (ROMIO's) values */
#define MPI_MODE_CREATE          1
#define MPI_MODE_RDONLY          2
#define MPI_MODE_WRONLY          4
#define MPI_MODE_RDWR            8
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN     32
#define MPI_MODE_EXCL            64
#define MPI_MODE_APPEND          128
#define MPI_MODE_SEQUENTIAL      256
#define MPI_SEEK_SET             600
#define MPI_SEEK_CUR             602
#define MPI_SEEK_END             604
#define MPI_DISPLACEMENT_CURRENT -54278278
#define MPI_MAX_DATAREP_STRING   128
/* user data representations (MPI_Register_datarep): the conversion functions, the
 * extent function, and the null conversion (the data are moved as they are) */
typedef int MPI_Datarep_conversion_function(void *userbuf, MPI_Datatype datatype, int count,
                                            void *filebuf, MPI_Offset position, void *extra_state);
typedef int MPI_Datarep_conversion_function_c(void *userbuf, MPI_Datatype datatype, MPI_Count count,
                                              void *filebuf, MPI_Offset position,
                                              void *extra_state);
typedef int MPI_Datarep_extent_function(MPI_Datatype datatype, MPI_Aint *file_extent,
                                        void *extra_state);
#define MPI_CONVERSION_FN_NULL   ((MPI_Datarep_conversion_function *)0)
#define MPI_CONVERSION_FN_NULL_C ((MPI_Datarep_conversion_function_c *)0)

/* user error handlers, by the kind of object they are for */
typedef void MPI_Comm_errhandler_function(MPI_Comm *comm, int *errorcode, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn; /* the MPI-2.0 names */
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;
typedef void MPI_File_errhandler_function(MPI_File *file, int *errorcode, ...);
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
typedef void MPI_Handler_function(MPI_Comm *comm, int *errorcode, ...); /* removed in MPI-3.0 */

/* removed in MPI-3.0, still exported: MPI_Comm_create_errhandler, _set_ and _get_ */

/* error classes, codes and strings of the program's own */

/* attribute caching on datatypes and windows */
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval,
                                          void *attribute_val, void *extra_state);
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void *extra_state,
                                       void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void *attribute_val,
                                         void *extra_state);
int MPI_TYPE_NULL_COPY_FN(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                          void *attribute_val_in, void *attribute_val_out, int *flag);
int MPI_TYPE_DUP_FN(MPI_Datatype oldtype, int type_keyval, void *extra_state,
                    void *attribute_val_in, void *attribute_val_out, int *flag);
int MPI_TYPE_NULL_DELETE_FN(MPI_Datatype datatype, int type_keyval, void *attribute_val,
                            void *extra_state);
int MPI_WIN_NULL_COPY_FN(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in,
                         void *attribute_val_out, int *flag);
int MPI_WIN_DUP_FN(MPI_Win oldwin, int win_keyval, void *extra_state, void *attribute_val_in,
                   void *attribute_val_out, int *flag);
int MPI_WIN_NULL_DELETE_FN(MPI_Win win, int win_keyval, void *attribute_val, void *extra_state);

/* the MPI-1 attribute calls (deprecated): communicators only */
typedef int MPI_Copy_function(MPI_Comm oldcomm, int keyval, void *extra_state,
                              void *attribute_val_in, void *attribute_val_out, int *flag);
typedef int MPI_Delete_function(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state);
int MPI_NULL_COPY_FN(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                     void *attribute_val_out, int *flag);
int MPI_DUP_FN(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
               void *attribute_val_out, int *flag);
int MPI_NULL_DELETE_FN(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state);

/* statuses of the program's own, and generalized requests */
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);

/* handle and status conversion between the C and the Fortran bindings */

/* a Fortran status is the C one's fields as MPI_Fint: MPI_STATUS_SIZE of them */
typedef struct MPI_F08_status {
    MPI_Fint MPI_SOURCE;
    MPI_Fint MPI_TAG;
    MPI_Fint MPI_ERROR;
    MPI_Fint tw_internal[3];
} MPI_F08_status;
#define MPI_F_STATUS_IGNORE     ((MPI_Fint *)0)
#define MPI_F_STATUSES_IGNORE   ((MPI_Fint *)0)
#define MPI_F08_STATUS_IGNORE   ((MPI_F08_status *)0)
#define MPI_F08_STATUSES_IGNORE ((MPI_F08_status *)0)

/* the thread level, the main thread, profiling */
/* end of misc */

/* the tools information interface, MPI_T (MPI-3.1 chapter 14) */
/* Control variables are the TW_* settings, by their names; performance variables
 * the device's, the links' and matching's counters (docs/settings.md). MPI_T calls
 * return their error codes and never call an error handler. */
typedef struct tw_mpi_t_enum *MPI_T_enum;
typedef struct tw_mpi_t_cvar_handle *MPI_T_cvar_handle;
typedef struct tw_mpi_t_pvar_handle *MPI_T_pvar_handle;
typedef struct tw_mpi_t_pvar_session *MPI_T_pvar_session;

#define MPI_T_ENUM_NULL         ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL  ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL  ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_ALL_HANDLES  ((MPI_T_pvar_handle)1)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)

#define MPI_T_VERBOSITY_USER_BASIC    221
#define MPI_T_VERBOSITY_USER_DETAIL   222
#define MPI_T_VERBOSITY_USER_ALL      223
#define MPI_T_VERBOSITY_TUNER_BASIC   224
#define MPI_T_VERBOSITY_TUNER_DETAIL  225
#define MPI_T_VERBOSITY_TUNER_ALL     226
#define MPI_T_VERBOSITY_MPIDEV_BASIC  227
#define MPI_T_VERBOSITY_MPIDEV_DETAIL 228
#define MPI_T_VERBOSITY_MPIDEV_ALL    229

#define MPI_T_BIND_NO_OBJECT      9700
#define MPI_T_BIND_MPI_COMM       9701
#define MPI_T_BIND_MPI_DATATYPE   9702
#define MPI_T_BIND_MPI_ERRHANDLER 9703
#define MPI_T_BIND_MPI_FILE       9704
#define MPI_T_BIND_MPI_GROUP      9705
#define MPI_T_BIND_MPI_OP         9706
#define MPI_T_BIND_MPI_REQUEST    9707
#define MPI_T_BIND_MPI_WIN        9708
#define MPI_T_BIND_MPI_MESSAGE    9709
#define MPI_T_BIND_MPI_INFO       9710

#define MPI_T_SCOPE_CONSTANT 60438
#define MPI_T_SCOPE_READONLY 60439
#define MPI_T_SCOPE_LOCAL    60440
#define MPI_T_SCOPE_GROUP    60441
#define MPI_T_SCOPE_GROUP_EQ 60442
#define MPI_T_SCOPE_ALL      60443
#define MPI_T_SCOPE_ALL_EQ   60444

#define MPI_T_PVAR_CLASS_STATE         240
#define MPI_T_PVAR_CLASS_LEVEL         241
#define MPI_T_PVAR_CLASS_SIZE          242
#define MPI_T_PVAR_CLASS_PERCENTAGE    243
#define MPI_T_PVAR_CLASS_HIGHWATERMARK 244
#define MPI_T_PVAR_CLASS_LOWWATERMARK  245
#define MPI_T_PVAR_CLASS_COUNTER       246
#define MPI_T_PVAR_CLASS_AGGREGATE     247
#define MPI_T_PVAR_CLASS_TIMER         248
#define MPI_T_PVAR_CLASS_GENERIC       249

/* MPI_T events (MPI-4.1 15.3.8) and their sources (15.3.9): docs/mpi.md. An instance
 * is valid only inside the callback it is handed to. */
typedef struct tw_mpi_t_event_registration *MPI_T_event_registration;
typedef struct tw_mpi_t_event_instance *MPI_T_event_instance;
#define MPI_T_EVENT_REGISTRATION_NULL ((MPI_T_event_registration)0)
typedef enum MPI_T_cb_safety {
    MPI_T_CB_REQUIRE_NONE = 0,
    MPI_T_CB_REQUIRE_MPI_RESTRICTED = 1,
    MPI_T_CB_REQUIRE_THREAD_SAFE = 2,
    MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE = 3
} MPI_T_cb_safety;
typedef enum MPI_T_source_order {
    MPI_T_SOURCE_ORDERED = 0,
    MPI_T_SOURCE_UNORDERED = 1
} MPI_T_source_order;
typedef void MPI_T_event_cb_function(MPI_T_event_instance event_instance,
                                     MPI_T_event_registration event_registration,
                                     MPI_T_cb_safety cb_safety, void *user_data);
typedef void MPI_T_event_free_cb_function(MPI_T_event_registration event_registration,
                                          MPI_T_cb_safety cb_safety, void *user_data);
typedef void MPI_T_event_dropped_cb_function(MPI_Count count,
                                             MPI_T_event_registration event_registration,
                                             int source_index, MPI_T_cb_safety cb_safety,
                                             void *user_data);

/* end of tools */

/* threads (MPI-3.1 section 12.4) */
/* end of threads */

/* the rest of MPI-4.0 and 4.1 (pair exchanges, info, errors, statuses,
 * hardware-guided splits, buffers attached to communicators) */
#define MPI_ERRORS_ABORT ((MPI_Errhandler)0x54000002) /* MPI_Abort on the communicator */
/* MPI-4.0's and 4.1's error classes (MPI_ERR_SESSION is left to the sessions) */
#define MPI_ERR_PROC_ABORTED    76
#define MPI_ERR_VALUE_TOO_LARGE 77
#define MPI_ERR_ERRHANDLER      78
/* where a Fortran status (MPI_Status_c2f) holds its public fields, counted from 0 */
#define MPI_F_STATUS_SIZE 6
#define MPI_F_SOURCE      0
#define MPI_F_TAG         1
#define MPI_F_ERROR       2
/* MPI_Type_get_value_index answers with predefined types only: never seen there */
#define MPI_COMBINER_VALUE_INDEX      20
#define MPI_COMM_TYPE_HW_GUIDED       2
#define MPI_COMM_TYPE_HW_UNGUIDED     3
#define MPI_COMM_TYPE_RESOURCE_GUIDED 4
/* MPI_Buffer_attach (or a communicator's) with this: the library sizes the buffer */
#define MPI_BUFFER_AUTOMATIC ((void *)-2)
/* end of the rest of MPI-4 */

/* sessions (MPI-4.1 chapter 11.3): handle kind 0x74 */
typedef int MPI_Session;
#define MPI_SESSION_NULL      ((MPI_Session)0x34000000)
#define MPI_ERR_SESSION       79 /* an error class: an invalid session */
#define MPI_MAX_PSET_NAME_LEN 256
#define MPI_MAX_STRINGTAG_LEN 256
typedef void MPI_Session_errhandler_function(MPI_Session *session, int *errorcode, ...);
/* end of sessions */

/* large counts (MPI-4.1 sections 2.5.8, 6.9.5 and 9.4): the _c forms take MPI_Count
 * counts; an int output that cannot hold its value is MPI_UNDEFINED or the error class
 * MPI_ERR_VALUE_TOO_LARGE, as the standard says for each call */
typedef void MPI_User_function_c(void *invec, void *inoutvec, MPI_Count *len,
                                 MPI_Datatype *datatype);
/* end of large counts */

/* the calls (generated from the MPI Forum's description, src/mpi/bindings), and every
 * call's PMPI_ twin, for tools (the profiling interface) */
#include <tollway/mpi_calls.h>
#include <tollway/pmpi.h>

/* A program compiled with this header but running on another MPI's library (a build
 * tool took that MPI's link flags) stops at its start with this message, instead of
 * crashing on handles that MPI does not know: a constructor in each file finds an MPI
 * library loaded (PMPI_Get_library_version, which programs do not call) but not the
 * symbol only Tollway's libmpi defines, whose name changes when Tollway's binary
 * interface does. The references are weak: a program that links no MPI library
 * itself (it reaches Tollway through another library) links and runs. The library's
 * own files define TW_MPI_NO_LIBRARY_CHECK. */
#if !defined(TW_MPI_NO_LIBRARY_CHECK) && (defined(__GNUC__) || defined(__clang__))
extern const char tollway_mpi_h_needs_tollway_libmpi_so_0[] __attribute__((weak));
extern int tw_mpi_library_probe(char *, int *) __asm__("PMPI_Get_library_version")
    __attribute__((weak));
#ifdef __GLIBC__
extern struct _IO_FILE *stderr; /* stdio.h's, which this header does not include */
#endif
__attribute__((constructor, used)) static void tw_mpi_library_check(void) {
    if (tollway_mpi_h_needs_tollway_libmpi_so_0 || !tw_mpi_library_probe) return;
#ifdef __GLIBC__
    __builtin_fputs("Tollway MPI: this program was compiled with Tollway's mpi.h but runs on "
                    "another MPI's library (not Tollway's libmpi.so.0): link it with "
                    "Tollway's mpicc, or compile it with that MPI's mpicc\n",
                    stderr);
#endif
    __builtin_abort();
}
#endif

#ifdef __cplusplus
}
#endif
#endif
