# The distributed part of clkr (CLKR_WITH_MPI): the library clkr::clkr_dist (src/dist, public headers in
# include/clkr/dist), the program's mpirun paths (src/app/dist) and, with the tests, tests/dist.
if(NOT MPI_CXX_FOUND)
  message(FATAL_ERROR "CLKR_WITH_MPI=ON but no MPI was found (Debian: apt-get install openmpi-bin libopenmpi-dev)")
endif()
file(GLOB CLKR_DIST_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/dist/*.cpp)
add_library(clkr_dist ${CLKR_DIST_SOURCES})
add_library(clkr::clkr_dist ALIAS clkr_dist)
target_link_libraries(clkr_dist PUBLIC clkr MPI::MPI_CXX)
target_compile_options(clkr_dist PRIVATE -Wall -Wextra -Wno-ignored-attributes)
set_target_properties(clkr_dist PROPERTIES EXPORT_NAME clkr_dist VERSION ${PROJECT_VERSION} SOVERSION 0)
install(TARGETS clkr_dist EXPORT clkrTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})

file(GLOB CLKR_APP_DIST_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/app/dist/*.cpp)
target_sources(clkr_app PRIVATE ${CLKR_APP_DIST_SOURCES})
target_link_libraries(clkr_app PRIVATE clkr_dist)
target_compile_definitions(clkr_app PRIVATE CLKR_WITH_MPI=1)
message(STATUS "MPI: ${MPIEXEC_EXECUTABLE} (distributed solves: clkr::clkr_dist, mpirun clkr)")
