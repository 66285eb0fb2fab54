// Argon2 (RFC 9106) driver: validation, H0, the first blocks, the segment walk with data-
// dependent or data-independent indexing, and the final tag. The 1 KiB block function is a
// kernel picked at run time (argon2_fill_*.cc).
#include "ssr_native/argon2.h"

#include <cstring>
#include <vector>

#include "argon2_internal.h"
#include "ssr_native/blake2b.h"
#include "ssr_native/cpu_features.h"

namespace ssr_native {

using argon2_internal::Block;
using argon2_internal::BlockArena;
using argon2_internal::FillBlockFn;
using argon2_internal::kBlockSize;
using argon2_internal::kWordsPerBlock;

namespace {

constexpr uint32_t kSyncPoints = 4;  // slices per pass
constexpr uint32_t kMaxLanes = 0xFFFFFF;
constexpr size_t kAddressesPerBlock = kWordsPerBlock;
constexpr size_t kPrehashSize = 64;
// The largest arena a thread keeps between hashes (reuse_thread_memory).
constexpr uint64_t kMaxCachedArenaBytes = uint64_t{1} << 30;

thread_local BlockArena t_cached_arena;

void PutLe32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

void HashLe32(Blake2b* h, uint32_t v) {
  uint8_t b[4];
  PutLe32(b, v);
  h->Update(b, 4);
}

void HashSized(Blake2b* h, const uint8_t* data, size_t size) {
  HashLe32(h, static_cast<uint32_t>(size));
  if (size > 0) h->Update(data, size);
}

FillBlockFn KernelFor(Argon2Kernel kernel) {
  switch (kernel == Argon2Kernel::kAuto ? Argon2BestKernel() : kernel) {
    case Argon2Kernel::kAvx512:
      return argon2_internal::FillBlockAvx512;
    case Argon2Kernel::kAvx2:
      return argon2_internal::FillBlockAvx2;
    default:
      return argon2_internal::FillBlockPortable;
  }
}

struct Instance {
  Block* memory;
  uint32_t passes;
  uint32_t lanes;
  uint32_t lane_length;
  uint32_t segment_length;
  uint32_t memory_blocks;
  Argon2Type type;
  uint32_t version;
  FillBlockFn fill;
};

// Where in the reference area a block's reference lies (RFC 9106 section 3.4.1.2).
uint32_t ReferenceIndex(const Instance& in, uint32_t pass, uint32_t slice, uint32_t index,
                        uint32_t j1, bool same_lane) {
  uint64_t area;
  if (pass == 0) {
    if (slice == 0) {
      area = index - 1;
    } else if (same_lane) {
      area = static_cast<uint64_t>(slice) * in.segment_length + index - 1;
    } else {
      area = static_cast<uint64_t>(slice) * in.segment_length - (index == 0 ? 1 : 0);
    }
  } else {
    if (same_lane) {
      area = in.lane_length - in.segment_length + index - 1;
    } else {
      area = in.lane_length - in.segment_length - (index == 0 ? 1 : 0);
    }
  }
  uint64_t x = (static_cast<uint64_t>(j1) * j1) >> 32;
  const uint64_t relative = area - 1 - ((area * x) >> 32);
  uint64_t start = 0;
  if (pass != 0 && slice != kSyncPoints - 1)
    start = static_cast<uint64_t>(slice + 1) * in.segment_length;
  return static_cast<uint32_t>((start + relative) % in.lane_length);
}

// Fills one lane's segment of one slice, one block per Step. Two fillers stepped in turn
// (FillSegments) interleave two lanes, so each lane's reference block has a whole block of
// the other lane's computation to arrive from memory.
class SegmentFiller {
 public:
  SegmentFiller(const Instance& in, uint32_t pass, uint32_t slice, uint32_t lane)
      : in_(in),
        pass_(pass),
        slice_(slice),
        lane_(lane),
        lane_base_(static_cast<size_t>(lane) * in.lane_length),
        independent_(in.type == Argon2Type::kI ||
                     (in.type == Argon2Type::kId && pass == 0 && slice < 2)),
        xor_into_next_(in.version != kArgon2Version10 && pass > 0) {
    if (independent_) {
      input_.v[0] = pass;
      input_.v[1] = lane;
      input_.v[2] = slice;
      input_.v[3] = in.memory_blocks;
      input_.v[4] = in.passes;
      input_.v[5] = static_cast<uint64_t>(in.type);
    }
    if (pass == 0 && slice == 0) {
      start_ = 2;  // blocks 0 and 1 come from H0
      if (independent_) NextAddresses();
    }
  }
  ~SegmentFiller() { SecureWipe(&addresses_, sizeof(addresses_)); }
  SegmentFiller(const SegmentFiller&) = delete;
  SegmentFiller& operator=(const SegmentFiller&) = delete;

  uint32_t start() const { return start_; }

  // Computes block `i` of the segment (start() <= i < segment_length).
  void Step(uint32_t i) {
    const uint32_t column = slice_ * in_.segment_length + i;
    const size_t current = lane_base_ + column;
    const size_t previous = column == 0 ? lane_base_ + in_.lane_length - 1 : current - 1;
    uint64_t pseudo_random;
    if (independent_) {
      if (i % kAddressesPerBlock == 0) NextAddresses();
      pseudo_random = addresses_.v[i % kAddressesPerBlock];
      // Addresses are known in advance here: fetch the next reference block from memory
      // while this one is computed (a random 1 KiB read from the arena is a cache miss).
      const uint32_t next = i + 1;
      if (next < in_.segment_length && next % kAddressesPerBlock != 0) {
        Prefetch(Reference(next, addresses_.v[next % kAddressesPerBlock]));
      }
    } else {
      pseudo_random = in_.memory[previous].v[0];
    }
    const Block& ref = *Reference(i, pseudo_random);
    if (!independent_ && i + 1 < in_.segment_length) {
      // Data-dependent: block i's first word picks block i+1's reference. The kernel reports
      // it before finishing block i, and the fetch overlaps the rest of the computation.
      next_index_ = i + 1;
      in_.fill(in_.memory[previous], ref, &in_.memory[current], xor_into_next_, &hint_);
    } else {
      in_.fill(in_.memory[previous], ref, &in_.memory[current], xor_into_next_, nullptr);
    }
  }

 private:
  void NextAddresses() {
    ++input_.v[6];
    in_.fill(zero_, input_, &addresses_, false, nullptr);
    in_.fill(zero_, addresses_, &addresses_, false, nullptr);
  }

  // The block a pseudo-random value points to, for block `index` of this segment.
  const Block* Reference(uint32_t index, uint64_t pseudo_random) const {
    const uint32_t ref_lane = (pass_ == 0 && slice_ == 0)
                                  ? lane_
                                  : static_cast<uint32_t>((pseudo_random >> 32) % in_.lanes);
    const uint32_t ref_index = ReferenceIndex(
        in_, pass_, slice_, index, static_cast<uint32_t>(pseudo_random), ref_lane == lane_);
    return &in_.memory[static_cast<size_t>(ref_lane) * in_.lane_length + ref_index];
  }

  static void Prefetch(const Block* block) {
    const char* p = reinterpret_cast<const char*>(block);
    for (size_t line = 0; line < kBlockSize; line += 64) __builtin_prefetch(p + line);
  }

  static void OnFirstWord(const void* context, uint64_t first_word) {
    const auto* self = static_cast<const SegmentFiller*>(context);
    Prefetch(self->Reference(self->next_index_, first_word));
  }

  const Instance& in_;
  const uint32_t pass_, slice_, lane_;
  const size_t lane_base_;
  const bool independent_;
  const bool xor_into_next_;
  uint32_t start_ = 0;
  uint32_t next_index_ = 0;
  const argon2_internal::NextBlockHint hint_{&SegmentFiller::OnFirstWord, this};
  Block zero_{};
  Block input_{};
  Block addresses_{};
};

// Fills the segments of `count` (1 or 2) consecutive lanes, interleaved.
void FillSegments(const Instance& in, uint32_t pass, uint32_t slice, uint32_t first_lane,
                  uint32_t count) {
  if (count == 1) {
    SegmentFiller a(in, pass, slice, first_lane);
    for (uint32_t i = a.start(); i < in.segment_length; ++i) a.Step(i);
    return;
  }
  SegmentFiller a(in, pass, slice, first_lane);
  SegmentFiller b(in, pass, slice, first_lane + 1);
  for (uint32_t i = a.start(); i < in.segment_length; ++i) {
    a.Step(i);
    b.Step(i);
  }
}

void LoadBlock(Block* block, const uint8_t* bytes) {
  for (size_t i = 0; i < kWordsPerBlock; ++i) {
    uint64_t v = 0;
    for (int b = 7; b >= 0; --b) v = (v << 8) | bytes[i * 8 + b];
    block->v[i] = v;
  }
}

void StoreBlock(uint8_t* bytes, const Block& block) {
  for (size_t i = 0; i < kWordsPerBlock; ++i) {
    for (int b = 0; b < 8; ++b) bytes[i * 8 + b] = static_cast<uint8_t>(block.v[i] >> (8 * b));
  }
}

}  // namespace

const char* Argon2StatusMessage(Argon2Status status) {
  switch (status) {
    case Argon2Status::kOk:
      return "OK";
    case Argon2Status::kOutputTooShort:
      return "Output is too short";
    case Argon2Status::kSaltTooShort:
      return "Salt is too short";
    case Argon2Status::kMemoryTooLittle:
      return "Memory cost is too small";
    case Argon2Status::kTimeTooSmall:
      return "Time cost is too small";
    case Argon2Status::kLanesTooFew:
      return "Too few lanes";
    case Argon2Status::kLanesTooMany:
      return "Too many lanes";
    case Argon2Status::kIncorrectType:
      return "There is no such version of Argon2";
    case Argon2Status::kMemoryAllocationError:
      return "Memory allocation error";
  }
  return "Unknown error code";
}

bool Argon2KernelAvailable(Argon2Kernel kernel) {
  const CpuFeatures& cpu = GetCpuFeatures();
  switch (kernel) {
    case Argon2Kernel::kAvx2:
      return cpu.avx2;
    case Argon2Kernel::kAvx512:
      return cpu.avx512f;
    default:
      return true;
  }
}

Argon2Kernel Argon2BestKernel() {
  // AVX-512 is only chosen when it measurably beats AVX2 (see bench/cpp/argon2_bench.cc);
  // until then AVX2 is the fastest path on the machines measured.
  if (Argon2KernelAvailable(Argon2Kernel::kAvx2)) return Argon2Kernel::kAvx2;
  return Argon2Kernel::kPortable;
}

const char* Argon2KernelName(Argon2Kernel kernel) {
  switch (kernel) {
    case Argon2Kernel::kAuto:
      return "auto";
    case Argon2Kernel::kPortable:
      return "portable";
    case Argon2Kernel::kAvx2:
      return "avx2";
    case Argon2Kernel::kAvx512:
      return "avx512";
  }
  return "unknown";
}

Argon2Status Argon2Validate(const Argon2Params& params, const Argon2Inputs& inputs,
                            size_t tag_size) {
  // libargon2's order: output, password, salt, secret, data, memory, time, lanes, then type.
  if (tag_size < 4) return Argon2Status::kOutputTooShort;
  if (inputs.salt_size < 8) return Argon2Status::kSaltTooShort;
  if (params.memory_kib < 2 * kSyncPoints) return Argon2Status::kMemoryTooLittle;
  if (params.memory_kib < 8ULL * params.lanes) return Argon2Status::kMemoryTooLittle;
  if (params.passes < 1) return Argon2Status::kTimeTooSmall;
  if (params.lanes < 1) return Argon2Status::kLanesTooFew;
  if (params.lanes > kMaxLanes) return Argon2Status::kLanesTooMany;
  const uint32_t type = static_cast<uint32_t>(params.type);
  if (type > static_cast<uint32_t>(Argon2Type::kId)) return Argon2Status::kIncorrectType;
  return Argon2Status::kOk;
}

Argon2Status Argon2Hash(const Argon2Params& params, const Argon2Inputs& inputs, uint8_t* tag,
                        size_t tag_size, const ParallelFor& parallel_for,
                        const std::function<uint32_t()>& idle_helpers) {
  const Argon2Status status = Argon2Validate(params, inputs, tag_size);
  if (status != Argon2Status::kOk) return status;
  if (!Argon2KernelAvailable(params.kernel)) return Argon2Status::kIncorrectType;

  Instance in;
  in.lanes = params.lanes;
  in.segment_length = params.memory_kib / (in.lanes * kSyncPoints);
  in.lane_length = in.segment_length * kSyncPoints;
  in.memory_blocks = in.lane_length * in.lanes;
  in.passes = params.passes;
  in.type = params.type;
  in.version = params.version;
  in.fill = KernelFor(params.kernel);

  // Wipes the blocks on every way out; frees them unless this thread keeps them.
  struct ArenaUse {
    BlockArena* arena;
    bool keep;
    ~ArenaUse() {
      arena->Wipe();
      if (!keep) arena->Release();
    }
  };
  BlockArena local;
  const bool keep = params.reuse_thread_memory &&
                    static_cast<uint64_t>(in.memory_blocks) * kBlockSize <= kMaxCachedArenaBytes;
  ArenaUse use{keep ? &t_cached_arena : &local, keep};
  in.memory = use.arena->Allocate(in.memory_blocks);
  if (in.memory == nullptr) return Argon2Status::kMemoryAllocationError;

  // H0 = H^64(p, T, m, t, v, y, len(P) P, len(S) S, len(K) K, len(X) X); 8 more bytes
  // (block index and lane) are appended to derive each lane's first two blocks.
  uint8_t prehash[kPrehashSize + 8];
  {
    Blake2b h;
    h.Init(kPrehashSize);
    HashLe32(&h, params.lanes);
    HashLe32(&h, static_cast<uint32_t>(tag_size));
    HashLe32(&h, params.memory_kib);
    HashLe32(&h, params.passes);
    HashLe32(&h, params.version);
    HashLe32(&h, static_cast<uint32_t>(params.type));
    HashSized(&h, inputs.password, inputs.password_size);
    HashSized(&h, inputs.salt, inputs.salt_size);
    HashSized(&h, inputs.secret, inputs.secret_size);
    HashSized(&h, inputs.associated_data, inputs.associated_data_size);
    h.Final(prehash);
  }
  uint8_t bytes[kBlockSize];
  for (uint32_t lane = 0; lane < in.lanes; ++lane) {
    for (uint32_t j = 0; j < 2; ++j) {
      PutLe32(prehash + kPrehashSize, j);
      PutLe32(prehash + kPrehashSize + 4, lane);
      Blake2bLong(bytes, kBlockSize, prehash, sizeof(prehash));
      LoadBlock(&in.memory[static_cast<size_t>(lane) * in.lane_length + j], bytes);
    }
  }
  SecureWipe(prehash, sizeof(prehash));

  for (uint32_t pass = 0; pass < in.passes; ++pass) {
    for (uint32_t slice = 0; slice < kSyncPoints; ++slice) {
      // Lanes go in pairs when there are at least twice as many lanes as threads to run them
      // (interleaving hides memory latency), one by one otherwise (more parallelism).
      const uint32_t workers = parallel_for ? 1 + (idle_helpers ? idle_helpers() : 0) : 1;
      const bool pairs = in.lanes >= 2 * workers;
      const uint32_t items = pairs ? (in.lanes + 1) / 2 : in.lanes;
      auto run = [&](uint32_t item) {
        if (pairs) {
          const uint32_t first = 2 * item;
          FillSegments(in, pass, slice, first, first + 1 < in.lanes ? 2 : 1);
        } else {
          FillSegments(in, pass, slice, item, 1);
        }
      };
      if (parallel_for && items > 1) {
        parallel_for(items, run);
      } else {
        for (uint32_t item = 0; item < items; ++item) run(item);
      }
    }
  }

  Block final_block = in.memory[in.lane_length - 1];
  for (uint32_t lane = 1; lane < in.lanes; ++lane) {
    const Block& last = in.memory[static_cast<size_t>(lane) * in.lane_length + in.lane_length - 1];
    for (size_t i = 0; i < kWordsPerBlock; ++i) final_block.v[i] ^= last.v[i];
  }
  StoreBlock(bytes, final_block);
  Blake2bLong(tag, tag_size, bytes, kBlockSize);
  SecureWipe(bytes, sizeof(bytes));
  SecureWipe(&final_block, sizeof(final_block));
  return Argon2Status::kOk;
}

void Argon2ReleaseThreadMemory() { t_cached_arena.Release(); }

bool ConstantTimeEqual(const uint8_t* a, const uint8_t* b, size_t size) {
  volatile uint8_t diff = 0;
  for (size_t i = 0; i < size; ++i) diff = diff | (a[i] ^ b[i]);
  return diff == 0;
}

}  // namespace ssr_native
