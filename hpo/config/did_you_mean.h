// Suggestions for misspelt keys and names: "unknown key 'choises' (did you
// mean 'choices'?)".
#ifndef HPO_CONFIG_DID_YOU_MEAN_H_
#define HPO_CONFIG_DID_YOU_MEAN_H_

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace hpo {

// Edit distance counting insertions, deletions, substitutions and swaps of
// two adjacent characters (the usual typos), ignoring ASCII case.
size_t edit_distance(const std::string& a, const std::string& b);

// The candidate closest to `word`, if it is close enough to be what the user
// meant: at most a third of the word's length away (and at least one edit
// allowed, but never a complete rewrite). Ties go to the earlier candidate.
std::optional<std::string> closest_match(const std::string& word,
                                         const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" when there is a close candidate, "" otherwise; ready
// to append to an error message.
std::string did_you_mean(const std::string& word, const std::vector<std::string>& candidates);

// "a, b, c": the known names, for messages that list them.
std::string join_names(const std::vector<std::string>& names);

}  // namespace hpo

#endif  // HPO_CONFIG_DID_YOU_MEAN_H_
