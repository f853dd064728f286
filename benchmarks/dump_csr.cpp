// clkr_dump_csr SPEC PREFIX: writes a matrix spec's CSR arrays as raw little-endian files (PREFIX.indptr
// as int64, as HostCsrMatrix holds row offsets since matrices may pass 2^31 entries; PREFIX.indices as
// int32; PREFIX.data as float64) and prints "rows cols nnz", so that peers outside
// C++ (benchmarks/cupy_cg.py) run exactly the matrix clkr's generators make (powerlaw:N) without a
// Matrix Market text of gigabytes.
#include <cstdio>
#include <exception>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "clkr/io/generators.hpp"

namespace {

template <class T>
void write(const std::string& path, const std::vector<T>& v) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: clkr_dump_csr SPEC PREFIX   (SPEC: a generator spec or a Matrix Market file)\n";
    return 2;
  }
  try {
    const clkr::HostCsrMatrix A = clkr::load_matrix(argv[1]);
    const std::string prefix = argv[2];
    write(prefix + ".indptr", A.row_offsets);
    write(prefix + ".indices", A.col_indices);
    write(prefix + ".data", A.values);
    std::printf("%d %d %lld\n", A.rows, A.cols, static_cast<long long>(A.nnz()));
  } catch (const std::exception& e) {
    std::cerr << "clkr_dump_csr: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
