// Nearest-neighbour search of query descriptors among several training sets, either by
// brute force or within the leaf buckets of a vocabulary tree trained on the training set;
// eight descriptors at a time where the processor counts bits in 512-bit registers.
#include "barrier.hpp"
#include "descriptors.hpp"
#include "vocabulary_tree.hpp"

#include <algorithm>
#include <climits>
#include <memory>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

using cs::DescriptorBlock;
constexpr uint32_t kLanes = DescriptorBlock::kLanes;

// Descriptors grouped by leaf, each leaf starting on a new block and in set order, with their
// origin. The slots between a leaf's end and the next leaf's start are padding.
struct Buckets {
    std::vector<DescriptorBlock> blocks;
    std::vector<int32_t> set_of;
    std::vector<int32_t> index_in_set;
    std::vector<uint32_t> start; // leaf -> first slot; one extra end entry
    std::vector<uint32_t> end;   // leaf -> one past its last descriptor

    size_t size() const { return set_of.size(); }

    cs::Descriptor at(size_t slot) const { return blocks[slot / kLanes].get(uint32_t(slot % kLanes)); }

    void push(const cs::Descriptor &d, int32_t set, int32_t index) {
        size_t slot = size();
        if (slot % kLanes == 0) blocks.push_back(DescriptorBlock{});
        blocks.back().set(uint32_t(slot % kLanes), d);
        set_of.push_back(set);
        index_in_set.push_back(index);
    }

    void begin_leaf() {
        while (size() % kLanes != 0) {
            set_of.push_back(-1);
            index_in_set.push_back(-1);
        }
        start.push_back(uint32_t(size()));
    }

    void end_leaf() { end.push_back(uint32_t(size())); }

    void finish() { begin_leaf(); }

    void append(const Buckets &from, uint32_t begin, uint32_t stop) {
        for (uint32_t i = begin; i < stop; ++i) push(from.at(i), from.set_of[i], from.index_in_set[i]);
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

    void offer(int d, int32_t slot) {
        if (d < second) {
            if (d < distance) {
                second = distance;
                distance = d;
                best = slot;
            } else {
                second = d;
            }
        }
    }
};

// One query's nearest and second-nearest distance so far, kept per lane (slot modulo eight) so
// that eight descriptors are compared at a time; the lanes are merged at the end. A tie for
// nearest leaves the second equal to the nearest either way, so the ratio test sees the same
// distances as a search one descriptor at a time.
struct alignas(64) LaneNearest {
    int64_t best[kLanes];
    int64_t second[kLanes];
    int64_t slot[kLanes];

    void reset() {
        std::fill(best, best + kLanes, INT_MAX);
        std::fill(second, second + kLanes, INT_MAX);
        std::fill(slot, slot + kLanes, -1);
    }

    Nearest merged() const {
        Nearest n;
        for (uint32_t lane = 0; lane < kLanes; ++lane) {
            n.offer(int(best[lane]), int32_t(slot[lane]));
            n.offer(int(second[lane]), -1); // never below the nearest offered so far: only a second
        }
        return n;
    }
};

// One descriptor at a time, keeping everything in lane 0 (the other lanes stay empty).
CS_POPCOUNT
void scan_leaf_scalar(const Buckets &b, const cs::Descriptor &q, uint32_t leaf, LaneNearest &lanes) {
    Nearest n{int32_t(lanes.slot[0]), int(lanes.best[0]), int(lanes.second[0])};
    for (uint32_t slot = b.start[leaf], end = b.end[leaf]; slot < end; ++slot)
        n.offer(cs::hamming(q, b.at(slot)), int32_t(slot));
    lanes.best[0] = n.distance;
    lanes.second[0] = n.second;
    lanes.slot[0] = n.best;
}

#if defined(__x86_64__)
__attribute__((target("avx512f,avx512vpopcntdq")))
void scan_leaf_avx512(const Buckets &b, const cs::Descriptor &q, uint32_t leaf, LaneNearest &n) {
    const __m512i q0 = _mm512_set1_epi64(int64_t(q.words[0]));
    const __m512i q1 = _mm512_set1_epi64(int64_t(q.words[1]));
    const __m512i q2 = _mm512_set1_epi64(int64_t(q.words[2]));
    const __m512i q3 = _mm512_set1_epi64(int64_t(q.words[3]));
    const __m512i none = _mm512_set1_epi64(INT_MAX);
    const __m512i lane_offsets = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    __m512i best = _mm512_load_si512(n.best), second = _mm512_load_si512(n.second);
    __m512i best_slot = _mm512_load_si512(n.slot);
    const uint32_t end = b.end[leaf];
    for (uint32_t slot = b.start[leaf]; slot < end; slot += kLanes) {
        const DescriptorBlock &block = b.blocks[slot / kLanes];
        __m512i d = _mm512_popcnt_epi64(_mm512_xor_si512(_mm512_load_si512(block.words[0]), q0));
        d = _mm512_add_epi64(d, _mm512_popcnt_epi64(_mm512_xor_si512(_mm512_load_si512(block.words[1]), q1)));
        d = _mm512_add_epi64(d, _mm512_popcnt_epi64(_mm512_xor_si512(_mm512_load_si512(block.words[2]), q2)));
        d = _mm512_add_epi64(d, _mm512_popcnt_epi64(_mm512_xor_si512(_mm512_load_si512(block.words[3]), q3)));
        const __mmask8 real = end - slot >= kLanes ? __mmask8(0xFF) : __mmask8((1u << (end - slot)) - 1);
        d = _mm512_mask_mov_epi64(none, real, d);
        second = _mm512_min_epi64(second, _mm512_max_epi64(best, d));
        const __mmask8 closer = _mm512_cmplt_epi64_mask(d, best);
        best_slot = _mm512_mask_mov_epi64(best_slot, closer, _mm512_add_epi64(_mm512_set1_epi64(slot), lane_offsets));
        best = _mm512_min_epi64(best, d);
    }
    _mm512_store_si512(n.best, best);
    _mm512_store_si512(n.second, second);
    _mm512_store_si512(n.slot, best_slot);
}
#endif

using LeafScan = void (*)(const Buckets &, const cs::Descriptor &, uint32_t, LaneNearest &);

const LeafScan scan_leaf =
#if defined(__x86_64__)
    cs::has_wide_popcount() ? scan_leaf_avx512 :
#endif
                            scan_leaf_scalar;

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
    m.subset.finish();
    return m.subset;
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
        for (size_t set = 0; set < count; ++set) {
            cs::require(sets[set] != nullptr, "cs_matcher_create: a set is NULL");
            const auto &d = sets[set]->descriptors;
            train.insert(train.end(), d.begin(), d.end());
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
                all.push(train[order[next]], set_of[order[next]], index_in_set[order[next]]);
            all.end_leaf();
        }
        all.finish();
        index_sets_within_leaves(*matcher);
        *out = matcher.release();
    });
}

void cs_matcher_destroy(cs_matcher *matcher) { delete matcher; }

cs_status cs_matcher_match(cs_matcher *matcher, const cs_features *query, const uint8_t *enabled_sets, float ratio,
                           int32_t max_distance, cs_match *out, size_t capacity, size_t *count, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(matcher != nullptr && query != nullptr && count != nullptr, "cs_matcher_match: NULL argument");
        cs::require(ratio > 0 && ratio <= 1, "cs_matcher_match: ratio must be in (0, 1]");
        size_t queries = query->descriptors.size();
        cs::require_capacity(capacity, queries);
        const Buckets &b = buckets_for(*matcher, enabled_sets);
        cs_matcher &m = *matcher;
        const size_t probes = m.tree ? m.probes : 1, leaves = b.end.size();
        m.probe_leaves.resize(queries * probes);
        m.probe_counts.resize(queries);
        m.leaf_first_probe.assign(leaves + 1, 0);
        for (size_t i = 0; i < queries; ++i) {
            uint32_t *mine = m.probe_leaves.data() + i * probes;
            mine[0] = 0;
            m.probe_counts[i] = m.tree ? uint32_t(m.tree->leaves(query->descriptors[i], mine, probes)) : 1;
            for (uint32_t l = 0; l < m.probe_counts[i]; ++l) ++m.leaf_first_probe[mine[l] + 1];
        }
        for (size_t l = 1; l <= leaves; ++l) m.leaf_first_probe[l] += m.leaf_first_probe[l - 1];
        m.queries_by_leaf.resize(m.leaf_first_probe[leaves]);
        m.leaf_fill.assign(m.leaf_first_probe.begin(), m.leaf_first_probe.end() - 1);
        for (size_t i = 0; i < queries; ++i)
            for (uint32_t l = 0; l < m.probe_counts[i]; ++l)
                m.queries_by_leaf[m.leaf_fill[m.probe_leaves[i * probes + l]]++] = uint32_t(i);
        m.nearest.resize(queries);
        for (auto &n : m.nearest) n.reset();
        for (uint32_t leaf = 0; leaf < leaves; ++leaf)
            for (uint32_t p = m.leaf_first_probe[leaf]; p < m.leaf_first_probe[leaf + 1]; ++p) {
                uint32_t i = m.queries_by_leaf[p];
                scan_leaf(b, query->descriptors[i], leaf, m.nearest[i]);
            }
        size_t kept = 0;
        for (size_t i = 0; i < queries; ++i) {
            const Nearest n = m.nearest[i].merged();
            if (n.best < 0 || n.distance > max_distance) continue;
            if (n.second != INT_MAX && float(n.distance) >= ratio * float(n.second)) continue;
            out[kept++] = {int32_t(i), b.set_of[size_t(n.best)], b.index_in_set[size_t(n.best)], n.distance,
                           n.second == INT_MAX ? INT32_MAX : n.second};
        }
        *count = kept;
    });
}

} // extern "C"
