#include "vocabulary_tree.hpp"

#include "barrier.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <utility>

namespace cs {

namespace {

constexpr int kIterations = 8;

uint64_t next_random(uint64_t &state) {
    // SplitMix64: portable, so a seed means the same tree everywhere.
    state += 0x9E3779B97F4A7C15ULL;
    uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

Descriptor majority(const std::vector<Descriptor> &all, const std::vector<uint32_t> &members) {
    std::array<uint32_t, 256> ones{};
    for (uint32_t m : members)
        for (int bit = 0; bit < 256; ++bit) ones[size_t(bit)] += uint32_t((all[m].words[bit >> 6] >> (bit & 63)) & 1);
    Descriptor centre{};
    for (int bit = 0; bit < 256; ++bit)
        if (2 * ones[size_t(bit)] > members.size()) centre.words[bit >> 6] |= uint64_t(1) << (bit & 63);
    return centre;
}

CS_POPCOUNT
size_t nearest(const Descriptor &d, const Descriptor *centres, size_t count) {
    size_t best = 0;
    int best_distance = INT_MAX;
    for (size_t c = 0; c < count; ++c) {
        int distance = hamming(d, centres[c]);
        if (distance < best_distance) {
            best_distance = distance;
            best = c;
        }
    }
    return best;
}

// k-means++ seeding then k-majority iterations; returns the centres (fewer than k when
// there are fewer distinct members).
CS_POPCOUNT
std::vector<Descriptor> cluster(const std::vector<Descriptor> &all, const std::vector<uint32_t> &members, int k,
                                uint64_t &state, std::vector<uint32_t> &assignment) {
    std::vector<Descriptor> centres;
    std::vector<uint32_t> distance(members.size(), UINT32_MAX);
    centres.push_back(all[members[next_random(state) % members.size()]]);
    while (int(centres.size()) < k) {
        uint64_t total = 0;
        for (size_t i = 0; i < members.size(); ++i) {
            uint32_t d = uint32_t(hamming(all[members[i]], centres.back()));
            distance[i] = std::min(distance[i], d * d);
            total += distance[i];
        }
        if (total == 0) break;
        uint64_t pick = next_random(state) % total;
        size_t chosen = 0;
        for (uint64_t acc = 0; chosen < members.size(); ++chosen) {
            acc += distance[chosen];
            if (acc > pick) break;
        }
        centres.push_back(all[members[std::min(chosen, members.size() - 1)]]);
    }
    assignment.assign(members.size(), 0);
    for (int iteration = 0; iteration < kIterations; ++iteration) {
        bool changed = false;
        for (size_t i = 0; i < members.size(); ++i) {
            uint32_t c = uint32_t(nearest(all[members[i]], centres.data(), centres.size()));
            changed |= c != assignment[i] || iteration == 0;
            assignment[i] = c;
        }
        if (!changed) break;
        std::vector<std::vector<uint32_t>> groups(centres.size());
        for (size_t i = 0; i < members.size(); ++i) groups[assignment[i]].push_back(members[i]);
        for (size_t c = 0; c < centres.size(); ++c)
            if (!groups[c].empty()) centres[c] = majority(all, groups[c]);
    }
    return centres;
}

} // namespace

VocabularyTree::VocabularyTree(const std::vector<Descriptor> &descriptors, int branching, int depth, uint64_t seed,
                               size_t max_training)
    : branching_(branching), depth_(depth) {
    if (branching < 2 || branching > kMaxBranching || depth < 1 || depth > 8)
        throw Failure(CS_INVALID_ARGUMENT, "vocabulary tree: branching must be 2...32 and depth 1...8");
    if (max_training == 0) throw Failure(CS_INVALID_ARGUMENT, "vocabulary tree: max_training must be positive");
    size_t step = (descriptors.size() + max_training - 1) / max_training;
    std::vector<uint32_t> members;
    for (size_t i = 0; i < descriptors.size(); i += std::max<size_t>(step, 1)) members.push_back(uint32_t(i));
    blocks_per_group_ = (uint32_t(branching_) + DescriptorBlock::kLanes - 1) / DescriptorBlock::kLanes;
    nodes_.push_back({0, 0});
    uint64_t state = seed;
    uint32_t first = build(descriptors, members, 0, state);
    nodes_[0].first_child = first;
    if (first == 0) nodes_[0].leaf = uint32_t(leaf_count_++);
}

uint32_t VocabularyTree::child_distances(const Descriptor &d, uint32_t first, int32_t *out) const {
    size_t group = (first - 1) / uint32_t(branching_);
    const DescriptorBlock *blocks = child_blocks_.data() + group * blocks_per_group_;
    for (uint32_t b = 0; b < blocks_per_group_; ++b) block_distances(blocks[b], d, out + b * DescriptorBlock::kLanes);
    return group_sizes_[group];
}

// Adds the children of a node whose members are given; returns the first child's index,
// or 0 when the node stays a leaf.
uint32_t VocabularyTree::build(const std::vector<Descriptor> &all, std::vector<uint32_t> &members, int level,
                               uint64_t &state) {
    if (level >= depth_ || members.size() <= size_t(branching_)) return 0;
    std::vector<uint32_t> assignment;
    auto centres = cluster(all, members, branching_, state, assignment);
    // Every inner node has `branching_` child slots; the unused ones (a parent with too few
    // distinct members) are last, and their group's size leaves them out.
    uint32_t first = uint32_t(nodes_.size());
    size_t group = (first - 1) / size_t(branching_);
    child_blocks_.resize((group + 1) * blocks_per_group_);
    group_sizes_.push_back(uint32_t(centres.size()));
    for (size_t c = 0; c < centres.size(); ++c)
        child_blocks_[group * blocks_per_group_ + c / DescriptorBlock::kLanes].set(uint32_t(c % DescriptorBlock::kLanes),
                                                                                   centres[c]);
    nodes_.resize(nodes_.size() + size_t(branching_), Node{0, 0});
    std::vector<std::vector<uint32_t>> groups(static_cast<size_t>(branching_));
    for (size_t i = 0; i < members.size(); ++i) groups[assignment[i]].push_back(members[i]);
    members.clear();
    members.shrink_to_fit();
    for (size_t c = 0; c < centres.size(); ++c) {
        uint32_t node = first + uint32_t(c);
        uint32_t child = build(all, groups[c], level + 1, state);
        nodes_[node].first_child = child;
        if (child == 0) nodes_[node].leaf = uint32_t(leaf_count_++);
    }
    return first;
}

uint32_t VocabularyTree::leaf(const Descriptor &d) const {
    int32_t distances[kMaxBranching];
    uint32_t node = 0;
    while (nodes_[node].first_child != 0) {
        uint32_t first = nodes_[node].first_child;
        uint32_t count = child_distances(d, first, distances);
        uint32_t best = 0;
        for (uint32_t c = 1; c < count; ++c)
            if (distances[c] < distances[best]) best = c;
        node = first + best;
    }
    return nodes_[node].leaf;
}

size_t VocabularyTree::leaves(const Descriptor &d, uint32_t *out, size_t max_leaves) const {
    // Branches not taken, nearest first, in a small fixed list (no allocation per query). With
    // r leaves still to write after the current descent, only the r nearest alternatives can
    // ever be visited, so the list keeps no more.
    std::pair<int, uint32_t> alternatives[kMaxBranching];
    size_t alternative_count = 0;
    auto remember = [&](int distance, uint32_t node, size_t capacity) {
        size_t i = alternative_count;
        if (i == capacity) {
            if (capacity == 0 || distance >= alternatives[i - 1].first) return;
            --i;
        } else {
            ++alternative_count;
        }
        while (i > 0 && alternatives[i - 1].first > distance) {
            alternatives[i] = alternatives[i - 1];
            --i;
        }
        alternatives[i] = {distance, node};
    };
    max_leaves = std::min<size_t>(max_leaves, kMaxBranching);
    int32_t distances[kMaxBranching];
    // A node's children as keys distance * kMaxBranching + child, whose order is the
    // distances' with ties to the lower child (the order a scan in child order gives).
    static_assert(256 * kMaxBranching + kMaxBranching - 1 <= INT16_MAX, "keys fit 16 bits");
    int16_t keys[kMaxBranching];
    size_t written = 0;
    uint32_t node = 0;
    while (written < max_leaves) {
        const size_t capacity = max_leaves - written - 1;
        while (nodes_[node].first_child != 0) {
            uint32_t first = nodes_[node].first_child;
            uint32_t count = child_distances(d, first, distances);
            for (uint32_t c = 0; c < uint32_t(kMaxBranching); ++c)
                keys[c] = c < count ? int16_t(distances[c] * kMaxBranching + int32_t(c)) : INT16_MAX;
            // The nearest child is descended into and the next `capacity` nearest remembered:
            // no farther one could be visited. Each is found as the smallest key left.
            const size_t take = std::min<size_t>(count, capacity + 1);
            uint32_t best = 0;
            for (size_t k = 0; k < take; ++k) {
                int16_t smallest = keys[0];
                for (int c = 1; c < kMaxBranching; ++c) smallest = std::min(smallest, keys[c]);
                const uint32_t child = uint32_t(smallest) % kMaxBranching;
                keys[child] = INT16_MAX;
                if (k == 0) best = child;
                else remember(smallest / kMaxBranching, first + child, capacity);
            }
            node = first + best;
        }
        out[written++] = nodes_[node].leaf;
        if (alternative_count == 0) break;
        node = alternatives[0].second;
        std::move(alternatives + 1, alternatives + alternative_count, alternatives);
        --alternative_count;
    }
    return written;
}

} // namespace cs
