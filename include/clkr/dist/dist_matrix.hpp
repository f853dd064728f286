// clkr::DistMatrix: a square sparse matrix distributed by rows. Each rank holds, on its device, the
// local block (its rows x the columns it owns, in any storage format) and the halo block (the rows
// that reach into other ranks' columns x those columns, renumbered compactly, in CSR), and the halo
// exchange that brings those x values before each SpMV (pattern computed once here).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "clkr/data/matrix.hpp"
#include "clkr/dist/communicator.hpp"
#include "clkr/dist/halo_exchange.hpp"
#include "clkr/dist/local_rows.hpp"
#include "clkr/dist/row_partition.hpp"

namespace clkr {

class DistMatrix {
 public:
  // Collective over `comm`. Each rank passes the rows it owns with global column indices. Checked,
  // every failure a CollectiveError on every rank naming the rank: each rank's rows (LocalRows::
  // validate: a column outside the matrix, a NaN; a column twice in a row), that all ranks give the
  // same global_rows, that the blocks tile rows 0..global_rows-1 in rank order (rank r's first_row is
  // where rank r-1's rows end), and building the blocks on each device (out of memory).
  DistMatrix(std::shared_ptr<Context> context, std::shared_ptr<Communicator> comm, const LocalRows& rows,
             Format format = Format::Csr, MatrixOptions options = {});
  ~DistMatrix();
  DistMatrix(DistMatrix&&) noexcept;
  DistMatrix& operator=(DistMatrix&&) noexcept;

  const RowPartition& partition() const;
  const std::shared_ptr<Communicator>& communicator() const;
  const std::shared_ptr<Context>& context() const;
  std::int64_t global_rows() const;
  std::int64_t global_nnz() const;
  std::int32_t local_rows() const;

  // This rank's local block (local_rows() x local_rows()), and its halo block: one row per local row
  // with entries in other ranks' columns (halo_rows()[i] is the local row of halo row i, ascending),
  // one column per halo entry (halo_pattern().halo_columns). Only those rows, so that the halo SpMV
  // reads and writes nothing for the (usually many) rows without halo entries.
  Matrix& local_block();
  Matrix& halo_block();
  const std::vector<std::int32_t>& halo_rows() const;
  const HaloPattern& halo_pattern() const;
  // Converts the local block (the halo block stays CSR: most of its rows are empty).
  void convert(Format format);

  // ---- low-level access, for DistBlas::spmv ------------------------------------------------------
  HaloExchange& exchange();
  // The halo values of x (halo_pattern().halo_size() elements), written by exchange().finish().
  Vector& halo_values();
  // halo_rows() on the device, and room for the halo block's products (one per halo row).
  const cl::Buffer& halo_rows_buffer();
  Vector& halo_products();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace clkr
