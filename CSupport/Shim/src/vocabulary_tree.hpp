// A hierarchical k-majority tree over binary descriptors (Nistér & Stewénius 2006, with
// Gálvez-López & Tardós' majority-bit centres): the shared structure behind the bucketed
// matcher and, later, bag-of-words retrieval.
#pragma once

#include "descriptors.hpp"

#include <cstdint>
#include <vector>

namespace cs {

class VocabularyTree {
  public:
    static constexpr int kMaxBranching = 32;

    // Trains on `descriptors` (an even sample of at most `max_training` of them, which keeps
    // large libraries quick) with `branching` children per node and `depth` levels; seeded.
    VocabularyTree(const std::vector<Descriptor> &descriptors, int branching, int depth, uint64_t seed,
                   size_t max_training);

    int branching() const { return branching_; }
    int depth() const { return depth_; }
    size_t leaf_count() const { return leaf_count_; }

    // The leaf a descriptor falls in, following the nearest centre at every level.
    uint32_t leaf(const Descriptor &d) const;

    // Up to `max_leaves` leaves in best-bin-first order: the descent's leaf first, then the
    // leaves under the closest alternative branches. Returns how many were written.
    size_t leaves(const Descriptor &d, uint32_t *out, size_t max_leaves) const;

  private:
    struct Node {
        uint32_t first_child; // index of the first of `branching_` children; 0 for leaves
        uint32_t leaf;        // leaf number when this is a leaf
    };

    uint32_t build(const std::vector<Descriptor> &all, std::vector<uint32_t> &members, int level, uint64_t &state);
    // Distances from d to the centres of the children starting at node `first`; returns how
    // many there are (unused slots excluded).
    uint32_t child_distances(const Descriptor &d, uint32_t first, int32_t *out) const;

    int branching_;
    int depth_;
    size_t leaf_count_ = 0;
    std::vector<Node> nodes_; // nodes_[0] is the root
    // The children's centres, in blocks: `blocks_per_group_` for each group of `branching_`
    // sibling slots (nodes 1..., in order).
    std::vector<DescriptorBlock> child_blocks_;
    std::vector<uint32_t> group_sizes_; // slots in use, per group
    uint32_t blocks_per_group_ = 0;
};

} // namespace cs
