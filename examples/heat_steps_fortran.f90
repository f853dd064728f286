! Implicit heat steps from Fortran: (I + dt k(t) L) u_new = u_old on a g x g grid with 1-based CSR
! arrays, as a Fortran simulator holds them. The matrix is uploaded once; each step replaces its values,
! refreshes the AMG and solves from the previous solution. Stops with an error code if a step fails.
program heat_steps_fortran
  use, intrinsic :: iso_c_binding, only: c_double, c_int32_t
  use clkr
  implicit none
  integer, parameter :: g = 40, n = g*g, steps = 10
  integer(c_int32_t) :: offsets(n + 1), cols(5*n)
  real(c_double) :: values(5*n), u(n), u_new(n)
  type(clkr_context) :: ctx
  type(clkr_matrix) :: a
  type(clkr_solver) :: solver
  type(clkr_options) :: options
  type(clkr_result) :: result
  integer :: i, j, row, nnz, step, stat
  character(len=256) :: errmsg

  nnz = 0
  offsets(1) = 1
  do i = 1, g
    do j = 1, g
      row = (i - 1)*g + j
      if (i > 1) call add(row - g)
      if (j > 1) call add(row - 1)
      call add(row)
      if (j < g) call add(row + 1)
      if (i < g) call add(row + g)
      offsets(row + 1) = nnz + 1
      u(row) = merge(1.0_c_double, 0.0_c_double, i > g/4 .and. i < 3*g/4 .and. j > g/4 .and. j < 3*g/4)
    end do
  end do
  call fill_values(1.0_c_double)

  options%preconditioner = 'amg'
  options%use_initial_guess = .true.
  call clkr_context_create(ctx, stat=stat, errmsg=errmsg)
  if (stat == CLKR_OK) call clkr_matrix_create(ctx, n, n, offsets, cols(:nnz), values(:nnz), a, stat=stat, errmsg=errmsg)
  if (stat == CLKR_OK) call clkr_solver_create(a, options, solver, stat=stat, errmsg=errmsg)
  if (stat /= CLKR_OK) call fail(errmsg)
  do step = 1, steps
    call fill_values(1.0_c_double + 0.1_c_double*step)  ! k(t) grows: new values, same pattern
    u_new = u                                          ! the previous solution as the guess
    call clkr_matrix_update_values(a, values(:nnz), stat=stat, errmsg=errmsg)
    if (stat == CLKR_OK) call clkr_solver_update(solver, stat=stat, errmsg=errmsg)
    if (stat == CLKR_OK) call clkr_solver_solve(solver, u, u_new, result, stat=stat, errmsg=errmsg)
    if (stat /= CLKR_OK) call fail(errmsg)
    print '(a,i2,a,a,a,i0,a,es8.1)', 'step ', step, ': ', clkr_text(result%status_name), ' in ', &
      result%iterations, ' iterations, residual ', result%true_relative_residual
    if (result%status /= CLKR_SOLVE_CONVERGED .or. result%true_relative_residual > 1e-7_c_double) error stop 2
    u = u_new
  end do
  call clkr_solver_destroy(solver)
  call clkr_matrix_destroy(a)
  call clkr_context_destroy(ctx)

contains

  subroutine add(col)
    integer, intent(in) :: col
    nnz = nnz + 1
    cols(nnz) = col
  end subroutine

  ! The values of I + c L in the order of the pattern.
  subroutine fill_values(c)
    real(c_double), intent(in) :: c
    integer :: r, k
    do r = 1, n
      do k = offsets(r), offsets(r + 1) - 1
        values(k) = merge(1.0_c_double + 4.0_c_double*c, -c, cols(k) == r)
      end do
    end do
  end subroutine

  subroutine fail(message)
    character(len=*), intent(in) :: message
    print '(a)', trim(message)
    error stop 1
  end subroutine
end program heat_steps_fortran
