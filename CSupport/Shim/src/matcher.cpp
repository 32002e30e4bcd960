// Nearest-neighbour search of query descriptors among several training sets, either by
// brute force or within the leaf buckets of a vocabulary tree trained on the training set;
// eight descriptors at a time with AVX-512 or AVX2 where the processor has them.
#include "barrier.hpp"
#include "descriptors.hpp"
#include "vocabulary_tree.hpp"

#include <algorithm>
#include <climits>
#include <memory>

namespace {

using cs::DescriptorBlock;
constexpr uint32_t kLanes = DescriptorBlock::kLanes;

// Where a training feature lies in its set's pixels, and how large it is.
struct Place {
    float x = 0, y = 0, size = 0;
};

// Descriptors grouped by leaf, each leaf starting on a new block and in set order, with their
// origin. The slots between a leaf's end and the next leaf's start are padding.
struct Buckets {
    std::vector<DescriptorBlock> blocks;
    std::vector<int32_t> set_of;
    std::vector<int32_t> index_in_set;
    std::vector<Place> place;
    std::vector<uint32_t> start; // leaf -> first slot
    std::vector<uint32_t> end;   // leaf -> one past its last descriptor

    size_t size() const { return set_of.size(); }

    cs::Descriptor at(size_t slot) const { return blocks[slot / kLanes].get(uint32_t(slot % kLanes)); }

    void push(const cs::Descriptor &d, int32_t set, int32_t index, Place where) {
        size_t slot = size();
        if (slot % kLanes == 0) blocks.push_back(DescriptorBlock{});
        blocks.back().set(uint32_t(slot % kLanes), d);
        set_of.push_back(set);
        index_in_set.push_back(index);
        place.push_back(where);
    }

    // Whether the features in slots a and b are one detail of one set, described twice (at
    // neighbouring scales, or in two simulated views): within `radius` times the larger size.
    bool same_detail(int32_t a, int32_t b, float radius) const {
        if (set_of[size_t(a)] != set_of[size_t(b)]) return false;
        const Place &p = place[size_t(a)], &q = place[size_t(b)];
        const float dx = p.x - q.x, dy = p.y - q.y, r = radius * std::max(p.size, q.size);
        return dx * dx + dy * dy < r * r;
    }

    void begin_leaf() {
        while (size() % kLanes != 0) {
            set_of.push_back(-1);
            index_in_set.push_back(-1);
            place.push_back(Place{});
        }
        start.push_back(uint32_t(size()));
    }

    void end_leaf() { end.push_back(uint32_t(size())); }

    void append(const Buckets &from, uint32_t begin, uint32_t stop) {
        for (uint32_t i = begin; i < stop; ++i) push(from.at(i), from.set_of[i], from.index_in_set[i], from.place[i]);
    }
};

} // namespace


namespace cs {

void require_popcount() {
#if defined(__x86_64__) && !defined(__POPCNT__)
    static const bool available = __builtin_cpu_supports("popcnt");
    if (!available) throw Failure(CS_INTERNAL, "this processor lacks the popcnt instruction Waymark needs");
#endif
}

} // namespace cs

namespace {

// The bucketing tree learns its centres from an even sample of this many descriptors.
constexpr size_t kMaxTraining = 100000;
constexpr size_t kMaxProbes = 16;

struct Nearest {
    int32_t best = -1; // slot
    int distance = INT_MAX;
    int second = INT_MAX;
};

// One query's nearest and second-nearest descriptor so far, kept per lane so that eight
// descriptors are compared at a time; lane l sees the slots congruent to l modulo 8 (in some
// order of lanes), in increasing order, whichever kernel runs. The lanes are merged at the
// end, so every kernel finds the same matches.
struct alignas(32) LaneNearest {
    int32_t best[kLanes];
    int32_t second[kLanes];
    int32_t slot[kLanes];
    int32_t second_slot[kLanes];

    void reset() {
        std::fill(best, best + kLanes, INT_MAX);
        std::fill(second, second + kLanes, INT_MAX);
        std::fill(slot, slot + kLanes, -1);
        std::fill(second_slot, second_slot + kLanes, -1);
    }

    void offer(uint32_t lane, int d, int32_t s) {
        if (d >= second[lane]) return;
        if (d < best[lane]) {
            second[lane] = best[lane];
            second_slot[lane] = slot[lane];
            best[lane] = d;
            slot[lane] = s;
        } else {
            second[lane] = d;
            second_slot[lane] = s;
        }
    }

    // The nearest of all lanes (the lower slot on a tie) and the nearest other one that is not
    // the same detail (`same_detail_radius` > 0), or simply the second nearest. A tie for
    // nearest between two different details leaves the second equal to it, which no ratio
    // test passes. Each lane keeps two, so a lane whose two are both the nearest detail hides
    // its third: the second may then come out a little farther than the true one.
    Nearest merged(const Buckets &b, float same_detail_radius) const {
        Nearest n;
        for (uint32_t lane = 0; lane < kLanes; ++lane)
            if (slot[lane] >= 0 && (best[lane] < n.distance || (best[lane] == n.distance && slot[lane] < n.best))) {
                n.distance = best[lane];
                n.best = slot[lane];
            }
        if (n.best < 0) return n;
        auto consider = [&](int d, int32_t s) {
            if (s < 0 || s == n.best || d >= n.second) return;
            if (same_detail_radius > 0 && b.same_detail(s, n.best, same_detail_radius)) return;
            n.second = d;
        };
        for (uint32_t lane = 0; lane < kLanes; ++lane) {
            consider(best[lane], slot[lane]);
            consider(second[lane], second_slot[lane]);
        }
        return n;
    }
};

// One descriptor at a time, each into its lane.
CS_POPCOUNT
void scan_leaf_scalar(const Buckets &b, const cs::Descriptor &q, uint32_t leaf, LaneNearest &lanes) {
    for (uint32_t slot = b.start[leaf], end = b.end[leaf]; slot < end; ++slot)
        lanes.offer(slot % kLanes, cs::hamming(q, b.at(slot)), int32_t(slot));
}

#if defined(__x86_64__)
// A LaneNearest in registers, for the vector kernels.
struct LaneRegisters {
    __m256i best, second, slot, second_slot;

    __attribute__((target("avx2"))) explicit LaneRegisters(const LaneNearest &n)
        : best(_mm256_load_si256(reinterpret_cast<const __m256i *>(n.best))),
          second(_mm256_load_si256(reinterpret_cast<const __m256i *>(n.second))),
          slot(_mm256_load_si256(reinterpret_cast<const __m256i *>(n.slot))),
          second_slot(_mm256_load_si256(reinterpret_cast<const __m256i *>(n.second_slot))) {}

    __attribute__((target("avx2"))) void store(LaneNearest &n) const {
        _mm256_store_si256(reinterpret_cast<__m256i *>(n.best), best);
        _mm256_store_si256(reinterpret_cast<__m256i *>(n.second), second);
        _mm256_store_si256(reinterpret_cast<__m256i *>(n.slot), slot);
        _mm256_store_si256(reinterpret_cast<__m256i *>(n.second_slot), second_slot);
    }

    // Folds in the eight distances (32-bit lanes) of the block at `first`, whose lanes hold
    // the slots `slots`; those at or past `end` are padding.
    __attribute__((target("avx2"))) void fold(__m256i d, __m256i slots, uint32_t first, uint32_t end) {
        if (end - first < kLanes)
            d = _mm256_blendv_epi8(_mm256_set1_epi32(INT_MAX), d,
                                   _mm256_cmpgt_epi32(_mm256_set1_epi32(int32_t(end)), slots));
        const __m256i nearer = _mm256_cmpgt_epi32(best, d), second_nearer = _mm256_cmpgt_epi32(second, d);
        second_slot = _mm256_blendv_epi8(_mm256_blendv_epi8(second_slot, slots, second_nearer), slot, nearer);
        second = _mm256_min_epi32(second, _mm256_max_epi32(best, d));
        slot = _mm256_blendv_epi8(slot, slots, nearer);
        best = _mm256_min_epi32(best, d);
    }
};

__attribute__((target("avx512f,avx512vpopcntdq,avx2")))
void scan_leaf_avx512(const Buckets &b, const cs::Descriptor &q, uint32_t leaf, LaneNearest &n) {
    const __m512i words[4] = {_mm512_set1_epi64(int64_t(q.words[0])), _mm512_set1_epi64(int64_t(q.words[1])),
                              _mm512_set1_epi64(int64_t(q.words[2])), _mm512_set1_epi64(int64_t(q.words[3]))};
    const __m256i lane_offsets = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    LaneRegisters lanes(n);
    for (uint32_t slot = b.start[leaf], end = b.end[leaf]; slot < end; slot += kLanes)
        lanes.fold(_mm512_cvtepi64_epi32(cs::distances_avx512(b.blocks[slot / kLanes], words)),
                   _mm256_add_epi32(_mm256_set1_epi32(int32_t(slot)), lane_offsets), slot, end);
    lanes.store(n);
}

__attribute__((target("avx2")))
void scan_leaf_avx2(const Buckets &b, const cs::Descriptor &q, uint32_t leaf, LaneNearest &n) {
    const __m256i words[4] = {_mm256_set1_epi64x(int64_t(q.words[0])), _mm256_set1_epi64x(int64_t(q.words[1])),
                              _mm256_set1_epi64x(int64_t(q.words[2])), _mm256_set1_epi64x(int64_t(q.words[3]))};
    const __m256i lane_offsets = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7); // as the distances come
    LaneRegisters lanes(n);
    for (uint32_t slot = b.start[leaf], end = b.end[leaf]; slot < end; slot += kLanes)
        lanes.fold(cs::distances_avx2_interleaved(b.blocks[slot / kLanes], words),
                   _mm256_add_epi32(_mm256_set1_epi32(int32_t(slot)), lane_offsets), slot, end);
    lanes.store(n);
}
#endif

using LeafScan = void (*)(const Buckets &, const cs::Descriptor &, uint32_t, LaneNearest &);

LeafScan choose_leaf_scan() {
    switch (cs::descriptor_kernel()) {
#if defined(__x86_64__)
    case cs::DescriptorKernel::avx512: return scan_leaf_avx512;
    case cs::DescriptorKernel::avx2: return scan_leaf_avx2;
#endif
    default: return scan_leaf_scalar;
    }
}

const LeafScan scan_leaf = choose_leaf_scan();

} // namespace

struct cs_matcher {
    Buckets all;
    // leaf_set_start[leaf * (set_count + 1) + s]: where set s begins within the leaf.
    std::vector<uint32_t> leaf_set_start;
    std::unique_ptr<cs::VocabularyTree> tree;
    size_t probes = 1;
    size_t set_count = 0;
    // A search restricted to a few sets runs on a compact copy of their descriptors (so it
    // reads no memory of the others), kept while the same sets are asked for.
    std::vector<uint8_t> subset_mask;
    Buckets subset;
    // Per-search scratch, kept to avoid allocating per frame: each query's leaves, the queries
    // probing each leaf (so each leaf is read once, from cache, for all of them), their state.
    std::vector<uint32_t> probe_leaves;
    std::vector<uint32_t> probe_counts;
    std::vector<uint32_t> leaf_first_probe;
    std::vector<uint32_t> leaf_fill;
    std::vector<uint32_t> queries_by_leaf;
    std::vector<LaneNearest> nearest;
};

namespace {

void index_sets_within_leaves(cs_matcher &m) {
    size_t leaves = m.all.end.size();
    m.leaf_set_start.assign(leaves * (m.set_count + 1), 0);
    for (size_t leaf = 0; leaf < leaves; ++leaf) {
        uint32_t *starts = m.leaf_set_start.data() + leaf * (m.set_count + 1);
        uint32_t i = m.all.start[leaf], end = m.all.end[leaf];
        for (size_t s = 0; s <= m.set_count; ++s) {
            while (i < end && size_t(m.all.set_of[i]) < s) ++i;
            starts[s] = i;
        }
    }
}

const Buckets &buckets_for(cs_matcher &m, const uint8_t *enabled) {
    if (!enabled) return m.all;
    if (m.subset_mask.size() == m.set_count && std::equal(m.subset_mask.begin(), m.subset_mask.end(), enabled))
        return m.subset;
    m.subset_mask.assign(enabled, enabled + m.set_count);
    m.subset = Buckets{};
    size_t leaves = m.all.end.size();
    for (size_t leaf = 0; leaf < leaves; ++leaf) {
        m.subset.begin_leaf();
        const uint32_t *starts = m.leaf_set_start.data() + leaf * (m.set_count + 1);
        for (size_t s = 0; s < m.set_count; ++s)
            if (enabled[s]) m.subset.append(m.all, starts[s], starts[s + 1]);
        m.subset.end_leaf();
    }
    return m.subset;
}

// Fills m.queries_by_leaf with the queries probing each leaf (leaf l's from
// m.leaf_first_probe[l] to [l + 1]), so that each leaf is read once, from cache, for all of them.
void group_queries_by_leaf(cs_matcher &m, const cs_features &query, size_t leaves) {
    const size_t queries = query.descriptors.size(), probes = m.tree ? m.probes : 1;
    m.probe_leaves.resize(queries * probes);
    m.probe_counts.resize(queries);
    m.leaf_first_probe.assign(leaves + 1, 0);
    for (size_t i = 0; i < queries; ++i) {
        uint32_t *mine = m.probe_leaves.data() + i * probes;
        mine[0] = 0;
        m.probe_counts[i] = m.tree ? uint32_t(m.tree->leaves(query.descriptors[i], mine, probes)) : 1;
        for (uint32_t l = 0; l < m.probe_counts[i]; ++l) ++m.leaf_first_probe[mine[l] + 1];
    }
    for (size_t l = 1; l <= leaves; ++l) m.leaf_first_probe[l] += m.leaf_first_probe[l - 1];
    m.queries_by_leaf.resize(m.leaf_first_probe[leaves]);
    m.leaf_fill.assign(m.leaf_first_probe.begin(), m.leaf_first_probe.end() - 1);
    for (size_t i = 0; i < queries; ++i)
        for (uint32_t l = 0; l < m.probe_counts[i]; ++l)
            m.queries_by_leaf[m.leaf_fill[m.probe_leaves[i * probes + l]]++] = uint32_t(i);
}

} // namespace

extern "C" {

cs_status cs_matcher_create(const cs_features *const *sets, size_t count, const cs_matcher_options *options,
                            cs_matcher **out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(out != nullptr && options != nullptr && (count == 0 || sets != nullptr),
                    "cs_matcher_create: NULL argument");
        cs::require(options->branching == 0 || (options->probes >= 1 && size_t(options->probes) <= kMaxProbes),
                    "cs_matcher_create: probes must be 1...16");
        *out = nullptr;
        cs::require_popcount();
        auto matcher = std::make_unique<cs_matcher>();
        matcher->set_count = count;
        std::vector<cs::Descriptor> train;
        std::vector<int32_t> set_of, index_in_set;
        std::vector<Place> places;
        for (size_t set = 0; set < count; ++set) {
            cs::require(sets[set] != nullptr, "cs_matcher_create: a set is NULL");
            const auto &d = sets[set]->descriptors;
            train.insert(train.end(), d.begin(), d.end());
            for (const cs_keypoint &k : sets[set]->keypoints) places.push_back(Place{k.x, k.y, k.size});
            for (size_t i = 0; i < d.size(); ++i) {
                set_of.push_back(int32_t(set));
                index_in_set.push_back(int32_t(i));
            }
        }
        // Without a tree everything is one leaf; with one, each leaf in set order (a stable
        // counting sort by leaf).
        std::vector<uint32_t> leaf_of(train.size(), 0);
        size_t leaf_count = 1;
        if (options->branching != 0 && !train.empty()) {
            matcher->tree = std::make_unique<cs::VocabularyTree>(train, options->branching, options->depth,
                                                                 options->seed, kMaxTraining);
            matcher->probes = size_t(options->probes);
            leaf_count = matcher->tree->leaf_count();
            for (size_t i = 0; i < train.size(); ++i) leaf_of[i] = matcher->tree->leaf(train[i]);
        }
        std::vector<uint32_t> first(leaf_count + 1, 0);
        for (uint32_t leaf : leaf_of) ++first[leaf + 1];
        for (size_t l = 1; l < first.size(); ++l) first[l] += first[l - 1];
        std::vector<uint32_t> order(train.size());
        for (size_t i = 0; i < train.size(); ++i) order[first[leaf_of[i]]++] = uint32_t(i);
        Buckets &all = matcher->all;
        size_t next = 0;
        for (uint32_t leaf = 0; leaf < leaf_count; ++leaf) {
            all.begin_leaf();
            for (; next < order.size() && leaf_of[order[next]] == leaf; ++next)
                all.push(train[order[next]], set_of[order[next]], index_in_set[order[next]], places[order[next]]);
            all.end_leaf();
        }
        index_sets_within_leaves(*matcher);
        *out = matcher.release();
    });
}

void cs_matcher_destroy(cs_matcher *matcher) { delete matcher; }

cs_status cs_matcher_match(cs_matcher *matcher, const cs_features *query, const uint8_t *enabled_sets, float ratio,
                           int32_t max_distance, float same_detail_radius, cs_match *out, size_t capacity, size_t *count,
                           cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(matcher != nullptr && query != nullptr && count != nullptr, "cs_matcher_match: NULL argument");
        cs::require(ratio > 0 && ratio <= 1, "cs_matcher_match: ratio must be in (0, 1]");
        cs::require(same_detail_radius >= 0, "cs_matcher_match: the same-detail radius must be >= 0");
        size_t queries = query->descriptors.size();
        cs::require_capacity(capacity, queries);
        const Buckets &b = buckets_for(*matcher, enabled_sets);
        cs_matcher &m = *matcher;
        group_queries_by_leaf(m, *query, b.end.size());
        m.nearest.resize(queries);
        for (auto &n : m.nearest) n.reset();
        for (uint32_t leaf = 0; leaf < b.end.size(); ++leaf)
            for (uint32_t p = m.leaf_first_probe[leaf]; p < m.leaf_first_probe[leaf + 1]; ++p) {
                uint32_t i = m.queries_by_leaf[p];
                scan_leaf(b, query->descriptors[i], leaf, m.nearest[i]);
            }
        size_t kept = 0;
        for (size_t i = 0; i < queries; ++i) {
            const Nearest n = m.nearest[i].merged(b, same_detail_radius);
            if (n.best < 0 || n.distance > max_distance) continue;
            if (n.second != INT_MAX && float(n.distance) >= ratio * float(n.second)) continue;
            out[kept++] = {int32_t(i), b.set_of[size_t(n.best)], b.index_in_set[size_t(n.best)], n.distance,
                           n.second == INT_MAX ? INT32_MAX : n.second};
        }
        *count = kept;
    });
}

} // extern "C"
