// clkr::HaloExchange: device packing, pinned host staging, a transfer queue and non-blocking
// point-to-point messages.
#include "clkr/dist/halo_exchange.hpp"

#include <chrono>
#include <utility>

#include "clkr/blas/kernel_args.hpp"

namespace clkr {
namespace {

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

// How a precision's device copy is laid out for the wire: quasi-double is two float arrays (head,
// tail), sent as two messages per neighbour, the others one array.
struct WireLayout {
  std::size_t element_bytes;
  int planes;
};
WireLayout wire_layout(Precision p) {
  switch (p) {
    case Precision::Single:
      return {4, 1};
    case Precision::QuasiDouble:
      return {4, 2};
    case Precision::Double:
      break;
  }
  return {8, 1};
}

// The largest element of any precision's wire layout, per plane and all planes together.
constexpr std::size_t kMaxBytesPerValue = 8;

}  // namespace

// Host memory the device copies into and out of: allocated by the driver (CL_MEM_ALLOC_HOST_PTR) and
// mapped once for the exchange's lifetime, which on GPUs gives pinned pages that DMA reaches directly
// (pageable memory costs an extra copy through a driver buffer on every transfer).
struct HaloExchange::Staging {
  std::shared_ptr<Context> context;
  cl::Buffer send_buffer, recv_buffer;
  void* send = nullptr;
  void* recv = nullptr;

  Staging(std::shared_ptr<Context> c, std::size_t send_bytes, std::size_t recv_bytes) : context(std::move(c)) {
    send = map(send_buffer, send_bytes, "halo send staging");
    recv = map(recv_buffer, recv_bytes, "halo receive staging");
  }
  ~Staging() {
    // Destructors never throw: an unmap the driver refuses leaves the memory to the buffer's release.
    try {
      if (send) context->queue().enqueueUnmapMemObject(send_buffer, send);
      if (recv) context->queue().enqueueUnmapMemObject(recv_buffer, recv);
    } catch (...) {
    }
  }
  void* map(cl::Buffer& buffer, std::size_t bytes, const std::string& what) {
    if (bytes == 0) return nullptr;
    buffer = context->allocate(bytes, what, CL_MEM_READ_WRITE | CL_MEM_ALLOC_HOST_PTR);
    return context->queue().enqueueMapBuffer(buffer, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes);
  }
};

HaloExchange::HaloExchange(std::shared_ptr<Context> context, std::shared_ptr<Communicator> comm, HaloPattern pattern)
    : context_(std::move(context)),
      comm_(std::move(comm)),
      pattern_(std::move(pattern)),
      packed_(context_, static_cast<std::size_t>(pattern_.send_size()), "halo send values") {
  translate_cl_errors("HaloExchange", [&] {
    const std::size_t sends = static_cast<std::size_t>(pattern_.send_size());
    if (sends > 0) {
      indices_ = context_->allocate(sends * sizeof(std::int32_t), "halo send indices", CL_MEM_READ_ONLY);
      context_->queue().enqueueWriteBuffer(indices_, CL_TRUE, 0, sends * sizeof(std::int32_t),
                                           pattern_.send_indices.data());
    }
    transfer_ = cl::CommandQueue(context_->cl_context(), context_->device());
    staging_ = std::make_unique<Staging>(context_, sends * kMaxBytesPerValue,
                                         static_cast<std::size_t>(pattern_.halo_size()) * kMaxBytesPerValue);
  });
}

HaloExchange::~HaloExchange() {
  // The transfer queue's last commands use the staging memory, released right after: let them end.
  // Destructors never throw: a failing device leaves them to the driver.
  try {
    if (transfer_()) transfer_.finish();
  } catch (...) {
  }
}

void HaloExchange::post_receives(void* recv, std::size_t element_bytes, int planes) {
  const std::size_t halo = static_cast<std::size_t>(pattern_.halo_size());
  for (int plane = 0; plane < planes; ++plane) {
    char* base = static_cast<char*>(recv) + plane * halo * element_bytes;
    for (std::size_t i = 0; i < pattern_.recv_ranks.size(); ++i) {
      const std::size_t begin = static_cast<std::size_t>(pattern_.recv_offsets[i]);
      const std::size_t count = static_cast<std::size_t>(pattern_.recv_offsets[i + 1]) - begin;
      requests_.emplace_back();
      MPI_Irecv(base + begin * element_bytes, static_cast<int>(count * element_bytes), MPI_BYTE, pattern_.recv_ranks[i],
                plane, comm_->comm(), &requests_.back());
    }
  }
}

void HaloExchange::post_sends(const void* send, std::size_t element_bytes, int planes) {
  const std::size_t sends = static_cast<std::size_t>(pattern_.send_size());
  for (int plane = 0; plane < planes; ++plane) {
    const char* base = static_cast<const char*>(send) + plane * sends * element_bytes;
    for (std::size_t i = 0; i < pattern_.send_ranks.size(); ++i) {
      const std::size_t begin = static_cast<std::size_t>(pattern_.send_offsets[i]);
      const std::size_t bytes = (static_cast<std::size_t>(pattern_.send_offsets[i + 1]) - begin) * element_bytes;
      requests_.emplace_back();
      MPI_Isend(base + begin * element_bytes, static_cast<int>(bytes), MPI_BYTE, pattern_.send_ranks[i], plane,
                comm_->comm(), &requests_.back());
      comm_->stats().halo_bytes_sent += bytes;
      ++comm_->stats().halo_messages_sent;
    }
  }
}

void HaloExchange::wait_all() {
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  requests_.clear();
}

void HaloExchange::start(Blas& blas, Vector& x) {
  const double begin = now();
  precision_ = blas.precision();
  const WireLayout wire = wire_layout(precision_);
  // The previous exchange's halo write reads the receive staging: it must be done before MPI refills it.
  if (write_done_()) comm_->deferred("halo exchange", [&] { write_done_.wait(); });
  const double waited = now() - begin;
  write_done_ = cl::Event();
  post_receives(staging_->recv, wire.element_bytes, wire.planes);
  const std::size_t n = static_cast<std::size_t>(pattern_.send_size());
  if (n > 0) {
    comm_->deferred("halo exchange: packing the send values", [&] {
      translate_cl_errors("halo_pack", [&] {
        cl::Kernel& kernel = blas.elementwise_kernel("dist/halo.cl", "halo_pack");
        const Vector::DeviceBuffers out = packed_.device(precision_, Access::Write);
        KernelArgs(kernel, precision_)
            .value(cl_ulong{0})
            .value(cl_ulong{0})
            .value(indices_)
            .vector(x.device(precision_, Access::Read))
            .vector(out);
        // Reads an index and a value, writes a value.
        const double bytes = static_cast<double>(n) * (4 + 2 * bytes_per_element(precision_));
        blas.launch_elementwise("halo_pack", kernel, n, 0, bytes);
      });
    });
  }
  const std::size_t h = static_cast<std::size_t>(pattern_.halo_size());
  if (n > 0 || h > 0) {
    // Where the compute queue stands before the caller's local-block SpMV: the packing done, and the
    // previous exchange's halo-block SpMV, which read the halo vector that finish() overwrites.
    // The transfers wait for this marker only, not for the local-block SpMV queued after it.
    comm_->deferred("halo exchange: marking the compute queue", [&] {
      translate_cl_errors("halo exchange", [&] {
        context_->queue().enqueueMarkerWithWaitList(nullptr, &compute_mark_);
        context_->queue().flush();
      });
    });
  }
  if (n > 0) {
    comm_->deferred("halo exchange: reading the send values back", [&] {
      translate_cl_errors("halo exchange", [&] {
        // On the transfer queue, so that the local-block SpMV does not wait behind it.
        const Vector::DeviceBuffers out = packed_.device(precision_, Access::Read);
        const std::vector<cl::Event> packed{compute_mark_};
        const std::size_t plane_bytes = n * wire.element_bytes;
        if (wire.planes == 2) {
          transfer_.enqueueReadBuffer(out.primary, CL_FALSE, 0, plane_bytes, staging_->send, &packed);
          transfer_.enqueueReadBuffer(out.tail, CL_FALSE, 0, plane_bytes,
                                      static_cast<char*>(staging_->send) + plane_bytes, nullptr, &read_done_);
        } else {
          transfer_.enqueueReadBuffer(out.primary, CL_FALSE, 0, plane_bytes, staging_->send, &packed, &read_done_);
        }
        transfer_.flush();
      });
    });
  }
  comm_->stats().halo_seconds += now() - begin - waited;
  comm_->stats().halo_device_seconds += waited;
}

void HaloExchange::finish(Vector& halo) {
  const double begin = now();
  const WireLayout wire = wire_layout(precision_);
  if (read_done_()) comm_->deferred("halo exchange: reading the send values", [&] { read_done_.wait(); });
  read_done_ = cl::Event();
  const double waited = now() - begin;
  post_sends(staging_->send, wire.element_bytes, wire.planes);
  wait_all();
  const std::size_t h = static_cast<std::size_t>(pattern_.halo_size());
  if (h > 0) {
    comm_->deferred("halo exchange: writing the halo", [&] {
      translate_cl_errors("halo exchange", [&] {
        // On the transfer queue, beside the local-block SpMV still running on the compute queue, once
        // the previous halo-block SpMV is done (start()'s marker; a rank that sends nothing has no
        // read-back that would order it); the compute queue's next commands wait for the write.
        const Vector::DeviceBuffers target = halo.device(precision_, Access::Write);
        const std::vector<cl::Event> halo_free{compute_mark_};
        const std::size_t plane_bytes = h * wire.element_bytes;
        if (wire.planes == 2) {
          transfer_.enqueueWriteBuffer(target.primary, CL_FALSE, 0, plane_bytes, staging_->recv, &halo_free);
          transfer_.enqueueWriteBuffer(target.tail, CL_FALSE, 0, plane_bytes,
                                       static_cast<char*>(staging_->recv) + plane_bytes, nullptr, &write_done_);
        } else {
          transfer_.enqueueWriteBuffer(target.primary, CL_FALSE, 0, plane_bytes, staging_->recv, &halo_free,
                                       &write_done_);
        }
        transfer_.flush();
        const std::vector<cl::Event> written{write_done_};
        context_->queue().enqueueBarrierWithWaitList(&written);
      });
    });
  }
  ++comm_->stats().halo_exchanges;
  comm_->stats().halo_seconds += now() - begin - waited;
  comm_->stats().halo_device_seconds += waited;
}

std::vector<double> HaloExchange::exchange_host(const std::vector<double>& x_local) {
  std::vector<double> send(static_cast<std::size_t>(pattern_.send_size()));
  for (std::size_t i = 0; i < send.size(); ++i) send[i] = x_local[static_cast<std::size_t>(pattern_.send_indices[i])];
  std::vector<double> recv(static_cast<std::size_t>(pattern_.halo_size()));
  post_receives(recv.data(), sizeof(double), 1);
  post_sends(send.data(), sizeof(double), 1);
  wait_all();
  return recv;
}

}  // namespace clkr
