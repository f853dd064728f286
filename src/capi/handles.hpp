// The objects behind the C API's opaque handles, and the registry that makes a destroyed or foreign
// handle an error instead of a use-after-free: a handle is dereferenced only after it is found among
// the live handles of its type, and its magic number (cleared on destroy) is checked as a second line
// for memory reused by a new object of the same type.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include "clkr/data/matrix.hpp"
#include "clkr/runtime/context.hpp"
#include "clkr/solver/solver_setup.hpp"

struct clkr_context_s {
  static constexpr std::uint32_t kMagic = 0x636c6b63;  // "clkc"
  static constexpr const char* kName = "clkr_context";
  std::uint32_t magic = kMagic;
  std::shared_ptr<clkr::Context> context;
};

struct clkr_matrix_s {
  static constexpr std::uint32_t kMagic = 0x636c6b6d;  // "clkm"
  static constexpr const char* kName = "clkr_matrix";
  std::uint32_t magic = kMagic;
  // Shared with the solvers made on it, so that destroying the matrix first leaves them valid.
  std::shared_ptr<clkr::Matrix> matrix;
  // Made from COO triplets: the CSR entry each triplet was summed into (clkr::coo_to_csr's
  // entry_slots), so that update_values sums new values of the same triplets the same way.
  bool from_coo = false;
  std::vector<std::int64_t> coo_slots;
  int index_base = 0;
};

struct clkr_solver_s {
  static constexpr std::uint32_t kMagic = 0x636c6b73;  // "clks"
  static constexpr const char* kName = "clkr_solver";
  std::uint32_t magic = kMagic;
  std::unique_ptr<clkr::SolverSetup> setup;
  bool use_initial_guess = false;
};

namespace clkr::capi {

// A handle that is NULL, destroyed or never made (CLKR_ERROR_INVALID_HANDLE).
class HandleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

template <class T>
class Registry {
 public:
  static T* add(std::unique_ptr<T> object) {
    std::lock_guard<std::mutex> lock(mutex());
    live().insert(object.get());
    return object.release();
  }
  // The live object behind `handle`; throws HandleError naming the argument otherwise.
  static T& get(T* handle, const char* argument) {
    if (handle == nullptr) throw HandleError(std::string(argument) + " is NULL");
    std::lock_guard<std::mutex> lock(mutex());
    if (live().count(handle) == 0 || handle->magic != T::kMagic)
      throw HandleError(std::string(argument) + " is not a live " + T::kName +
                        " (destroyed already, or never created)");
    return *handle;
  }
  // Destroying NULL does nothing; a handle not live is a HandleError.
  static void destroy(T* handle, const char* argument) {
    if (handle == nullptr) return;
    {
      std::lock_guard<std::mutex> lock(mutex());
      if (live().erase(handle) == 0)
        throw HandleError(std::string(argument) + " is not a live " + T::kName +
                          " (destroyed already, or never created)");
      handle->magic = 0;
    }
    delete handle;
  }

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::unordered_set<T*>& live() {
    static std::unordered_set<T*> handles;
    return handles;
  }
};

}  // namespace clkr::capi
