! Attributes across the languages (MPI-4.1 section 19.3.7), through `use mpi`: C reads a
! value Fortran set through a pointer to it (an MPI_Aint after MPI_COMM_SET_ATTR, an
! INTEGER after MPI_ATTR_PUT); Fortran reads the value whichever language set it (a
! C pointer as its address); Fortran copy and delete functions get values, on
! communicators, datatypes and windows. A failed check aborts the job.
module attr_lang_c ! (c_intptr_t: the kind of MPI_ADDRESS_KIND on this target)
  use iso_c_binding, only : c_int, c_intptr_t
  implicit none
  interface
    integer(c_int) function c_get_aint(comm, keyval, value) bind(C, name='tw_test_c_get_aint')
      import :: c_int, c_intptr_t
      integer(c_int), value :: comm, keyval
      integer(c_intptr_t) :: value
    end function
    integer(c_int) function c_get_fint(comm, keyval, value) bind(C, name='tw_test_c_get_fint')
      import :: c_int
      integer(c_int), value :: comm, keyval
      integer(c_int) :: value
    end function
    integer(c_int) function c_get_type_aint(type, keyval, value) &
        bind(C, name='tw_test_c_get_type_aint')
      import :: c_int, c_intptr_t
      integer(c_int), value :: type, keyval
      integer(c_intptr_t) :: value
    end function
    integer(c_int) function c_get_win_aint(win, keyval, value) &
        bind(C, name='tw_test_c_get_win_aint')
      import :: c_int, c_intptr_t
      integer(c_int), value :: win, keyval
      integer(c_intptr_t) :: value
    end function
    integer(c_intptr_t) function c_set_pointer(comm, keyval) &
        bind(C, name='tw_test_c_set_pointer')
      import :: c_int, c_intptr_t
      integer(c_int), value :: comm, keyval
    end function
    integer(c_int) function c_dup_keyval() bind(C, name='tw_test_c_dup_keyval')
      import :: c_int
    end function
  end interface
end module

module attr_lang_callbacks
  use mpi, only : MPI_ADDRESS_KIND
  implicit none
  integer(kind=MPI_ADDRESS_KIND) :: copied_in = -1, deleted = -1
contains
  subroutine copy_plus_one(old, keyval, extra, val_in, val_out, flag, ierr)
    use mpi
    integer :: old, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: extra, val_in, val_out
    logical :: flag
    copied_in = val_in
    val_out = val_in + 1
    flag = .true.
    ierr = MPI_SUCCESS
  end subroutine
  subroutine note_delete(obj, keyval, val, extra, ierr)
    use mpi
    integer :: obj, keyval, ierr
    integer(kind=MPI_ADDRESS_KIND) :: val, extra
    deleted = val
    ierr = MPI_SUCCESS
  end subroutine
end module

program f90_attr_lang
  use mpi
  use test_check
  use attr_lang_c
  use attr_lang_callbacks
  implicit none
  integer :: ierr, rank, size, key, key1, ckey, tkey, wkey, dup, dup2, win, type
  integer :: ivalue
  integer(kind=MPI_ADDRESS_KIND) :: big, value, address, zero
  logical :: flag

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  big = ishft(1_MPI_ADDRESS_KIND, 40) + 5555 + rank

  ! Fortran sets (MPI_COMM_SET_ATTR): C reads through a pointer, Fortran the value
  call MPI_Comm_create_keyval(copy_plus_one, note_delete, key, 0_MPI_ADDRESS_KIND, ierr)
  call MPI_Comm_set_attr(MPI_COMM_WORLD, key, big, ierr)
  call check(ierr == MPI_SUCCESS, 'comm_set_attr')
  value = 0
  call check(c_get_aint(MPI_COMM_WORLD, key, value) == 1 .and. value == big, &
             'C reads a value Fortran set, through a pointer to it')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key, value, flag, ierr)
  call check(flag .and. value == big, 'Fortran reads the value it set')
  call MPI_Attr_get(MPI_COMM_WORLD, key, ivalue, flag, ierr)
  call check(flag .and. ivalue == int(5555 + rank), 'MPI_ATTR_GET reads its low part')

  ! a dup: the Fortran copy function gets the value; C reads the copy's value
  call MPI_Comm_dup(MPI_COMM_WORLD, dup, ierr)
  call check(copied_in == big, 'the Fortran copy function gets the value')
  call check(c_get_aint(dup, key, value) == 1 .and. value == big + 1, &
             'C reads the value the Fortran copy function gave')
  ! replacing and freeing: the Fortran delete function gets the value
  call MPI_Comm_set_attr(dup, key, 77_MPI_ADDRESS_KIND, ierr)
  call check(deleted == big + 1, 'the Fortran delete function gets the replaced value')
  call MPI_Comm_free(dup, ierr)
  call check(deleted == 77, 'the Fortran delete function gets the value at the free')

  ! MPI_ATTR_PUT: C reads an INTEGER through a pointer
  call MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, key1, 0, ierr)
  call MPI_Attr_put(MPI_COMM_WORLD, key1, -42 - rank, ierr)
  ivalue = 0
  call check(c_get_fint(MPI_COMM_WORLD, key1, ivalue) == 1 .and. ivalue == -42 - rank, &
             'C reads an INTEGER MPI_ATTR_PUT set, through a pointer to it')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key1, value, flag, ierr)
  call check(flag .and. value == -42 - rank, 'MPI_COMM_GET_ATTR reads it sign-extended')

  ! C sets a pointer: Fortran reads its address
  call MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, ckey, &
                              0_MPI_ADDRESS_KIND, ierr)
  address = c_set_pointer(MPI_COMM_WORLD, ckey)
  call check(address /= 0, 'C set a pointer')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, ckey, value, flag, ierr)
  call check(flag .and. value == address, 'Fortran reads a C pointer as its address')

  ! a keyval of C (MPI_COMM_DUP_FN) on a value Fortran set: the dup's value is the same
  tkey = c_dup_keyval()
  call MPI_Comm_set_attr(MPI_COMM_WORLD, tkey, big + 9, ierr)
  call MPI_Comm_dup(MPI_COMM_WORLD, dup2, ierr)
  call MPI_Comm_get_attr(dup2, tkey, value, flag, ierr)
  call check(flag .and. value == big + 9, 'a value Fortran set, copied by a C function')
  call check(c_get_aint(dup2, tkey, value) == 1 .and. value == big + 9, &
             'C reads the value a C function copied')
  call MPI_Comm_free(dup2, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, tkey, ierr)
  call MPI_Comm_free_keyval(tkey, ierr)

  ! datatypes and windows
  call MPI_Type_contiguous(2, MPI_INTEGER, type, ierr)
  call MPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, MPI_TYPE_NULL_DELETE_FN, tkey, &
                              0_MPI_ADDRESS_KIND, ierr)
  call MPI_Type_set_attr(type, tkey, big + 1, ierr)
  call check(c_get_type_aint(type, tkey, value) == 1 .and. value == big + 1, &
             'C reads a datatype attribute Fortran set')
  call MPI_Type_get_attr(type, tkey, value, flag, ierr)
  call check(flag .and. value == big + 1, 'Fortran reads the datatype attribute it set')
  call MPI_Type_free(type, ierr)
  call MPI_Type_free_keyval(tkey, ierr)
  zero = 0
  call MPI_Win_create(MPI_BOTTOM, zero, 1, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_create_keyval(MPI_WIN_NULL_COPY_FN, MPI_WIN_NULL_DELETE_FN, wkey, &
                             0_MPI_ADDRESS_KIND, ierr)
  call MPI_Win_set_attr(win, wkey, big + 2, ierr)
  call check(c_get_win_aint(win, wkey, value) == 1 .and. value == big + 2, &
             'C reads a window attribute Fortran set')
  call MPI_Win_get_attr(win, wkey, value, flag, ierr)
  call check(flag .and. value == big + 2, 'Fortran reads the window attribute it set')
  call MPI_Win_get_attr(win, MPI_WIN_DISP_UNIT, value, flag, ierr)
  call check(flag .and. value == 1, 'MPI_WIN_DISP_UNIT is its value')
  call MPI_Win_free(win, ierr)
  call MPI_Win_free_keyval(wkey, ierr)

  ! many sets and deletes: the values stay apart
  do ivalue = 1, 3000
    call MPI_Comm_set_attr(MPI_COMM_WORLD, key, int(ivalue, MPI_ADDRESS_KIND), ierr)
  end do
  call check(c_get_aint(MPI_COMM_WORLD, key, value) == 1 .and. value == 3000, &
             'the last of many values')
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key, ierr)
  call check(deleted == 3000, 'deleted the last value')
  call MPI_Comm_get_attr(MPI_COMM_WORLD, key, value, flag, ierr)
  call check(.not. flag, 'no attribute after the delete')
  call MPI_Comm_free_keyval(key, ierr)
  call MPI_Comm_delete_attr(MPI_COMM_WORLD, key1, ierr)
  call MPI_Keyval_free(key1, ierr)
  call MPI_Comm_free_keyval(ckey, ierr)

  if (rank == 0) print '(A,I0,A)', 'f90_attr_lang: ok on ', size, ' ranks'
  call MPI_Finalize(ierr)
end program
