! Tests of the Fortran module clkr: a 1D Poisson system in 1-based CSR and COO (32- and 64-bit indices)
! solved and checked against the known solution (b = A x_true), value updates through a kept solver, the
! storage format, settings, mixed precision, the near-null space and the rigid-body modes, and bad input reported through
! stat/errmsg. Stops with a non-zero code on any failed check.
program fortran_test
  use, intrinsic :: iso_c_binding, only: c_double, c_int32_t, c_int64_t
  use, intrinsic :: ieee_arithmetic, only: ieee_value, ieee_quiet_nan
  use clkr
  implicit none
  integer, parameter :: n = 100
  integer :: failures = 0
  type(clkr_context) :: ctx
  type(clkr_matrix) :: a, a64, stale, coo
  type(clkr_solver) :: solver
  type(clkr_options) :: options
  type(clkr_result) :: result
  integer(c_int32_t), allocatable :: offsets(:), cols(:), bad_cols(:), coo_rows(:), coo_cols(:)
  real(c_double), allocatable :: values(:), coo_values(:), bad_values(:), modes(:, :)
  character(len=8) :: format_name
  real(c_double) :: x_true(n), b(n), x(n), bb(n, 2), xx(n, 2)
  type(clkr_result) :: results(2)
  character(len=300) :: message
  integer :: stat, i, k

  message = ''
  call clkr_context_create(ctx)
  call laplacian_1d(offsets, cols, values)
  do i = 1, n
    x_true(i) = sin(0.05_c_double*i) + 0.5_c_double
  end do
  b = multiply(values, x_true)

  ! Every solver with Jacobi, then CG with the AMG, on the 32-bit matrix.
  call clkr_matrix_create(ctx, n, n, offsets, cols, values, a)
  call solve_and_check('cg', 'none')
  call solve_and_check('pcg', 'none')
  call solve_and_check('gmres', 'jacobi')
  call solve_and_check('bicgstab', 'chebyshev')
  call solve_and_check('cg', 'amg')

  ! The same matrix from 64-bit indices.
  call clkr_matrix_create(ctx, n, n, int(offsets, c_int64_t), int(cols, c_int64_t), values, a64)
  x = 0
  call clkr_solve(ctx, a64, b, x, result=result)
  call check(result%status == CLKR_SOLVE_CONVERGED .and. error_of(x) < 1e-6_c_double, '64-bit indices: '// &
             clkr_text(result%status_name))
  ! CG on the device says which path ran; nothing strengthened without an AMG.
  call check(len(clkr_text(result%path)) > 0 .and. len(clkr_text(result%strengthened)) == 0, &
             'path "'//clkr_text(result%path)//'", strengthened "'//clkr_text(result%strengthened)//'"')
  call clkr_matrix_destroy(a64)

  ! New values (2 A) through a kept AMG solver.
  options = clkr_options(solver='cg', preconditioner='amg', relative_tolerance=1e-10_c_double)
  call clkr_solver_create(a, options, solver)
  call clkr_matrix_update_values(a, 2*values)
  call clkr_solver_update(solver)
  b = multiply(2*values, x_true)
  x = 0
  call clkr_solver_solve(solver, b, x, result)
  call check(result%status == CLKR_SOLVE_CONVERGED .and. error_of(x) < 1e-8_c_double, 'solver after update: '// &
             clkr_text(result%status_name))

  ! Two right-hand sides (b and 3 b) on the same setup: the second solution is 3 x_true.
  bb(:, 1) = b
  bb(:, 2) = 3*b
  xx = 0
  call clkr_solver_solve_many(solver, bb, xx, results)
  call check(all(results%status == CLKR_SOLVE_CONVERGED) .and. error_of(xx(:, 1)) < 1e-8_c_double .and. &
             error_of(xx(:, 2)/3) < 1e-8_c_double, 'solve_many: '//clkr_text(results(2)%status_name))
  call clkr_solver_solve_many(solver, bb(2:, :), xx, stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_ARGUMENT, 'b is 99 x 2 and x 100 x 2, the matrix has 100 rows')
  call clkr_solver_destroy(solver)

  ! Bad input: stat and errmsg name the problem, and the program goes on.
  bad_cols = cols
  bad_cols(offsets(3):offsets(3) + 1) = bad_cols([offsets(3) + 1, offsets(3)])  ! row 3's columns swapped
  call clkr_matrix_create(ctx, n, n, offsets, bad_cols, values, stale, stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_ARGUMENT, 'column indices of row 3 not strictly increasing')
  call clkr_matrix_create(ctx, n, n, offsets - 1, cols - 1, values, stale, stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_ARGUMENT, 'row_offsets[0] is 0, expected the index base 1')
  bad_values = values
  bad_values(7) = ieee_value(bad_values(7), ieee_quiet_nan)
  call clkr_matrix_create(ctx, n, n, offsets, cols, bad_values, stale, stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_ARGUMENT, 'non-finite value nan at (3, 3)')
  call clkr_matrix_update_values(a, bad_values, stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_ARGUMENT, 'is nan, not a finite number')
  call clkr_matrix_create(ctx, n + 1, n, offsets, cols, values, stale, stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_ARGUMENT, 'row_offsets has 101 entries, expected n_rows + 1 = 102')
  call clkr_matrix_create(ctx, n, n, offsets, cols, values(2:), stale, stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_ARGUMENT, 'col_indices has 298 entries but values has 297')
  call clkr_matrix_update_values(a, values(2:), stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_ARGUMENT, 'nnz is 297')
  call clkr_solve(ctx, a, b(2:), x, stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_ARGUMENT, 'b has 99 and x 100 entries')
  options = clkr_options(solver='multigrid')
  call clkr_solve(ctx, a, b, x, options, stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_ARGUMENT, 'options.solver')
  stale = a
  call clkr_matrix_destroy(a)
  call clkr_matrix_update_values(stale, values, stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_HANDLE, 'not a live clkr_matrix')
  call clkr_solve(ctx, a, b, x, stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_HANDLE, 'is NULL')

  ! COO triplets with duplicates, the storage format, mixed precision, settings.
  call split_triplets(coo_rows, coo_cols, coo_values)
  call clkr_matrix_create_coo(ctx, n, n, coo_rows, coo_cols, coo_values, coo)
  call clkr_matrix_convert(coo, 'ell')
  call clkr_matrix_format(coo, format_name)
  call check(format_name == 'ell', 'converted to ell, is '//trim(format_name))
  b = multiply(values, x_true)
  x = 0
  call clkr_solve(ctx, coo, b, x, clkr_options(precision='mixed', relative_tolerance=1e-11_c_double), result)
  call check(result%status == CLKR_SOLVE_CONVERGED .and. error_of(x) < 1e-8_c_double .and. &
             result%inner_iterations > 0, 'coo in ell, mixed: '//clkr_text(result%message))
  x = 0
  call clkr_solve(ctx, coo, b, x, clkr_options(precision='mixed', preconditioner='jacobi', &
                  relative_tolerance=1e-11_c_double), result)
  call check(result%status == CLKR_SOLVE_CONVERGED .and. error_of(x) < 1e-8_c_double .and. &
             result%inner_iterations > 0, 'coo in ell, mixed with jacobi: '//clkr_text(result%message))
  call clkr_matrix_update_values(coo, 2*coo_values)
  b = multiply(2*values, x_true)
  x = 0
  call clkr_solve(ctx, coo, b, x, clkr_options(preconditioner='chebyshev', settings='chebyshev.degree=6', &
                                               relative_tolerance=1e-10_c_double), result)
  call check(result%status == CLKR_SOLVE_CONVERGED .and. error_of(x) < 1e-7_c_double, &
             'coo after update, chebyshev degree 6: '//clkr_text(result%message))
  call clkr_matrix_create_coo(ctx, n, n, int(coo_rows, c_int64_t), int(coo_cols, c_int64_t), coo_values, a64)
  call clkr_matrix_convert(a64, 'auto')
  options = clkr_options(preconditioner='amg', settings='amg.coarse_size=10', relative_tolerance=1e-10_c_double)
  allocate (options%near_null_space(n, 1))
  options%near_null_space = 1
  b = multiply(values, x_true)
  x = 0
  call clkr_solve(ctx, a64, b, x, options, result)
  call check(result%status == CLKR_SOLVE_CONVERGED .and. error_of(x) < 1e-7_c_double, &
             '64-bit coo, amg with a near-null space: '//clkr_text(result%message))
  ! The host backend: the Gauss-Seidel smoother runs there only (a device refuses it).
  x = 0
  call clkr_solve(ctx, a64, b, x, clkr_options(preconditioner='amg', backend='host', &
                                               relative_tolerance=1e-10_c_double, &
                                               settings='amg.coarse_size=10, amg.smoother=gauss-seidel'), result)
  call check(result%status == CLKR_SOLVE_CONVERGED .and. error_of(x) < 1e-7_c_double, &
             '64-bit coo, amg with gauss-seidel on the host backend: '//clkr_text(result%message))
  call clkr_solve(ctx, a64, b, x, clkr_options(preconditioner='amg', settings='amg.smoother=gauss-seidel'), &
                  stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_ARGUMENT, 'runs on the host backend only')
  ! Nodes of two rows each, 1-based offsets 1, 3, ..., n + 1.
  deallocate (options%near_null_space)
  allocate (options%node_offsets(n / 2 + 1))
  options%node_offsets = [(2*k + 1, k = 0, n / 2)]
  x = 0
  call clkr_solve(ctx, a64, b, x, options, result)
  call check(result%status == CLKR_SOLVE_CONVERGED .and. error_of(x) < 1e-7_c_double, &
             '64-bit coo, amg on nodes of two rows: '//clkr_text(result%message))
  options%node_offsets(1) = 2
  call clkr_solve(ctx, a64, b, x, options, stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_ARGUMENT, &
                    'options%node_offsets run from 2 to 101; they must run from 1 to n_rows + 1 = 101')
  deallocate (options%node_offsets)
  allocate (options%near_null_space(n, 1))
  call clkr_matrix_destroy(a64)

  ! ... and their bad input.
  call clkr_matrix_create_coo(ctx, n, n, coo_rows(2:), coo_cols, coo_values, stale, stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_ARGUMENT, 'row_indices has 595 entries, col_indices 596 and values 596')
  coo_cols(4) = n + 1
  call clkr_matrix_create_coo(ctx, n, n, coo_rows, coo_cols, coo_values, stale, stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_ARGUMENT, 'entry 4 ')
  call clkr_matrix_update_values(coo, coo_values(2:), stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_ARGUMENT, 'made from 596 triplets')
  call clkr_matrix_convert(coo, 'bsr', stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_ARGUMENT, "unknown matrix format 'bsr'")
  call clkr_solve(ctx, coo, b, x, clkr_options(preconditioner='amg', settings='amg.coarse_sise=4'), &
                  stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_ARGUMENT, "unknown key 'amg.coarse_sise'")
  call clkr_solve(ctx, coo, b, x, clkr_options(precision='mixed', preconditioner='jacobi', &
                  settings='precond.precision=double'), stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_ARGUMENT, "does not apply to precision 'mixed'")
  deallocate (options%near_null_space)
  allocate (options%near_null_space(n - 1, 1))
  options%near_null_space = 1
  call clkr_solver_create(coo, options, solver, stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_ARGUMENT, 'options%near_null_space has 99 rows, the matrix 100')
  stale = coo
  call clkr_matrix_destroy(coo)
  call clkr_matrix_convert(stale, 'csr', stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_HANDLE, 'not a live clkr_matrix')
  call clkr_matrix_format(stale, format_name, stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_HANDLE, 'not a live clkr_matrix')

  ! The rigid-body modes of two nodes about the origin: the translations, then omega x r; with rotation
  ! unknowns each node's own rotation; a dimension that is not 2 or 3 refused.
  call clkr_rigid_body_modes(reshape([1.0_c_double, 0.0_c_double, 0.0_c_double, -1.0_c_double, 0.0_c_double, &
                                      0.0_c_double], [3, 2]), modes, stat=stat, errmsg=message)
  call check(stat == CLKR_OK, 'rigid-body modes: '//trim(message))
  call check(all(shape(modes) == [6, 6]), 'rigid-body modes: shape')
  call check(all(modes(:, 1) == [1, 0, 0, 1, 0, 0]) .and. all(modes(:, 6) == [0, 1, 0, 0, -1, 0]), &
             'rigid-body modes: the x translation and the rotation about z')
  call clkr_rigid_body_modes(reshape([1.0_c_double, 0.0_c_double, 0.0_c_double, -1.0_c_double, 0.0_c_double, &
                                      0.0_c_double], [3, 2]), modes, unknowns_per_node=6, stat=stat, errmsg=message)
  call check(stat == CLKR_OK .and. size(modes, 1) == 12 .and. modes(6, 6) == 1 .and. modes(12, 6) == 1, &
             'rigid-body modes with rotation unknowns: '//trim(message))
  call clkr_rigid_body_modes(reshape([0.0_c_double, 1.0_c_double, 2.0_c_double, 3.0_c_double], [4, 1]), modes, &
                             stat=stat, errmsg=message)
  call expect_error(CLKR_ERROR_INVALID_ARGUMENT, 'expected 2 or 3')

  call clkr_context_destroy(ctx)
  ! The program's own arrays, freed so that LeakSanitizer sees only what clkr might leave.
  deallocate (offsets, cols, bad_cols, coo_rows, coo_cols, values, coo_values, bad_values, options%near_null_space)
  if (allocated(modes)) deallocate (modes)
  if (failures > 0) then
    print '(i0,a)', failures, ' failed checks'
    error stop 1
  end if
  print '(a)', 'fortran_test: all checks passed'

contains

  ! The 1D Laplacian tridiag(-1, 2, -1) in 1-based CSR.
  subroutine laplacian_1d(offsets, cols, values)
    integer(c_int32_t), allocatable, intent(out) :: offsets(:), cols(:)
    real(c_double), allocatable, intent(out) :: values(:)
    integer :: row, col, k
    allocate (offsets(n + 1), cols(3*n - 2), values(3*n - 2))
    k = 0
    offsets(1) = 1
    do row = 1, n
      do col = max(1, row - 1), min(n, row + 1)
        k = k + 1
        cols(k) = col
        values(k) = merge(2.0_c_double, -1.0_c_double, col == row)
      end do
      offsets(row + 1) = k + 1
    end do
  end subroutine

  ! The CSR matrix as 1-based COO triplets, every entry split into two halves, in reverse order.
  subroutine split_triplets(rows, cols_out, values_out)
    integer(c_int32_t), allocatable, intent(out) :: rows(:), cols_out(:)
    real(c_double), allocatable, intent(out) :: values_out(:)
    integer :: row, k, at
    allocate (rows(2*size(values)), cols_out(2*size(values)), values_out(2*size(values)))
    at = 2*size(values)
    do row = 1, n
      do k = offsets(row), offsets(row + 1) - 1
        rows(at - 1:at) = row
        cols_out(at - 1:at) = cols(k)
        values_out(at - 1:at) = values(k)/2
        at = at - 2
      end do
    end do
  end subroutine

  function multiply(v, x) result(y)
    real(c_double), intent(in) :: v(:), x(:)
    real(c_double) :: y(n)
    integer :: row, k
    do row = 1, n
      y(row) = 0
      do k = offsets(row), offsets(row + 1) - 1
        y(row) = y(row) + v(k)*x(cols(k))
      end do
    end do
  end function

  real(c_double) function error_of(x)
    real(c_double), intent(in) :: x(:)
    error_of = maxval(abs(x - x_true))/maxval(abs(x_true))
  end function

  subroutine solve_and_check(solver_name, preconditioner)
    character(len=*), intent(in) :: solver_name, preconditioner
    type(clkr_options) :: o
    o%solver = solver_name
    o%preconditioner = preconditioner
    o%relative_tolerance = 1e-10_c_double
    x = 0
    call clkr_solve(ctx, a, b, x, o, result, stat, message)
    call check(stat == CLKR_OK, solver_name//' + '//preconditioner//': '//trim(message))
    call check(result%status == CLKR_SOLVE_CONVERGED .and. error_of(x) < 1e-7_c_double, &
               solver_name//' + '//preconditioner//': '//clkr_text(result%status_name))
    print '(a,a,a,i0,a,es9.2)', solver_name, ' + ', preconditioner//': ', result%iterations, ' iterations, error ', &
      error_of(x)
  end subroutine

  subroutine expect_error(expected_stat, text)
    integer, intent(in) :: expected_stat
    character(len=*), intent(in) :: text
    call check(stat == expected_stat .and. index(message, text) > 0, 'expected "'//text//'", got: '//trim(message))
    message = ''
  end subroutine

  subroutine check(condition, what)
    logical, intent(in) :: condition
    character(len=*), intent(in) :: what
    if (condition) return
    failures = failures + 1
    print '(a,a)', 'check failed: ', what
  end subroutine

end program fortran_test
