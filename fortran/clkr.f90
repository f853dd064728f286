! The Fortran 2008 interface of clkr: module clkr over the C API (include/clkr/clkr.h) through
! iso_c_binding. Matrices are given as 1-based CSR arrays (row_offsets(n_rows + 1), col_indices(nnz),
! values(nnz)) or COO triplets, with 32- or 64-bit integers, as Fortran codes hold them. Every procedure takes optional
! stat and errmsg arguments, as ALLOCATE does: with stat present an error sets stat (a CLKR_ERROR_...
! code; 0 on success) and errmsg (when present) to clkr's message; without stat an error prints the
! message and stops the program.
module clkr
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: error_unit
  implicit none
  private

  integer, parameter, public :: CLKR_OK = 0, CLKR_ERROR_INVALID_ARGUMENT = 1, CLKR_ERROR_INVALID_HANDLE = 2, &
                                CLKR_ERROR_DEVICE = 3, CLKR_ERROR_OUT_OF_MEMORY = 4, CLKR_ERROR_INTERNAL = 5
  integer, parameter, public :: CLKR_SOLVE_CONVERGED = 0, CLKR_SOLVE_MAX_ITERATIONS = 1, CLKR_SOLVE_NOT_SPD = 2, &
                                CLKR_SOLVE_BREAKDOWN = 3, CLKR_SOLVE_NON_FINITE = 4, CLKR_SOLVE_STAGNATED = 5

  type, public :: clkr_context
    type(c_ptr) :: ptr = c_null_ptr
  end type
  type, public :: clkr_matrix
    type(c_ptr) :: ptr = c_null_ptr
  end type
  type, public :: clkr_solver
    type(c_ptr) :: ptr = c_null_ptr
    integer(c_int64_t) :: rows = 0  ! of its matrix, to check b and x against
  end type

  ! The names and defaults of clkr_solve_options in clkr.h.
  type, public :: clkr_options
    character(len=16) :: solver = 'cg'              ! cg, pcg, gmres, fgmres, bicgstab
    character(len=16) :: preconditioner = 'none'    ! none, jacobi, chebyshev, amg
    character(len=16) :: precision = 'auto'         ! auto (double; qdouble without fp64), double, single,
                                                    ! qdouble, mixed
    character(len=16) :: backend = 'device'         ! device, or host: OpenMP on this machine's cores
    real(c_double) :: relative_tolerance = 1.0e-8_c_double
    integer :: max_iterations = 10000
    integer :: restart = 30
    logical :: use_initial_guess = .false.
    ! "key=value" pairs for the preconditioners and iterative refinement, e.g. 'amg.smoother=jacobi, amg.sweeps=2'
    character(len=512) :: settings = ''
    ! AMG's near-null space, near_null_space(n_rows, m) (e.g. the rigid-body modes); unallocated: the default
    real(c_double), allocatable :: near_null_space(:, :)
    ! AMG's nodes of different sizes, 1-based: node k owns rows node_offsets(k) .. node_offsets(k+1)-1,
    ! node_offsets(1) = 1 and the last n_rows + 1; unallocated: amg.block_size's nodes
    integer, allocatable :: node_offsets(:)
  end type

  ! clkr_result of clkr.h; status_name, message, path and strengthened are NUL-terminated (see clkr_text).
  type, public, bind(c) :: clkr_result
    integer(c_int) :: status
    character(kind=c_char) :: status_name(32)
    integer(c_int) :: iterations
    real(c_double) :: recursive_relative_residual
    real(c_double) :: true_relative_residual
    real(c_double) :: setup_seconds
    real(c_double) :: solve_seconds
    character(kind=c_char) :: message(256)
    integer(c_int) :: inner_iterations
    character(kind=c_char) :: path(128)           ! how CG ran on the device; '' otherwise
    character(kind=c_char) :: strengthened(256)   ! when and into what the AMG strengthened itself; ''
  end type

  public :: clkr_context_create, clkr_context_destroy
  public :: clkr_matrix_create, clkr_matrix_create_coo, clkr_matrix_update_values, clkr_matrix_destroy
  public :: clkr_matrix_convert, clkr_matrix_format, clkr_rigid_body_modes
  public :: clkr_solve, clkr_solver_create, clkr_solver_update, clkr_solver_solve, clkr_solver_solve_many
  public :: clkr_solver_destroy
  public :: clkr_last_error, clkr_text

  interface clkr_matrix_create
    module procedure matrix_create_32, matrix_create_64
  end interface
  interface clkr_matrix_create_coo
    module procedure matrix_create_coo_32, matrix_create_coo_64
  end interface

  ! clkr_solve_options of clkr.h, and its strings kept alive beside it for the duration of a call.
  type, bind(c) :: c_options
    type(c_ptr) :: solver, preconditioner, precision
    real(c_double) :: relative_tolerance
    integer(c_int) :: max_iterations, restart, use_initial_guess
    type(c_ptr) :: settings, near_null_space
    integer(c_int) :: near_null_space_vectors
    type(c_ptr) :: node_offsets
    integer(c_int) :: nodes
    type(c_ptr) :: backend
  end type
  type :: options_holder
    character(kind=c_char) :: solver(17), preconditioner(17), precision(17), backend(17), settings(513)
    real(c_double), allocatable :: near_null_space(:, :)
    integer(c_int), allocatable :: node_offsets(:)
    type(c_options) :: c
  end type

  interface
    function c_last_error() bind(c, name='clkr_last_error') result(text)
      import :: c_ptr
      type(c_ptr) :: text
    end function
    function c_strlen(text) bind(c, name='strlen') result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: text
      integer(c_size_t) :: n
    end function
    function c_context_create(device, out) bind(c, name='clkr_context_create') result(s)
      import :: c_char, c_ptr, c_int
      character(kind=c_char), intent(in) :: device(*)
      type(c_ptr), intent(out) :: out
      integer(c_int) :: s
    end function
    function c_context_destroy(ctx) bind(c, name='clkr_context_destroy') result(s)
      import :: c_ptr, c_int
      type(c_ptr), value :: ctx
      integer(c_int) :: s
    end function
    function c_matrix_create_csr32(ctx, rows, cols, nnz, row_offsets, col_indices, values, base, out) &
        bind(c, name='clkr_matrix_create_csr32') result(s)
      import :: c_ptr, c_int, c_int32_t, c_int64_t, c_double
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: rows, cols, nnz
      integer(c_int32_t), intent(in) :: row_offsets(*), col_indices(*)
      real(c_double), intent(in) :: values(*)
      integer(c_int), value :: base
      type(c_ptr), intent(out) :: out
      integer(c_int) :: s
    end function
    function c_matrix_create_csr64(ctx, rows, cols, nnz, row_offsets, col_indices, values, base, out) &
        bind(c, name='clkr_matrix_create_csr64') result(s)
      import :: c_ptr, c_int, c_int64_t, c_double
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: rows, cols, nnz
      integer(c_int64_t), intent(in) :: row_offsets(*), col_indices(*)
      real(c_double), intent(in) :: values(*)
      integer(c_int), value :: base
      type(c_ptr), intent(out) :: out
      integer(c_int) :: s
    end function
    function c_matrix_create_coo32(ctx, rows, cols, nnz, row_indices, col_indices, values, base, out) &
        bind(c, name='clkr_matrix_create_coo32') result(s)
      import :: c_ptr, c_int, c_int32_t, c_int64_t, c_double
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: rows, cols, nnz
      integer(c_int32_t), intent(in) :: row_indices(*), col_indices(*)
      real(c_double), intent(in) :: values(*)
      integer(c_int), value :: base
      type(c_ptr), intent(out) :: out
      integer(c_int) :: s
    end function
    function c_matrix_create_coo64(ctx, rows, cols, nnz, row_indices, col_indices, values, base, out) &
        bind(c, name='clkr_matrix_create_coo64') result(s)
      import :: c_ptr, c_int, c_int64_t, c_double
      type(c_ptr), value :: ctx
      integer(c_int64_t), value :: rows, cols, nnz
      integer(c_int64_t), intent(in) :: row_indices(*), col_indices(*)
      real(c_double), intent(in) :: values(*)
      integer(c_int), value :: base
      type(c_ptr), intent(out) :: out
      integer(c_int) :: s
    end function
    function c_matrix_convert(m, format) bind(c, name='clkr_matrix_convert') result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: m
      character(kind=c_char), intent(in) :: format(*)
      integer(c_int) :: s
    end function
    function c_matrix_format(m, name, size) bind(c, name='clkr_matrix_format') result(s)
      import :: c_ptr, c_int, c_char
      type(c_ptr), value :: m
      character(kind=c_char), intent(out) :: name(*)
      integer(c_int), value :: size
      integer(c_int) :: s
    end function
    function c_matrix_update_values(m, values, nnz) bind(c, name='clkr_matrix_update_values') result(s)
      import :: c_ptr, c_int, c_int64_t, c_double
      type(c_ptr), value :: m
      real(c_double), intent(in) :: values(*)
      integer(c_int64_t), value :: nnz
      integer(c_int) :: s
    end function
    function c_matrix_size(m, rows, cols, nnz) bind(c, name='clkr_matrix_size') result(s)
      import :: c_ptr, c_int, c_int64_t
      type(c_ptr), value :: m
      integer(c_int64_t), intent(out) :: rows, cols, nnz
      integer(c_int) :: s
    end function
    function c_rigid_body_modes(coordinates, nodes, dimension, unknowns, modes, count) &
        bind(c, name='clkr_rigid_body_modes') result(s)
      import :: c_int, c_int64_t, c_double
      real(c_double), intent(in) :: coordinates(*)
      integer(c_int64_t), value :: nodes
      integer(c_int), value :: dimension, unknowns
      real(c_double), intent(out) :: modes(*)
      integer(c_int), intent(out) :: count
      integer(c_int) :: s
    end function
    function c_matrix_destroy(m) bind(c, name='clkr_matrix_destroy') result(s)
      import :: c_ptr, c_int
      type(c_ptr), value :: m
      integer(c_int) :: s
    end function
    function c_solve(ctx, m, b, x, options, result) bind(c, name='clkr_solve') result(s)
      import :: c_ptr, c_int, c_double, c_options, clkr_result
      type(c_ptr), value :: ctx, m
      real(c_double), intent(in) :: b(*)
      real(c_double), intent(inout) :: x(*)
      type(c_options), intent(in) :: options
      type(clkr_result), intent(out) :: result
      integer(c_int) :: s
    end function
    function c_solver_create(m, options, out) bind(c, name='clkr_solver_create') result(s)
      import :: c_ptr, c_int, c_options
      type(c_ptr), value :: m
      type(c_options), intent(in) :: options
      type(c_ptr), intent(out) :: out
      integer(c_int) :: s
    end function
    function c_solver_update(solver) bind(c, name='clkr_solver_update') result(s)
      import :: c_ptr, c_int
      type(c_ptr), value :: solver
      integer(c_int) :: s
    end function
    function c_solver_solve(solver, b, x, result) bind(c, name='clkr_solver_solve') result(s)
      import :: c_ptr, c_int, c_double, clkr_result
      type(c_ptr), value :: solver
      real(c_double), intent(in) :: b(*)
      real(c_double), intent(inout) :: x(*)
      type(clkr_result), intent(out) :: result
      integer(c_int) :: s
    end function
    function c_solver_solve_many(solver, k, b, ldb, x, ldx, results) bind(c, name='clkr_solver_solve_many') result(s)
      import :: c_ptr, c_int, c_int64_t, c_double, clkr_result
      type(c_ptr), value :: solver
      integer(c_int), value :: k
      real(c_double), intent(in) :: b(*)
      integer(c_int64_t), value :: ldb
      real(c_double), intent(inout) :: x(*)
      integer(c_int64_t), value :: ldx
      type(clkr_result), intent(out) :: results(*)
      integer(c_int) :: s
    end function
    function c_solver_destroy(solver) bind(c, name='clkr_solver_destroy') result(s)
      import :: c_ptr, c_int
      type(c_ptr), value :: solver
      integer(c_int) :: s
    end function
  end interface

contains

  ! This thread's latest error message from clkr.
  function clkr_last_error() result(text)
    character(len=:), allocatable :: text
    type(c_ptr) :: p
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    p = c_last_error()
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: text)
    do i = 1, n
      text(i:i) = chars(i)
    end do
  end function

  ! A NUL-terminated character array of clkr_result (status_name, message) as a Fortran string.
  function clkr_text(chars) result(text)
    character(kind=c_char), intent(in) :: chars(:)
    character(len=:), allocatable :: text
    integer :: i, n
    n = size(chars)
    do i = 1, size(chars)
      if (chars(i) == c_null_char) then
        n = i - 1
        exit
      end if
    end do
    allocate (character(len=n) :: text)
    do i = 1, n
      text(i:i) = chars(i)
    end do
  end function

  ! Hands `status` and `message` to the caller as the module's header describes.
  subroutine report(status, message, stat, errmsg)
    integer, intent(in) :: status
    character(len=*), intent(in) :: message
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (present(stat)) stat = status
    if (status == CLKR_OK) return
    if (present(errmsg)) errmsg = message
    if (.not. present(stat)) then
      write (error_unit, '(a)') 'clkr: '//message
      error stop 1
    end if
  end subroutine

  ! report() for a status returned by the C API, whose message is clkr_last_error().
  subroutine finish(status, stat, errmsg)
    integer(c_int), intent(in) :: status
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (status == CLKR_OK) then
      call report(CLKR_OK, '', stat, errmsg)
    else
      call report(int(status), clkr_last_error(), stat, errmsg)
    end if
  end subroutine

  subroutine copy_name(name, chars)
    character(len=*), intent(in) :: name
    character(kind=c_char), intent(out) :: chars(:)
    integer :: i, n
    n = min(len_trim(name), size(chars) - 1)
    do i = 1, n
      chars(i) = name(i:i)
    end do
    chars(n + 1:) = c_null_char
  end subroutine

  ! h%c as clkr_solve_options of `options`, pointing at h's own copies of the names (h and its actual
  ! argument are targets, so the pointers stay valid in the caller).
  subroutine to_c_options(options, h)
    type(clkr_options), intent(in) :: options
    type(options_holder), intent(inout), target :: h
    call copy_name(options%solver, h%solver)
    call copy_name(options%preconditioner, h%preconditioner)
    call copy_name(options%precision, h%precision)
    call copy_name(options%backend, h%backend)
    h%c%solver = c_loc(h%solver)
    h%c%preconditioner = c_loc(h%preconditioner)
    h%c%precision = c_loc(h%precision)
    h%c%backend = c_loc(h%backend)
    h%c%relative_tolerance = options%relative_tolerance
    h%c%max_iterations = int(options%max_iterations, c_int)
    h%c%restart = int(options%restart, c_int)
    h%c%use_initial_guess = merge(1_c_int, 0_c_int, options%use_initial_guess)
    call copy_name(options%settings, h%settings)
    h%c%settings = c_loc(h%settings)
    h%c%near_null_space = c_null_ptr
    h%c%near_null_space_vectors = 0_c_int
    if (allocated(options%near_null_space)) then
      h%near_null_space = options%near_null_space
      h%c%near_null_space_vectors = int(size(h%near_null_space, 2), c_int)
      if (size(h%near_null_space) > 0) h%c%near_null_space = c_loc(h%near_null_space)
    end if
    h%c%node_offsets = c_null_ptr
    h%c%nodes = 0_c_int
    if (allocated(options%node_offsets)) then
      if (size(options%node_offsets) > 0) then
        h%node_offsets = int(options%node_offsets - 1, c_int)  ! the C API's offsets are 0-based
        h%c%nodes = int(size(h%node_offsets) - 1, c_int)
        h%c%node_offsets = c_loc(h%node_offsets)
      end if
    end if
  end subroutine

  ! The near-null space of `options` must have the matrix's row count (C cannot see the array's shape),
  ! and its node offsets must run from 1 to rows + 1 (checked here, so that the message is 1-based).
  logical function options_fit(options, rows, caller, stat, errmsg)
    type(clkr_options), intent(in) :: options
    integer(c_int64_t), intent(in) :: rows
    character(len=*), intent(in) :: caller
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=200) :: message
    options_fit = .true.
    if (allocated(options%near_null_space)) then
      options_fit = size(options%near_null_space, 1, kind=c_int64_t) == rows
      if (.not. options_fit) then
        write (message, '(a,i0,a,i0,a)') caller//': options%near_null_space has ', size(options%near_null_space, 1), &
          ' rows, the matrix ', rows
        call report(CLKR_ERROR_INVALID_ARGUMENT, trim(message), stat, errmsg)
        return
      end if
    end if
    if (.not. allocated(options%node_offsets)) return
    if (size(options%node_offsets) == 0) return
    options_fit = options%node_offsets(1) == 1 .and. &
                  int(options%node_offsets(size(options%node_offsets)), c_int64_t) == rows + 1
    if (options_fit) return
    write (message, '(a,i0,a,i0,a,i0)') caller//': options%node_offsets run from ', options%node_offsets(1), ' to ', &
      options%node_offsets(size(options%node_offsets)), '; they must run from 1 to n_rows + 1 = ', rows + 1
    call report(CLKR_ERROR_INVALID_ARGUMENT, trim(message), stat, errmsg)
  end function

  ! device: "P:D", "gpu", "cpu" or a substring of the device's name; absent or blank: the default.
  subroutine clkr_context_create(ctx, device, stat, errmsg)
    type(clkr_context), intent(out) :: ctx
    character(len=*), intent(in), optional :: device
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (present(device)) then
      call finish(c_context_create(trim(device)//c_null_char, ctx%ptr), stat, errmsg)
    else
      call finish(c_context_create(c_null_char, ctx%ptr), stat, errmsg)
    end if
  end subroutine

  subroutine clkr_context_destroy(ctx, stat, errmsg)
    type(clkr_context), intent(inout) :: ctx
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call finish(c_context_destroy(ctx%ptr), stat, errmsg)
    ctx%ptr = c_null_ptr
  end subroutine

  ! The array sizes Fortran knows, checked against n_rows before C sees the arrays.
  logical function sizes_agree(n_rows, n_offsets, n_cols, n_values, stat, errmsg)
    integer, intent(in) :: n_rows, n_offsets, n_cols, n_values
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=200) :: message
    sizes_agree = n_offsets == n_rows + 1 .and. n_cols == n_values
    if (sizes_agree) return
    if (n_offsets /= n_rows + 1) then
      write (message, '(a,i0,a,i0)') 'clkr_matrix_create: row_offsets has ', n_offsets, &
        ' entries, expected n_rows + 1 = ', n_rows + 1
    else
      write (message, '(a,i0,a,i0,a)') 'clkr_matrix_create: col_indices has ', n_cols, ' entries but values has ', &
        n_values, ' (one column index per value)'
    end if
    call report(CLKR_ERROR_INVALID_ARGUMENT, trim(message), stat, errmsg)
  end function

  subroutine matrix_create_32(ctx, n_rows, n_cols, row_offsets, col_indices, values, m, stat, errmsg)
    type(clkr_context), intent(in) :: ctx
    integer, intent(in) :: n_rows, n_cols
    integer(c_int32_t), intent(in) :: row_offsets(:), col_indices(:)
    real(c_double), intent(in) :: values(:)
    type(clkr_matrix), intent(out) :: m
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. sizes_agree(n_rows, size(row_offsets), size(col_indices), size(values), stat, errmsg)) return
    call finish(c_matrix_create_csr32(ctx%ptr, int(n_rows, c_int64_t), int(n_cols, c_int64_t), &
                                      size(values, kind=c_int64_t), row_offsets, col_indices, values, 1_c_int, m%ptr), &
                stat, errmsg)
  end subroutine

  subroutine matrix_create_64(ctx, n_rows, n_cols, row_offsets, col_indices, values, m, stat, errmsg)
    type(clkr_context), intent(in) :: ctx
    integer, intent(in) :: n_rows, n_cols
    integer(c_int64_t), intent(in) :: row_offsets(:), col_indices(:)
    real(c_double), intent(in) :: values(:)
    type(clkr_matrix), intent(out) :: m
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. sizes_agree(n_rows, size(row_offsets), size(col_indices), size(values), stat, errmsg)) return
    call finish(c_matrix_create_csr64(ctx%ptr, int(n_rows, c_int64_t), int(n_cols, c_int64_t), &
                                      size(values, kind=c_int64_t), row_offsets, col_indices, values, 1_c_int, m%ptr), &
                stat, errmsg)
  end subroutine

  ! From COO triplets (1-based, any order; entries at the same position are summed).
  subroutine matrix_create_coo_32(ctx, n_rows, n_cols, row_indices, col_indices, values, m, stat, errmsg)
    type(clkr_context), intent(in) :: ctx
    integer, intent(in) :: n_rows, n_cols
    integer(c_int32_t), intent(in) :: row_indices(:), col_indices(:)
    real(c_double), intent(in) :: values(:)
    type(clkr_matrix), intent(out) :: m
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. triplets_agree(size(row_indices), size(col_indices), size(values), stat, errmsg)) return
    call finish(c_matrix_create_coo32(ctx%ptr, int(n_rows, c_int64_t), int(n_cols, c_int64_t), &
                                      size(values, kind=c_int64_t), row_indices, col_indices, values, 1_c_int, m%ptr), &
                stat, errmsg)
  end subroutine

  subroutine matrix_create_coo_64(ctx, n_rows, n_cols, row_indices, col_indices, values, m, stat, errmsg)
    type(clkr_context), intent(in) :: ctx
    integer, intent(in) :: n_rows, n_cols
    integer(c_int64_t), intent(in) :: row_indices(:), col_indices(:)
    real(c_double), intent(in) :: values(:)
    type(clkr_matrix), intent(out) :: m
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    if (.not. triplets_agree(size(row_indices), size(col_indices), size(values), stat, errmsg)) return
    call finish(c_matrix_create_coo64(ctx%ptr, int(n_rows, c_int64_t), int(n_cols, c_int64_t), &
                                      size(values, kind=c_int64_t), row_indices, col_indices, values, 1_c_int, m%ptr), &
                stat, errmsg)
  end subroutine

  ! The three triplet arrays must have one entry per triplet.
  logical function triplets_agree(n_row_indices, n_col_indices, n_values, stat, errmsg)
    integer, intent(in) :: n_row_indices, n_col_indices, n_values
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=200) :: message
    triplets_agree = n_row_indices == n_values .and. n_col_indices == n_values
    if (triplets_agree) return
    write (message, '(a,i0,a,i0,a,i0,a)') 'clkr_matrix_create_coo: row_indices has ', n_row_indices, &
      ' entries, col_indices ', n_col_indices, ' and values ', n_values, ' (one of each per triplet)'
    call report(CLKR_ERROR_INVALID_ARGUMENT, trim(message), stat, errmsg)
  end function

  ! format: csr, csr4, ell, hyb, sell, dia (clkr's formats) or auto (clkr's choice for the device).
  subroutine clkr_matrix_convert(m, format, stat, errmsg)
    type(clkr_matrix), intent(in) :: m
    character(len=*), intent(in) :: format
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call finish(c_matrix_convert(m%ptr, trim(format)//c_null_char), stat, errmsg)
  end subroutine

  ! The name of the matrix's current storage format.
  subroutine clkr_matrix_format(m, name, stat, errmsg)
    type(clkr_matrix), intent(in) :: m
    character(len=*), intent(out) :: name
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(kind=c_char) :: chars(33)
    integer(c_int) :: s
    name = ''
    s = c_matrix_format(m%ptr, chars, 33_c_int)
    if (s == CLKR_OK) name = clkr_text(chars)
    call finish(s, stat, errmsg)
  end subroutine

  ! The rigid-body modes of a mesh, AMG's near-null space for elasticity (options%near_null_space, with
  ! amg.block_size the unknowns per node in options%settings): coordinates(d, nodes), d = 2 or 3, the
  ! nodes in the matrix's order; modes(rows, m) allocated here, rows = unknowns per node x nodes, m = 6 in
  ! 3D and 3 in 2D (the translations, then the rotations about the centroid). unknowns_per_node: d (the
  ! default: displacements), or 6 in 3D / 3 in 2D where the nodes have rotation unknowns.
  subroutine clkr_rigid_body_modes(coordinates, modes, unknowns_per_node, stat, errmsg)
    real(c_double), intent(in) :: coordinates(:, :)
    real(c_double), allocatable, intent(out) :: modes(:, :)
    integer, intent(in), optional :: unknowns_per_node
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    real(c_double), allocatable :: buffer(:)
    integer(c_int) :: unknowns, count, s
    integer(c_int64_t) :: nodes, rows
    unknowns = int(size(coordinates, 1), c_int)
    if (present(unknowns_per_node)) unknowns = int(unknowns_per_node, c_int)
    nodes = size(coordinates, 2, kind=c_int64_t)
    rows = max(unknowns, 1_c_int) * nodes
    allocate (buffer(max(rows * 6, 1_c_int64_t)))
    s = c_rigid_body_modes(coordinates, nodes, int(size(coordinates, 1), c_int), unknowns, buffer, count)
    if (s == CLKR_OK) modes = reshape(buffer(1:rows * count), [rows, int(count, c_int64_t)])
    call finish(s, stat, errmsg)
  end subroutine

  ! New values on the same pattern, in the order of the arrays the matrix was made from.
  subroutine clkr_matrix_update_values(m, values, stat, errmsg)
    type(clkr_matrix), intent(in) :: m
    real(c_double), intent(in) :: values(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call finish(c_matrix_update_values(m%ptr, values, size(values, kind=c_int64_t)), stat, errmsg)
  end subroutine

  subroutine clkr_matrix_destroy(m, stat, errmsg)
    type(clkr_matrix), intent(inout) :: m
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call finish(c_matrix_destroy(m%ptr), stat, errmsg)
    m%ptr = c_null_ptr
  end subroutine

  ! b and x must have the matrix's row count; checked here, since C cannot see array sizes.
  logical function vectors_fit(rows, b, x, caller, stat, errmsg)
    integer(c_int64_t), intent(in) :: rows
    real(c_double), intent(in) :: b(:), x(:)
    character(len=*), intent(in) :: caller
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    character(len=200) :: message
    vectors_fit = size(b, kind=c_int64_t) == rows .and. size(x, kind=c_int64_t) == rows
    if (vectors_fit) return
    write (message, '(a,i0,a,i0,a,i0,a)') caller//': b has ', size(b), ' and x ', size(x), &
      ' entries, the matrix ', rows, ' rows'
    call report(CLKR_ERROR_INVALID_ARGUMENT, trim(message), stat, errmsg)
  end function

  ! The row count of m, or .false. after reporting the error (a NULL or destroyed handle).
  logical function matrix_rows(m, rows, stat, errmsg)
    type(c_ptr), intent(in) :: m
    integer(c_int64_t), intent(out) :: rows
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    integer(c_int64_t) :: cols, nnz
    integer(c_int) :: s
    s = c_matrix_size(m, rows, cols, nnz)
    matrix_rows = s == CLKR_OK
    if (.not. matrix_rows) call finish(s, stat, errmsg)
  end function

  ! Solves A x = b once (x is read only with options%use_initial_guess). stat is CLKR_OK when the solver
  ! ran, converged or not: result%status says which.
  subroutine clkr_solve(ctx, a, b, x, options, result, stat, errmsg)
    type(clkr_context), intent(in) :: ctx
    type(clkr_matrix), intent(in) :: a
    real(c_double), intent(in) :: b(:)
    real(c_double), intent(inout) :: x(:)
    type(clkr_options), intent(in), optional :: options
    type(clkr_result), intent(out), optional :: result
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    type(options_holder), target :: h
    type(clkr_result) :: r
    type(clkr_options) :: defaults
    integer(c_int64_t) :: rows
    if (.not. matrix_rows(a%ptr, rows, stat, errmsg)) return
    if (.not. vectors_fit(rows, b, x, 'clkr_solve', stat, errmsg)) return
    if (present(options)) then
      if (.not. options_fit(options, rows, 'clkr_solve', stat, errmsg)) return
      call to_c_options(options, h)
    else
      call to_c_options(defaults, h)
    end if
    call finish(c_solve(ctx%ptr, a%ptr, b, x, h%c, r), stat, errmsg)
    if (present(result)) result = r
  end subroutine

  subroutine clkr_solver_create(a, options, solver, stat, errmsg)
    type(clkr_matrix), intent(in) :: a
    type(clkr_options), intent(in) :: options
    type(clkr_solver), intent(out) :: solver
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    type(options_holder), target :: h
    if (.not. matrix_rows(a%ptr, solver%rows, stat, errmsg)) return
    if (.not. options_fit(options, solver%rows, 'clkr_solver_create', stat, errmsg)) return
    call to_c_options(options, h)
    call finish(c_solver_create(a%ptr, h%c, solver%ptr), stat, errmsg)
  end subroutine

  ! After clkr_matrix_update_values: the preconditioner follows the new values.
  subroutine clkr_solver_update(solver, stat, errmsg)
    type(clkr_solver), intent(in) :: solver
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call finish(c_solver_update(solver%ptr), stat, errmsg)
  end subroutine

  subroutine clkr_solver_solve(solver, b, x, result, stat, errmsg)
    type(clkr_solver), intent(in) :: solver
    real(c_double), intent(in) :: b(:)
    real(c_double), intent(inout) :: x(:)
    type(clkr_result), intent(out), optional :: result
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    type(clkr_result) :: r
    if (.not. vectors_fit(solver%rows, b, x, 'clkr_solver_solve', stat, errmsg)) return
    call finish(c_solver_solve(solver%ptr, b, x, r), stat, errmsg)
    if (present(result)) result = r
  end subroutine

  ! The columns of b(rows, k) on the solver's one setup, into the columns of x; results(k), if given,
  ! one per column.
  subroutine clkr_solver_solve_many(solver, b, x, results, stat, errmsg)
    type(clkr_solver), intent(in) :: solver
    real(c_double), intent(in) :: b(:, :)
    real(c_double), intent(inout) :: x(:, :)
    type(clkr_result), intent(out), optional :: results(:)
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    type(clkr_result) :: r(max(1, size(b, 2)))
    character(len=200) :: message
    if (size(b, 1, kind=c_int64_t) /= solver%rows .or. any(shape(x) /= shape(b))) then
      write (message, '(a,i0,a,i0,a,i0,a,i0,a,i0,a)') 'clkr_solver_solve_many: b is ', size(b, 1), ' x ', size(b, 2), &
        ' and x ', size(x, 1), ' x ', size(x, 2), ', the matrix has ', solver%rows, ' rows'
      call report(CLKR_ERROR_INVALID_ARGUMENT, trim(message), stat, errmsg)
      return
    end if
    if (present(results)) then
      if (size(results) < size(b, 2)) then
        write (message, '(a,i0,a,i0,a)') 'clkr_solver_solve_many: results has ', size(results), ' entries for ', &
          size(b, 2), ' columns'
        call report(CLKR_ERROR_INVALID_ARGUMENT, trim(message), stat, errmsg)
        return
      end if
    end if
    call finish(c_solver_solve_many(solver%ptr, int(size(b, 2), c_int), b, solver%rows, x, solver%rows, r), stat, errmsg)
    if (present(results)) results(:size(b, 2)) = r(:size(b, 2))
  end subroutine

  subroutine clkr_solver_destroy(solver, stat, errmsg)
    type(clkr_solver), intent(inout) :: solver
    integer, intent(out), optional :: stat
    character(len=*), intent(inout), optional :: errmsg
    call finish(c_solver_destroy(solver%ptr), stat, errmsg)
    solver%ptr = c_null_ptr
  end subroutine

end module clkr
