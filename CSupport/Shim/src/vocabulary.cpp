#include "barrier.hpp"
#include "descriptors.hpp"
#include "vocabulary_tree.hpp"

#include <memory>

struct cs_vocabulary {
    std::unique_ptr<cs::VocabularyTree> tree;
};

extern "C" {

cs_status cs_vocabulary_create(const cs_features *const *sets, size_t count, int32_t branching, int32_t depth,
                               size_t max_training, uint64_t seed, cs_vocabulary **out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(out != nullptr && (count == 0 || sets != nullptr), "cs_vocabulary_create: NULL argument");
        cs::require(max_training > 0, "cs_vocabulary_create: max_training must be positive");
        *out = nullptr;
        cs::require_popcount();
        std::vector<cs::Descriptor> all;
        for (size_t s = 0; s < count; ++s) {
            cs::require(sets[s] != nullptr, "cs_vocabulary_create: a set is NULL");
            all.insert(all.end(), sets[s]->descriptors.begin(), sets[s]->descriptors.end());
        }
        cs::require(!all.empty(), "cs_vocabulary_create: no descriptors to train on");
        auto vocabulary = std::make_unique<cs_vocabulary>();
        vocabulary->tree = std::make_unique<cs::VocabularyTree>(all, branching, depth, seed, max_training);
        *out = vocabulary.release();
    });
}

void cs_vocabulary_destroy(cs_vocabulary *vocabulary) { delete vocabulary; }

cs_status cs_vocabulary_get_word_count(const cs_vocabulary *vocabulary, size_t *out, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(vocabulary != nullptr && out != nullptr, "cs_vocabulary_get_word_count: NULL argument");
        *out = vocabulary->tree->leaf_count();
    });
}

cs_status cs_vocabulary_quantize(const cs_vocabulary *vocabulary, const cs_features *features, uint32_t *words,
                                 size_t capacity, cs_error *error) {
    return cs::guard(error, [&] {
        cs::require(vocabulary != nullptr && features != nullptr, "cs_vocabulary_quantize: NULL argument");
        size_t n = features->descriptors.size();
        cs::require_capacity(capacity, n);
        for (size_t i = 0; i < n; ++i) words[i] = vocabulary->tree->leaf(features->descriptors[i]);
    });
}

} // extern "C"
