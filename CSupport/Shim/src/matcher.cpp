// Nearest-neighbour search of query descriptors among several training sets, either by
// brute force or within the leaf buckets of a vocabulary tree trained on the training set.
#include "barrier.hpp"
#include "descriptors.hpp"
#include "vocabulary_tree.hpp"

#include <algorithm>
#include <climits>
#include <memory>

namespace {

// Descriptors grouped by leaf, each leaf contiguous and in set order, with their origin.
struct Buckets {
    std::vector<cs::Descriptor> train;
    std::vector<int32_t> set_of;
    std::vector<int32_t> index_in_set;
    std::vector<uint32_t> start; // leaf -> first entry; one extra end entry

    void append(const Buckets &from, uint32_t begin, uint32_t end) {
        train.insert(train.end(), from.train.begin() + begin, from.train.begin() + end);
        set_of.insert(set_of.end(), from.set_of.begin() + begin, from.set_of.begin() + end);
        index_in_set.insert(index_in_set.end(), from.index_in_set.begin() + begin, from.index_in_set.begin() + end);
    }
};

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
};

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
    int32_t best = -1;
    int distance = INT_MAX;
    int second = INT_MAX;

    void offer(int d, int32_t index) {
        if (d < second) {
            if (d < distance) {
                second = distance;
                distance = d;
                best = index;
            } else {
                second = d;
            }
        }
    }
};

CS_POPCOUNT
void scan(const Buckets &b, const cs::Descriptor &q, uint32_t begin, uint32_t end, Nearest &n) {
    for (uint32_t i = begin; i < end; ++i) n.offer(cs::hamming(q, b.train[i]), int32_t(i));
}

void index_sets_within_leaves(cs_matcher &m) {
    size_t leaves = m.all.start.size() - 1;
    m.leaf_set_start.assign(leaves * (m.set_count + 1), 0);
    for (size_t leaf = 0; leaf < leaves; ++leaf) {
        uint32_t *starts = m.leaf_set_start.data() + leaf * (m.set_count + 1);
        uint32_t i = m.all.start[leaf], end = m.all.start[leaf + 1];
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
    size_t leaves = m.all.start.size() - 1;
    for (size_t leaf = 0; leaf < leaves; ++leaf) {
        m.subset.start.push_back(uint32_t(m.subset.train.size()));
        const uint32_t *starts = m.leaf_set_start.data() + leaf * (m.set_count + 1);
        for (size_t s = 0; s < m.set_count; ++s)
            if (enabled[s]) m.subset.append(m.all, starts[s], starts[s + 1]);
    }
    m.subset.start.push_back(uint32_t(m.subset.train.size()));
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
        Buckets input;
        for (size_t s = 0; s < count; ++s) {
            cs::require(sets[s] != nullptr, "cs_matcher_create: a set is NULL");
            const auto &d = sets[s]->descriptors;
            input.train.insert(input.train.end(), d.begin(), d.end());
            for (size_t i = 0; i < d.size(); ++i) {
                input.set_of.push_back(int32_t(s));
                input.index_in_set.push_back(int32_t(i));
            }
        }
        if (options->branching == 0 || input.train.empty()) {
            input.start = {0, uint32_t(input.train.size())};
            matcher->all = std::move(input);
        } else {
            matcher->tree = std::make_unique<cs::VocabularyTree>(input.train, options->branching, options->depth,
                                                                 options->seed, kMaxTraining);
            matcher->probes = size_t(options->probes);
            // A stable counting sort by leaf: each leaf contiguous, and within it in set order.
            size_t n = input.train.size();
            std::vector<uint32_t> leaf_of(n);
            std::vector<uint32_t> start(matcher->tree->leaf_count() + 1, 0);
            for (size_t i = 0; i < n; ++i) {
                leaf_of[i] = matcher->tree->leaf(input.train[i]);
                ++start[leaf_of[i] + 1];
            }
            for (size_t l = 1; l < start.size(); ++l) start[l] += start[l - 1];
            Buckets &all = matcher->all;
            all.train.resize(n);
            all.set_of.resize(n);
            all.index_in_set.resize(n);
            std::vector<uint32_t> next(start.begin(), start.end() - 1);
            for (size_t i = 0; i < n; ++i) {
                uint32_t slot = next[leaf_of[i]]++;
                all.train[slot] = input.train[i];
                all.set_of[slot] = input.set_of[i];
                all.index_in_set[slot] = input.index_in_set[i];
            }
            all.start = std::move(start);
        }
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
        uint32_t leaves[kMaxProbes];
        size_t kept = 0;
        for (size_t i = 0; i < queries; ++i) {
            const cs::Descriptor &q = query->descriptors[i];
            Nearest n;
            size_t found = 1;
            leaves[0] = 0;
            if (matcher->tree) found = matcher->tree->leaves(q, leaves, matcher->probes);
            for (size_t l = 0; l < found; ++l) scan(b, q, b.start[leaves[l]], b.start[leaves[l] + 1], n);
            if (n.best < 0 || n.distance > max_distance) continue;
            if (n.second != INT_MAX && float(n.distance) >= ratio * float(n.second)) continue;
            out[kept++] = {int32_t(i), b.set_of[size_t(n.best)], b.index_in_set[size_t(n.best)], n.distance,
                           n.second == INT_MAX ? INT32_MAX : n.second};
        }
        *count = kept;
    });
}

} // extern "C"
