# Installs the built clkr into a scratch prefix, configures and builds tests/consumer against it with
# find_package(clkr) (a C++, a C and, where the Fortran module was built, a Fortran program; then
# cxx_only/, a project that enables C++ alone), runs them and checks their output; then builds and runs
# the C and Fortran consumers again with nothing but the flags of the installed clkr.pc. Invoked by
# ctest (installed_package_consumer).
file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "command failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
set(fortran_args -DCLKR_CONSUMER_FORTRAN=OFF)
if(FC)
  set(fortran_args -DCLKR_CONSUMER_FORTRAN=ON -DCMAKE_Fortran_COMPILER=${FC})
endif()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_CXX_COMPILER=${CXX}
    -DCMAKE_C_COMPILER=${CC} ${fortran_args})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
# Each program prints "<name> ok" when its solution is right.
set(programs "consumer:consumer ok" "c_consumer:c consumer ok")
if(FC)
  list(APPEND programs "fortran_consumer:fortran consumer ok")
endif()
foreach(entry IN LISTS programs)
  string(REPLACE ":" ";" entry "${entry}")
  list(GET entry 0 program)
  list(GET entry 1 expected)
  run(${WORK_DIR}/build/${program})
  if(NOT last_output MATCHES "${expected}")
    message(FATAL_ERROR "${program} (find_package) ran but did not report success:\n${last_output}")
  endif()
  message(STATUS "find_package: ${last_output}")
endforeach()

# A project that enables C++ alone (cxx_only/): find_package(clkr) must need no other language.
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/cxx_only -B ${WORK_DIR}/build-cxx-only -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_CXX_COMPILER=${CXX})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build-cxx-only)
run(${WORK_DIR}/build-cxx-only/cxx_only_consumer)
if(NOT last_output MATCHES "consumer ok")
  message(FATAL_ERROR "the C++-only consumer (find_package) ran but did not report success:\n${last_output}")
endif()
message(STATUS "find_package, C++ only: ${last_output}")

# The C, C++ (and, where the module was built, Fortran) consumers compiled with nothing but what
# pkg-config says about the installed clkr.pc.
set(pkg_config_env ${CMAKE_COMMAND} -E env PKG_CONFIG_PATH=${prefix}/${LIBDIR}/pkgconfig)
# pkg-config gives no run path: a shared libclkr is found in the scratch prefix through LD_LIBRARY_PATH.
set(run_env ${CMAKE_COMMAND} -E env LD_LIBRARY_PATH=${prefix}/${LIBDIR})
run(${pkg_config_env} pkg-config --cflags --libs clkr)
string(STRIP "${last_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${CC} -std=c99 -o ${WORK_DIR}/c_consumer ${SOURCE_DIR}/consumer.c ${flags} -lm)  # -lm: its own fabs
run(${run_env} ${WORK_DIR}/c_consumer)
if(NOT last_output MATCHES "c consumer ok")
  message(FATAL_ERROR "the C consumer ran but did not report success:\n${last_output}")
endif()
message(STATUS "${last_output}")
run(${CXX} -std=c++17 -o ${WORK_DIR}/cxx_consumer ${SOURCE_DIR}/consumer.cpp ${flags})
run(${run_env} ${WORK_DIR}/cxx_consumer)
if(NOT last_output MATCHES "consumer ok")
  message(FATAL_ERROR "the C++ consumer (pkg-config) ran but did not report success:\n${last_output}")
endif()
message(STATUS "pkg-config C++: ${last_output}")
if(FC)
  run(${pkg_config_env} pkg-config --variable=fortranmoddir clkr)
  string(STRIP "${last_output}" module_dir)
  run(${FC} -o ${WORK_DIR}/fortran_consumer -I${module_dir} ${SOURCE_DIR}/consumer.f90 -L${prefix}/${LIBDIR}
      -lclkr_fortran ${flags})
  run(${run_env} ${WORK_DIR}/fortran_consumer)
  if(NOT last_output MATCHES "fortran consumer ok")
    message(FATAL_ERROR "the Fortran consumer ran but did not report success:\n${last_output}")
  endif()
  message(STATUS "${last_output}")
endif()
