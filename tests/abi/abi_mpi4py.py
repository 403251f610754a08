"""Debian's mpi4py (built against Open MPI) on Tollway's face of Open MPI's ABI: each
check names what it exercised and whether it held; rank 0's line ends "every check
passed" when all did (run_abi_mpi4py.sh). The same script passes under Open MPI's own
mpirun, but for the library's name."""
import array
import os
import sys

from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, size = comm.Get_rank(), comm.Get_size()
failed = []


def check(name, f):
    try:
        if not f():
            failed.append(name)
    except Exception as e:  # an MPI error or a wrong handle: named, not fatal
        failed.append(f"{name} ({type(e).__name__}: {e})")


def p2p():
    if rank == 0:
        comm.send("hi", dest=1, tag=7)
        return True
    st = MPI.Status()
    m = comm.recv(source=MPI.ANY_SOURCE, tag=MPI.ANY_TAG, status=st)
    return m == "hi" and st.Get_source() == 0 and st.Get_tag() == 7


def in_place():
    a = array.array("i", [rank + 1])
    comm.Allreduce(MPI.IN_PLACE, a, op=MPI.PROD)
    expect = 1
    for i in range(size):
        expect *= i + 1
    return a[0] == expect


def vector():
    t = MPI.DOUBLE.Create_vector(2, 1, 2).Commit()
    ok = t.Get_size() == 16 and t.Get_extent() == (0, 24)
    t.Free()
    return ok


def bad_rank():
    try:
        comm.Send(bytearray(1), dest=size + 5)
    except MPI.Exception as e:
        return e.Get_error_class() == MPI.ERR_RANK
    return False


def user_op():
    def bor(a, b, datatype):
        ma, mb = memoryview(a).cast("B").cast("i"), memoryview(b).cast("B").cast("i")
        for i in range(len(mb)):
            mb[i] |= ma[i]
    op = MPI.Op.Create(bor, commute=True)
    x, y = array.array("i", [1 << rank]), array.array("i", [0])
    comm.Allreduce(x, y, op=op)
    op.Free()
    return y[0] == (1 << size) - 1


def window():
    buf = array.array("i", [-1])
    win = MPI.Win.Create(buf, comm=comm)
    win.Fence()
    win.Put(array.array("i", [rank]), (rank + 1) % size)
    win.Fence()
    win.Free()
    return buf[0] == (rank - 1) % size


def info():
    i = MPI.Info.Create()
    i.Set("key", "value")
    ok = i.Get("key") == "value"
    i.Free()
    return ok


def file_io(path):
    fh = MPI.File.Open(comm, path, MPI.MODE_CREATE | MPI.MODE_RDWR | MPI.MODE_DELETE_ON_CLOSE)
    fh.Write_at_all(rank * 4, array.array("i", [rank]))
    back = array.array("i", [-1])
    fh.Read_at_all(((rank + 1) % size) * 4, back)
    fh.Close()
    return back[0] == (rank + 1) % size


check("MPI_Get_library_version", lambda: "Tollway" in MPI.Get_library_version())
check("allreduce MPI_SUM", lambda: comm.allreduce(rank + 1, op=MPI.SUM) == size * (size + 1) // 2)
check("bcast", lambda: comm.bcast({"a": [1, 2]} if rank == 0 else None, root=0) == {"a": [1, 2]})
check("send/recv and the status", p2p)
check("MPI_IN_PLACE", in_place)
check("split", lambda: comm.Split(rank, 0).Get_size() == 1)
check("dup and compare", lambda: MPI.Comm.Compare(comm.Dup(), comm) == MPI.CONGRUENT)
check("a vector type", vector)
check("MPI_ERR_RANK", bad_rank)
check("a user op", user_op)
check("a window", window)
check("info", info)
check("MPI_COMM_WORLD's name", lambda: comm.Get_name() == "MPI_COMM_WORLD")
check("ibarrier", lambda: comm.Ibarrier().Wait() in (None, True))
check("gather", lambda: comm.gather(rank, root=0) == (list(range(size)) if rank == 0 else None))
check("a file", lambda: file_io(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.getcwd(), "abi_mpi4py.dat")))
check("py2f/f2py", lambda: MPI.Comm.f2py(comm.py2f()) == comm)
ok = comm.allreduce(len(failed), op=MPI.SUM) == 0
verdict = "every check passed" if ok else "failed: " + "; ".join(failed) if failed else "another rank failed"
os.write(1, f"mpi4py rank {rank}: {verdict}\n".encode())  # one write: the ranks' lines stay whole
sys.exit(0 if ok else 1)
