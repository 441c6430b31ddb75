// What may be shown of a storage URL. Every URL hpo prints (in its plan, its
// summary, a Slurm dry run, an error) goes through here first, including URLs
// hpo refuses: a typo in the scheme must not put the password on a terminal,
// in a log or in a CI transcript.
#ifndef HPO_STORAGE_URL_MASK_H_
#define HPO_STORAGE_URL_MASK_H_

#include <string>

namespace hpo {

// `url` with every place a password may hide replaced by ***, whether or not
// the URL is one hpo accepts. Errs on the side of hiding: the "user:password"
// part runs from the first ':' after the scheme up to the URL's last '@' (a
// password may hold an unencoded '@', '/', '?' or '#'), and the value of every
// `password` parameter (libpq's `?password=`, or keyword=value conninfo) is
// hidden too.
std::string masked_url(const std::string& url);

// `params` (URL query parameters joined by '&', or libpq's keyword=value words
// separated by blanks) with the value of each `password` parameter replaced by
// ***. Keys are compared as libpq reads them: percent-decoded, in any case.
std::string masked_password_params(const std::string& params);

// `s` with each %XX replaced by its byte; a '%' not followed by two hex
// digits is kept.
std::string percent_decoded(const std::string& s);

}  // namespace hpo

#endif  // HPO_STORAGE_URL_MASK_H_
