// Nearest-neighbour search of query descriptors among several training sets, either by
// brute force or within the leaf buckets of a vocabulary tree trained on the training set.
#include "barrier.hpp"
#include "descriptors.hpp"
#include "vocabulary_tree.hpp"

#include <climits>
#include <memory>

struct cs_matcher {
    std::vector<cs::Descriptor> train; // grouped by leaf bucket when there is a tree
    std::vector<int32_t> set_of;       // per training descriptor
    std::vector<int32_t> index_in_set;
    std::vector<uint32_t> bucket_start; // leaf -> first training index; one extra end entry
    // Within a leaf the descriptors are ordered by set: leaf_set_start[leaf * (sets + 1) + s]
    // is where set s begins, so a search restricted to a few sets skips the rest unread.
    std::vector<uint32_t> leaf_set_start;
    std::unique_ptr<cs::VocabularyTree> tree;
    size_t probes = 1;
    size_t set_count = 0;
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
void scan(const cs_matcher &m, const cs::Descriptor &q, size_t begin, size_t end, Nearest &n) {
    for (size_t i = begin; i < end; ++i) n.offer(cs::hamming(q, m.train[i]), int32_t(i));
}

// Scans one leaf: all of it, or only the ranges of the enabled sets.
void scan_leaf(const cs_matcher &m, const cs::Descriptor &q, size_t leaf, const std::vector<int32_t> *enabled,
               Nearest &n) {
    if (!enabled) {
        scan(m, q, m.bucket_start[leaf], m.bucket_start[leaf + 1], n);
        return;
    }
    const uint32_t *starts = m.leaf_set_start.data() + leaf * (m.set_count + 1);
    for (int32_t s : *enabled) scan(m, q, starts[s], starts[s + 1], n);
}

// Builds leaf_set_start from the (leaf, set)-ordered training descriptors.
void index_sets_within_leaves(cs_matcher &m) {
    size_t leaves = m.bucket_start.size() - 1;
    m.leaf_set_start.assign(leaves * (m.set_count + 1), 0);
    for (size_t leaf = 0; leaf < leaves; ++leaf) {
        uint32_t *starts = m.leaf_set_start.data() + leaf * (m.set_count + 1);
        uint32_t i = m.bucket_start[leaf], end = m.bucket_start[leaf + 1];
        for (size_t s = 0; s <= m.set_count; ++s) {
            while (i < end && size_t(m.set_of[i]) < s) ++i;
            starts[s] = i;
        }
    }
}

} // namespace

extern "C" {

cs_status cs_matcher_create(const cs_features *const *sets, size_t count, const cs_matcher_options *options,
                            cs_matcher **out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(out != nullptr && options != nullptr && (count == 0 || sets != nullptr),
                    "cs_matcher_create: NULL argument");
        cs::require(options->branching == 0 || options->probes >= 1, "cs_matcher_create: probes must be at least 1");
        *out = nullptr;
        cs::require_popcount();
        auto matcher = std::make_unique<cs_matcher>();
        matcher->set_count = count;
        std::vector<cs::Descriptor> all;
        std::vector<int32_t> set_of, index_in_set;
        for (size_t s = 0; s < count; ++s) {
            cs::require(sets[s] != nullptr, "cs_matcher_create: a set is NULL");
            const auto &d = sets[s]->descriptors;
            all.insert(all.end(), d.begin(), d.end());
            for (size_t i = 0; i < d.size(); ++i) {
                set_of.push_back(int32_t(s));
                index_in_set.push_back(int32_t(i));
            }
        }
        if (options->branching == 0 || all.empty()) {
            matcher->train = std::move(all);
            matcher->set_of = std::move(set_of);
            matcher->index_in_set = std::move(index_in_set);
            matcher->bucket_start = {0, uint32_t(matcher->train.size())};
        } else {
            matcher->tree = std::make_unique<cs::VocabularyTree>(all, options->branching, options->depth, options->seed);
            matcher->probes = size_t(options->probes);
            // Counting sort of the training descriptors by leaf, so each bucket is contiguous;
            // being stable, it keeps each bucket in set order.
            std::vector<uint32_t> leaf_of(all.size());
            std::vector<uint32_t> start(matcher->tree->leaf_count() + 1, 0);
            for (size_t i = 0; i < all.size(); ++i) {
                leaf_of[i] = matcher->tree->leaf(all[i]);
                ++start[leaf_of[i] + 1];
            }
            for (size_t l = 1; l < start.size(); ++l) start[l] += start[l - 1];
            matcher->train.resize(all.size());
            matcher->set_of.resize(all.size());
            matcher->index_in_set.resize(all.size());
            std::vector<uint32_t> next(start.begin(), start.end() - 1);
            for (size_t i = 0; i < all.size(); ++i) {
                uint32_t slot = next[leaf_of[i]]++;
                matcher->train[slot] = all[i];
                matcher->set_of[slot] = set_of[i];
                matcher->index_in_set[slot] = index_in_set[i];
            }
            matcher->bucket_start = std::move(start);
        }
        index_sets_within_leaves(*matcher);
        *out = matcher.release();
    });
}

void cs_matcher_destroy(cs_matcher *matcher) { delete matcher; }

cs_status cs_matcher_match(const cs_matcher *matcher, const cs_features *query, const uint8_t *enabled_sets,
                           float ratio, int32_t max_distance, cs_match *out, size_t capacity, size_t *count,
                           cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(matcher != nullptr && query != nullptr && count != nullptr, "cs_matcher_match: NULL argument");
        cs::require(ratio > 0 && ratio <= 1, "cs_matcher_match: ratio must be in (0, 1]");
        size_t queries = query->descriptors.size();
        cs::require_capacity(capacity, queries);
        constexpr size_t kMaxProbes = 16;
        uint32_t leaves[kMaxProbes];
        std::vector<int32_t> enabled;
        if (enabled_sets)
            for (size_t s = 0; s < matcher->set_count; ++s)
                if (enabled_sets[s]) enabled.push_back(int32_t(s));
        const std::vector<int32_t> *only = enabled_sets ? &enabled : nullptr;
        size_t kept = 0;
        for (size_t i = 0; i < queries; ++i) {
            const cs::Descriptor &q = query->descriptors[i];
            Nearest n;
            if (matcher->tree) {
                size_t found = matcher->tree->leaves(q, leaves, std::min(matcher->probes, kMaxProbes));
                for (size_t l = 0; l < found; ++l) scan_leaf(*matcher, q, leaves[l], only, n);
            } else {
                scan_leaf(*matcher, q, 0, only, n);
            }
            if (n.best < 0 || n.distance > max_distance) continue;
            if (n.second != INT_MAX && float(n.distance) >= ratio * float(n.second)) continue;
            out[kept++] = {int32_t(i), matcher->set_of[size_t(n.best)], matcher->index_in_set[size_t(n.best)],
                           n.distance, n.second == INT_MAX ? INT32_MAX : n.second};
        }
        *count = kept;
    });
}

} // extern "C"
