! A Fortran program built against the installed clkr (the module's .mod and libclkr_fortran, then the
! libraries of `pkg-config --libs clkr`): solves a 1D Poisson system in 1-based CSR and prints
! "fortran consumer ok" when x is right.
program consumer
  use, intrinsic :: iso_c_binding, only: c_double, c_int32_t
  use clkr
  implicit none
  integer, parameter :: n = 50
  integer(c_int32_t) :: offsets(n + 1), cols(3*n - 2)
  real(c_double) :: values(3*n - 2), x_true(n), b(n), x(n)
  type(clkr_context) :: ctx
  type(clkr_matrix) :: a
  type(clkr_result) :: result
  integer :: row, col, k
  k = 0
  offsets(1) = 1
  do row = 1, n
    do col = max(1, row - 1), min(n, row + 1)
      k = k + 1
      cols(k) = col
      values(k) = merge(2.0_c_double, -1.0_c_double, col == row)
    end do
    offsets(row + 1) = k + 1
    x_true(row) = row
  end do
  do row = 1, n
    b(row) = sum(values(offsets(row):offsets(row + 1) - 1)*x_true(cols(offsets(row):offsets(row + 1) - 1)))
  end do
  x = 0
  call clkr_context_create(ctx)
  call clkr_matrix_create(ctx, n, n, offsets, cols, values, a)
  call clkr_solve(ctx, a, b, x, result=result)
  print '(a,a,a,i0,a)', 'Fortran module: ', clkr_text(result%status_name), ' in ', result%iterations, ' iterations'
  call clkr_matrix_destroy(a)
  call clkr_context_destroy(ctx)
  if (result%status /= CLKR_SOLVE_CONVERGED .or. maxval(abs(x - x_true))/n > 1e-6_c_double) error stop 1
  print '(a)', 'fortran consumer ok'
end program consumer
