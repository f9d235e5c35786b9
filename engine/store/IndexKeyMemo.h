#pragma once

#include <string>

namespace steward {

// The natural key of the document the writer is storing, worked out by a preparing thread. The
// natural-key index's expression, steward_natural_key(steward_text(identity)), finds both of its
// answers here instead of decoding and parsing the identity once more on the writer (about 2 us a
// document). Each answer is given only for the very bytes it was worked out from, so an entry left
// from an earlier document is never wrong, only unused.
struct IndexKeyMemo
{
    bool known = false;
    std::string storedIdentity; // as bound: the compressed frame, or the text itself
    std::string identityText;
    std::string naturalKey;
};

} // namespace steward
